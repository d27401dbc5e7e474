// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The site configuration in real jobs (docs/site.md): a site stack composed with a user's,
// silent when all is well, the executable rules and the user's opt-out, and the site failure
// policy: every failure the user-path error tests (tests/integration Errors.*) make stop a
// job, made by the site's configuration or module instead, leaves the job's exit status and
// output unchanged and prints exactly one warning.

#include <gtest/gtest.h>

#include <ctime>
#include <dirent.h>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

const std::string kLibPath = std::string(PNMPI_TEST_SITE_MODULE_DIR) + ":" +
                             PNMPI_TEST_INTEGRATION_MODULE_DIR + ":" + PNMPI_MODULE_BUILD_DIR;

const char *kUser = "module tag\nargument tag x\n";

/// Runs order_app on 2 ranks with the user's config `user` and the site's `site` (none when
/// empty).
RunResult run_site(const std::string &user, const std::string &site,
                   std::map<std::string, std::string> env = {},
                   std::vector<std::string> program = {PNMPI_TEST_ORDER_APP}) {
  MpiJob job;
  job.program = std::move(program);
  job.env = std::move(env);
  job.env["PNMPI_LIB_PATH"] = kLibPath;
  if (!user.empty())
    job.env["PNMPI_CONF"] = test_conf_file(user);
  if (!site.empty() && job.env.count("PNMPI_SITE_CONF") == 0)
    job.env["PNMPI_SITE_CONF"] = write_temp_file(test_name() + ".site.conf", site);
  return run_mpi(job);
}

std::string site_path() {
  return std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + test_name() + ".site.conf";
}

/// What the application prints with the user's stack alone: the output every site failure
/// must leave exactly as it is.
const std::string &baseline() {
  static const std::string out = [] {
    const RunResult r = run_site(kUser, "");
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    return r.out;
  }();
  return out;
}

/// The job runs to the end as without the site, and says `warning` once.
void expect_one_warning(const RunResult &r, const std::string &warning) {
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, baseline()) << describe(r);
  const std::vector<std::string> warnings = lines_with(r.err, "pnmpi: warning: ");
  ASSERT_EQ(warnings.size(), 1u) << describe(r);
  EXPECT_EQ(warnings[0], "pnmpi: warning: " + warning) << describe(r);
  EXPECT_EQ(lines_with(r.err, "pnmpi").size(), 1u) << describe(r);
}

const std::string kDisabled =
    " [a module of the site configuration: it is disabled, the job goes on]";
const std::string kSiteOff = "; the job runs without the site's modules";

TEST(SiteStack, SiteModulesComeAfterTheUsersAndPrintNothing) {
  const RunResult r = run_site(kUser, "module site_probe\nargument tag s\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("init: [Ix] rc=0\nbarrier: [Bx Bs] rc=0\nsize: [Sx] rc=0\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("result: size=2 sum=1\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("pnmpi"), std::string::npos) << describe(r);
}

TEST(SiteStack, SiteAloneWritesNothingIntoTheJobsOutputOrDirectory) {
  const std::string dir = std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + test_name() + ".cwd";
  ASSERT_EQ(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()), 0);
  MpiJob job;
  job.banner = true; // the banner is a user configuration's; a site stack has none
  job.program = {"/usr/bin/env", "-C", dir, PNMPI_TEST_ORDER_APP};
  job.env["PNMPI_LIB_PATH"] = kLibPath;
  job.env["HOME"] = dir; // no ~/.pnmpi-conf
  job.env["PNMPI_SITE_CONF"] =
      write_temp_file(test_name() + ".site.conf", "module site_probe\nargument tag s\n");
  const RunResult r = run_mpi(job);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("init: [] rc=0\nbarrier: [Bs] rc=0\nsize: [] rc=0\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.err.find("pnmpi"), std::string::npos) << describe(r);
  DIR *d = ::opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  std::vector<std::string> entries;
  while (const dirent *e = ::readdir(d))
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
      entries.push_back(e->d_name);
  ::closedir(d);
  EXPECT_TRUE(entries.empty()) << entries.front();
}

TEST(SiteStack, ExcludedExecutableRunsWithoutTheSitesModules) {
  const RunResult r = run_site(kUser, "exclude /order_app$\nmodule site_probe\nargument tag s\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, baseline());
  EXPECT_EQ(r.err.find("pnmpi"), std::string::npos) << describe(r);
}

TEST(SiteStack, IncludeOverridesExclude) {
  const RunResult r =
      run_site(kUser, "exclude .\ninclude order_[a-z]+$\nmodule site_probe\nargument tag s\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("barrier: [Bx Bs] rc=0\n"), std::string::npos) << r.out;
}

TEST(SiteStack, UserOptsOutWhereTheSiteAllows) {
  const RunResult r =
      run_site(kUser, "module site_probe\nargument tag s\n", {{"PNMPI_SITE_DISABLE", "1"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, baseline());
  EXPECT_EQ(r.err.find("pnmpi"), std::string::npos) << describe(r);
}

TEST(SiteStack, OptOutRefusedWhereTheSiteDenies) {
  const RunResult r = run_site(kUser, "optout deny\nmodule site_probe\nargument tag s\n",
                               {{"PNMPI_SITE_DISABLE", "1"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("barrier: [Bx Bs] rc=0\n"), std::string::npos) << r.out;
  const std::vector<std::string> w = lines_with(r.err, "pnmpi: warning: ");
  ASSERT_EQ(w.size(), 1u) << describe(r);
  EXPECT_EQ(w[0], "pnmpi: warning: PNMPI_SITE_DISABLE=1 is ignored: the site configuration " +
                      site_path() + ":1 does not allow turning its modules off ('optout deny')");
}

// The failures of tests/integration Errors.*, made by the site.

TEST(SitePolicy, UnknownDirective) {
  expect_one_warning(run_site(kUser, "module site_probe\nmodul empty\n"),
                     site_path() +
                         ":2: unknown directive 'modul' (expected 'module', 'argument', "
                         "'pcontrol', 'records', 'optout', 'include' or 'exclude')" +
                         kSiteOff);
}

TEST(SitePolicy, ModuleWithoutName) {
  expect_one_warning(run_site(kUser, "# nothing\n\nmodule\n"),
                     site_path() + ":3: 'module' needs a module name, as in 'module empty'" +
                         kSiteOff);
}

TEST(SitePolicy, ArgumentBeforeModule) {
  expect_one_warning(run_site(kUser, "argument tag s\nmodule site_probe\n"),
                     site_path() +
                         ":1: 'argument' before any 'module': an argument belongs to the "
                         "module above it" +
                         kSiteOff);
}

TEST(SitePolicy, StackInASiteConfiguration) {
  expect_one_warning(run_site(kUser, "stack side\nmodule site_probe\n"),
                     site_path() +
                         ":1: 'stack' is not allowed in a site configuration: the site's "
                         "modules join the default stack of every job, and MPI_Pcontrol's "
                         "delivery is the user's to choose" +
                         kSiteOff);
}

TEST(SitePolicy, MissingModule) {
  expect_one_warning(
      run_site(kUser, "module nosuchtool\n"),
      site_path() + ":1: module 'nosuchtool' not found: no nosuchtool.so or libnosuchtool.so in " +
          std::regex_replace(kLibPath, std::regex(":"), ", ") +
          ", " PNMPI_TEST_INSTALL_MODULE_DIR
          " (PNMPI_LIB_PATH, then the install's module directory); add the "
          "directory that holds it to PNMPI_LIB_PATH" +
          kDisabled);
}

TEST(SitePolicy, ModuleThatIsNotASharedObject) {
  const std::string path = write_temp_file("site-notelf.so", "this is a text file\n");
  expect_one_warning(run_site(kUser, "module " + path + "\n"),
                     site_path() + ":1: module '" + path + "' (" + path +
                         "): not an ELF file (a module must be a shared object, .so)" + kDisabled);
}

TEST(SitePolicy, ModuleWithUnresolvedSymbol) {
  const std::string path = std::string(PNMPI_TEST_INTEGRATION_MODULE_DIR) + "/unresolved.so";
  expect_one_warning(run_site(kUser, "module unresolved\n"),
                     site_path() + ":1: module 'unresolved' (" + path + "): cannot be loaded: " +
                         path + ": undefined symbol: pnmpi_test_no_such_function" + kDisabled);
}

TEST(SitePolicy, UnconvertedPmpiTool) {
  const std::string path = PNMPI_TEST_PLAIN_TOOL;
  expect_one_warning(run_site(kUser, "module " + path + "\n"),
                     site_path() + ":1: module '" + path + "' (" + path +
                         "): calls PMPI_Allreduce directly (and 3 more PMPI_ routines): it is a "
                         "plain PMPI tool, not converted yet; run 'pnmpi-patch " +
                         path + " OUT.so' and list OUT.so instead" + kDisabled);
}

TEST(SitePolicy, SiteConfigurationNamedMustExist) {
  expect_one_warning(run_site(kUser, "", {{"PNMPI_SITE_CONF", "/nonexistent/site.conf"}}),
                     "PNMPI_SITE_CONF is set to '/nonexistent/site.conf', which is not a "
                     "readable file" +
                         kSiteOff);
}

TEST(SitePolicy, UntrustedSiteConfiguration) {
  const std::string path = write_temp_file(test_name() + ".site.conf", "module site_probe\n");
  ASSERT_EQ(::chmod(path.c_str(), 0666), 0);
  const RunResult r = run_site(kUser, "", {{"PNMPI_SITE_CONF", path}});
  expect_one_warning(r, path +
                            ": not trusted: it is writable by its group and others (mode "
                            "0666), so they decide what pnmpi loads; run 'chmod go-w " +
                            path + "', or set PNMPI_ALLOW_UNSAFE=1 to accept it" + kSiteOff);
}

TEST(SitePolicy, UndeclaredArgument) {
  expect_one_warning(run_site(kUser, "module site_probe\nargument colour red\n"),
                     site_path() +
                         ":2: module 'site_probe' takes no argument 'colour' (it takes tag, "
                         "count, fail); check the spelling" +
                         kDisabled);
}

TEST(SitePolicy, MalformedArgumentUnlinksTheModule) {
  // The typed reader's failure happens in the module's load hook, after it was bound: the
  // core unlinks it before the application's first call (no `Bs` below).
  expect_one_warning(run_site(kUser, "module site_probe\nargument tag s\nargument count 1000\n"),
                     site_path() +
                         ":3: module 'site_probe': argument 'count' must be a whole number "
                         "from 0 to 100, not '1000'" +
                         kDisabled);
}

TEST(SitePolicy, FailureInTheLoadHookUnlinksTheModule) {
  expect_one_warning(run_site(kUser, "module site_probe\nargument tag s\nargument fail load\n"),
                     site_path() + ":1: module 'site_probe': cannot allocate its buffers (test)" +
                         kDisabled);
}

TEST(SitePolicy, FailureAtFinalizeIsNotedInTheRecordDirectory) {
  // At finalize the failure is each rank's own: said by every rank that meets it (here
  // both), once each, and noted for the admin in today's record directory.
  const std::string logdir = std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + test_name() + ".logs";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  const std::string day = logdir + "/" + std::to_string(utc.tm_year + 1900) + "/" +
                          std::to_string(utc.tm_mon + 1) + "/" + std::to_string(utc.tm_mday);
  ASSERT_EQ(std::system(("rm -rf '" + logdir + "' && mkdir -p '" + day + "'").c_str()), 0);
  const RunResult r = run_site(kUser, "records " + logdir +
                                          "\nmodule site_probe\nargument tag s\nargument fail "
                                          "finalize\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  ASSERT_EQ(r.rank_err.size(), 2u);
  const std::string warning = "pnmpi: warning: " + site_path() +
                              ":2: module 'site_probe': cannot write its output (test)" + kDisabled;
  for (const std::string &err : r.rank_err)
    EXPECT_EQ(joined_lines(lines_with(err, "pnmpi")), warning + "\n") << describe(r);
  EXPECT_NE(r.out.find("barrier: [Bx Bs] rc=0\n"), std::string::npos) << r.out;
  std::string notes;
  DIR *d = ::opendir(day.c_str());
  ASSERT_NE(d, nullptr);
  int files = 0;
  while (const dirent *e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() < 9 || name.substr(name.size() - 9) != ".warnings")
      continue;
    ++files;
    std::ifstream in(day + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    notes += text.str();
  }
  ::closedir(d);
  EXPECT_EQ(files, 2);
  EXPECT_EQ(lines_with(notes, warning.substr(std::string("pnmpi: warning: ").size())).size(), 2u)
      << notes;
}

// The same module as the user's own: nothing silent, the job stops.

TEST(UserPolicy, SameFailureStopsTheJob) {
  const RunResult load = run_site("module site_probe\nargument fail load\n", "");
  EXPECT_EQ(load.exit_code, 3) << describe(load);
  EXPECT_EQ(lines_with(load.err, "site_probe: cannot allocate its buffers (test)").size(), 2u);
  const RunResult fin = run_site("module site_probe\nargument fail finalize\n", "");
  EXPECT_NE(fin.exit_code, 0) << describe(fin);
  EXPECT_EQ(lines_with(fin.err, "site_probe: cannot write its output (test)").size(), 2u);
  EXPECT_EQ(lines_with(fin.err, "pnmpi: warning").size(), 0u);
}

TEST(UserPolicy, UserErrorStillStopsTheJobWithASiteStack) {
  const RunResult r = run_site("module tag\nmodule nosuchtool\n", "module site_probe\n");
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out.find("result:"), std::string::npos);
  EXPECT_EQ(lines_with(r.err, "module 'nosuchtool' not found").size(), 2u) << describe(r);
}

} // namespace
} // namespace pnmpi::test
