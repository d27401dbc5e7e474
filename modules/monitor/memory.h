// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <atomic>
#include <cstddef>

namespace pnmpi::monitor {

/// Bytes the monitor holds on the heap for its tables (peers, communicator and window
/// translations, indexes, per-communicator statistics, persistent requests, sessions):
/// what the summary reports as memory per rank. Updated off the hot path only.
inline std::atomic<std::size_t> g_heap_bytes{0};

inline void track_alloc(std::size_t bytes) noexcept {
  g_heap_bytes.fetch_add(bytes, std::memory_order_relaxed);
}
inline void track_free(std::size_t bytes) noexcept {
  g_heap_bytes.fetch_sub(bytes, std::memory_order_relaxed);
}

} // namespace pnmpi::monitor
