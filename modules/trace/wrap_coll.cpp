// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Collectives: one record per call with the communicator, the root (a rank of it, or -1)
// and the bytes this rank supplies (sent) and gets (received), counted from its own
// arguments: a Gather's root receives count x size from every rank, an Alltoall sends and
// receives one block per rank, a Reduce's root receives one buffer, a neighbourhood
// collective one block per neighbour of its topology, and so on.
// A nonblocking collective's call records only a request id; the collective itself, with
// the same counts, is recorded by the Wait or Test that completes the request. A persistent
// collective's init (MPI 4) is a region; each MPI_Start of its request starts a nonblocking
// collective with the counts of the init.
//
// Every form of a collective comes from one description (parameters, arguments, counts):
// the blocking and nonblocking ones and, with MPI 4, the persistent and large-count ones.

#include "collectives.h"

#include <unordered_map>

using namespace pnmpi::trace;

namespace {

/// What a collective call moves on this rank.
struct Amount {
  int root = -1;
  std::uint64_t sent = 0, received = 0;
};

struct CommShape {
  int rank = 0, size = 1;
  explicit CommShape(MPI_Comm comm) {
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
  }
};

void collective(Routine r, std::uint64_t t0, std::uint64_t t1, MPI_Comm comm,
                const Amount &a) noexcept {
  Record *o = op_record(kCollective, r, t0);
  o->object = key_of(comm);
  o->peer = a.root;
  o->bytes = a.sent;
  o->bytes2 = a.received;
  call_record(r, t0, t1);
}

Pending pending_of(Routine r, MPI_Comm comm, const Amount &a) noexcept {
  Pending p;
  p.kind = kNbcRequest;
  p.object = key_of(comm);
  p.routine = r;
  p.root = a.root;
  p.sent = a.sent;
  p.received = a.received;
  return p;
}

/// The record of a nonblocking collective's call: the request, remembered with what the
/// completion will record.
void started(Routine r, std::uint64_t t0, std::uint64_t t1, int rc, const MPI_Request *request,
             MPI_Comm comm, const Amount &a) noexcept {
  if (rc == MPI_SUCCESS)
    op_record(kNbcRequest, r, t1)->x = remember(*request, pending_of(r, comm, a));
  call_record(r, t0, t1);
}

// ---- persistent collectives ------------------------------------------------------------------
// Their requests are kept here, apart from trace.cpp's persistent point-to-point ones: a start
// records a nonblocking collective (with the init's routine, whose operation the completion
// names), not a message.

struct PersistentCollective {
  Routine routine;
  MPI_Comm comm;
  Amount amount;
};

std::mutex g_persistent_lock;
std::unordered_map<std::uint64_t, PersistentCollective> g_persistent;
std::atomic<std::size_t> g_persistent_count{0};

/// The record of a persistent collective's init (a region, if traced); its request is noted.
[[maybe_unused]] void initialised(Routine r, std::uint64_t t0, std::uint64_t t1, int rc,
                                  const MPI_Request *request, MPI_Comm comm, const Amount &a,
                                  bool traced) noexcept {
  if (rc == MPI_SUCCESS && *request != MPI_REQUEST_NULL) {
    std::lock_guard<std::mutex> guard(g_persistent_lock);
    try {
      g_persistent[key_of(*request)] = PersistentCollective{r, comm, a};
      g_persistent_count.store(g_persistent.size(), std::memory_order_relaxed);
    } catch (...) {
      report("out of memory: the starts of a persistent collective are not recorded");
    }
  }
  if (traced)
    call_record(r, t0, t1);
}

// ---- what each collective moves ------------------------------------------------------------

MPI_Datatype type_at(MPI_Datatype type, int) noexcept {
  return type;
}
MPI_Datatype type_at(const MPI_Datatype *types, int i) noexcept {
  return types[i];
}

/// Bytes of counts[i] elements of type_at(types, i) for i < n (one type, or one per block).
template <class CT, class Type> std::uint64_t sum(const CT *counts, int n, Type types) noexcept {
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i)
    total += bytes_of(counts[i], type_at(types, i));
  return total;
}

/// This rank's neighbours in the topology of a communicator, in the order of the blocks of
/// a neighbourhood collective. A non-periodic Cartesian boundary's neighbour is
/// MPI_PROC_NULL: its block is not transferred. Nothing is allocated: a Cartesian
/// neighbour is asked of MPI_Cart_shift when its block is counted.
class Neighbours {
public:
  explicit Neighbours(MPI_Comm comm) noexcept : m_comm(comm) {
    PMPI_Topo_test(comm, &m_topo);
    if (m_topo == MPI_CART) {
      int dims = 0;
      PMPI_Cartdim_get(comm, &dims);
      m_in = m_out = 2 * dims;
    } else if (m_topo == MPI_GRAPH) {
      int rank = 0;
      PMPI_Comm_rank(comm, &rank);
      PMPI_Graph_neighbors_count(comm, rank, &m_in);
      m_out = m_in;
    } else if (m_topo == MPI_DIST_GRAPH) {
      int weighted = 0;
      PMPI_Dist_graph_neighbors_count(comm, &m_in, &m_out, &weighted);
    }
  }
  /// Bytes of `count` elements to every out-neighbour, or from every in-neighbour.
  template <class CT> std::uint64_t each_out(CT count, MPI_Datatype type) const noexcept {
    return bytes_of(count, type) * real(m_out);
  }
  template <class CT> std::uint64_t each_in(CT count, MPI_Datatype type) const noexcept {
    return bytes_of(count, type) * real(m_in);
  }
  /// Bytes of block i to out-neighbour i, or from in-neighbour i.
  template <class CT, class Type>
  std::uint64_t blocks_out(const CT *counts, Type types) const noexcept {
    return blocks(m_out, counts, types);
  }
  template <class CT, class Type>
  std::uint64_t blocks_in(const CT *counts, Type types) const noexcept {
    return blocks(m_in, counts, types);
  }

private:
  /// Whether block i's neighbour is a process. A Cartesian communicator's in- and
  /// out-neighbours are the same: per dimension, the lower one, then the upper one.
  bool is_process(int i) const noexcept {
    if (m_topo != MPI_CART)
      return true;
    int lower = MPI_PROC_NULL, upper = MPI_PROC_NULL;
    PMPI_Cart_shift(m_comm, i / 2, 1, &lower, &upper);
    return (i % 2 == 0 ? lower : upper) != MPI_PROC_NULL;
  }
  std::uint64_t real(int n) const noexcept {
    std::uint64_t k = 0;
    for (int i = 0; i < n; ++i)
      k += is_process(i) ? 1 : 0;
    return k;
  }
  template <class CT, class Type>
  std::uint64_t blocks(int n, const CT *counts, Type types) const noexcept {
    std::uint64_t total = 0;
    for (int i = 0; i < n; ++i)
      if (is_process(i))
        total += bytes_of(counts[i], type_at(types, i));
    return total;
  }

  MPI_Comm m_comm;
  int m_topo = MPI_UNDEFINED;
  int m_in = 0, m_out = 0;
};

template <class CT> Amount bcast(MPI_Comm comm, CT count, MPI_Datatype type, int root) noexcept {
  const CommShape s(comm);
  const std::uint64_t b = bytes_of(count, type);
  return {root, s.rank == root ? b : 0, s.rank == root ? 0 : b};
}

template <class CT>
Amount gather(MPI_Comm comm, CT scount, MPI_Datatype stype, CT rcount, MPI_Datatype rtype,
              int root) noexcept {
  const CommShape s(comm);
  return {root, bytes_of(scount, stype),
          s.rank == root ? bytes_of(rcount, rtype) * static_cast<std::uint64_t>(s.size) : 0};
}

template <class CT>
Amount gatherv(MPI_Comm comm, CT scount, MPI_Datatype stype, const CT *rcounts, MPI_Datatype rtype,
               int root) noexcept {
  const CommShape s(comm);
  return {root, bytes_of(scount, stype), s.rank == root ? sum(rcounts, s.size, rtype) : 0};
}

template <class CT>
Amount scatter(MPI_Comm comm, CT scount, MPI_Datatype stype, CT rcount, MPI_Datatype rtype,
               int root) noexcept {
  const CommShape s(comm);
  return {root, s.rank == root ? bytes_of(scount, stype) * static_cast<std::uint64_t>(s.size) : 0,
          bytes_of(rcount, rtype)};
}

template <class CT>
Amount scatterv(MPI_Comm comm, const CT *scounts, MPI_Datatype stype, CT rcount, MPI_Datatype rtype,
                int root) noexcept {
  const CommShape s(comm);
  return {root, s.rank == root ? sum(scounts, s.size, stype) : 0, bytes_of(rcount, rtype)};
}

template <class CT>
Amount allgather(MPI_Comm comm, CT scount, MPI_Datatype stype, CT rcount,
                 MPI_Datatype rtype) noexcept {
  const CommShape s(comm);
  return {-1, bytes_of(scount, stype),
          bytes_of(rcount, rtype) * static_cast<std::uint64_t>(s.size)};
}

template <class CT>
Amount allgatherv(MPI_Comm comm, CT scount, MPI_Datatype stype, const CT *rcounts,
                  MPI_Datatype rtype) noexcept {
  const CommShape s(comm);
  return {-1, bytes_of(scount, stype), sum(rcounts, s.size, rtype)};
}

template <class CT>
Amount alltoall(MPI_Comm comm, CT scount, MPI_Datatype stype, CT rcount,
                MPI_Datatype rtype) noexcept {
  const auto n = static_cast<std::uint64_t>(CommShape(comm).size);
  return {-1, bytes_of(scount, stype) * n, bytes_of(rcount, rtype) * n};
}

template <class CT, class Type>
Amount alltoallv(MPI_Comm comm, const CT *scounts, Type stypes, const CT *rcounts,
                 Type rtypes) noexcept {
  const CommShape s(comm);
  return {-1, sum(scounts, s.size, stypes), sum(rcounts, s.size, rtypes)};
}

template <class CT> Amount reduce(MPI_Comm comm, CT count, MPI_Datatype type, int root) noexcept {
  const CommShape s(comm);
  const std::uint64_t b = bytes_of(count, type);
  return {root, b, s.rank == root ? b : 0};
}

/// Allreduce, Scan, Exscan: this rank's buffer in and its result out.
template <class CT> Amount both(CT count, MPI_Datatype type) noexcept {
  const std::uint64_t b = bytes_of(count, type);
  return {-1, b, b};
}

template <class CT>
Amount reduce_scatter(MPI_Comm comm, const CT *rcounts, MPI_Datatype type) noexcept {
  const CommShape s(comm);
  return {-1, sum(rcounts, s.size, type), bytes_of(rcounts[s.rank], type)};
}

template <class CT> Amount reduce_scatter_block(MPI_Comm comm, CT count, MPI_Datatype type) {
  const std::uint64_t b = bytes_of(count, type);
  return {-1, b * static_cast<std::uint64_t>(CommShape(comm).size), b};
}

template <class CT>
Amount neighbor_allgather(MPI_Comm comm, CT scount, MPI_Datatype stype, CT rcount,
                          MPI_Datatype rtype) noexcept {
  const Neighbours nb(comm);
  return {-1, nb.each_out(scount, stype), nb.each_in(rcount, rtype)};
}

template <class CT>
Amount neighbor_allgatherv(MPI_Comm comm, CT scount, MPI_Datatype stype, const CT *rcounts,
                           MPI_Datatype rtype) noexcept {
  const Neighbours nb(comm);
  return {-1, nb.each_out(scount, stype), nb.blocks_in(rcounts, rtype)};
}

template <class CT, class Type>
Amount neighbor_alltoallv(MPI_Comm comm, const CT *scounts, Type stypes, const CT *rcounts,
                          Type rtypes) noexcept {
  const Neighbours nb(comm);
  return {-1, nb.blocks_out(scounts, stypes), nb.blocks_in(rcounts, rtypes)};
}

} // namespace

namespace pnmpi::trace {

void start_persistent_collectives(Routine r, int count, const MPI_Request *requests,
                                  std::uint64_t t) noexcept {
  if (g_persistent_count.load(std::memory_order_relaxed) == 0)
    return;
  for (int i = 0; i < count; ++i) {
    PersistentCollective c;
    {
      std::lock_guard<std::mutex> guard(g_persistent_lock);
      auto it = g_persistent.find(key_of(requests[i]));
      if (it == g_persistent.end())
        continue;
      c = it->second;
    }
    op_record(kNbcRequest, r, t)->x =
        remember(requests[i], pending_of(c.routine, c.comm, c.amount));
  }
}

void forget_persistent_collective(MPI_Request request) noexcept {
  if (g_persistent_count.load(std::memory_order_relaxed) == 0)
    return;
  std::lock_guard<std::mutex> guard(g_persistent_lock);
  g_persistent.erase(key_of(request));
  g_persistent_count.store(g_persistent.size(), std::memory_order_relaxed);
}

} // namespace pnmpi::trace

// ---- wrappers --------------------------------------------------------------------------------
//
// SHAPE##_P(CT, DT): the parameters, with count type CT and displacement type DT (int and int,
// or MPI_Count and MPI_Aint for `_c`); SHAPE##_A(): the arguments; SHAPE##_D(): the Amount.

#define DEFINE_BLOCKING(NAME, CT, DT, SHAPE)                                                       \
  PNMPI_EXPORT int MPI_##NAME(SHAPE##_P(CT, DT)) {                                                 \
    if (!traced(r_##NAME))                                                                         \
      return PMPI_##NAME(SHAPE##_A());                                                             \
    const std::uint64_t t0 = now();                                                                \
    const int rc = PMPI_##NAME(SHAPE##_A());                                                       \
    const std::uint64_t t1 = now();                                                                \
    collective(r_##NAME, t0, t1, comm, SHAPE##_D());                                               \
    return rc;                                                                                     \
  }
#define DEFINE_NONBLOCKING(NAME, CT, DT, SHAPE)                                                    \
  PNMPI_EXPORT int MPI_##NAME(SHAPE##_P(CT, DT), MPI_Request *request) {                           \
    if (!traced(r_##NAME))                                                                         \
      return PMPI_##NAME(SHAPE##_A(), request);                                                    \
    const std::uint64_t t0 = now();                                                                \
    const int rc = PMPI_##NAME(SHAPE##_A(), request);                                              \
    const std::uint64_t t1 = now();                                                                \
    started(r_##NAME, t0, t1, rc, request, comm, SHAPE##_D());                                     \
    return rc;                                                                                     \
  }
// A persistent collective is noted whether or not its init is traced: its starts are
// recorded when MPI_Start is.
#define DEFINE_PERSISTENT(NAME, CT, DT, SHAPE)                                                     \
  PNMPI_EXPORT int MPI_##NAME(SHAPE##_P(CT, DT), MPI_Info info, MPI_Request *request) {            \
    if (!g.active.load(std::memory_order_relaxed))                                                 \
      return PMPI_##NAME(SHAPE##_A(), info, request);                                              \
    const std::uint64_t t0 = now();                                                                \
    const int rc = PMPI_##NAME(SHAPE##_A(), info, request);                                        \
    const std::uint64_t t1 = now();                                                                \
    initialised(r_##NAME, t0, t1, rc, request, comm, SHAPE##_D(), g.enabled[r_##NAME]);            \
    return rc;                                                                                     \
  }

#define BARRIER_P(CT, DT) MPI_Comm comm
#define BARRIER_A() comm
#define BARRIER_D()                                                                                \
  Amount {}

#define BCAST_P(CT, DT) void *buf, CT count, MPI_Datatype type, int root, MPI_Comm comm
#define BCAST_A() buf, count, type, root, comm
#define BCAST_D() bcast(comm, count, type, root)

#define ROOTED_P(CT, DT)                                                                           \
  const void *sbuf, CT scount, MPI_Datatype stype, void *rbuf, CT rcount, MPI_Datatype rtype,      \
      int root, MPI_Comm comm
#define ROOTED_A() sbuf, scount, stype, rbuf, rcount, rtype, root, comm
#define GATHER_P ROOTED_P
#define GATHER_A ROOTED_A
#define GATHER_D() gather(comm, scount, stype, rcount, rtype, root)
#define SCATTER_P ROOTED_P
#define SCATTER_A ROOTED_A
#define SCATTER_D() scatter(comm, scount, stype, rcount, rtype, root)

#define GATHERV_P(CT, DT)                                                                          \
  const void *sbuf, CT scount, MPI_Datatype stype, void *rbuf, const CT rcounts[],                 \
      const DT displs[], MPI_Datatype rtype, int root, MPI_Comm comm
#define GATHERV_A() sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm
#define GATHERV_D() gatherv(comm, scount, stype, rcounts, rtype, root)

#define SCATTERV_P(CT, DT)                                                                         \
  const void *sbuf, const CT scounts[], const DT displs[], MPI_Datatype stype, void *rbuf,         \
      CT rcount, MPI_Datatype rtype, int root, MPI_Comm comm
#define SCATTERV_A() sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm
#define SCATTERV_D() scatterv(comm, scounts, stype, rcount, rtype, root)

#define ALL_P(CT, DT)                                                                              \
  const void *sbuf, CT scount, MPI_Datatype stype, void *rbuf, CT rcount, MPI_Datatype rtype,      \
      MPI_Comm comm
#define ALL_A() sbuf, scount, stype, rbuf, rcount, rtype, comm
#define ALLGATHER_P ALL_P
#define ALLGATHER_A ALL_A
#define ALLGATHER_D() allgather(comm, scount, stype, rcount, rtype)
#define ALLTOALL_P ALL_P
#define ALLTOALL_A ALL_A
#define ALLTOALL_D() alltoall(comm, scount, stype, rcount, rtype)
#define NALLGATHER_P ALL_P
#define NALLGATHER_A ALL_A
#define NALLGATHER_D() neighbor_allgather(comm, scount, stype, rcount, rtype)
#define NALLTOALL_P ALL_P
#define NALLTOALL_A ALL_A
#define NALLTOALL_D() neighbor_allgather(comm, scount, stype, rcount, rtype)

#define ALLGATHERV_P(CT, DT)                                                                       \
  const void *sbuf, CT scount, MPI_Datatype stype, void *rbuf, const CT rcounts[],                 \
      const DT displs[], MPI_Datatype rtype, MPI_Comm comm
#define ALLGATHERV_A() sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm
#define ALLGATHERV_D() allgatherv(comm, scount, stype, rcounts, rtype)
#define NALLGATHERV_P ALLGATHERV_P
#define NALLGATHERV_A ALLGATHERV_A
#define NALLGATHERV_D() neighbor_allgatherv(comm, scount, stype, rcounts, rtype)

#define ALLTOALLV_P(CT, DT)                                                                        \
  const void *sbuf, const CT scounts[], const DT sdispls[], MPI_Datatype stype, void *rbuf,        \
      const CT rcounts[], const DT rdispls[], MPI_Datatype rtype, MPI_Comm comm
#define ALLTOALLV_A() sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm
#define ALLTOALLV_D() alltoallv(comm, scounts, stype, rcounts, rtype)
#define NALLTOALLV_P ALLTOALLV_P
#define NALLTOALLV_A ALLTOALLV_A
#define NALLTOALLV_D() neighbor_alltoallv(comm, scounts, stype, rcounts, rtype)

#define ALLTOALLW_P(CT, DT)                                                                        \
  const void *sbuf, const CT scounts[], const DT sdispls[], const MPI_Datatype stypes[],           \
      void *rbuf, const CT rcounts[], const DT rdispls[], const MPI_Datatype rtypes[],             \
      MPI_Comm comm
#define ALLTOALLW_A() sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm
#define ALLTOALLW_D() alltoallv(comm, scounts, stypes, rcounts, rtypes)
// A neighbourhood alltoallw's displacements are MPI_Aint in both forms.
#define NALLTOALLW_P(CT, DT) ALLTOALLW_P(CT, MPI_Aint)
#define NALLTOALLW_A ALLTOALLW_A
#define NALLTOALLW_D() neighbor_alltoallv(comm, scounts, stypes, rcounts, rtypes)

#define REDUCE_P(CT, DT)                                                                           \
  const void *sbuf, void *rbuf, CT count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm
#define REDUCE_A() sbuf, rbuf, count, type, op, root, comm
#define REDUCE_D() reduce(comm, count, type, root)

#define ALLREDUCE_P(CT, DT)                                                                        \
  const void *sbuf, void *rbuf, CT count, MPI_Datatype type, MPI_Op op, MPI_Comm comm
#define ALLREDUCE_A() sbuf, rbuf, count, type, op, comm
#define ALLREDUCE_D() both(count, type)
#define SCAN_P ALLREDUCE_P
#define SCAN_A ALLREDUCE_A
#define SCAN_D ALLREDUCE_D

#define RSCATTER_P(CT, DT)                                                                         \
  const void *sbuf, void *rbuf, const CT rcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm
#define RSCATTER_A() sbuf, rbuf, rcounts, type, op, comm
#define RSCATTER_D() reduce_scatter(comm, rcounts, type)

#define RSCATTERB_P ALLREDUCE_P
#define RSCATTERB_A ALLREDUCE_A
#define RSCATTERB_D() reduce_scatter_block(comm, count, type)

#if MPI_VERSION >= 4
#define DEFINE_FORMS(X, NAME, INAME, OP, SHAPE)                                                    \
  DEFINE_BLOCKING(NAME, int, int, SHAPE)                                                           \
  DEFINE_NONBLOCKING(INAME, int, int, SHAPE)                                                       \
  DEFINE_PERSISTENT(NAME##_init, int, int, SHAPE)                                                  \
  DEFINE_BLOCKING(NAME##_c, MPI_Count, MPI_Aint, SHAPE)                                            \
  DEFINE_NONBLOCKING(INAME##_c, MPI_Count, MPI_Aint, SHAPE)                                        \
  DEFINE_PERSISTENT(NAME##_init_c, MPI_Count, MPI_Aint, SHAPE)
#else
#define DEFINE_FORMS(X, NAME, INAME, OP, SHAPE)                                                    \
  DEFINE_BLOCKING(NAME, int, int, SHAPE)                                                           \
  DEFINE_NONBLOCKING(INAME, int, int, SHAPE)
#endif

extern "C" {

DEFINE_BLOCKING(Barrier, int, int, BARRIER)
DEFINE_NONBLOCKING(Ibarrier, int, int, BARRIER)
#if MPI_VERSION >= 4
DEFINE_PERSISTENT(Barrier_init, int, int, BARRIER)
#endif
PNMPI_TRACE_COLLECTIVES(_, DEFINE_FORMS)

} // extern "C"
