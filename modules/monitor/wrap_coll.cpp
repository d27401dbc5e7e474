// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Collective wrappers. A collective is recorded, on each process, as the logical per-peer
// volume its arguments imply (docs/monitor.md, "Collectives"), sender side, self excluded,
// one message per peer; plus one operation in its communicator's one-to-all, all-to-one or
// all-to-all class, as Open MPI counts them. Blocking and nonblocking collectives are
// recorded when issued, persistent ones at each MPI_Start.
//
// A volume that is the same for every peer (Barrier, Bcast, Allreduce, ...) or for every
// higher rank (Scan) is a function of the communicator and one number: it is added once to
// the communicator's CollStats (all/up) and expanded into per-peer values only when read
// (expand()), so that such a call costs the same on 2 ranks as on 100,000 and contacts no
// peer. Blocks that differ per peer (v and w variants, neighborhoods) and the one block a
// rooted collective sends to its root are recorded per peer, one update per non-empty
// block: the arguments are per peer already.
//
// One description per collective says what it sends, to a sink: Now records at once, Planner
// keeps the sends for MPI_Start. On an intercommunicator the peers are the remote group.

#include <pnmpi/pnmpi.h>

#include "monitor.h"

using namespace pnmpi::monitor;

namespace {

struct Now {
  CommInfo *ci;
  MPI_Comm comm;
  unsigned origin;
  void send(int r, std::uint64_t bytes) noexcept {
    record_to(origin, kColl, ci->peers.world(r), bytes);
  }
  void op(CollClass c, std::uint64_t bytes) noexcept {
    if (CollStats *s = stats_of(ci, comm)) {
      add(s->count[origin][c], 1);
      add(s->bytes[origin][c], bytes);
    }
  }
  void all(std::uint64_t bytes) noexcept {
    if (CollStats *s = stats_of(ci, comm)) {
      add(s->all_count[origin], 1);
      add(s->all_bytes[origin], bytes);
    }
  }
  void up(std::uint64_t bytes) noexcept {
    if (CollStats *s = stats_of(ci, comm)) {
      add(s->up_count[origin], 1);
      add(s->up_bytes[origin], bytes);
    }
  }
};

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
inline void record_now(const RoutineId &routine, MPI_Comm comm, Describe &&describe) noexcept {
  if (!recording(kRecordColl))
    return;
  CommInfo *ci = comm_info(comm);
  if (ci == nullptr)
    return;
  Now sink{ci, comm, origin_of(routine)};
  describe(*ci, sink);
}

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

// ---- descriptions -------------------------------------------------------------------------

/// Every peer of a collective: the other members, or the whole remote group.
template <class F> void each_peer(const CommInfo &ci, F &&f) {
  const int n = ci.peers.size();
  for (int r = 0; r < n; ++r)
    if (ci.inter || r != ci.rank)
      f(r);
}

std::uint64_t peer_count(const CommInfo &ci) {
  const int n = ci.inter ? ci.peers.size() : ci.peers.size() - 1;
  return n > 0 ? static_cast<std::uint64_t>(n) : 0;
}

bool valid_rank(const CommInfo &ci, int r) {
  return r >= 0 && r < ci.peers.size();
}

/// Whether this process is the root of a rooted collective (inter: MPI_ROOT).
bool is_root(const CommInfo &ci, int root) {
  return ci.inter ? root == MPI_ROOT : root == ci.rank;
}

/// Whether this process sends to a root: an intracommunicator's non-root, or a member of
/// the group opposite an intercommunicator's root.
bool sends_to_root(const CommInfo &ci, int root) {
  return valid_rank(ci, root) && (ci.inter || root != ci.rank);
}

bool in_place(const void *buffer) {
  return buffer == MPI_IN_PLACE;
}

/// Fixed-size collectives send one message to every peer, even an empty one.
template <class S> void to_all(const CommInfo &ci, S &s, CollClass c, std::uint64_t bytes) {
  s.all(bytes);
  s.op(c, bytes * peer_count(ci));
}

template <class S, class C>
void bcast(const CommInfo &ci, S &s, C count, MPI_Datatype type, int root) {
  if (is_root(ci, root))
    to_all(ci, s, kOneToAll, volume(count, type));
}

template <class S, class C>
void scatter(const CommInfo &ci, S &s, C sendcount, MPI_Datatype sendtype, int root) {
  if (is_root(ci, root))
    to_all(ci, s, kOneToAll, volume(sendcount, sendtype));
}

/// v and w variants: each peer's block is its own message; an empty block is no message.
template <class S, class C>
void scatterv(const CommInfo &ci, S &s, const C *sendcounts, MPI_Datatype sendtype, int root) {
  if (!is_root(ci, root))
    return;
  std::uint64_t total = 0;
  each_peer(ci, [&](int r) {
    if (const std::uint64_t b = volume(sendcounts[r], sendtype)) {
      s.send(r, b);
      total += b;
    }
  });
  s.op(kOneToAll, total);
}

template <class S, class C>
void gather(const CommInfo &ci, S &s, C sendcount, MPI_Datatype sendtype, C recvcount,
            MPI_Datatype recvtype, int root) {
  if (is_root(ci, root))
    s.op(kAllToOne, volume(recvcount, recvtype) * peer_count(ci));
  else if (sends_to_root(ci, root))
    s.send(root, volume(sendcount, sendtype));
}

template <class S, class C>
void gatherv(const CommInfo &ci, S &s, C sendcount, MPI_Datatype sendtype, const C *recvcounts,
             MPI_Datatype recvtype, int root) {
  if (is_root(ci, root)) {
    std::uint64_t total = 0;
    each_peer(ci, [&](int r) { total += volume(recvcounts[r], recvtype); });
    s.op(kAllToOne, total);
  } else if (sends_to_root(ci, root)) {
    if (const std::uint64_t b = volume(sendcount, sendtype))
      s.send(root, b);
  }
}

template <class S, class C>
void reduce(const CommInfo &ci, S &s, C count, MPI_Datatype type, int root) {
  if (is_root(ci, root))
    s.op(kAllToOne, volume(count, type) * peer_count(ci));
  else if (sends_to_root(ci, root))
    s.send(root, volume(count, type));
}

template <class S, class C>
void allgather(const CommInfo &ci, S &s, const void *sendbuf, C sendcount, MPI_Datatype sendtype,
               C recvcount, MPI_Datatype recvtype) {
  to_all(ci, s, kAllToAll,
         in_place(sendbuf) ? volume(recvcount, recvtype) : volume(sendcount, sendtype));
}

template <class S, class C>
void allgatherv(const CommInfo &ci, S &s, const void *sendbuf, C sendcount, MPI_Datatype sendtype,
                const C *recvcounts, MPI_Datatype recvtype) {
  const std::uint64_t b =
      in_place(sendbuf) ? (valid_rank(ci, ci.rank) ? volume(recvcounts[ci.rank], recvtype) : 0)
                        : volume(sendcount, sendtype);
  if (b > 0)
    s.all(b);
  s.op(kAllToAll, b * peer_count(ci));
}

template <class S, class C>
void alltoall(const CommInfo &ci, S &s, const void *sendbuf, C sendcount, MPI_Datatype sendtype,
              C recvcount, MPI_Datatype recvtype) {
  allgather(ci, s, sendbuf, sendcount, sendtype, recvcount, recvtype);
}

template <class S, class Block> void blocks(const CommInfo &ci, S &s, Block &&block) {
  std::uint64_t total = 0;
  each_peer(ci, [&](int r) {
    if (const std::uint64_t b = block(r)) {
      s.send(r, b);
      total += b;
    }
  });
  s.op(kAllToAll, total);
}

template <class S, class C>
void alltoallv(const CommInfo &ci, S &s, const void *sendbuf, const C *sendcounts,
               MPI_Datatype sendtype, const C *recvcounts, MPI_Datatype recvtype) {
  const bool place = in_place(sendbuf);
  blocks(ci, s, [&](int r) {
    return place ? volume(recvcounts[r], recvtype) : volume(sendcounts[r], sendtype);
  });
}

template <class S, class C>
void alltoallw(const CommInfo &ci, S &s, const void *sendbuf, const C *sendcounts,
               const MPI_Datatype *sendtypes, const C *recvcounts, const MPI_Datatype *recvtypes) {
  const bool place = in_place(sendbuf);
  blocks(ci, s, [&](int r) {
    return place ? volume(recvcounts[r], recvtypes[r]) : volume(sendcounts[r], sendtypes[r]);
  });
}

/// Allreduce: every process needs every other's contribution, so each sends count elements
/// to each peer (the volume of an allgather of the contributions).
template <class S, class C> void allreduce(const CommInfo &ci, S &s, C count, MPI_Datatype type) {
  to_all(ci, s, kAllToAll, volume(count, type));
}

/// Reduce_scatter: rank j's block of each contribution goes to rank j. On an
/// intercommunicator the blocks are sized by the remote group's counts, unknown here: only
/// the operation and its total are recorded.
template <class S, class C>
void reduce_scatter(const CommInfo &ci, S &s, const C *recvcounts, MPI_Datatype type) {
  if (ci.inter) {
    std::uint64_t total = 0;
    for (int r = 0; r < ci.local_size; ++r)
      total += volume(recvcounts[r], type);
    s.op(kAllToAll, total);
    return;
  }
  blocks(ci, s, [&](int r) { return volume(recvcounts[r], type); });
}

template <class S, class C>
void reduce_scatter_block(const CommInfo &ci, S &s, C recvcount, MPI_Datatype type) {
  to_all(ci, s, kAllToAll, volume(recvcount, type));
}

/// Scan and Exscan: rank i's contribution is needed by every rank above it.
template <class S, class C> void scan(const CommInfo &ci, S &s, C count, MPI_Datatype type) {
  if (ci.inter)
    return;
  const std::uint64_t b = volume(count, type);
  const int higher = ci.peers.size() - ci.rank - 1;
  s.up(b);
  s.op(kAllToAll, higher > 0 ? b * static_cast<std::uint64_t>(higher) : 0);
}

template <class S> void barrier(const CommInfo &ci, S &s) {
  to_all(ci, s, kAllToAll, 0);
}

/// Neighborhood collectives: block i goes to out-neighbor i (MPI_PROC_NULL and self are no
/// messages).
template <class S, class Block> void neighbors(CommInfo &ci, MPI_Comm comm, S &s, Block &&block) {
  const std::vector<int> *out = ci.neighbors.load(std::memory_order_acquire);
  if (out == nullptr)
    out = neighbors_slow(&ci, comm);
  if (out == nullptr)
    return;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < out->size(); ++i) {
    const int d = (*out)[i];
    if (d == MPI_PROC_NULL || d == ci.rank || !valid_rank(ci, d))
      continue;
    const std::uint64_t b = block(i);
    s.send(d, b);
    total += b;
  }
  s.op(kAllToAll, total);
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
