// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#include "matrix.h"

#include <algorithm>

#include <pnmpi/mapping.h>

namespace pnmpi::mapping {

Matrix build_matrix(int64_t n, std::vector<Cell> cells) {
  std::sort(cells.begin(), cells.end(), [](const Cell &a, const Cell &b) {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  });
  Matrix m;
  m.n = n;
  m.xadj.assign(static_cast<size_t>(n) + 1, 0);
  for (size_t k = 0; k < cells.size();) {
    const Cell &c = cells[k];
    uint64_t sum = 0;
    size_t j = k;
    for (; j < cells.size() && cells[j].src == c.src && cells[j].dst == c.dst; ++j) {
      uint64_t add = cells[j].bytes;
      sum = sum > UINT64_MAX - add ? UINT64_MAX : sum + add;
    }
    if (sum != 0) {
      m.adj.push_back(c.dst);
      m.bytes.push_back(sum);
      ++m.xadj[static_cast<size_t>(c.src) + 1];
    }
    k = j;
  }
  for (int64_t i = 0; i < n; ++i)
    m.xadj[i + 1] += m.xadj[i];
  return m;
}

uint64_t crossing(const Matrix &m, const std::vector<int32_t> &host_of_rank) {
  uint64_t sum = 0;
  for (int64_t i = 0; i < m.n; ++i)
    for (int64_t k = m.xadj[i]; k < m.xadj[i + 1]; ++k)
      if (host_of_rank[i] != host_of_rank[m.adj[k]])
        sum += m.bytes[k];
  return sum;
}

} // namespace pnmpi::mapping
