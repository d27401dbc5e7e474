// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "input_file.h"

namespace pnmpi {

struct CopyPlan;

/// Frees a CopyPlan (closes the module file it maps copies from).
struct CopyPlanDeleter {
  void operator()(CopyPlan *plan) const;
};
using CopyPlanPtr = std::unique_ptr<CopyPlan, CopyPlanDeleter>;

/// What pnmpi needs to map further copies of one module file itself, read once from the
/// file's `bytes` after the dynamic linker loaded its first copy (`first`, a dlopen handle of
/// `path`). A copy maps the file's read-only and executable segments from the file itself
/// (then the page cache's pages serve every such copy of every process on the node) or from
/// a slid image shared by the copies with that slide (map_copy()); only the writable
/// segments become private, page by page, as they are relocated. Symbols resolve as the dynamic
/// linker resolved them for the first copy (RTLD_LOCAL): the global scope, then the module, then
/// its own dependencies, except that what resolved to the first copy resolves to each copy's own
/// definition.
///
/// Returns null and sets `why_not` when the file needs something this loader does not do
/// (thread-local storage, an unknown relocation type or dynamic tag, IFUNC, text
/// relocations, an unresolvable symbol): the caller then loads copies the old way.
/// `identity` (if not null): the version `bytes` were read from; a file at `path` that is no
/// longer it is not mapped (copies are then written from `bytes`).
CopyPlanPtr plan_copies(const std::vector<unsigned char> &bytes, const std::string &path,
                        void *first, std::string &why_not, const FileIdentity *identity = nullptr);

/// Maps, relocates and initialises one more copy (init arrays, unwind tables registered so
/// that exceptions and backtraces cross it); its fini arrays run at exit, the newest copy's
/// first. `slide` 0 maps the module file itself; another (one of slide_amounts(), elf_slide.h)
/// maps an image of `bytes` slid by that much, made once in a memory file and shared by
/// every copy with that slide. Returns the copy's base: add link-time addresses of the
/// original file to it. Throws pnmpi::Error starting with `context`. The copy's RELRO pages
/// are left writable for the binding of its calls: protect_copy() ends that.
std::uintptr_t map_copy(CopyPlan &plan, const std::vector<unsigned char> &bytes,
                        std::uint64_t slide, const std::string &context);

/// Makes the RELRO pages of the copy at `base` read-only, as the dynamic linker makes a
/// loaded object's once it is relocated. Throws pnmpi::Error.
void protect_copy(const CopyPlan &plan, std::uintptr_t base);

/// The address in the copy at `base` of the symbol `name` that the module defines and
/// exports (dlsym for a copy without a handle), or null.
void *copy_symbol(const CopyPlan &plan, std::uintptr_t base, const char *name);

} // namespace pnmpi
