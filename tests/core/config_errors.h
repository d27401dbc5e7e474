// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <string>

#include "config.h"
#include "error_of.h"

namespace pnmpi {

/// The message parsing `text` as a configuration named "conf" gives, or "(no error)".
inline std::string config_error(const std::string &text) {
  return test::error_of([&] { parse_config(text, "conf"); });
}

/// The message loading the configuration file at `path` gives, or "(no error)".
inline std::string load_error(const std::string &path) {
  return test::error_of([&] { load_config_file(path); });
}

} // namespace pnmpi
