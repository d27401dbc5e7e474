// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "module_path.h"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>

#include "error.h"
#include "log.h"
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

/// The install's module directory: the configured one, unless libpnmpi.so was loaded from an
/// install elsewhere, which then searches its own.
std::string install_dir_for(const std::string &libdir) {
  const std::string configured = PNMPI_MODULE_DIR;
  if (libdir.empty() || configured.empty())
    return configured;
  if (*PNMPI_BUILD_LIB_DIR != '\0' && same_directory(libdir, PNMPI_BUILD_LIB_DIR))
    return configured; // the build tree is not an install: it searches what it was configured for
  const std::string own = install_module_dir(libdir);
  return same_directory(own, configured) ? configured : own;
}

bool is_regular_file(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool ends_with(const std::string &s, const char *suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

} // namespace

std::vector<std::string> module_search_path(const SearchPathInputs &inputs) {
  std::vector<std::string> dirs = inputs.first;
  if (inputs.lib_path != nullptr) {
    const std::string s(inputs.lib_path);
    std::size_t pos = 0;
    while (pos <= s.size()) {
      std::size_t end = s.find(':', pos);
      if (end == std::string::npos)
        end = s.size();
      if (end > pos)
        dirs.push_back(s.substr(pos, end - pos));
      pos = end + 1;
    }
  }
  const std::string install = install_dir_for(inputs.libdir);
  if (!install.empty())
    dirs.push_back(install);
  return dirs;
}

std::string install_module_dir(const std::string &libdir) {
  return libdir + "/pnmpi/modules";
}

std::string directory_of(const std::string &path) {
  char resolved[PATH_MAX];
  std::string p = ::realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : path;
  const std::size_t slash = p.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : p.substr(0, slash);
}

std::string resolve_module(const ModuleSpec &module, const Config &config,
                           const std::vector<std::string> &search_path) {
  if (module.name.find('/') != std::string::npos) {
    struct stat st;
    if (::stat(module.name.c_str(), &st) != 0)
      throw Error(module_context(module, config) + ": no such file " + shown(module.name));
    if (S_ISDIR(st.st_mode))
      throw Error(module_context(module, config) + ": " + shown(module.name) +
                  " is a directory, not a module file");
    if (!S_ISREG(st.st_mode))
      throw Error(module_context(module, config) + ": " + shown(module.name) +
                  " is not a regular file, so it cannot be a module");
    return module.name;
  }
  std::vector<std::string> candidates;
  if (ends_with(module.name, ".so"))
    candidates.push_back(module.name);
  else
    candidates = {module.name + ".so", "lib" + module.name + ".so"};
  for (const std::string &dir : search_path)
    for (const std::string &file : candidates) {
      const std::string path = dir + "/" + file;
      if (is_regular_file(path))
        return path;
    }
  std::string tried;
  for (const std::string &file : candidates)
    tried += (tried.empty() ? "" : " or ") + shown(file);
  std::string where;
  for (const std::string &dir : search_path)
    where += (where.empty() ? "" : ", ") + shown(dir);
  throw Error(module_context(module, config) + " not found: no " + tried + " in " +
              (where.empty() ? std::string("any directory (PNMPI_LIB_PATH is not set)")
                             : where + " (PNMPI_LIB_PATH, then the install's module directory)") +
              "; add the directory that holds it to PNMPI_LIB_PATH");
}

} // namespace pnmpi
