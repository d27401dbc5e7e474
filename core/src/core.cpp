// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "core.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>

#include "dispatch.h"
#include "error.h"
#include "log.h"

extern "C" {
PNMPI_INTERNAL uint64_t pnmpi_mask[PNMPI_MASK_WORDS];
PNMPI_INTERNAL pnmpi_fn_any pnmpi_head[PNMPI_NUM_ROUTINES];
}

namespace pnmpi {

namespace {

/// Routines whose calls from a module never go to the next module but straight to the
/// core's own handling (listed as `manual` in stub-gen/exceptions.txt): MPI_Pcontrol is
/// delivered by the core to every module that wraps it, so a module's PMPI_Pcontrol
/// ends its own delivery.
std::vector<bool> to_bottom_routines() {
  std::vector<bool> marks(PNMPI_NUM_ROUTINES, false);
  marks[PNMPI_ID_MPI_Pcontrol] = true;
  return marks;
}

} // namespace

} // namespace pnmpi

extern "C" int XMPI_Pcontrol(const int level, ...);

namespace pnmpi {

Core &Core::instance() {
  static Core core;
  return core;
}

void Core::load() {
  const auto start = std::chrono::steady_clock::now();
  m_bottom.resize(PNMPI_NUM_ROUTINES);
  for (unsigned id = 0; id < PNMPI_NUM_ROUTINES; ++id)
    m_bottom[id] = reinterpret_cast<std::uintptr_t>(pnmpi_pmpi_table[id]);
  m_bottom[PNMPI_ID_MPI_Pcontrol] = reinterpret_cast<std::uintptr_t>(&XMPI_Pcontrol);

  const std::optional<std::string> path = find_config_file();
  if (!path) {
    debug(1, "no configuration file ($PNMPI_CONF, ./.pnmpi-conf, ~/.pnmpi-conf): no modules, "
             "every MPI call goes straight to MPI");
    m_loaded = true;
    return;
  }
  m_config = load_config_file(*path);
  debug(1, "configuration " + *path + ": " + std::to_string(m_config.modules.size()) +
               " module line(s)");

  const RoutineIndex routines(pnmpi_routine_names, PNMPI_NUM_ROUTINES);
  const std::vector<std::string> search_path = module_search_path();
  std::map<std::string, ModuleFile *> by_path;
  CopyDirectory copies;
  m_layers.reserve(m_config.modules.size());
  for (const ModuleSpec &spec : m_config.modules) {
    const std::string file_path = resolve_module(spec, m_config, search_path);
    ModuleFile *&file = by_path[file_path];
    if (file == nullptr) {
      m_files.push_back(read_module_file(file_path, spec, m_config, routines));
      file = m_files.back().get();
    }
    const int index = static_cast<int>(m_layers.size());
    m_layers.push_back({&spec, load_module_copy(*file, spec, m_config, copies, index)});
    debug(2, "layer " + std::to_string(m_layers.size() - 1) + ": module '" + spec.name + "' from " +
                 file_path + " (" + std::to_string(file->image.wrappers.size()) +
                 " wrappers, copy " + std::to_string(file->loaded) + ")");
  }

  std::vector<LayerView> views;
  views.reserve(m_layers.size());
  for (const Layer &layer : m_layers) {
    views.push_back({layer.spec->stack, layer.module.base, &layer.module.file->image});
    for (const ElfImage::Range &r : layer.module.file->image.code)
      m_code.push_back({layer.module.base + r.begin, layer.module.base + r.end,
                        static_cast<int>(&layer - m_layers.data())});
  }
  std::sort(m_code.begin(), m_code.end(),
            [](const CodeRange &a, const CodeRange &b) { return a.begin < b.begin; });

  m_stacks = build_link_stacks(views, PNMPI_NUM_ROUTINES, static_cast<int>(m_config.stacks.size()),
                               m_bottom);
  bind_call_sites(views, m_stacks, m_bottom, to_bottom_routines());

  // Publish the default stack to the stub last: from here on routed calls take effect.
  for (unsigned id = 0; id < PNMPI_NUM_ROUTINES; ++id) {
    if (m_stacks.chains[0][id].empty())
      continue;
    pnmpi_head[id] = reinterpret_cast<pnmpi_fn_any>(m_stacks.heads[0][id]);
    pnmpi_bit_set(pnmpi_mask, id);
  }
  if (debug_level() >= 3) {
    for (unsigned id = 0; id < PNMPI_NUM_ROUTINES; ++id) {
      if (m_stacks.chains[0][id].empty())
        continue;
      std::string line = std::string(pnmpi_routine_names[id]) + ":";
      for (const LinkStacks::Entry &e : m_stacks.chains[0][id])
        line += " " + m_layers[e.layer].spec->name + "[" + std::to_string(e.layer) + "]";
      debug(3, line + " -> MPI");
    }
  }
  m_loaded = true;
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  debug(1, "loaded " + std::to_string(m_layers.size()) + " layer(s) from " +
               std::to_string(m_files.size()) + " file(s) in " + std::to_string(us) + " us");

  call_hook("PNMPI_RegistrationPoint");
  call_hook("PNMPI_Init");
}

void Core::call_hook(const char *name) {
  for (std::size_t i = 0; i < m_layers.size(); ++i) {
    const Layer &layer = m_layers[i];
    const auto &syms = layer.module.file->image.pnmpi_syms;
    auto it = syms.find(name);
    if (it == syms.end())
      continue;
    auto hook = reinterpret_cast<void (*)()>(layer.module.base + it->second);
    m_hook_layer = static_cast<int>(i);
    hook();
    m_hook_layer = -1;
  }
}

void Core::finalize() {
  call_hook("PNMPI_Fini");
}

int Core::layer_at(const void *address) const {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  auto it = std::upper_bound(m_code.begin(), m_code.end(), a,
                             [](std::uintptr_t v, const CodeRange &r) { return v < r.begin; });
  if (it == m_code.begin())
    return -1;
  --it;
  return a < it->end ? it->layer : -1;
}

} // namespace pnmpi

using pnmpi::Core;

extern "C" {

void pnmpi_core_load(void) {
  // Entered from the load-point routines (MPI_Init, MPI_Init_thread, MPI_Session_init,
  // MPI_T_init_thread), which a program may call from several threads or more than once.
  static std::atomic<bool> done{false};
  static std::mutex lock;
  if (done.load(std::memory_order_acquire))
    return;
  std::lock_guard<std::mutex> guard(lock);
  if (done.load(std::memory_order_relaxed))
    return;
  try {
    Core::instance().load();
  } catch (const pnmpi::Error &e) {
    pnmpi::fatal(e.what());
  } catch (const std::exception &e) {
    pnmpi::fatal(std::string("internal error while loading modules: ") + e.what());
  }
  done.store(true, std::memory_order_release);
}

void pnmpi_core_finalize(void) {
  static std::atomic<bool> done{false};
  if (done.exchange(true))
    return;
  Core::instance().finalize();
}

pnmpi_fn_any pnmpi_next_by_caller(unsigned id, const void *return_address) {
  const Core &core = Core::instance();
  const int layer = core.layer_at(return_address);
  if (layer < 0) // not called from a module: enter the routine's chain from the top
    return pnmpi_routine_wrapped(id) ? pnmpi_head[id] : pnmpi_pmpi_table[id];
  const int stack = core.layers()[layer].spec->stack;
  return reinterpret_cast<pnmpi_fn_any>(
      core.stacks().next_after(stack, layer, id, core.bottom()[id]));
}

pnmpi_fn_any pnmpi_stack_head(int stack, unsigned id) {
  const Core &core = Core::instance();
  if (stack < 0 || stack >= static_cast<int>(core.stacks().heads.size()))
    pnmpi::fatal("XMPI_" + std::string(pnmpi_routine_names[id] + 4) +
                 "_NewStack: there is no stack with handle " + std::to_string(stack));
  return reinterpret_cast<pnmpi_fn_any>(core.stacks().heads[stack][id]);
}

void pnmpi_pcontrol_deliver(int stack, int level) {
  using Pcontrol = int (*)(const int, ...);
  const Core &core = Core::instance();
  if (stack < 0 || stack >= static_cast<int>(core.stacks().chains.size()))
    return;
  for (const pnmpi::LinkStacks::Entry &e : core.stacks().chains[stack][PNMPI_ID_MPI_Pcontrol])
    reinterpret_cast<Pcontrol>(e.address)(level);
}

} // extern "C"
