// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Where the core and pnmpi-info look for modules: -L directories, PNMPI_LIB_PATH, then the
// install's module directory, which follows the install when it was installed elsewhere
// than configured. The inputs are parameters: nothing here touches the environment.

#include <gtest/gtest.h>

#include <sys/stat.h>

#include "module_path.h"
#include "pnmpi_test_config.h"

namespace pnmpi {
namespace {

SearchPathInputs inputs(const char *lib_path, std::string libdir,
                        std::vector<std::string> first = {}) {
  SearchPathInputs in;
  in.first = std::move(first);
  in.lib_path = lib_path;
  in.libdir = std::move(libdir);
  return in;
}

TEST(SearchPath, BuildTreeAndUnknownLocationKeepTheConfiguredDirectory) {
  const std::vector<std::string> configured{"/a", "/b", PNMPI_TEST_INSTALL_MODULE_DIR};
  EXPECT_EQ(module_search_path(inputs("/a:/b", "")), configured);
  EXPECT_EQ(module_search_path(inputs("/a:/b", std::string(PNMPI_TEST_BUILD_DIR) + "/lib")),
            configured);
}

TEST(SearchPath, AnInstallElsewhereSearchesItsOwnModuleDirectory) {
  EXPECT_EQ(module_search_path(inputs("/a:/b", "/opt/pnmpi-moved/lib")),
            (std::vector<std::string>{"/a", "/b", "/opt/pnmpi-moved/lib/pnmpi/modules"}));
  EXPECT_EQ(install_module_dir("/x/lib64"), "/x/lib64/pnmpi/modules");
}

TEST(SearchPath, CommandLineDirectoriesComeFirst) {
  EXPECT_EQ(module_search_path(inputs("/env", "", {"/first", "/second"})),
            (std::vector<std::string>{"/first", "/second", "/env", PNMPI_TEST_INSTALL_MODULE_DIR}));
  EXPECT_EQ(module_search_path(inputs(nullptr, "", {"/first"})),
            (std::vector<std::string>{"/first", PNMPI_TEST_INSTALL_MODULE_DIR}));
}

TEST(SearchPath, EmptyElementsAreIgnoredNeverTheWorkingDirectory) {
  const std::vector<std::string> dirs = module_search_path(inputs(":/a::/b:", ""));
  EXPECT_EQ(dirs, (std::vector<std::string>{"/a", "/b", PNMPI_TEST_INSTALL_MODULE_DIR}));
  EXPECT_EQ(module_search_path(inputs("", "")),
            (std::vector<std::string>{PNMPI_TEST_INSTALL_MODULE_DIR}));
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
