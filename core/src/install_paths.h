// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <string>
#include <vector>

namespace pnmpi {

/// The module directory of an install whose libraries (libpnmpi.so) are in `libdir`:
/// LIBDIR/pnmpi/modules, as `cmake --install` lays it out.
std::string install_module_dir(const std::string &libdir);

/// Where modules are looked for, as the core and pnmpi-info both look: module_search_path()
/// (the PNMPI_LIB_PATH directories, then the install's module directory as configured),
/// except that an install that is not where it was configured (`cmake --install --prefix`,
/// a moved or packaged tree) searches its own module directory instead, found from `libdir`,
/// the directory libpnmpi.so is in. A build tree and an install at its configured prefix
/// search exactly what module_search_path() says. An empty `libdir` changes nothing.
std::vector<std::string> effective_module_search_path(const std::string &libdir);

/// The directory that holds the file at `path` (its realpath's parent when it exists).
std::string directory_of(const std::string &path);

} // namespace pnmpi
