// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "module_loader.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <link.h>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_slide.h"
#include "error.h"
#include "input_file.h"
#include "log.h"

#ifndef PNMPI_MPI_SONAME
#error "PNMPI_MPI_SONAME names the MPI library pnmpi is built for (CMake sets it)"
#endif

namespace pnmpi {

std::string module_context(const ModuleSpec &module, const Config &config) {
  return where(shown(source_of(module, config)), module.line, shown(module.name));
}

namespace {

/// Which MPI a library soname belongs to, as people know it.
std::string mpi_family(std::string_view soname) {
  if (soname.substr(0, 8) == "libmpich")
    return "MPICH";
  if (soname == "libmpi.so.12")
    return "an MPICH-based MPI";
  if (soname == "libmpi.so.40")
    return "Open MPI 3 to 5";
  return "an MPI";
}

int collect_other_mpi(dl_phdr_info *info, std::size_t, void *data) {
  if (info->dlpi_name != nullptr && is_other_mpi(info->dlpi_name))
    static_cast<std::vector<std::string> *>(data)->push_back(info->dlpi_name);
  return 0;
}

} // namespace

bool is_other_mpi(std::string_view library) {
  const bool mpi = is_library(library, "libmpi.so") || is_library(library, "libmpich.so");
  return mpi && !is_library(library, PNMPI_MPI_SONAME);
}

std::string built_for_other_mpi(const std::string &library, const char *what) {
  const std::size_t slash = library.rfind('/');
  const std::string name = slash == std::string::npos ? library : library.substr(slash + 1);
  return std::string("built for another MPI: the ") + what + " needs " + name + " (" +
         mpi_family(name) + "), and this pnmpi was built for " + PNMPI_MPI_SONAME + " (" +
         mpi_family(PNMPI_MPI_SONAME) + "); use a " + what + " built for " + PNMPI_MPI_SONAME +
         ", or the pnmpi built for " + name;
}

std::vector<std::string> loaded_other_mpis() {
  std::vector<std::string> found;
  ::dl_iterate_phdr(collect_other_mpi, &found);
  return found;
}

void check_declared_arguments(const ElfImage &image, const ModuleSpec &module,
                              const Config &config) {
  if (!image.argument_keys)
    return;
  const std::vector<std::string> &keys = *image.argument_keys;
  for (const Argument &a : module.arguments) {
    if (std::find(keys.begin(), keys.end(), a.key) != keys.end())
      continue;
    std::string accepted;
    for (const std::string &k : keys)
      accepted += (accepted.empty() ? "" : ", ") + k;
    throw Error(where(shown(source_of(module, config)), a.line, shown(module.name)) +
                " takes no argument '" + shown(a.key) + "' (it takes " +
                (keys.empty() ? std::string("none") : accepted) + "); check the spelling");
  }
}

namespace {

/// An MPI library defines hundreds of PMPI_ routines, a converted tool none; a few allow
/// for a tool that defines a helper of that name.
constexpr std::size_t kMpiLibraryPmpiDefinitions = 8;

} // namespace

namespace {
/// Far more than any PMPI tool (the largest shared objects of a system are a few hundred MB).
constexpr std::uint64_t kMaxModuleBytes = 1ull << 30;
} // namespace

std::unique_ptr<ModuleFile> read_module_file(const std::string &path, const ModuleSpec &module,
                                             const Config &config, const RoutineIndex &routines) {
  const std::string context = module_context(module, config) + " (" + shown(path) + ")";
  check_trusted(path, context);
  auto file = std::make_unique<ModuleFile>();
  file->path = path;
  file->bytes =
      read_input_file(path, kMaxModuleBytes, context + ": cannot read it", &file->identity);
  file->identity_known = true;
  file->image = read_elf_image(file->bytes, context, routines);
  const ElfImage &image = file->image;
  if (image.pmpi_defined.size() >= kMpiLibraryPmpiDefinitions) {
    std::string examples;
    for (std::size_t i = 0; i < 3; ++i)
      examples += (i ? ", " : "") + image.pmpi_defined[i];
    throw Error(context + ": defines " + std::to_string(image.pmpi_defined.size()) +
                " PMPI_ symbol(s) (" + examples +
                ", ...): it is an MPI library, not a PMPI tool; list the tools to chain, "
                "never the MPI library itself, which is always the bottom layer");
  }
  for (const std::string &lib : image.needed)
    if (is_other_mpi(lib))
      throw Error(context + ": " + built_for_other_mpi(lib, "module"));
  if (!image.pmpi_imports.empty()) {
    const std::size_t more = image.pmpi_imports.size() - 1;
    throw Error(context + ": calls " + image.pmpi_imports.front() + " directly" +
                (more ? " (and " + std::to_string(more) + " more PMPI_ routines)" : "") +
                ": it is a plain PMPI tool, not converted yet; run 'pnmpi-patch " + path +
                " OUT.so' and list OUT.so instead");
  }
  if (!image.unknown_xmpi.empty())
    throw Error(context + ": needs " + image.unknown_xmpi.front() +
                ", which the MPI pnmpi was built for does not provide; rebuild the module "
                "against this MPI");
  // PnMPI loads such a module (its constructors may be all it needs), so pnmpi does too,
  // and says so where someone looking for a missing tool will look.
  if (image.wrappers.empty() && image.pnmpi_syms.empty())
    debug(1, context + ": wraps no MPI routine and defines no pnmpi hook, so it does "
                       "nothing but load; if it was built with -fvisibility=hidden, export "
                       "its MPI_ wrappers (PNMPI_EXPORT)");
  return file;
}

CopyDirectory::~CopyDirectory() {
  if (!m_path.empty())
    ::rmdir(m_path.c_str());
}

std::vector<std::string> copy_directory_bases() {
  std::vector<std::string> bases;
  struct stat st;
  if (::stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && ::access("/dev/shm", W_OK) == 0)
    bases.emplace_back("/dev/shm");
  const char *tmp = std::getenv("TMPDIR");
  bases.emplace_back(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp");
  return bases;
}

const std::string &CopyDirectory::path(const std::string &context) {
  if (!m_path.empty())
    return m_path;
  if (m_bases.empty())
    m_bases = copy_directory_bases();
  std::string tried;
  for (const std::string &base : m_bases) {
    std::string templ = base + "/pnmpi-XXXXXX";
    if (::mkdtemp(templ.data()) != nullptr) {
      m_path = templ;
      return m_path;
    }
    tried += (tried.empty() ? "" : ", ") + base + " (" + std::strerror(errno) + ")";
  }
  throw Error(context +
              ": listed more than once, so each layer needs its own copy, but no "
              "directory for copies could be made in " +
              tried + "; set TMPDIR to a writable directory");
}

namespace {

/// Writes `bytes` to a new file `path` (exclusively: the name is ours alone).
void write_copy(const std::string &path, const std::vector<unsigned char> &bytes,
                const std::string &context) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  if (fd < 0)
    throw Error(context + ": cannot make a copy for another layer at " + path + ": " +
                std::strerror(errno));
  const unsigned char *p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(path.c_str());
      throw Error(context + ": cannot write a copy for another layer at " + path + ": " +
                  std::strerror(n < 0 ? err : ENOSPC));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  ::close(fd);
}

/// How copies after the first are made: PNMPI_COPIES, read once; for comparisons only.
enum class CopyMode { Mapped, Unslid, Files };

CopyMode copy_mode() {
  static const CopyMode mode = [] {
    const char *env = std::getenv("PNMPI_COPIES");
    const std::string value = env != nullptr ? env : "";
    if (value.empty() || value == "mapped")
      return CopyMode::Mapped;
    if (value == "unslid")
      return CopyMode::Unslid;
    if (value == "files")
      return CopyMode::Files;
    print_error("warning: PNMPI_COPIES is '" + shown(value) +
                "', not mapped, unslid or files; copies are mapped");
    return CopyMode::Mapped;
  }();
  return mode;
}

std::string base_name(const std::string &path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

void *module_symbol(const LoadedModule &module, const char *name) {
  if (module.mapped != nullptr)
    return copy_symbol(*module.mapped, module.base, name);
  return ::dlsym(module.handle, name);
}

namespace {

/// Refuses a module file that is no longer the version read (and checked): the dynamic
/// linker and the copy loader open it again by its path, and a file replaced in between (an
/// installation while jobs start), even by one of the same size, would mix two versions.
void check_unchanged(const ModuleFile &file, const std::string &context) {
  if (!file.identity_known)
    return;
  FileIdentity now;
  if (!identity_at(file.path, &now) || !same_file(now, file.identity))
    throw Error(context + ": the file was replaced or rewritten after pnmpi read it (an "
                          "installation while the job started?): its layers would mix two "
                          "versions of it; start the job again once it no longer changes");
}

} // namespace

LoadedModule load_module_copy(ModuleFile &file, const ModuleSpec &module, const Config &config,
                              CopyDirectory &copies, int layer) {
  const std::string context = module_context(module, config) + " (" + shown(file.path) + ")";
  void *handle = nullptr;
  std::uint64_t slide = 0;
  if (file.loaded == 0) {
    // The first copy binds every symbol now, so an unresolved one is reported here, with
    // the config line, rather than as a crash at its first call. The file is checked before
    // and after: what the dynamic linker opened in between is the version read.
    check_unchanged(file, context);
    handle = ::dlopen(file.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      try {
        check_unchanged(file, context);
      } catch (...) {
        ::dlclose(handle);
        throw;
      }
    }
    file.first = handle;
  } else {
    // Copies are slid by different multiples of the cache line (elf_slide.h), so that the
    // layers' hot code, GOT slots and branches do not all fall into the same cache and
    // branch-predictor sets; the first copy and every 64th after it sit unslid.
    if (!file.slides_known) {
      std::string why_not;
      file.slides = slide_amounts(file.bytes, why_not);
      file.slides_known = true;
      if (file.slides.empty())
        debug(1, context + ": copies cannot be slid (" + why_not +
                     "); many layers of it may share cache sets");
    }
    const std::size_t turn = static_cast<std::size_t>(file.loaded) % (file.slides.size() + 1);
    slide = turn == 0 ? 0 : file.slides[turn - 1];
    const CopyMode mode = copy_mode();
    if (!file.copy_plan_known) {
      std::string why_not = "its first copy was not loaded by the dynamic linker";
      if (mode == CopyMode::Files)
        why_not = "PNMPI_COPIES=files";
      else if (file.first != nullptr) {
        check_unchanged(file, context);
        file.copy_plan = plan_copies(file.bytes, file.path, file.first, why_not,
                                     file.identity_known ? &file.identity : nullptr);
      }
      file.copy_plan_known = true;
      if (!file.copy_plan)
        debug(1, context +
                     ": further copies are written to files for the dynamic linker, "
                     "each with its own code (" +
                     why_not + ")");
    }
    if (file.copy_plan) {
      const std::uintptr_t base =
          map_copy(*file.copy_plan, file.bytes, mode == CopyMode::Unslid ? 0 : slide, context);
      ++file.loaded;
      return {&file, nullptr, base, file.copy_plan.get()};
    }
    slide = file.slides.empty()
                ? 0
                : file.slides[static_cast<std::size_t>(file.loaded - 1) % file.slides.size()];
    // The dynamic linker shares an object loaded under the same name or from the same
    // file, so a copy it loads needs both a file of its own and a name no loaded object
    // has: the layer number in our private directory. Copies are the same code with the
    // same dependencies, already proven to resolve, so they bind lazily; the file is
    // unlinked once mapped.
    const std::string path =
        copies.path(context) + "/" + std::to_string(layer) + "-" + base_name(file.path);
    copy_image(file.bytes, slide, copies.buffer());
    write_copy(path, copies.buffer(), context);
    handle = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    ::unlink(path.c_str());
  }
  if (handle == nullptr) {
    const char *why = ::dlerror();
    throw Error(context + ": cannot be loaded: " + (why ? why : "unknown dynamic linker error"));
  }
  struct link_map *map = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr)
    throw Error(context + ": the dynamic linker did not say where it loaded the module");
  ++file.loaded;
  return {&file, handle, static_cast<std::uintptr_t>(map->l_addr + slide)};
}

} // namespace pnmpi
