// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config.h"
#include "layer_plan.h"
#include "link_stack.h"
#include "module_loader.h"

namespace pnmpi {

/// One layer: a `module` line of the config and the private copy loaded for it.
struct Layer {
  const ModuleSpec *spec;
  LoadedModule module;
};

/// What Core::check_arguments() found.
enum CheckResult : int {
  kCheckPassed = 0,     ///< the module's check accepted its arguments
  kCheckFailed = 1,     ///< it refused them (printed), or could not be run (printed)
  kCheckNotOffered = 2, ///< the module exports no pnmpi_module_check (or was not found)
  kCheckNoLayer = 3,    ///< there is no such layer
};

/// Everything the core knows after loading. Built once by load(); read-only afterwards,
/// which is what lets the per-call paths go without locks.
class Core {
public:
  static Core &instance();

  /// Finds the config, loads and binds every module, fills the dispatch tables, runs the
  /// registration hooks. Throws pnmpi::Error.
  void load();

  /// Argument check without MPI (pnmpi-info --check), of layer `layer` (config order):
  /// composes the configuration as load() does (the site's modules whatever its include,
  /// exclude and opt-out rules say), opens the layer's module with dlopen and calls its
  /// pnmpi_module_check with its handle; the module reads its arguments with its own reader,
  /// and every problem is printed on stderr as at MPI_Init, a site module's marked as the
  /// site's. Writes nothing anywhere else. Returns a CheckResult. Throws pnmpi::Error. One
  /// layer per process: a module's check may end its process, as its load would.
  int check_arguments(int layer);
  /// Whether check_arguments() is running.
  bool checking() const { return m_checking; }

  /// The layer whose module file is being opened (its constructors run), or -1.
  int opening_layer() const { return m_opening_layer; }
  /// Ends the job (the process, in check_arguments) because layer opening_layer()'s code
  /// called MPI routine `routine` while its module was being opened: names the module, its
  /// line and its file.
  [[noreturn]] void mpi_called_while_opening(const char *routine) const;

  /// Runs every layer's finalize hooks, PNMPI_Fini then pnmpi_module_finalize (from
  /// MPI_Finalize, while MPI works).
  void finalize();

  /// Runs every layer's PNMPI_UnregistrationPoint hook (at process exit, after MPI).
  void unregister();

  /// The layer whose code contains `address`, or -1.
  int layer_at(const void *address) const;

  /// This build's routine names and ids (pnmpi_routine_names), indexed once.
  static const RoutineIndex &routines();

  bool loaded() const { return m_loaded; }
  /// Whether load() is still running (its hooks included): a failure then is every rank's.
  bool loading() const { return m_loading; }
  const Config &config() const { return m_plan.config; }
  const std::vector<Layer> &layers() const { return m_layers; }
  const LinkStacks &stacks() const { return m_stacks; }
  const std::vector<std::uintptr_t> &bottom() const { return m_bottom; }

  /// Whether layer `layer` was added by the site configuration (docs/site.md).
  bool is_site(int layer) const;
  /// Whether the site policy has disabled layer `layer`.
  bool disabled(int layer) const { return m_disabled[static_cast<std::size_t>(layer)]; }

  /// The site failure policy, the one place it is applied: site layer `layer` cannot go on
  /// because of `message` (complete, `FILE:LINE: module 'M'...`). The first failure of a
  /// layer is said once (site_warning: stderr and the record directory) and disables it:
  /// at load it is unlinked from the link stacks and gets no more hooks; later its module
  /// must stop its work itself (pnmpi_site_failure's contract). `job_wide`: every rank meets
  /// the same failure, so it is said on rank 0 only.
  void site_failure(int layer, const std::string &message, bool job_wide);

  /// The layer whose hook is running, or -1 (hooks are called one at a time).
  int hook_layer() const { return m_hook_layer; }

  /// Where modules were looked for.
  const std::vector<std::string> &search_path() const { return m_plan.search_path; }

  /// Whether MPI_Pcontrol reaches `layer` (its `pcontrol` line and the global mode).
  bool pcontrol_receives(int layer) const;

  /// Per stack, the MPI_Pcontrol wrappers that receive the application's MPI_Pcontrol, in
  /// config order.
  const std::vector<std::vector<std::uintptr_t>> &pcontrol_receivers() const {
    return m_pcontrol_receivers;
  }

  /// Calls exported function `name` (`void name(void)`) of the first layer after `after`
  /// in `stack` that defines it. Returns whether one did.
  bool call_next_hook(const char *name, int stack, int after);

  /// PnMPI's numbering of the handles the module API hands out and takes: the config's
  /// `module` and `stack` lines in order, one number each from 0, so a `stack` line takes a
  /// number too; a stack's handle is the number after its `stack` line (the default stack's
  /// is 0, or 1 after an explicit `stack default` first line). Layers and stacks inside the
  /// core stay indexed densely (layers(), Config::stacks); these translate at the API.
  int module_handle(int layer) const { return m_layer_handles[static_cast<std::size_t>(layer)]; }
  /// The layer with handle `handle`, or -1 (a `stack` line's number, or out of range).
  int layer_of(int handle) const;
  int stack_handle(int stack) const { return m_stack_handles[static_cast<std::size_t>(stack)]; }
  /// The stack with handle `handle`, or -1. 0 is always the default stack.
  int stack_of(int handle) const;

private:
  /// Builds the link stacks from the enabled layers, binds every layer's call sites and
  /// publishes the default stack. `relro_writable`: the mapped copies' RELRO is still open
  /// (the first time).
  void link_layers(const std::vector<std::uintptr_t> &bases, const std::vector<unsigned> &always,
                   bool relro_writable);
  /// The configuration to load: the user's, the site's, both composed, or none; site
  /// problems are said and leave the site out. Throws pnmpi::Error for the user's.
  std::optional<Config> configuration();
  /// The site's configuration for this process (none when it is excluded or opted out; all
  /// of it when `checking`), its problems said as the site policy says them.
  std::optional<Config> site_configuration(bool checking);

  /// Computes the handles above from the config (at load).
  void number_handles();

  /// Calls hook `name` of every layer that defines it, in config order; with_handle: the
  /// hook takes the layer's handle.
  void call_hook(const char *name, bool with_handle = false);
  /// Calls hook `name` of layer `index` if it defines it; returns whether it did.
  bool call_layer_hook(std::size_t index, const char *name, bool with_handle);

  bool m_loaded = false;
  bool m_loading = false;
  bool m_checking = false;
  int m_opening_layer = -1;
  LayerPlan m_plan;
  std::vector<Layer> m_layers;
  LinkStacks m_stacks;
  std::vector<std::uintptr_t> m_bottom;
  struct CodeRange {
    std::uintptr_t begin, end;
    int layer;
  };
  std::vector<CodeRange> m_code; ///< sorted by begin
  int m_hook_layer = -1;
  std::vector<bool> m_disabled; ///< per layer: disabled by the site policy
  std::vector<std::vector<std::uintptr_t>> m_pcontrol_receivers;
  std::vector<int> m_layer_handles;
  std::vector<int> m_stack_handles{0};
  std::vector<int> m_handle_layers;    ///< per handle: its layer, or -1 for a `stack` line
  std::vector<int> m_handle_stacks{0}; ///< per handle: the stack it starts, or -1
};

} // namespace pnmpi

/// For pnmpi-info, which opens libpnmpi in a child process and finds this by dlsym:
/// Core::check_arguments(layer), its problems printed on stderr; kCheckFailed when the
/// configuration could not be composed (said too).
extern "C" __attribute__((visibility("default"))) int pnmpi_check_module_arguments(int layer);
