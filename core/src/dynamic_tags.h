// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <elf.h>
#include <link.h>
#include <vector>

namespace pnmpi {

/// The entries of a module's dynamic section that the core reads, decoded in one place for
/// the module reader (elf_image.cpp) and the copy loader (copy_loader.cpp). Addresses are
/// link-time virtual addresses; unset entries are 0 (DT_PLTREL: DT_RELA, DT_SYMENT: the
/// native symbol size). Each reader checks what it needs of them.
struct DynamicTags {
  std::uint64_t symtab = 0, strtab = 0, strsz = 0, syment = sizeof(ElfW(Sym));
  std::uint64_t hash = 0, gnu_hash = 0;
  std::uint64_t rela = 0, relasz = 0, jmprel = 0, pltrelsz = 0, pltrel = DT_RELA;
  bool has_rel = false; ///< a DT_REL table (REL relocations, which the core does not take)
  std::uint64_t versym = 0, verneed = 0, verneednum = 0, verdef = 0, verdefnum = 0;
  std::uint64_t init = 0, fini = 0, init_array = 0, init_arraysz = 0, fini_array = 0,
                fini_arraysz = 0;
  std::uint64_t flags = 0;
  std::vector<std::uint64_t> needed; ///< string table offsets of the DT_NEEDED names

  /// Keeps one entry (other tags are ignored).
  void add(const ElfW(Dyn) & d) {
    const std::uint64_t v = d.d_un.d_val;
    switch (d.d_tag) {
    case DT_SYMTAB:
      symtab = v;
      break;
    case DT_STRTAB:
      strtab = v;
      break;
    case DT_STRSZ:
      strsz = v;
      break;
    case DT_SYMENT:
      syment = v;
      break;
    case DT_HASH:
      hash = v;
      break;
    case DT_GNU_HASH:
      gnu_hash = v;
      break;
    case DT_RELA:
      rela = v;
      break;
    case DT_RELASZ:
      relasz = v;
      break;
    case DT_JMPREL:
      jmprel = v;
      break;
    case DT_PLTRELSZ:
      pltrelsz = v;
      break;
    case DT_PLTREL:
      pltrel = v;
      break;
    case DT_REL:
      has_rel = true;
      break;
    case DT_VERSYM:
      versym = v;
      break;
    case DT_VERNEED:
      verneed = v;
      break;
    case DT_VERNEEDNUM:
      verneednum = v;
      break;
    case DT_VERDEF:
      verdef = v;
      break;
    case DT_VERDEFNUM:
      verdefnum = v;
      break;
    case DT_INIT:
      init = v;
      break;
    case DT_FINI:
      fini = v;
      break;
    case DT_INIT_ARRAY:
      init_array = v;
      break;
    case DT_INIT_ARRAYSZ:
      init_arraysz = v;
      break;
    case DT_FINI_ARRAY:
      fini_array = v;
      break;
    case DT_FINI_ARRAYSZ:
      fini_arraysz = v;
      break;
    case DT_FLAGS:
      flags = v;
      break;
    case DT_NEEDED:
      needed.push_back(v);
      break;
    default:
      break;
    }
  }
};

} // namespace pnmpi
