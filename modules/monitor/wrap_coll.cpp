// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The collective wrappers; what each collective records is described in coll_describe.h.

#include <pnmpi/pnmpi.h>

#include "coll_describe.h"

using namespace pnmpi::monitor;
using namespace pnmpi::monitor::coll;

namespace {

struct Planner {
  CommInfo *ci;
  MPI_Comm comm;
  Plan plan;
  void send(int r, std::uint64_t bytes) { plan.sends.emplace_back(ci->peers.world(r), bytes); }
  void op(CollClass c, std::uint64_t bytes) noexcept {
    plan.stats = stats_of(ci, comm);
    plan.coll_class = static_cast<int>(c);
    plan.class_bytes = bytes;
  }
  void all(std::uint64_t bytes) noexcept {
    plan.stats = stats_of(ci, comm);
    plan.to_all = true;
    plan.all_bytes = bytes;
  }
  void up(std::uint64_t bytes) noexcept {
    plan.stats = stats_of(ci, comm);
    plan.to_up = true;
    plan.up_bytes = bytes;
  }
};

template <class Describe>
inline void record_plan(MPI_Comm comm, MPI_Request request, Describe &&describe) noexcept {
  if (!recording(kRecordColl))
    return;
  CommInfo *ci = comm_info(comm);
  if (ci == nullptr)
    return;
  try {
    Planner sink{ci, comm, {}};
    sink.plan.kind = kColl;
    describe(*ci, sink);
    remember_request(request, std::move(sink.plan));
  } catch (...) {
  }
}

} // namespace

// ---- wrappers -----------------------------------------------------------------------------
//
// Each collective X gets, from one parameter list (with count type CT and displacement type
// DT), one argument list and one description: MPI_X and MPI_IX; with MPI 4 also MPI_X_init
// and the large-count MPI_X_c, MPI_IX_c, MPI_X_init_c.

// The argument lists and descriptions are function-like macros passed by name, so that
// their commas survive the nested expansion.
#define DEFINE_BLOCKING(NAME, CT, DT, PARAMS, ARGS, DESCRIBE)                                      \
  MONITOR_ROUTINE(NAME)                                                                            \
  PNMPI_EXPORT int MPI_##NAME(PARAMS(CT, DT)) {                                                    \
    record_now(id_##NAME, comm, [&](CommInfo &ci, auto &s) { DESCRIBE(); });                       \
    return PMPI_##NAME(ARGS());                                                                    \
  }
#define DEFINE_NONBLOCKING(NAME, CT, DT, PARAMS, ARGS, DESCRIBE)                                   \
  MONITOR_ROUTINE(NAME)                                                                            \
  PNMPI_EXPORT int MPI_##NAME(PARAMS(CT, DT), MPI_Request *request) {                              \
    record_now(id_##NAME, comm, [&](CommInfo &ci, auto &s) { DESCRIBE(); });                       \
    return PMPI_##NAME(ARGS(), request);                                                           \
  }
#define DEFINE_PERSISTENT(NAME, CT, DT, PARAMS, ARGS, DESCRIBE)                                    \
  PNMPI_EXPORT int MPI_##NAME(PARAMS(CT, DT), MPI_Info info, MPI_Request *request) {               \
    const int rc = PMPI_##NAME(ARGS(), info, request);                                             \
    if (rc == MPI_SUCCESS)                                                                         \
      record_plan(comm, *request, [&](CommInfo &ci, auto &s) { DESCRIBE(); });                     \
    return rc;                                                                                     \
  }

#define DEFINE_MPI3(NAME, INAME, PARAMS, ARGS, DESCRIBE)                                           \
  DEFINE_BLOCKING(NAME, int, int, PARAMS, ARGS, DESCRIBE)                                          \
  DEFINE_NONBLOCKING(INAME, int, int, PARAMS, ARGS, DESCRIBE)
#define DEFINE_MPI4(NAME, INAME, PARAMS, ARGS, DESCRIBE)                                           \
  DEFINE_PERSISTENT(NAME##_init, int, int, PARAMS, ARGS, DESCRIBE)                                 \
  DEFINE_BLOCKING(NAME##_c, MPI_Count, MPI_Aint, PARAMS, ARGS, DESCRIBE)                           \
  DEFINE_NONBLOCKING(INAME##_c, MPI_Count, MPI_Aint, PARAMS, ARGS, DESCRIBE)                       \
  DEFINE_PERSISTENT(NAME##_init_c, MPI_Count, MPI_Aint, PARAMS, ARGS, DESCRIBE)

// Parameter lists, argument lists and descriptions.
#define BCAST_P(CT, DT) void *buffer, CT count, MPI_Datatype datatype, int root, MPI_Comm comm
#define BCAST_A() buffer, count, datatype, root, comm
#define BCAST_D() bcast(ci, s, count, datatype, root)

#define ROOTED_P(CT, DT)                                                                           \
  const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, CT recvcount,           \
      MPI_Datatype recvtype, int root, MPI_Comm comm
#define ROOTED_A() sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
#define GATHER_D() gather(ci, s, sendcount, sendtype, recvcount, recvtype, root)
#define SCATTER_D() scatter(ci, s, sendcount, sendtype, root)

#define GATHERV_P(CT, DT)                                                                          \
  const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, const CT recvcounts[],  \
      const DT displs[], MPI_Datatype recvtype, int root, MPI_Comm comm
#define GATHERV_A() sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm
#define GATHERV_D() gatherv(ci, s, sendcount, sendtype, recvcounts, recvtype, root)

#define SCATTERV_P(CT, DT)                                                                         \
  const void *sendbuf, const CT sendcounts[], const DT displs[], MPI_Datatype sendtype,            \
      void *recvbuf, CT recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm
#define SCATTERV_A() sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm
#define SCATTERV_D() scatterv(ci, s, sendcounts, sendtype, root)

#define ALL_P(CT, DT)                                                                              \
  const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, CT recvcount,           \
      MPI_Datatype recvtype, MPI_Comm comm
#define ALL_A() sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
#define ALLGATHER_D() allgather(ci, s, sendbuf, sendcount, sendtype, recvcount, recvtype)
#define ALLTOALL_D() alltoall(ci, s, sendbuf, sendcount, sendtype, recvcount, recvtype)

#define ALLGATHERV_P(CT, DT)                                                                       \
  const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, const CT recvcounts[],  \
      const DT displs[], MPI_Datatype recvtype, MPI_Comm comm
#define ALLGATHERV_A() sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
#define ALLGATHERV_D() allgatherv(ci, s, sendbuf, sendcount, sendtype, recvcounts, recvtype)

#define ALLTOALLV_P(CT, DT)                                                                        \
  const void *sendbuf, const CT sendcounts[], const DT sdispls[], MPI_Datatype sendtype,           \
      void *recvbuf, const CT recvcounts[], const DT rdispls[], MPI_Datatype recvtype,             \
      MPI_Comm comm
#define ALLTOALLV_A()                                                                              \
  sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
#define ALLTOALLV_D() alltoallv(ci, s, sendbuf, sendcounts, sendtype, recvcounts, recvtype)

#define ALLTOALLW_P(CT, DT)                                                                        \
  const void *sendbuf, const CT sendcounts[], const DT sdispls[], const MPI_Datatype sendtypes[],  \
      void *recvbuf, const CT recvcounts[], const DT rdispls[], const MPI_Datatype recvtypes[],    \
      MPI_Comm comm
/* Alltoallw's displacements are int (MPI_Aint for _c); neighbor_alltoallw's always MPI_Aint. */
#define ALLTOALLW_A()                                                                              \
  sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
#define ALLTOALLW_D() alltoallw(ci, s, sendbuf, sendcounts, sendtypes, recvcounts, recvtypes)
#define NALLTOALLW_P(CT, DT) ALLTOALLW_P(CT, MPI_Aint)

#define REDUCE_P(CT, DT)                                                                           \
  const void *sendbuf, void *recvbuf, CT count, MPI_Datatype datatype, MPI_Op op, int root,        \
      MPI_Comm comm
#define REDUCE_A() sendbuf, recvbuf, count, datatype, op, root, comm
#define REDUCE_D() reduce(ci, s, count, datatype, root)

#define ALLREDUCE_P(CT, DT)                                                                        \
  const void *sendbuf, void *recvbuf, CT count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm
#define ALLREDUCE_A() sendbuf, recvbuf, count, datatype, op, comm
#define ALLREDUCE_D() allreduce(ci, s, count, datatype)
#define SCAN_D() scan(ci, s, count, datatype)

#define RSCATTER_P(CT, DT)                                                                         \
  const void *sendbuf, void *recvbuf, const CT recvcounts[], MPI_Datatype datatype, MPI_Op op,     \
      MPI_Comm comm
#define RSCATTER_A() sendbuf, recvbuf, recvcounts, datatype, op, comm
#define RSCATTER_D() reduce_scatter(ci, s, recvcounts, datatype)

#define RSCATTERB_P(CT, DT)                                                                        \
  const void *sendbuf, void *recvbuf, CT recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm
#define RSCATTERB_A() sendbuf, recvbuf, recvcount, datatype, op, comm
#define RSCATTERB_D() reduce_scatter_block(ci, s, recvcount, datatype)

#define NALLGATHER_D()                                                                             \
  neighbors(ci, comm, s, [&](std::size_t) { return volume(sendcount, sendtype); })
#define NALLTOALLV_D()                                                                             \
  neighbors(ci, comm, s, [&](std::size_t i) { return volume(sendcounts[i], sendtype); })
#define NALLTOALLW_D()                                                                             \
  neighbors(ci, comm, s, [&](std::size_t i) { return volume(sendcounts[i], sendtypes[i]); })

#define BARRIER_P(CT, DT) MPI_Comm comm
#define BARRIER_A() comm
#define BARRIER_D() barrier(ci, s)

// Every collective with a blocking and a nonblocking form (and, in MPI 4, persistent and
// large-count forms): NAME, INAME, parameters, arguments, description.
#define MONITOR_COLLECTIVES(X)                                                                     \
  X(Bcast, Ibcast, BCAST_P, BCAST_A, BCAST_D)                                                      \
  X(Gather, Igather, ROOTED_P, ROOTED_A, GATHER_D)                                                 \
  X(Gatherv, Igatherv, GATHERV_P, GATHERV_A, GATHERV_D)                                            \
  X(Scatter, Iscatter, ROOTED_P, ROOTED_A, SCATTER_D)                                              \
  X(Scatterv, Iscatterv, SCATTERV_P, SCATTERV_A, SCATTERV_D)                                       \
  X(Allgather, Iallgather, ALL_P, ALL_A, ALLGATHER_D)                                              \
  X(Allgatherv, Iallgatherv, ALLGATHERV_P, ALLGATHERV_A, ALLGATHERV_D)                             \
  X(Alltoall, Ialltoall, ALL_P, ALL_A, ALLTOALL_D)                                                 \
  X(Alltoallv, Ialltoallv, ALLTOALLV_P, ALLTOALLV_A, ALLTOALLV_D)                                  \
  X(Alltoallw, Ialltoallw, ALLTOALLW_P, ALLTOALLW_A, ALLTOALLW_D)                                  \
  X(Reduce, Ireduce, REDUCE_P, REDUCE_A, REDUCE_D)                                                 \
  X(Allreduce, Iallreduce, ALLREDUCE_P, ALLREDUCE_A, ALLREDUCE_D)                                  \
  X(Reduce_scatter, Ireduce_scatter, RSCATTER_P, RSCATTER_A, RSCATTER_D)                           \
  X(Reduce_scatter_block, Ireduce_scatter_block, RSCATTERB_P, RSCATTERB_A, RSCATTERB_D)            \
  X(Scan, Iscan, ALLREDUCE_P, ALLREDUCE_A, SCAN_D)                                                 \
  X(Exscan, Iexscan, ALLREDUCE_P, ALLREDUCE_A, SCAN_D)                                             \
  X(Neighbor_allgather, Ineighbor_allgather, ALL_P, ALL_A, NALLGATHER_D)                           \
  X(Neighbor_allgatherv, Ineighbor_allgatherv, ALLGATHERV_P, ALLGATHERV_A, NALLGATHER_D)           \
  X(Neighbor_alltoall, Ineighbor_alltoall, ALL_P, ALL_A, NALLGATHER_D)                             \
  X(Neighbor_alltoallv, Ineighbor_alltoallv, ALLTOALLV_P, ALLTOALLV_A, NALLTOALLV_D)               \
  X(Neighbor_alltoallw, Ineighbor_alltoallw, NALLTOALLW_P, ALLTOALLW_A, NALLTOALLW_D)

extern "C" {

MONITOR_COLLECTIVES(DEFINE_MPI3)
DEFINE_BLOCKING(Barrier, int, int, BARRIER_P, BARRIER_A, BARRIER_D)
DEFINE_NONBLOCKING(Ibarrier, int, int, BARRIER_P, BARRIER_A, BARRIER_D)

#if MPI_VERSION >= 4
MONITOR_COLLECTIVES(DEFINE_MPI4)
DEFINE_PERSISTENT(Barrier_init, int, int, BARRIER_P, BARRIER_A, BARRIER_D)
#endif

} // extern "C"
