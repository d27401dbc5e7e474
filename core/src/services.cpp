// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The module API of pnmpi/pnmpi.h. Everything here reads the Core that load() built and
// never changes; no exception leaves these functions.

#include <pnmpi/pnmpi.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "core.h"

using pnmpi::Core;

namespace {

/// Names, services and globals that modules publish. Written mostly from hooks at load
/// time, read from anywhere later: a mutex keeps it simple, and nothing here is on a
/// per-call path (modules look a service up once and keep the function pointer).
struct Registry {
  std::mutex lock;
  std::vector<std::string> module_names; ///< per layer; empty: not read yet
  struct Service {
    int layer;
    PNMPI_Service_descriptor_t descriptor;
  };
  struct Global {
    int layer;
    PNMPI_Global_descriptor_t descriptor;
  };
  std::vector<Service> services;
  std::vector<Global> globals;

  /// Fills module_names on first use: PNMPI_ModuleName if the module defines it, else the
  /// name on its `module` line.
  void ensure_names() {
    const auto &layers = Core::instance().layers();
    if (module_names.size() == layers.size())
      return;
    module_names.clear();
    for (const pnmpi::Layer &layer : layers) {
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

bool valid_module(PNMPI_modHandle_t handle) {
  return handle >= 0 && handle < static_cast<int>(Core::instance().layers().size());
}

} // namespace

extern "C" {

PNMPI_status_t PNMPI_Service_GetModuleSelf(PNMPI_modHandle_t *handle) {
  if (handle == nullptr)
    return PNMPI_BADARG;
  if (!Core::instance().loaded())
    return PNMPI_NOT_INIT;
  const int layer = calling_layer(__builtin_return_address(0));
  if (layer < 0)
    return PNMPI_NOMODULE;
  *handle = layer;
  return PNMPI_SUCCESS;
}

PNMPI_status_t PNMPI_Service_GetArgument(PNMPI_modHandle_t module, const char *name,
                                         const char **value) {
  if (name == nullptr || value == nullptr)
    return PNMPI_BADARG;
  if (!valid_module(module))
    return PNMPI_NOMODULE;
  const std::string *v = Core::instance().layers()[module].spec->argument(name);
  if (v == nullptr)
    return PNMPI_NOARG;
  *value = v->c_str();
  return PNMPI_SUCCESS;
}

const char *PNMPI_Service_GetArgumentSelf(const char *name) {
  const int layer = calling_layer(__builtin_return_address(0));
  const char *value = nullptr;
  if (layer < 0 || PNMPI_Service_GetArgument(layer, name, &value) != PNMPI_SUCCESS)
    return nullptr;
  return value;
}

PNMPI_status_t PNMPI_Service_RegisterModule(const char *name) {
  if (name == nullptr || *name == '\0')
    return PNMPI_BADARG;
  const int layer = calling_layer(__builtin_return_address(0));
  if (layer < 0)
    return PNMPI_NOMODULE;
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.ensure_names();
  r.module_names[layer] = name;
  return PNMPI_SUCCESS;
}

PNMPI_status_t PNMPI_Service_GetModuleByName(const char *name, PNMPI_modHandle_t *handle) {
  if (name == nullptr || handle == nullptr)
    return PNMPI_BADARG;
  if (!Core::instance().loaded())
    return PNMPI_NOT_INIT;
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  r.ensure_names();
  for (std::size_t i = 0; i < r.module_names.size(); ++i)
    if (r.module_names[i] == name) {
      *handle = static_cast<int>(i);
      return PNMPI_SUCCESS;
    }
  return PNMPI_NOMODULE;
}

PNMPI_status_t PNMPI_Service_GetStackByName(const char *name, PNMPI_modHandle_t *handle) {
  if (name == nullptr || handle == nullptr)
    return PNMPI_BADARG;
  const auto &stacks = Core::instance().config().stacks;
  for (std::size_t i = 0; i < stacks.size(); ++i)
    if (stacks[i] == name) {
      *handle = static_cast<int>(i);
      return PNMPI_SUCCESS;
    }
  return PNMPI_NOSTACK;
}

PNMPI_status_t PNMPI_Service_RegisterService(const PNMPI_Service_descriptor_t *service) {
  if (service == nullptr || service->fct == nullptr ||
      ::strnlen(service->name, PNMPI_SERVICE_NAMELEN) == PNMPI_SERVICE_NAMELEN ||
      ::strnlen(service->sig, PNMPI_SERVICE_SIGLEN) == PNMPI_SERVICE_SIGLEN)
    return PNMPI_BADARG;
  const int layer = calling_layer(__builtin_return_address(0));
  if (layer < 0)
    return PNMPI_NOMODULE;
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  for (const Registry::Service &s : r.services)
    if (s.layer == layer && std::strcmp(s.descriptor.name, service->name) == 0)
      return PNMPI_BADARG;
  r.services.push_back({layer, *service});
  return PNMPI_SUCCESS;
}

PNMPI_status_t PNMPI_Service_GetServiceByName(PNMPI_modHandle_t module, const char *name,
                                              const char *sig,
                                              PNMPI_Service_descriptor_t *service) {
  if (name == nullptr || sig == nullptr || service == nullptr)
    return PNMPI_BADARG;
  if (module != PNMPI_MODHANDLE_NULL && !valid_module(module))
    return PNMPI_NOMODULE;
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  bool other_signature = false;
  for (const Registry::Service &s : r.services) {
    if ((module != PNMPI_MODHANDLE_NULL && s.layer != module) ||
        std::strcmp(s.descriptor.name, name) != 0)
      continue;
    if (std::strcmp(s.descriptor.sig, sig) != 0) {
      other_signature = true;
      continue;
    }
    *service = s.descriptor;
    return PNMPI_SUCCESS;
  }
  return other_signature ? PNMPI_SIGNATURE : PNMPI_NOSERVICE;
}

PNMPI_status_t PNMPI_Service_RegisterGlobal(const PNMPI_Global_descriptor_t *global) {
  if (global == nullptr || global->addr.p == nullptr ||
      ::strnlen(global->name, PNMPI_SERVICE_NAMELEN) == PNMPI_SERVICE_NAMELEN)
    return PNMPI_BADARG;
  const int layer = calling_layer(__builtin_return_address(0));
  if (layer < 0)
    return PNMPI_NOMODULE;
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  for (const Registry::Global &g : r.globals)
    if (g.layer == layer && std::strcmp(g.descriptor.name, global->name) == 0)
      return PNMPI_BADARG;
  r.globals.push_back({layer, *global});
  return PNMPI_SUCCESS;
}

PNMPI_status_t PNMPI_Service_GetGlobalByName(PNMPI_modHandle_t module, const char *name, char sig,
                                             PNMPI_Global_descriptor_t *global) {
  if (name == nullptr || global == nullptr)
    return PNMPI_BADARG;
  if (module != PNMPI_MODHANDLE_NULL && !valid_module(module))
    return PNMPI_NOMODULE;
  Registry &r = registry();
  std::lock_guard<std::mutex> guard(r.lock);
  bool other_signature = false;
  for (const Registry::Global &g : r.globals) {
    if ((module != PNMPI_MODHANDLE_NULL && g.layer != module) ||
        std::strcmp(g.descriptor.name, name) != 0)
      continue;
    if (g.descriptor.sig != sig) {
      other_signature = true;
      continue;
    }
    *global = g.descriptor;
    return PNMPI_SUCCESS;
  }
  return other_signature ? PNMPI_SIGNATURE : PNMPI_NOGLOBAL;
}

const char *PNMPI_Service_StatusString(PNMPI_status_t status) {
  switch (status) {
  case PNMPI_SUCCESS:
    return "success";
  case PNMPI_NOT_INIT:
    return "pnmpi has not loaded its modules yet (before MPI_Init)";
  case PNMPI_NOMEM:
    return "out of memory";
  case PNMPI_NOMODULE:
    return "no such module";
  case PNMPI_NOSERVICE:
    return "no such service";
  case PNMPI_NOGLOBAL:
    return "no such global";
  case PNMPI_SIGNATURE:
    return "found, but with another signature";
  case PNMPI_NOARG:
    return "no such argument";
  case PNMPI_NOSTACK:
    return "no such stack";
  case PNMPI_BADARG:
    return "invalid argument";
  }
  return "unknown pnmpi status";
}

int pnmpi_module_count(void) {
  return static_cast<int>(Core::instance().layers().size());
}

pnmpi_origin_t pnmpi_call_origin(const void *return_address, PNMPI_modHandle_t *module) {
  const int layer = Core::instance().layer_at(return_address);
  if (layer < 0)
    return PNMPI_ORIGIN_APPLICATION;
  if (module != nullptr)
    *module = layer;
  return PNMPI_ORIGIN_MODULE;
}

} // extern "C"
