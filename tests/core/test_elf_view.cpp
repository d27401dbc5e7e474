// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The shared ELF reader (elf/elf_view.h): its decoders against the host's own structures,
// the encoder against the decoders in every class and byte order, and its checks.

#include <cstring>
#include <elf.h>
#include <vector>

#include <gtest/gtest.h>

#include "elf_view.h"

using namespace pnmpi;

namespace {

using Bytes = std::vector<unsigned char>;

constexpr unsigned kHostOrder =
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

template <typename T> Bytes bytes_of(const T &value) {
  Bytes out(sizeof value);
  std::memcpy(out.data(), &value, sizeof value);
  return out;
}

Elf64_Sym sample_sym() {
  Elf64_Sym s{};
  s.st_name = 0x11223344;
  s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
  s.st_other = STV_PROTECTED;
  s.st_shndx = 0x1234;
  s.st_value = 0x89abcdef;
  s.st_size = 0x7654321;
  return s;
}

Elf64_Phdr sample_phdr() {
  Elf64_Phdr p{};
  p.p_type = PT_LOAD;
  p.p_flags = PF_R | PF_W;
  p.p_offset = 0x1000;
  p.p_vaddr = 0x201000;
  p.p_paddr = 0x301000;
  p.p_filesz = 0x123;
  p.p_memsz = 0x456;
  p.p_align = 0x1000;
  return p;
}

Elf64_Shdr sample_shdr() {
  Elf64_Shdr s{};
  s.sh_name = 7;
  s.sh_type = SHT_DYNSYM;
  s.sh_flags = SHF_ALLOC;
  s.sh_addr = 0x2a8;
  s.sh_offset = 0x2a8;
  s.sh_size = 0x180;
  s.sh_link = 6;
  s.sh_info = 1;
  s.sh_addralign = 8;
  s.sh_entsize = 24;
  return s;
}

Elf64_Ehdr sample_ehdr(unsigned elf_class, unsigned order) {
  Elf64_Ehdr h{};
  std::memcpy(h.e_ident, ELFMAG, SELFMAG);
  h.e_ident[EI_CLASS] = static_cast<unsigned char>(elf_class);
  h.e_ident[EI_DATA] = static_cast<unsigned char>(order);
  h.e_ident[EI_VERSION] = EV_CURRENT;
  h.e_type = ET_DYN;
  h.e_machine = EM_X86_64;
  h.e_version = EV_CURRENT;
  h.e_entry = 0x1040;
  h.e_phoff = 64;
  h.e_shoff = 0x3a98;
  h.e_flags = 0x5;
  h.e_ehsize = elf_class == ELFCLASS32 ? 52 : 64;
  h.e_phentsize = elf_class == ELFCLASS32 ? 32 : 56;
  h.e_phnum = 11;
  h.e_shentsize = elf_class == ELFCLASS32 ? 40 : 64;
  h.e_shnum = 29;
  h.e_shstrndx = 28;
  return h;
}

} // namespace

TEST(ElfView, DecodesTheHostsOwnStructures) {
  // ELF64 in the host's byte order is the host's own layout: decoding must give it back.
  const Elf64_Sym sym = sample_sym();
  const Elf64_Phdr phdr = sample_phdr();
  const Elf64_Shdr shdr = sample_shdr();
  Bytes bytes = bytes_of(sym);
  const Bytes p = bytes_of(phdr), s = bytes_of(shdr);
  bytes.insert(bytes.end(), p.begin(), p.end());
  bytes.insert(bytes.end(), s.begin(), s.end());
  ElfView view(bytes);
  ASSERT_TRUE(view.set_format(ELFCLASS64, kHostOrder));
  EXPECT_EQ(bytes_of(view.sym(0)), bytes_of(sym));
  EXPECT_EQ(bytes_of(view.phdr(sizeof sym)), bytes_of(phdr));
  EXPECT_EQ(bytes_of(view.shdr(sizeof sym + sizeof phdr)), bytes_of(shdr));
  // And the encoder writes the same bytes.
  const ElfEncoder encoder(ELFCLASS64, kHostOrder);
  EXPECT_EQ(encoder.sym(sym), bytes_of(sym));
  EXPECT_EQ(encoder.phdr(phdr), bytes_of(phdr));
  EXPECT_EQ(encoder.shdr(shdr), bytes_of(shdr));
}

TEST(ElfView, EncoderAndDecodersAgreeInEveryFormat) {
  for (const unsigned elf_class : {ELFCLASS32, ELFCLASS64})
    for (const unsigned order : {ELFDATA2LSB, ELFDATA2MSB}) {
      SCOPED_TRACE("class " + std::to_string(elf_class) + ", byte order " + std::to_string(order));
      const ElfEncoder encoder(elf_class, order);
      const Elf64_Ehdr ehdr = sample_ehdr(elf_class, order);
      Elf64_Dyn dyn{};
      dyn.d_tag = -5; // signed in both classes
      dyn.d_un.d_val = 0x12345678;
      Bytes bytes = encoder.ehdr(ehdr);
      const std::uint64_t at_phdr = bytes.size();
      for (const Bytes &part :
           {encoder.phdr(sample_phdr()), encoder.shdr(sample_shdr()), encoder.sym(sample_sym()),
            encoder.dyn(dyn), encoder.half(0xbeef), encoder.hash_word(0xcafe, 4)})
        bytes.insert(bytes.end(), part.begin(), part.end());
      ElfView view(bytes);
      ASSERT_TRUE(view.set_format(elf_class, order));
      EXPECT_EQ(bytes_of(view.ehdr()), bytes_of(ehdr));
      std::uint64_t at = at_phdr;
      EXPECT_EQ(bytes_of(view.phdr(at)), bytes_of(sample_phdr()));
      at += view.phdr_size();
      EXPECT_EQ(bytes_of(view.shdr(at)), bytes_of(sample_shdr()));
      at += view.shdr_size();
      EXPECT_EQ(bytes_of(view.sym(at)), bytes_of(sample_sym()));
      at += view.sym_size();
      EXPECT_EQ(view.dyn(at).d_tag, -5);
      EXPECT_EQ(view.dyn(at).d_un.d_val, 0x12345678u);
      at += view.dyn_size();
      EXPECT_EQ(view.half(at), 0xbeef);
      EXPECT_EQ(view.word(at + 2), 0xcafeu);
      EXPECT_EQ(at + 6, bytes.size());
    }
}

TEST(ElfView, ByteOrderIsTheFilesNotTheHosts) {
  const Bytes bytes{0x01, 0x02, 0x03, 0x04};
  ElfView view(bytes);
  ASSERT_TRUE(view.set_format(ELFCLASS32, ELFDATA2LSB));
  EXPECT_EQ(view.word(0), 0x04030201u);
  ASSERT_TRUE(view.set_format(ELFCLASS32, ELFDATA2MSB));
  EXPECT_EQ(view.word(0), 0x01020304u);
  EXPECT_FALSE(view.set_format(3, ELFDATA2LSB));
  EXPECT_FALSE(view.set_format(ELFCLASS64, 0));
  EXPECT_EQ(view.word(0), 0x01020304u); // a refused format changes nothing
}

TEST(ElfView, Elf32CannotHoldLargeValues) {
  const ElfEncoder encoder(ELFCLASS32, ELFDATA2LSB);
  Elf64_Phdr p = sample_phdr();
  p.p_vaddr = std::uint64_t(1) << 32;
  EXPECT_THROW(encoder.phdr(p), ElfRangeError);
  Elf64_Dyn d{};
  d.d_tag = std::int64_t(1) << 40;
  EXPECT_THROW(encoder.dyn(d), ElfRangeError);
  EXPECT_THROW(encoder.hash_word(std::uint64_t(1) << 32, 4), ElfRangeError);
  EXPECT_EQ(encoder.hash_word(std::uint64_t(1) << 32, 8).size(), 8u);
}

TEST(ElfView, EveryReadIsChecked) {
  const Bytes bytes(32, 0);
  ElfView view(bytes);
  EXPECT_EQ(view.fault<std::uint64_t>(16, 1), ElfFault::none);
  EXPECT_EQ(view.fault<std::uint64_t>(24, 1), ElfFault::none);
  EXPECT_EQ(view.fault<std::uint64_t>(24, 2), ElfFault::past_end);
  EXPECT_EQ(view.fault<std::uint64_t>(4, 1), ElfFault::misaligned);
  EXPECT_EQ(view.fault<std::uint64_t>(~std::uint64_t{0}, 1), ElfFault::past_end);
  EXPECT_EQ(view.fault<std::uint64_t>(8, ~std::uint64_t{0}), ElfFault::past_end);
  EXPECT_THROW(view.native<std::uint64_t>(4), ElfRangeError);
  EXPECT_THROW(view.xword(25), ElfRangeError);
  EXPECT_NO_THROW(view.xword(24));
  EXPECT_THROW(view.sym(16), ElfRangeError); // 24 bytes from 16 run past 32
  EXPECT_THROW(view.ehdr(), ElfRangeError);
  EXPECT_THROW(view.half(~std::uint64_t{0}), ElfRangeError);
}

TEST(ElfView, StringsEndInsideTheirTable) {
  const std::string text = std::string("\0abc\0def", 8);
  const Bytes bytes(text.begin(), text.end());
  const ElfView view(bytes);
  EXPECT_EQ(view.string(0, 8, 1), std::optional<std::string_view>("abc"));
  EXPECT_EQ(view.string(0, 8, 2), std::optional<std::string_view>("bc"));
  EXPECT_EQ(view.string(0, 8, 0), std::optional<std::string_view>(""));
  EXPECT_EQ(view.string(0, 8, 5), std::nullopt); // "def" has no NUL
  EXPECT_EQ(view.string(0, 8, 8), std::nullopt);
  EXPECT_EQ(view.string(0, 4, 1), std::nullopt); // the table ends before the NUL
  EXPECT_THROW(view.string(4, 5, 0), ElfRangeError);
}

TEST(ElfView, SysvHash) {
  EXPECT_EQ(elf_sysv_hash(""), 0u);
  EXPECT_EQ(elf_sysv_hash("printf"), 0x077905a6u);
  EXPECT_EQ(to_hex(0x1f), "0x1f");
  EXPECT_TRUE(range_within(8, 0, 8));
  EXPECT_FALSE(range_within(9, 0, 8));
  EXPECT_FALSE(range_within(4, ~std::uint64_t{0}, 8));
}
