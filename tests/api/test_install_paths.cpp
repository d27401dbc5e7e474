// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Where the core and pnmpi-info look for modules: PNMPI_LIB_PATH, then the install's module
// directory, which follows the install when it was installed elsewhere than configured.

#include <gtest/gtest.h>

#include <cstdlib>
#include <sys/stat.h>

#include "install_paths.h"
#include "pnmpi_test_config.h"

namespace pnmpi {
namespace {

class SearchPath : public ::testing::Test {
protected:
  void SetUp() override {
    const char *old = std::getenv("PNMPI_LIB_PATH");
    m_had = old != nullptr;
    if (m_had)
      m_old = old;
    ::setenv("PNMPI_LIB_PATH", "/a:/b", 1);
  }
  void TearDown() override {
    if (m_had)
      ::setenv("PNMPI_LIB_PATH", m_old.c_str(), 1);
    else
      ::unsetenv("PNMPI_LIB_PATH");
  }
  bool m_had = false;
  std::string m_old;
};

TEST_F(SearchPath, BuildTreeAndUnknownLocationKeepTheConfiguredDirectory) {
  const std::vector<std::string> configured{"/a", "/b", PNMPI_TEST_INSTALL_MODULE_DIR};
  EXPECT_EQ(effective_module_search_path(""), configured);
  EXPECT_EQ(effective_module_search_path(std::string(PNMPI_TEST_BUILD_DIR) + "/lib"), configured);
}

TEST_F(SearchPath, AnInstallElsewhereSearchesItsOwnModuleDirectory) {
  EXPECT_EQ(effective_module_search_path("/opt/pnmpi-moved/lib"),
            (std::vector<std::string>{"/a", "/b", "/opt/pnmpi-moved/lib/pnmpi/modules"}));
  EXPECT_EQ(install_module_dir("/x/lib64"), "/x/lib64/pnmpi/modules");
}

TEST(DirectoryOf, ParentOfTheRealPath) {
  EXPECT_EQ(directory_of("/no/such/dir/file.so"), "/no/such/dir");
  EXPECT_EQ(directory_of("/file"), "/");
  EXPECT_EQ(directory_of("file"), ".");
  const std::string scratch = PNMPI_TEST_SCRATCH_DIR;
  ::mkdir(scratch.c_str(), 0755);
  const std::string parent = scratch.substr(0, scratch.rfind('/'));
  EXPECT_EQ(directory_of(scratch + "/../scratch"), parent) << "an existing path is resolved";
  EXPECT_EQ(directory_of(scratch + "/../scratch/missing"), scratch + "/../scratch")
      << "a missing file keeps its path as given";
}

} // namespace
} // namespace pnmpi
