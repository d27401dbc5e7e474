// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pnmpi {

/// The amounts (multiples of 64 below the page size) by which `bytes`, a shared object of
/// this process's kind, can be slid safely; empty if it cannot be slid at all. `why_not`
/// says why when the list is empty.
std::vector<std::uint64_t> slide_amounts(const std::vector<unsigned char> &bytes,
                                         std::string &why_not);

/// A copy of `bytes` whose loaded image sits `delta` bytes higher: every virtual address
/// in it (segments, sections, dynamic entries, symbols, relocations, the GOT's link-time
/// values) moves by `delta`, and `delta` zero bytes follow the ELF header in the file.
///
/// Why: copies of one module, loaded for several layers, would otherwise put every layer's
/// wrapper, PLT entry and GOT slot at the same offset within a page, so they all compete
/// for the same few L1 cache sets and branch-predictor entries; past about eight layers
/// every layer misses. Slid copies land on different sets. `delta` must be one of
/// slide_amounts(). Throws pnmpi::Error on anything unexpected.
std::vector<unsigned char> slide_image(const std::vector<unsigned char> &bytes,
                                       std::uint64_t delta);

/// Writes into `out` (reusing its storage) what a copy of `bytes` slid by `delta` needs on
/// disk: the slid image cut after its last loadable segment, without section headers, which
/// nothing reads at run time (a build with debug information is often three times larger
/// than what loads). `delta` 0 copies without sliding.
void copy_image(const std::vector<unsigned char> &bytes, std::uint64_t delta,
                std::vector<unsigned char> &out);

} // namespace pnmpi
