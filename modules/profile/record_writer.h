// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// The profile's region of the part file, and the job record written from it.
#ifndef PNMPI_PROFILE_RECORD_WRITER_H
#define PNMPI_PROFILE_RECORD_WRITER_H

#include "profile.h"

#include <string>
#include <vector>

namespace pnmpi::profile {

/// The profile's region of the part file (version 1), as pnmpi-report reads it: this
/// header, the routine names (kNameBytes each) at names_offset, then max_threads blocks
/// of 2 * routines cells (the application's, then the modules') at cells_offset.
struct Region {
  uint32_t routines;
  uint32_t max_threads;
  uint32_t threads; ///< blocks taken (may briefly exceed max_threads)
  uint32_t name_bytes;
  uint64_t lost_calls; ///< calls of threads that found no block left
  uint64_t names_offset;
  uint64_t cells_offset;
  uint64_t reserved[3];
};

constexpr uint32_t kRegionVersion = 1;
constexpr uint32_t kMaxThreads = 64;
constexpr uint32_t kNameBytes = 64;

inline profile_cell_t *region_cells(Region *r, uint32_t slot) {
  return reinterpret_cast<profile_cell_t *>(reinterpret_cast<char *>(r) + r->cells_offset) +
         static_cast<size_t>(slot) * 2u * r->routines;
}

/// The split by communicator size and message-size bin (`argument split on`), region
/// "profile_split" version 1: this header, then max_threads tables of `slots` SplitSlot
/// (open addressing; routine 0 = empty) at slots_offset, one per thread block.
struct SplitSlot {
  uint32_t routine_plus1;
  uint32_t comm_size; ///< 0: the routine has no communicator
  uint32_t bin;       ///< 0 for 0 bytes, else floor(log2(bytes)) + 1
  uint32_t app;       ///< 1 the application's calls, 0 the modules'
  uint64_t calls, ticks, bytes;
};
struct SplitRegion {
  uint32_t slots;
  uint32_t max_threads;
  uint32_t slot_bytes;
  uint32_t pad;
  uint64_t lost_calls; ///< calls that found their thread's table full
  uint64_t slots_offset;
  uint64_t reserved[4];
};
constexpr uint32_t kSplitSlots = 2048;

inline SplitSlot *split_slots(SplitRegion *s, size_t thread) {
  return reinterpret_cast<SplitSlot *>(reinterpret_cast<char *>(s) + s->slots_offset) +
         thread * s->slots;
}

/// What every rank sends rank 0 at MPI_Finalize: this, `entries` Entry, then (pad bit 0)
/// its serialised Traffic, then (pad bit 1) a count and that many SplitEntry, padded to 8.
struct RankHead {
  double wall_s, mpi_s;
  uint64_t init_real_ns, end_real_ns;
  uint32_t entries, pad;
  char host[64];
};

struct Entry {
  uint32_t id, pad;
  uint64_t calls, bytes, tool_calls, tool_bytes;
  double time_s, tool_time_s, min_s, max_s;
};

/// The monitor's traffic of one rank, as pnmpi_record_data_t, serialised after the entries:
/// counts, then p2p peer/bytes/count, comm key/bytes/count/first, members.
struct Traffic {
  std::vector<int32_t> peer, first, members;
  std::vector<uint64_t> bytes, count, key, cbytes, ccount;
};

extern Region *g_region;
extern SplitRegion *g_split;
extern std::string g_output;
/// The site policy (docs/site.md): this layer was added by the site configuration and its
/// record goes to the site's record directory; g_self is its handle.
extern bool g_site;
extern PNMPI_modHandle_t g_self;
/// Where rank 0 writes the job record: OUTPUT/pnmpi-JOB.record.npz, or a new file in the
/// site's record directory (pnmpi_site_record_create). "" when none can be made (said).
std::string record_path(const char *job);
/// A failure to write: the user's profile prints it; a site profile goes through the site
/// policy (one warning, a note for the admin, the job unchanged).
void report_failure(const std::string &message);

/// Reserves and fills the region (names, sizes); nullptr with errno on failure.
Region *open_region();
/// Reserves the split's region; nullptr with errno on failure.
SplitRegion *open_split_region();
/// mkdir of one level; 0 when it exists.
int mkdir_one(const char *path);
/// Traffic as bytes (the packet's part after the entries).
std::vector<char> serialise(const Traffic &t);
/// Rank 0: the record at `path` from every rank's packet (`all`, starting at `offsets`,
/// `size` ranks). 0 or errno. bench/record/record_synth.cpp calls it with made-up packets.
int write_record(const std::vector<char> &all, const std::vector<int> &offsets, int size,
                 const std::string &path);
/// Gathers every rank's totals to rank 0, which writes the record; then every rank
/// removes its part file if the record was written. Collective over MPI_COMM_WORLD.
void write_job_record();

} // namespace pnmpi::profile

#endif
