// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "elf_object.h"

namespace pnmpi {

/// One import to rename: `.dynsym` entry `symbol`, `from` "PMPI_X" to `to` "XMPI_X".
struct Rename {
  std::size_t symbol = 0;
  std::string from;
  std::string to;
  std::string version; ///< the version the import required, "" if none
  std::uint16_t old_version_index = 1;
  std::uint16_t new_version_index = 1;
};

/// A first byte of a renamed name that another referenced string also uses.
struct SharedByte {
  std::string renamed; ///< e.g. "PMPI_Send (dynamic symbol 4)"
  std::string user;    ///< e.g. "my_PMPI_Send (dynamic symbol 7)"
};

/// What pnmpi-patch will do to an object.
struct RenamePlan {
  std::vector<Rename> renames;
  std::size_t xmpi_imports = 0; ///< imports already named XMPI_*
  /// When true the renamed names cannot be changed in place (see `shared`): the renamed
  /// names are appended to a copy of `.dynstr` placed in a new PT_LOAD segment at the end of
  /// the file, together with a copy of the program header table.
  bool relocate_dynstr = false;
  std::vector<SharedByte> shared;
  std::vector<std::string> unknown_users; ///< also force relocation
};

struct PlanOptions {
  /// Reset the `.gnu.version` index of renamed versioned imports to VER_NDX_GLOBAL, so that
  /// they bind to the core's unversioned XMPI_* definitions. Only tests turn this off.
  bool reset_versions = true;
};

/// Decides the renames. Throws PatchError (refused) for an object that defines PMPI_*
/// symbols or whose `.dynstr` would have to move but cannot, and (already_patched) for one
/// that imports XMPI_* and no PMPI_*. An empty plan means there is nothing to rename.
RenamePlan plan_renames(const ElfObject &object, const PlanOptions &options = {});

/// A byte range of the output that differs from the input.
struct Edit {
  std::uint64_t offset = 0;
  std::vector<unsigned char> bytes;
};

struct PatchedImage {
  std::vector<unsigned char> bytes;
  std::vector<Edit> edits;    ///< every change inside the input's extent
  std::uint64_t appended = 0; ///< bytes added at the end (relocated `.dynstr`)
};

/// Applies `plan` to a copy of the object's bytes. The input is not modified.
PatchedImage apply_renames(const ElfObject &object, const RenamePlan &plan);

/// Proves that `after` (the output, parsed again) is `before` with exactly `plan` applied:
/// bytes differ only at `image.edits` (plus the appended tail), every renamed import carries
/// its new name and version index, every other symbol and every other referenced string is
/// unchanged, and the SysV hash table (if any) finds every symbol. Throws PatchError
/// (internal) otherwise.
void check_patched(const ElfObject &before, const RenamePlan &plan, const PatchedImage &image,
                   const ElfObject &after);

/// A string of `.dynstr` as find_shared_bytes() sees it.
struct DynstrString {
  std::uint64_t offset = 0;
  bool renamed = false; ///< its first byte changes
};

/// For every string whose first byte changes (renamed), the strings that also cover that
/// byte and must read the same afterwards: any string that is not renamed and spans the
/// byte, and any renamed string that spans it at a later position (only the first byte of
/// a renamed string may change). Returns pairs (index of renamed, index of user) into
/// `strings`. Offsets outside `table` cover nothing.
std::vector<std::pair<std::size_t, std::size_t>>
find_shared_bytes(std::string_view table, const std::vector<DynstrString> &strings);

/// `value` rounded up to a multiple of `align` (a power of two, or 0/1 for none); false if the
/// result does not fit in 64 bits.
bool align_up(std::uint64_t value, std::uint64_t align, std::uint64_t &result);

} // namespace pnmpi
