// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstddef>
#include <vector>

#include "memory.h"

namespace pnmpi::monitor {

/// Translates the ranks of one group (a communicator's, or a window's) to MPI_COMM_WORLD
/// ranks, computed once when the monitor first meets the communicator. A group whose world
/// ranks form an arithmetic sequence (MPI_COMM_WORLD and its duplicates, blocks and strides
/// of it) needs no table: world = base + stride * rank. Other groups keep one int per rank.
class RankMap {
public:
  RankMap() = default;
  RankMap(const RankMap &) = delete;
  RankMap &operator=(const RankMap &) = delete;
  ~RankMap() { reset(); }

  /// Takes the world rank of every group rank, in group order.
  void assign(const std::vector<int> &world_ranks) {
    reset();
    m_size = static_cast<int>(world_ranks.size());
    m_base = m_size > 0 ? world_ranks[0] : 0;
    m_stride = m_size > 1 ? world_ranks[1] - world_ranks[0] : 1;
    bool affine = true;
    for (int r = 0; r < m_size && affine; ++r)
      affine = world_ranks[static_cast<std::size_t>(r)] == m_base + m_stride * r;
    if (affine)
      return;
    m_table = new int[world_ranks.size()];
    for (std::size_t r = 0; r < world_ranks.size(); ++r)
      m_table[r] = world_ranks[r];
    track_alloc(bytes());
  }

  /// Frees the table (the communicator or window is gone).
  void reset() noexcept {
    if (m_table != nullptr) {
      track_free(bytes());
      delete[] m_table;
      m_table = nullptr;
    }
    m_size = 0;
    m_base = 0;
    m_stride = 1;
  }

  int size() const noexcept { return m_size; }
  /// The world rank of group rank `r` (0 <= r < size()).
  int world(int r) const noexcept {
    return m_table != nullptr ? m_table[r] : m_base + m_stride * r;
  }
  bool has_table() const noexcept { return m_table != nullptr; }
  std::size_t bytes() const noexcept {
    return m_table != nullptr ? sizeof(int) * static_cast<std::size_t>(m_size) : 0;
  }

private:
  int m_size = 0;
  int m_base = 0;
  int m_stride = 1;
  int *m_table = nullptr;
};

} // namespace pnmpi::monitor
