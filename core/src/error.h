// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "log.h"

namespace pnmpi {

/// Any error the core reports to the user. The message is complete: it names the file,
/// line and module it is about and says what to do. It never crosses an extern "C" boundary:
/// the entry points catch it, print it once and end the job.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

/// `FILE:LINE`: the start of every message about a line of a file. The one place this
/// prefix (and the module one below) is spelt; a long `file` is shortened (shown()).
inline std::string where(std::string_view file, int line) {
  return shown(file) + ":" + std::to_string(line);
}

/// `FILE:LINE: module 'NAME'`: the start of every message about a module's line (its
/// `module` line or one of its `argument` lines).
inline std::string where(std::string_view file, int line, std::string_view module) {
  return where(file, line) + ": module '" + std::string(module) + "'";
}

} // namespace pnmpi
