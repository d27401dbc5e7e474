// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Decoding and encoding are written field by field, in the order <elf.h> declares them for
// each class, so that one routine serves either byte order on any host and no structure is
// ever read through a misaligned or out-of-range pointer.

#include "elf_view.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace pnmpi {

bool range_within(std::uint64_t offset, std::uint64_t size, std::uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

std::string to_hex(std::uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, value);
  return buf;
}

std::uint32_t elf_sysv_hash(std::string_view name) {
  std::uint32_t h = 0;
  for (unsigned char c : name) {
    h = (h << 4) + c;
    const std::uint32_t g = h & 0xf0000000u;
    if (g)
      h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

ElfFault elf_fault(std::uint64_t size, std::uint64_t offset, std::uint64_t count,
                   std::uint64_t object_size, std::uint64_t alignment) {
  if (offset > size || count > (size - offset) / object_size)
    return ElfFault::past_end;
  if (offset % alignment != 0)
    return ElfFault::misaligned;
  return ElfFault::none;
}

void ElfView::out_of_range(std::uint64_t offset) {
  throw ElfRangeError("ELF read at offset " + to_hex(offset) + " outside the checked bytes");
}

bool ElfView::set_format(unsigned elf_class, unsigned byte_order) {
  if ((elf_class != ELFCLASS32 && elf_class != ELFCLASS64) ||
      (byte_order != ELFDATA2LSB && byte_order != ELFDATA2MSB))
    return false;
  m_class = elf_class;
  m_order = byte_order;
  return true;
}

std::uint64_t ElfView::number(std::uint64_t offset, unsigned size) const {
  if (!contains(offset, size))
    out_of_range(offset);
  const unsigned char *p = m_data + offset;
  std::uint64_t value = 0;
  for (unsigned i = 0; i < size; ++i)
    value |= std::uint64_t(p[m_order == ELFDATA2LSB ? i : size - 1 - i]) << (8 * i);
  return value;
}

std::uint64_t ElfView::addr(std::uint64_t &offset) const {
  const unsigned size = m_class == ELFCLASS32 ? 4 : 8;
  const std::uint64_t value = number(offset, size);
  offset += size;
  return value;
}

std::uint16_t ElfView::half(std::uint64_t offset) const {
  return static_cast<std::uint16_t>(number(offset, 2));
}
std::uint32_t ElfView::word(std::uint64_t offset) const {
  return static_cast<std::uint32_t>(number(offset, 4));
}
std::uint64_t ElfView::xword(std::uint64_t offset) const {
  return number(offset, 8);
}

Elf64_Ehdr ElfView::ehdr() const {
  if (!contains(0, ehdr_size()))
    out_of_range(0);
  Elf64_Ehdr h{};
  std::memcpy(h.e_ident, m_data, EI_NIDENT);
  std::uint64_t o = EI_NIDENT;
  h.e_type = half(o);
  h.e_machine = half(o + 2);
  h.e_version = word(o + 4);
  o += 8;
  h.e_entry = addr(o);
  h.e_phoff = addr(o);
  h.e_shoff = addr(o);
  h.e_flags = word(o);
  h.e_ehsize = half(o + 4);
  h.e_phentsize = half(o + 6);
  h.e_phnum = half(o + 8);
  h.e_shentsize = half(o + 10);
  h.e_shnum = half(o + 12);
  h.e_shstrndx = half(o + 14);
  return h;
}

Elf64_Phdr ElfView::phdr(std::uint64_t offset) const {
  if (!contains(offset, phdr_size()))
    out_of_range(offset);
  Elf64_Phdr p{};
  std::uint64_t o = offset;
  p.p_type = word(o);
  if (m_class == ELFCLASS64) {
    p.p_flags = word(o + 4);
    o += 8;
  } else {
    o += 4;
  }
  p.p_offset = addr(o);
  p.p_vaddr = addr(o);
  p.p_paddr = addr(o);
  p.p_filesz = addr(o);
  p.p_memsz = addr(o);
  if (m_class == ELFCLASS32) {
    p.p_flags = word(o);
    o += 4;
  }
  p.p_align = addr(o);
  return p;
}

Elf64_Shdr ElfView::shdr(std::uint64_t offset) const {
  if (!contains(offset, shdr_size()))
    out_of_range(offset);
  Elf64_Shdr s{};
  std::uint64_t o = offset;
  s.sh_name = word(o);
  s.sh_type = word(o + 4);
  o += 8;
  s.sh_flags = addr(o);
  s.sh_addr = addr(o);
  s.sh_offset = addr(o);
  s.sh_size = addr(o);
  s.sh_link = word(o);
  s.sh_info = word(o + 4);
  o += 8;
  s.sh_addralign = addr(o);
  s.sh_entsize = addr(o);
  return s;
}

Elf64_Sym ElfView::sym(std::uint64_t offset) const {
  if (!contains(offset, sym_size()))
    out_of_range(offset);
  Elf64_Sym s{};
  s.st_name = word(offset);
  if (m_class == ELFCLASS64) {
    s.st_info = m_data[offset + 4];
    s.st_other = m_data[offset + 5];
    s.st_shndx = half(offset + 6);
    s.st_value = xword(offset + 8);
    s.st_size = xword(offset + 16);
  } else {
    s.st_value = word(offset + 4);
    s.st_size = word(offset + 8);
    s.st_info = m_data[offset + 12];
    s.st_other = m_data[offset + 13];
    s.st_shndx = half(offset + 14);
  }
  return s;
}

Elf64_Dyn ElfView::dyn(std::uint64_t offset) const {
  if (!contains(offset, dyn_size()))
    out_of_range(offset);
  Elf64_Dyn d{};
  if (m_class == ELFCLASS64) {
    d.d_tag = static_cast<Elf64_Sxword>(xword(offset));
    d.d_un.d_val = xword(offset + 8);
  } else {
    // The tag is signed: an ELF32 tag reads as the same number in 64 bits.
    d.d_tag = static_cast<std::int32_t>(word(offset));
    d.d_un.d_val = word(offset + 4);
  }
  return d;
}

Elf64_Verneed ElfView::verneed(std::uint64_t offset) const {
  Elf64_Verneed v{};
  v.vn_version = half(offset);
  v.vn_cnt = half(offset + 2);
  v.vn_file = word(offset + 4);
  v.vn_aux = word(offset + 8);
  v.vn_next = word(offset + 12);
  return v;
}

Elf64_Vernaux ElfView::vernaux(std::uint64_t offset) const {
  Elf64_Vernaux v{};
  v.vna_hash = word(offset);
  v.vna_flags = half(offset + 4);
  v.vna_other = half(offset + 6);
  v.vna_name = word(offset + 8);
  v.vna_next = word(offset + 12);
  return v;
}

Elf64_Verdef ElfView::verdef(std::uint64_t offset) const {
  Elf64_Verdef v{};
  v.vd_version = half(offset);
  v.vd_flags = half(offset + 2);
  v.vd_ndx = half(offset + 4);
  v.vd_cnt = half(offset + 6);
  v.vd_hash = word(offset + 8);
  v.vd_aux = word(offset + 12);
  v.vd_next = word(offset + 16);
  return v;
}

Elf64_Verdaux ElfView::verdaux(std::uint64_t offset) const {
  Elf64_Verdaux v{};
  v.vda_name = word(offset);
  v.vda_next = word(offset + 4);
  return v;
}

std::optional<std::string_view> ElfView::string(std::uint64_t table, std::uint64_t table_size,
                                                std::uint64_t index) const {
  if (!contains(table, table_size))
    out_of_range(table);
  if (index >= table_size)
    return std::nullopt;
  const char *begin = reinterpret_cast<const char *>(m_data + table + index);
  const void *nul = std::memchr(begin, '\0', table_size - index);
  if (nul == nullptr)
    return std::nullopt;
  return std::string_view(begin, static_cast<std::size_t>(static_cast<const char *>(nul) - begin));
}

void ElfEncoder::put(std::vector<unsigned char> &out, std::uint64_t value, unsigned size) const {
  const std::size_t at = out.size();
  out.resize(at + size);
  for (unsigned i = 0; i < size; ++i)
    out[at + (m_order == ELFDATA2LSB ? i : size - 1 - i)] =
        static_cast<unsigned char>(value >> (8 * i));
}

void ElfEncoder::put_addr(std::vector<unsigned char> &out, std::uint64_t value) const {
  if (m_class == ELFCLASS64) {
    put(out, value, 8);
    return;
  }
  if (value > UINT32_MAX)
    throw ElfRangeError("value " + to_hex(value) + " does not fit ELF32");
  put(out, value, 4);
}

std::vector<unsigned char> ElfEncoder::half(std::uint16_t value) const {
  std::vector<unsigned char> out;
  put(out, value, 2);
  return out;
}

std::vector<unsigned char> ElfEncoder::hash_word(std::uint64_t value, std::uint64_t entsize) const {
  std::vector<unsigned char> out;
  if (entsize != 8 && value > UINT32_MAX)
    throw ElfRangeError("value " + to_hex(value) + " does not fit ELF32");
  put(out, value, entsize == 8 ? 8 : 4);
  return out;
}

std::vector<unsigned char> ElfEncoder::ehdr(const Elf64_Ehdr &h) const {
  std::vector<unsigned char> out(h.e_ident, h.e_ident + EI_NIDENT);
  put(out, h.e_type, 2);
  put(out, h.e_machine, 2);
  put(out, h.e_version, 4);
  put_addr(out, h.e_entry);
  put_addr(out, h.e_phoff);
  put_addr(out, h.e_shoff);
  put(out, h.e_flags, 4);
  for (const std::uint16_t v :
       {h.e_ehsize, h.e_phentsize, h.e_phnum, h.e_shentsize, h.e_shnum, h.e_shstrndx})
    put(out, v, 2);
  return out;
}

std::vector<unsigned char> ElfEncoder::phdr(const Elf64_Phdr &p) const {
  std::vector<unsigned char> out;
  put(out, p.p_type, 4);
  if (m_class == ELFCLASS64)
    put(out, p.p_flags, 4);
  for (const std::uint64_t v : {p.p_offset, p.p_vaddr, p.p_paddr, p.p_filesz, p.p_memsz})
    put_addr(out, v);
  if (m_class == ELFCLASS32)
    put(out, p.p_flags, 4);
  put_addr(out, p.p_align);
  return out;
}

std::vector<unsigned char> ElfEncoder::shdr(const Elf64_Shdr &s) const {
  std::vector<unsigned char> out;
  put(out, s.sh_name, 4);
  put(out, s.sh_type, 4);
  for (const std::uint64_t v : {s.sh_flags, s.sh_addr, s.sh_offset, s.sh_size})
    put_addr(out, v);
  put(out, s.sh_link, 4);
  put(out, s.sh_info, 4);
  put_addr(out, s.sh_addralign);
  put_addr(out, s.sh_entsize);
  return out;
}

std::vector<unsigned char> ElfEncoder::dyn(const Elf64_Dyn &d) const {
  std::vector<unsigned char> out;
  if (m_class == ELFCLASS64) {
    put(out, static_cast<std::uint64_t>(d.d_tag), 8);
    put(out, d.d_un.d_val, 8);
    return out;
  }
  if (d.d_tag < INT32_MIN || d.d_tag > INT32_MAX)
    throw ElfRangeError("dynamic tag does not fit ELF32");
  put(out, static_cast<std::uint32_t>(static_cast<std::int32_t>(d.d_tag)), 4);
  put_addr(out, d.d_un.d_val);
  return out;
}

std::vector<unsigned char> ElfEncoder::sym(const Elf64_Sym &s) const {
  std::vector<unsigned char> out;
  put(out, s.st_name, 4);
  if (m_class == ELFCLASS64) {
    out.push_back(s.st_info);
    out.push_back(s.st_other);
    put(out, s.st_shndx, 2);
    put(out, s.st_value, 8);
    put(out, s.st_size, 8);
  } else {
    put_addr(out, s.st_value);
    put_addr(out, s.st_size);
    out.push_back(s.st_info);
    out.push_back(s.st_other);
    put(out, s.st_shndx, 2);
  }
  return out;
}

} // namespace pnmpi
