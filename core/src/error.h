// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <stdexcept>
#include <string>

namespace pnmpi {

/// Any error the core reports to the user. The message is complete: it names the file,
/// line and module it is about and says what to do. It never crosses an extern "C" boundary:
/// the entry points catch it, print it once and end the job.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

} // namespace pnmpi
