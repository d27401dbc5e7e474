// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// The host of every rank, in each process's part file: the parts of a killed multi-node job
// stay on their nodes, and the report names the host whose parts are missing.

#include <pnmpi/support.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

extern "C" {

int pnmpi_part_hosts(const char *names, size_t stride, int size) {
  if (names == nullptr || stride == 0 || size <= 0)
    return EINVAL;
  std::vector<uint32_t> index(static_cast<size_t>(size));
  std::vector<std::string> hosts;
  try {
    std::unordered_map<std::string, uint32_t> seen;
    for (int r = 0; r < size; ++r) {
      const char *name = names + static_cast<size_t>(r) * stride;
      std::string host(name, strnlen(name, stride));
      host.resize(std::min<size_t>(host.size(), PNMPI_PART_HOST_BYTES - 1));
      auto it = seen.emplace(host, static_cast<uint32_t>(hosts.size())).first;
      if (it->second == hosts.size())
        hosts.push_back(host);
      index[static_cast<size_t>(r)] = it->second;
    }
  } catch (...) {
    return ENOMEM;
  }
  const size_t bytes = sizeof(pnmpi_part_hosts_t) + hosts.size() * PNMPI_PART_HOST_BYTES +
                       index.size() * sizeof(uint32_t);
  auto *region = static_cast<unsigned char *>(pnmpi_part_region("hosts", bytes, 1));
  if (region == nullptr)
    return errno != 0 ? errno : EIO;
  unsigned char *at = region + sizeof(pnmpi_part_hosts_t);
  for (const std::string &h : hosts) {
    std::memcpy(at, h.data(), h.size()); // the region is zeroed: the NUL is there
    at += PNMPI_PART_HOST_BYTES;
  }
  std::memcpy(at, index.data(), index.size() * sizeof(uint32_t));
  pnmpi_part_hosts_t head{};
  head.ranks = static_cast<uint32_t>(size);
  head.hosts = static_cast<uint32_t>(hosts.size());
  head.name_bytes = PNMPI_PART_HOST_BYTES;
  // The counts last: a reader that finds them set finds the tables whole.
  __atomic_thread_fence(__ATOMIC_RELEASE);
  std::memcpy(region, &head, sizeof head);
  return 0;
}

} // extern "C"
