// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <iterator>
#include <link.h>

#include "elf_image.h"
#include "error.h"
#include "error_of.h"

namespace pnmpi {
namespace {

const char *const kNames[] = {"MPI_Barrier", "MPI_Recv", "MPI_Send", "MPI_Start"};
const RoutineIndex kRoutines(kNames, 4);

std::vector<unsigned char> read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::string kDelay = std::string(PNMPI_TEST_MODULE_BUILD_DIR) + "/delay.so";

std::string error_of(const std::vector<unsigned char> &bytes) {
  return test::error_of([&] { read_elf_image(bytes, "f.so", kRoutines); });
}

TEST(RoutineIndex, FindsByName) {
  EXPECT_EQ(kRoutines.find("MPI_Send"), 2);
  EXPECT_EQ(kRoutines.find("MPI_Sendx"), -1);
  EXPECT_EQ(kRoutines.find(""), -1);
}

TEST(ElfImage, ReadsWrappersCallSitesAndHooksOfABuiltModule) {
  const std::vector<unsigned char> bytes = read_file(kDelay);
  ASSERT_GT(bytes.size(), 1000u) << kDelay;
  const ElfImage img = read_elf_image(bytes, kDelay, kRoutines);
  std::vector<unsigned> wrapped;
  for (const auto &w : img.wrappers) {
    wrapped.push_back(w.id);
    EXPECT_NE(w.value, 0u);
  }
  EXPECT_EQ(wrapped, (std::vector<unsigned>{2, 3})) << "delay wraps MPI_Send and MPI_Start";
  auto calls = [&](unsigned id) {
    return std::count_if(img.sites.begin(), img.sites.end(),
                         [&](const ElfImage::Site &s) { return s.id == id; });
  };
  EXPECT_GE(calls(2), 1) << "its MPI_Send calls the next layer's MPI_Send";
  EXPECT_EQ(calls(0), 0);
  EXPECT_TRUE(img.pmpi_imports.empty()) << "the build patched it";
  EXPECT_FALSE(img.unknown_xmpi.empty()) << "XMPI_Bsend etc. are not in this small index";
  EXPECT_EQ(img.pnmpi_syms.count("pnmpi_module_loaded"), 1u);
  ASSERT_TRUE(img.argument_keys.has_value()) << "delay declares its arguments";
  EXPECT_EQ(*img.argument_keys, (std::vector<std::string>{"delay-us", "ranks"}));
  EXPECT_FALSE(img.code.empty());
}

TEST(ElfImage, RefusesWhatIsNotASharedObject) {
  EXPECT_EQ(error_of({}), "f.so: not an ELF file (a module must be a shared object, .so)");
  const std::string text = "#!/bin/sh\necho hello\n";
  EXPECT_EQ(error_of({text.begin(), text.end()}),
            "f.so: not an ELF file (a module must be a shared object, .so)");
  std::vector<unsigned char> bytes = read_file(kDelay);
  reinterpret_cast<ElfW(Ehdr) *>(bytes.data())->e_type = ET_EXEC;
  EXPECT_EQ(error_of(bytes), "f.so: not a shared object (ELF type 2); build the module with "
                             "-shared");
}

TEST(ElfImage, RefusesTruncatedAndCorruptFiles) {
  const std::vector<unsigned char> good = read_file(kDelay);
  std::vector<unsigned char> truncated(good.begin(), good.begin() + 40);
  EXPECT_EQ(error_of(truncated).rfind("f.so: corrupt ELF file: data at offset 0 runs past", 0), 0u)
      << error_of(truncated);

  std::vector<unsigned char> bad_phoff = good;
  reinterpret_cast<ElfW(Ehdr) *>(bad_phoff.data())->e_phoff = good.size() + 64;
  EXPECT_NE(error_of(bad_phoff).find("corrupt ELF file: data at offset"), std::string::npos);

  // Cut the file inside what the loader maps (past it lie only section headers and debug
  // information, which the reader rightly ignores): every reference past the cut is caught.
  const auto *geh = reinterpret_cast<const ElfW(Ehdr) *>(good.data());
  const auto *gph = reinterpret_cast<const ElfW(Phdr) *>(good.data() + geh->e_phoff);
  std::size_t mapped = 0;
  for (int i = 0; i < geh->e_phnum; ++i)
    if (gph[i].p_type == PT_LOAD)
      mapped = std::max<std::size_t>(mapped, gph[i].p_offset + gph[i].p_filesz);
  for (std::size_t cut : {mapped / 8, mapped / 4, mapped / 2, mapped - 1}) {
    std::vector<unsigned char> cut_bytes(good.begin(), good.begin() + cut);
    EXPECT_NE(error_of(cut_bytes).find("corrupt ELF file"), std::string::npos) << cut;
  }

  std::vector<unsigned char> no_dynamic = good;
  auto *eh = reinterpret_cast<ElfW(Ehdr) *>(no_dynamic.data());
  auto *ph = reinterpret_cast<ElfW(Phdr) *>(no_dynamic.data() + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; ++i)
    if (ph[i].p_type == PT_DYNAMIC)
      ph[i].p_type = PT_NULL;
  EXPECT_EQ(error_of(no_dynamic),
            "f.so: not a dynamically linked shared object (no PT_DYNAMIC segment)");
}

TEST(ElfImage, EveryByteFlipOfTheHeadersIsHandled) {
  // Robustness sweep: no single corrupted byte in the ELF and program headers may crash
  // the reader; it either reads the file or throws pnmpi::Error.
  const std::vector<unsigned char> good = read_file(kDelay);
  const auto *eh = reinterpret_cast<const ElfW(Ehdr) *>(good.data());
  const std::size_t end = eh->e_phoff + eh->e_phnum * sizeof(ElfW(Phdr));
  for (std::size_t i = 0; i < end; ++i) {
    std::vector<unsigned char> bytes = good;
    bytes[i] ^= 0xff;
    try {
      read_elf_image(bytes, "f.so", kRoutines);
    } catch (const Error &) {
    }
  }
}

TEST(ElfImage, RefusesAModuleForAnotherArchitecture) {
  std::vector<unsigned char> bytes = read_file(kDelay);
  ASSERT_GT(bytes.size(), sizeof(ElfW(Ehdr)));
  EXPECT_EQ(error_of(bytes), "(no error)");
  auto *eh = reinterpret_cast<ElfW(Ehdr) *>(bytes.data());
  eh->e_machine = eh->e_machine == EM_AARCH64 ? EM_X86_64 : EM_AARCH64;
  EXPECT_EQ(error_of(bytes), "f.so: built for another architecture than this process");
}

/// The first relocation of `bytes` (DT_RELA, then DT_JMPREL) against the symbol `name`.
ElfW(Rela) * relocation_against(std::vector<unsigned char> &bytes, const std::string &name) {
  auto *eh = reinterpret_cast<ElfW(Ehdr) *>(bytes.data());
  auto *ph = reinterpret_cast<ElfW(Phdr) *>(bytes.data() + eh->e_phoff);
  auto offset_of = [&](std::uint64_t vaddr) -> std::uint64_t {
    for (int i = 0; i < eh->e_phnum; ++i)
      if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
          vaddr < ph[i].p_vaddr + ph[i].p_filesz)
        return ph[i].p_offset + (vaddr - ph[i].p_vaddr);
    return 0;
  };
  const ElfW(Dyn) *dyn = nullptr;
  for (int i = 0; i < eh->e_phnum; ++i)
    if (ph[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn) *>(bytes.data() + ph[i].p_offset);
  if (dyn == nullptr)
    return nullptr;
  std::uint64_t symtab = 0, strtab = 0, tables[2][2] = {};
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    const std::uint64_t v = dyn->d_un.d_val;
    switch (dyn->d_tag) {
    case DT_SYMTAB:
      symtab = v;
      break;
    case DT_STRTAB:
      strtab = v;
      break;
    case DT_RELA:
      tables[0][0] = v;
      break;
    case DT_RELASZ:
      tables[0][1] = v;
      break;
    case DT_JMPREL:
      tables[1][0] = v;
      break;
    case DT_PLTRELSZ:
      tables[1][1] = v;
      break;
    default:
      break;
    }
  }
  const auto *syms = reinterpret_cast<const ElfW(Sym) *>(bytes.data() + offset_of(symtab));
  const char *strings = reinterpret_cast<const char *>(bytes.data() + offset_of(strtab));
  for (const auto &table : tables) {
    if (table[0] == 0)
      continue;
    auto *rel = reinterpret_cast<ElfW(Rela) *>(bytes.data() + offset_of(table[0]));
    for (std::uint64_t i = 0; i < table[1] / sizeof(ElfW(Rela)); ++i)
      if (ELF64_R_SYM(rel[i].r_info) != 0 &&
          name == strings + syms[ELF64_R_SYM(rel[i].r_info)].st_name)
        return &rel[i];
  }
  return nullptr;
}

TEST(ElfImage, RefusesACallSiteItCannotBind) {
  // The same module with its relocation against XMPI_Send of a kind that non-PIC code makes.
#if defined(__x86_64__)
  constexpr std::uint32_t kUnbindable = R_X86_64_PC32;
#else
  constexpr std::uint32_t kUnbindable = R_AARCH64_PREL32;
#endif
  std::vector<unsigned char> bytes = read_file(kDelay);
  ElfW(Rela) *rel = relocation_against(bytes, "XMPI_Send");
  ASSERT_NE(rel, nullptr) << "delay calls the next layer's MPI_Send";
  rel->r_info = ELF64_R_INFO(ELF64_R_SYM(rel->r_info), kUnbindable);
  EXPECT_EQ(error_of(bytes), "f.so: relocation type " + std::to_string(kUnbindable) +
                                 " against XMPI_Send cannot be bound by pnmpi; rebuild the tool "
                                 "with -fPIC");
}

TEST(ElfImage, RefusesACallSiteWhoseEndWrapsAround) {
  // offset + 8 wraps to 4, which once passed for "inside a writable segment": the core would
  // have written the next layer's address 4 bytes below the module.
  std::vector<unsigned char> bytes = read_file(kDelay);
  ElfW(Rela) *rel = relocation_against(bytes, "XMPI_Send");
  ASSERT_NE(rel, nullptr);
  rel->r_offset = ~ElfW(Addr){0} - 3;
  EXPECT_EQ(error_of(bytes),
            "f.so: corrupt ELF file: a relocation targets memory outside the writable segments");
}

TEST(ElfImage, RefusesASegmentThatWrapsAround) {
  for (const ElfW(Word) type : {ElfW(Word){PT_LOAD}, ElfW(Word){PT_GNU_RELRO}}) {
    std::vector<unsigned char> bytes = read_file(kDelay);
    auto *eh = reinterpret_cast<ElfW(Ehdr) *>(bytes.data());
    auto *ph = reinterpret_cast<ElfW(Phdr) *>(bytes.data() + eh->e_phoff);
    ElfW(Phdr) *last = nullptr;
    for (int i = 0; i < eh->e_phnum; ++i)
      if (ph[i].p_type == type)
        last = &ph[i];
    ASSERT_NE(last, nullptr) << type;
    last->p_memsz = ~ElfW(Addr){0} - last->p_vaddr + 1;
    EXPECT_EQ(error_of(bytes),
              "f.so: corrupt ELF file: a segment runs past the end of the address space")
        << type;
  }
}

} // namespace
} // namespace pnmpi
