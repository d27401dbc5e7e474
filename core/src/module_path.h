// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// Where modules are looked for and which file a `module` line names: the one home of the
// module search path, for the core (at MPI_Init) and pnmpi-info alike. Nothing here reads
// the environment: callers pass what they were given.

#include <string>
#include <vector>

#include "config.h"

namespace pnmpi {

/// What the search path is made of, in the order it is searched.
struct SearchPathInputs {
  /// Directories named on a command line (`pnmpi-info -L`), searched first.
  std::vector<std::string> first;
  /// The value of PNMPI_LIB_PATH, or null: ':'-separated directories. An empty element
  /// (`a::b`, a leading or trailing ':') is ignored: it never means the working directory,
  /// as it would for PATH.
  const char *lib_path = nullptr;
  /// The directory libpnmpi.so was loaded from, "" if unknown: an install that is not where
  /// it was configured (`cmake --install --prefix`, a moved or packaged tree) searches its
  /// own module directory LIBDIR/pnmpi/modules instead of the configured one.
  std::string libdir;
};

/// The directories to search, in order: `first`, the PNMPI_LIB_PATH directories, then the
/// install's module directory (as configured, or the one beside `libdir`, see above). A
/// build tree and an install at its configured prefix search the configured directory.
std::vector<std::string> module_search_path(const SearchPathInputs &inputs);

/// The module directory of an install whose libraries (libpnmpi.so) are in `libdir`:
/// LIBDIR/pnmpi/modules, as `cmake --install` lays it out.
std::string install_module_dir(const std::string &libdir);

/// The directory that holds the file at `path` (its realpath's parent when it exists).
std::string directory_of(const std::string &path);

/// Finds the file for `module` (NAME.so or libNAME.so in each directory, or the path as
/// given when it contains a '/'). Throws pnmpi::Error naming the config line and every
/// place searched.
std::string resolve_module(const ModuleSpec &module, const Config &config,
                           const std::vector<std::string> &search_path);

} // namespace pnmpi
