// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "arguments.h"

#include "error.h"

namespace pnmpi {

std::string argument_message(const Config &config, const ModuleSpec &module,
                             const Argument &argument, const std::string &problem) {
  return where(source_of(module, config), argument.line, module.name) + ": argument '" +
         argument.key + "' " + problem;
}

std::string missing_argument_message(const Config &config, const ModuleSpec &module,
                                     std::string_view key) {
  const std::string k(key);
  return where(source_of(module, config), module.line, module.name) + " needs an argument '" + k +
         "': add 'argument " + k + " VALUE' below this line";
}

} // namespace pnmpi
