// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "link_stack.h"
#include "module_loader.h"

namespace pnmpi {

/// One layer: a `module` line of the config and the private copy loaded for it.
struct Layer {
  const ModuleSpec *spec;
  LoadedModule module;
};

/// Everything the core knows after loading. Built once by load(); read-only afterwards,
/// which is what lets the per-call paths go without locks.
class Core {
public:
  static Core &instance();

  /// Finds the config, loads and binds every module, fills the dispatch tables, runs the
  /// registration hooks. Throws pnmpi::Error.
  void load();

  /// Runs every layer's PNMPI_Fini hook (from MPI_Finalize, while MPI works).
  void finalize();

  /// The layer whose code contains `address`, or -1.
  int layer_at(const void *address) const;

  bool loaded() const { return m_loaded; }
  const Config &config() const { return m_config; }
  const std::vector<Layer> &layers() const { return m_layers; }
  const LinkStacks &stacks() const { return m_stacks; }
  const std::vector<std::uintptr_t> &bottom() const { return m_bottom; }

  /// The layer whose hook is running, or -1 (hooks are called one at a time).
  int hook_layer() const { return m_hook_layer; }

private:
  void call_hook(const char *name);

  bool m_loaded = false;
  Config m_config;
  std::vector<std::unique_ptr<ModuleFile>> m_files;
  std::vector<Layer> m_layers;
  LinkStacks m_stacks;
  std::vector<std::uintptr_t> m_bottom;
  struct CodeRange {
    std::uintptr_t begin, end;
    int layer;
  };
  std::vector<CodeRange> m_code; ///< sorted by begin
  int m_hook_layer = -1;
};

} // namespace pnmpi
