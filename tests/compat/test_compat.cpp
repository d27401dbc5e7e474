// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Programs and modules written for the original PnMPI, in real jobs: its application header,
// its launcher's command line under the names pnmpize and pnmpi, static linking with
// libpnmpi.a, and modules built with its CMake functions and private headers.

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

std::string app(const char *name) {
  return std::string(COMPAT_TEST_BIN_DIR) + "/" + name;
}

const std::string kModules = COMPAT_TEST_MODULE_DIR;

/// Runs `program` on `ranks` ranks with the config text `conf` (none if empty).
RunResult run_with(const std::string &conf, std::vector<std::string> program, int ranks = 2,
                   std::map<std::string, std::string> env = {}) {
  MpiJob job;
  job.ranks = ranks;
  job.program = std::move(program);
  job.env = std::move(env);
  job.env.emplace("PNMPI_LIB_PATH", kModules);
  if (!conf.empty())
    job.env["PNMPI_CONF"] = test_conf_file(conf);
  return run_mpi(job);
}

int count(const std::string &text, const std::string &needle) {
  int n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size()))
    ++n;
  return n;
}

TEST(ApplicationHeader, GivesTheVersionOfThisPnmpi) {
  // compat_app checks the constants of <pnmpi.h> at compile time; here, <pnmpi-config.h>.
  const RunResult r = run_with("", {app("compat_app"), "init", "version"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::string version = COMPAT_TEST_VERSION;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("version: ([0-9.]+) = ([0-9.]+)\n"))) << r.out;
  EXPECT_EQ(m[1], version);
  EXPECT_EQ(m[2], version);
}

TEST(Pnmpize, LoadsTheConfiguredModulesUnderMpirun) {
  // The original's pnmpize test case: `mpiexec -np N pnmpi -m DIR -c CONF app`, with a
  // module's PNMPI_Debug messages of class "modules" asked for by `-d modules`.
  const std::string conf = test_conf_file("module orig_pmpi\n");
  for (const char *name : {"pnmpize", "pnmpi"}) {
    MpiJob job;
    job.program = {std::string(COMPAT_TEST_RUN_DIR) + "/" + name,
                   "-m",
                   kModules,
                   "-c",
                   conf,
                   "-d",
                   "modules",
                   app("compat_app_plain")};
    const RunResult r = run_mpi(job);
    ASSERT_EQ(r.exit_code, 0) << name << "\n" << describe(r);
    EXPECT_EQ(count(r.out, "[orig_pmpi] registered (fail off)"), 2) << name << "\n" << r.out;
    EXPECT_EQ(count(r.out, "orig_pmpi: rank 0 sent 1"), 1) << name << "\n" << r.out;
    EXPECT_EQ(count(r.out, "orig_pmpi: rank 1 sent 1"), 1) << name << "\n" << r.out;
  }
}

TEST(Pnmpize, QuietSilencesTheBanner) {
  const std::string conf = test_conf_file("module orig_xmpi_only\n");
  const std::string pnmpize = std::string(COMPAT_TEST_RUN_DIR) + "/pnmpize";
  MpiJob job;
  job.banner = true;
  job.program = {pnmpize, "-m", kModules, "-c", conf, app("compat_app_plain")};
  const RunResult loud = run_mpi(job);
  ASSERT_EQ(loud.exit_code, 0) << describe(loud);
  EXPECT_EQ(count(loud.out, "Loaded modules:\n"), 1) << loud.out;
  job.program = {pnmpize, "-q", "-m", kModules, "-c", conf, app("compat_app_plain")};
  const RunResult quiet = run_mpi(job);
  ASSERT_EQ(quiet.exit_code, 0) << describe(quiet);
  EXPECT_EQ(count(quiet.out, "Loaded modules:"), 0) << quiet.out;
  EXPECT_EQ(count(quiet.out, "orig_xmpi_only: barrier"), 2) << quiet.out;
}

TEST(StaticLinking, ModulesAreLoadedFromTheConfig) {
  // The original's static test case: one module listed three times, each copy's hook runs.
  const RunResult r = run_with("module orig_pmpi\nmodule orig_pmpi\nmodule orig_pmpi\n",
                               {app("compat_app_static")}, 2, {{"PNMPI_DBGLEVEL", "2"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.out, "[orig_pmpi] registered (fail off)"), 6) << r.out;
  // Every copy counts the one send of each rank, through the whole chain to MPI.
  EXPECT_EQ(count(r.out, "orig_pmpi: rank 0 sent 1,"), 3) << r.out;
  EXPECT_EQ(count(r.out, "orig_pmpi: rank 1 sent 1,"), 3) << r.out;
}

TEST(StaticLinking, TheReturnAddressIsTheApplications) {
  // pnmpi's code and the application's share the program's file: the walk must still stop
  // at the application's call, as with libpnmpi.so.
  for (const char *program : {"compat_app", "compat_app_static"}) {
    const RunResult r = run_with("module return_address\n", {app(program)});
    ASSERT_EQ(r.exit_code, 0) << program << "\n" << describe(r);
    EXPECT_EQ(count(r.out, "return address in compat_app_send"), 2) << program << "\n" << r.out;
  }
}

TEST(StaticLinking, AProgramThatExportsNothingIsRefused) {
  const RunResult r = run_with("", {app("compat_app_static_noexport")}, 1);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.err.find("pnmpi: this program is linked with libpnmpi.a but does not export its "
                       "symbols, so no module could call pnmpi or MPI: link it with "
                       "-Wl,--export-dynamic (or -rdynamic), or with the CMake target "
                       "pnmpi::pnmpi_static, which adds it\n"),
            std::string::npos)
      << describe(r);
  EXPECT_EQ(r.out.find("query:"), std::string::npos) << "main must not run\n" << r.out;
}

TEST(OriginalModules, BuildWithTheOriginalsCMakeFunctionsAndRun) {
  // orig_xmpi's PMPI_Comm_rank was renamed by pnmpi_add_xmpi_module (the core refuses a
  // module with PMPI_ imports left); orig_xmpi_only had nothing to rename.
  const RunResult r =
      run_with("module orig_xmpi\nmodule orig_xmpi_only\nmodule orig_pmpi\n", {app("compat_app")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (int rank : {0, 1}) {
    const std::string xmpi = "orig_xmpi: barrier on rank " + std::to_string(rank) + "\n";
    const std::size_t at = r.out.find(xmpi);
    ASSERT_NE(at, std::string::npos) << r.out;
    // The layer below runs after it, on the same call.
    EXPECT_NE(r.out.find("orig_xmpi_only: barrier", at), std::string::npos) << r.out;
  }
  EXPECT_EQ(count(r.out, "orig_xmpi_only: barrier"), 2) << r.out;
  // PNMPI_F_STATUS_SIZE is the MPI's Fortran MPI_STATUS_SIZE.
  const std::string status = std::string(PNMPI_TEST_MPI_FLAVOR) == "mpich" ? "5" : "6";
  EXPECT_EQ(count(r.out, "sent 1, Fortran status size " + status), 2) << r.out;
}

TEST(OriginalModules, AFailedCheckedCallEndsTheJobWithPnmpiError) {
  const RunResult r = run_with("module orig_pmpi\nargument fail on\n", {app("compat_app")});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex("\\[orig_pmpi\\] MPI_Barrier:[0-9]+: PMPI_Comm_rank failed\\.\n")))
      << describe(r);
}

} // namespace
} // namespace pnmpi::test
