// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pnmpi {

/// What the core needs to know about a module file, read once from its bytes and shared by
/// every layer loaded from that file. All addresses are link-time virtual addresses; add a
/// loaded copy's base to use them.
struct ElfImage {
  /// A defined, exported `MPI_X`: the module wraps routine `id`.
  struct Wrapper {
    unsigned id;
    std::uint64_t value;
  };
  /// A relocation that makes the object's code reach routine `id` (a module's `XMPI_X`; an
  /// MPI language binding's `PMPI_X` or `MPI_X`): the binder writes the target there.
  struct Site {
    unsigned id;
    std::uint64_t offset;
    std::uint32_t type;
    std::int64_t addend;
    bool plus_addend;         ///< the stored value is S + A rather than S
    bool public_name = false; ///< a module's call by the public `MPI_X`, not `XMPI_X`
  };
  struct Range {
    std::uint64_t begin;
    std::uint64_t end;
  };

  std::vector<Wrapper> wrappers; ///< sorted by id
  std::vector<Site> sites;
  std::vector<Range> code;                                   ///< executable segments
  Range relro{0, 0};                                         ///< PT_GNU_RELRO, empty if none
  std::unordered_map<std::string, std::uint64_t> pnmpi_syms; ///< defined PNMPI_*/pnmpi_* symbols
  std::vector<std::string> pmpi_imports;                     ///< PMPI_* still imported: unpatched
  std::vector<std::string> unknown_xmpi;                     ///< XMPI_* with no such routine here
  std::vector<std::string> needed;                           ///< the libraries it needs (DT_NEEDED)
  /// The argument keys the module accepts (PNMPI_MODULE_ARGUMENTS), when it declares them.
  std::optional<std::vector<std::string>> argument_keys;
  std::vector<std::string> pmpi_defined; ///< PMPI_* defined and exported: an MPI library's
};

/// Maps `MPI_X` routine names to routine ids (the generated table, indexed once).
class RoutineIndex {
public:
  RoutineIndex(const char *const *names, unsigned count);
  /// The id of routine `name` ("MPI_Send"), or -1.
  int find(std::string_view name) const;

private:
  std::unordered_map<std::string_view, unsigned> m_ids;
};

/// Whether the file `path` names (a path or a soname) is the shared library `base`
/// ("libmpi.so"), with or without a version suffix: libmpi.so, libmpi.so.40, libmpi.so.40.30.
bool is_library(std::string_view path, std::string_view base);

/// Which imports of an object are call sites to bind.
enum class SiteNames {
  Xmpi, ///< a module: its `XMPI_X` (the renamed `PMPI_X`) reach the next layer, its `MPI_X`
        ///< the top of the chain
  Mpi,  ///< an MPI language binding: its `PMPI_X` and `MPI_X` reach the chain's entry
};

/// Reads a shared object of this process's own class, byte order and machine from `bytes`.
/// Every offset and size is checked before use; anything malformed throws pnmpi::Error with
/// a message that starts with `what` (the file's name).
ElfImage read_elf_image(const std::vector<unsigned char> &bytes, const std::string &what,
                        const RoutineIndex &routines, SiteNames sites = SiteNames::Xmpi);

} // namespace pnmpi
