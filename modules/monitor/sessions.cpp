// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The MPI side of the sessions API: the service table libmpi_monitoring.so calls, reading
// the monitor's counters and gathering through the layers below the monitor (PMPI_*), so
// that neither this module nor any active session records the gathers themselves.

#include "sessions.h"

#include <pnmpi/pnmpi.h>
#include <pnmpi/world_ranks.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

#include "MPI_Monitoring.h"
#include "monitor.h"
#include "output_format.h"
#include "session_table.h"
#include "sessions_api.h"

namespace pnmpi::monitor {

namespace {

void read_counters(const std::vector<int> &worlds, std::uint64_t *out) {
  for (std::size_t i = 0; i < worlds.size(); ++i) {
    std::uint64_t *v = out + kSessionValues * i;
    const Peer *p =
        worlds[i] >= 0 ? g.peers.find(static_cast<std::uintptr_t>(worlds[i]) + 1) : nullptr;
    for (unsigned k = 0; k < kKinds; ++k) {
      v[2 * k] = p != nullptr ? count_of(*p, kApp, k) : 0;
      v[2 * k + 1] = p != nullptr ? bytes_of(*p, kApp, k) : 0;
    }
  }
  add_coll_volume(kApp, worlds, out + 2 * kColl, out + 2 * kColl + 1, kSessionValues);
}

SessionTable &table() {
  static SessionTable t(read_counters);
  return t;
}

bool mpi_usable() {
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  return initialized && !finalized && g.world_size > 0;
}

/// One member's rows for the selected categories: [counts(n) | bytes(n)].
std::vector<unsigned long> own_rows(const SessionView &v, int flags) {
  const std::size_t n = v.worlds.size();
  std::vector<unsigned long> rows(2 * n);
  for (std::size_t j = 0; j < n; ++j) {
    std::uint64_t c = 0, b = 0;
    select_categories(v.values, j, flags, &c, &b);
    rows[j] = c;
    rows[n + j] = b;
  }
  return rows;
}

/// Splits gathered [counts | bytes] rows into the caller's matrices (either may be NULL).
void unpack(const std::vector<unsigned long> &all, std::size_t n, unsigned long *counts,
            unsigned long *sizes) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (counts != nullptr)
        counts[i * n + j] = all[i * 2 * n + j];
      if (sizes != nullptr)
        sizes[i * n + j] = all[i * 2 * n + n + j];
    }
}

int api_init(void) {
  if (!mpi_usable())
    return MPI_M_MPIT_FAIL;
  table().set_limit(g.options.max_sessions);
  return table().init();
}

int api_finalize(void) {
  return table().finalize();
}

int api_start(MPI_Comm comm, int *msid) {
  if (!mpi_usable())
    return MPI_M_MISSING_INIT;
  // A freed communicator, a datatype or garbage would crash the PMPI_Comm_* calls below.
  if (comm == MPI_COMM_NULL || !known_comm(comm))
    return MPI_M_INVALID_ARG;
  int inter = 0, rank = -1;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
    return MPI_M_MPIT_FAIL;
  if (inter)
    return MPI_M_INVALID_ARG;
  // The monitor must know the communicator, so that its attribute's delete callback tells
  // the sessions when the application frees it (sessions_comm_freed).
  if (comm_info(comm) == nullptr)
    return MPI_M_INTERNAL_FAIL;
  PMPI_Comm_rank(comm, &rank);
  std::vector<int> worlds;
  try {
    worlds = support::comm_world_ranks(comm, g.world_group);
  } catch (...) {
    return MPI_M_INTERNAL_FAIL;
  }
  if (worlds.empty())
    return MPI_M_MPIT_FAIL;
  return table().start(comm, rank, std::move(worlds), msid);
}

int api_suspend(int msid) {
  return table().suspend(msid);
}
int api_resume(int msid) {
  return table().resume(msid);
}
int api_reset(int msid) {
  return table().reset(msid);
}
int api_free(int msid) {
  return table().free_session(msid);
}

int api_get_info(int msid, int *provided, int *array_size) {
  int size = 0;
  if (const int rc = table().size_of(msid, &size); rc != MPI_SUCCESS)
    return rc;
  if (provided != nullptr)
    *provided = g.thread_level;
  if (array_size != nullptr)
    *array_size = size;
  return MPI_SUCCESS;
}

int read_view(int msid, int flags, SessionView &v) {
  if (const int rc = table().view(msid, v); rc != MPI_SUCCESS)
    return rc;
  return valid_flags(flags) ? MPI_SUCCESS : MPI_M_INVALID_ARG;
}

int api_get_data(int msid, unsigned long *counts, unsigned long *sizes, int flags) {
  SessionView v;
  if (const int rc = read_view(msid, flags, v); rc != MPI_SUCCESS)
    return rc;
  for (std::size_t j = 0; j < v.worlds.size(); ++j) {
    std::uint64_t c = 0, b = 0;
    select_categories(v.values, j, flags, &c, &b);
    if (counts != nullptr)
      counts[j] = c;
    if (sizes != nullptr)
      sizes[j] = b;
  }
  return MPI_SUCCESS;
}

int api_allgather_data(int msid, unsigned long *counts, unsigned long *sizes, int flags) {
  SessionView v;
  if (const int rc = read_view(msid, flags, v); rc != MPI_SUCCESS)
    return rc;
  const std::size_t n = v.worlds.size();
  try {
    std::vector<unsigned long> rows = own_rows(v, flags), all(2 * n * n);
    if (PMPI_Allgather(rows.data(), static_cast<int>(2 * n), MPI_UNSIGNED_LONG, all.data(),
                       static_cast<int>(2 * n), MPI_UNSIGNED_LONG, v.comm) != MPI_SUCCESS)
      return MPI_M_MPIT_FAIL;
    unpack(all, n, counts, sizes);
  } catch (...) {
    return MPI_M_INTERNAL_FAIL;
  }
  return MPI_SUCCESS;
}

/// Gathers every member's rows on `root`; `all` is filled on the root only.
int gather_on_root(const SessionView &v, int root, int flags, std::vector<unsigned long> &all) {
  const std::size_t n = v.worlds.size();
  try {
    std::vector<unsigned long> rows = own_rows(v, flags);
    if (v.rank == root)
      all.resize(2 * n * n);
    if (PMPI_Gather(rows.data(), static_cast<int>(2 * n), MPI_UNSIGNED_LONG, all.data(),
                    static_cast<int>(2 * n), MPI_UNSIGNED_LONG, root, v.comm) != MPI_SUCCESS)
      return MPI_M_MPIT_FAIL;
  } catch (...) {
    return MPI_M_INTERNAL_FAIL;
  }
  return MPI_SUCCESS;
}

int api_rootgather_data(int msid, int root, unsigned long *counts, unsigned long *sizes,
                        int flags) {
  SessionView v;
  if (const int rc = read_view(msid, flags, v); rc != MPI_SUCCESS)
    return rc;
  if (root < 0 || root >= static_cast<int>(v.worlds.size()))
    return MPI_M_INVALID_ROOT;
  std::vector<unsigned long> all;
  if (const int rc = gather_on_root(v, root, flags, all); rc != MPI_SUCCESS)
    return rc;
  if (v.rank == root)
    unpack(all, v.worlds.size(), counts, sizes);
  return MPI_SUCCESS;
}

int api_flush(int msid, const char *filename, int flags) {
  SessionView v;
  if (const int rc = read_view(msid, flags, v); rc != MPI_SUCCESS)
    return rc;
  if (filename == nullptr || *filename == '\0')
    return MPI_M_INVALID_ARG;
  try {
    // A header line always: a session without traffic writes a file that says so, and an
    // empty file is one that was cut (pnmpi-report refuses those).
    std::string text = "# MPI_M_flush: session rank " + std::to_string(v.rank) + " of " +
                       std::to_string(v.worlds.size()) + "\n";
    const char *types[kKinds] = {"E", "C", "S", "R"};
    const int selects[kKinds] = {MPI_M_P2P_ONLY, MPI_M_COLL_ONLY, MPI_M_OSC_ONLY, MPI_M_OSC_ONLY};
    for (unsigned k = 0; k < kKinds; ++k) {
      if (!(flags & selects[k]))
        continue;
      for (std::size_t j = 0; j < v.worlds.size(); ++j) {
        const std::uint64_t count = v.values[kSessionValues * j + 2 * k];
        if (count != 0)
          text += prof_line(types[k], v.rank, static_cast<int>(j),
                            v.values[kSessionValues * j + 2 * k + 1], count, nullptr);
      }
    }
    const std::string path = std::string(filename) + "." + std::to_string(v.rank) + ".prof";
    if (!write_or_report(path, text))
      return MPI_M_INTERNAL_FAIL;
  } catch (...) {
    return MPI_M_INTERNAL_FAIL;
  }
  return MPI_SUCCESS;
}

int api_rootflush(int msid, int root, const char *filename, int flags) {
  SessionView v;
  if (const int rc = read_view(msid, flags, v); rc != MPI_SUCCESS)
    return rc;
  if (root < 0 || root >= static_cast<int>(v.worlds.size()))
    return MPI_M_INVALID_ROOT;
  if (filename == nullptr || *filename == '\0')
    return MPI_M_INVALID_ARG;
  std::vector<unsigned long> all;
  if (const int rc = gather_on_root(v, root, flags, all); rc != MPI_SUCCESS)
    return rc;
  if (v.rank != root)
    return MPI_SUCCESS;
  try {
    const std::size_t n = v.worlds.size();
    for (int part = 0; part < 2; ++part) {
      std::string text;
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
          if (j > 0)
            text += ' ';
          text += std::to_string(all[i * 2 * n + (part ? n : 0) + j]);
        }
        text += '\n';
      }
      const std::string path = std::string(filename) + (part ? "_sizes." : "_counts.") +
                               std::to_string(g.world_rank) + ".prof";
      if (!write_or_report(path, text))
        return MPI_M_INTERNAL_FAIL;
    }
  } catch (...) {
    return MPI_M_INTERNAL_FAIL;
  }
  return MPI_SUCCESS;
}

const pnmpi_monitor_sessions_api_t kApi = {
    api_init,      api_finalize, api_start,    api_suspend,        api_resume,          api_reset,
    api_free,      api_get_info, api_get_data, api_allgather_data, api_rootgather_data, api_flush,
    api_rootflush,
};

const pnmpi_monitor_sessions_api_t *sessions_api() {
  return &kApi;
}

} // namespace

void register_sessions_service() noexcept {
  PNMPI_Service_descriptor_t d;
  std::memset(&d, 0, sizeof d);
  std::strncpy(d.name, PNMPI_MONITOR_SERVICE, sizeof d.name - 1);
  std::strncpy(d.sig, PNMPI_MONITOR_SERVICE_SIG, sizeof d.sig - 1);
  d.fct = reinterpret_cast<PNMPI_Service_Fct_t>(reinterpret_cast<void (*)(void)>(&sessions_api));
  const PNMPI_status_t rc = PNMPI_Service_RegisterService(&d);
  if (rc != PNMPI_SUCCESS)
    report_error(std::string("cannot publish the sessions service: ") +
                 PNMPI_Service_StatusString(rc));
}

void sessions_at_finalize() noexcept {
  table().close();
}

void sessions_comm_freed(MPI_Comm comm) noexcept {
  try {
    table().comm_freed(comm);
  } catch (...) {
  }
}

unsigned long sessions_bytes() noexcept {
  try {
    return table().bytes();
  } catch (...) {
    return 0;
  }
}

} // namespace pnmpi::monitor
