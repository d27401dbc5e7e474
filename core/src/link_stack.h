// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <vector>

#include "elf_image.h"

namespace pnmpi {

/// One layer as the link stacks see it: which stack it is in, where it was loaded, and what
/// it wraps and calls.
struct LayerView {
  int stack;
  std::uintptr_t base;
  const ElfImage *image;
  /// Its RELRO pages are still writable (a copy pnmpi mapped, protected once bound), so
  /// binding need not open them.
  bool relro_writable = false;
};

/// The per-routine link stacks of every config stack, computed once at load.
struct LinkStacks {
  struct Entry {
    int layer;
    std::uintptr_t address;
  };
  /// The layers of one stack that wrap one routine, in config order.
  class Chain {
  public:
    Chain(const Entry *begin, const Entry *end) : m_begin(begin), m_end(end) {}
    const Entry *begin() const { return m_begin; }
    const Entry *end() const { return m_end; }
    bool empty() const { return m_begin == m_end; }
    std::size_t size() const { return static_cast<std::size_t>(m_end - m_begin); }
    const Entry &operator[](std::size_t i) const { return m_begin[i]; }

  private:
    const Entry *m_begin, *m_end;
  };
  /// heads[stack][routine]: the first layer of the routine in that stack, else `bottom`.
  std::vector<std::vector<std::uintptr_t>> heads;
  /// Every layer that wraps `routine` in `stack`, in config order.
  Chain chain(int stack, unsigned routine) const {
    const std::size_t at = static_cast<std::size_t>(stack) * routines + routine;
    return {entries.data() + starts[at], entries.data() + starts[at + 1]};
  }

  /// The layer after `layer` (in `layer`'s stack) that wraps `routine`, else `bottom`.
  std::uintptr_t next_after(int stack, int layer, unsigned routine, std::uintptr_t bottom) const;

  /// The chains end to end, by stack, then routine, then layer (one array: a module listed
  /// 1,000 times makes 1,000-entry chains for each of its routines, and filling one vector
  /// per chain was a sixth of the load time); chain (stack, routine) is
  /// [starts[stack * routines + routine], starts[... + 1]).
  std::vector<Entry> entries;
  std::vector<std::size_t> starts;
  unsigned routines = 0;
};

/// Computes the link stacks. `bottom[r]` is where routine r's chain ends (MPI's PMPI_X).
LinkStacks build_link_stacks(const std::vector<LayerView> &layers, unsigned routines, int stacks,
                             const std::vector<std::uintptr_t> &bottom);

/// Points every call a layer makes to XMPI_X straight at the next layer that wraps X in the
/// same stack, or at `bottom[X]`; for a routine marked in `to_bottom`, always at `bottom[X]`.
/// A layer's calls by the public name MPI_X go to `top[X]` (the chain from the top, without
/// changing the application's entry). Writes into the loaded modules' relocated words (GOT
/// and data); re-protects RELRO pages. After this a layer costs only its own wrapper: no
/// table walk, no thread-local state. Throws pnmpi::Error if memory cannot be made writable.
void bind_call_sites(const std::vector<LayerView> &layers, std::size_t stack_count,
                     const std::vector<std::uintptr_t> &bottom, const std::vector<bool> &to_bottom,
                     const std::vector<std::uintptr_t> &top);

/// Points every call site of one loaded object (loaded at `base`) at `target[routine]`: how
/// the MPI's own language bindings are made to enter the chain. Throws pnmpi::Error if
/// memory cannot be made writable.
void bind_imports(std::uintptr_t base, const ElfImage &image,
                  const std::vector<std::uintptr_t> &target);

} // namespace pnmpi
