// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// One corrupt input per validation check of ElfObject::parse(), made from a good fixture by
// editing bytes, each with the exact message it must produce.

#include <cinttypes>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "support.h"

using namespace pnmpi;
using namespace pnmpi::test;

namespace {

std::string hex(std::uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, value);
  return buf;
}

std::string describe(const Elf64Editor &elf, const std::string &name) {
  return "section [" + std::to_string(elf.section(name)) + "] '" + name + "'";
}

class Corrupt : public ::testing::Test {
protected:
  explicit Corrupt(const char *path = FAKE_TOOL) : m_bytes(read_bytes(path)), m_elf(m_bytes) {}

  /// Expects parse() (then, if it passes, plan_renames()) to fail with "t.so: <message>".
  void expect(const std::string &message, PatchErrorKind kind = PatchErrorKind::invalid) {
    try {
      plan_renames(ElfObject::parse(m_bytes, "t.so"));
      ADD_FAILURE() << "accepted; expected: " << message;
    } catch (const PatchError &e) {
      EXPECT_EQ(e.what(), "t.so: " + message);
      EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
    }
  }

  Elf64_Shdr shdr(const std::string &name) const { return m_elf.shdr(m_elf.section(name)); }
  void set_shdr(const std::string &name, const Elf64_Shdr &s) {
    m_elf.set_shdr(m_elf.section(name), s);
  }
  std::uint64_t size() const { return m_bytes.size(); }
  Elf64_Dyn dyn(std::int64_t tag) const { return m_elf.get<Elf64_Dyn>(m_elf.dynamic_entry(tag)); }
  void set_dyn(std::int64_t tag, std::uint64_t value) {
    Elf64_Dyn d = dyn(tag);
    d.d_un.d_val = value;
    m_elf.set(m_elf.dynamic_entry(tag), d);
  }
  /// The file offset of dynamic symbol `index`.
  std::uint64_t sym_offset(std::size_t index) const {
    return shdr(".dynsym").sh_offset + index * sizeof(Elf64_Sym);
  }

  Bytes m_bytes;
  Elf64Editor m_elf;
};

class CorruptSysvHash : public Corrupt {
protected:
  CorruptSysvHash() : Corrupt(FAKE_TOOL_SYSV) {}
  std::uint64_t word(std::size_t i) const { return shdr(".hash").sh_offset + 4 * i; }
};

class CorruptVerdef : public Corrupt {
protected:
  CorruptVerdef() : Corrupt(FAKE_MPI) {}
};

} // namespace

TEST_F(Corrupt, Identification) {
  m_bytes.clear();
  expect("not an ELF file (bad magic)");
  m_bytes = {'h', 'e', 'l', 'l', 'o'};
  expect("not an ELF file (bad magic)");
  m_bytes = {0x7f, 'E', 'L'};
  expect("truncated ELF header (3 bytes)");
  m_bytes = read_bytes(FAKE_TOOL);
  m_bytes.resize(10);
  expect("truncated ELF header (10 bytes)");
}

TEST_F(Corrupt, IdentFields) {
  const Bytes good = m_bytes;
  m_bytes[EI_CLASS] = 3;
  expect("unsupported ELF class 3");
  m_bytes = good;
  m_bytes[EI_DATA] = 0;
  expect("unsupported ELF byte order 0");
  m_bytes = good;
  m_bytes[EI_VERSION] = 2;
  expect("unsupported ELF version 2");
}

TEST_F(Corrupt, TruncatedHeader) {
  m_bytes.resize(40);
  expect("truncated ELF header (40 bytes, needs 64)");
}

TEST_F(Corrupt, HeaderSize) {
  Elf64_Ehdr h = m_elf.ehdr();
  h.e_ehsize = 60;
  m_elf.set_ehdr(h);
  expect("ELF header size 60, expected 64");
}

TEST_F(Corrupt, NotASharedObject) {
  Elf64_Ehdr h = m_elf.ehdr();
  h.e_type = ET_EXEC;
  m_elf.set_ehdr(h);
  expect("is not a shared object (ELF type 2)", PatchErrorKind::refused);
}

TEST_F(Corrupt, NoSectionHeaders) {
  Elf64_Ehdr h = m_elf.ehdr();
  h.e_shoff = 0;
  m_elf.set_ehdr(h);
  expect("has no section headers; pnmpi-patch needs them to find .dynsym", PatchErrorKind::refused);
}

TEST_F(Corrupt, SectionHeaderEntrySize) {
  Elf64_Ehdr h = m_elf.ehdr();
  h.e_shentsize = 60;
  m_elf.set_ehdr(h);
  expect("section header entry size 60, expected 64");
}

TEST_F(Corrupt, SectionHeaderTableOutOfRange) {
  Elf64_Ehdr h = m_elf.ehdr();
  h.e_shoff = size() - 64;
  m_elf.set_ehdr(h);
  expect("section header table (offset " + hex(h.e_shoff) + ", " + std::to_string(h.e_shnum) +
         " entries) extends past the end of the file (" + std::to_string(size()) + " bytes)");
}

TEST_F(Corrupt, TruncatedFile) {
  const Elf64_Ehdr h = m_elf.ehdr();
  m_bytes = truncated(m_bytes, 1);
  expect("section header table (offset " + hex(h.e_shoff) + ", " + std::to_string(h.e_shnum) +
         " entries) extends past the end of the file (" + std::to_string(size()) + " bytes)");
}

TEST_F(Corrupt, ProgramHeaderEntrySize) {
  Elf64_Ehdr h = m_elf.ehdr();
  h.e_phentsize = 50;
  m_elf.set_ehdr(h);
  expect("program header entry size 50, expected 56");
}

TEST_F(Corrupt, ProgramHeaderTableOutOfRange) {
  Elf64_Ehdr h = m_elf.ehdr();
  h.e_phoff = size() - 8;
  m_elf.set_ehdr(h);
  expect("program header table (offset " + hex(h.e_phoff) + ", " + std::to_string(h.e_phnum) +
         " entries) extends past the end of the file (" + std::to_string(size()) + " bytes)");
}

TEST_F(Corrupt, SectionOutOfRange) {
  Elf64_Shdr s = shdr(".dynsym");
  s.sh_offset = size() - 8;
  set_shdr(".dynsym", s);
  expect("section [" + std::to_string(m_elf.section(".dynsym")) + "] (offset " + hex(s.sh_offset) +
         ", size " + hex(s.sh_size) + ") extends past the end of the file (" +
         std::to_string(size()) + " bytes)");
}

TEST_F(Corrupt, SectionNameTableIndex) {
  Elf64_Ehdr h = m_elf.ehdr();
  const std::size_t sections = h.e_shnum;
  h.e_shstrndx = 99;
  m_elf.set_ehdr(h);
  expect("section name table index 99 is out of range (" + std::to_string(sections) + " sections)");
}

TEST_F(Corrupt, SectionNameTableType) {
  const std::size_t dynsym = m_elf.section(".dynsym");
  Elf64_Ehdr h = m_elf.ehdr();
  h.e_shstrndx = static_cast<Elf64_Half>(dynsym);
  m_elf.set_ehdr(h);
  expect("section name table [" + std::to_string(dynsym) + "] is not a string table");
}

TEST_F(Corrupt, SectionNameOffset) {
  const Elf64_Shdr names = m_elf.shdr(m_elf.ehdr().e_shstrndx);
  Elf64_Shdr s = m_elf.shdr(1);
  s.sh_name = static_cast<Elf64_Word>(names.sh_size + 3);
  m_elf.set_shdr(1, s);
  expect("section [1]: name offset " + hex(s.sh_name) + " is beyond the section name table (size " +
         hex(names.sh_size) + ")");
}

TEST_F(Corrupt, SectionNameNotTerminated) {
  const Elf64_Shdr names = m_elf.shdr(m_elf.ehdr().e_shstrndx);
  Elf64_Shdr s = m_elf.shdr(1);
  s.sh_name = static_cast<Elf64_Word>(names.sh_size - 1);
  m_elf.set_shdr(1, s);
  m_bytes[names.sh_offset + names.sh_size - 1] = 'x';
  expect("section [1]: name is not NUL-terminated");
}

TEST_F(Corrupt, LoadSegmentOutOfRange) {
  const std::size_t load = m_elf.phdr_index(PT_LOAD);
  Elf64_Phdr p = m_elf.phdr(load);
  p.p_filesz = p.p_memsz = size() + 1;
  m_elf.set_phdr(load, p);
  expect("segment " + std::to_string(load) + " (PT_LOAD, offset " + hex(p.p_offset) + ", size " +
         hex(p.p_filesz) + ") extends past the end of the file");
}

TEST_F(Corrupt, LoadSegmentFileSizeAboveMemorySize) {
  const std::size_t load = m_elf.phdr_index(PT_LOAD);
  Elf64_Phdr p = m_elf.phdr(load);
  p.p_memsz = p.p_filesz - 1;
  m_elf.set_phdr(load, p);
  expect("segment " + std::to_string(load) + " (PT_LOAD) has p_filesz " + hex(p.p_filesz) +
         " > p_memsz " + hex(p.p_memsz));
}

TEST_F(Corrupt, TwoDynamicSymbolTables) {
  Elf64_Shdr s = shdr(".symtab");
  s.sh_type = SHT_DYNSYM;
  set_shdr(".symtab", s);
  expect("has more than one .dynsym section");
}

TEST_F(Corrupt, NoDynamicSymbolTable) {
  Elf64_Shdr s = shdr(".dynsym");
  s.sh_type = SHT_PROGBITS;
  set_shdr(".dynsym", s);
  expect("has no dynamic symbol table (.dynsym)", PatchErrorKind::refused);
}

TEST_F(Corrupt, DynsymEntrySize) {
  Elf64_Shdr s = shdr(".dynsym");
  s.sh_entsize = 16;
  set_shdr(".dynsym", s);
  expect(describe(m_elf, ".dynsym") + " has entry size 16, expected 24");
}

TEST_F(Corrupt, DynsymSizeNotMultipleOfEntrySize) {
  Elf64_Shdr s = shdr(".dynsym");
  s.sh_size -= 1; // shorter: longer would overlap the next section
  set_shdr(".dynsym", s);
  expect(describe(m_elf, ".dynsym") + " size " + hex(s.sh_size) +
         " is not a multiple of its entry size 24");
}

TEST_F(Corrupt, DynsymLink) {
  Elf64_Shdr s = shdr(".dynsym");
  s.sh_link = 0;
  set_shdr(".dynsym", s);
  expect(describe(m_elf, ".dynsym") + " links to section 0, which is not a string table");
}

TEST_F(Corrupt, SymbolNameBeyondDynstr) {
  const std::uint64_t strsz = shdr(".dynstr").sh_size;
  Elf64_Sym sym = m_elf.get<Elf64_Sym>(sym_offset(1));
  sym.st_name = static_cast<Elf64_Word>(strsz + 5);
  m_elf.set(sym_offset(1), sym);
  expect("dynamic symbol 1: name offset " + hex(strsz + 5) +
         " is beyond the end of '.dynstr' (size " + hex(strsz) + ")");
}

TEST_F(Corrupt, SymbolNameNotTerminated) {
  const Elf64_Shdr dynstr = shdr(".dynstr");
  Elf64_Sym sym = m_elf.get<Elf64_Sym>(sym_offset(1));
  sym.st_name = static_cast<Elf64_Word>(dynstr.sh_size - 1);
  m_elf.set(sym_offset(1), sym);
  m_bytes[dynstr.sh_offset + dynstr.sh_size - 1] = 'x';
  expect("dynamic symbol 1: name at '.dynstr' offset " + hex(dynstr.sh_size - 1) +
         " is not NUL-terminated");
}

TEST_F(Corrupt, VersymLink) {
  Elf64_Shdr s = shdr(".gnu.version");
  s.sh_link = 0;
  set_shdr(".gnu.version", s);
  expect(describe(m_elf, ".gnu.version") + " links to section 0, not to '.dynsym'");
}

TEST_F(Corrupt, VersymSize) {
  Elf64_Shdr s = shdr(".gnu.version");
  s.sh_size -= 2;
  set_shdr(".gnu.version", s);
  expect(describe(m_elf, ".gnu.version") + " has " + std::to_string(s.sh_size) +
         " bytes of entry size 2 for " + std::to_string(s.sh_size / 2 + 1) + " dynamic symbols");
}

TEST_F(Corrupt, VerneedLink) {
  Elf64_Shdr s = shdr(".gnu.version_r");
  s.sh_link = static_cast<Elf64_Word>(m_elf.section(".dynsym"));
  set_shdr(".gnu.version_r", s);
  expect(describe(m_elf, ".gnu.version_r") + " links to section " + std::to_string(s.sh_link) +
         ", not to '.dynstr'");
}

TEST_F(Corrupt, VerneedChainEndsEarly) {
  Elf64_Shdr s = shdr(".gnu.version_r");
  ASSERT_EQ(s.sh_info, 1u);
  s.sh_info = 2;
  set_shdr(".gnu.version_r", s);
  expect(describe(m_elf, ".gnu.version_r") + " ends after 1 of 2 entries");
}

TEST_F(Corrupt, VerneedEntryOutsideSection) {
  Elf64_Shdr s = shdr(".gnu.version_r");
  s.sh_info = 2;
  set_shdr(".gnu.version_r", s);
  Elf64_Verneed vn = m_elf.get<Elf64_Verneed>(s.sh_offset);
  vn.vn_next = 0x1000;
  m_elf.set(s.sh_offset, vn);
  expect(describe(m_elf, ".gnu.version_r") + ": entry 1 at offset 0x1000 is outside the section");
}

TEST_F(Corrupt, VernauxOutsideSection) {
  const Elf64_Shdr s = shdr(".gnu.version_r");
  Elf64_Verneed vn = m_elf.get<Elf64_Verneed>(s.sh_offset);
  vn.vn_aux = 0x1000;
  m_elf.set(s.sh_offset, vn);
  expect(describe(m_elf, ".gnu.version_r") +
         ": auxiliary entry 0 of entry 0 at offset 0x1000 is outside the section");
}

TEST_F(Corrupt, VernauxChainEndsEarly) {
  const Elf64_Shdr s = shdr(".gnu.version_r");
  Elf64_Verneed vn = m_elf.get<Elf64_Verneed>(s.sh_offset);
  const std::uint64_t last_aux = s.sh_offset + vn.vn_aux + (vn.vn_cnt - 1) * sizeof(Elf64_Vernaux);
  ASSERT_EQ(m_elf.get<Elf64_Vernaux>(last_aux).vna_next, 0u);
  const unsigned count = vn.vn_cnt;
  vn.vn_cnt = static_cast<Elf64_Half>(count + 1);
  m_elf.set(s.sh_offset, vn);
  expect(describe(m_elf, ".gnu.version_r") + ": entry 0 ends after " + std::to_string(count) +
         " of " + std::to_string(count + 1) + " auxiliary entries");
}

TEST_F(Corrupt, VerneedFileName) {
  const std::uint64_t strsz = shdr(".dynstr").sh_size;
  const Elf64_Shdr s = shdr(".gnu.version_r");
  Elf64_Verneed vn = m_elf.get<Elf64_Verneed>(s.sh_offset);
  vn.vn_file = static_cast<Elf64_Word>(strsz);
  m_elf.set(s.sh_offset, vn);
  expect("vn_file of " + describe(m_elf, ".gnu.version_r") + " entry 0: name offset " + hex(strsz) +
         " is beyond the end of '.dynstr' (size " + hex(strsz) + ")");
}

TEST_F(Corrupt, VernauxName) {
  const std::uint64_t strsz = shdr(".dynstr").sh_size;
  const Elf64_Shdr s = shdr(".gnu.version_r");
  const Elf64_Verneed vn = m_elf.get<Elf64_Verneed>(s.sh_offset);
  Elf64_Vernaux vna = m_elf.get<Elf64_Vernaux>(s.sh_offset + vn.vn_aux);
  vna.vna_name = static_cast<Elf64_Word>(strsz + 1);
  m_elf.set(s.sh_offset + vn.vn_aux, vna);
  expect("vna_name of " + describe(m_elf, ".gnu.version_r") + " entry 0: name offset " +
         hex(strsz + 1) + " is beyond the end of '.dynstr' (size " + hex(strsz) + ")");
}

TEST_F(CorruptVerdef, VerdauxOutsideSection) {
  const Elf64_Shdr s = shdr(".gnu.version_d");
  Elf64_Verdef vd = m_elf.get<Elf64_Verdef>(s.sh_offset);
  vd.vd_aux = 0x1000;
  m_elf.set(s.sh_offset, vd);
  expect(describe(m_elf, ".gnu.version_d") +
         ": auxiliary entry 0 of entry 0 at offset 0x1000 is outside the section");
}

TEST_F(CorruptVerdef, VerdefChainEndsEarly) {
  Elf64_Shdr s = shdr(".gnu.version_d");
  const unsigned count = s.sh_info;
  std::uint64_t last = s.sh_offset;
  for (unsigned i = 1; i < count; ++i)
    last += m_elf.get<Elf64_Verdef>(last).vd_next;
  ASSERT_EQ(m_elf.get<Elf64_Verdef>(last).vd_next, 0u);
  s.sh_info = count + 1;
  set_shdr(".gnu.version_d", s);
  expect(describe(m_elf, ".gnu.version_d") + " ends after " + std::to_string(count) + " of " +
         std::to_string(count + 1) + " entries");
}

TEST_F(CorruptVerdef, VerdauxName) {
  const std::uint64_t strsz = shdr(".dynstr").sh_size;
  const Elf64_Shdr s = shdr(".gnu.version_d");
  const Elf64_Verdef vd = m_elf.get<Elf64_Verdef>(s.sh_offset);
  Elf64_Verdaux vda = m_elf.get<Elf64_Verdaux>(s.sh_offset + vd.vd_aux);
  vda.vda_name = static_cast<Elf64_Word>(strsz + 2);
  m_elf.set(s.sh_offset + vd.vd_aux, vda);
  expect("vda_name of " + describe(m_elf, ".gnu.version_d") + " entry 0: name offset " +
         hex(strsz + 2) + " is beyond the end of '.dynstr' (size " + hex(strsz) + ")");
}

TEST_F(CorruptVerdef, VerdefNum) {
  const unsigned count = shdr(".gnu.version_d").sh_info;
  set_dyn(DT_VERDEFNUM, count + 1);
  expect("DT_VERDEFNUM (" + std::to_string(count + 1) + ") does not match the entry count of " +
         describe(m_elf, ".gnu.version_d") + " (" + std::to_string(count) + ")");
}

TEST_F(Corrupt, NoDynamicSection) {
  Elf64_Shdr s = shdr(".dynamic");
  s.sh_type = SHT_PROGBITS;
  set_shdr(".dynamic", s);
  expect("has no .dynamic section");
}

TEST_F(Corrupt, DynamicEntrySize) {
  Elf64_Shdr s = shdr(".dynamic");
  s.sh_entsize = 8;
  set_shdr(".dynamic", s);
  expect(describe(m_elf, ".dynamic") + " has entry size 8, expected 16");
}

TEST_F(Corrupt, DynamicSizeNotMultipleOfEntrySize) {
  Elf64_Shdr s = shdr(".dynamic");
  s.sh_size -= 3;
  set_shdr(".dynamic", s);
  expect(describe(m_elf, ".dynamic") + " size " + hex(s.sh_size) +
         " is not a multiple of its entry size 16");
}

TEST_F(Corrupt, DynamicLink) {
  Elf64_Shdr s = shdr(".dynamic");
  s.sh_link = 0;
  set_shdr(".dynamic", s);
  expect(describe(m_elf, ".dynamic") + " links to section 0, not to '.dynstr'");
}

TEST_F(Corrupt, NeededNameBeyondDynstr) {
  const std::uint64_t strsz = shdr(".dynstr").sh_size;
  set_dyn(DT_NEEDED, strsz + 7);
  expect("DT_NEEDED: name offset " + hex(strsz + 7) + " is beyond the end of '.dynstr' (size " +
         hex(strsz) + ")");
}

TEST_F(Corrupt, StrtabAddress) {
  const Elf64_Shdr s = shdr(".dynstr");
  set_dyn(DT_STRTAB, s.sh_addr + 8);
  expect("DT_STRTAB (" + hex(s.sh_addr + 8) + ") is not the address of " +
         describe(m_elf, ".dynstr") + " (" + hex(s.sh_addr) + ")");
}

TEST_F(Corrupt, StrtabSize) {
  const Elf64_Shdr s = shdr(".dynstr");
  set_dyn(DT_STRSZ, s.sh_size + 1);
  expect("DT_STRSZ (" + std::to_string(s.sh_size + 1) + ") does not match the size of '.dynstr' (" +
         std::to_string(s.sh_size) + ")");
}

TEST_F(Corrupt, SymtabAddress) {
  const Elf64_Shdr s = shdr(".dynsym");
  set_dyn(DT_SYMTAB, s.sh_addr - 24);
  expect("DT_SYMTAB (" + hex(s.sh_addr - 24) + ") is not the address of " +
         describe(m_elf, ".dynsym") + " (" + hex(s.sh_addr) + ")");
}

TEST_F(Corrupt, SymbolEntrySize) {
  set_dyn(DT_SYMENT, 16);
  expect("DT_SYMENT (16) does not match the '.dynsym' entry size (24)");
}

TEST_F(Corrupt, VersymAddress) {
  const Elf64_Shdr s = shdr(".gnu.version");
  set_dyn(DT_VERSYM, s.sh_addr + 2);
  expect("DT_VERSYM (" + hex(s.sh_addr + 2) + ") is not the address of " +
         describe(m_elf, ".gnu.version") + " (" + hex(s.sh_addr) + ")");
}

TEST_F(Corrupt, VerneedCount) {
  set_dyn(DT_VERNEEDNUM, 2);
  expect("DT_VERNEEDNUM (2) does not match the entry count of " +
         describe(m_elf, ".gnu.version_r") + " (1)");
}

TEST_F(Corrupt, MissingDynamicEntryForSection) {
  Elf64_Dyn d = dyn(DT_GNU_HASH);
  d.d_tag = DT_DEBUG;
  m_elf.set(m_elf.dynamic_entry(DT_GNU_HASH), d);
  expect(describe(m_elf, ".gnu.hash") + " has no DT_GNU_HASH entry in .dynamic");
}

TEST_F(Corrupt, SectionNotLoadedWhereItSays) {
  Elf64_Shdr s = shdr(".dynstr");
  s.sh_addr = 0x7000000;
  set_shdr(".dynstr", s);
  set_dyn(DT_STRTAB, s.sh_addr);
  expect(describe(m_elf, ".dynstr") + " (address 0x7000000, offset " + hex(s.sh_offset) +
         ") is not loaded from that offset by any PT_LOAD segment");
}

TEST_F(Corrupt, DynamicSegmentIsNotDynamicSection) {
  const std::size_t index = m_elf.phdr_index(PT_DYNAMIC);
  Elf64_Phdr p = m_elf.phdr(index);
  p.p_offset += 16;
  m_elf.set_phdr(index, p);
  expect("PT_DYNAMIC (offset " + hex(p.p_offset) + ") is not " + describe(m_elf, ".dynamic") +
         " (offset " + hex(shdr(".dynamic").sh_offset) + ")");
}

TEST_F(Corrupt, GnuHashHeader) {
  Elf64_Shdr s = shdr(".gnu.hash");
  s.sh_size = 8;
  set_shdr(".gnu.hash", s);
  expect(describe(m_elf, ".gnu.hash") + " size 0x8 cannot hold its header");
}

TEST_F(Corrupt, GnuHashSymbolOffset) {
  const std::uint64_t count = shdr(".dynsym").sh_size / sizeof(Elf64_Sym);
  m_elf.set<std::uint32_t>(shdr(".gnu.hash").sh_offset + 4, 999);
  expect(describe(m_elf, ".gnu.hash") + " starts at symbol 999 of " + std::to_string(count));
}

TEST_F(Corrupt, GnuHashCoveringAnImport) {
  const ElfObject object = ElfObject::parse(m_bytes, "t.so");
  const DynSymbol *first = nullptr;
  for (const DynSymbol &s : object.symbols())
    if (!first && !s.defined() && s.name.rfind("PMPI_", 0) == 0)
      first = &s;
  ASSERT_NE(first, nullptr);
  m_elf.set<std::uint32_t>(shdr(".gnu.hash").sh_offset + 4, 1);
  expect("import " + first->name + " (dynamic symbol " + std::to_string(first->index) +
             ") is covered by .gnu.hash, which linkers never do; refusing to patch",
         PatchErrorKind::refused);
}

TEST_F(CorruptSysvHash, EntrySize) {
  Elf64_Shdr s = shdr(".hash");
  s.sh_entsize = 2;
  set_shdr(".hash", s);
  expect(describe(m_elf, ".hash") + " has entry size 2");
}

TEST_F(CorruptSysvHash, HeaderDoesNotMatchSize) {
  const std::uint64_t words = shdr(".hash").sh_size / 4;
  const std::uint32_t nbucket = m_elf.get<std::uint32_t>(word(0));
  const std::uint32_t nchain = m_elf.get<std::uint32_t>(word(1));
  m_elf.set<std::uint32_t>(word(1), nchain + 1);
  expect(describe(m_elf, ".hash") + " holds " + std::to_string(words) + " words for nbucket " +
         std::to_string(nbucket) + " and nchain " + std::to_string(nchain + 1));
}

TEST_F(CorruptSysvHash, ChainCountIsNotSymbolCount) {
  const std::uint32_t nbucket = m_elf.get<std::uint32_t>(word(0));
  const std::uint32_t nchain = m_elf.get<std::uint32_t>(word(1));
  // One bucket fewer and one chain more: the header still matches the size.
  m_elf.set<std::uint32_t>(word(0), nbucket - 1);
  m_elf.set<std::uint32_t>(word(1), nchain + 1);
  expect(describe(m_elf, ".hash") + " has nchain " + std::to_string(nchain + 1) + " for " +
         std::to_string(nchain) + " dynamic symbols");
}

TEST_F(CorruptSysvHash, SymbolInNoChain) {
  const ElfObject object = ElfObject::parse(m_bytes, "t.so");
  const std::uint32_t nbucket = m_elf.get<std::uint32_t>(word(0));
  for (std::size_t b = 0; b < nbucket; ++b)
    m_elf.set<std::uint32_t>(word(2 + b), 0);
  const DynSymbol *first = nullptr;
  for (const DynSymbol &s : object.symbols())
    if (!first && s.index != 0 && s.binding() != STB_LOCAL)
      first = &s;
  ASSERT_NE(first, nullptr);
  expect(describe(m_elf, ".hash") + " is inconsistent: symbol " + std::to_string(first->index) +
         " (" + first->name + ") is in no chain");
}

TEST_F(CorruptSysvHash, ChainLoops) {
  const std::uint32_t nbucket = m_elf.get<std::uint32_t>(word(0));
  std::size_t bucket = 0;
  while (m_elf.get<std::uint32_t>(word(2 + bucket)) == 0)
    ++bucket;
  const std::uint32_t head = m_elf.get<std::uint32_t>(word(2 + bucket));
  m_elf.set<std::uint32_t>(word(2 + nbucket + head), head);
  expect(describe(m_elf, ".hash") + " is inconsistent: symbol " + std::to_string(head) +
         " is listed twice or its chain loops");
}

TEST_F(CorruptSysvHash, SymbolUnderTheWrongHash) {
  const std::uint32_t nbucket = m_elf.get<std::uint32_t>(word(0));
  ASSERT_GE(nbucket, 2u);
  // Swap two bucket heads, one of them non-empty: its chain now sits under another hash.
  std::size_t bucket = 0;
  while (m_elf.get<std::uint32_t>(word(2 + bucket)) == 0)
    ++bucket;
  const std::size_t other = (bucket + 1) % nbucket;
  const std::uint32_t a = m_elf.get<std::uint32_t>(word(2 + bucket));
  const std::uint32_t b = m_elf.get<std::uint32_t>(word(2 + other));
  m_elf.set<std::uint32_t>(word(2 + bucket), b);
  m_elf.set<std::uint32_t>(word(2 + other), a);
  // The first bucket (by index) whose new head is not empty reports its head.
  const ElfObject good = ElfObject::load(FAKE_TOOL_SYSV);
  std::size_t wrong = bucket < other ? bucket : other;
  std::uint32_t head = m_elf.get<std::uint32_t>(word(2 + wrong));
  if (head == 0) {
    wrong = bucket < other ? other : bucket;
    head = m_elf.get<std::uint32_t>(word(2 + wrong));
  }
  expect(describe(m_elf, ".hash") + " is inconsistent: symbol " + std::to_string(head) + " (" +
         good.symbols()[head].name + ") is in bucket " + std::to_string(wrong) +
         ", not under its hash");
}

TEST_F(CorruptSysvHash, LocalImportInNoChain) {
  // Found by the fuzzer: a local symbol may rightly be in no chain, and once renamed its
  // chain could not be found. A local import is never looked up, so the file is malformed.
  const ElfObject object = ElfObject::parse(m_bytes, "t.so");
  const DynSymbol *import = nullptr;
  for (const DynSymbol &s : object.symbols())
    if (!import && !s.defined() && s.name.rfind("PMPI_", 0) == 0)
      import = &s;
  ASSERT_NE(import, nullptr);
  Elf64_Sym sym = m_elf.get<Elf64_Sym>(sym_offset(import->index));
  sym.st_info = ELF64_ST_INFO(STB_LOCAL, ELF64_ST_TYPE(sym.st_info));
  m_elf.set(sym_offset(import->index), sym);
  const std::uint32_t nbucket = m_elf.get<std::uint32_t>(word(0));
  for (std::size_t b = 0; b < nbucket; ++b)
    if (m_elf.get<std::uint32_t>(word(2 + b)) == import->index)
      m_elf.set(word(2 + b), m_elf.get<std::uint32_t>(word(2 + nbucket + import->index)));
  for (std::size_t i = 0; i < object.symbols().size(); ++i)
    if (m_elf.get<std::uint32_t>(word(2 + nbucket + i)) == import->index)
      m_elf.set(word(2 + nbucket + i), m_elf.get<std::uint32_t>(word(2 + nbucket + import->index)));
  expect("import " + import->name + " (dynamic symbol " + std::to_string(import->index) +
         ") is local, so no dynamic linker would look it up; the file is malformed");
}

TEST_F(Corrupt, SectionsOverlap) {
  const Elf64_Shdr dynsym = shdr(".dynsym");
  Elf64_Shdr s = shdr(".dynstr");
  s.sh_offset = dynsym.sh_offset + 8;
  set_shdr(".dynstr", s);
  expect(describe(m_elf, ".dynstr") + " (offset " + hex(s.sh_offset) + ", size " + hex(s.sh_size) +
         ") overlaps " + describe(m_elf, ".dynsym") + " (offset " + hex(dynsym.sh_offset) +
         ", size " + hex(dynsym.sh_size) + ")");
}

TEST_F(Corrupt, SectionOverlapsTheElfHeader) {
  // Found by the fuzzer with the section name table there: relocating '.dynstr' rewrites
  // the ELF header, and with it the section names read from it.
  Elf64_Shdr s = shdr(".dynstr");
  s.sh_offset = 6;
  set_shdr(".dynstr", s);
  expect(describe(m_elf, ".dynstr") + " (offset 0x6, size " + hex(s.sh_size) +
         ") overlaps the ELF header (offset 0x0, size 0x40)");
}

TEST_F(Corrupt, SectionNamesInDynstr) {
  // Renaming in place would rename any section whose name shares the renamed bytes.
  Elf64_Ehdr h = m_elf.ehdr();
  h.e_shstrndx = static_cast<Elf64_Half>(m_elf.section(".dynstr"));
  for (std::size_t i = 0; i < h.e_shnum; ++i) {
    Elf64_Shdr s = m_elf.shdr(i);
    s.sh_name = 0;
    m_elf.set_shdr(i, s);
  }
  const std::string dynstr = "section [" + std::to_string(h.e_shstrndx) + "] ''";
  m_elf.set_ehdr(h);
  expect(dynstr + " holds both the dynamic strings and the section names, which no linker does; "
                  "renaming a string could rename a section",
         PatchErrorKind::refused);
}
