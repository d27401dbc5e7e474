// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The monitor's region of the per-process part file (docs/record.md, "The monitor's region"):
// its application counters live there from MPI_Init on, so that a job killed before
// MPI_Finalize leaves its communication matrix on disk. Layout version 1, little-endian,
// read by tools/report/pnmpi_report/parts.py (MONITOR).

#include <atomic>
#include <cstdint>
#include <vector>

namespace pnmpi::monitor {

struct CollStats;
struct Peer;
struct ThreadPeer;

constexpr std::uint32_t kPartVersion = 2;
/// Communicators (intracommunicators with collectives) whose counters the region keeps;
/// later ones stay on the heap and are counted in comm_lost. Untouched slots cost nothing
/// (the file is sparse).
constexpr std::uint32_t kPartCommSlots = 1024;
/// The pool of communicator members (world ranks): kPartMembersPerRank per world rank plus
/// kPartMembersBase. Communicators with the same members share one list.
constexpr std::uint64_t kPartMembersPerRank = 16, kPartMembersBase = 65536;
/// The slots of per-thread point-to-point counters (ThreadPeer, one per sending thread and
/// peer under MPI_THREAD_MULTIPLE): kPartThreadsPerRank per world rank plus kPartThreadsBase.
/// Later ones stay on the heap and are counted in thread_lost.
constexpr std::uint64_t kPartThreadsPerRank = 4, kPartThreadsBase = 256;

/// The region's header. Offsets are from the region's start; strides and field offsets let
/// the reader find a counter without knowing the C++ layout of Peer or CollStats.
struct PartHeader {
  char magic[8];         ///< "PNMPIMON", no NUL
  std::uint32_t version; ///< kPartVersion
  std::uint32_t world_size;
  std::int32_t world_rank;
  std::uint32_t hist_bins;     ///< per origin, 0 without histograms
  std::uint32_t peer_stride;   ///< bytes of one Peer
  std::uint32_t peer_count_at; ///< offset of the application's point-to-point count in a Peer
  std::uint32_t peer_bytes_at; ///< and of its bytes
  std::uint32_t comm_slots;    ///< kPartCommSlots
  std::uint32_t comm_used;     ///< slots taken (stored with release after the slot is filled)
  std::uint32_t comm_lost;     ///< communicators that found no slot or no room for members
  std::uint32_t member_capacity;
  std::uint32_t members_used;
  std::uint32_t coll_stride;   ///< bytes of one communicator slot
  std::uint32_t coll_count_at; ///< offset of the application's calls per class in a slot
  std::uint32_t coll_bytes_at; ///< and of their bytes
  std::uint32_t coll_classes;  ///< 64-bit counters at each of the two offsets
  std::uint64_t peers_at;      ///< world_size Peers, indexed by world rank
  std::uint64_t hist_at;       ///< world_size x 2 x hist_bins counters (application's first)
  std::uint64_t comm_meta_at;  ///< comm_slots PartCommMeta
  std::uint64_t comms_at;      ///< comm_slots slots of coll_stride bytes
  std::uint64_t members_at;    ///< member_capacity int32 world ranks
  std::uint64_t reserved[4];
  // Version 2: the per-thread point-to-point counters (MPI_THREAD_MULTIPLE).
  std::uint32_t thread_slots;    ///< ThreadPeer slots
  std::uint32_t thread_used;     ///< slots taken (stored with release after the slot is filled)
  std::uint32_t thread_lost;     ///< ThreadPeers that found no slot (on the heap)
  std::uint32_t thread_stride;   ///< bytes of one slot (a whole number of cache lines)
  std::uint32_t thread_key_at;   ///< offset of the 64-bit key (receiver's world rank + 1)
  std::uint32_t thread_bins_at;  ///< of the message counts by size bin
  std::uint32_t thread_bytes_at; ///< of the bytes
  std::uint32_t thread_bins;     ///< 64-bit counters at thread_bins_at (their sum: messages)
  std::uint64_t threads_at;      ///< thread_slots slots of thread_stride bytes
  std::uint64_t reserved2[3];
};

/// What the reader needs of a kept communicator besides its counters.
struct PartCommMeta {
  std::uint32_t size;         ///< members
  std::int32_t rank;          ///< this process's rank in it
  std::uint32_t first_member; ///< index into the member array
  std::uint32_t reserved;
};

/// Before MPI_Init: the clock readings the part file's rate estimate starts from.
void part_init_begin() noexcept;
/// Makes the region (after MPI_Init: the world size sizes it) and the part file if the
/// profile has not; marks the part file's start when no one has. On failure says why (or
/// hands it to the site policy) and returns false: the counters stay on the heap.
bool part_open() noexcept;
/// A Peer for `world` in the region (constructed), or nullptr: use the heap.
Peer *part_peer(int world) noexcept;
/// The histogram counters of `world` in the region, or nullptr.
std::atomic<std::uint64_t> *part_hist(int world) noexcept;
/// Storage for a communicator's statistics with members `worlds` (constructed), or nullptr
/// (counted in comm_lost). The caller holds g.lock.
CollStats *part_coll(const std::vector<int> &worlds, int rank) noexcept;
/// A slot for the counters of thread `owner` (its ThreadCache) towards `world`, constructed,
/// its key and owner set and published; nullptr when there is no region or no room (counted
/// in thread_lost). The caller holds g.lock.
ThreadPeer *part_thread_peer(int world, const void *owner) noexcept;
/// At MPI_Abort: marks the part file (the profile may not be loaded).
void part_abort(int code) noexcept;
/// At MPI_Finalize, after the monitor's outputs: marks the part file finalized and removes
/// it, unless the profile is there to write the record from it (it removes it then).
void part_finalized() noexcept;

} // namespace pnmpi::monitor
