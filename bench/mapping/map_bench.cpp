// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi_map_place on synthetic jobs: a 3-D torus stencil (6 neighbours, 64 KiB each way) and
// an allreduce recorded as recursive-doubling partners (8 bytes), as the monitor's synthetic
// benchmark builds its halo; ranks dealt round-robin onto hosts of C slots (--map-by node,
// the worst case for a stencil). Prints per size the median and spread of REPEATS runs in
// wall-clock seconds, and the share of bytes crossing hosts before and after.
//   map_bench [REPEATS [SLOTS_PER_HOST [N...]]]   (defaults: 5, 16, 64 1024 16384)
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <pnmpi/mapping.h>

namespace {

std::array<int64_t, 3> dims_of(int64_t n) {
  std::array<int64_t, 3> d{1, 1, 1};
  for (int64_t f = 2; n > 1;) {
    if (n % f == 0) {
      *std::min_element(d.begin(), d.end()) *= f;
      n /= f;
    } else {
      ++f;
    }
  }
  return d;
}

pnmpi_map_matrix *synthetic(int64_t n) {
  std::array<int64_t, 3> d = dims_of(n);
  std::vector<int64_t> xadj{0}, adj;
  std::vector<uint64_t> bytes;
  for (int64_t r = 0; r < n; ++r) {
    int64_t x = r / (d[1] * d[2]), y = (r / d[2]) % d[1], z = r % d[2];
    auto id = [&](int64_t a, int64_t b, int64_t c) {
      return ((a + d[0]) % d[0]) * d[1] * d[2] + ((b + d[1]) % d[1]) * d[2] + (c + d[2]) % d[2];
    };
    for (int64_t s : {-1, 1})
      for (int64_t peer : {id(x + s, y, z), id(x, y + s, z), id(x, y, z + s)})
        if (peer != r) {
          adj.push_back(peer);
          bytes.push_back(65536);
        }
    for (int64_t b = 1; b < n; b <<= 1)
      if ((r ^ b) < n) {
        adj.push_back(r ^ b);
        bytes.push_back(8);
      }
    xadj.push_back(static_cast<int64_t>(adj.size()));
  }
  pnmpi_map_matrix *m = nullptr;
  char err[256];
  if (pnmpi_map_matrix_from_csr(n, xadj.data(), adj.data(), bytes.data(), &m, err, sizeof err)) {
    std::fprintf(stderr, "map_bench: %s\n", err);
    std::exit(1);
  }
  return m;
}

} // namespace

int main(int argc, char **argv) {
  int repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  int per_host = argc > 2 ? std::atoi(argv[2]) : 16;
  std::vector<int64_t> sizes;
  for (int k = 3; k < argc; ++k)
    sizes.push_back(std::atoll(argv[k]));
  if (sizes.empty())
    sizes = {64, 1024, 16384};
  if (repeats < 1 || per_host < 1) {
    std::fprintf(stderr, "usage: map_bench [REPEATS [SLOTS_PER_HOST [N...]]]\n");
    return 2;
  }
  std::printf("%8s %6s %10s %10s %10s %9s %9s  %s\n", "ranks", "hosts", "median_s", "min_s",
              "max_s", "cross_0", "cross_1", "method");
  for (int64_t n : sizes) {
    pnmpi_map_matrix *m = synthetic(n);
    int64_t hosts = (n + per_host - 1) / per_host;
    std::vector<int32_t> slot_host(static_cast<size_t>(n)), order(static_cast<size_t>(n));
    for (int64_t p = 0; p < n; ++p)
      slot_host[p] = static_cast<int32_t>(p % hosts);
    std::vector<double> secs;
    char err[256];
    for (int k = 0; k < repeats; ++k) {
      auto t0 = std::chrono::steady_clock::now();
      if (pnmpi_map_place(m, n, slot_host.data(), order.data(), err, sizeof err)) {
        std::fprintf(stderr, "map_bench: %s\n", err);
        return 1;
      }
      secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(secs.begin(), secs.end());
    double total = static_cast<double>(pnmpi_map_matrix_total(m));
    double before = static_cast<double>(pnmpi_map_crossing_bytes(m, n, slot_host.data(), nullptr));
    double after =
        static_cast<double>(pnmpi_map_crossing_bytes(m, n, slot_host.data(), order.data()));
    std::printf("%8lld %6lld %10.4f %10.4f %10.4f %8.1f%% %8.1f%%  %s\n", static_cast<long long>(n),
                static_cast<long long>(hosts), secs[secs.size() / 2], secs.front(), secs.back(),
                100 * before / total, 100 * after / total, pnmpi_map_last_method());
    std::fflush(stdout);
    pnmpi_map_matrix_free(m);
  }
  return 0;
}
