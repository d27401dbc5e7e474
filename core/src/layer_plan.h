// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The one place that turns a configuration into layers: config file -> module lines ->
// resolved and checked module files -> the views the link stacks are built from. The core
// runs it at MPI_Init and then loads a copy per layer; pnmpi-info runs it to show what the
// core would do, collecting every problem instead of stopping at the first.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "link_stack.h"
#include "module_loader.h"

namespace pnmpi {

/// One `module` line, resolved to its file.
struct PlannedLayer {
  const ModuleSpec *spec;
  std::string path;       ///< the file found for it; "" when it could not be resolved
  ModuleFile *file;       ///< read and checked; null only when errors are collected
  std::string error = ""; ///< why it has no file, when errors are collected
};

/// A configuration turned into layers, in config order. Owns the config and the files that
/// the layers point into; move it, never copy it.
struct LayerPlan {
  std::string config_path;
  Config config;
  std::vector<std::string> search_path;
  std::vector<std::unique_ptr<ModuleFile>> files; ///< one per distinct file, read once
  std::vector<PlannedLayer> layers;               ///< one per module line
};

/// Reads the configuration at `config_path`, finds every module on `search_path`, reads and
/// checks each distinct file once, and checks each line's arguments against what its file
/// declares. Throws pnmpi::Error at the first problem; with `errors`, a configuration that
/// parses is planned to the end, every problem with a module is appended there and that
/// layer keeps its number with a null file.
LayerPlan plan_layers(const std::string &config_path, std::vector<std::string> search_path,
                      const RoutineIndex &routines, std::vector<std::string> *errors = nullptr);

/// As plan_layers(), for a configuration already read (a user's composed with the site's).
LayerPlan plan_config(Config config, std::vector<std::string> search_path,
                      const RoutineIndex &routines, std::vector<std::string> *errors = nullptr);

/// The layers as the link stacks see them, loaded at `bases` (one per layer; all zero to
/// see the stacks' shape without loading). A layer with no file wraps nothing.
std::vector<LayerView> layer_views(const LayerPlan &plan, const std::vector<std::uintptr_t> &bases);

} // namespace pnmpi
