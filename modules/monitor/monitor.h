// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The monitor's state and its hot path, shared by the wrapper files. Everything here is
// hidden (-fvisibility=hidden and exports.map): only the MPI_ wrappers and the hooks are
// exported.
//
// Thread safety: the hot path takes no lock. Counters are std::atomic; they are updated
// with a plain load/store when MPI provides less than MPI_THREAD_MULTIPLE (MPI then
// guarantees that no two MPI calls run at once). With MPI_THREAD_MULTIPLE the application's
// point-to-point sends go to counters of the sending thread (ThreadPeer: one writer, plain
// load/store again), merged with the shared ones when read; every other update is a locked
// add. Everything the hot path
// reads besides counters is published before the `record` bits are set (tables built in
// MPI_Init) or through ShellIndex's release/acquire protocol (peers, communicators,
// windows); the direct-mapped caches in front of the indexes hold nodes that are never
// freed and are confirmed by key. Slow paths (first contact with a peer or a communicator)
// take g.lock.

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
#include <pnmpi/datatypes.h>
#include <pnmpi/pnmpi.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "histogram.h"
#include "options.h"
#include "rank_map.h"
#include "shell_index.h"

namespace pnmpi::monitor {

/// Who issued a call: the application (also when tools above forwarded it, however they
/// forward) or a module above the monitor (its own traffic), see origin_of().
enum Origin : unsigned { kApp = 0, kTool = 1 };
constexpr unsigned kOrigins = 2;

/// What a counter counts, sender side: point-to-point messages; logical collective volume;
/// one-sided data put/accumulated at the target; one-sided data fetched from the target.
enum Kind : unsigned { kP2P = 0, kColl = 1, kOscSent = 2, kOscFetched = 3 };
constexpr unsigned kKinds = 4;

/// Open MPI's per-communicator classes of collective operations.
enum CollClass : unsigned { kOneToAll = 0, kAllToOne = 1, kAllToAll = 2 };
constexpr unsigned kCollClasses = 3;

using Counter = std::atomic<std::uint64_t>;

/// One thread's application point-to-point traffic to one world rank, under
/// MPI_THREAD_MULTIPLE: written by that thread only (plain load/store, no locked add), read by
/// anyone. Never freed while the monitor runs (the counts outlive the thread).
struct ThreadPeer {
  std::uintptr_t key = 0;            ///< world rank + 1 (set before it is published)
  const void *owner = nullptr;       ///< the thread's ThreadCache
  ThreadPeer *next = nullptr;        ///< the next thread's counters for the same peer
  Counter bins[kHistogramBins] = {}; ///< messages by size bin (their sum is the count)
  Counter bytes{0};
};

/// A thread's direct-mapped cache of its own ThreadPeer entries, by world rank.
constexpr unsigned kRecentSlots = 256;
struct ThreadCache {
  ThreadPeer *recent[kRecentSlots] = {};
};
/// This thread's cache, made on its first send under MPI_THREAD_MULTIPLE. `__thread`, not
/// `thread_local`: no initialisation wrapper on the send path.
extern __thread ThreadCache *t_cache __attribute__((tls_model("initial-exec")));

/// Everything this process sent to one world rank. Made on first contact: memory grows with
/// the peers actually contacted, not with the world size.
struct Peer {
  std::atomic<std::uintptr_t> key{0}; ///< world rank + 1
  Counter count[kOrigins][kKinds] = {};
  Counter bytes[kOrigins][kKinds] = {};
  Counter *hist = nullptr;                    ///< [kOrigins][kHistogramBins] p2p sizes, if enabled
  std::atomic<ThreadPeer *> threads{nullptr}; ///< per-thread counters (MPI_THREAD_MULTIPLE)
};

/// One communicator's collective operations, Open MPI style, and the part of its logical
/// per-peer volume that is the same for a whole set of peers: a call that sends b bytes to
/// every peer adds 1 and b here once, instead of one update per peer (see expand()). Outlives
/// the communicator (it is reported at MPI_Finalize, and its volume is read until then), with
/// the world ranks of its peers (no table when they are regular).
struct CollStats {
  MPI_Comm handle = MPI_COMM_NULL; ///< while the communicator exists
  std::string name;                ///< its name when it was freed
  RankMap procs;                   ///< world ranks of the local group (no table if regular)
  RankMap remote;                  ///< intercommunicator: world ranks of the remote group
  int rank = -1;                   ///< this process's rank in the local group
  bool inter = false;
  Counter count[kOrigins][kCollClasses] = {};
  Counter bytes[kOrigins][kCollClasses] = {};
  Counter all_count[kOrigins] = {}; ///< messages to every peer (self excluded)
  Counter all_bytes[kOrigins] = {};
  Counter up_count[kOrigins] = {}; ///< messages to every peer of a higher rank (scans)
  Counter up_bytes[kOrigins] = {};

  /// The peers of a collective: the remote group, or the local group without this process.
  const RankMap &peers() const noexcept { return inter ? remote : procs; }
};

/// Calls f(world rank, messages, bytes) for every peer to which `s` holds volume from
/// `origin`, in the peers' rank order: what the per-peer loop of each call used to add.
template <class F> void expand(const CollStats &s, unsigned origin, F &&f) {
  const std::uint64_t ac = s.all_count[origin].load(std::memory_order_relaxed);
  const std::uint64_t ab = s.all_bytes[origin].load(std::memory_order_relaxed);
  const std::uint64_t uc = s.up_count[origin].load(std::memory_order_relaxed);
  const std::uint64_t ub = s.up_bytes[origin].load(std::memory_order_relaxed);
  if (ac == 0 && uc == 0)
    return;
  const RankMap &peers = s.peers();
  for (int r = 0; r < peers.size(); ++r) {
    if (!s.inter && r == s.rank)
      continue;
    const bool up = !s.inter && r > s.rank;
    const std::uint64_t c = ac + (up ? uc : 0), b = ab + (up ? ub : 0);
    const int world = peers.world(r);
    if ((c != 0 || b != 0) && world >= 0)
      f(world, c, b);
  }
}

/// A communicator (or a window) as the hot path needs it.
struct CommInfo {
  std::atomic<std::uintptr_t> key{0}; ///< the handle's bits; 0 once freed
  RankMap peers;                      ///< ranks that calls name -> world (remote group if inter)
  int rank = -1;                      ///< this process's rank in the local group
  int local_size = 0;
  bool inter = false;
  std::atomic<CollStats *> stats{nullptr};
  std::atomic<std::vector<int> *> neighbors{nullptr}; ///< out-neighbors (topologies)
};

/// The monitor's tables. One instance, g; hot-path fields are plain loads.
struct State {
  std::atomic<unsigned> record{0}; ///< RecordBits being recorded now (0: not yet / no more)
  bool atomic_updates = false;     ///< MPI_THREAD_MULTIPLE was provided
  int world_size = 0;
  int world_rank = -1;
  int thread_level = MPI_THREAD_SINGLE;
  Options options;
  MPI_Group world_group = MPI_GROUP_NULL;
  int comm_keyval = MPI_KEYVAL_INVALID;
  int win_keyval = MPI_KEYVAL_INVALID;

  std::mutex lock; ///< writers of the indexes and of `stats`
  ShellIndex<Peer> peers;
  ShellIndex<CommInfo> comms;
  ShellIndex<CommInfo> wins;
  std::vector<CollStats *> stats; ///< every communicator's statistics, in creation order

  PNMPI_modHandle_t self = PNMPI_MODHANDLE_NULL;
  bool site = false; ///< added by the site configuration: silent, failures by the site policy
};

extern State g;

// ---- handles ------------------------------------------------------------------------------

/// The bits of an MPI handle (a pointer in Open MPI, an int in MPICH) as an index key.
template <class H> inline std::uintptr_t handle_key(H h) noexcept {
  if constexpr (std::is_pointer_v<H>)
    return reinterpret_cast<std::uintptr_t>(h);
  else
    return static_cast<std::uintptr_t>(static_cast<std::make_unsigned_t<H>>(h));
}

// ---- origin -------------------------------------------------------------------------------

/// One wrapped routine's pnmpi id: one object per wrapper at namespace scope (MONITOR_ROUTINE),
/// looked up by name once, in PNMPI_RegistrationPoint (resolve_all()).
class RoutineId {
public:
  /// Runs while the module is loaded (static initialization, under the loader's lock).
  explicit RoutineId(const char *mpi_name) noexcept : m_name(mpi_name), m_next(s_first) {
    s_first = this;
  }
  RoutineId(const RoutineId &) = delete;
  RoutineId &operator=(const RoutineId &) = delete;

  int value() const noexcept { return m_id; }
  /// Looks every id up with pnmpi_routine_id(). A routine this pnmpi build does not have
  /// keeps -1: no call of it ever reaches its wrapper.
  static void resolve_all() noexcept;

private:
  const char *m_name;
  RoutineId *m_next;
  int m_id = -1;
  static inline RoutineId *s_first = nullptr;
};

/// Defines the id object of routine MPI_<NAME> as `id_<NAME>`.
#define MONITOR_ROUTINE(NAME)                                                                      \
  namespace {                                                                                      \
  ::pnmpi::monitor::RoutineId id_##NAME{"MPI_" #NAME};                                             \
  }

/// The origin of a call that reached the wrapper of `routine`: the application when the
/// application entered the chain through this same routine (the stub notes it), so also
/// when tools above forwarded it with ordinary calls; a module above otherwise (its report
/// inside its MPI_Finalize wrapper, say). One thread-local load and a compare.
inline unsigned origin_of(const RoutineId &routine) noexcept {
  return pnmpi_entry_origin(routine.value()) == PNMPI_ORIGIN_APPLICATION ? kApp : kTool;
}

// ---- counters -----------------------------------------------------------------------------

inline void add(Counter &c, std::uint64_t v) noexcept {
  if (g.atomic_updates)
    c.fetch_add(v, std::memory_order_relaxed);
  else
    c.store(c.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}

inline bool recording(unsigned bits) noexcept {
  return (g.record.load(std::memory_order_acquire) & bits) != 0;
}

// ---- datatypes ----------------------------------------------------------------------------

/// Sizes of the predefined datatypes (<pnmpi/datatypes.h>), filled in MPI_Init and
/// read-only afterwards. Derived datatypes ask MPI each time: their handles can be freed
/// and reused.
extern pnmpi_type_slot_t g_types[PNMPI_TYPE_SLOTS];
std::uint64_t type_size_slow(MPI_Datatype type) noexcept;

/// The size of a predefined datatype, or false for a derived one.
inline bool cached_type_size(MPI_Datatype type, std::uint64_t *size) noexcept {
  return pnmpi_type_cached(g_types, type, size) != 0;
}

inline std::uint64_t type_size(MPI_Datatype type) noexcept {
  std::uint64_t size;
  return cached_type_size(type, &size) ? size : type_size_slow(type);
}

template <class Count> inline std::uint64_t volume(Count count, MPI_Datatype type) noexcept {
  return count > 0 ? static_cast<std::uint64_t>(count) * type_size(type) : 0;
}

// ---- lookups ------------------------------------------------------------------------------

// The hot path first looks in small direct-mapped caches of recently used peers and
// communicators, then in the indexes, then takes the slow path that creates the entry. A
// cached node is confirmed by its key: nodes are never freed while the monitor runs (a
// freed communicator's node is only recycled under another key), so a stale slot costs a
// miss, never a wrong answer.
extern std::atomic<Peer *> g_recent_peers[kRecentSlots];
extern std::atomic<CommInfo *> g_recent_comms[kRecentSlots];

inline unsigned recent_slot(std::uintptr_t key) noexcept {
  return static_cast<unsigned>((static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> 56);
}

Peer *peer_slow(int world) noexcept;
__attribute__((cold)) Peer *peer_lookup(int world) noexcept;
CommInfo *comm_slow(MPI_Comm comm) noexcept;
__attribute__((cold)) CommInfo *comm_lookup(MPI_Comm comm) noexcept;
CommInfo *win_slow(MPI_Win win) noexcept;
CollStats *stats_slow(CommInfo *ci, MPI_Comm comm) noexcept;
/// Builds and publishes a CommInfo for a group of world ranks (the caller holds g.lock): what
/// comm_slow() and win_slow() do once MPI has told them the group. May throw std::bad_alloc.
CommInfo *insert_info(ShellIndex<CommInfo> &index, std::uintptr_t key,
                      const std::vector<int> &worlds, int rank, int local_size, bool inter);
/// Gives `ci` its collective statistics, the world ranks of its local group being `local`:
/// what stats_slow() does once MPI has told it the group. nullptr if out of memory.
CollStats *attach_stats(CommInfo *ci, MPI_Comm comm, const std::vector<int> &local) noexcept;
const std::vector<int> *neighbors_slow(CommInfo *ci, MPI_Comm comm) noexcept;
/// This thread's counters towards `world` (made on first use), or nullptr if out of memory.
ThreadPeer *thread_peer_slow(int world) noexcept;

inline Peer *peer_of(int world) noexcept {
  const Peer *p = g_recent_peers[static_cast<unsigned>(world) & (kRecentSlots - 1)].load(
      std::memory_order_acquire);
  if (p != nullptr &&
      p->key.load(std::memory_order_relaxed) == static_cast<std::uintptr_t>(world) + 1)
    return const_cast<Peer *>(p);
  return peer_lookup(world);
}

inline CommInfo *comm_info(MPI_Comm comm) noexcept {
  const std::uintptr_t key = handle_key(comm);
  CommInfo *ci = g_recent_comms[recent_slot(key)].load(std::memory_order_acquire);
  if (ci != nullptr && ci->key.load(std::memory_order_acquire) == key)
    return ci;
  return comm_lookup(comm);
}

inline CommInfo *win_info(MPI_Win win) noexcept {
  if (CommInfo *wi = g.wins.find(handle_key(win)))
    return wi;
  return win_slow(win);
}

inline CollStats *stats_of(CommInfo *ci, MPI_Comm comm) noexcept {
  if (CollStats *s = ci->stats.load(std::memory_order_acquire))
    return s;
  return stats_slow(ci, comm);
}

// ---- recording ----------------------------------------------------------------------------

/// Adds `v` to a counter only this thread writes.
__attribute__((always_inline)) inline void bump(Counter &c, std::uint64_t v) noexcept {
  c.store(c.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}

/// This thread's counters towards `world`, from its cache: nullptr on a miss.
__attribute__((always_inline)) inline ThreadPeer *thread_peer_cached(int world) noexcept {
  ThreadCache *tc = t_cache;
  if (tc == nullptr)
    return nullptr;
  ThreadPeer *tp = tc->recent[static_cast<unsigned>(world) & (kRecentSlots - 1)];
  return tp != nullptr && tp->key == static_cast<std::uintptr_t>(world) + 1 ? tp : nullptr;
}

__attribute__((always_inline)) inline void record_to(unsigned origin, Kind kind, int world,
                                                     std::uint64_t bytes) noexcept {
  if (world < 0)
    return; // a process outside MPI_COMM_WORLD (dynamic processes)
  if (kind == kP2P && origin == kApp && g.atomic_updates) {
    ThreadPeer *tp = thread_peer_cached(world);
    if (tp == nullptr)
      tp = thread_peer_slow(world);
    if (tp != nullptr) {
      bump(tp->bins[size_bin(bytes)], 1);
      bump(tp->bytes, bytes);
      return;
    }
  }
  Peer *p = peer_of(world);
  if (p == nullptr)
    return;
  // A point-to-point message with a histogram is counted by its bin only (the count is the
  // histogram's sum, see count_of): one atomic add fewer under MPI_THREAD_MULTIPLE.
  if (kind == kP2P && p->hist != nullptr)
    add(p->hist[origin * kHistogramBins + size_bin(bytes)], 1);
  else
    add(p->count[origin][kind], 1);
  add(p->bytes[origin][kind], bytes);
}

/// Messages of `kind` from `origin` to a peer, every thread's.
inline std::uint64_t count_of(const Peer &p, unsigned origin, unsigned kind) noexcept {
  std::uint64_t n = p.count[origin][kind].load(std::memory_order_relaxed);
  if (kind == kP2P && p.hist != nullptr)
    for (unsigned b = 0; b < kHistogramBins; ++b)
      n += p.hist[origin * kHistogramBins + b].load(std::memory_order_relaxed);
  if (kind == kP2P && origin == kApp)
    for (const ThreadPeer *t = p.threads.load(std::memory_order_acquire); t != nullptr; t = t->next)
      for (unsigned b = 0; b < kHistogramBins; ++b)
        n += t->bins[b].load(std::memory_order_relaxed);
  return n;
}

/// Bytes of `kind` from `origin` to a peer, every thread's.
inline std::uint64_t bytes_of(const Peer &p, unsigned origin, unsigned kind) noexcept {
  std::uint64_t n = p.bytes[origin][kind].load(std::memory_order_relaxed);
  if (kind == kP2P && origin == kApp)
    for (const ThreadPeer *t = p.threads.load(std::memory_order_acquire); t != nullptr; t = t->next)
      n += t->bytes.load(std::memory_order_relaxed);
  return n;
}

/// Point-to-point messages from `origin` to a peer in histogram bin `bin`, every thread's
/// (the peer has a histogram).
inline std::uint64_t bin_of(const Peer &p, unsigned origin, unsigned bin) noexcept {
  std::uint64_t n = p.hist[origin * kHistogramBins + bin].load(std::memory_order_relaxed);
  if (origin == kApp)
    for (const ThreadPeer *t = p.threads.load(std::memory_order_acquire); t != nullptr; t = t->next)
      n += t->bins[bin].load(std::memory_order_relaxed);
  return n;
}

/// Adds the collective volume held per communicator (expand()) from `origin` towards each of
/// `worlds` to counts[i * stride] and bytes[i * stride]. The one place readers of per-peer
/// collective volume (the files, MPI_T, the MPI_M_ sessions) find what is not in a Peer.
void add_coll_volume(unsigned origin, const std::vector<int> &worlds, std::uint64_t *counts,
                     std::uint64_t *bytes, std::size_t stride);

/// A point-to-point send of `count` elements to `dest` of `comm`, as the wrapper saw it.
/// The send wrappers call send_fast() first: caches only and no function call, so that the
/// wrapper needs no stack frame in the common case; when it cannot decide (a cache miss:
/// first contact, a derived datatype, a module's call) it has changed nothing and on_send()
/// does the whole work.
template <class Count>
__attribute__((always_inline)) inline void on_send(const RoutineId &routine, Count count,
                                                   MPI_Datatype type, int dest,
                                                   MPI_Comm comm) noexcept {
  if (!recording(kRecordP2P) || dest == MPI_PROC_NULL)
    return;
  CommInfo *ci = comm_info(comm);
  if (ci == nullptr || dest < 0 || dest >= ci->peers.size())
    return;
  record_to(origin_of(routine), kP2P, ci->peers.world(dest), volume(count, type));
}

/// True when the send is recorded (or is nothing to record); false: nothing was changed and
/// on_send() must do the whole work. `Threads`: MPI_THREAD_MULTIPLE was provided, the send
/// goes to this thread's counters (the wrappers choose, so that each variant keeps few
/// registers live and needs no stack frame).
template <bool Threads, class Count>
__attribute__((always_inline)) inline bool send_fast(const RoutineId &routine, Count count,
                                                     MPI_Datatype type, int dest,
                                                     MPI_Comm comm) noexcept {
  if (!recording(kRecordP2P) || dest == MPI_PROC_NULL)
    return true;
  const std::uintptr_t key = handle_key(comm);
  const CommInfo *ci = g_recent_comms[recent_slot(key)].load(std::memory_order_acquire);
  if (ci == nullptr || ci->key.load(std::memory_order_acquire) != key)
    return false;
  if (dest < 0 || dest >= ci->peers.size())
    return true;
  if (origin_of(routine) != kApp)
    return false;
  std::uint64_t size = 0;
  if (!cached_type_size(type, &size))
    return false;
  const int world = ci->peers.world(dest);
  if (world < 0)
    return true;
  if constexpr (Threads) {
    // This thread's own counters: no locked add, no line shared with other senders.
    ThreadPeer *tp = thread_peer_cached(world);
    if (tp == nullptr)
      return false;
    const std::uint64_t bytes = count > 0 ? static_cast<std::uint64_t>(count) * size : 0;
    bump(tp->bins[size_bin(bytes)], 1);
    bump(tp->bytes, bytes);
    return true;
  }
  Peer *p = g_recent_peers[static_cast<unsigned>(world) & (kRecentSlots - 1)].load(
      std::memory_order_acquire);
  if (p == nullptr ||
      p->key.load(std::memory_order_relaxed) != static_cast<std::uintptr_t>(world) + 1)
    return false;
  const std::uint64_t bytes = count > 0 ? static_cast<std::uint64_t>(count) * size : 0;
  Counter &n = p->hist != nullptr ? p->hist[size_bin(bytes)] : p->count[kApp][kP2P];
  Counter &b = p->bytes[kApp][kP2P]; // kApp's histogram bins come first
  bump(n, 1);
  bump(b, bytes);
  return true;
}

/// A one-sided operation on `win` targeting `target`.
inline void on_rma(const RoutineId &routine, Kind kind, std::uint64_t bytes, int target,
                   MPI_Win win) noexcept {
  if (!recording(kRecordOsc) || target == MPI_PROC_NULL)
    return;
  CommInfo *wi = win_info(win);
  if (wi == nullptr || target < 0 || target >= wi->peers.size())
    return;
  record_to(origin_of(routine), kind, wi->peers.world(target), bytes);
}

// ---- persistent requests ------------------------------------------------------------------

/// What one MPI_Start of a persistent request records.
struct Plan {
  Kind kind = kP2P;
  std::vector<std::pair<int, std::uint64_t>> sends; ///< (world rank, bytes)
  CollStats *stats = nullptr;                       ///< collectives: the communicator's
  int coll_class = -1;
  std::uint64_t class_bytes = 0;
  bool to_all = false; ///< all_bytes to every peer of `stats`
  bool to_up = false;  ///< up_bytes to every peer of a higher rank
  std::uint64_t all_bytes = 0, up_bytes = 0;
};

/// Remembers a persistent request (after its *_init succeeded).
void remember_request(MPI_Request request, Plan &&plan) noexcept;
/// Records the MPI_Start of `count` requests that may be persistent sends or collectives.
void start_requests(const RoutineId &routine, int count, const MPI_Request *requests) noexcept;
/// Forgets a request being freed.
void forget_request(MPI_Request request) noexcept;
/// Nonzero once any persistent request has been remembered (MPI_Start skips lookups until).
extern std::atomic<std::size_t> g_plans;

// ---- life cycle ---------------------------------------------------------------------------

/// After the MPI library is initialised (in the MPI_Init/MPI_Init_thread wrappers).
void on_initialized() noexcept;
/// Hands this process's traffic to the job record writer at finalize (record_source.cpp).
void register_record_source() noexcept;
/// In the MPI_Finalize wrapper, before the layers below finalise: writes every output. If
/// this rank could not write one of its files, the process will exit with status 1 (see
/// monitor.cpp) unless it exits with another nonzero status.
void on_finalize() noexcept;
/// Writes the outputs (output.cpp), collectively over MPI_COMM_WORLD. False if this rank
/// failed to write one of its files (each failure is reported).
bool write_outputs() noexcept;
/// Why this rank could not write its files into the output directory, checked at MPI_Init
/// (a missing, non-directory or unwritable directory); empty if it can, or writes none.
/// `any_rank`: as if this process were every rank (pnmpi-info --check, before MPI exists).
std::string output_directory_problem(bool any_rank = false);
/// The directory of `argument output` (the prefix's directory; "." for a bare prefix).
std::string output_directory();
/// Where this process's part file goes: the site's day directory for a site module, else
/// `argument parts`, else output_directory().
std::string part_directory();
/// A communicator's name (MPI_Comm_get_name), empty if it has none.
std::string comm_name(MPI_Comm comm);
/// Prints `pnmpi: module 'monitor': <message>` on stderr; for a site module, hands it to the
/// site policy instead (one warning) and stops recording: the module steps aside.
void report_error(const std::string &message) noexcept;
/// Prints `pnmpi: FILE:LINE: module 'monitor'[: argument 'output']: <problem>` on stderr: a
/// problem with the output directory, located at the configuration line that chose it.
void report_output_problem(const std::string &problem) noexcept;
/// Whether `comm` is a live communicator the monitor knows (comm_registry.cpp): the check a
/// communicator from the application gets before any PMPI_Comm_* call is made on it.
bool known_comm(MPI_Comm comm) noexcept;
/// Writes `text` to `path` atomically; on failure reports why and returns false.
bool write_or_report(const std::string &path, const std::string &text) noexcept;

} // namespace pnmpi::monitor
