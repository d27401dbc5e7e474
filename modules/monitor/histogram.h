// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>

namespace pnmpi::monitor {

/// Bins of a message-size histogram, as in Open MPI's monitoring output.
constexpr unsigned kHistogramBins = 66;

/// The histogram bin of a message of `bytes` bytes: 0 for an empty message, else
/// 1 + floor(log2(bytes)). A 64-bit size reaches bin 64 at most; bin 65 exists only so that
/// the output has Open MPI's 66 columns.
constexpr unsigned size_bin(std::uint64_t bytes) noexcept {
  return bytes == 0 ? 0u : 64u - static_cast<unsigned>(__builtin_clzll(bytes));
}

} // namespace pnmpi::monitor
