// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <string>

namespace pnmpi {

/// The PNMPI_DEBUG level (0 when unset): 1 names the config and sums up the load, 2 adds
/// every layer and its file, 3 the link stack of every wrapped routine, 4 the bound call
/// sites of every layer.
int debug_level();

/// Prints `pnmpi[debug]: message` when PNMPI_DEBUG >= level.
void debug(int level, const std::string &message);

/// Prints `pnmpi: message` to stderr, in one write so ranks do not interleave.
void print_error(const std::string &message);

/// Prints the error and ends the process with status 1 without running exit handlers
/// (modules may be half loaded). Used where the job cannot go on.
[[noreturn]] void fatal(const std::string &message);

} // namespace pnmpi
