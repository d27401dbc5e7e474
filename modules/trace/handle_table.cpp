// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The lock-free handle tables (trace.h, HandleTable): requests, persistent requests and
// matched messages, from their issue to their completion.

#include "trace.h"

#include <algorithm>
#include <cstdlib>
#include <type_traits>

namespace pnmpi::trace {

template <class Value> bool HandleTable<Value>::init(std::size_t capacity) noexcept {
  std::size_t n = kWindow;
  unsigned bits = 5;
  while (n < capacity && bits < 40) {
    n <<= 1;
    ++bits;
  }
  static_assert(std::is_trivially_copyable<Value>::value, "table values are copied as bytes");
  // calloc: the kernel gives zeroed pages when they are first touched, so a generous
  // capacity costs address space, not memory, until the slots are used.
  m_keys = static_cast<std::atomic<std::uint64_t> *>(std::calloc(n, sizeof *m_keys));
  m_slots = static_cast<Slot *>(std::calloc(n, sizeof *m_slots));
  if (m_keys == nullptr || m_slots == nullptr) {
    std::free(m_keys);
    std::free(m_slots);
    m_keys = nullptr;
    m_slots = nullptr;
    return false;
  }
  m_mask = n - 1;
  m_shift = 64 - bits;
  return true;
}

template <class Value>
bool HandleTable<Value>::insert(std::uint64_t key, const Value &value) noexcept {
  if (m_keys == nullptr || key <= kBusy)
    return false;
  if (!m_used.load(std::memory_order_relaxed))
    m_used.store(true, std::memory_order_relaxed);
  const std::size_t h = home(key);
  for (std::size_t i = 0; i < kWindow; ++i) {
    std::atomic<std::uint64_t> &k = m_keys[(h + i) & m_mask];
    std::uint64_t expected = kFree;
    // Acquire: the previous owner's reads of this slot happen before our writes.
    if (k.load(std::memory_order_relaxed) == kFree &&
        k.compare_exchange_strong(expected, kBusy, std::memory_order_acquire,
                                  std::memory_order_relaxed)) {
      Slot &s = m_slots[(h + i) & m_mask];
      s.value = value;
      s.stamp.store(m_order.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      k.store(key, std::memory_order_release);
      return true;
    }
  }
  return false;
}

template <class Value> std::uint64_t HandleTable<Value>::newest(std::uint64_t key) const noexcept {
  if (m_keys == nullptr || key <= kBusy)
    return 0;
  const std::size_t h = home(key);
  std::uint64_t best = 0;
  for (std::size_t i = 0; i < kWindow; ++i) {
    const std::size_t at = (h + i) & m_mask;
    if (m_keys[at].load(std::memory_order_acquire) == key)
      best = std::max(best, m_slots[at].stamp.load(std::memory_order_relaxed));
  }
  return best;
}

template <class Value>
std::size_t HandleTable<Value>::claim(std::uint64_t key, std::uint64_t order) noexcept {
  if (m_keys == nullptr || key <= kBusy)
    return SIZE_MAX;
  const std::size_t h = home(key);
  if (order != 0) {
    for (std::size_t i = 0; i < kWindow; ++i) {
      const std::size_t at = (h + i) & m_mask;
      if (m_keys[at].load(std::memory_order_acquire) != key ||
          m_slots[at].stamp.load(std::memory_order_relaxed) != order)
        continue;
      std::uint64_t expected = key;
      if (!m_keys[at].compare_exchange_strong(expected, kBusy, std::memory_order_acquire,
                                              std::memory_order_relaxed))
        break;
      // Ours now; still the entry asked for unless it was taken and the slot reused.
      if (m_slots[at].stamp.load(std::memory_order_relaxed) == order)
        return at;
      m_keys[at].store(key, std::memory_order_release);
      break;
    }
  }
  // Retried only when another thread claimed the chosen slot between the scan and the CAS.
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::size_t best = SIZE_MAX;
    std::uint64_t best_stamp = UINT64_MAX;
    for (std::size_t i = 0; i < kWindow; ++i) {
      const std::size_t at = (h + i) & m_mask;
      if (m_keys[at].load(std::memory_order_acquire) != key)
        continue;
      const std::uint64_t stamp = m_slots[at].stamp.load(std::memory_order_relaxed);
      if (best == SIZE_MAX || stamp < best_stamp) {
        best = at;
        best_stamp = stamp;
      }
    }
    if (best == SIZE_MAX)
      return SIZE_MAX;
    std::uint64_t expected = key;
    if (m_keys[best].compare_exchange_strong(expected, kBusy, std::memory_order_acquire,
                                             std::memory_order_relaxed))
      return best;
  }
  return SIZE_MAX;
}

template <class Value>
bool HandleTable<Value>::take(std::uint64_t key, std::uint64_t order, Value *out) noexcept {
  const std::size_t at = claim(key, order);
  if (at == SIZE_MAX)
    return false;
  *out = m_slots[at].value;
  m_keys[at].store(kFree, std::memory_order_release);
  return true;
}

template <class Value> bool HandleTable<Value>::find(std::uint64_t key, Value *out) noexcept {
  const std::size_t at = claim(key, 0);
  if (at == SIZE_MAX)
    return false;
  *out = m_slots[at].value;
  m_keys[at].store(key, std::memory_order_release);
  return true;
}

// The wrapper files use the tables through trace.h's inline functions.
template class HandleTable<Pending>;
template class HandleTable<Persistent>;
template class HandleTable<MessageComm>;

} // namespace pnmpi::trace
