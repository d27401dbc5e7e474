// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "layer_plan.h"

#include <map>
#include <utility>

#include "error.h"
#include "module_path.h"

namespace pnmpi {

LayerPlan plan_layers(const std::string &config_path, std::vector<std::string> search_path,
                      const RoutineIndex &routines, std::vector<std::string> *errors) {
  return plan_config(load_config_file(config_path), std::move(search_path), routines, errors);
}

LayerPlan plan_config(Config config, std::vector<std::string> search_path,
                      const RoutineIndex &routines, std::vector<std::string> *errors) {
  LayerPlan plan;
  plan.config_path = config.path;
  plan.config = std::move(config);
  plan.search_path = std::move(search_path);
  plan.layers.reserve(plan.config.modules.size());
  std::map<std::string, ModuleFile *> by_path; // a file that failed maps to null
  // A name resolves to the same file on every line (the search path does not change while
  // the plan is made), so a module listed 1,000 times is looked for once.
  std::map<std::string, std::string> found_as;
  for (const ModuleSpec &spec : plan.config.modules) {
    PlannedLayer layer{&spec, "", nullptr};
    try {
      auto known = found_as.find(spec.name);
      if (known == found_as.end())
        known =
            found_as.emplace(spec.name, resolve_module(spec, plan.config, plan.search_path)).first;
      layer.path = known->second;
      auto found = by_path.find(layer.path);
      if (found != by_path.end()) {
        layer.file = found->second;
      } else {
        by_path.emplace(layer.path, nullptr); // reported once, however many lines name it
        plan.files.push_back(read_module_file(layer.path, spec, plan.config, routines));
        layer.file = by_path[layer.path] = plan.files.back().get();
      }
      if (layer.file != nullptr)
        check_declared_arguments(layer.file->image, spec, plan.config);
    } catch (const Error &e) {
      if (errors == nullptr)
        throw;
      errors->push_back(e.what());
      layer.error = e.what();
      layer.file = nullptr;
    }
    plan.layers.push_back(std::move(layer));
  }
  return plan;
}

std::vector<LayerView> layer_views(const LayerPlan &plan,
                                   const std::vector<std::uintptr_t> &bases) {
  static const ElfImage kNothing;
  std::vector<LayerView> views;
  views.reserve(plan.layers.size());
  for (std::size_t i = 0; i < plan.layers.size(); ++i) {
    const PlannedLayer &l = plan.layers[i];
    views.push_back({l.spec->stack, bases[i], l.file != nullptr ? &l.file->image : &kNothing});
  }
  return views;
}

} // namespace pnmpi
