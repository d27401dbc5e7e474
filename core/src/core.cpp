// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "core.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <mpi.h>
#include <mutex>
#include <unistd.h>

#include "bindings.h"
#include "compat.h"
#include "copy_loader.h"
#include "dispatch.h"
#include "error.h"
#include "handles.h"
#include "launcher.h"
#include "log.h"
#include "module_path.h"
#include "site.h"

extern "C" {
__thread int pnmpi_entry_id = -1;
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

/// Publishes the default stack to the stub: from here on routed calls take effect, and no
/// routine takes its pending path any more. Heads first, then the mask, word by word.
/// `always`: routines routed to their stack's head even when no layer wraps them, where the
/// head is then their bottom (the banner after MPI_Init).
void publish(const LinkStacks *stacks, const std::vector<unsigned> &always = {}) {
  uint64_t mask[PNMPI_MASK_WORDS] = {};
  for (unsigned id = 0; stacks != nullptr && id < PNMPI_NUM_ROUTINES; ++id) {
    if (stacks->chain(0, id).empty() && std::count(always.begin(), always.end(), id) == 0)
      continue;
    pnmpi_head[id] = reinterpret_cast<pnmpi_fn_any>(stacks->heads[0][id]);
    pnmpi_bit_set(mask, id);
  }
  for (unsigned w = 0; w < PNMPI_MASK_WORDS; ++w)
    __atomic_store_n(&pnmpi_mask[w], mask[w], __ATOMIC_RELEASE);
}

/// Makes the MPI's language bindings loaded so far enter the chain (bindings.h).
void redirect_bindings() {
  static const std::vector<std::uintptr_t> targets = [] {
    std::vector<std::uintptr_t> entry(PNMPI_NUM_ROUTINES), mpi(PNMPI_NUM_ROUTINES);
    for (unsigned id = 0; id < PNMPI_NUM_ROUTINES; ++id) {
      entry[id] = reinterpret_cast<std::uintptr_t>(pnmpi_entry_table[id]);
      mpi[id] = reinterpret_cast<std::uintptr_t>(pnmpi_pmpi_table[id]);
    }
    return binding_targets(pnmpi_routine_names, PNMPI_NUM_ROUTINES, entry, mpi);
  }();
  for (const RedirectedBinding &b :
       redirect_language_bindings(Core::routines(), pnmpi_routine_names, targets))
    debug(2, "MPI language binding " + b.path + ": " + std::to_string(b.sites - b.conversions) +
                 " calls enter the chain, " + std::to_string(b.conversions) +
                 " handle and status conversions go to MPI");
}

/// The directory libpnmpi.so was loaded from: where an install keeps its modules.
std::string own_library_directory() {
#ifdef PNMPI_STATIC_LIBRARY
  // Linked into the program (libpnmpi.a): the program's directory says nothing about where
  // the install is, so the configured module directory is searched.
  return "";
#endif
  Dl_info info;
  if (::dladdr(reinterpret_cast<void *>(&pnmpi_core_load), &info) == 0 || info.dli_fname == nullptr)
    return "";
  return directory_of(info.dli_fname);
}

/// Whether this run prints the banner (banner.cpp decides the rest: rank 0, once).
bool banner_wanted() {
  return std::getenv("PNMPI_BE_SILENT") == nullptr || debug_level() >= 1;
}

} // namespace

} // namespace pnmpi

extern "C" int XMPI_Pcontrol(const int level, ...);

namespace {

/// Whether MPI_Init prints the banner: set by Core::load (a user's configuration, not
/// silenced), read once in MPI_Init.
bool g_banner_due = false;

/// Right after MPI's own MPI_Init, before any module above sees a world: stops a process
/// started by a launcher of another MPI (launcher.h), then prints the banner if it is due.
void after_mpi_init() {
  const pnmpi::EnvLookup env = [](const char *name) -> const char * { return std::getenv(name); };
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string wrong = pnmpi::wrong_launcher(size, env);
  if (!wrong.empty()) {
    // Every process is a job of its own: ending this one ends no other, and printing from
    // each would repeat the message as many times as there are processes.
    if (pnmpi::launcher_first_process(env))
      pnmpi::print_error(wrong);
    std::fflush(nullptr);
    ::_exit(1);
  }
  if (g_banner_due)
    pnmpi::print_banner();
}

} // namespace

// The bottom of MPI_Init and MPI_Init_thread: MPI's own, then the launcher check and the
// banner, which need the world. Every layer has run its part of MPI_Init by then.
extern "C" int pnmpi_banner_MPI_Init(int *argc, char ***argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS)
    after_mpi_init();
  return rc;
}

extern "C" int pnmpi_banner_MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    after_mpi_init();
  return rc;
}

namespace {

/// The routines that initialise MPI's world, each with its bottom (above).
std::vector<std::pair<unsigned, std::uintptr_t>> init_routines() {
  return {
      {PNMPI_ID_MPI_Init, reinterpret_cast<std::uintptr_t>(&pnmpi_banner_MPI_Init)},
      {PNMPI_ID_MPI_Init_thread, reinterpret_cast<std::uintptr_t>(&pnmpi_banner_MPI_Init_thread)}};
}

} // namespace

namespace pnmpi {

Core &Core::instance() {
  static Core core;
  return core;
}

const RoutineIndex &Core::routines() {
  static const RoutineIndex index(pnmpi_routine_names, PNMPI_NUM_ROUTINES);
  return index;
}

void Core::load() {
  const auto start = std::chrono::steady_clock::now();
  m_loading = true;
  struct Done {
    bool &flag;
    ~Done() { flag = false; }
  } done{m_loading};
  m_bottom.resize(PNMPI_NUM_ROUTINES);
  for (unsigned id = 0; id < PNMPI_NUM_ROUTINES; ++id)
    m_bottom[id] = reinterpret_cast<std::uintptr_t>(pnmpi_pmpi_table[id]);
  m_bottom[PNMPI_ID_MPI_Pcontrol] = reinterpret_cast<std::uintptr_t>(&XMPI_Pcontrol);

  std::optional<Config> composed = configuration();
  if (!composed) {
    // No banner without a configuration (PnMPI prints "No modules loaded." even then): a
    // site that preloads pnmpi for every job must not add a line to every job's output.
    debug(1, "no configuration file ($PNMPI_CONF, ./.pnmpi-conf, ~/.pnmpi-conf, the site's): "
             "no modules, every MPI call goes straight to MPI");
    publish(nullptr);
    number_handles();
    m_loaded = true;
    return;
  }
  // MPI_Init and MPI_Init_thread end in the launcher check and the banner, wrapped or not. A
  // site stack alone prints nothing: the banner is for a user's own configuration.
  const bool user_config = composed->path != composed->site_path;
  g_banner_due = user_config && banner_wanted();
  std::vector<unsigned> banner_ids;
  for (const auto &[id, fn] : init_routines()) {
    m_bottom[id] = fn;
    banner_ids.push_back(id);
  }
  SearchPathInputs search;
  search.lib_path = std::getenv("PNMPI_LIB_PATH");
  search.libdir = own_library_directory();
  bool any_site = false;
  for (const ModuleSpec &m : composed->modules)
    any_site |= m.site;
  // With site modules, every layer's problem is collected: the user's first one still
  // stops the job with the message it always had; the site's go through the policy.
  std::vector<std::string> problems;
  m_plan = plan_config(std::move(*composed), module_search_path(search), Core::routines(),
                       any_site ? &problems : nullptr);
  const Config &config = m_plan.config;
  m_disabled.assign(m_plan.layers.size(), false);
  for (const PlannedLayer &planned : m_plan.layers)
    if (planned.file == nullptr && !planned.spec->site && !planned.error.empty())
      throw Error(planned.error);
  for (std::size_t i = 0; i < m_plan.layers.size(); ++i)
    if (m_plan.layers[i].file == nullptr) // a site layer: said once, however many lines
      site_failure(static_cast<int>(i), m_plan.layers[i].error, true);
  const bool named_user_config = !config.path.empty() && config.path != config.site_path;
  debug(1,
        "configuration " +
            (named_user_config ? describe_config_file(config.path, ConfigSearch::from_environment())
                               : config.path) +
            (config.site_path.empty() || config.site_path == config.path
                 ? std::string()
                 : " and site configuration " + config.site_path) +
            ": " + std::to_string(config.modules.size()) + " module line(s)");
  if (debug_level() >= 2) {
    std::string dirs;
    for (const std::string &d : m_plan.search_path)
      dirs += (dirs.empty() ? "" : ":") + d;
    debug(2, "module search path: " + dirs);
  }

  CopyDirectory copies;
  std::vector<std::uintptr_t> bases;
  m_layers.reserve(m_plan.layers.size());
  for (PlannedLayer &planned : m_plan.layers) {
    const int index = static_cast<int>(m_layers.size());
    if (m_disabled[static_cast<std::size_t>(index)]) {
      m_layers.push_back({planned.spec, {nullptr, nullptr, 0}});
      bases.push_back(0);
      continue;
    }
    try {
      m_opening_layer = index;
      m_layers.push_back(
          {planned.spec, load_module_copy(*planned.file, *planned.spec, config, copies, index)});
      m_opening_layer = -1;
    } catch (const std::exception &e) {
      m_opening_layer = -1;
      // A site layer that cannot be loaded, for any reason (memory included), is left out.
      if (!planned.spec->site)
        throw;
      const auto *error = dynamic_cast<const Error *>(&e);
      site_failure(index,
                   error != nullptr
                       ? std::string(e.what())
                       : module_context(*planned.spec, config) + ": cannot be loaded: " + e.what(),
                   true);
      planned.file = nullptr; // unlinked: it wraps nothing
      m_layers.push_back({planned.spec, {nullptr, nullptr, 0}});
      bases.push_back(0);
      continue;
    }
    bases.push_back(m_layers.back().module.base);
    debug(2, "layer " + std::to_string(index) + ": module '" + planned.spec->name + "' from " +
                 planned.path + " (" + std::to_string(planned.file->image.wrappers.size()) +
                 " wrappers, copy " + std::to_string(planned.file->loaded) + ")" +
                 (planned.spec->site ? " (site)" : ""));
  }

  for (const Layer &layer : m_layers)
    if (layer.module.file != nullptr)
      for (const ElfImage::Range &r : layer.module.file->image.code)
        m_code.push_back({layer.module.base + r.begin, layer.module.base + r.end,
                          static_cast<int>(&layer - m_layers.data())});
  std::sort(m_code.begin(), m_code.end(),
            [](const CodeRange &a, const CodeRange &b) { return a.begin < b.begin; });

  link_layers(bases, banner_ids, true);
  number_handles();
  m_loaded = true;
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  debug(1, "loaded " + std::to_string(m_layers.size()) + " layer(s) from " +
               std::to_string(m_plan.files.size()) + " file(s) in " + std::to_string(us) + " us");

  bool unregistration = false;
  for (const Layer &layer : m_layers)
    unregistration |= layer.module.file != nullptr &&
                      layer.module.file->image.pnmpi_syms.count("PNMPI_UnregistrationPoint") > 0;
  if (unregistration)
    std::atexit([] { Core::instance().unregister(); });

  for (std::size_t i = 0; i < m_layers.size(); ++i) {
    call_layer_hook(i, "pnmpi_module_loaded", true);
    call_layer_hook(i, "PNMPI_RegistrationPoint", false);
  }
  // A site layer that failed in its load hooks (a bad argument, a resource it could not
  // get) leaves the stacks before the application's first call: nothing has run through
  // them yet but this MPI_Init, which has not reached its wrappers.
  bool relink = false;
  for (std::size_t i = 0; i < m_layers.size(); ++i)
    if (m_disabled[i] && m_plan.layers[i].file != nullptr) {
      m_plan.layers[i].file = nullptr;
      relink = true;
    }
  if (relink)
    link_layers(bases, banner_ids, false);
  call_hook("PNMPI_Init");
}

std::optional<Config> Core::configuration() {
  const std::optional<std::string> path = find_config_file(ConfigSearch::from_environment());
  std::optional<Config> user;
  if (path)
    user = load_config_file(*path);
  std::optional<Config> site = site_configuration(false);
  if (!site)
    return user;
  Config empty;
  return compose_configs(user ? std::move(*user) : std::move(empty), std::move(*site));
}

std::optional<Config> Core::site_configuration(bool checking) {
  std::optional<Config> site;
  std::string site_path;
  try {
    const std::optional<std::string> found = find_site_config(SiteSearch::from_environment());
    if (found) {
      site_path = *found;
      site = load_config_file(*found, ConfigKind::Site);
    }
  } catch (const Error &e) {
    // pnmpi-info reads the site configuration itself and says what is wrong with it.
    if (!checking)
      site_warning(std::string(e.what()) + "; the job runs without the site's modules", true);
    return std::nullopt;
  }
  if (!site || checking)
    return site;
  set_site_records(site->site.records);
  const char *optout = std::getenv("PNMPI_SITE_DISABLE");
  const bool opted_out = optout != nullptr && std::strcmp(optout, "1") == 0;
  char exe[4096];
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  const std::string program = n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : "";
  if (!site_applies_to(site->site, program)) {
    debug(1, "site configuration " + site_path + ": " + program +
                 " is excluded ('exclude' rules): no site modules");
    return std::nullopt;
  }
  if (opted_out && site->site.optout) {
    debug(1, "PNMPI_SITE_DISABLE=1: no site modules");
    return std::nullopt;
  }
  if (opted_out)
    site_warning("PNMPI_SITE_DISABLE=1 is ignored: the site configuration " +
                     where(site_path, site->site.optout_line) +
                     " does not allow turning its modules off ('optout deny')",
                 true);
  return site;
}

int Core::check_arguments(int layer) {
  m_checking = true;
  const std::optional<std::string> path = find_config_file(ConfigSearch::from_environment());
  std::optional<Config> config;
  if (path)
    config = load_config_file(*path);
  if (std::optional<Config> site = site_configuration(true)) {
    Config empty;
    config = compose_configs(config ? std::move(*config) : std::move(empty), std::move(*site));
  }
  if (!config || layer < 0 || layer >= static_cast<int>(config->modules.size()))
    return kCheckNoLayer;
  SearchPathInputs search;
  search.lib_path = std::getenv("PNMPI_LIB_PATH");
  search.libdir = own_library_directory();
  std::vector<std::string> problems; // pnmpi-info reports the files' own problems
  m_plan = plan_config(std::move(*config), module_search_path(search), Core::routines(), &problems);
  m_disabled.assign(m_plan.layers.size(), false);
  for (const PlannedLayer &planned : m_plan.layers)
    m_layers.push_back({planned.spec, {nullptr, nullptr, 0}});
  number_handles();
  m_loaded = true;
  const PlannedLayer &planned = m_plan.layers[static_cast<std::size_t>(layer)];
  if (planned.file == nullptr || planned.file->image.pnmpi_syms.count("pnmpi_module_check") == 0)
    return kCheckNotOffered;
  // Lazy binding: the module's calls into the layers below are never made here.
  m_opening_layer = layer;
  void *handle = ::dlopen(planned.path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  m_opening_layer = -1;
  void *fn = handle != nullptr ? ::dlsym(handle, "pnmpi_module_check") : nullptr;
  if (fn == nullptr) {
    const char *why = ::dlerror();
    print_error(module_context(*planned.spec, m_plan.config) +
                ": cannot be opened to check its arguments: " +
                (why != nullptr ? shown(why) : std::string("no pnmpi_module_check")));
    return kCheckFailed;
  }
  m_hook_layer = layer;
  const int rc = reinterpret_cast<int (*)(PNMPI_modHandle_t)>(fn)(module_handle(layer));
  m_hook_layer = -1;
  return rc == PNMPI_SUCCESS ? kCheckPassed : kCheckFailed;
}

void Core::mpi_called_while_opening(const char *routine) const {
  const PlannedLayer &planned = m_plan.layers[static_cast<std::size_t>(m_opening_layer)];
  const std::string message =
      module_context(*planned.spec, m_plan.config) + " (" + shown(planned.path) +
      "): code that runs while the module is opened (a constructor, or a static object's) "
      "called " +
      routine +
      ", before pnmpi has bound the layers and before MPI is initialised; call MPI from the "
      "module's MPI_Init wrapper (after PMPI_Init) or later";
  if (m_checking) { // pnmpi-info: this process only, no MPI job to end
    print_error(message);
    std::fflush(nullptr);
    ::_exit(kCheckFailed);
  }
  fatal(message);
}

void Core::link_layers(const std::vector<std::uintptr_t> &bases,
                       const std::vector<unsigned> &always, bool relro_writable) {
  const Config &config = m_plan.config;
  std::vector<LayerView> views = layer_views(m_plan, bases);
  for (std::size_t i = 0; i < views.size(); ++i)
    views[i].relro_writable = relro_writable && m_layers[i].module.mapped != nullptr;
  m_stacks = build_link_stacks(views, PNMPI_NUM_ROUTINES, static_cast<int>(config.stacks.size()),
                               m_bottom);
  std::vector<std::uintptr_t> top(PNMPI_NUM_ROUTINES);
  for (unsigned id = 0; id < PNMPI_NUM_ROUTINES; ++id)
    top[id] = reinterpret_cast<std::uintptr_t>(pnmpi_nested_table[id]);
  bind_call_sites(views, m_stacks.heads.size(), m_bottom, to_bottom_routines(), top);
  if (relro_writable)
    for (const Layer &layer : m_layers)
      if (layer.module.mapped != nullptr)
        protect_copy(*layer.module.mapped, layer.module.base);

  publish(&m_stacks, always);
  if (debug_level() >= 3) {
    for (unsigned id = 0; id < PNMPI_NUM_ROUTINES; ++id) {
      if (m_stacks.chain(0, id).empty())
        continue;
      std::string line = std::string(pnmpi_routine_names[id]) + ":";
      for (const LinkStacks::Entry &e : m_stacks.chain(0, id))
        line += " " + m_layers[e.layer].spec->name + "[" + std::to_string(e.layer) + "]";
      debug(3, line + " -> MPI");
    }
  }

  // Who receives the application's MPI_Pcontrol, per stack (globalpcontrol, pcontrol).
  m_pcontrol_receivers.assign(config.stacks.size(), {});
  for (std::size_t s = 0; s < config.stacks.size(); ++s)
    for (const LinkStacks::Entry &e : m_stacks.chain(s, PNMPI_ID_MPI_Pcontrol))
      if (pcontrol_receives(e.layer))
        m_pcontrol_receivers[s].push_back(e.address);
}

bool Core::is_site(int layer) const {
  return layer >= 0 && layer < static_cast<int>(m_layers.size()) &&
         m_layers[static_cast<std::size_t>(layer)].spec->site;
}

void Core::site_failure(int layer, const std::string &message, bool job_wide) {
  const auto i = static_cast<std::size_t>(layer);
  if (m_disabled[i])
    return;
  m_disabled[i] = true;
  site_warning(message + " [a module of the site configuration: it is disabled, the job goes on]",
               job_wide);
}

void Core::number_handles() {
  std::vector<int> layer_stacks;
  for (const Layer &layer : m_layers)
    layer_stacks.push_back(layer.spec->stack);
  HandleNumbers n = pnmpi::number_handles(m_plan.config.stack_lines, layer_stacks);
  m_layer_handles = std::move(n.layer_handles);
  m_stack_handles = std::move(n.stack_handles);
  m_handle_layers = std::move(n.handle_layers);
  // XMPI_X_NewStack looks its handle up on every call: one index, no search.
  m_handle_stacks = std::move(n.handle_stacks);
}

int Core::layer_of(int handle) const {
  if (handle < 0 || handle >= static_cast<int>(m_handle_layers.size()))
    return -1;
  return m_handle_layers[static_cast<std::size_t>(handle)];
}

int Core::stack_of(int handle) const {
  if (handle < 0 || handle >= static_cast<int>(m_handle_stacks.size()))
    return -1;
  return m_handle_stacks[static_cast<std::size_t>(handle)];
}

bool Core::pcontrol_receives(int layer) const {
  return receives_pcontrol(m_plan.config, *m_layers[static_cast<std::size_t>(layer)].spec);
}

bool Core::call_layer_hook(std::size_t index, const char *name, bool with_handle) {
  const Layer &layer = m_layers[index];
  if (m_disabled[index] || layer.module.file == nullptr)
    return false;
  const auto &syms = layer.module.file->image.pnmpi_syms;
  auto it = syms.find(name);
  if (it == syms.end())
    return false;
  // Hooks are called one at a time (load and finalize are serialised), so one field is
  // enough to tell the services which layer is calling. Nested hook calls
  // (PNMPI_Service_CallHook) restore the outer layer afterwards.
  const int outer = m_hook_layer;
  m_hook_layer = static_cast<int>(index);
  if (with_handle)
    reinterpret_cast<void (*)(PNMPI_modHandle_t)>(layer.module.base + it->second)(
        module_handle(static_cast<int>(index)));
  else
    reinterpret_cast<void (*)()>(layer.module.base + it->second)();
  m_hook_layer = outer;
  return true;
}

void Core::call_hook(const char *name, bool with_handle) {
  for (std::size_t i = 0; i < m_layers.size(); ++i)
    call_layer_hook(i, name, with_handle);
}

bool Core::call_next_hook(const char *name, int stack, int after) {
  for (std::size_t i = static_cast<std::size_t>(after + 1); i < m_layers.size(); ++i) {
    if (m_layers[i].spec->stack != stack || m_disabled[i] || m_layers[i].module.file == nullptr)
      continue;
    // Any exported name, not only PNMPI_ ones: PnMPI's hooks are arbitrary functions. dlsym
    // also searches the module's dependencies; only the module's own definition counts.
    void *fn = module_symbol(m_layers[i].module, name);
    if (fn == nullptr || layer_at(fn) != static_cast<int>(i))
      continue;
    const int outer = m_hook_layer;
    m_hook_layer = static_cast<int>(i);
    reinterpret_cast<void (*)()>(fn)();
    m_hook_layer = outer;
    return true;
  }
  return false;
}

void Core::finalize() {
  for (std::size_t i = 0; i < m_layers.size(); ++i) {
    call_layer_hook(i, "PNMPI_Fini", false);
    call_layer_hook(i, "pnmpi_module_finalize", true);
  }
}

void Core::unregister() {
  call_hook("PNMPI_UnregistrationPoint");
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

namespace {

// Whether the core is loaded (or knows it has nothing to load); written under g_load_lock.
std::atomic<bool> g_loaded{false};
std::mutex g_load_lock;

/// Runs `step` and turns any exception into the job-ending error it stands for.
template <typename Step> void or_fatal(const char *what, Step step) {
  try {
    step();
  } catch (const pnmpi::Error &e) {
    pnmpi::fatal(e.what());
  } catch (const std::exception &e) {
    pnmpi::fatal(std::string("internal error ") + what + ": " + e.what());
  }
}

/// MPI is running and the core was never loaded: MPI was started behind pnmpi's back. With
/// no module configured that changes nothing; with modules it is an error, because loading
/// them now would hide MPI_Init from them, and running without them would be silent.
void adopt_started_mpi(const std::string &seen) {
  const std::lock_guard<std::mutex> guard(g_load_lock);
  if (g_loaded.load(std::memory_order_relaxed))
    return;
  const std::optional<std::string> path =
      pnmpi::find_config_file(pnmpi::ConfigSearch::from_environment());
  const std::size_t modules = path ? pnmpi::load_config_file(*path).modules.size() : 0;
  if (modules == 0) {
    pnmpi::debug(1, "MPI was started without pnmpi's MPI_Init and no module is configured: "
                    "every MPI call goes straight to MPI");
    pnmpi::publish(nullptr);
    g_loaded.store(true, std::memory_order_release);
    return;
  }
  throw pnmpi::Error(
      *path + ": MPI was started without passing through pnmpi's MPI_Init or MPI_Init_thread (" +
      seen + "), so the " + std::to_string(modules) +
      " module(s) listed here were never loaded; loading them now would hide MPI_Init from "
      "them. Something called PMPI_Init directly: a PMPI tool preloaded or linked before "
      "pnmpi, a library, or an MPI language binding pnmpi does not redirect (PNMPI_DEBUG=2 "
      "lists those it does). Let MPI start through MPI_Init: link the application with "
      "-lpnmpi before the MPI libraries or preload libpnmpi.so, and list PMPI tools as modules "
      "(convert them with pnmpi-patch) instead of preloading them");
}

bool mpi_started() {
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  return initialized != 0 || finalized != 0;
}

/// The files of the other copies of pnmpi loaded in this process (a program linked with
/// libpnmpi.a and a preloaded libpnmpi.so, or two installs of different versions): every
/// loaded object that itself defines pnmpi's API, other than this one.
std::vector<std::string> other_pnmpi_copies(std::string &own) {
  Dl_info self;
  if (::dladdr(reinterpret_cast<void *>(&pnmpi_check_module_arguments), &self) == 0)
    return {};
  own = self.dli_fname != nullptr ? self.dli_fname : "?";
  struct Search {
    const void *own_base;
    std::vector<std::string> others;
  } search{self.dli_fbase, {}};
  ::dl_iterate_phdr(
      [](struct dl_phdr_info *info, std::size_t, void *arg) {
        auto *s = static_cast<Search *>(arg);
        const bool program = info->dlpi_name == nullptr || *info->dlpi_name == '\0';
        void *handle = ::dlopen(program ? nullptr : info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
        if (handle == nullptr)
          return 0;
        void *api = ::dlsym(handle, "pnmpi_check_module_arguments");
        Dl_info where;
        if (api != nullptr && ::dladdr(api, &where) != 0 && where.dli_fbase != s->own_base &&
            where.dli_fname != nullptr &&
            std::find(s->others.begin(), s->others.end(), where.dli_fname) == s->others.end())
          s->others.emplace_back(where.dli_fname);
        ::dlclose(handle);
        return 0;
      },
      &search);
  return search.others;
}

// Before main: the MPI language bindings loaded with the program enter the chain before
// the application's first MPI call.
__attribute__((constructor)) void redirect_bindings_at_start() {
  // Two copies of pnmpi would each load the modules and route MPI: say so, naming both
  // files, before either is used (the first copy's constructor ends the process).
  std::string own;
  const std::vector<std::string> copies = other_pnmpi_copies(own);
  if (!copies.empty()) {
    pnmpi::print_error(
        "two copies of pnmpi are loaded in this process: " + pnmpi::shown(own) + " and " +
        pnmpi::shown(copies.front()) +
        " (a program linked with one, libpnmpi.a or an install's libpnmpi.so, and another "
        "preloaded with LD_PRELOAD or pnmpi-run, or two installs). Each would load the modules "
        "and route MPI on its own. Use one: run a program linked with pnmpi without preloading "
        "pnmpi (not under pnmpi-run), or preload pnmpi into a program that is not linked with it");
    ::_exit(1);
  }
  // A program built for another MPI has both MPIs loaded now: say so, before either is
  // used (ending the job through MPI is not possible with two of them: just this rank).
  const std::vector<std::string> other = pnmpi::loaded_other_mpis();
  if (!other.empty()) {
    pnmpi::print_error(pnmpi::built_for_other_mpi(other.front(), "program"));
    ::_exit(1);
  }
  or_fatal("while redirecting the MPI's language bindings", pnmpi::redirect_bindings);
}

// At exit: a run in which MPI was started and no MPI call ever passed through pnmpi (every
// call made by PMPI_ names) still must not end silently without its configured modules.
__attribute__((destructor)) void check_at_exit() {
  if (g_loaded.load(std::memory_order_acquire) || !mpi_started())
    return;
  or_fatal("at exit", [] { adopt_started_mpi("no MPI call of the run passed through pnmpi"); });
}

} // namespace

extern "C" {

void pnmpi_core_load(void) {
  // Entered from the load-point routines (MPI_Init, MPI_Init_thread, MPI_Session_init,
  // MPI_T_init_thread), which a program may call from several threads or more than once.
  if (g_loaded.load(std::memory_order_acquire))
    return;
  const std::lock_guard<std::mutex> guard(g_load_lock);
  if (g_loaded.load(std::memory_order_relaxed))
    return;
  or_fatal("while loading modules", [] {
    pnmpi::redirect_bindings(); // bindings loaded after start-up (dlopen) too
    Core::instance().load();
  });
  g_loaded.store(true, std::memory_order_release);
}

void pnmpi_fortran_missing(const char *name) {
  pnmpi::fatal(std::string(name) + " was called, but no MPI library loaded in this process "
                                   "defines it after libpnmpi: link the program with the MPI's "
                                   "Fortran compiler wrapper (mpifort)");
}

void pnmpi_core_pending(unsigned id) {
  if (Core::instance().opening_layer() >= 0)
    Core::instance().mpi_called_while_opening(pnmpi_routine_names[id]);
  if (g_loaded.load(std::memory_order_acquire) || !mpi_started())
    return;
  or_fatal("while checking how MPI was started", [id] {
    adopt_started_mpi(std::string("the first call pnmpi saw was ") + pnmpi_routine_names[id]);
  });
}

void pnmpi_core_finalize(void) {
  static std::atomic<bool> done{false};
  if (done.exchange(true))
    return;
  Core::instance().finalize();
}

int pnmpi_check_module_arguments(int layer) {
  try {
    return Core::instance().check_arguments(layer);
  } catch (const pnmpi::Error &e) {
    pnmpi::print_error(e.what());
  } catch (const std::exception &e) {
    pnmpi::print_error(std::string("internal error while checking module arguments: ") + e.what());
  }
  return pnmpi::kCheckFailed;
}

pnmpi_fn_any pnmpi_next_by_caller(unsigned id, const void *return_address) {
  const Core &core = Core::instance();
  if (__builtin_expect(core.opening_layer() >= 0, 0))
    core.mpi_called_while_opening(pnmpi_routine_names[id]);
  const int layer = core.layer_at(return_address);
  if (layer < 0) // not called from a module: enter the routine's chain from the top
    return pnmpi_routine_wrapped(id) ? pnmpi_head[id] : pnmpi_pmpi_table[id];
  const int stack = core.layers()[layer].spec->stack;
  return reinterpret_cast<pnmpi_fn_any>(
      core.stacks().next_after(stack, layer, id, core.bottom()[id]));
}

pnmpi_fn_any pnmpi_stack_head(int handle, unsigned id) {
  const Core &core = Core::instance();
  const int stack = core.stack_of(handle);
  if (stack < 0 || stack >= static_cast<int>(core.stacks().heads.size()))
    pnmpi::fatal("XMPI_" + std::string(pnmpi_routine_names[id] + 4) +
                 "_NewStack: there is no stack with handle " + std::to_string(handle));
  return reinterpret_cast<pnmpi_fn_any>(core.stacks().heads[stack][id]);
}

int pnmpi_pcontrol_deliver(int handle, int level, const pnmpi_pcontrol_arg *arg) {
  using Pcontrol = int (*)(const int, ...);
  const Core &core = Core::instance();
  const int stack = core.stack_of(handle);
  // A bad handle is the module's bug, as for every other XMPI_X_NewStack (pnmpi_stack_head):
  // delivering to nobody would hide it.
  if (stack < 0 || stack >= static_cast<int>(core.pcontrol_receivers().size()))
    pnmpi::fatal("XMPI_Pcontrol_NewStack: there is no stack with handle " + std::to_string(handle));
  // Every receiver gets the call even when one fails (one tool's error must not silence
  // another); the first error is what the application sees. 0 is MPI_SUCCESS.
  int first_error = 0;
  for (const std::uintptr_t address : core.pcontrol_receivers()[stack]) {
    const auto fn = reinterpret_cast<Pcontrol>(address);
    int rc = 0;
    switch (arg != nullptr ? arg->type : PNMPI_PCONTROL_TYPE_NONE) {
    case PNMPI_PCONTROL_TYPE_NONE:
      rc = fn(level);
      break;
    case PNMPI_PCONTROL_TYPE_INT:
      rc = fn(level, arg->value.i);
      break;
    case PNMPI_PCONTROL_TYPE_LONG:
      rc = fn(level, arg->value.l);
      break;
    case PNMPI_PCONTROL_TYPE_DOUBLE:
      rc = fn(level, arg->value.d);
      break;
    case PNMPI_PCONTROL_TYPE_POINTER:
      rc = fn(level, arg->value.p);
      break;
    }
    if (rc != 0 && first_error == 0)
      first_error = rc;
  }
  return first_error;
}

pnmpi_pcontrol_type_t pnmpi_pcontrol_argument_type(int level) {
  const pnmpi::PcontrolPolicy &p = Core::instance().config().pcontrol;
  if (p.mode != pnmpi::PcontrolPolicy::Mode::Typed || p.level != level)
    return PNMPI_PCONTROL_TYPE_NONE;
  switch (p.type) {
  case pnmpi::PcontrolPolicy::Type::Int:
    return PNMPI_PCONTROL_TYPE_INT;
  case pnmpi::PcontrolPolicy::Type::Long:
    return PNMPI_PCONTROL_TYPE_LONG;
  case pnmpi::PcontrolPolicy::Type::Double:
    return PNMPI_PCONTROL_TYPE_DOUBLE;
  case pnmpi::PcontrolPolicy::Type::Pointer:
    return PNMPI_PCONTROL_TYPE_POINTER;
  }
  return PNMPI_PCONTROL_TYPE_NONE;
}

} // extern "C"
