// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The module API of pnmpi/pnmpi.h. Everything here reads the Core that load() built and
// never changes; no exception leaves these functions (each entry point catches, and reports
// PNMPI_NOMEM or PNMPI_FAILURE).

#include <pnmpi/pnmpi.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <new>
#include <string>
#include <unistd.h>
#include <unwind.h>
#include <vector>

#include "arguments.h"
#include "compat.h"
#include "config.h"
#include "core.h"
#include "error.h"
#include "input_file.h"
#include "log.h"
#include "module_loader.h"
#include "site.h"
#include "values.h"

using pnmpi::Core;

namespace {

/// Names, services and globals that modules publish. Written mostly from hooks at load
/// time, read from anywhere later: a mutex keeps it simple, and nothing here is on a
/// per-call path (modules look a service up once and keep the function pointer).
/// What modules publish by name: services or globals, each with the layer that published it.
template <class Descriptor> class Published {
public:
  /// Adds `d` for `layer`; PNMPI_BADARG when that layer already published the name.
  PNMPI_status_t add(int layer, const Descriptor &d) {
    for (const Entry &e : m_entries)
      if (e.layer == layer && std::strcmp(e.descriptor.name, d.name) == 0)
        return PNMPI_BADARG;
    m_entries.push_back({layer, d});
    return PNMPI_SUCCESS;
  }

  /// The first entry named `name` (of layer `layer`, unless it is -1) whose
  /// signature `matches`, into *out; PNMPI_SIGNATURE when the name exists only with other
  /// signatures; else `missing`.
  template <class Matches>
  PNMPI_status_t find(int layer, const char *name, Matches &&matches, PNMPI_status_t missing,
                      Descriptor *out) const {
    bool other_signature = false;
    for (const Entry &e : m_entries) {
      if ((layer != -1 && e.layer != layer) || std::strcmp(e.descriptor.name, name) != 0)
        continue;
      if (!matches(e.descriptor)) {
        other_signature = true;
        continue;
      }
      *out = e.descriptor;
      return PNMPI_SUCCESS;
    }
    return other_signature ? PNMPI_SIGNATURE : missing;
  }

  /// What layer `layer` published, in the order it did.
  std::vector<Descriptor> of(int layer) const {
    std::vector<Descriptor> out;
    for (const Entry &e : m_entries)
      if (e.layer == layer)
        out.push_back(e.descriptor);
    return out;
  }

private:
  struct Entry {
    int layer;
    Descriptor descriptor;
  };
  std::vector<Entry> m_entries;
};

struct Registry {
  std::mutex lock;
  std::vector<std::string> module_names; ///< per layer; empty: not read yet
  Published<PNMPI_Service_descriptor_t> services;
  Published<PNMPI_Global_descriptor_t> globals;

  /// Fills module_names on first use: PNMPI_ModuleName if the module defines it, else the
  /// name on its `module` line.
  void ensure_names() {
    const auto &layers = Core::instance().layers();
    if (module_names.size() == layers.size())
      return;
    module_names.clear();
    for (const pnmpi::Layer &layer : layers) {
      if (layer.module.file == nullptr) { // a site layer that never loaded
        module_names.emplace_back(layer.spec->name);
        continue;
      }
      const auto &syms = layer.module.file->image.pnmpi_syms;
      auto it = syms.find("PNMPI_ModuleName");
      const char *own = nullptr;
      if (it != syms.end())
        own = *reinterpret_cast<const char *const *>(layer.module.base + it->second);
      module_names.emplace_back(own != nullptr ? own : layer.spec->name);
    }
  }
};

Registry &registry() {
  static Registry r;
  return r;
}

/// The layer a service call came from: the one whose hook is running, else the one whose
/// code made the call.
int calling_layer(const void *return_address) {
  const Core &core = Core::instance();
  if (core.hook_layer() >= 0)
    return core.hook_layer();
  return core.layer_at(return_address);
}

/// The layer a module handle names (PnMPI's numbering, Core::layer_of), or -1.
int layer_of(PNMPI_modHandle_t handle) {
  return Core::instance().layer_of(handle);
}

/// Runs `body` (which returns a status) so that no exception leaves the C API. Return
/// addresses must be taken by the caller: inside `body` they would be the lambda's.
template <typename Body> PNMPI_status_t guarded(Body &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return PNMPI_NOMEM;
  } catch (...) {
    return PNMPI_FAILURE;
  }
}

/// A problem with an argument of `layer`: the user's module's is printed as an error (the
/// module then stops the job); a site module's goes through the site policy (docs/site.md).
void report_argument(int layer, const std::string &message) {
  Core &core = Core::instance();
  if (core.checking() && core.is_site(layer))
    pnmpi::print_error(message + " [a module of the site configuration: for the site's "
                                 "administrators to fix; a job runs on without it]");
  else if (core.is_site(layer))
    core.site_failure(layer, message, true);
  else
    pnmpi::print_error(message);
}

/// Finds argument `name` of layer `module` for the typed readers: PNMPI_SUCCESS with *arg
/// set, else the status to return (a missing required argument is reported here, once).
PNMPI_status_t typed_argument(PNMPI_modHandle_t module, const char *name, int flags,
                              const void *value, const pnmpi::Argument **arg) {
  if (name == nullptr || value == nullptr)
    return PNMPI_BADARG;
  const int layer = layer_of(module);
  if (layer < 0)
    return PNMPI_NOMODULE;
  const Core &core = Core::instance();
  const pnmpi::ModuleSpec &spec = *core.layers()[static_cast<std::size_t>(layer)].spec;
  *arg = spec.find_argument(name);
  if (*arg != nullptr)
    return PNMPI_SUCCESS;
  if (flags & PNMPI_ARG_REQUIRED)
    report_argument(layer, pnmpi::missing_argument_message(core.config(), spec, name));
  return PNMPI_NOARG;
}

/// Reports a malformed argument of layer `module` and returns PNMPI_BADARG.
PNMPI_status_t malformed(PNMPI_modHandle_t module, const pnmpi::Argument &arg,
                         const std::string &problem) {
  const Core &core = Core::instance();
  const int layer = layer_of(module);
  report_argument(layer, pnmpi::argument_message(
                             core.config(), *core.layers()[static_cast<std::size_t>(layer)].spec,
                             arg, problem));
  return PNMPI_BADARG;
}

/// A typed reader: finds argument `name` of layer `module`, parses it into a T with
/// `parse(text, T &)` (which returns the problem, if any), reports a malformed value, and
/// stores the value in *value only on success.
template <class T, class Out, class Parse>
PNMPI_status_t read_typed(PNMPI_modHandle_t module, const char *name, int flags, Out *value,
                          Parse &&parse) noexcept {
  return guarded([&] {
    const pnmpi::Argument *arg = nullptr;
    const PNMPI_status_t found = typed_argument(module, name, flags, value, &arg);
    if (found != PNMPI_SUCCESS)
      return found;
    T v{};
    if (auto problem = parse(arg->value, v))
      return malformed(module, *arg, *problem);
    *value = static_cast<Out>(v);
    return PNMPI_SUCCESS;
  });
}

/// The frame walk of application_return_address(): the first return address outside
/// libpnmpi and the layers' code.
struct ReturnAddressWalk {
  const void *own_base;
  void *found = nullptr;
};

#ifdef PNMPI_STATIC_LIBRARY
} // namespace
// static_begin.c and static_end.c: the first and last code of libpnmpi.a's one object.
extern "C" void pnmpi_static_text_begin(void);
extern "C" void pnmpi_static_text_end(void);
namespace {

/// Linked into the program, pnmpi's code shares the program's file: it is what lies
/// between the two brackets.
bool in_pnmpi(const void *ip, const void *) {
  const auto p = reinterpret_cast<std::uintptr_t>(ip);
  return p >= reinterpret_cast<std::uintptr_t>(&pnmpi_static_text_begin) &&
         p < reinterpret_cast<std::uintptr_t>(&pnmpi_static_text_end);
}

/// Modules find pnmpi's API and MPI_X in the program's dynamic symbol table, which has
/// them only when the program was linked with --export-dynamic: without it, the first
/// module would fail to load with "undefined symbol", far from the cause. Checked before
/// main, for every run, since the link is wrong whether or not this run has modules.
__attribute__((constructor)) void check_static_exports() {
  if (::dlsym(RTLD_DEFAULT, "PNMPI_Service_GetModuleSelf") != nullptr)
    return;
  pnmpi::print_error(
      "this program is linked with libpnmpi.a but does not export its symbols, so no module "
      "could call pnmpi or MPI: link it with -Wl,--export-dynamic (or -rdynamic), or with the "
      "CMake target pnmpi::pnmpi_static, which adds it");
  ::_exit(1);
}
#else
/// libpnmpi.so: pnmpi's code is the code of the file `own_base` was loaded from.
bool in_pnmpi(const void *ip, const void *own_base) {
  Dl_info info;
  return ::dladdr(ip, &info) != 0 && info.dli_fbase == own_base;
}
#endif

_Unwind_Reason_Code visit_frame(struct _Unwind_Context *context, void *arg) {
  auto *walk = static_cast<ReturnAddressWalk *>(arg);
  void *ip = reinterpret_cast<void *>(_Unwind_GetIP(context));
  if (ip == nullptr)
    return _URC_END_OF_STACK;
  const bool own = in_pnmpi(ip, walk->own_base);
  if (own || Core::instance().layer_at(ip) >= 0)
    return _URC_NO_REASON;
  walk->found = ip;
  return _URC_END_OF_STACK;
}

} // namespace

pnmpi::LayerRegistrations pnmpi::layer_registrations(int layer) {
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.ensure_names();
  LayerRegistrations out;
  out.name = r.module_names[static_cast<std::size_t>(layer)];
  for (const PNMPI_Service_descriptor_t &d : r.services.of(layer))
    out.services.emplace_back(d.name, d.sig);
  for (const PNMPI_Global_descriptor_t &d : r.globals.of(layer))
    out.globals.emplace_back(d.name, d.sig);
  return out;
}

void *pnmpi::application_return_address() {
  Dl_info self;
  if (::dladdr(reinterpret_cast<void *>(&visit_frame), &self) == 0)
    return nullptr;
  ReturnAddressWalk walk{self.dli_fbase};
  _Unwind_Backtrace(&visit_frame, &walk);
  return walk.found;
}

extern "C" {

PNMPI_status_t PNMPI_Service_GetModuleSelf(PNMPI_modHandle_t *handle) {
  if (handle == nullptr)
    return PNMPI_BADARG;
  if (!Core::instance().loaded())
    return PNMPI_NOT_INIT;
  const int layer = calling_layer(__builtin_return_address(0));
  if (layer < 0)
    return PNMPI_NOMODULE;
  *handle = Core::instance().module_handle(layer);
  return PNMPI_SUCCESS;
}

PNMPI_status_t PNMPI_Service_GetArgument(PNMPI_modHandle_t module, const char *name,
                                         const char **value) {
  if (name == nullptr || value == nullptr)
    return PNMPI_BADARG;
  const int layer = layer_of(module);
  if (layer < 0)
    return PNMPI_NOMODULE;
  const std::string *v =
      Core::instance().layers()[static_cast<std::size_t>(layer)].spec->argument(name);
  if (v == nullptr)
    return PNMPI_NOARG;
  *value = v->c_str();
  return PNMPI_SUCCESS;
}

const char *PNMPI_Service_GetArgumentSelf(const char *name) {
  const int layer = calling_layer(__builtin_return_address(0));
  const char *value = nullptr;
  if (layer < 0 || PNMPI_Service_GetArgument(Core::instance().module_handle(layer), name, &value) !=
                       PNMPI_SUCCESS)
    return nullptr;
  return value;
}

PNMPI_status_t pnmpi_argument_long(PNMPI_modHandle_t module, const char *name, int flags, long min,
                                   long max, long *value) {
  return read_typed<long>(module, name, flags, value, [&](const std::string &text, long &v) {
    return pnmpi::parse_long(text, min, max, v);
  });
}

PNMPI_status_t pnmpi_argument_double(PNMPI_modHandle_t module, const char *name, int flags,
                                     double min, double max, double *value) {
  return read_typed<double>(module, name, flags, value, [&](const std::string &text, double &v) {
    return pnmpi::parse_double(text, min, max, v);
  });
}

PNMPI_status_t pnmpi_argument_bool(PNMPI_modHandle_t module, const char *name, int flags,
                                   int *value) {
  return read_typed<bool>(module, name, flags, value, [](const std::string &text, bool &v) {
    return pnmpi::parse_bool(text, v);
  });
}

PNMPI_status_t pnmpi_argument_choice(PNMPI_modHandle_t module, const char *name, int flags,
                                     const char *const *choices, int *index) {
  if (choices == nullptr || choices[0] == nullptr)
    return PNMPI_BADARG;
  return read_typed<int>(module, name, flags, index, [&](const std::string &text, int &v) {
    return pnmpi::parse_choice(text, pnmpi::choice_words(choices), v);
  });
}

PNMPI_status_t pnmpi_argument_flags(PNMPI_modHandle_t module, const char *name, int flags,
                                    const pnmpi_flag_t *words, unsigned *value) {
  if (words == nullptr || words[0].word == nullptr)
    return PNMPI_BADARG;
  return read_typed<unsigned>(module, name, flags, value,
                              [&](const std::string &text, unsigned &v) {
                                return pnmpi::parse_flags(text, pnmpi::flag_words(words), v);
                              });
}

PNMPI_status_t pnmpi_argument_string(PNMPI_modHandle_t module, const char *name, int flags,
                                     const char **value) {
  return guarded([&] {
    const pnmpi::Argument *arg = nullptr;
    const PNMPI_status_t found = typed_argument(module, name, flags, value, &arg);
    if (found != PNMPI_SUCCESS)
      return found;
    if (auto problem = pnmpi::parse_string(arg->value, (flags & PNMPI_ARG_NONEMPTY) != 0))
      return malformed(module, *arg, *problem);
    *value = arg->value.c_str();
    return PNMPI_SUCCESS;
  });
}

PNMPI_status_t pnmpi_argument_where(PNMPI_modHandle_t module, const char *name, char *buf,
                                    size_t size) {
  if (name == nullptr || (buf == nullptr && size > 0))
    return PNMPI_BADARG;
  const int layer = layer_of(module);
  if (layer < 0)
    return PNMPI_NOMODULE;
  return guarded([&] {
    const Core &core = Core::instance();
    const pnmpi::ModuleSpec &spec = *core.layers()[static_cast<std::size_t>(layer)].spec;
    const pnmpi::Argument *arg = spec.find_argument(name);
    const std::string text =
        arg != nullptr
            ? pnmpi::where(core.config().path, arg->line, spec.name) + ": argument '" + name + "'"
            : pnmpi::where(core.config().path, spec.line, spec.name);
    if (size > 0)
      std::snprintf(buf, size, "%s", text.c_str());
    return arg != nullptr ? PNMPI_SUCCESS : PNMPI_NOARG;
  });
}

PNMPI_status_t pnmpi_argument_file(PNMPI_modHandle_t module, const char *name, int flags,
                                   size_t max_bytes, char **data, size_t *size) {
  if (data == nullptr || size == nullptr)
    return PNMPI_BADARG;
  return guarded([&] {
    const pnmpi::Argument *arg = nullptr;
    const PNMPI_status_t found = typed_argument(module, name, flags, data, &arg);
    if (found != PNMPI_SUCCESS)
      return found;
    if (arg->value.empty())
      return malformed(module, *arg, "must name a file, not ''");
    std::vector<unsigned char> bytes;
    try {
      pnmpi::check_trusted(arg->value, pnmpi::shown(arg->value));
      bytes =
          pnmpi::read_input_file(arg->value, max_bytes, "cannot read " + pnmpi::shown(arg->value));
    } catch (const pnmpi::Error &e) {
      const Core &core = Core::instance();
      report_argument(
          layer_of(module),
          pnmpi::where(core.config().path, arg->line,
                       core.layers()[static_cast<std::size_t>(layer_of(module))].spec->name) +
              ": argument '" + name + "': " + e.what());
      return PNMPI_BADARG;
    }
    char *copy = static_cast<char *>(std::malloc(bytes.size() + 1));
    if (copy == nullptr)
      return PNMPI_NOMEM;
    if (!bytes.empty())
      std::memcpy(copy, bytes.data(), bytes.size());
    copy[bytes.size()] = '\0';
    *data = copy;
    *size = bytes.size();
    return PNMPI_SUCCESS;
  });
}

PNMPI_status_t pnmpi_argument_refuse(PNMPI_modHandle_t module, const char *name,
                                     const char *problem) {
  return guarded([&] {
    const pnmpi::Argument *arg = nullptr;
    const PNMPI_status_t found = typed_argument(module, name, PNMPI_ARG_OPTIONAL, name, &arg);
    if (found != PNMPI_SUCCESS)
      return found;
    return malformed(module, *arg, problem != nullptr ? problem : "is not accepted");
  });
}

PNMPI_status_t PNMPI_Service_RegisterModule(const char *name) {
  if (name == nullptr || *name == '\0')
    return PNMPI_BADARG;
  const int layer = calling_layer(__builtin_return_address(0));
  if (layer < 0)
    return PNMPI_NOMODULE;
  return guarded([&] {
    Registry &r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    r.ensure_names();
    r.module_names[layer] = name;
    return PNMPI_SUCCESS;
  });
}

PNMPI_status_t PNMPI_Service_GetModuleByName(const char *name, PNMPI_modHandle_t *handle) {
  if (name == nullptr || handle == nullptr)
    return PNMPI_BADARG;
  if (!Core::instance().loaded())
    return PNMPI_NOT_INIT;
  return guarded([&] {
    Registry &r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    r.ensure_names();
    for (std::size_t i = 0; i < r.module_names.size(); ++i)
      if (r.module_names[i] == name) {
        *handle = Core::instance().module_handle(static_cast<int>(i));
        return PNMPI_SUCCESS;
      }
    return PNMPI_NOMODULE;
  });
}

PNMPI_status_t PNMPI_Service_GetStackByName(const char *name, PNMPI_modHandle_t *handle) {
  if (name == nullptr || handle == nullptr)
    return PNMPI_BADARG;
  const int stack = Core::instance().config().stack_index(name);
  if (stack < 0)
    return PNMPI_NOSTACK;
  *handle = Core::instance().stack_handle(stack);
  return PNMPI_SUCCESS;
}

PNMPI_status_t pnmpi_module_stack(PNMPI_modHandle_t module, PNMPI_modHandle_t *stack) {
  if (stack == nullptr)
    return PNMPI_BADARG;
  const int layer = layer_of(module);
  if (layer < 0)
    return PNMPI_NOMODULE;
  const Core &core = Core::instance();
  *stack = core.stack_handle(core.layers()[static_cast<std::size_t>(layer)].spec->stack);
  return PNMPI_SUCCESS;
}

PNMPI_status_t PNMPI_Service_GetPcontrol(PNMPI_modHandle_t module, int *flag) {
  if (flag == nullptr)
    return PNMPI_BADARG;
  const int layer = layer_of(module);
  if (layer < 0)
    return PNMPI_NOMODULE;
  *flag = Core::instance().pcontrol_receives(layer) ? 1 : 0;
  return PNMPI_SUCCESS;
}

int PNMPI_Service_GetPcontrolSelf(void) {
  const int layer = calling_layer(__builtin_return_address(0));
  if (layer < 0)
    return 0;
  return Core::instance().pcontrol_receives(layer) ? 1 : 0;
}

void PNMPI_Service_CallHook(const char *hook) {
  if (hook == nullptr)
    return;
  const int layer = calling_layer(__builtin_return_address(0));
  if (layer < 0)
    return;
  Core &core = Core::instance();
  core.call_next_hook(hook, core.layers()[layer].spec->stack, layer);
}

void PNMPI_Service_CallHook_NewStack(const char *hook, PNMPI_modHandle_t handle) {
  Core &core = Core::instance();
  const int stack = core.stack_of(handle);
  if (hook == nullptr || stack < 0 || stack >= static_cast<int>(core.config().stacks.size()))
    return;
  core.call_next_hook(hook, stack, -1);
}

PNMPI_status_t PNMPI_Service_GetReturnAddress(void **address) {
  if (address == nullptr)
    return PNMPI_BADARG;
  void *found = pnmpi::application_return_address();
  if (found == nullptr)
    return PNMPI_FAILURE;
  *address = found;
  return PNMPI_SUCCESS;
}

PNMPI_status_t PNMPI_Service_GetFunctionAddress(void **address) {
  (void)address;
  return PNMPI_NOT_IMPLEMENTED;
}

PNMPI_status_t PNMPI_Service_ChangeStack(PNMPI_modHandle_t stack) {
  (void)stack;
  return PNMPI_NOT_IMPLEMENTED;
}

PNMPI_status_t PNMPI_Service_RegisterService(const PNMPI_Service_descriptor_t *service) {
  if (service == nullptr || service->fct == nullptr ||
      ::strnlen(service->name, PNMPI_SERVICE_NAMELEN) == PNMPI_SERVICE_NAMELEN ||
      ::strnlen(service->sig, PNMPI_SERVICE_SIGLEN) == PNMPI_SERVICE_SIGLEN)
    return PNMPI_BADARG;
  const int layer = calling_layer(__builtin_return_address(0));
  if (layer < 0)
    return PNMPI_NOMODULE;
  return guarded([&] {
    Registry &r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    return r.services.add(layer, *service);
  });
}

PNMPI_status_t PNMPI_Service_GetServiceByName(PNMPI_modHandle_t module, const char *name,
                                              const char *sig,
                                              PNMPI_Service_descriptor_t *service) {
  if (name == nullptr || sig == nullptr || service == nullptr)
    return PNMPI_BADARG;
  const int layer = module == PNMPI_MODHANDLE_NULL ? PNMPI_MODHANDLE_NULL : layer_of(module);
  if (module != PNMPI_MODHANDLE_NULL && layer < 0)
    return PNMPI_NOMODULE;
  return guarded([&] {
    Registry &r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    return r.services.find(
        layer, name,
        [&](const PNMPI_Service_descriptor_t &d) { return std::strcmp(d.sig, sig) == 0; },
        PNMPI_NOSERVICE, service);
  });
}

PNMPI_status_t PNMPI_Service_RegisterGlobal(const PNMPI_Global_descriptor_t *global) {
  if (global == nullptr || global->addr.p == nullptr ||
      ::strnlen(global->name, PNMPI_SERVICE_NAMELEN) == PNMPI_SERVICE_NAMELEN)
    return PNMPI_BADARG;
  const int layer = calling_layer(__builtin_return_address(0));
  if (layer < 0)
    return PNMPI_NOMODULE;
  return guarded([&] {
    Registry &r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    return r.globals.add(layer, *global);
  });
}

PNMPI_status_t PNMPI_Service_GetGlobalByName(PNMPI_modHandle_t module, const char *name, char sig,
                                             PNMPI_Global_descriptor_t *global) {
  if (name == nullptr || global == nullptr)
    return PNMPI_BADARG;
  const int layer = module == PNMPI_MODHANDLE_NULL ? PNMPI_MODHANDLE_NULL : layer_of(module);
  if (module != PNMPI_MODHANDLE_NULL && layer < 0)
    return PNMPI_NOMODULE;
  return guarded([&] {
    Registry &r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    return r.globals.find(
        layer, name, [&](const PNMPI_Global_descriptor_t &d) { return d.sig == sig; },
        PNMPI_NOGLOBAL, global);
  });
}

const char *PNMPI_Service_StatusString(PNMPI_status_t status) {
  // PnMPI's texts, word for word: modules print them and scripts match them.
  // PNMPI_NOT_INIT is PNMPI_FAILURE; PNMPI_BADARG is pnmpi's own code.
  switch (status) {
  case PNMPI_SUCCESS:
    return "Success";
  case PNMPI_FAILURE:
    return "Failure";
  case PNMPI_NOMEM:
    return "Can't allocate memory";
  case PNMPI_NOMODULE:
    return "Module not found";
  case PNMPI_NOSERVICE:
    return "Service not found";
  case PNMPI_NOGLOBAL:
    return "Global not found";
  case PNMPI_SIGNATURE:
    return "Signatures don't match";
  case PNMPI_NOARG:
    return "Argument not found";
  case PNMPI_NOSTACK:
    return "Stack not found";
  case PNMPI_BADARG:
    return "Invalid argument";
  case PNMPI_NOT_IMPLEMENTED:
    return "Service not implemented";
  }
  return "Unknown";
}

const char *PNMPI_Service_strerror(PNMPI_status_t status) {
  return PNMPI_Service_StatusString(status);
}

int pnmpi_module_is_site(PNMPI_modHandle_t module) {
  const int layer = layer_of(module);
  if (layer < 0)
    return -1;
  return Core::instance().is_site(layer) ? 1 : 0;
}

PNMPI_status_t pnmpi_site_failure(PNMPI_modHandle_t module, const char *message) {
  return guarded([&] {
    const int layer = layer_of(module);
    if (layer < 0)
      return PNMPI_NOMODULE;
    Core &core = Core::instance();
    if (!core.is_site(layer))
      return PNMPI_FAILURE;
    if (message != nullptr) {
      const pnmpi::ModuleSpec &spec = *core.layers()[static_cast<std::size_t>(layer)].spec;
      core.site_failure(layer, pnmpi::module_context(spec, core.config()) + ": " + message,
                        core.loading());
    } else if (!core.disabled(layer)) {
      const pnmpi::ModuleSpec &spec = *core.layers()[static_cast<std::size_t>(layer)].spec;
      core.site_failure(layer, pnmpi::module_context(spec, core.config()) + ": failed",
                        core.loading());
    }
    return PNMPI_SUCCESS;
  });
}

const char *pnmpi_site_records(void) {
  const std::string &dir = pnmpi::site_records();
  return dir.empty() ? nullptr : dir.c_str();
}

int pnmpi_site_record_create(const char *suffix, char *path, size_t size) {
  try {
    const std::string &dir = pnmpi::site_records();
    if (dir.empty() || suffix == nullptr) {
      errno = ENOENT;
      return -1;
    }
    std::string made;
    const int fd = pnmpi::create_record_file(dir, suffix, &made);
    if (path != nullptr && size > 0) {
      const std::size_t n = std::min(made.size(), size - 1);
      std::memcpy(path, made.data(), n);
      path[n] = '\0';
    }
    return fd;
  } catch (const pnmpi::Error &) {
    if (errno == 0)
      errno = EIO;
    return -1;
  } catch (...) {
    errno = ENOMEM;
    return -1;
  }
}

int pnmpi_module_count(void) {
  return static_cast<int>(Core::instance().layers().size());
}

int pnmpi_stack_count(void) {
  return static_cast<int>(Core::instance().config().stacks.size());
}

int pnmpi_routine_id(const char *mpi_name) {
  return mpi_name == nullptr ? -1 : Core::routines().find(mpi_name);
}

pnmpi_origin_t pnmpi_call_origin(const void *return_address, PNMPI_modHandle_t *module) {
  const int layer = Core::instance().layer_at(return_address);
  if (layer < 0)
    return PNMPI_ORIGIN_APPLICATION;
  if (module != nullptr)
    *module = Core::instance().module_handle(layer);
  return PNMPI_ORIGIN_MODULE;
}

} // extern "C"
