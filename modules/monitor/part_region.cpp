// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// The monitor's region of the part file (part_region.h). The Peers, the per-thread counters
// of MPI_THREAD_MULTIPLE senders and the communicators' statistics the hot path updates are
// placed in the mapped region instead of the heap: the call path is the one it was, and
// whatever it stores is in the page cache at once, so it survives a SIGKILL. Sized once,
// after MPI_Init: one Peer (and its histogram) per world rank, kPartCommSlots communicator
// slots, a pool of member ranks and a pool of ThreadPeer slots. The file is sparse
// (pnmpi_part_region extends it with ftruncate): untouched slots take neither memory nor
// disk. What does not fit stays on the heap, is counted as lost, and reaches the record only
// at MPI_Finalize.
#include "part_region.h"

#include "monitor.h"

#include <pnmpi/support.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <new>
#include <sys/stat.h>
#include <unordered_map>

#include "output_format.h"

namespace pnmpi::monitor {

namespace {

char *g_base = nullptr; ///< the region, or nullptr: everything on the heap
PartHeader *g_head = nullptr;
std::uint64_t g_begin_tick = 0, g_begin_mono = 0;
/// The member lists in the pool, by a hash of their ranks: a communicator with the members
/// of an earlier one (MPI_Comm_dup) shares its list. Written under g.lock.
std::unordered_multimap<std::uint64_t, std::uint32_t> g_lists;

constexpr std::uint64_t align64(std::uint64_t n) {
  return (n + 63) / 64 * 64;
}

std::uint32_t offset_in(const void *object, const void *field) {
  return static_cast<std::uint32_t>(static_cast<const char *>(field) -
                                    static_cast<const char *>(object));
}

std::uint64_t hash_of(const std::vector<int> &worlds) noexcept {
  std::uint64_t x = 0xcbf29ce484222325ull ^ worlds.size();
  for (int w : worlds)
    x = (x ^ static_cast<std::uint32_t>(w)) * 0x100000001b3ull;
  return x;
}

/// Where the pool holds `worlds` already (one of the lists of g_lists), or -1.
long shared_list(const PartHeader &h, const std::vector<int> &worlds, std::uint64_t hash) noexcept {
  const auto *pool = reinterpret_cast<const std::int32_t *>(g_base + h.members_at);
  const auto range = g_lists.equal_range(hash);
  for (auto it = range.first; it != range.second; ++it) {
    const std::uint32_t first = it->second;
    if (first + worlds.size() > h.members_used)
      continue;
    std::size_t k = 0;
    while (k < worlds.size() && pool[first + k] == worlds[k])
      ++k;
    if (k == worlds.size())
      return first;
  }
  return -1;
}

} // namespace

std::string part_directory() {
  if (g.site && pnmpi_site_records() != nullptr) {
    char day[4096];
    pnmpi_day_directory(pnmpi_site_records(), std::time(nullptr), day, sizeof day);
    return day;
  }
  return g.options.parts.empty() ? output_directory() : g.options.parts;
}

void part_init_begin() noexcept {
  g_begin_mono = pnmpi_monotonic_ns();
  g_begin_tick = pnmpi_ticks();
}

bool part_open() noexcept {
  const auto world = static_cast<std::uint64_t>(g.world_size);
  const std::uint64_t bins = g.options.histograms ? kHistogramBins : 0;
  const std::uint64_t capacity = kPartMembersPerRank * world + kPartMembersBase;
  const std::uint64_t threads = kPartThreadsPerRank * world + kPartThreadsBase;
  const std::uint64_t coll_stride = align64(sizeof(CollStats));
  // A thread's slot on cache lines of its own, as the heap's would be: no line written by
  // two sending threads.
  const std::uint64_t thread_stride = align64(sizeof(ThreadPeer));
  PartHeader h{};
  std::memcpy(h.magic, "PNMPIMON", 8);
  h.version = kPartVersion;
  h.world_size = static_cast<std::uint32_t>(world);
  h.world_rank = g.world_rank;
  h.hist_bins = static_cast<std::uint32_t>(bins);
  h.peer_stride = sizeof(Peer);
  h.comm_slots = kPartCommSlots;
  h.member_capacity = static_cast<std::uint32_t>(capacity);
  h.coll_stride = static_cast<std::uint32_t>(coll_stride);
  h.coll_classes = kCollClasses;
  h.peers_at = align64(sizeof(PartHeader));
  h.hist_at = h.peers_at + align64(world * sizeof(Peer));
  h.comm_meta_at = h.hist_at + align64(world * kOrigins * bins * sizeof(Counter));
  h.comms_at = h.comm_meta_at + align64(kPartCommSlots * sizeof(PartCommMeta));
  h.members_at = h.comms_at + kPartCommSlots * coll_stride;
  h.thread_slots = static_cast<std::uint32_t>(threads);
  h.thread_stride = static_cast<std::uint32_t>(thread_stride);
  h.thread_bins = kHistogramBins;
  h.threads_at = h.members_at + align64(capacity * sizeof(std::int32_t));
  const std::uint64_t bytes = h.threads_at + threads * thread_stride;
  {
    // Where the offsets of the reader's counters are: from live objects, as Peer and
    // CollStats are not standard-layout types.
    const Peer probe;
    h.peer_count_at = offset_in(&probe, &probe.count[kApp][kP2P]);
    h.peer_bytes_at = offset_in(&probe, &probe.bytes[kApp][kP2P]);
    const CollStats stats;
    h.coll_count_at = offset_in(&stats, &stats.count[kApp][0]);
    h.coll_bytes_at = offset_in(&stats, &stats.bytes[kApp][0]);
    const ThreadPeer thread;
    h.thread_key_at = offset_in(&thread, &thread.key);
    h.thread_bins_at = offset_in(&thread, &thread.bins[0]);
    h.thread_bytes_at = offset_in(&thread, &thread.bytes);
  }
  std::string directory;
  void *p = nullptr;
  int err = 0;
  try {
    directory = part_directory();
    if (pnmpi_part_header() == nullptr)
      pnmpi_part_configure(directory.c_str());
    // A site's part files are for the admins, as its records (owner and group only).
    const mode_t mask = g.site ? umask(027) : 0;
    p = pnmpi_part_region("monitor", bytes, kPartVersion);
    err = errno;
    if (g.site)
      umask(mask);
  } catch (...) {
    err = ENOMEM;
  }
  if (p == nullptr) {
    report_error("cannot make the part file in '" + escape_name(directory) +
                 "': " + std::strerror(err) +
                 " (a job that ends before MPI_Finalize would leave no communication matrix)");
    return false;
  }
  g_base = static_cast<char *>(p);
  g_head = static_cast<PartHeader *>(p);
  *g_head = h;
  pnmpi_part_header_t *file = pnmpi_part_header();
  if (file != nullptr && file->rank < 0) // no profile below: the monitor starts the file
    pnmpi_part_started(g.world_rank, g.world_size, g_begin_tick, g_begin_mono);
  return true;
}

Peer *part_peer(int world) noexcept {
  if (g_head == nullptr || world < 0 || static_cast<std::uint32_t>(world) >= g_head->world_size)
    return nullptr;
  return new (g_base + g_head->peers_at + static_cast<std::uint64_t>(world) * sizeof(Peer)) Peer();
}

Counter *part_hist(int world) noexcept {
  if (g_head == nullptr || g_head->hist_bins == 0 || world < 0 ||
      static_cast<std::uint32_t>(world) >= g_head->world_size)
    return nullptr;
  return reinterpret_cast<Counter *>(g_base + g_head->hist_at) +
         static_cast<std::uint64_t>(world) * kOrigins * g_head->hist_bins;
}

CollStats *part_coll(const std::vector<int> &worlds, int rank) noexcept {
  PartHeader *h = g_head;
  if (h == nullptr)
    return nullptr;
  for (int w : worlds)
    if (w < 0)
      return nullptr; // a process outside MPI_COMM_WORLD: no world rank to keep
  const std::uint32_t slot = h->comm_used;
  const std::uint64_t hash = hash_of(worlds);
  long first = shared_list(*h, worlds, hash);
  const bool fresh = first < 0;
  if (slot >= h->comm_slots || (fresh && worlds.size() > h->member_capacity - h->members_used)) {
    ++h->comm_lost;
    return nullptr;
  }
  if (fresh) {
    first = h->members_used;
    auto *members = reinterpret_cast<std::int32_t *>(g_base + h->members_at) + first;
    for (std::size_t k = 0; k < worlds.size(); ++k)
      members[k] = worlds[k];
    h->members_used += static_cast<std::uint32_t>(worlds.size());
    try {
      g_lists.emplace(hash, static_cast<std::uint32_t>(first));
    } catch (...) { // the list is not shared: a later communicator copies it
    }
  }
  auto *meta = reinterpret_cast<PartCommMeta *>(g_base + h->comm_meta_at) + slot;
  meta->size = static_cast<std::uint32_t>(worlds.size());
  meta->rank = rank;
  meta->first_member = static_cast<std::uint32_t>(first);
  auto *s =
      new (g_base + h->comms_at + slot * static_cast<std::uint64_t>(h->coll_stride)) CollStats();
  __atomic_store_n(&h->comm_used, slot + 1, __ATOMIC_RELEASE);
  return s;
}

ThreadPeer *part_thread_peer(int world, const void *owner) noexcept {
  PartHeader *h = g_head;
  if (h == nullptr || world < 0 || static_cast<std::uint32_t>(world) >= h->world_size)
    return nullptr;
  const std::uint32_t slot = h->thread_used;
  if (slot >= h->thread_slots) {
    ++h->thread_lost;
    return nullptr;
  }
  auto *tp = new (g_base + h->threads_at + slot * static_cast<std::uint64_t>(h->thread_stride))
      ThreadPeer();
  tp->key = static_cast<std::uintptr_t>(world) + 1;
  tp->owner = owner;
  __atomic_store_n(&h->thread_used, slot + 1, __ATOMIC_RELEASE);
  return tp;
}

void part_abort(int code) noexcept {
  pnmpi_part_mark(PNMPI_PART_ABORTED, code);
}

void part_finalized() noexcept {
  pnmpi_part_mark(PNMPI_PART_FINALIZED, 0);
  const pnmpi_part_header_t *file = pnmpi_part_header();
  if (file == nullptr || g_head == nullptr)
    return;
  for (std::uint32_t k = 0; k < file->region_count && k < PNMPI_PART_MAX_REGIONS; ++k)
    if (std::strcmp(file->regions[k].name, "profile") == 0)
      return; // the profile's record writer reads the file and removes it
  pnmpi_part_remove();
}

} // namespace pnmpi::monitor
