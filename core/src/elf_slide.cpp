// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Sliding a shared object by a sub-page amount. The image moves as a whole, so every
// PC-relative reference inside it (code to data, PLT to GOT, .eh_frame) stays valid; what
// must change is every absolute virtual address the file records. For a position-
// independent object those are all in the headers and in the dynamic relocations, which
// is why anything we do not recognise makes slide_amounts() say no rather than guess.

#include "elf_slide.h"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <link.h>

#include "elf_view.h"
#include "error.h"

namespace pnmpi {

namespace {

constexpr std::uint64_t kPage = 4096; // the smallest page any supported system uses
constexpr std::uint64_t kLine = 64;   // the cache line: slides are multiples of it

std::uint64_t down(std::uint64_t v) {
  return v & ~(kPage - 1);
}
std::uint64_t up(std::uint64_t v) {
  return (v + kPage - 1) & ~(kPage - 1);
}

/// Checked access to `count` objects of type T at `offset` in `bytes` (through the one ELF
/// reader's check), to read the original or edit the copy.
template <typename T>
const T *at(const std::vector<unsigned char> &bytes, std::uint64_t offset,
            std::uint64_t count = 1) {
  const ElfView view(bytes);
  if (view.fault<T>(offset, count) != ElfFault::none)
    throw Error("cannot slide module copy: a structure lies outside the file");
  return view.native<T>(offset, count);
}
template <typename T>
T *at(std::vector<unsigned char> &bytes, std::uint64_t offset, std::uint64_t count = 1) {
  at<T>(static_cast<const std::vector<unsigned char> &>(bytes), offset, count);
  return native_at<T>(bytes, offset, count);
}

bool is_address_tag(ElfW(Sxword) tag) {
  switch (tag) {
  case DT_PLTGOT:
  case DT_HASH:
  case DT_STRTAB:
  case DT_SYMTAB:
  case DT_RELA:
  case DT_INIT:
  case DT_FINI:
  case DT_JMPREL:
  case DT_INIT_ARRAY:
  case DT_FINI_ARRAY:
  case DT_PREINIT_ARRAY:
  case DT_GNU_HASH:
  case DT_VERSYM:
  case DT_VERDEF:
  case DT_VERNEED:
    return true;
  }
  return false;
}

bool is_value_tag(ElfW(Sxword) tag) {
  switch (tag) {
  case DT_NULL:
  case DT_NEEDED:
  case DT_PLTRELSZ:
  case DT_RELASZ:
  case DT_RELAENT:
  case DT_STRSZ:
  case DT_SYMENT:
  case DT_SONAME:
  case DT_RPATH:
  case DT_SYMBOLIC:
  case DT_PLTREL:
  case DT_DEBUG:
  case DT_TEXTREL:
  case DT_BIND_NOW:
  case DT_INIT_ARRAYSZ:
  case DT_FINI_ARRAYSZ:
  case DT_RUNPATH:
  case DT_FLAGS:
  case DT_PREINIT_ARRAYSZ:
  case DT_RELACOUNT:
  case DT_FLAGS_1:
  case DT_VERDEFNUM:
  case DT_VERNEEDNUM:
    return true;
  }
  return false;
}

enum class RelocKind { Symbolic, Relative, Slot, Unknown };

RelocKind reloc_kind(std::uint32_t type) {
#if defined(__x86_64__)
  switch (type) {
  case R_X86_64_NONE:
  case R_X86_64_64:
  case R_X86_64_GLOB_DAT:
  case R_X86_64_DTPMOD64:
  case R_X86_64_DTPOFF64:
  case R_X86_64_TPOFF64:
  case R_X86_64_TLSDESC:
    return RelocKind::Symbolic;
  case R_X86_64_RELATIVE:
  case R_X86_64_IRELATIVE:
    return RelocKind::Relative;
  case R_X86_64_JUMP_SLOT:
    return RelocKind::Slot;
  }
#elif defined(__aarch64__)
  switch (type) {
  case R_AARCH64_NONE:
  case R_AARCH64_ABS64:
  case R_AARCH64_GLOB_DAT:
  case R_AARCH64_TLS_DTPMOD:
  case R_AARCH64_TLS_DTPREL:
  case R_AARCH64_TLS_TPREL:
  case R_AARCH64_TLSDESC:
    return RelocKind::Symbolic;
  case R_AARCH64_RELATIVE:
  case R_AARCH64_IRELATIVE:
    return RelocKind::Relative;
  case R_AARCH64_JUMP_SLOT:
    return RelocKind::Slot;
  }
#endif
  return RelocKind::Unknown;
}

/// The file offset of virtual address `vaddr` (original layout), or throws.
std::uint64_t file_offset(const std::vector<const ElfW(Phdr) *> &loads, std::uint64_t vaddr) {
  for (const ElfW(Phdr) * ph : loads)
    if (vaddr >= ph->p_vaddr && vaddr < ph->p_vaddr + ph->p_filesz)
      return ph->p_offset + (vaddr - ph->p_vaddr);
  throw Error("cannot slide module copy: an address lies outside the file's segments");
}

/// Everything slide_amounts() and slide_image() both need, with the checks that decide
/// whether the object can be slid at all. `why_not` is set when it cannot.
struct Layout {
  const ElfW(Ehdr) *eh = nullptr;
  const ElfW(Phdr) *ph = nullptr;
  const ElfW(Shdr) *sh = nullptr;
  std::vector<const ElfW(Phdr) *> loads; ///< sorted by address
  std::uint64_t align = 1;               ///< largest alignment an allocated section needs
};

bool read_layout(const std::vector<unsigned char> &bytes, Layout &l, std::string &why_not) {
  try {
    l.eh = at<ElfW(Ehdr)>(bytes, 0);
    if (l.eh->e_phoff < sizeof(ElfW(Ehdr)) || l.eh->e_phentsize != sizeof(ElfW(Phdr))) {
      why_not = "unusual program header placement";
      return false;
    }
    l.ph = at<ElfW(Phdr)>(bytes, l.eh->e_phoff, l.eh->e_phnum);
    if (l.eh->e_shoff == 0 || l.eh->e_shentsize != sizeof(ElfW(Shdr))) {
      why_not = "no section headers (stripped with sstrip?)";
      return false;
    }
    l.sh = at<ElfW(Shdr)>(bytes, l.eh->e_shoff, l.eh->e_shnum);
  } catch (const Error &) {
    why_not = "truncated headers";
    return false;
  }
  for (unsigned i = 0; i < l.eh->e_phnum; ++i)
    if (l.ph[i].p_type == PT_LOAD)
      l.loads.push_back(&l.ph[i]);
  std::sort(l.loads.begin(), l.loads.end(),
            [](const ElfW(Phdr) * a, const ElfW(Phdr) * b) { return a->p_vaddr < b->p_vaddr; });
  if (l.loads.empty() || l.loads[0]->p_offset != 0 || l.loads[0]->p_vaddr != 0) {
    why_not = "its first segment does not start at address 0";
    return false;
  }
  for (unsigned i = 0; i < l.eh->e_phnum; ++i) {
    const ElfW(Phdr) &p = l.ph[i];
    if (p.p_type != PT_NULL && p.p_type != PT_GNU_STACK && p.p_offset == 0 && &p != l.loads[0]) {
      why_not = "a second segment covers the ELF header";
      return false;
    }
  }
  for (unsigned i = 1; i < l.eh->e_shnum; ++i) {
    const ElfW(Shdr) &s = l.sh[i];
    if (s.sh_flags & SHF_ALLOC)
      l.align = std::max<std::uint64_t>(l.align, s.sh_addralign);
    if ((s.sh_flags & SHF_ALLOC) && s.sh_type == SHT_REL) {
      why_not = "it uses REL relocations";
      return false;
    }
    if (s.sh_type == SHT_DYNAMIC) {
      try {
        const auto *d = at<ElfW(Dyn)>(bytes, s.sh_offset, s.sh_size / sizeof(ElfW(Dyn)));
        for (std::uint64_t k = 0; k < s.sh_size / sizeof(ElfW(Dyn)); ++k)
          if (!is_address_tag(d[k].d_tag) && !is_value_tag(d[k].d_tag)) {
            why_not = "dynamic entry " + std::to_string(d[k].d_tag) + " is not understood";
            return false;
          }
      } catch (const Error &) {
        why_not = "truncated dynamic section";
        return false;
      }
    }
    if ((s.sh_flags & SHF_ALLOC) && s.sh_type == SHT_RELA) {
      try {
        const auto *r = at<ElfW(Rela)>(bytes, s.sh_offset, s.sh_size / sizeof(ElfW(Rela)));
        for (std::uint64_t k = 0; k < s.sh_size / sizeof(ElfW(Rela)); ++k)
          if (reloc_kind(static_cast<std::uint32_t>(ELF64_R_TYPE(r[k].r_info))) ==
              RelocKind::Unknown) {
            why_not = "relocation type " + std::to_string(ELF64_R_TYPE(r[k].r_info)) +
                      " is not understood";
            return false;
          }
      } catch (const Error &) {
        why_not = "truncated relocations";
        return false;
      }
    }
  }
  if (l.align > kLine) {
    why_not = "a section needs " + std::to_string(l.align) + "-byte alignment";
    return false;
  }
  return true;
}

/// Whether sliding by `delta` keeps segments that shared no page from sharing one (a page
/// has one protection; code must not end up in a data page).
bool keeps_pages_apart(const Layout &l, std::uint64_t delta) {
  for (std::size_t k = 0; k + 1 < l.loads.size(); ++k) {
    const std::uint64_t end = l.loads[k]->p_vaddr + l.loads[k]->p_memsz;
    const std::uint64_t next = l.loads[k + 1]->p_vaddr;
    if (up(end) <= down(next) && up(end + delta) > down(next + delta))
      return false;
  }
  return true;
}

} // namespace

std::vector<std::uint64_t> slide_amounts(const std::vector<unsigned char> &bytes,
                                         std::string &why_not) {
  Layout l;
  std::vector<std::uint64_t> amounts;
  if (!read_layout(bytes, l, why_not))
    return amounts;
  for (std::uint64_t delta = kLine; delta < kPage; delta += kLine)
    if (keeps_pages_apart(l, delta))
      amounts.push_back(delta);
  if (amounts.empty())
    why_not = "its segments leave no room between pages";
  return amounts;
}

namespace {

/// The end of what the loader maps: the last byte of any segment's file image.
std::uint64_t loadable_end(const std::vector<unsigned char> &bytes) {
  const auto *eh = at<ElfW(Ehdr)>(bytes, 0);
  const auto *ph = at<ElfW(Phdr)>(bytes, eh->e_phoff, eh->e_phnum);
  std::uint64_t end = eh->e_phoff + std::uint64_t(eh->e_phnum) * sizeof(ElfW(Phdr));
  for (unsigned i = 0; i < eh->e_phnum; ++i)
    if (ph[i].p_type != PT_NULL)
      end = std::max<std::uint64_t>(end, ph[i].p_offset + ph[i].p_filesz);
  if (end > bytes.size())
    throw Error("cannot copy module: a segment runs past the end of the file");
  return end;
}

/// Writes into `out` the image of `bytes` slid by `delta` (0: as it is): all of it, or
/// only its loadable part. Reads the original; edits `out` at the shifted offsets, skipping
/// what was cut. One pass, no other allocation: copies are made by the hundred.
void build(const std::vector<unsigned char> &bytes, std::uint64_t delta, bool loadable_only,
           std::vector<unsigned char> &out) {
  const std::uint64_t end = loadable_only ? loadable_end(bytes) : bytes.size();
  constexpr std::uint64_t kHeader = sizeof(ElfW(Ehdr));
  out.resize(end + delta);
  std::memcpy(out.data(), bytes.data(), kHeader);
  std::memset(out.data() + kHeader, 0, delta);
  std::memcpy(out.data() + kHeader + delta, bytes.data() + kHeader, end - kHeader);
  // An object at original file offset `o` now lives at `o + delta` (past the ELF header).
  auto moved = [&](std::uint64_t o) { return o < kHeader ? o : o + delta; };
  auto kept = [&](std::uint64_t o, std::uint64_t size) { return o + size <= end; };

  const auto *eh = at<ElfW(Ehdr)>(bytes, 0);
  const auto *ph = at<ElfW(Phdr)>(bytes, eh->e_phoff, eh->e_phnum);
  std::vector<const ElfW(Phdr) *> loads;
  for (unsigned i = 0; i < eh->e_phnum; ++i)
    if (ph[i].p_type == PT_LOAD)
      loads.push_back(&ph[i]);
  auto *neh = at<ElfW(Ehdr)>(out, 0);
  auto *nph = at<ElfW(Phdr)>(out, moved(eh->e_phoff), eh->e_phnum);
  const ElfW(Shdr) *sh = eh->e_shoff ? at<ElfW(Shdr)>(bytes, eh->e_shoff, eh->e_shnum) : nullptr;
  const unsigned shnum = sh ? eh->e_shnum : 0;

  if (delta != 0) {
    // Contents, found through the original section headers.
    std::uint64_t pltgot = 0;
    for (unsigned i = 1; i < shnum; ++i) {
      const ElfW(Shdr) &s = sh[i];
      if (!kept(s.sh_offset, s.sh_size))
        continue;
      const std::uint64_t at_out = moved(s.sh_offset);
      if (s.sh_type == SHT_DYNAMIC) {
        auto *d = at<ElfW(Dyn)>(out, at_out, s.sh_size / sizeof(ElfW(Dyn)));
        for (std::uint64_t k = 0; k < s.sh_size / sizeof(ElfW(Dyn)); ++k) {
          if (d[k].d_tag == DT_PLTGOT)
            pltgot = d[k].d_un.d_ptr;
          if (is_address_tag(d[k].d_tag) && d[k].d_un.d_ptr != 0)
            d[k].d_un.d_ptr += delta;
        }
      } else if (s.sh_type == SHT_DYNSYM || s.sh_type == SHT_SYMTAB) {
        auto *sym = at<ElfW(Sym)>(out, at_out, s.sh_size / sizeof(ElfW(Sym)));
        for (std::uint64_t k = 0; k < s.sh_size / sizeof(ElfW(Sym)); ++k)
          if (sym[k].st_shndx != SHN_UNDEF && sym[k].st_shndx < SHN_LORESERVE &&
              ELF64_ST_TYPE(sym[k].st_info) != STT_TLS)
            sym[k].st_value += delta;
      } else if (s.sh_type == SHT_RELA && (s.sh_flags & SHF_ALLOC)) {
        auto *r = at<ElfW(Rela)>(out, at_out, s.sh_size / sizeof(ElfW(Rela)));
        for (std::uint64_t k = 0; k < s.sh_size / sizeof(ElfW(Rela)); ++k) {
          const RelocKind kind = reloc_kind(static_cast<std::uint32_t>(ELF64_R_TYPE(r[k].r_info)));
          if (kind == RelocKind::Relative)
            r[k].r_addend += static_cast<ElfW(Sxword)>(delta);
          if (kind == RelocKind::Slot) // lazy binding adds the load base to the link-time value
            *at<ElfW(Addr)>(out, moved(file_offset(loads, r[k].r_offset))) += delta;
          r[k].r_offset += delta;
        }
      }
    }
    if (pltgot != 0) { // GOT[0] holds the link-time address of _DYNAMIC
      ElfW(Addr) *got0 = at<ElfW(Addr)>(out, moved(file_offset(loads, pltgot)));
      if (*got0 != 0)
        *got0 += delta;
    }
    // Then the headers: the first segment still starts with the ELF header at address 0
    // and grows; everything after the ELF header moves by delta in the file and in memory.
    for (unsigned i = 0; i < eh->e_phnum; ++i) {
      ElfW(Phdr) &p = nph[i];
      if (p.p_type == PT_LOAD && p.p_offset == 0) {
        p.p_filesz += delta;
        p.p_memsz += delta;
      } else if (p.p_offset >= kHeader) {
        p.p_offset += delta;
        p.p_vaddr += delta;
        p.p_paddr += delta;
      }
    }
    neh->e_phoff += delta;
    if (neh->e_entry != 0)
      neh->e_entry += delta;
  }
  if (loadable_only || shnum == 0) {
    neh->e_shoff = 0;
    neh->e_shnum = 0;
    neh->e_shstrndx = SHN_UNDEF;
  } else {
    neh->e_shoff += delta;
    auto *nsh = at<ElfW(Shdr)>(out, neh->e_shoff, shnum);
    for (unsigned i = 1; i < shnum; ++i) {
      if (nsh[i].sh_offset >= kHeader)
        nsh[i].sh_offset += delta;
      if (nsh[i].sh_flags & SHF_ALLOC)
        nsh[i].sh_addr += delta;
    }
  }
}

void check_slide(const std::vector<unsigned char> &bytes, std::uint64_t delta) {
  if (delta == 0)
    return;
  Layout l;
  std::string why_not;
  if (!read_layout(bytes, l, why_not) || delta % kLine != 0 || delta >= kPage ||
      !keeps_pages_apart(l, delta))
    throw Error("cannot slide module copy by " + std::to_string(delta) + " bytes" +
                (why_not.empty() ? std::string() : ": " + why_not));
}

} // namespace

std::vector<unsigned char> slide_image(const std::vector<unsigned char> &bytes,
                                       std::uint64_t delta) {
  check_slide(bytes, delta);
  std::vector<unsigned char> out;
  build(bytes, delta, false, out);
  return out;
}

void copy_image(const std::vector<unsigned char> &bytes, std::uint64_t delta,
                std::vector<unsigned char> &out) {
  check_slide(bytes, delta);
  build(bytes, delta, true, out);
}

} // namespace pnmpi
