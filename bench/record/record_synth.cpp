// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// The profile's C++ record writer (modules/profile/record_writer.cpp) on made-up packets of
// a 3-D stencil job of any size, in one process: what rank 0 receives at MPI_Finalize from
// N ranks, with the monitor's traffic. Its output is read back by tests/report/test_record.py
// and bench/record/record_bench.py --cxx.
//
//   record_synth RANKS PATH
#include "record_writer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

// What profile.cpp defines in the module: unused here (write_job_record is not called).
namespace pnmpi::profile {
Region *g_region = nullptr;
SplitRegion *g_split = nullptr;
std::string g_output;
bool g_site = false;
PNMPI_modHandle_t g_self = 0;
std::string record_path(const char *) {
  return std::string();
}
void report_failure(const std::string &message) {
  std::fprintf(stderr, "%s\n", message.c_str());
}
} // namespace pnmpi::profile

using namespace pnmpi::profile;

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: record_synth RANKS PATH\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  if (n < 1 || n > (1 << 22)) {
    std::fprintf(stderr, "record_synth: RANKS must be from 1 to 4194304\n");
    return 2;
  }
  int px = 1;
  while ((px + 1) * (px + 1) * (px + 1) <= n)
    ++px;
  while (n % px)
    --px;
  int py = 1;
  for (int y = 1; y * y <= n / px; ++y)
    if ((n / px) % y == 0)
      py = y;
  const int pz = n / px / py;
  const int iterations = 100, halo = 8 * 64 * 64;
  const struct {
    const char *name;
    int calls_per_neighbour, calls, bytes_per_call;
    double seconds_per_call;
  } routines[] = {{"MPI_Allreduce", 0, iterations, 8, 5e-4},
                  {"MPI_Barrier", 0, 2, 0, 1e-3},
                  {"MPI_Comm_rank", 0, 1, 0, 1e-7},
                  {"MPI_Comm_size", 0, 1, 0, 1e-7},
                  {"MPI_Init", 0, 1, 0, 0.5},
                  {"MPI_Irecv", iterations, 0, halo, 5e-7},
                  {"MPI_Isend", iterations, 0, halo, 1e-6},
                  {"MPI_Waitall", 0, iterations, 0, 2e-3}};
  std::vector<char> all;
  std::vector<int> offsets;
  unsigned seed = 12345;
  auto noise = [&] {
    seed = seed * 1103515245u + 12345u;
    return 0.5 + static_cast<double>((seed >> 8) & 0xFFFF) / 65536.0;
  };
  for (int r = 0; r < n; ++r) {
    const int x = r % px, y = (r / px) % py, z = r / (px * py);
    Traffic t;
    const int d[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (const auto &v : d) {
      const int nx = x + v[0], ny = y + v[1], nz = z + v[2];
      if (nx < 0 || nx >= px || ny < 0 || ny >= py || nz < 0 || nz >= pz)
        continue;
      t.peer.push_back(nx + px * (ny + py * nz));
      t.bytes.push_back(static_cast<uint64_t>(iterations) * halo);
      t.count.push_back(iterations);
    }
    std::vector<int32_t> world(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k)
      world[k] = k;
    t.key.push_back(pnmpi_group_key(world.data(), world.size()));
    t.cbytes.push_back(iterations * 8ull);
    t.ccount.push_back(iterations + 2ull);
    t.first.push_back(r == 0);
    if (r == 0) {
      t.members.push_back(n);
      t.members.insert(t.members.end(), world.begin(), world.end());
    }
    RankHead h{};
    h.wall_s = 60.0 * noise();
    h.init_real_ns = 1800000000ull * 1000000000ull;
    h.end_real_ns = h.init_real_ns + static_cast<uint64_t>(h.wall_s * 1e9);
    std::snprintf(h.host, sizeof h.host, "node%05d", r / 64);
    std::vector<Entry> entries;
    for (const auto &rt : routines) {
      Entry e{};
      for (int id = 0; id < PNMPI_NUM_ROUTINES; ++id)
        if (std::strcmp(profile_routine_names[id], rt.name) == 0)
          e.id = static_cast<uint32_t>(id);
      e.calls = static_cast<uint64_t>(rt.calls + rt.calls_per_neighbour * t.peer.size());
      e.bytes = e.calls * static_cast<uint64_t>(rt.bytes_per_call);
      e.time_s = static_cast<double>(e.calls) * rt.seconds_per_call * noise();
      e.min_s = rt.seconds_per_call * 0.5;
      e.max_s = rt.seconds_per_call * 1.5;
      if (std::strcmp(rt.name, "MPI_Init") != 0)
        h.mpi_s += e.time_s;
      entries.push_back(e);
    }
    h.entries = static_cast<uint32_t>(entries.size());
    h.pad = 1;
    offsets.push_back(static_cast<int>(all.size()));
    const char *hp = reinterpret_cast<const char *>(&h);
    all.insert(all.end(), hp, hp + sizeof h);
    const char *ep = reinterpret_cast<const char *>(entries.data());
    all.insert(all.end(), ep, ep + entries.size() * sizeof(Entry));
    const std::vector<char> more = serialise(t);
    all.insert(all.end(), more.begin(), more.end());
    all.resize((all.size() + 7) / 8 * 8);
  }
  const int rc = write_record(all, offsets, n, argv[2]);
  if (rc != 0) {
    std::fprintf(stderr, "record_synth: cannot write %s: %s\n", argv[2], std::strerror(rc));
    return 1;
  }
  return 0;
}
