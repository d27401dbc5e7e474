// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The MPI's Fortran bindings are ordinary shared objects that reach MPI through dynamic
// imports: Open MPI's call PMPI_X, MPICH's call MPI_X or PMPI_X. Binding those imports,
// once, to pnmpi's MPI_X (the way the core binds a module's XMPI_X) makes every Fortran call
// enter the chain as the C call, after MPI's own conversion of handles, strings, logicals,
// sentinels and index bases, and exactly once: the chain's bottom is libmpi's PMPI_X, which
// never passes through a binding. No per-call code is added.

#include "bindings.h"

#include <algorithm>
#include <link.h>
#include <mutex>
#include <set>

#include "error.h"
#include "input_file.h"
#include "link_stack.h"

namespace pnmpi {

namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

struct LoadedObject {
  std::string path;
  std::uintptr_t base;
};

int collect_binding(dl_phdr_info *info, std::size_t, void *data) {
  if (info->dlpi_name != nullptr && is_language_binding(info->dlpi_name))
    static_cast<std::vector<LoadedObject> *>(data)->push_back({info->dlpi_name, info->dlpi_addr});
  return 0;
}

} // namespace

bool is_language_binding(std::string_view path) {
  for (std::string_view name :
       {"libmpi_mpifh.so", "libmpi_usempif08.so", "libmpi_usempi_ignore_tkr.so", "libmpi_usempi.so",
        "libmpichfort.so", "libmpifort.so"})
    if (is_library(path, name))
      return true;
  return false;
}

bool is_language_conversion(std::string_view name) {
  for (const char *tail : {"_f2c", "_c2f", "_f082c", "_c2f08", "_f082f", "_f2f08"})
    if (ends_with(name, tail))
      return true;
  return false;
}

std::vector<std::uintptr_t> binding_targets(const char *const *names, unsigned count,
                                            const std::vector<std::uintptr_t> &entry,
                                            const std::vector<std::uintptr_t> &mpi) {
  std::vector<std::uintptr_t> targets(count);
  for (unsigned id = 0; id < count; ++id)
    targets[id] = is_language_conversion(names[id]) ? mpi[id] : entry[id];
  return targets;
}

std::vector<RedirectedBinding>
redirect_language_bindings(const RoutineIndex &routines, const char *const *names,
                           const std::vector<std::uintptr_t> &targets) {
  static std::mutex lock;
  static std::set<std::uintptr_t> done; // load bases of the bindings already bound
  const std::lock_guard<std::mutex> guard(lock);

  std::vector<LoadedObject> objects;
  ::dl_iterate_phdr(collect_binding, &objects);
  std::vector<RedirectedBinding> redirected;
  for (const LoadedObject &object : objects) {
    if (!done.insert(object.base).second)
      continue;
    const ElfImage image =
        read_elf_image(read_input_file(object.path, 1ull << 30,
                                       object.path + ": cannot read this MPI language binding"),
                       object.path, routines, SiteNames::Mpi);
    bind_imports(object.base, image, targets);
    RedirectedBinding r{object.path, image.sites.size(), 0};
    for (const ElfImage::Site &site : image.sites)
      r.conversions += is_language_conversion(names[site.id]);
    redirected.push_back(std::move(r));
  }
  return redirected;
}

} // namespace pnmpi
