// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config.h"
#include "copy_loader.h"
#include "elf_image.h"

namespace pnmpi {

/// A module file, read and understood once however many layers load it.
struct ModuleFile {
  std::string path;
  std::vector<unsigned char> bytes;
  FileIdentity identity;       ///< the version `bytes` were read from
  bool identity_known = false; ///< read_module_file() read it (tests may make files without)
  ElfImage image;
  int loaded = 0;        ///< layers loaded from it so far
  void *first = nullptr; ///< the dynamic linker's handle of the first layer
  /// How pnmpi maps copies after the first itself (copy_loader.h); null when it cannot, and
  /// copies are then files. Computed with the second copy.
  CopyPlanPtr copy_plan;
  bool copy_plan_known = false;
  /// How far copies may be slid (elf_slide.h); computed with the second copy.
  std::vector<std::uint64_t> slides;
  bool slides_known = false;
};

/// One loaded copy of a module: one layer, with its own globals.
struct LoadedModule {
  const ModuleFile *file;
  void *handle;        ///< the dynamic linker's, or null for a copy pnmpi mapped (`mapped`)
  std::uintptr_t base; ///< add to the file's link-time addresses (ElfImage) to reach this copy
  const CopyPlan *mapped = nullptr; ///< set for a copy mapped by copy_loader.h
};

/// The address of `name` as this copy defines and exports it (what dlsym finds in the
/// module itself), or null.
void *module_symbol(const LoadedModule &module, const char *name);

/// Reads and checks a module file: it must be a converted PMPI tool for this MPI. Throws
/// pnmpi::Error naming the config line.
std::unique_ptr<ModuleFile> read_module_file(const std::string &path, const ModuleSpec &module,
                                             const Config &config, const RoutineIndex &routines);

/// A private directory for the copies of modules listed more than once, removed (empty)
/// when it goes away. Made only when a second copy is needed.
class CopyDirectory {
public:
  CopyDirectory() = default;
  /// Tries `bases` in order instead of copy_directory_bases() (for tests).
  explicit CopyDirectory(std::vector<std::string> bases) : m_bases(std::move(bases)) {}
  ~CopyDirectory();
  CopyDirectory(const CopyDirectory &) = delete;
  CopyDirectory &operator=(const CopyDirectory &) = delete;
  /// The directory, made on first use in the first of the bases where one can be made.
  const std::string &path(const std::string &context);
  /// Storage for building one copy's bytes, reused from copy to copy.
  std::vector<unsigned char> &buffer() { return m_buffer; }

private:
  std::vector<std::string> m_bases;
  std::string m_path;
  std::vector<unsigned char> m_buffer;
};

/// Where copies for more layers go: /dev/shm (memory) if it is a writable directory, then
/// $TMPDIR, else /tmp.
std::vector<std::string> copy_directory_bases();

/// Loads one more independent copy of `file` as layer `layer`, so that each layer has its own
/// globals: the first straight from its path by the dynamic linker, later ones mapped from
/// the same file by copy_loader.h (code shared, data private), or, for a file that loader
/// cannot handle (said under PNMPI_DEBUG=1), from slid copies written in `copies`.
/// Throws pnmpi::Error.
LoadedModule load_module_copy(ModuleFile &file, const ModuleSpec &module, const Config &config,
                              CopyDirectory &copies, int layer);

/// Whether `library` (a soname or a path) is an MPI C library (libmpi.so.N, libmpich.so.N)
/// other than the one pnmpi is built for.
bool is_other_mpi(std::string_view library);

/// The message for a `what` ("module", "program") that needs another MPI's `library`.
std::string built_for_other_mpi(const std::string &library, const char *what);

/// The MPI C libraries other than pnmpi's that are loaded in this process.
std::vector<std::string> loaded_other_mpis();

/// Throws pnmpi::Error naming the `argument` line when `module` is given a key that its file
/// does not declare (PNMPI_MODULE_ARGUMENTS). A module that declares nothing takes any key.
void check_declared_arguments(const ElfImage &image, const ModuleSpec &module,
                              const Config &config);

/// `PATH:LINE: module 'NAME'` — how every message about a module begins.
std::string module_context(const ModuleSpec &module, const Config &config);

} // namespace pnmpi
