// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// Moving `.dynstr`, shared by planning (can it move?) and applying (move it): private to the
// patcher.

#include <cstdint>
#include <map>
#include <string>

#include "rename_plan.h"

namespace pnmpi {

/// Where a relocated `.dynstr` goes: a new PT_LOAD at the end of the file that holds a copy
/// of the program header table (one entry longer) followed by the new string table.
struct RelocationLayout {
  std::uint64_t offset = 0; ///< file offset of the new segment (and of the phdr table)
  std::uint64_t vaddr = 0;
  std::uint64_t align = 1;
  std::uint64_t phdr_size = 0;
  std::size_t insert_at = 0; ///< index of the new PT_LOAD in the new phdr table
};

/// Why `.dynstr` cannot move, or "" with `layout` filled in.
std::string plan_relocation(const ElfObject &obj, std::uint64_t strtab_size,
                            RelocationLayout &layout);

/// The new string table of a relocation: the old one, unchanged, then each new name once;
/// `offsets` receives where each new name starts.
std::string relocated_strtab(const ElfObject &obj, const RenamePlan &plan,
                             std::map<std::string, std::uint32_t> &offsets);

} // namespace pnmpi
