// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config.h"

namespace pnmpi {

// Typed reading of module arguments (pnmpi_argument_* in pnmpi.h). Each parser returns
// nullopt and sets `out` when `value` is acceptable, else what is wrong with it, phrased to
// follow "argument 'KEY' ": "must be a whole number from 0 to 10, not 'x'".

std::optional<std::string> parse_long(const std::string &value, long min, long max, long &out);
std::optional<std::string> parse_double(const std::string &value, double min, double max,
                                        double &out);
std::optional<std::string> parse_bool(const std::string &value, bool &out);
std::optional<std::string> parse_choice(const std::string &value,
                                        const std::vector<std::string> &choices, int &out);

/// `PATH:LINE: module 'NAME': argument 'KEY' PROBLEM`, LINE being the argument's line.
std::string argument_message(const Config &config, const ModuleSpec &module,
                             const Argument &argument, const std::string &problem);

/// `PATH:LINE: module 'NAME' needs an argument 'KEY': add 'argument KEY VALUE' below this
/// line`, LINE being the module's line.
std::string missing_argument_message(const Config &config, const ModuleSpec &module,
                                     std::string_view key);

} // namespace pnmpi
