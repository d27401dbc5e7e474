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

PNMPI_MODULE_ARGUMENTS("output parts");

__thread profile_cell_t *profile_t_cells = nullptr;
profile_type_slot_t profile_types[PROFILE_TYPE_SLOTS];

namespace pnmpi::profile {

Region *g_region = nullptr;
std::string g_output = ".";
bool g_site = false;
PNMPI_modHandle_t g_self = PNMPI_MODHANDLE_NULL;
uint64_t g_begin_tick = 0, g_begin_mono = 0;
std::atomic<bool> g_warned_lost{false};

namespace {

void fill_type_table() {
  const MPI_Datatype types[] = {MPI_CHAR,
                                MPI_SHORT,
                                MPI_INT,
                                MPI_LONG,
                                MPI_LONG_LONG,
                                MPI_SIGNED_CHAR,
                                MPI_UNSIGNED_CHAR,
                                MPI_UNSIGNED_SHORT,
                                MPI_UNSIGNED,
                                MPI_UNSIGNED_LONG,
                                MPI_UNSIGNED_LONG_LONG,
                                MPI_FLOAT,
                                MPI_DOUBLE,
                                MPI_LONG_DOUBLE,
                                MPI_WCHAR,
                                MPI_C_BOOL,
                                MPI_INT8_T,
                                MPI_INT16_T,
                                MPI_INT32_T,
                                MPI_INT64_T,
                                MPI_UINT8_T,
                                MPI_UINT16_T,
                                MPI_UINT32_T,
                                MPI_UINT64_T,
                                MPI_C_COMPLEX,
                                MPI_C_DOUBLE_COMPLEX,
                                MPI_BYTE,
                                MPI_PACKED,
                                MPI_AINT,
                                MPI_OFFSET,
                                MPI_COUNT,
                                MPI_FLOAT_INT,
                                MPI_DOUBLE_INT,
                                MPI_LONG_INT,
                                MPI_2INT,
                                MPI_SHORT_INT,
                                MPI_LONG_DOUBLE_INT,
                                MPI_INTEGER,
                                MPI_REAL,
                                MPI_DOUBLE_PRECISION,
                                MPI_COMPLEX,
                                MPI_DOUBLE_COMPLEX,
                                MPI_LOGICAL,
                                MPI_CHARACTER,
                                MPI_2REAL,
                                MPI_2DOUBLE_PRECISION,
                                MPI_2INTEGER,
                                MPI_INTEGER4,
                                MPI_INTEGER8,
                                MPI_REAL4,
                                MPI_REAL8};
  for (MPI_Datatype t : types) {
    const uintptr_t k = profile_type_key(t);
    if (k == 0 || t == MPI_DATATYPE_NULL)
      continue;
    int size = 0;
    if (PMPI_Type_size(t, &size) != MPI_SUCCESS)
      continue;
    for (unsigned i = static_cast<unsigned>((k * 0x9E3779B97F4A7C15ull) >> 56);;
         i = (i + 1) & 255u) {
      if (profile_types[i].key == k)
        break;
      if (profile_types[i].key == 0) {
        profile_types[i].size = static_cast<uint64_t>(size);
        profile_types[i].key = k;
        break;
      }
    }
  }
}

} // namespace

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
  fill_type_table();
  pnmpi_part_started(rank, size, g_begin_tick, g_begin_mono);
}

void profile_finalize_begin(void) {
  pnmpi_part_mark(PNMPI_PART_FINALIZED, 0);
  write_job_record();
}

void profile_abort(int code) {
  pnmpi_part_mark(PNMPI_PART_ABORTED, code);
}

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  g_self = self;
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
  std::string day;
  if (g_site) {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    day = std::string(pnmpi_site_records()) + "/" + std::to_string(utc.tm_year + 1900) + "/" +
          std::to_string(utc.tm_mon + 1) + "/" + std::to_string(utc.tm_mday);
    output = parts = day.c_str();
  }
  g_output = output;
  if ((!g_site && mkdir_one(output) != 0) || pnmpi_part_configure(parts) != 0) {
    report_failure(std::string("cannot use the output directory ") + output + ": " +
                   std::strerror(errno));
    return;
  }
  // A site's records are for the admins: the part files too (owner and group only).
  const mode_t mask = g_site ? umask(027) : 0;
  g_region = open_region();
  const int err = errno;
  if (g_site)
    umask(mask);
  if (g_region == nullptr) {
    errno = err;
    report_failure(std::string("cannot make the part file in ") + parts + ": " +
                   std::strerror(errno) + " (nothing is profiled)");
  }
}

} // extern "C"
