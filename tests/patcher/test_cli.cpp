// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi-patch as users and the build run it: exit status, exact messages, and what is (not)
// left on disk.

#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "support.h"

using namespace pnmpi;
using namespace pnmpi::test;

namespace {

const char kTry[] = "Try 'pnmpi-patch --help'.\n";

} // namespace

TEST(Cli, HelpDocumentsExitStatus) {
  const CommandResult r = run_patcher({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("Usage: pnmpi-patch [--dry-run | --list] IN OUT\n", 0), 0u);
  for (const char *line :
       {"  0  patched", "  1  error:", "  2  usage error", "  3  IN is already patched"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line;
  EXPECT_EQ(r.err, "");
}

TEST(Cli, Version) {
  const CommandResult r = run_patcher({"--version"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("pnmpi-patch ", 0), 0u);
  EXPECT_EQ(r.out.back(), '\n');
}

TEST(Cli, UsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{}, "missing IN"},
      {{"--frobnicate", "a"}, "unknown option '--frobnicate'"},
      {{"a", "b", "c"}, "too many arguments"},
      {{"--in-place", "a", "b"}, "--in-place takes IN only, not OUT"},
      {{"a"}, "missing OUT (or give --in-place)"},
  };
  for (const auto &[args, message] : cases) {
    const CommandResult r = run_patcher(args);
    EXPECT_EQ(r.status, 2) << message;
    EXPECT_EQ(r.err, "pnmpi-patch: " + message + "\n" + kTry);
    EXPECT_EQ(r.out, "");
  }
}

TEST(Cli, PatchesIntoNewFileAndLeavesInputAlone) {
  TempDir dir;
  const std::string in = copy_of(dir, FAKE_TOOL, "tool.so", 0750);
  const Bytes original = read_bytes(in);
  const std::string out = dir.file("patched.so");
  const CommandResult r = run_patcher({in, out});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "pnmpi-patch: renamed 3 PMPI_ import(s) to XMPI_ in " + in + " -> " + out + "\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(read_bytes(in), original);
  EXPECT_EQ(mode_of(out), 0750u);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"patched.so", "tool.so"}));
  RenamePlan plan;
  const ElfObject expected = patch_in_memory(ElfObject::load(in), plan);
  EXPECT_EQ(read_bytes(out), expected.bytes());
}

TEST(Cli, InPlaceFollowsSymlinkAndKeepsMode) {
  TempDir dir;
  const std::string real = copy_of(dir, FAKE_TOOL, "libtool.so.1.0", 0700);
  const std::string link = dir.file("libtool.so");
  ASSERT_EQ(symlink("libtool.so.1.0", link.c_str()), 0);
  const CommandResult r = run_patcher({"--in-place", link});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "pnmpi-patch: renamed 3 PMPI_ import(s) to XMPI_ in " + real + " (in place)\n");
  struct stat st;
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(mode_of(real), 0700u);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"libtool.so", "libtool.so.1.0"}));
  const CommandResult again = run_patcher({"--in-place", link});
  EXPECT_EQ(again.status, 3);
}

TEST(Cli, OutEqualToInIsInPlace) {
  TempDir dir;
  const std::string in = copy_of(dir, FAKE_TOOL, "tool.so");
  const CommandResult r = run_patcher({in, in});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "pnmpi-patch: renamed 3 PMPI_ import(s) to XMPI_ in " + in + " (in place)\n");
  EXPECT_EQ(run_patcher({"--list", in}).status, 3);
}

TEST(Cli, AlreadyPatchedIsExitThreeAndWritesNothing) {
  TempDir dir;
  const std::string in = copy_of(dir, FAKE_TOOL, "tool.so");
  ASSERT_EQ(run_patcher({"--in-place", in}).status, 0);
  const Bytes patched = read_bytes(in);
  const std::string out = dir.file("again.so");
  const CommandResult r = run_patcher({in, out});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "pnmpi-patch: " + in +
                       ": already patched: it imports 3 XMPI_ symbol(s) and no PMPI_ symbol\n");
  EXPECT_FALSE(exists(out));
  EXPECT_EQ(run_patcher({"--in-place", in}).status, 3);
  EXPECT_EQ(read_bytes(in), patched);
}

TEST(Cli, NothingToRenameWarnsAndCopies) {
  TempDir dir;
  const std::string out = dir.file("copy.so");
  const CommandResult r = run_patcher({PLAIN_LIB, out});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, std::string("pnmpi-patch: warning: ") + PLAIN_LIB +
                       ": nothing to rename: it imports no PMPI_ symbol\n");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_bytes(out), read_bytes(PLAIN_LIB));

  const std::string in = copy_of(dir, PLAIN_LIB, "plain.so");
  const CommandResult in_place = run_patcher({"--in-place", in});
  EXPECT_EQ(in_place.status, 0);
  EXPECT_EQ(read_bytes(in), read_bytes(PLAIN_LIB));
}

TEST(Cli, AToolBuiltForTheOtherMpiIsWarnedAbout) {
  TempDir dir;
  const std::string out = dir.file("tool.so");
  const CommandResult r = run_patcher({OTHER_MPI_TOOL, out});
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string ours = OUR_MPI_SONAME, other = OTHER_MPI_SONAME;
  const auto family = [](const std::string &so) {
    return so == "libmpi.so.40" ? std::string("Open MPI") : std::string("MPICH");
  };
  EXPECT_EQ(r.err, std::string("pnmpi-patch: warning: ") + OTHER_MPI_TOOL +
                       ": built for another MPI: it needs " + other + " (" + family(other) +
                       "), and this pnmpi is built for " + ours + " (" + family(ours) +
                       "); pnmpi will refuse to load it: convert the tool built for " + ours +
                       ", or use the pnmpi built for " + other + "\n");
  // A tool of this MPI gets no warning.
  EXPECT_EQ(run_patcher({FAKE_TOOL, dir.file("fake.so")}).err, "");
}

TEST(Cli, ListAndDryRunWriteNothing) {
  TempDir dir;
  const std::string in = copy_of(dir, FAKE_TOOL, "tool.so");
  const Bytes original = read_bytes(in);
  const ElfObject object = ElfObject::load(in);
  std::string expected_list;
  for (const DynSymbol &s : object.symbols())
    if (!s.defined() && s.name.rfind("PMPI_", 0) == 0)
      expected_list += s.name + " -> X" + s.name.substr(1) + "\n";

  const CommandResult list = run_patcher({"--list", in});
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_EQ(list.out, expected_list);
  const CommandResult dry = run_patcher({"--dry-run", in, dir.file("out.so")});
  EXPECT_EQ(dry.status, 0) << dry.err;
  EXPECT_EQ(dry.out, "pnmpi-patch: would rename 3 PMPI_ import(s) to XMPI_ in " + in + "\n");
  EXPECT_EQ(read_bytes(in), original);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"tool.so"});

  const CommandResult versioned = run_patcher({"--list", VERSIONED_TOOL});
  EXPECT_EQ(versioned.out, "PMPI_Send@VER_1 -> XMPI_Send\n");
  const CommandResult versioned_dry = run_patcher({"--dry-run", VERSIONED_TOOL});
  EXPECT_EQ(versioned_dry.out, std::string("pnmpi-patch: would rename 1 PMPI_ import(s) to "
                                           "XMPI_, 1 of them now unversioned in ") +
                                   VERSIONED_TOOL + "\n");
}

TEST(Cli, ReportsRelocation) {
  TempDir dir;
  const ElfObject object = ElfObject::load(OVERLAP_SUFFIX);
  std::string send, mine;
  for (const DynSymbol &s : object.symbols()) {
    if (s.name == "PMPI_Send")
      send = std::to_string(s.index);
    if (s.name == "my_PMPI_Send")
      mine = std::to_string(s.index);
  }
  const std::string out = dir.file("out.so");
  const CommandResult r = run_patcher({OVERLAP_SUFFIX, out});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, std::string("pnmpi-patch: renamed 1 PMPI_ import(s) to XMPI_ in ") +
                       OVERLAP_SUFFIX + " -> " + out +
                       "; the new names went into a copy of '.dynstr' in a new segment, because "
                       "the first byte of PMPI_Send (dynamic symbol " +
                       send + ") is shared with my_PMPI_Send (dynamic symbol " + mine + ")\n");
}

TEST(Cli, RefusalsAreExitOneAndWriteNothing) {
  TempDir dir;
  write_bytes(dir.file("text.txt"), Bytes{'h', 'e', 'l', 'l', 'o', '\n'});
  write_bytes(dir.file("truncated.so"), truncated(read_bytes(FAKE_TOOL), 100));
  const std::size_t size = read_bytes(FAKE_TOOL).size() - 100;
  const std::string arch = FAKE_TOOL_ARCHIVE;
  const std::vector<std::pair<std::string, std::string>> cases{
      {dir.file("text.txt"), dir.file("text.txt") + ": not an ELF file (bad magic)"},
      {dir.file("missing.so"), dir.file("missing.so") + ": cannot open: No such file or directory"},
      {dir.path(), dir.path() + ": not a regular file"},
      {DEFINES_PMPI, std::string(DEFINES_PMPI) +
                         ": defines 1 PMPI_ symbol(s) (PMPI_Send): it is an MPI library, not a "
                         "PMPI tool; only a tool's PMPI_ imports can be renamed"},
      {arch, arch +
                 ": is a static archive; pnmpi-patch needs a shared object. Link the archive "
                 "into one first (its objects must be compiled with -fPIC): gcc -shared -o "
                 "libfake_tool_archive.so -Wl,--whole-archive " +
                 arch + " -Wl,--no-whole-archive"},
      {NO_DYNSYMS, std::string(NO_DYNSYMS) + ": has no dynamic symbols"},
  };
  for (const auto &[in, message] : cases) {
    const std::string out = dir.file("out.so");
    const CommandResult r = run_patcher({in, out});
    EXPECT_EQ(r.status, 1) << in;
    EXPECT_EQ(r.err, "pnmpi-patch: " + message + "\n");
    EXPECT_FALSE(exists(out)) << in;
  }
  // A truncated tool: no output, and no temporary file either.
  const CommandResult r = run_patcher({dir.file("truncated.so"), dir.file("out.so")});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("extends past the end of the file (" + std::to_string(size) + " bytes)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"text.txt", "truncated.so"}));
  // In place, a refused input stays as it was.
  const std::string mpi = copy_of(dir, DEFINES_PMPI, "mpi.so");
  EXPECT_EQ(run_patcher({"--in-place", mpi}).status, 1);
  EXPECT_EQ(read_bytes(mpi), read_bytes(DEFINES_PMPI));
}

TEST(Cli, UnwritableTarget) {
  const CommandResult r = run_patcher({FAKE_TOOL, "/nonexistent-dir/out.so"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "pnmpi-patch: /nonexistent-dir/out.so: cannot create a temporary file in "
                   "/nonexistent-dir/: No such file or directory\n");
}

TEST(Cli, OutputPassesIndependentValidators) {
  TempDir dir;
  for (const char *source : {FAKE_TOOL, VERSIONED_TOOL, OVERLAP_SUFFIX, OVERLAP_NEEDED}) {
    SCOPED_TRACE(source);
    const std::string out = dir.file("out.so");
    ASSERT_EQ(run_patcher({source, out}).status, 0);
    if (*ELFLINT) {
      EXPECT_EQ(elflint(out), elflint(source));
      EXPECT_EQ(elflint(out), "No errors\n");
    }
    if (*PATCHELF) {
      const CommandResult before = run({PATCHELF, "--print-needed", source});
      const CommandResult after = run({PATCHELF, "--print-needed", out});
      EXPECT_EQ(after.status, 0) << after.err;
      EXPECT_EQ(after.out, before.out);
    }
  }
}

TEST(Cli, ModuleBuiltWithPnmpiAddModuleIsPatched) {
#ifdef PATCHED_MODULE
  const ElfObject module = ElfObject::load(PATCHED_MODULE);
  bool xmpi = false;
  for (const DynSymbol &s : module.symbols()) {
    EXPECT_NE(s.name.rfind("PMPI_", 0), 0u) << s.name;
    xmpi = xmpi || (s.name == "XMPI_Barrier" && !s.defined());
  }
  EXPECT_TRUE(xmpi);
  EXPECT_EQ(run_patcher({"--list", PATCHED_MODULE}).status, 3);
#else
  GTEST_SKIP() << "pnmpi_add_module or MPI is not available in this build";
#endif
}
