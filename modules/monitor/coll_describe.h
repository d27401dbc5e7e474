// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

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
// (wrap_coll.cpp) keeps the sends for MPI_Start. On an intercommunicator the peers are the
// remote group.
//
// This header holds the descriptions and the recording sink; wrap_coll.cpp instantiates them
// in the wrappers, and bench/monitor/monitor_synth.cpp drives the same code on synthetic
// communicators.

#include "monitor.h"

namespace pnmpi::monitor::coll {

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

// ---- descriptions -------------------------------------------------------------------------

/// Every peer of a collective: the other members, or the whole remote group.
template <class F> void each_peer(const CommInfo &ci, F &&f) {
  const int n = ci.peers.size();
  for (int r = 0; r < n; ++r)
    if (ci.inter || r != ci.rank)
      f(r);
}

inline std::uint64_t peer_count(const CommInfo &ci) {
  const int n = ci.inter ? ci.peers.size() : ci.peers.size() - 1;
  return n > 0 ? static_cast<std::uint64_t>(n) : 0;
}

inline bool valid_rank(const CommInfo &ci, int r) {
  return r >= 0 && r < ci.peers.size();
}

/// Whether this process is the root of a rooted collective (inter: MPI_ROOT).
inline bool is_root(const CommInfo &ci, int root) {
  return ci.inter ? root == MPI_ROOT : root == ci.rank;
}

/// Whether this process sends to a root: an intracommunicator's non-root, or a member of
/// the group opposite an intercommunicator's root.
inline bool sends_to_root(const CommInfo &ci, int root) {
  return valid_rank(ci, root) && (ci.inter || root != ci.rank);
}

inline bool in_place(const void *buffer) {
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

} // namespace pnmpi::monitor::coll
