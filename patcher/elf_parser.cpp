// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Reading an object for the patcher through the shared checked reader (elf/elf_view.h): every
// offset, size and index is checked against the file before use, in the order that gives
// each problem its own message.

#include "elf_parser.h"

#include <algorithm>
#include <cstring>

namespace pnmpi {

namespace {

const char *string_tag_name(std::int64_t tag) {
  switch (tag) {
  case DT_NEEDED:
    return "DT_NEEDED";
  case DT_SONAME:
    return "DT_SONAME";
  case DT_RPATH:
    return "DT_RPATH";
  case DT_RUNPATH:
    return "DT_RUNPATH";
  case DT_AUXILIARY:
    return "DT_AUXILIARY";
  case DT_FILTER:
    return "DT_FILTER";
  case DT_CONFIG:
    return "DT_CONFIG";
  case DT_DEPAUDIT:
    return "DT_DEPAUDIT";
  case DT_AUDIT:
    return "DT_AUDIT";
  }
  return nullptr;
}

} // namespace

ElfParser::ElfParser(std::vector<unsigned char> bytes, std::string label) : m_view(nullptr, 0) {
  m_obj.m_bytes = std::move(bytes);
  m_obj.m_label = std::move(label);
  m_view = ElfView(m_obj.m_bytes);
}

ElfObject ElfParser::run() {
  check_ident();
  read_header();
  read_sections();
  read_segments();
  check_layout();
  read_symbols();
  read_versions();
  read_dynamic();
  read_hashes();
  cross_check();
  return std::move(m_obj);
}

void ElfParser::invalid(const std::string &message) const {
  patch_fail(PatchErrorKind::invalid, m_obj.m_label, message);
}

void ElfParser::refuse(const std::string &message) const {
  patch_fail(PatchErrorKind::refused, m_obj.m_label, message);
}

std::string ElfParser::describe(const SectionInfo &s) const {
  return "section [" + std::to_string(s.index) + "] '" + s.name + "'";
}

void ElfParser::check_ident() {
  const auto &b = m_obj.m_bytes;
  static const char kArchive[] = "!<arch>\n";
  static const char kThinArchive[] = "!<thin>\n";
  if (b.size() >= 8 &&
      (std::memcmp(b.data(), kArchive, 8) == 0 || std::memcmp(b.data(), kThinArchive, 8) == 0))
    refuse("is a static archive; pnmpi-patch needs a shared object. Link the archive into "
           "one first (its objects must be compiled with -fPIC): " +
           archive_link_hint(m_obj.m_label));
  const std::size_t magic = std::min<std::size_t>(b.size(), SELFMAG);
  if (b.empty() || std::memcmp(b.data(), ELFMAG, magic) != 0)
    invalid("not an ELF file (bad magic)");
  if (b.size() < EI_NIDENT)
    invalid("truncated ELF header (" + std::to_string(b.size()) + " bytes)");
  if (b[EI_CLASS] != ELFCLASS32 && b[EI_CLASS] != ELFCLASS64)
    invalid("unsupported ELF class " + std::to_string(b[EI_CLASS]));
  if (b[EI_DATA] != ELFDATA2LSB && b[EI_DATA] != ELFDATA2MSB)
    invalid("unsupported ELF byte order " + std::to_string(b[EI_DATA]));
  if (b[EI_VERSION] != EV_CURRENT)
    invalid("unsupported ELF version " + std::to_string(b[EI_VERSION]));
}

// The header's own fields and tables are checked before anything they point to is read, so
// that each problem gets its own message.
void ElfParser::read_header() {
  const auto &b = m_obj.m_bytes;
  m_view.set_format(b[EI_CLASS], b[EI_DATA]); // both checked by check_ident()
  const std::uint64_t ehsize = m_view.ehdr_size();
  if (b.size() < ehsize)
    invalid("truncated ELF header (" + std::to_string(b.size()) + " bytes, needs " +
            std::to_string(ehsize) + ")");
  Elf64_Ehdr &h = m_obj.m_ehdr;
  h = m_view.ehdr();
  if (h.e_ehsize != ehsize)
    invalid("ELF header size " + std::to_string(h.e_ehsize) + ", expected " +
            std::to_string(ehsize));
  if (h.e_type == ET_REL)
    refuse("is a relocatable object (.o) and has no dynamic symbols; link it into a shared "
           "object first, e.g. gcc -shared -o libtool.so " +
           m_obj.m_label);
  if (h.e_type != ET_DYN)
    refuse("is not a shared object (ELF type " + std::to_string(h.e_type) + ")");

  if (h.e_shoff == 0)
    refuse("has no section headers; pnmpi-patch needs them to find .dynsym");
  m_shentsize = m_view.shdr_size();
  if (h.e_shentsize != m_shentsize)
    invalid("section header entry size " + std::to_string(h.e_shentsize) + ", expected " +
            std::to_string(m_shentsize));
  const std::uint64_t shnum = h.e_shnum == 0 ? 1 : h.e_shnum; // 0: count in section 0
  if (!range_within(h.e_shoff, shnum * m_shentsize, file_size()))
    invalid("section header table (offset " + to_hex(h.e_shoff) + ", " + std::to_string(shnum) +
            " entries) extends past the end of the file (" + std::to_string(file_size()) +
            " bytes)");
  m_phentsize = m_view.phdr_size();
  if (h.e_phnum != 0 && h.e_phnum != PN_XNUM) {
    if (h.e_phentsize != m_phentsize)
      invalid("program header entry size " + std::to_string(h.e_phentsize) + ", expected " +
              std::to_string(m_phentsize));
    if (!range_within(h.e_phoff, std::uint64_t{h.e_phnum} * m_phentsize, file_size()))
      invalid("program header table (offset " + to_hex(h.e_phoff) + ", " +
              std::to_string(h.e_phnum) + " entries) extends past the end of the file (" +
              std::to_string(file_size()) + " bytes)");
  }
}

void ElfParser::read_sections() {
  const Elf64_Ehdr &h = m_obj.m_ehdr;
  // Extended numbering (gABI): with e_shnum 0 the count is section 0's sh_size, with
  // e_shstrndx SHN_XINDEX the name table's index is its sh_link. read_header() checked that
  // section 0 lies in the file.
  const Elf64_Shdr first = m_view.shdr(h.e_shoff);
  const std::uint64_t count = h.e_shnum == 0 ? first.sh_size : h.e_shnum;
  const std::uint64_t strndx = h.e_shstrndx == SHN_XINDEX ? first.sh_link : h.e_shstrndx;
  if (count == 0)
    refuse("has no section headers; pnmpi-patch needs them to find .dynsym");
  if (count > (file_size() - h.e_shoff) / m_shentsize)
    invalid("section header table (offset " + to_hex(h.e_shoff) + ", " + std::to_string(count) +
            " entries) extends past the end of the file (" + std::to_string(file_size()) +
            " bytes)");
  if (strndx == SHN_UNDEF || strndx >= count)
    invalid("section name table index " + std::to_string(strndx) + " is out of range (" +
            std::to_string(count) + " sections)");

  m_sections.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const Elf64_Shdr s = m_view.shdr(h.e_shoff + i * m_shentsize);
    SectionInfo &info = m_sections[i];
    info.index = i;
    info.name_offset = s.sh_name;
    info.type = s.sh_type;
    info.flags = s.sh_flags;
    info.addr = s.sh_addr;
    info.offset = s.sh_offset;
    info.size = s.sh_size;
    info.link = s.sh_link;
    info.info = s.sh_info;
    info.addralign = s.sh_addralign;
    info.entsize = s.sh_entsize;
    info.header_offset = h.e_shoff + i * m_shentsize;
    if (i != 0 && s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL &&
        !range_within(s.sh_offset, s.sh_size, file_size()))
      invalid("section [" + std::to_string(i) + "] (offset " + to_hex(s.sh_offset) + ", size " +
              to_hex(s.sh_size) + ") extends past the end of the file (" +
              std::to_string(file_size()) + " bytes)");
  }

  m_shstrndx = strndx;
  const SectionInfo &names = m_sections[strndx];
  if (names.type != SHT_STRTAB)
    invalid("section name table [" + std::to_string(strndx) + "] is not a string table");
  for (std::size_t i = 1; i < count; ++i) {
    SectionInfo &info = m_sections[i];
    if (info.name_offset >= names.size)
      invalid("section [" + std::to_string(i) + "]: name offset " + to_hex(info.name_offset) +
              " is beyond the section name table (size " + to_hex(names.size) + ")");
    const std::optional<std::string_view> name =
        m_view.string(names.offset, names.size, info.name_offset);
    if (!name)
      invalid("section [" + std::to_string(i) + "]: name is not NUL-terminated");
    info.name.assign(*name);
  }
}

void ElfParser::read_segments() {
  const Elf64_Ehdr &h = m_obj.m_ehdr;
  // Extended numbering (gABI): with e_phnum PN_XNUM the count is section 0's sh_info.
  const std::uint64_t count =
      h.e_phnum == PN_XNUM ? m_view.shdr(h.e_shoff).sh_info : std::uint64_t{h.e_phnum};
  if (count != 0 &&
      (h.e_phentsize != m_phentsize || !range_within(h.e_phoff, count * m_phentsize, file_size())))
    invalid("program header table (offset " + to_hex(h.e_phoff) + ", " + std::to_string(count) +
            " entries) extends past the end of the file (" + std::to_string(file_size()) +
            " bytes)");
  for (std::size_t i = 0; i < count; ++i) {
    const Elf64_Phdr p = m_view.phdr(h.e_phoff + i * m_phentsize);
    if (p.p_type == PT_LOAD) {
      if (!range_within(p.p_offset, p.p_filesz, file_size()))
        invalid("segment " + std::to_string(i) + " (PT_LOAD, offset " + to_hex(p.p_offset) +
                ", size " + to_hex(p.p_filesz) + ") extends past the end of the file");
      if (p.p_filesz > p.p_memsz)
        invalid("segment " + std::to_string(i) + " (PT_LOAD) has p_filesz " + to_hex(p.p_filesz) +
                " > p_memsz " + to_hex(p.p_memsz));
    }
    m_obj.m_phdrs.push_back(p);
  }
}

/// Linkers give the ELF header, the program and section header tables and each section's
/// contents bytes of their own. Patching relies on it: an edit to one must not change what
/// is read from another (a section name, a string, a symbol), so overlaps are refused.
void ElfParser::check_layout() const {
  struct Extent {
    std::uint64_t offset;
    std::uint64_t size;
    std::string what;
  };
  const Elf64_Ehdr &h = m_obj.m_ehdr;
  std::vector<Extent> extents;
  extents.push_back({0, m_view.ehdr_size(), "the ELF header"});
  if (!m_obj.m_phdrs.empty())
    extents.push_back({h.e_phoff, m_obj.m_phdrs.size() * m_phentsize, "the program header table"});
  extents.push_back({h.e_shoff, m_sections.size() * m_shentsize, "the section header table"});
  for (const SectionInfo &s : m_sections)
    if (s.index != 0 && s.type != SHT_NOBITS && s.type != SHT_NULL && s.size != 0)
      extents.push_back({s.offset, s.size, describe(s)});
  std::stable_sort(extents.begin(), extents.end(),
                   [](const Extent &a, const Extent &b) { return a.offset < b.offset; });
  // Sorted by start, any overlap shows between neighbours.
  for (std::size_t i = 1; i < extents.size(); ++i) {
    const Extent &a = extents[i - 1];
    const Extent &b = extents[i];
    if (b.offset - a.offset < a.size)
      invalid(b.what + " (offset " + to_hex(b.offset) + ", size " + to_hex(b.size) + ") overlaps " +
              a.what + " (offset " + to_hex(a.offset) + ", size " + to_hex(a.size) + ")");
  }
}

/// The one section of `type`, or an absent one; several are an error.
SectionInfo ElfParser::unique_section(std::uint32_t type, const char *what) const {
  SectionInfo found;
  for (const SectionInfo &s : m_sections)
    if (s.index != 0 && s.type == type) {
      if (found.present())
        invalid(std::string("has more than one ") + what + " section");
      found = s;
    }
  return found;
}

/// The NUL-terminated `.dynstr` string at `offset`, referenced by `what`.
std::string ElfParser::dynstr_string(std::uint64_t offset, const std::string &what) const {
  const SectionInfo &s = m_obj.m_dynstr;
  if (offset >= s.size)
    invalid(what + ": name offset " + to_hex(offset) + " is beyond the end of '" + s.name +
            "' (size " + to_hex(s.size) + ")");
  const std::optional<std::string_view> name = m_view.string(s.offset, s.size, offset);
  if (!name)
    invalid(what + ": name at '" + s.name + "' offset " + to_hex(offset) +
            " is not NUL-terminated");
  return std::string(*name);
}

void ElfParser::require_link_to_dynstr(const SectionInfo &s) const {
  if (s.link != m_obj.m_dynstr.index)
    invalid(describe(s) + " links to section " + std::to_string(s.link) + ", not to '" +
            m_obj.m_dynstr.name + "'");
}

void ElfParser::read_symbols() {
  SectionInfo sym = unique_section(SHT_DYNSYM, ".dynsym");
  if (!sym.present())
    refuse("has no dynamic symbol table (.dynsym)");
  m_obj.m_dynsym = sym;
  const std::uint64_t entsize = m_view.sym_size();
  if (sym.entsize != entsize)
    invalid(describe(sym) + " has entry size " + std::to_string(sym.entsize) + ", expected " +
            std::to_string(entsize));
  if (sym.size % entsize != 0)
    invalid(describe(sym) + " size " + to_hex(sym.size) + " is not a multiple of its entry size " +
            std::to_string(entsize));
  if (sym.link == 0 || sym.link >= m_sections.size() || m_sections[sym.link].type != SHT_STRTAB)
    invalid(describe(sym) + " links to section " + std::to_string(sym.link) +
            ", which is not a string table");
  m_obj.m_dynstr = m_sections[sym.link];
  if (sym.link == m_shstrndx)
    refuse(describe(m_obj.m_dynstr) +
           " holds both the dynamic strings and the section names, which no linker does; "
           "renaming a string could rename a section");
  const std::size_t count = sym.size / entsize;
  if (count <= 1)
    refuse("has no dynamic symbols");
  m_obj.m_symbols.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    const Elf64_Sym s = m_view.sym(sym.offset + i * entsize);
    DynSymbol &d = m_obj.m_symbols[i];
    d.index = i;
    d.name_offset = s.st_name;
    d.name = dynstr_string(s.st_name, "dynamic symbol " + std::to_string(i));
    d.value = s.st_value;
    d.size = s.st_size;
    d.shndx = s.st_shndx;
    d.info = s.st_info;
    d.other = s.st_other;
  }

  for (const SectionInfo &s : m_sections)
    if (s.index != 0 && s.link == m_obj.m_dynstr.index && s.type != SHT_DYNSYM &&
        s.type != SHT_DYNAMIC && s.type != SHT_GNU_verneed && s.type != SHT_GNU_verdef)
      m_obj.m_unknown_users.push_back(describe(s));
}

void ElfParser::read_dynamic() {
  SectionInfo s = unique_section(SHT_DYNAMIC, ".dynamic");
  if (!s.present())
    invalid("has no .dynamic section");
  const std::uint64_t entsize = m_view.dyn_size();
  if (s.entsize != entsize)
    invalid(describe(s) + " has entry size " + std::to_string(s.entsize) + ", expected " +
            std::to_string(entsize));
  if (s.size % entsize != 0)
    invalid(describe(s) + " size " + to_hex(s.size) + " is not a multiple of its entry size " +
            std::to_string(entsize));
  require_link_to_dynstr(s);
  m_dynamic_section = s;
  const std::size_t count = s.size / entsize;
  for (std::size_t i = 0; i < count; ++i) {
    const Elf64_Dyn d = m_view.dyn(s.offset + i * entsize);
    if (d.d_tag == DT_NULL)
      break;
    DynamicEntry e;
    e.tag = d.d_tag;
    e.value = d.d_un.d_val;
    e.file_offset = s.offset + i * entsize;
    m_obj.m_dynamic.push_back(e);
    if (const char *name = string_tag_name(d.d_tag))
      add_use(d.d_un.d_val, name);
  }
}

} // namespace pnmpi
