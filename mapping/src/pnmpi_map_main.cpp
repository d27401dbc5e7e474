// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi-map RUN SLOTS: the placement libpnmpi_mapping computes for a run's matrix on a job's
// launch slots, as `module place`, MPI_M_reorder and pnmpi-report compute it.
//   SLOTS: the host index of every slot, comma-separated (0,0,1,1); or NxC, N hosts of C
//   slots filled in order (--map-by slot); or rr:NxC, the same slots dealt round-robin
//   (--map-by node).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <pnmpi/mapping.h>

namespace {

bool parse_slots(const std::string &spec, std::vector<int32_t> &out) {
  bool rr = spec.compare(0, 3, "rr:") == 0;
  std::string s = rr ? spec.substr(3) : spec;
  unsigned n = 0, c = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%ux%u%c", &n, &c, &tail) == 2 && n > 0 && c > 0 &&
      static_cast<uint64_t>(n) * c <= (1u << 24)) {
    for (unsigned p = 0; p < n * c; ++p)
      out.push_back(static_cast<int32_t>(rr ? p % n : p / c));
    return true;
  }
  if (rr || s.empty())
    return false;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char *end = nullptr;
    long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0 || v > INT32_MAX)
      return false;
    out.push_back(static_cast<int32_t>(v));
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3 || std::strcmp(argv[1], "--help") == 0) {
    std::fprintf(stderr, "usage: pnmpi-map RUN SLOTS\n"
                         "  RUN: the monitor's PREFIX, PREFIX.json, .prof files' prefix or a "
                         "directory\n"
                         "  SLOTS: host index of every launch slot (0,0,1,1), NxC (filled in "
                         "order) or rr:NxC (round-robin)\n");
    return 2;
  }
  std::vector<int32_t> hosts;
  if (!parse_slots(argv[2], hosts)) {
    std::fprintf(stderr,
                 "pnmpi-map: SLOTS must be host indices (0,0,1,1), NxC or rr:NxC, not '%s'\n",
                 argv[2]);
    return 2;
  }
  char err[1024];
  pnmpi_map_matrix *m = nullptr;
  if (pnmpi_map_load_run(argv[1], &m, err, sizeof err) != 0) {
    std::fprintf(stderr, "pnmpi-map: %s\n", err);
    return 1;
  }
  std::vector<int32_t> order(hosts.size());
  int64_t n = static_cast<int64_t>(hosts.size());
  if (pnmpi_map_place(m, n, hosts.data(), order.data(), err, sizeof err) != 0) {
    std::fprintf(stderr, "pnmpi-map: %s\n", err);
    pnmpi_map_matrix_free(m);
    return 1;
  }
  std::printf("ranks: %lld\n", static_cast<long long>(n));
  std::printf("total_bytes: %llu\n", static_cast<unsigned long long>(pnmpi_map_matrix_total(m)));
  std::printf(
      "launch_order_crossing: %llu\n",
      static_cast<unsigned long long>(pnmpi_map_crossing_bytes(m, n, hosts.data(), nullptr)));
  std::printf("placed_crossing: %llu\n", static_cast<unsigned long long>(pnmpi_map_crossing_bytes(
                                             m, n, hosts.data(), order.data())));
  std::printf("method: %s\n", pnmpi_map_last_method());
  std::printf("rank_of_slot:");
  for (int64_t p = 0; p < n; ++p)
    std::printf("%s%d", p ? "," : " ", order[p]);
  std::printf("\n");
  pnmpi_map_matrix_free(m);
  return 0;
}
