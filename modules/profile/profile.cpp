// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// The profile module: time, calls and bytes per MPI routine and rank, kept in the part
// file from MPI_Init on, and the job record rank 0 writes at MPI_Finalize
// (docs/record.md). The call path is in profile.h; this file does everything else.
#include "profile.h"

#include "record_writer.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

PNMPI_MODULE_ARGUMENTS("output parts split");

__thread profile_cell_t *profile_t_cells = nullptr;
pnmpi_type_slot_t profile_types[PNMPI_TYPE_SLOTS];
int profile_split_on = 0;

namespace pnmpi::profile {

Region *g_region = nullptr;
SplitRegion *g_split = nullptr;
std::string g_output = ".";
bool g_site = false;
PNMPI_modHandle_t g_self = PNMPI_MODHANDLE_NULL;
uint64_t g_begin_tick = 0, g_begin_mono = 0;
std::atomic<bool> g_warned_lost{false};

std::string record_path(const char *job) {
  if (!g_site)
    return g_output + "/pnmpi-" + job + ".record.npz";
  char path[4096];
  const int fd = pnmpi_site_record_create("record.npz", path, sizeof path);
  if (fd < 0) {
    report_failure(std::string("cannot create the job record in ") + pnmpi_site_records() + ": " +
                   std::strerror(errno));
    return "";
  }
  close(fd); // the name is ours; the record replaces it whole (write_record renames)
  return path;
}

void report_failure(const std::string &message) {
  if (g_site && pnmpi_site_failure(g_self, message.c_str()) == PNMPI_SUCCESS)
    return;
  std::fprintf(stderr, "pnmpi: profile: %s\n", message.c_str());
}

} // namespace pnmpi::profile

using namespace pnmpi::profile;

extern "C" {

profile_cell_t *profile_thread_cells(void) {
  Region *r = g_region;
  if (r == nullptr)
    return nullptr;
  const uint32_t slot = __atomic_fetch_add(&r->threads, 1u, __ATOMIC_RELAXED);
  if (slot >= r->max_threads) {
    __atomic_store_n(&r->threads, r->max_threads, __ATOMIC_RELAXED);
    __atomic_fetch_add(&r->lost_calls, 1u, __ATOMIC_RELAXED);
    return nullptr;
  }
  profile_cell_t *cells = region_cells(r, slot);
  profile_t_cells = cells;
  return cells;
}

uint64_t profile_type_size_slow(MPI_Datatype type) {
  int size = 0;
  return PMPI_Type_size(type, &size) == MPI_SUCCESS && size > 0 ? static_cast<uint64_t>(size) : 0;
}

void profile_split(int id, int app, uint64_t ticks, uint64_t bytes, MPI_Comm comm) {
  SplitRegion *s = g_split;
  profile_cell_t *cells = profile_t_cells;
  if (s == nullptr || cells == nullptr || g_region == nullptr)
    return;
  const size_t thread =
      static_cast<size_t>(cells - region_cells(g_region, 0)) / (2u * PNMPI_NUM_ROUTINES);
  int size = 0;
  if (comm != MPI_COMM_NULL)
    PMPI_Comm_size(comm, &size);
  const uint32_t bin = bytes != 0 ? 64u - static_cast<uint32_t>(__builtin_clzll(bytes)) : 0u;
  SplitSlot *t = split_slots(s, thread);
  uint64_t h = static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull ^
               static_cast<uint64_t>(size) * 0xC2B2AE3D27D4EB4Full ^
               static_cast<uint64_t>(bin) * 0x165667B19E3779F9ull ^ static_cast<uint64_t>(app);
  for (uint32_t probe = 0, i = static_cast<uint32_t>(h >> 40) & (s->slots - 1); probe < s->slots;
       ++probe, i = (i + 1) & (s->slots - 1)) {
    SplitSlot &slot = t[i];
    if (slot.routine_plus1 == 0) {
      slot.comm_size = static_cast<uint32_t>(size);
      slot.bin = bin;
      slot.app = app ? 1u : 0u;
      __atomic_store_n(&slot.routine_plus1, static_cast<uint32_t>(id) + 1u, __ATOMIC_RELEASE);
    } else if (slot.routine_plus1 != static_cast<uint32_t>(id) + 1u ||
               slot.comm_size != static_cast<uint32_t>(size) || slot.bin != bin ||
               slot.app != (app ? 1u : 0u)) {
      continue;
    }
    slot.calls += 1;
    slot.ticks += ticks;
    slot.bytes += bytes;
    return;
  }
  __atomic_fetch_add(&s->lost_calls, 1u, __ATOMIC_RELAXED);
}

void profile_init_begin(void) {
  g_begin_mono = pnmpi_monotonic_ns();
  g_begin_tick = pnmpi_ticks();
}

void profile_init_end(int rc) {
  if (rc != MPI_SUCCESS)
    return;
  int rank = -1, size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  pnmpi_type_table_fill(profile_types);
  pnmpi_part_started(rank, size, g_begin_tick, g_begin_mono);
  // Rank 0's job id for every rank: without a scheduler, MPICH's ranks on different nodes
  // see different fallbacks (their launcher's pid), and the parts of one job must agree.
  pnmpi_part_header_t *h = pnmpi_part_header();
  char id[sizeof h->job_id];
  std::snprintf(id, sizeof id, "%s", h != nullptr ? h->job_id : pnmpi_job_id());
  PMPI_Bcast(id, static_cast<int>(sizeof id), MPI_CHAR, 0, MPI_COMM_WORLD);
  id[sizeof id - 1] = '\0';
  if (h != nullptr)
    std::memcpy(h->job_id, id, sizeof id);
  // Every rank's host in the part files of the first and the last rank: a killed multi-node
  // job leaves its parts on their nodes, and pnmpi-report names the host whose parts are
  // missing (docs/record.md). With block placement those two ranks are on two different
  // nodes whenever the job has more than one. Two gathers: the other ranks send
  // their 64 bytes and receive nothing, so no rank's memory or traffic grows with the job,
  // as an allgather's would (1 MB on every rank of a 16,384-rank job).
  char host[sizeof h->host] = {};
  if (h != nullptr)
    std::memcpy(host, h->host, sizeof host - 1);
  else
    gethostname(host, sizeof host - 1);
  const int roots[] = {0, size - 1};
  for (int k = 0; k < (size > 1 ? 2 : 1); ++k) {
    std::vector<char> hosts(rank == roots[k] ? static_cast<std::size_t>(size) * sizeof host : 0);
    PMPI_Gather(host, static_cast<int>(sizeof host), MPI_CHAR, hosts.data(),
                static_cast<int>(sizeof host), MPI_CHAR, roots[k], MPI_COMM_WORLD);
    if (rank == roots[k] && h != nullptr)
      pnmpi_part_hosts(hosts.data(), sizeof host, size);
  }
}

void profile_finalize_begin(void) {
  pnmpi_part_mark(PNMPI_PART_FINALIZED, 0);
  write_job_record();
}

void profile_abort(int code) {
  pnmpi_part_mark(PNMPI_PART_ABORTED, code);
}

/// The arguments' values, with no effect: pnmpi-info --check runs this, and so does the job
/// first thing at its start. An output directory that names an existing file is refused here
/// (the job would find out only when it makes the directory).
PNMPI_EXPORT int pnmpi_module_check(PNMPI_modHandle_t self) {
  const char *output = nullptr;
  const char *parts = nullptr;
  int split = 0;
  if (pnmpi_argument_string(self, "output", PNMPI_ARG_NONEMPTY, &output) == PNMPI_BADARG ||
      pnmpi_argument_string(self, "parts", PNMPI_ARG_NONEMPTY, &parts) == PNMPI_BADARG ||
      pnmpi_argument_bool(self, "split", PNMPI_ARG_OPTIONAL, &split) == PNMPI_BADARG)
    return PNMPI_BADARG;
  for (const char *name : {"output", "parts"}) {
    const char *dir = name[0] == 'o' ? output : parts;
    struct stat st {};
    if (dir != nullptr && stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
      pnmpi_argument_refuse(self, name, "must name a directory, not an existing file");
      return PNMPI_BADARG;
    }
  }
  return PNMPI_SUCCESS;
}

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  g_self = self;
  if (pnmpi_module_check(self) != PNMPI_SUCCESS) {
    if (pnmpi_site_failure(self, nullptr) == PNMPI_SUCCESS)
      return;
    _exit(1);
  }
  // Listed by the site with a record directory: the record and the part files go to the
  // site's day directory, never into the job's working directory, and every failure goes
  // through the site policy (docs/site.md).
  g_site = pnmpi_module_is_site(self) == 1 && pnmpi_site_records() != nullptr;
  const char *output = ".";
  if (pnmpi_argument_string(self, "output", PNMPI_ARG_NONEMPTY, &output) == PNMPI_BADARG) {
    if (pnmpi_site_failure(self, nullptr) == PNMPI_SUCCESS)
      return;
    _exit(1);
  }
  const char *parts = output;
  if (pnmpi_argument_string(self, "parts", PNMPI_ARG_NONEMPTY, &parts) == PNMPI_BADARG) {
    if (pnmpi_site_failure(self, nullptr) == PNMPI_SUCCESS)
      return;
    _exit(1);
  }
  char day[4096];
  if (g_site) {
    pnmpi_day_directory(pnmpi_site_records(), std::time(nullptr), day, sizeof day);
    output = parts = day;
  }
  g_output = output;
  if ((!g_site && mkdir_one(output) != 0) || pnmpi_part_configure(parts) != 0) {
    report_failure(std::string("cannot use the output directory ") + output + ": " +
                   std::strerror(errno));
    return;
  }
  int split = 0;
  if (pnmpi_argument_bool(self, "split", PNMPI_ARG_OPTIONAL, &split) == PNMPI_BADARG) {
    if (pnmpi_site_failure(self, nullptr) == PNMPI_SUCCESS)
      return;
    _exit(1);
  }
  // A site's records are for the admins: the part files too (owner and group only).
  const mode_t mask = g_site ? umask(027) : 0;
  g_region = open_region();
  int err = errno;
  if (g_region != nullptr && split) {
    g_split = open_split_region();
    err = errno;
    if (g_split == nullptr)
      report_failure(std::string("cannot make the split's region in ") + parts + ": " +
                     std::strerror(err));
    profile_split_on = g_split != nullptr;
  }
  if (g_site)
    umask(mask);
  if (g_region == nullptr)
    report_failure(std::string("cannot make the part file in ") + parts + ": " +
                   std::strerror(err) + " (nothing is profiled)");
}

} // extern "C"
