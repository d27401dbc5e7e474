// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The proof that matters: the dynamic linker loads the patched tool, and its calls reach the
// XMPI_* definitions of another object (fake_core stands in for the pnmpi core).

#include <dlfcn.h>
#include <string>

#include <gtest/gtest.h>

#include "support.h"

using namespace pnmpi;
using namespace pnmpi::test;

namespace {

using SendFn = int (*)(const void *, int, int, int, int, int);
using RecvFn = int (*)(void *, int);
using TypeFreeFn = int (*)(int *);
using WtimeFn = double (*)(void);
using TextFn = const char *(*)(void);
using IntFn = int (*)(void);
using VoidFn = void (*)(void);

/// A dlopen handle, closed at the end of the scope.
class Library {
public:
  Library(const std::string &path, int flags) : m_handle(dlopen(path.c_str(), flags)) {
    if (!m_handle) {
      const char *e = dlerror();
      m_error = e ? e : "";
    }
  }
  ~Library() {
    if (m_handle)
      dlclose(m_handle);
  }
  Library(const Library &) = delete;
  Library &operator=(const Library &) = delete;

  bool loaded() const { return m_handle != nullptr; }
  const std::string &error() const { return m_error; }
  template <class F> F get(const char *name) const {
    return reinterpret_cast<F>(dlsym(m_handle, name));
  }

private:
  void *m_handle;
  std::string m_error;
};

/// `path` patched in memory with the version reset turned off.
Bytes patched_keeping_versions(const std::string &path) {
  PlanOptions keep;
  keep.reset_versions = false;
  RenamePlan plan;
  return patch_in_memory(ElfObject::load(path), plan, keep).bytes();
}

/// fake_core in the global scope, where the core puts libpnmpi; its log starts empty.
class LoadTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(m_core.loaded()) << m_core.error();
    m_core.get<VoidFn>("fake_core_reset")();
  }
  std::string core_log() const { return m_core.get<TextFn>("fake_core_log")(); }

  /// Patches `path` with the CLI into the temporary directory and returns the output path.
  std::string patched(const std::string &path, const std::string &name) {
    const std::string out = m_dir.file(name);
    const CommandResult r = run_patcher({path, out});
    EXPECT_EQ(r.status, 0) << r.err;
    return out;
  }

  Library m_core{FAKE_CORE, RTLD_NOW | RTLD_GLOBAL};
  TempDir m_dir;
};

} // namespace

TEST_F(LoadTest, UnpatchedToolDoesNotLoad) {
  Library tool(FAKE_TOOL, RTLD_NOW | RTLD_LOCAL);
  EXPECT_FALSE(tool.loaded());
  EXPECT_NE(tool.error().find("undefined symbol: PMPI_"), std::string::npos) << tool.error();
}

TEST_F(LoadTest, PatchedToolCallsTheCore) {
  for (const char *source : {FAKE_TOOL, FAKE_TOOL_SYSV, FAKE_TOOL_HASHBOTH}) {
    SCOPED_TRACE(source);
    m_core.get<VoidFn>("fake_core_reset")();
    const std::string path = patched(source, "tool.so");
    Library tool(path, RTLD_NOW | RTLD_LOCAL);
    ASSERT_TRUE(tool.loaded()) << tool.error();
    // Lookups of the tool's own definitions go through its hash tables.
    auto send = tool.get<SendFn>("MPI_Send");
    auto type_free = tool.get<TypeFreeFn>("MPI_Type_free");
    auto wtime = tool.get<WtimeFn>("MPI_Wtime");
    ASSERT_TRUE(send && type_free && wtime);
    EXPECT_EQ(send(nullptr, 5, 0, 0, 0, 0), 12);
    int type = 3;
    EXPECT_EQ(type_free(&type), 7);
    EXPECT_EQ(type, 0);
    EXPECT_EQ(wtime(), 42.0);
    EXPECT_EQ(core_log(), "XMPI_Send;XMPI_Type_free;XMPI_Wtime;");
    EXPECT_EQ(tool.get<IntFn>("fake_tool_calls")(), 3);
    EXPECT_STREQ(tool.get<TextFn>("fake_tool_literal")(), "PMPI_Send");
  }
}

TEST_F(LoadTest, VersionedImportBindsToUnversionedDefinition) {
  {
    Library original(VERSIONED_TOOL, RTLD_NOW | RTLD_LOCAL);
    ASSERT_TRUE(original.loaded()) << original.error();
    EXPECT_EQ(original.get<SendFn>("MPI_Send")(nullptr, 1, 0, 0, 0, 0), 1001); // fake_mpi
  }
  const std::string path = patched(VERSIONED_TOOL, "versioned.so");
  Library tool(path, RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(tool.loaded()) << tool.error();
  EXPECT_EQ(tool.get<SendFn>("MPI_Send")(nullptr, 1, 0, 0, 0, 0), 8);
  EXPECT_EQ(core_log(), "XMPI_Send;");
}

TEST_F(LoadTest, VersionedImportWithoutResetStillBindsToAnUnversionedCore) {
  // glibc lets an unversioned definition satisfy a versioned reference: without the reset
  // this still works, as long as the core does not version its XMPI_* symbols.
  const std::string path = m_dir.file("kept-version.so");
  write_bytes(path, patched_keeping_versions(VERSIONED_TOOL));
  Library tool(path, RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(tool.loaded()) << tool.error();
  EXPECT_EQ(tool.get<SendFn>("MPI_Send")(nullptr, 1, 0, 0, 0, 0), 8);
}

// A core that versions its definitions (XMPI_Send@@PNMPI_TEST): only the reset import binds.
TEST(VersionedCore, OnlyTheResetImportBinds) {
  Library core(FAKE_CORE_VERSIONED, RTLD_NOW | RTLD_GLOBAL);
  ASSERT_TRUE(core.loaded()) << core.error();
  TempDir dir;
  {
    const std::string path = dir.file("kept-version.so");
    write_bytes(path, patched_keeping_versions(VERSIONED_TOOL));
    Library tool(path, RTLD_NOW | RTLD_LOCAL);
    EXPECT_FALSE(tool.loaded());
    EXPECT_NE(tool.error().find("XMPI_Send"), std::string::npos) << tool.error();
    EXPECT_NE(tool.error().find("VER_1"), std::string::npos) << tool.error();
  }
  const std::string path = dir.file("reset.so");
  ASSERT_EQ(run_patcher({VERSIONED_TOOL, path}).status, 0);
  Library tool(path, RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(tool.loaded()) << tool.error();
  EXPECT_EQ(tool.get<SendFn>("MPI_Send")(nullptr, 1, 0, 0, 0, 0), 8);
  EXPECT_STREQ(core.get<TextFn>("fake_core_log")(), "XMPI_Send;");
}

TEST_F(LoadTest, RelocatedDynstrLoads) {
  const std::string path = patched(OVERLAP_SUFFIX, "overlap.so");
  Library tool(path, RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(tool.loaded()) << tool.error();
  EXPECT_EQ(tool.get<SendFn>("MPI_Send")(nullptr, 2, 0, 0, 0, 0), 9);
  EXPECT_EQ(core_log(), "XMPI_Send;");
  ASSERT_NE(tool.get<IntFn>("my_PMPI_Send"), nullptr);
  EXPECT_EQ(tool.get<IntFn>("my_PMPI_Send")(), 5);
  EXPECT_EQ(tool.get<IntFn>("my_XMPI_Send"), nullptr);
}

TEST_F(LoadTest, RelocatedDynstrKeepsNeededLibrary) {
  const std::string path = patched(OVERLAP_NEEDED, "needed.so");
  if (*PATCHELF) {
    const CommandResult needed = run({PATCHELF, "--print-needed", path});
    const CommandResult original = run({PATCHELF, "--print-needed", OVERLAP_NEEDED});
    EXPECT_EQ(needed.status, 0) << needed.err;
    EXPECT_EQ(needed.out, original.out);
    EXPECT_NE(("\n" + needed.out).find("\nPMPI_Recv\n"), std::string::npos) << needed.out;
  }
  Library tool(path, RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(tool.loaded()) << tool.error();
  EXPECT_EQ(tool.get<RecvFn>("MPI_Recv")(nullptr, 1), 7 + 1 + 11);
  EXPECT_EQ(core_log(), "XMPI_Recv;");
}
