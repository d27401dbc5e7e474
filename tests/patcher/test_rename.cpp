// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The library: arithmetic, the shared-byte proof, plans and patches of real linker output,
// checked against an independent reader (readelf) and validator (eu-elflint).

#include <algorithm>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "support.h"

using namespace pnmpi;
using namespace pnmpi::test;

namespace {

std::vector<std::string> renamed_names(const RenamePlan &plan) {
  std::vector<std::string> names;
  for (const Rename &r : plan.renames)
    names.push_back(r.from + "->" + r.to);
  std::sort(names.begin(), names.end());
  return names;
}

const DynSymbol &symbol(const ElfObject &object, const std::string &name) {
  for (const DynSymbol &s : object.symbols())
    if (s.name == name)
      return s;
  throw std::runtime_error("no dynamic symbol " + name);
}

std::size_t count(const Bytes &bytes, const std::string &needle) {
  std::size_t n = 0;
  auto it = bytes.begin();
  while ((it = std::search(it, bytes.end(), needle.begin(), needle.end())) != bytes.end()) {
    ++n;
    ++it;
  }
  return n;
}

/// Expects `f` to throw PatchError of `kind` with exactly `message`.
template <class F> void expect_error(F f, PatchErrorKind kind, const std::string &message) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const PatchError &e) {
    EXPECT_EQ(e.what(), message);
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
  }
}

const std::vector<std::string> kFakeToolRenames{
    "PMPI_Send->XMPI_Send", "PMPI_Type_free->XMPI_Type_free", "PMPI_Wtime->XMPI_Wtime"};

/// Patches `path` in memory, writes the result, and compares both files through readelf and
/// eu-elflint with what the model predicts.
void check_with_independent_tools(const std::string &path, const PlanOptions &options = {}) {
  const ElfObject before = ElfObject::load(path);
  RenamePlan plan;
  const ElfObject after = patch_in_memory(before, plan, options);
  TempDir dir;
  const std::string out = dir.file("patched.so");
  write_bytes(out, after.bytes());
  EXPECT_EQ(readelf_symbols(path), expected_symbols(before, nullptr)) << path;
  EXPECT_EQ(readelf_symbols(out), expected_symbols(before, &plan)) << path;
  if (*ELFLINT) {
    EXPECT_EQ(elflint(out), elflint(path)) << path;
  }
}

} // namespace

TEST(Arithmetic, RangeWithin) {
  EXPECT_TRUE(range_within(0, 0, 0));
  EXPECT_TRUE(range_within(10, 0, 10));
  EXPECT_FALSE(range_within(11, 0, 10));
  EXPECT_TRUE(range_within(4, 6, 10));
  EXPECT_FALSE(range_within(4, 7, 10));
  EXPECT_FALSE(range_within(2, UINT64_MAX, 10));
  EXPECT_FALSE(range_within(UINT64_MAX, 2, UINT64_MAX));
  EXPECT_TRUE(range_within(UINT64_MAX - 2, 2, UINT64_MAX));
}

TEST(Arithmetic, AlignUp) {
  std::uint64_t r = 0;
  EXPECT_TRUE(align_up(5, 0, r));
  EXPECT_EQ(r, 5u);
  EXPECT_TRUE(align_up(5, 1, r));
  EXPECT_EQ(r, 5u);
  EXPECT_TRUE(align_up(5, 8, r));
  EXPECT_EQ(r, 8u);
  EXPECT_TRUE(align_up(0x1000, 0x1000, r));
  EXPECT_EQ(r, 0x1000u);
  EXPECT_TRUE(align_up(0x1001, 0x1000, r));
  EXPECT_EQ(r, 0x2000u);
  EXPECT_FALSE(align_up(UINT64_MAX - 2, 8, r));
}

TEST(Arithmetic, SysvHash) {
  EXPECT_EQ(elf_sysv_hash(""), 0u);
  EXPECT_EQ(elf_sysv_hash("printf"), 0x077905a6u);
  EXPECT_EQ(elf_sysv_hash("PMPI_Send"), 0x04f4cf64u);
  EXPECT_EQ(elf_sysv_hash("XMPI_Send"), 0x04f4c764u);
  EXPECT_EQ(elf_sysv_hash("abcdefghijklmnopqrstuvwxyz"), 0x08d1e00au);
}

TEST(ArchiveHint, NamesTheSharedObject) {
  EXPECT_EQ(archive_link_hint("libtool.a"),
            "gcc -shared -o libtool.so -Wl,--whole-archive libtool.a -Wl,--no-whole-archive");
  EXPECT_EQ(archive_link_hint("/x/y/libt.a"),
            "gcc -shared -o libt.so -Wl,--whole-archive /x/y/libt.a -Wl,--no-whole-archive");
}

// A table laid out the way ld tail-merges: offsets 1 PMPI_Send, 2 MPI_Send (inside it),
// 11 my_PMPI_Recv, 14 PMPI_Recv and 15 MPI_Recv (inside it), 24 ab, 27 PMPI_PMPI_X,
// 32 PMPI_X (inside it).
const std::string_view kTable("\0PMPI_Send\0my_PMPI_Recv\0ab\0PMPI_PMPI_X\0", 39);

TEST(SharedBytes, NameInsideTheRenamedNameAfterItsFirstByteIsSafe) {
  // MPI_Send starts one byte into PMPI_Send: the changed P is not part of it.
  EXPECT_TRUE(find_shared_bytes(kTable, {{1, true}, {2, false}}).empty());
  EXPECT_TRUE(find_shared_bytes(kTable, {{14, true}, {15, false}}).empty());
}

TEST(SharedBytes, LongerNameEndingWithTheRenamedNameConflicts) {
  const auto shared = find_shared_bytes(kTable, {{14, true}, {11, false}});
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0], std::make_pair(std::size_t{0}, std::size_t{1}));
}

TEST(SharedBytes, SameStringUsedTwice) {
  // Two renamed imports of one string want the same change: no conflict.
  EXPECT_TRUE(find_shared_bytes(kTable, {{1, true}, {1, true}}).empty());
  // A DT_NEEDED (or anything not renamed) at the same offset must keep its P.
  const auto shared = find_shared_bytes(kTable, {{1, true}, {1, false}});
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0], std::make_pair(std::size_t{0}, std::size_t{1}));
}

TEST(SharedBytes, StringEndingJustBeforeIsSafe) {
  EXPECT_TRUE(find_shared_bytes(kTable, {{24, false}, {27, true}}).empty());
  // The NUL before the renamed name is covered by nothing that changes.
  EXPECT_TRUE(find_shared_bytes(kTable, {{0, false}, {1, true}, {10, false}}).empty());
}

TEST(SharedBytes, RenamedNameInsideARenamedName) {
  // PMPI_PMPI_X may change only its own first byte, not the P of PMPI_X at offset 32.
  const auto shared = find_shared_bytes(kTable, {{27, true}, {32, true}});
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0], std::make_pair(std::size_t{1}, std::size_t{0}));
}

TEST(SharedBytes, OutOfRangeAndUnterminated) {
  EXPECT_TRUE(find_shared_bytes(kTable, {{100, true}, {200, false}}).empty());
  const std::string_view open("abPMPI_X", 8);
  const auto shared = find_shared_bytes(open, {{2, true}, {0, false}});
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0], std::make_pair(std::size_t{0}, std::size_t{1}));
}

TEST(FakeTool, SymbolsAndTailMergedNames) {
  const ElfObject tool = ElfObject::load(FAKE_TOOL);
  EXPECT_EQ(readelf_symbols(FAKE_TOOL), expected_symbols(tool, nullptr));
  EXPECT_FALSE(symbol(tool, "PMPI_Send").defined());
  EXPECT_TRUE(symbol(tool, "MPI_Send").defined());
  // The linker stored these names inside the PMPI_ names: the reason for in-place flips.
  EXPECT_EQ(symbol(tool, "MPI_Send").name_offset, symbol(tool, "PMPI_Send").name_offset + 1);
  EXPECT_EQ(symbol(tool, "free").name_offset, symbol(tool, "PMPI_Type_free").name_offset + 10);
  EXPECT_EQ(symbol(tool, "time").name_offset, symbol(tool, "PMPI_Wtime").name_offset + 6);
}

TEST(FakeTool, RenamesByFlippingOneByteEach) {
  const ElfObject before = ElfObject::load(FAKE_TOOL);
  RenamePlan plan;
  const ElfObject after = patch_in_memory(before, plan);
  EXPECT_EQ(renamed_names(plan), kFakeToolRenames);
  EXPECT_FALSE(plan.relocate_dynstr);
  EXPECT_TRUE(plan.shared.empty());

  const Bytes &in = before.bytes();
  const Bytes &out = after.bytes();
  ASSERT_EQ(in.size(), out.size());
  std::vector<std::uint64_t> changed;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i] != out[i]) {
      changed.push_back(i);
      EXPECT_EQ(in[i], 'P');
      EXPECT_EQ(out[i], 'X');
    }
  std::vector<std::uint64_t> expected;
  for (const char *name : {"PMPI_Send", "PMPI_Type_free", "PMPI_Wtime"})
    expected.push_back(before.dynstr().offset + symbol(before, name).name_offset);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(changed, expected);

  EXPECT_EQ(symbol(after, "MPI_Send").name, "MPI_Send");
  EXPECT_EQ(symbol(after, "free").name, "free");
  EXPECT_EQ(symbol(after, "time").name, "time");
  // Only the .dynstr copy of the name changed: the literal and .strtab keep PMPI_Send.
  EXPECT_EQ(count(out, "PMPI_Send"), count(in, "PMPI_Send") - 1);
  EXPECT_EQ(count(out, "XMPI_Send"), 1u);
}

TEST(FakeTool, IndependentToolsAgree) {
  ASSERT_TRUE(*READELF) << "readelf is needed";
  check_with_independent_tools(FAKE_TOOL);
}

TEST(FakeTool, SysvAndBothHashStyles) {
  for (const char *path : {FAKE_TOOL_SYSV, FAKE_TOOL_HASHBOTH}) {
    const ElfObject before = ElfObject::load(path);
    ASSERT_TRUE(before.sysv_hash().present()) << path;
    RenamePlan plan;
    const ElfObject after = patch_in_memory(before, plan);
    EXPECT_EQ(renamed_names(plan), kFakeToolRenames);
    // parse() proved every global symbol is chained under its (new) name's hash.
    ASSERT_EQ(after.hash_words().size(), before.hash_words().size());
    check_with_independent_tools(path);
  }
}

TEST(FakeTool, AlreadyPatchedAndNothingToRename) {
  const ElfObject before = ElfObject::load(FAKE_TOOL);
  RenamePlan plan;
  const ElfObject after = patch_in_memory(before, plan);
  expect_error([&] { plan_renames(after); }, PatchErrorKind::already_patched,
               std::string(FAKE_TOOL) +
                   " (patched): already patched: it imports 3 XMPI_ symbol(s) and no PMPI_ "
                   "symbol");

  const ElfObject plain = ElfObject::load(PLAIN_LIB);
  const RenamePlan none = plan_renames(plain);
  EXPECT_TRUE(none.renames.empty());
  EXPECT_EQ(none.xmpi_imports, 0u);
  const PatchedImage image = apply_renames(plain, none);
  EXPECT_EQ(image.bytes, plain.bytes());
  EXPECT_TRUE(image.edits.empty());
}

TEST(Versioned, ImportLosesItsVersion) {
  const ElfObject before = ElfObject::load(VERSIONED_TOOL);
  const DynSymbol &send = symbol(before, "PMPI_Send");
  EXPECT_EQ(send.version, "VER_1");
  EXPECT_GE(send.version_index, 2);

  RenamePlan plan;
  const ElfObject after = patch_in_memory(before, plan);
  ASSERT_EQ(plan.renames.size(), 1u);
  EXPECT_EQ(plan.renames[0].version, "VER_1");
  EXPECT_EQ(plan.renames[0].new_version_index, VER_NDX_GLOBAL);
  EXPECT_EQ(symbol(after, "XMPI_Send").version_index, VER_NDX_GLOBAL);
  // The requirement record stays (harmless: fake_mpi.so still provides VER_1).
  EXPECT_EQ(after.string_uses().size(), before.string_uses().size());
  EXPECT_EQ(after.needed(), before.needed());
  check_with_independent_tools(VERSIONED_TOOL);

  PlanOptions keep;
  keep.reset_versions = false;
  RenamePlan kept;
  const ElfObject still_versioned = patch_in_memory(before, kept, keep);
  EXPECT_EQ(symbol(still_versioned, "XMPI_Send").version, "VER_1");
  check_with_independent_tools(VERSIONED_TOOL, keep);
}

TEST(Overlap, SuffixOfAnotherNameMovesDynstr) {
  const ElfObject before = ElfObject::load(OVERLAP_SUFFIX);
  const DynSymbol &send = symbol(before, "PMPI_Send");
  const DynSymbol &mine = symbol(before, "my_PMPI_Send");
  ASSERT_EQ(send.name_offset, mine.name_offset + 3) << "the linker no longer tail-merges";

  RenamePlan plan;
  const ElfObject after = patch_in_memory(before, plan);
  EXPECT_TRUE(plan.relocate_dynstr);
  ASSERT_EQ(plan.shared.size(), 1u);
  EXPECT_EQ(plan.shared[0].renamed,
            "PMPI_Send (dynamic symbol " + std::to_string(send.index) + ")");
  EXPECT_EQ(plan.shared[0].user,
            "my_PMPI_Send (dynamic symbol " + std::to_string(mine.index) + ")");

  EXPECT_EQ(symbol(after, "my_PMPI_Send").index, mine.index);
  EXPECT_EQ(symbol(after, "XMPI_Send").index, send.index);
  EXPECT_GE(after.dynstr().offset, before.bytes().size());
  EXPECT_EQ(after.segments().size(), before.segments().size() + 1);
  EXPECT_EQ(after.header().e_phoff, (before.bytes().size() + 7) / 8 * 8);
  // The old table is untouched: every old string is still where it was.
  const Bytes &out = after.bytes();
  EXPECT_TRUE(std::equal(before.dynstr_bytes().begin(), before.dynstr_bytes().end(),
                         out.begin() + static_cast<std::ptrdiff_t>(before.dynstr().offset)));
  check_with_independent_tools(OVERLAP_SUFFIX);
}

TEST(Overlap, NeededLibraryNamedLikeTheImportMovesDynstr) {
  const ElfObject before = ElfObject::load(OVERLAP_NEEDED);
  const std::vector<std::string> needed = before.needed();
  ASSERT_NE(std::find(needed.begin(), needed.end(), "PMPI_Recv"), needed.end());
  RenamePlan plan;
  const ElfObject after = patch_in_memory(before, plan);
  EXPECT_TRUE(plan.relocate_dynstr);
  ASSERT_EQ(plan.shared.size(), 1u);
  EXPECT_EQ(plan.shared[0].user, "PMPI_Recv (DT_NEEDED)");
  EXPECT_EQ(after.needed(), before.needed());
  check_with_independent_tools(OVERLAP_NEEDED);
}

TEST(Overlap, UnknownUserOfDynstrMovesIt) {
  Bytes bytes = read_bytes(FAKE_TOOL);
  Elf64Editor elf(bytes);
  const std::size_t comment = elf.section(".comment");
  Elf64_Shdr s = elf.shdr(comment);
  s.sh_link = static_cast<Elf64_Word>(elf.section(".dynstr"));
  elf.set_shdr(comment, s);
  const ElfObject before = ElfObject::parse(bytes, "t.so");
  ASSERT_EQ(before.unknown_dynstr_users(),
            std::vector<std::string>{"section [" + std::to_string(comment) + "] '.comment'"});
  RenamePlan plan;
  patch_in_memory(before, plan);
  EXPECT_TRUE(plan.relocate_dynstr);
  EXPECT_TRUE(plan.shared.empty());
}

TEST(Overlap, NullSymbolNamingAnImport) {
  // Found by the fuzzer: a corrupt null symbol whose st_name is an import's string.
  Bytes bytes = read_bytes(FAKE_TOOL);
  Elf64Editor elf(bytes);
  const ElfObject good = ElfObject::parse(bytes, "t.so");
  const std::uint64_t null_symbol = elf.shdr(elf.section(".dynsym")).sh_offset;
  Elf64_Sym sym = elf.get<Elf64_Sym>(null_symbol);
  sym.st_name = symbol(good, "PMPI_Send").name_offset;
  elf.set(null_symbol, sym);
  RenamePlan plan;
  const ElfObject after = patch_in_memory(ElfObject::parse(bytes, "t.so"), plan);
  EXPECT_TRUE(plan.relocate_dynstr);
  ASSERT_EQ(plan.shared.size(), 1u);
  EXPECT_EQ(plan.shared[0].user, "PMPI_Send (dynamic symbol 0)");
  EXPECT_EQ(after.symbols()[0].name, "PMPI_Send");
}

TEST(Overlap, RefusedWhenDynstrCannotMove) {
  Bytes bytes = read_bytes(OVERLAP_SUFFIX);
  Elf64Editor elf(bytes);
  const std::size_t stack = elf.phdr_index(PT_GNU_STACK);
  Elf64_Phdr p = elf.phdr(stack);
  p.p_type = PT_INTERP;
  elf.set_phdr(stack, p);
  const ElfObject object = ElfObject::parse(bytes, "t.so");
  const std::string send = std::to_string(symbol(object, "PMPI_Send").index);
  const std::string mine = std::to_string(symbol(object, "my_PMPI_Send").index);
  expect_error([&] { plan_renames(object); }, PatchErrorKind::refused,
               "t.so: cannot rename in place: the first byte of PMPI_Send (dynamic symbol " + send +
                   ") is shared with my_PMPI_Send (dynamic symbol " + mine +
                   "), and '.dynstr' cannot be moved: it has a PT_PHDR or PT_INTERP segment (an "
                   "executable)");
}

TEST(Refused, MpiLibrary) {
  expect_error([] { plan_renames(ElfObject::load(DEFINES_PMPI)); }, PatchErrorKind::refused,
               std::string(DEFINES_PMPI) +
                   ": defines 1 PMPI_ symbol(s) (PMPI_Send): it is an MPI library, not a PMPI "
                   "tool; only a tool's PMPI_ imports can be renamed");
  expect_error([] { plan_renames(ElfObject::load(CORPUS_DIR "/x86_64_mpi.so")); },
               PatchErrorKind::refused,
               CORPUS_DIR "/x86_64_mpi.so: defines 1 PMPI_ symbol(s) (PMPI_Send): it is an MPI "
                          "library, not a PMPI tool; only a tool's PMPI_ imports can be renamed");
}

TEST(Refused, StaticArchive) {
  const std::string path = FAKE_TOOL_ARCHIVE;
  expect_error([&] { ElfObject::load(path); }, PatchErrorKind::refused,
               path +
                   ": is a static archive; pnmpi-patch needs a shared object. Link the archive "
                   "into one first (its objects must be compiled with -fPIC): gcc -shared -o "
                   "libfake_tool_archive.so -Wl,--whole-archive " +
                   path + " -Wl,--no-whole-archive");
}

TEST(Refused, NoDynamicSymbols) {
  expect_error([] { ElfObject::load(NO_DYNSYMS); }, PatchErrorKind::refused,
               std::string(NO_DYNSYMS) + ": has no dynamic symbols");
  expect_error([] { ElfObject::load(FIXTURE_OBJECT); }, PatchErrorKind::refused,
               std::string(FIXTURE_OBJECT) +
                   ": is a relocatable object (.o) and has no dynamic symbols; link it into a "
                   "shared object first, e.g. gcc -shared -o libtool.so " FIXTURE_OBJECT);
}

TEST(Corpus, OtherClassesAndByteOrders) {
  ASSERT_TRUE(*READELF) << "readelf is needed";
  struct Seed {
    const char *name;
    unsigned elf_class;
    unsigned byte_order;
    bool relocate;
  };
  const Seed seeds[] = {
      {"i386_tool.so", ELFCLASS32, ELFDATA2LSB, false},
      {"i386_overlap.so", ELFCLASS32, ELFDATA2LSB, true},
      {"ppc_tool.so", ELFCLASS32, ELFDATA2MSB, false},
      {"ppc_overlap.so", ELFCLASS32, ELFDATA2MSB, true},
      {"s390x_tool.so", ELFCLASS64, ELFDATA2MSB, false},
      {"s390x_overlap.so", ELFCLASS64, ELFDATA2MSB, true},
      {"x86_64_versioned.so", ELFCLASS64, ELFDATA2LSB, false},
  };
  for (const Seed &seed : seeds) {
    SCOPED_TRACE(seed.name);
    const std::string path = std::string(CORPUS_DIR) + "/" + seed.name;
    const ElfObject before = ElfObject::load(path);
    EXPECT_EQ(before.elf_class(), seed.elf_class);
    EXPECT_EQ(before.byte_order(), seed.byte_order);
    EXPECT_TRUE(before.sysv_hash().present());
    RenamePlan plan;
    const ElfObject after = patch_in_memory(before, plan);
    EXPECT_EQ(renamed_names(plan), kFakeToolRenames);
    EXPECT_EQ(plan.relocate_dynstr, seed.relocate);
    check_with_independent_tools(path);
  }
  EXPECT_EQ(ElfObject::load(CORPUS_DIR "/s390x_tool.so").sysv_hash().entsize, 8u);
}

TEST(RealTool, OpenMpiTrace) {
  const std::string path = "/usr/lib/x86_64-linux-gnu/openmpi/lib/libompitrace.so";
  if (access(path.c_str(), R_OK) != 0)
    GTEST_SKIP() << path << " is not installed";
  const ElfObject before = ElfObject::load(path);
  std::size_t imports = 0;
  for (const std::string &line : readelf_symbols(path))
    imports += line.rfind("UND PMPI_", 0) == 0;
  RenamePlan plan;
  const ElfObject after = patch_in_memory(before, plan);
  EXPECT_EQ(plan.renames.size(), imports);
  EXPECT_GE(imports, 20u);
  EXPECT_FALSE(plan.relocate_dynstr);
  check_with_independent_tools(path);
}

TEST(AtomicWrite, FailedCheckLeavesNothing) {
  TempDir dir;
  const std::string target = dir.file("out.so");
  std::string seen;
  EXPECT_THROW(write_file_atomically(target, {1, 2, 3}, 0755,
                                     [&](const std::string &tmp) {
                                       seen = tmp;
                                       EXPECT_EQ(read_bytes(tmp), (Bytes{1, 2, 3}));
                                       throw PatchError(PatchErrorKind::internal, "no");
                                     }),
               PatchError);
  EXPECT_EQ(seen.rfind(dir.file(".out.so.pnmpi-patch."), 0), 0u) << seen;
  EXPECT_TRUE(dir.entries().empty());
}

TEST(AtomicWrite, ReplacesWithMode) {
  TempDir dir;
  const std::string target = dir.file("out.so");
  write_bytes(target, {9});
  write_file_atomically(target, {1, 2, 3}, 0100751, [](const std::string &) {});
  EXPECT_EQ(read_bytes(target), (Bytes{1, 2, 3}));
  struct stat st;
  ASSERT_EQ(stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.so"});
}

TEST(AtomicWrite, MissingDirectory) {
  expect_error(
      [] { write_file_atomically("/nonexistent-dir/x.so", {1}, 0644, [](const std::string &) {}); },
      PatchErrorKind::io,
      "/nonexistent-dir/x.so: cannot create a temporary file in /nonexistent-dir/: No such file "
      "or directory");
}
