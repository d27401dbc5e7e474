// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "install_paths.h"

#include <climits>
#include <cstdlib>
#include <sys/stat.h>

#include "module_loader.h"

#ifndef PNMPI_MODULE_DIR
#define PNMPI_MODULE_DIR ""
#endif
#ifndef PNMPI_BUILD_LIB_DIR
#define PNMPI_BUILD_LIB_DIR ""
#endif

namespace pnmpi {

namespace {

/// Whether two paths name the same existing directory (or are the same string).
bool same_directory(const std::string &a, const std::string &b) {
  if (a == b)
    return true;
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

} // namespace

std::string install_module_dir(const std::string &libdir) {
  return libdir + "/pnmpi/modules";
}

std::vector<std::string> effective_module_search_path(const std::string &libdir) {
  std::vector<std::string> dirs = module_search_path();
  const std::string configured = PNMPI_MODULE_DIR;
  if (libdir.empty() || configured.empty() || dirs.empty() || dirs.back() != configured)
    return dirs;
  if (*PNMPI_BUILD_LIB_DIR != '\0' && same_directory(libdir, PNMPI_BUILD_LIB_DIR))
    return dirs; // the build tree is not an install: it searches what it was configured for
  const std::string own = install_module_dir(libdir);
  if (!same_directory(own, configured))
    dirs.back() = own;
  return dirs;
}

std::string directory_of(const std::string &path) {
  char resolved[PATH_MAX];
  std::string p = ::realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : path;
  const std::size_t slash = p.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : p.substr(0, slash);
}

} // namespace pnmpi
