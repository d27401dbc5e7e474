// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The byte streams of what every rank tells rank 0 at MPI_Finalize, and rank 0's replies
// (exchange.cpp: gather and scatter over g.comm).

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace pnmpi::trace {

struct Out {
  std::string bytes;
  void u64(std::uint64_t v) { bytes.append(reinterpret_cast<const char *>(&v), sizeof v); }
  void str(const std::string &s) {
    u64(s.size());
    bytes += s;
  }
  void ints(const std::vector<int> &v) {
    u64(v.size());
    for (int i : v)
      u64(static_cast<std::uint64_t>(static_cast<std::int64_t>(i)));
  }
};

struct In {
  const std::string &bytes;
  std::size_t at = 0;
  std::uint64_t u64() {
    std::uint64_t v = 0;
    if (at + sizeof v <= bytes.size())
      std::memcpy(&v, bytes.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::string str() {
    const std::uint64_t n = u64();
    std::string s = at + n <= bytes.size() ? bytes.substr(at, n) : std::string();
    at += n;
    return s;
  }
  std::vector<int> ints() {
    std::vector<int> v(u64());
    for (int &i : v)
      i = static_cast<int>(static_cast<std::int64_t>(u64()));
    return v;
  }
};

/// Every rank receives its own bytes (`parts`, rank 0's) from rank 0 (collective over g.comm).
std::string scatter(const std::vector<std::string> &parts);

} // namespace pnmpi::trace
