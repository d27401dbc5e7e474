// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <grp.h>
#include <iterator>
#include <regex>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "error_of.h"
#include "module_loader.h"
#include "module_path.h"
#include "pnmpi_routine_ids.h"
#include "pnmpi_test_config.h"

namespace pnmpi {
namespace {

using test::error_of;

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
    const std::string cut = shown(name); // the start and the end, 200 bytes in all
    EXPECT_EQ(std::string(e.what()), "site.conf:7: module '" + cut + "': no such file " + cut);
  }
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

/// Runs `body` in a child process and returns what error_of(body) says there. As root, the
/// child first becomes nobody, for whom mode 0000 means what it says (root reads any file).
std::string error_in_child(const std::function<void()> &body, bool drop_root) {
  int fds[2];
  if (::pipe(fds) != 0)
    return "(no pipe)";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string result;
    if (drop_root && ::geteuid() == 0 &&
        (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
      result = "(cannot become nobody)";
    else
      result = error_of(body);
    const ssize_t n = ::write(fds[1], result.data(), result.size());
    ::_exit(n == static_cast<ssize_t>(result.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string result;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    result.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return result;
}

TEST_F(Resolve, AModuleThatWrapsNothingIsReadAsPnmpiDoes) {
  // PnMPI loads a module with neither a wrapper nor a hook; the note it gets under
  // PNMPI_DEBUG is checked in a job (test_module_api.cpp, Compat.AModuleThatDoesNothing...).
  const char *const names[] = {"MPI_Barrier", "MPI_Init"};
  const RoutineIndex routines(names, 2);
  const auto file = read_module_file(PNMPI_TEST_NOOP_MODULE, spec("noop"), m_config, routines);
  ASSERT_NE(file, nullptr);
  EXPECT_TRUE(file->image.wrappers.empty());
  EXPECT_TRUE(file->image.pnmpi_syms.empty());
}

TEST_F(Resolve, AModuleThatNeedsARoutineThisMpiLacksIsRefused) {
  const char *const names[] = {"MPI_Barrier", "MPI_Init"};
  const RoutineIndex routines(names, 2);
  EXPECT_EQ(error_of([&] {
              read_module_file(PNMPI_TEST_UNKNOWN_XMPI_MODULE, spec("unknown"), m_config, routines);
            }),
            std::string("site.conf:7: module 'unknown' (") + PNMPI_TEST_UNKNOWN_XMPI_MODULE +
                "): needs XMPI_Nonexistent_routine, which the MPI pnmpi was built for does not "
                "provide; rebuild the module against this MPI");
}

TEST_F(Resolve, AModuleFileThatCannotBeReadIsNamedWithTheReason) {
  const RoutineIndex routines(pnmpi_routine_names, PNMPI_NUM_ROUTINES);
  const std::string locked = m_a + "/locked.so";
  {
    std::ifstream in(std::string(PNMPI_TEST_MODULE_BUILD_DIR) + "/passthrough.so",
                     std::ios::binary);
    std::ofstream(locked, std::ios::binary | std::ios::trunc) << in.rdbuf();
  }
  ASSERT_EQ(::chmod(locked.c_str(), 0000), 0);
  EXPECT_EQ(
      error_in_child([&] { read_module_file(locked, spec("locked"), m_config, routines); }, true),
      "site.conf:7: module 'locked' (" + locked + "): cannot read it: Permission denied");
  ::chmod(locked.c_str(), 0644);
  EXPECT_EQ(
      error_in_child([&] { read_module_file(locked, spec("locked"), m_config, routines); }, true),
      "(no error)")
      << "readable again, the same file loads: the error above was the mode";
}

TEST_F(Resolve, AConfigFileThatCannotBeReadIsNamedWithTheReason) {
  const std::string locked = m_a + "/locked.conf";
  std::ofstream(locked, std::ios::trunc) << "module empty\n";
  ASSERT_EQ(::chmod(locked.c_str(), 0000), 0);
  EXPECT_EQ(error_in_child([&] { load_config_file(locked); }, true),
            "cannot read configuration " + locked + ": Permission denied");
  ::chmod(locked.c_str(), 0644);
  EXPECT_EQ(error_in_child([&] { load_config_file(locked); }, true), "(no error)");
}

TEST(CopyDirectory, TmpdirIsTheFallbackAfterSharedMemory) {
  const char *old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", "/some/tmpdir", 1);
  const std::vector<std::string> bases = copy_directory_bases();
  ::unsetenv("TMPDIR");
  const std::vector<std::string> unset = copy_directory_bases();
  if (old != nullptr)
    ::setenv("TMPDIR", saved.c_str(), 1);
  ASSERT_FALSE(bases.empty());
  EXPECT_EQ(bases.back(), "/some/tmpdir");
  EXPECT_EQ(unset.back(), "/tmp");
  if (bases.size() == 2) {
    EXPECT_EQ(bases.front(), "/dev/shm");
  }
}

TEST(CopyDirectory, NoPlaceForCopiesSaysWhereItTriedAndWhy) {
  ::mkdir(PNMPI_TEST_SCRATCH_DIR, 0755);
  const std::string file = std::string(PNMPI_TEST_SCRATCH_DIR) + "/not-a-directory";
  std::ofstream(file, std::ios::trunc) << "x";
  const std::string missing = std::string(PNMPI_TEST_SCRATCH_DIR) + "/no/such/dir";
  CopyDirectory copies({file, missing});
  EXPECT_EQ(error_of([&] { copies.path("site.conf:7: module 'twice'"); }),
            "site.conf:7: module 'twice': listed more than once, so each layer needs its own "
            "copy, but no directory for copies could be made in " +
                file + " (Not a directory), " + missing +
                " (No such file or directory); set TMPDIR to a writable directory");
  CopyDirectory fallback({file, PNMPI_TEST_SCRATCH_DIR});
  EXPECT_EQ(fallback.path("x").rfind(std::string(PNMPI_TEST_SCRATCH_DIR) + "/pnmpi-", 0), 0u);
}

TEST(CopyDirectory, AFullDirectoryStopsTheCopyWithTheReason) {
  // A file-size limit makes write() fail as on a full file system (EFBIG, not ENOSPC).
  ::mkdir(PNMPI_TEST_SCRATCH_DIR, 0755);
  const std::string delay = std::string(PNMPI_TEST_MODULE_BUILD_DIR) + "/delay.so";
  Config config;
  config.path = "site.conf";
  const ModuleSpec spec{"delay", 3, 0, {}};
  const std::string message = error_in_child(
      [&] {
        ::signal(SIGXFSZ, SIG_IGN);
        const rlimit small{4096, 4096};
        ::setrlimit(RLIMIT_FSIZE, &small);
        ModuleFile file;
        file.path = delay;
        std::ifstream in(delay, std::ios::binary);
        file.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        file.loaded = 1; // as if its first layer were loaded: the next needs a copy
        CopyDirectory copies({PNMPI_TEST_SCRATCH_DIR});
        load_module_copy(file, spec, config, copies, 2);
      },
      false);
  const std::regex want("site\\.conf:3: module 'delay' \\(" + delay +
                        "\\): cannot write a copy for another layer at " + PNMPI_TEST_SCRATCH_DIR +
                        "/pnmpi-\\w{6}/2-delay\\.so: File too large");
  EXPECT_TRUE(std::regex_match(message, want)) << message;
}

} // namespace
} // namespace pnmpi
