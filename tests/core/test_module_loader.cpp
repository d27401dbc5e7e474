// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sys/stat.h>

#include "error.h"
#include "module_loader.h"

namespace pnmpi {
namespace {

class Resolve : public ::testing::Test {
protected:
  void SetUp() override {
    ::mkdir(PNMPI_TEST_SCRATCH_DIR, 0755);
    m_a = std::string(PNMPI_TEST_SCRATCH_DIR) + "/repo_a";
    m_b = std::string(PNMPI_TEST_SCRATCH_DIR) + "/repo_b";
    ::mkdir(m_a.c_str(), 0755);
    ::mkdir(m_b.c_str(), 0755);
    std::ofstream(m_a + "/libtool.so") << "x";
    std::ofstream(m_b + "/tool.so") << "x";
    std::ofstream(m_b + "/other.so") << "x";
    m_config.path = "site.conf";
  }
  ModuleSpec spec(const std::string &name) { return {name, 7, 0, {}}; }
  std::string m_a, m_b;
  Config m_config;
};

TEST_F(Resolve, SearchesDirectoriesInOrderThenNameForms) {
  EXPECT_EQ(resolve_module(spec("tool"), m_config, {m_a, m_b}), m_a + "/libtool.so");
  EXPECT_EQ(resolve_module(spec("tool"), m_config, {m_b, m_a}), m_b + "/tool.so");
  EXPECT_EQ(resolve_module(spec("other.so"), m_config, {m_a, m_b}), m_b + "/other.so");
  EXPECT_EQ(resolve_module(spec(m_b + "/other.so"), m_config, {}), m_b + "/other.so");
}

TEST_F(Resolve, NotFoundNamesLineAndEveryPlaceSearched) {
  try {
    resolve_module(spec("nothere"), m_config, {m_a, m_b});
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              "site.conf:7: module 'nothere' not found: no nothere.so or libnothere.so in " + m_a +
                  ", " + m_b +
                  " (PNMPI_LIB_PATH, then the install's module directory); add the directory "
                  "that holds it to PNMPI_LIB_PATH");
  }
  try {
    resolve_module(spec("nothere"), m_config, {});
    FAIL();
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "site.conf:7: module 'nothere' not found: no nothere.so or "
                           "libnothere.so in any directory (PNMPI_LIB_PATH is not set); add the "
                           "directory that holds it to PNMPI_LIB_PATH");
  }
  try {
    resolve_module(spec("/no/such/x.so"), m_config, {m_a});
    FAIL();
  } catch (const Error &e) {
    EXPECT_STREQ(e.what(), "site.conf:7: module '/no/such/x.so': no such file /no/such/x.so");
  }
}

TEST_F(Resolve, UnconvertedToolIsRefusedWithTheCommandToConvertIt) {
  const char *const names[] = {"MPI_Allreduce", "MPI_Barrier", "MPI_Comm_size", "MPI_Init"};
  const RoutineIndex routines(names, 4);
  const ModuleSpec s = spec("plain_tool");
  try {
    read_module_file(PNMPI_TEST_PLAIN_TOOL, s, m_config, routines);
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()),
              std::string("site.conf:7: module 'plain_tool' (") + PNMPI_TEST_PLAIN_TOOL +
                  "): calls PMPI_Allreduce directly (and 3 more PMPI_ routines): it is a plain "
                  "PMPI tool, not converted yet; run 'pnmpi-patch " +
                  PNMPI_TEST_PLAIN_TOOL + " OUT.so' and list OUT.so instead");
  }
}

TEST_F(Resolve, DirectoriesAndDevicesAreNamedForWhatTheyAre) {
  const std::pair<const char *, const char *> cases[] = {
      {"/", "site.conf:7: module '/': / is a directory, not a module file"},
      {"/dev/zero", "site.conf:7: module '/dev/zero': /dev/zero is not a regular file, so it "
                    "cannot be a module"},
      {"/dev/null/x.so", "site.conf:7: module '/dev/null/x.so': no such file /dev/null/x.so"}};
  for (const auto &[name, message] : cases) {
    try {
      resolve_module(spec(name), m_config, {m_a});
      FAIL() << name;
    } catch (const Error &e) {
      EXPECT_STREQ(e.what(), message);
    }
  }
}

TEST_F(Resolve, AHugeNameMakesAShortMessage) {
  const std::string name = "/" + std::string(100000, 'n');
  try {
    resolve_module(spec(name), m_config, {m_a});
    FAIL();
  } catch (const Error &e) {
    const std::string cut = name.substr(0, 200) + "... (100001 bytes)";
    EXPECT_EQ(std::string(e.what()), "site.conf:7: module '" + cut + "': no such file " + cut);
  }
}

TEST(SearchPath, EmptyElementsAreIgnoredNeverTheWorkingDirectory) {
  ::setenv("PNMPI_LIB_PATH", ":/a::/b:", 1);
  std::vector<std::string> dirs = module_search_path();
  ::unsetenv("PNMPI_LIB_PATH");
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], "/a");
  EXPECT_EQ(dirs[1], "/b");
  for (const std::string &d : dirs)
    EXPECT_FALSE(d.empty() || d == ".") << d;
}

TEST_F(Resolve, TheMpiLibraryIsNoModule) {
  const char *const names[] = {"MPI_Allreduce", "MPI_Barrier", "MPI_Comm_size", "MPI_Init"};
  const RoutineIndex routines(names, 4);
  const std::string mpi = PNMPI_TEST_MPI_LIBRARY;
  ASSERT_FALSE(mpi.empty());
  try {
    read_module_file(mpi, spec("libmpi"), m_config, routines);
    FAIL();
  } catch (const Error &e) {
    const std::regex want("site\\.conf:7: module 'libmpi' \\(" + mpi +
                          "\\): defines [0-9]{3,} PMPI_ symbol\\(s\\) \\(PMPI_\\w+, PMPI_\\w+, "
                          "PMPI_\\w+, \\.\\.\\.\\): it is an MPI library, not a PMPI tool; list "
                          "the tools to chain, never the MPI library itself, which is always "
                          "the bottom layer");
    EXPECT_TRUE(std::regex_match(std::string(e.what()), want)) << e.what();
  }
}

TEST_F(Resolve, AModuleInAnOpenDirectoryIsRefused) {
  const char *const names[] = {"MPI_Init"};
  const RoutineIndex routines(names, 1);
  const std::string open = std::string(PNMPI_TEST_SCRATCH_DIR) + "/open-repo";
  ::mkdir(open.c_str(), 0755);
  ::chmod(open.c_str(), 0777);
  std::ofstream(open + "/planted.so") << "x";
  try {
    read_module_file(open + "/planted.so", spec("planted"), m_config, routines);
    FAIL();
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), "site.conf:7: module 'planted' (" + open +
                                         "/planted.so): not trusted: its "
                                         "directory " +
                                         open +
                                         " is writable by its group and others (mode 0777), so "
                                         "they decide what pnmpi loads; run 'chmod go-w " +
                                         open + "', or set PNMPI_ALLOW_UNSAFE=1 to accept it");
  }
  ::chmod(open.c_str(), 0755);
}

} // namespace
} // namespace pnmpi
