// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <string>
#include <string_view>

#include "config.h"

namespace pnmpi {

// The messages of the typed argument readers (pnmpi_argument_* in pnmpi.h); the values
// themselves are parsed by values.h, whose problems these put in context.

/// `PATH:LINE: module 'NAME': argument 'KEY' PROBLEM`, LINE being the argument's line.
std::string argument_message(const Config &config, const ModuleSpec &module,
                             const Argument &argument, const std::string &problem);

/// `PATH:LINE: module 'NAME' needs an argument 'KEY': add 'argument KEY VALUE' below this
/// line`, LINE being the module's line.
std::string missing_argument_message(const Config &config, const ModuleSpec &module,
                                     std::string_view key);

} // namespace pnmpi
