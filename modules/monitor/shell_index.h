// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "memory.h"

namespace pnmpi::monitor {

/// Maps a nonzero key (a world rank + 1, or the bits of an MPI handle) to a node, with
/// lock-free lookups for the hot path. `Node` has a member `std::atomic<std::uintptr_t> key`
/// and is default-constructible.
///
/// Invariants:
/// - Writers (claim, erase) hold the owner's mutex; find() takes no lock and no atomic RMW.
/// - Open addressing with linear probing; the slot array is at most half full, so a probe
///   always ends at an empty slot.
/// - A node, once in a slot, is never freed while the index lives: erase() only sets its key
///   to 0 ("dead"), and a later claim() of another key recycles it. A reader racing with an
///   erase or a recycle of some other key therefore reads a valid node's key and moves on.
///   A node's other fields are written before its key is published (release) and read after
///   the key matched (acquire); they change only while the key is 0.
/// - Growth builds a new array from the live nodes and publishes it; the old array stays
///   allocated (readers may still walk it) until the index is destroyed. A new array is at
///   least four times the live count, so retired arrays add up to a constant factor.
template <class Node> class ShellIndex {
public:
  ShellIndex() = default;
  ShellIndex(const ShellIndex &) = delete;
  ShellIndex &operator=(const ShellIndex &) = delete;
  ~ShellIndex() {
    for (Array *a : m_retired)
      destroy(a);
    destroy(m_array.load(std::memory_order_relaxed));
    for (Node *n : m_nodes)
      delete n;
  }

  /// The live node for `key`, or nullptr. Lock-free.
  Node *find(std::uintptr_t key) const noexcept {
    const Array *a = m_array.load(std::memory_order_acquire);
    if (a == nullptr)
      return nullptr;
    for (std::size_t i = slot_of(key, a->shift);; i = (i + 1) & a->mask) {
      Node *n = a->slots[i].load(std::memory_order_acquire);
      if (n == nullptr)
        return nullptr;
      if (n->key.load(std::memory_order_acquire) == key)
        return n;
    }
  }

  /// Under the owner's mutex: a node for `key` whose fields the caller fills and then
  /// publishes with publish(node, key). Returns the live node if `key` is present already
  /// (then *fresh is false). May throw std::bad_alloc (nothing changed then).
  Node *claim(std::uintptr_t key, bool *fresh) {
    if (Node *live = find(key)) {
      *fresh = false;
      return live;
    }
    *fresh = true;
    Array *a = m_array.load(std::memory_order_relaxed);
    if (a == nullptr || 2 * (m_used + 1) > a->mask + 1) {
      a = grow();
    }
    // Recycle a dead node on this key's probe path, else take the first empty slot.
    std::size_t i = slot_of(key, a->shift);
    for (;; i = (i + 1) & a->mask) {
      Node *n = a->slots[i].load(std::memory_order_relaxed);
      if (n == nullptr)
        break;
      if (n->key.load(std::memory_order_relaxed) == 0) {
        ++m_live;
        return n;
      }
    }
    Node *n = take_node(key);
    m_pending_slot = &a->slots[i];
    ++m_used;
    ++m_live;
    m_pending = n;
    return n;
  }

  /// Under the owner's mutex: makes a node returned by claim() visible under `key`.
  void publish(Node *n, std::uintptr_t key) noexcept {
    n->key.store(key, std::memory_order_release);
    if (n == m_pending) {
      m_pending_slot->store(n, std::memory_order_release);
      m_pending = nullptr;
      m_pending_slot = nullptr;
    }
  }

  /// Under the owner's mutex: marks `key`'s node dead and returns it (its fields may then be
  /// released), or nullptr if absent.
  Node *erase(std::uintptr_t key) noexcept {
    Node *n = find(key);
    if (n == nullptr)
      return nullptr;
    n->key.store(0, std::memory_order_release);
    --m_live;
    return n;
  }

  /// Under the owner's mutex (or when no writer runs): calls f(node) for every live node.
  template <class F> void for_each(F &&f) const {
    const Array *a = m_array.load(std::memory_order_acquire);
    if (a == nullptr)
      return;
    for (std::size_t i = 0; i <= a->mask; ++i) {
      Node *n = a->slots[i].load(std::memory_order_acquire);
      if (n != nullptr && n->key.load(std::memory_order_acquire) != 0)
        f(*n);
    }
  }

  std::size_t live() const noexcept { return m_live; }

  /// Nodes of new keys come from `make(key)` when it gives one (storage that outlives the
  /// index, which never deletes it), else from the heap. For an index whose keys are never
  /// erased (a recycled node would keep its first key's storage).
  void set_node_source(Node *(*make)(std::uintptr_t key) noexcept) noexcept { m_make = make; }

private:
  struct Array {
    std::size_t mask;
    unsigned shift;
    std::unique_ptr<std::atomic<Node *>[]> slots;
  };

  static std::size_t slot_of(std::uintptr_t key, unsigned shift) noexcept {
    // Fibonacci hashing: the top bits of the product depend on every bit of the key, so
    // aligned pointers and consecutive integers spread alike.
    return static_cast<std::size_t>((static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull) >>
                                    shift);
  }

  static std::size_t array_bytes(std::size_t capacity) noexcept {
    return sizeof(Array) + capacity * sizeof(std::atomic<Node *>);
  }

  void destroy(Array *a) noexcept {
    if (a == nullptr)
      return;
    track_free(array_bytes(a->mask + 1));
    delete a;
  }

  Node *take_node(std::uintptr_t key) {
    if (m_make != nullptr)
      if (Node *n = m_make(key)) {
        track_alloc(sizeof(Node));
        return n;
      }
    if (!m_free.empty()) {
      Node *n = m_free.back();
      m_free.pop_back();
      return n;
    }
    m_nodes.reserve(m_nodes.size() + 1);
    Node *n = new Node();
    m_nodes.push_back(n);
    track_alloc(sizeof(Node));
    return n;
  }

  Array *grow() {
    std::size_t capacity = 16;
    while (capacity < 4 * (m_live + 1))
      capacity *= 2;
    auto fresh = std::make_unique<Array>();
    fresh->mask = capacity - 1;
    fresh->shift = 64u - static_cast<unsigned>(__builtin_ctzll(capacity));
    fresh->slots = std::make_unique<std::atomic<Node *>[]>(capacity);
    for (std::size_t i = 0; i < capacity; ++i)
      fresh->slots[i].store(nullptr, std::memory_order_relaxed);
    m_retired.reserve(m_retired.size() + 1);
    std::vector<Node *> dead;
    std::size_t used = 0;
    if (Array *old = m_array.load(std::memory_order_relaxed)) {
      for (std::size_t i = 0; i <= old->mask; ++i) {
        Node *n = old->slots[i].load(std::memory_order_relaxed);
        if (n == nullptr)
          continue;
        const std::uintptr_t key = n->key.load(std::memory_order_relaxed);
        if (key == 0) {
          dead.push_back(n);
          continue;
        }
        std::size_t j = slot_of(key, fresh->shift);
        while (fresh->slots[j].load(std::memory_order_relaxed) != nullptr)
          j = (j + 1) & fresh->mask;
        fresh->slots[j].store(n, std::memory_order_relaxed);
        ++used;
      }
    }
    m_free.reserve(m_free.size() + dead.size());
    track_alloc(array_bytes(capacity));
    Array *a = fresh.release();
    if (Array *old = m_array.exchange(a, std::memory_order_acq_rel))
      m_retired.push_back(old);
    m_free.insert(m_free.end(), dead.begin(), dead.end());
    m_used = used;
    return a;
  }

  std::atomic<Array *> m_array{nullptr};
  std::vector<Array *> m_retired;
  std::vector<Node *> m_nodes; ///< every node ever made (freed with the index)
  std::vector<Node *> m_free;  ///< dead nodes no longer in any current slot
  std::size_t m_used = 0;      ///< non-empty slots of the current array
  std::size_t m_live = 0;
  Node *m_pending = nullptr;
  Node *(*m_make)(std::uintptr_t key) noexcept = nullptr;
  std::atomic<Node *> *m_pending_slot = nullptr;
};

} // namespace pnmpi::monitor
