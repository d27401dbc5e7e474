// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The routines the trace wraps, each with its class (what `argument trace` selects). The
// list is the one place a routine is named: the enum, the region names of the archive and
// the classes all come from it.

#include <cstdint>

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

// X(NAME, CLASS): MPI_NAME is wrapped and belongs to CLASS.
#define PNMPI_TRACE_ROUTINES(X)                                                                    \
  X(Init, kClassEnv)                                                                               \
  X(Init_thread, kClassEnv)                                                                        \
  X(Finalize, kClassEnv)                                                                           \
  X(Send, kClassP2P)                                                                               \
  X(Bsend, kClassP2P)                                                                              \
  X(Ssend, kClassP2P)                                                                              \
  X(Rsend, kClassP2P)                                                                              \
  X(Recv, kClassP2P)                                                                               \
  X(Isend, kClassP2P)                                                                              \
  X(Ibsend, kClassP2P)                                                                             \
  X(Issend, kClassP2P)                                                                             \
  X(Irsend, kClassP2P)                                                                             \
  X(Irecv, kClassP2P)                                                                              \
  X(Sendrecv, kClassP2P)                                                                           \
  X(Sendrecv_replace, kClassP2P)                                                                   \
  X(Probe, kClassP2P)                                                                              \
  X(Iprobe, kClassP2P)                                                                             \
  X(Send_init, kClassP2P)                                                                          \
  X(Bsend_init, kClassP2P)                                                                         \
  X(Ssend_init, kClassP2P)                                                                         \
  X(Rsend_init, kClassP2P)                                                                         \
  X(Recv_init, kClassP2P)                                                                          \
  X(Start, kClassP2P)                                                                              \
  X(Startall, kClassP2P)                                                                           \
  X(Mprobe, kClassP2P)                                                                             \
  X(Improbe, kClassP2P)                                                                            \
  X(Mrecv, kClassP2P)                                                                              \
  X(Imrecv, kClassP2P)                                                                             \
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
  X(Barrier, kClassColl)                                                                           \
  X(Bcast, kClassColl)                                                                             \
  X(Gather, kClassColl)                                                                            \
  X(Gatherv, kClassColl)                                                                           \
  X(Scatter, kClassColl)                                                                           \
  X(Scatterv, kClassColl)                                                                          \
  X(Allgather, kClassColl)                                                                         \
  X(Allgatherv, kClassColl)                                                                        \
  X(Alltoall, kClassColl)                                                                          \
  X(Alltoallv, kClassColl)                                                                         \
  X(Reduce, kClassColl)                                                                            \
  X(Allreduce, kClassColl)                                                                         \
  X(Reduce_scatter_block, kClassColl)                                                              \
  X(Reduce_scatter, kClassColl)                                                                    \
  X(Scan, kClassColl)                                                                              \
  X(Exscan, kClassColl)                                                                            \
  X(Ibarrier, kClassColl)                                                                          \
  X(Ibcast, kClassColl)                                                                            \
  X(Igather, kClassColl)                                                                           \
  X(Igatherv, kClassColl)                                                                          \
  X(Iscatter, kClassColl)                                                                          \
  X(Iscatterv, kClassColl)                                                                         \
  X(Iallgather, kClassColl)                                                                        \
  X(Iallgatherv, kClassColl)                                                                       \
  X(Ialltoall, kClassColl)                                                                         \
  X(Ialltoallv, kClassColl)                                                                        \
  X(Ireduce, kClassColl)                                                                           \
  X(Iallreduce, kClassColl)                                                                        \
  X(Comm_dup, kClassComm)                                                                          \
  X(Comm_dup_with_info, kClassComm)                                                                \
  X(Comm_split, kClassComm)                                                                        \
  X(Comm_split_type, kClassComm)                                                                   \
  X(Comm_create, kClassComm)                                                                       \
  X(Comm_create_group, kClassComm)                                                                 \
  X(Intercomm_create, kClassComm)                                                                  \
  X(Intercomm_merge, kClassComm)                                                                   \
  X(Comm_idup, kClassComm)                                                                         \
  X(Cart_create, kClassComm)                                                                       \
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
  X(File_read, kClassIo)                                                                           \
  X(File_read_all, kClassIo)                                                                       \
  X(File_read_at, kClassIo)                                                                        \
  X(File_read_at_all, kClassIo)                                                                    \
  X(File_write, kClassIo)                                                                          \
  X(File_write_all, kClassIo)                                                                      \
  X(File_write_at, kClassIo)                                                                       \
  X(File_write_at_all, kClassIo)                                                                   \
  X(File_iread, kClassIo)                                                                          \
  X(File_iwrite, kClassIo)                                                                         \
  X(File_iread_at, kClassIo)                                                                       \
  X(File_iwrite_at, kClassIo)

enum Routine : std::uint16_t {
#define PNMPI_TRACE_ENUM(name, cls) r_##name,
  PNMPI_TRACE_ROUTINES(PNMPI_TRACE_ENUM)
#undef PNMPI_TRACE_ENUM
      kRoutineCount
};

struct RoutineInfo {
  const char *name; ///< "MPI_Send"
  unsigned cls;
};

extern const RoutineInfo kRoutines[kRoutineCount];

/// Whether `r` starts a nonblocking collective (the X list keeps them together, Ibarrier to
/// Iallreduce): its call holds no collective, which is recorded at its completion.
constexpr bool nonblocking_collective(unsigned r) noexcept {
  return r >= r_Ibarrier && r <= r_Iallreduce;
}

} // namespace pnmpi::trace
