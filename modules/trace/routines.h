// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The routines the trace wraps, each with its class (what `argument trace` selects). The
// list is the one place a routine is named: the enum, the region names of the archive and
// the classes all come from it.

#include <cstdint>

// (The module is built with OMPI_SKIP_MPICXX and MPICH_SKIP_MPICXX: no C++ bindings.)
// MPI_VERSION: what the MPI of this build has decides which routines exist here. MPI 4
// (MPICH 4.0) adds the persistent collectives and the large-count `_c` forms; Open MPI 4.1
// (MPI 3.1) has neither (its MPIX_ persistent collectives are in mpi-ext.h, not mpi.h), and
// a routine it lacks must be neither wrapped nor named, or the module would not load.
#include <mpi.h>

namespace pnmpi::trace {

/// Routine classes, as bits of `argument trace`.
enum RoutineClass : unsigned {
  kClassP2P = 1u << 0,     ///< point-to-point sends, receives, probes
  kClassRequest = 1u << 1, ///< waits and tests (they complete nonblocking operations)
  kClassColl = 1u << 2,    ///< collectives
  kClassRma = 1u << 3,     ///< one-sided
  kClassIo = 1u << 4,      ///< MPI-IO
  kClassComm = 1u << 5,    ///< communicator, group and window management
  kClassEnv = 1u << 6,     ///< MPI_Init, MPI_Finalize
  kClassAll = (1u << 7) - 1
};

// The routines with a count exist as MPI_NAME and, in MPI 4, as the large-count MPI_NAME_c:
// their lists take the suffix S (empty, or _c). Point-to-point: X(NAME, SHAPE), SHAPE naming
// the wrapper that makes it (wrap_p2p.cpp); the others are X(NAME, CLASS).
#define PNMPI_TRACE_P2P_COUNTED(X, S)                                                              \
  X(Send##S, SEND)                                                                                 \
  X(Bsend##S, SEND)                                                                                \
  X(Ssend##S, SEND)                                                                                \
  X(Rsend##S, SEND)                                                                                \
  X(Recv##S, RECV)                                                                                 \
  X(Isend##S, ISEND)                                                                               \
  X(Ibsend##S, ISEND)                                                                              \
  X(Issend##S, ISEND)                                                                              \
  X(Irsend##S, ISEND)                                                                              \
  X(Irecv##S, IRECV)                                                                               \
  X(Sendrecv##S, SENDRECV)                                                                         \
  X(Sendrecv_replace##S, SENDRECV_REPLACE)                                                         \
  X(Send_init##S, SEND_INIT)                                                                       \
  X(Bsend_init##S, SEND_INIT)                                                                      \
  X(Ssend_init##S, SEND_INIT)                                                                      \
  X(Rsend_init##S, SEND_INIT)                                                                      \
  X(Recv_init##S, RECV_INIT)                                                                       \
  X(Mrecv##S, MRECV)                                                                               \
  X(Imrecv##S, IMRECV)

// MPI-IO with a count: X(NAME, KIND, SIDE, FLAGS, WHERE), the wrapper's kind (blocking,
// nonblocking, or the begin of a split collective, which issues the operation its end
// completes), its parameters (READ, WRITE, AT_READ, AT_WRITE), whether it is collective and
// where it starts in the file (wrap_io.cpp). Split collective ends have no count, hence no
// `_c`: they are plain X(NAME, CLASS).
#define PNMPI_TRACE_IO_COUNTED(X, S)                                                               \
  X(File_read##S, BLOCKING, READ, INDEPENDENT, INDIVIDUAL)                                         \
  X(File_read_all##S, BLOCKING, READ, COLLECTIVE, INDIVIDUAL)                                      \
  X(File_read_at##S, BLOCKING, AT_READ, INDEPENDENT, EXPLICIT)                                     \
  X(File_read_at_all##S, BLOCKING, AT_READ, COLLECTIVE, EXPLICIT)                                  \
  X(File_write##S, BLOCKING, WRITE, INDEPENDENT, INDIVIDUAL)                                       \
  X(File_write_all##S, BLOCKING, WRITE, COLLECTIVE, INDIVIDUAL)                                    \
  X(File_write_at##S, BLOCKING, AT_WRITE, INDEPENDENT, EXPLICIT)                                   \
  X(File_write_at_all##S, BLOCKING, AT_WRITE, COLLECTIVE, EXPLICIT)                                \
  X(File_iread##S, NONBLOCKING, READ, INDEPENDENT, INDIVIDUAL)                                     \
  X(File_iwrite##S, NONBLOCKING, WRITE, INDEPENDENT, INDIVIDUAL)                                   \
  X(File_iread_at##S, NONBLOCKING, AT_READ, INDEPENDENT, EXPLICIT)                                 \
  X(File_iwrite_at##S, NONBLOCKING, AT_WRITE, INDEPENDENT, EXPLICIT)                               \
  X(File_iread_all##S, NONBLOCKING, READ, COLLECTIVE, INDIVIDUAL)                                  \
  X(File_iwrite_all##S, NONBLOCKING, WRITE, COLLECTIVE, INDIVIDUAL)                                \
  X(File_iread_at_all##S, NONBLOCKING, AT_READ, COLLECTIVE, EXPLICIT)                              \
  X(File_iwrite_at_all##S, NONBLOCKING, AT_WRITE, COLLECTIVE, EXPLICIT)                            \
  X(File_read_shared##S, BLOCKING, READ, INDEPENDENT, SHARED)                                      \
  X(File_write_shared##S, BLOCKING, WRITE, INDEPENDENT, SHARED)                                    \
  X(File_iread_shared##S, NONBLOCKING, READ, INDEPENDENT, SHARED)                                  \
  X(File_iwrite_shared##S, NONBLOCKING, WRITE, INDEPENDENT, SHARED)                                \
  X(File_read_ordered##S, BLOCKING, READ, COLLECTIVE, ORDERED)                                     \
  X(File_write_ordered##S, BLOCKING, WRITE, COLLECTIVE, ORDERED)                                   \
  X(File_read_all_begin##S, BEGIN, READ, COLLECTIVE, INDIVIDUAL)                                   \
  X(File_write_all_begin##S, BEGIN, WRITE, COLLECTIVE, INDIVIDUAL)                                 \
  X(File_read_at_all_begin##S, BEGIN, AT_READ, COLLECTIVE, EXPLICIT)                               \
  X(File_write_at_all_begin##S, BEGIN, AT_WRITE, COLLECTIVE, EXPLICIT)                             \
  X(File_read_ordered_begin##S, BEGIN, READ, COLLECTIVE, ORDERED)                                  \
  X(File_write_ordered_begin##S, BEGIN, WRITE, COLLECTIVE, ORDERED)
#define PNMPI_TRACE_IO_ENDS(X)                                                                     \
  X(File_read_all_end, kClassIo)                                                                   \
  X(File_write_all_end, kClassIo)                                                                  \
  X(File_read_at_all_end, kClassIo)                                                                \
  X(File_write_at_all_end, kClassIo)                                                               \
  X(File_read_ordered_end, kClassIo)                                                               \
  X(File_write_ordered_end, kClassIo)
// The collectives: C(X, NAME, INAME, OP, SHAPE): MPI_NAME blocks, MPI_INAME starts the same
// operation as a request, OP is the OTF2 collective operation both are recorded as, and
// SHAPE names their parameters and what they count (wrap_coll.cpp).
// OTF2 has no neighbourhood operations: a neighbourhood collective is recorded as the
// operation of the same shape over the whole communicator (its region name tells them
// apart), with the bytes its topology's neighbours exchange.
#define PNMPI_TRACE_COLLECTIVES(X, C)                                                              \
  C(X, Bcast, Ibcast, BCAST, BCAST)                                                                \
  C(X, Gather, Igather, GATHER, GATHER)                                                            \
  C(X, Gatherv, Igatherv, GATHERV, GATHERV)                                                        \
  C(X, Scatter, Iscatter, SCATTER, SCATTER)                                                        \
  C(X, Scatterv, Iscatterv, SCATTERV, SCATTERV)                                                    \
  C(X, Allgather, Iallgather, ALLGATHER, ALLGATHER)                                                \
  C(X, Allgatherv, Iallgatherv, ALLGATHERV, ALLGATHERV)                                            \
  C(X, Alltoall, Ialltoall, ALLTOALL, ALLTOALL)                                                    \
  C(X, Alltoallv, Ialltoallv, ALLTOALLV, ALLTOALLV)                                                \
  C(X, Alltoallw, Ialltoallw, ALLTOALLW, ALLTOALLW)                                                \
  C(X, Reduce, Ireduce, REDUCE, REDUCE)                                                            \
  C(X, Allreduce, Iallreduce, ALLREDUCE, ALLREDUCE)                                                \
  C(X, Reduce_scatter, Ireduce_scatter, REDUCE_SCATTER, RSCATTER)                                  \
  C(X, Reduce_scatter_block, Ireduce_scatter_block, REDUCE_SCATTER_BLOCK, RSCATTERB)               \
  C(X, Scan, Iscan, SCAN, SCAN)                                                                    \
  C(X, Exscan, Iexscan, EXSCAN, SCAN)                                                              \
  C(X, Neighbor_allgather, Ineighbor_allgather, ALLGATHER, NALLGATHER)                             \
  C(X, Neighbor_allgatherv, Ineighbor_allgatherv, ALLGATHERV, NALLGATHERV)                         \
  C(X, Neighbor_alltoall, Ineighbor_alltoall, ALLTOALL, NALLTOALL)                                 \
  C(X, Neighbor_alltoallv, Ineighbor_alltoallv, ALLTOALLV, NALLTOALLV)                             \
  C(X, Neighbor_alltoallw, Ineighbor_alltoallw, ALLTOALLW, NALLTOALLW)

/// How a collective routine's call is recorded.
enum CollectiveKind : std::uint8_t {
  kNotCollective = 0,
  kCollBlocking,    ///< MpiCollectiveBegin/End in its call
  kCollNonblocking, ///< a request in its call, the collective at its completion
  kCollPersistent,  ///< MPI 4 MPI_X_init: a region; each MPI_Start starts a nonblocking one
};

// K(NAME, KIND, OP): every collective routine of this MPI with how it is recorded.
#if MPI_VERSION >= 4
#define PNMPI_TRACE_COLL_FORMS(K, N, I, OP, SHAPE)                                                 \
  K(N, kCollBlocking, OP)                                                                          \
  K(I, kCollNonblocking, OP)                                                                       \
  K(N##_init, kCollPersistent, OP)                                                                 \
  K(N##_c, kCollBlocking, OP)                                                                      \
  K(I##_c, kCollNonblocking, OP)                                                                   \
  K(N##_init_c, kCollPersistent, OP)
#define PNMPI_TRACE_BARRIER_MPI4(K) K(Barrier_init, kCollPersistent, BARRIER)
#else
#define PNMPI_TRACE_COLL_FORMS(K, N, I, OP, SHAPE)                                                 \
  K(N, kCollBlocking, OP)                                                                          \
  K(I, kCollNonblocking, OP)
#define PNMPI_TRACE_BARRIER_MPI4(K)
#endif
#define PNMPI_TRACE_COLL_KINDS(K)                                                                  \
  K(Barrier, kCollBlocking, BARRIER)                                                               \
  K(Ibarrier, kCollNonblocking, BARRIER)                                                           \
  PNMPI_TRACE_BARRIER_MPI4(K)                                                                      \
  PNMPI_TRACE_COLLECTIVES(K, PNMPI_TRACE_COLL_FORMS)

#if MPI_VERSION >= 4
#define PNMPI_TRACE_IO_ALL(X) PNMPI_TRACE_IO_COUNTED(X, ) PNMPI_TRACE_IO_COUNTED(X, _c)
#define PNMPI_TRACE_P2P_ALL(X) PNMPI_TRACE_P2P_COUNTED(X, ) PNMPI_TRACE_P2P_COUNTED(X, _c)
#else
#define PNMPI_TRACE_IO_ALL(X) PNMPI_TRACE_IO_COUNTED(X, )
#define PNMPI_TRACE_P2P_ALL(X) PNMPI_TRACE_P2P_COUNTED(X, )
#endif

// X(NAME, CLASS): MPI_NAME is wrapped and belongs to CLASS; the collectives are the list
// above, in their blocking, nonblocking, persistent and large-count forms.
#define PNMPI_TRACE_BASE(X)                                                                        \
  X(Init, kClassEnv)                                                                               \
  X(Init_thread, kClassEnv)                                                                        \
  X(Finalize, kClassEnv)                                                                           \
  X(Probe, kClassP2P)                                                                              \
  X(Iprobe, kClassP2P)                                                                             \
  X(Start, kClassP2P)                                                                              \
  X(Startall, kClassP2P)                                                                           \
  X(Mprobe, kClassP2P)                                                                             \
  X(Improbe, kClassP2P)                                                                            \
  X(Wait, kClassRequest)                                                                           \
  X(Waitall, kClassRequest)                                                                        \
  X(Waitany, kClassRequest)                                                                        \
  X(Waitsome, kClassRequest)                                                                       \
  X(Test, kClassRequest)                                                                           \
  X(Testall, kClassRequest)                                                                        \
  X(Testany, kClassRequest)                                                                        \
  X(Testsome, kClassRequest)                                                                       \
  X(Cancel, kClassRequest)                                                                         \
  X(Request_free, kClassRequest)                                                                   \
  X(Comm_dup, kClassComm)                                                                          \
  X(Comm_dup_with_info, kClassComm)                                                                \
  X(Comm_split, kClassComm)                                                                        \
  X(Comm_split_type, kClassComm)                                                                   \
  X(Comm_create, kClassComm)                                                                       \
  X(Comm_create_group, kClassComm)                                                                 \
  X(Cart_create, kClassComm)                                                                       \
  X(Cart_sub, kClassComm)                                                                          \
  X(Graph_create, kClassComm)                                                                      \
  X(Dist_graph_create, kClassComm)                                                                 \
  X(Dist_graph_create_adjacent, kClassComm)                                                        \
  X(Comm_free, kClassComm)                                                                         \
  X(Win_create, kClassComm)                                                                        \
  X(Win_allocate, kClassComm)                                                                      \
  X(Win_free, kClassComm)                                                                          \
  X(Put, kClassRma)                                                                                \
  X(Get, kClassRma)                                                                                \
  X(Accumulate, kClassRma)                                                                         \
  X(Get_accumulate, kClassRma)                                                                     \
  X(Fetch_and_op, kClassRma)                                                                       \
  X(Compare_and_swap, kClassRma)                                                                   \
  X(Win_fence, kClassRma)                                                                          \
  X(Win_lock, kClassRma)                                                                           \
  X(Win_unlock, kClassRma)                                                                         \
  X(Win_lock_all, kClassRma)                                                                       \
  X(Win_unlock_all, kClassRma)                                                                     \
  X(Win_flush, kClassRma)                                                                          \
  X(Win_post, kClassRma)                                                                           \
  X(Win_start, kClassRma)                                                                          \
  X(Win_complete, kClassRma)                                                                       \
  X(Win_wait, kClassRma)                                                                           \
  X(File_open, kClassIo)                                                                           \
  X(File_close, kClassIo)                                                                          \
  X(File_set_view, kClassIo)                                                                       \
  X(File_sync, kClassIo)                                                                           \
  X(File_seek, kClassIo)                                                                           \
  X(File_seek_shared, kClassIo)                                                                    \
  PNMPI_TRACE_IO_ENDS(X)

// Every wrapped routine: X_P2P(NAME, SHAPE) and X_IO(NAME, KIND, SIDE, FLAGS, WHERE) for the
// point-to-point and I/O ones with a count,
// X_COLL(NAME, KIND, OP) for the collectives, X_PLAIN(NAME, CLASS) for the others.
#define PNMPI_TRACE_ROUTINES(X)                                                                    \
  PNMPI_TRACE_BASE(X##_PLAIN)                                                                      \
  PNMPI_TRACE_P2P_ALL(X##_P2P)                                                                     \
  PNMPI_TRACE_IO_ALL(X##_IO)                                                                       \
  PNMPI_TRACE_COLL_KINDS(X##_COLL)

enum Routine : std::uint16_t {
#define PNMPI_TRACE_ENUM_PLAIN(name, cls) r_##name,
#define PNMPI_TRACE_ENUM_P2P(name, shape) r_##name,
#define PNMPI_TRACE_ENUM_IO(name, kind, side, flags, where) r_##name,
#define PNMPI_TRACE_ENUM_COLL(name, kind, op) r_##name,
  PNMPI_TRACE_ROUTINES(PNMPI_TRACE_ENUM)
#undef PNMPI_TRACE_ENUM_PLAIN
#undef PNMPI_TRACE_ENUM_P2P
#undef PNMPI_TRACE_ENUM_IO
#undef PNMPI_TRACE_ENUM_COLL
      kRoutineCount
};

struct RoutineInfo {
  const char *name; ///< "MPI_Send"
  unsigned cls;
  CollectiveKind coll;  ///< how a collective's call is recorded
  std::uint8_t otf2_op; ///< a collective's OTF2_CollectiveOp
};

extern const RoutineInfo kRoutines[kRoutineCount];

/// Whether a call of `r` holds a blocking collective (MpiCollectiveBegin/End): a
/// nonblocking collective is recorded at its completion, a persistent one's init holds none.
inline bool blocking_collective(unsigned r) noexcept {
  return kRoutines[r].coll == kCollBlocking;
}

} // namespace pnmpi::trace
