// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The first-party wait-for-debugger and limit-threading modules (modules/), which do what
// the original PnMPI's modules of those names did, in real jobs.

#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <string>

#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

std::string app() {
  return std::string(COMPAT_TEST_BIN_DIR) + "/compat_app";
}

RunResult run_with(const std::string &conf, std::vector<std::string> args,
                   std::map<std::string, std::string> env = {}) {
  MpiJob job;
  job.program = {app()};
  job.program.insert(job.program.end(), args.begin(), args.end());
  job.env = std::move(env);
  job.env["PNMPI_LIB_PATH"] = PNMPI_MODULE_BUILD_DIR;
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

TEST(WaitForDebugger, PrintsWhereEachRankRuns) {
  const RunResult r = run_with("module wait-for-debugger\n", {});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (int rank : {0, 1})
    EXPECT_TRUE(std::regex_search(r.out, std::regex("(^|\n)Rank " + std::to_string(rank) +
                                                    " at [^ \n]+ has pid [0-9]+\\.\n")))
        << r.out;
  EXPECT_EQ(count(r.out, "Waiting"), 0) << "no wait asked for\n" << r.out;
}

TEST(WaitForDebugger, WaitsTheGivenTimeOnEveryRank) {
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = run_with("module wait-for-debugger\nargument wait 1\n", {});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.out, "Waiting for 1 seconds ...\n"), 1) << "rank 0 only\n" << r.out;
  EXPECT_EQ(count(r.out, "Done waiting.\n"), 1) << r.out;
  EXPECT_GE(seconds, 1.0);
  // The original's environment variable overrides the argument.
  const RunResult env =
      run_with("module wait-for-debugger\nargument wait 1\n", {}, {{"WAIT_AT_STARTUP", "2"}});
  ASSERT_EQ(env.exit_code, 0) << describe(env);
  EXPECT_EQ(count(env.out, "Waiting for 2 seconds ...\n"), 1) << env.out;
}

TEST(WaitForDebugger, MalformedWaitsAreErrors) {
  const RunResult arg = run_with("module wait-for-debugger\nargument wait soon\n", {});
  EXPECT_NE(arg.exit_code, 0) << describe(arg);
  EXPECT_TRUE(std::regex_search(
      arg.err, std::regex(":2: module 'wait-for-debugger': argument 'wait' must be [^\n]*'soon'")))
      << describe(arg);
  const RunResult env = run_with("module wait-for-debugger\n", {}, {{"WAIT_AT_STARTUP", "x"}});
  EXPECT_NE(env.exit_code, 0) << describe(env);
  EXPECT_NE(env.err.find("pnmpi: module 'wait-for-debugger': environment variable "
                         "WAIT_AT_STARTUP must be "),
            std::string::npos)
      << describe(env);
  EXPECT_EQ(env.out.find("Rank 0"), std::string::npos) << env.out;
}

TEST(LimitThreading, CapsTheRequestedLevel) {
  const RunResult r =
      run_with("module limit-threading\nargument thread-level serialized\n", {"thread:multiple"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("provided: serialized\nquery: serialized\n"), std::string::npos) << r.out;
  // A request under the cap is left alone.
  const RunResult low =
      run_with("module limit-threading\nargument thread-level serialized\n", {"thread:funneled"});
  ASSERT_EQ(low.exit_code, 0) << describe(low);
  EXPECT_NE(low.out.find("provided: funneled\n"), std::string::npos) << low.out;
  // The original's environment variable overrides the argument.
  const RunResult env = run_with("module limit-threading\nargument thread-level serialized\n",
                                 {"thread:multiple"}, {{"PNMPI_THREADING_LEVEL", "single"}});
  ASSERT_EQ(env.exit_code, 0) << describe(env);
  EXPECT_NE(env.out.find("provided: single\n"), std::string::npos) << env.out;
}

TEST(LimitThreading, ForcesALevelOnMpiInit) {
  const RunResult r =
      run_with("module limit-threading\nargument force-thread-level funneled\n", {"init"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("query: funneled\n"), std::string::npos) << r.out;
  const RunResult thread = run_with(
      "module limit-threading\nargument force-thread-level serialized\n", {"thread:single"});
  ASSERT_EQ(thread.exit_code, 0) << describe(thread);
  EXPECT_NE(thread.out.find("provided: serialized\n"), std::string::npos) << thread.out;
  const RunResult env = run_with("module limit-threading\n", {"init"},
                                 {{"PNMPI_FORCE_THREADING_LEVEL", "serialized"}});
  ASSERT_EQ(env.exit_code, 0) << describe(env);
  EXPECT_NE(env.out.find("query: serialized\n"), std::string::npos) << env.out;
}

TEST(LimitThreading, MalformedLevelsAreErrors) {
  const RunResult arg =
      run_with("module limit-threading\nargument thread-level lots\n", {"thread:multiple"});
  EXPECT_NE(arg.exit_code, 0) << describe(arg);
  EXPECT_TRUE(std::regex_search(
      arg.err, std::regex(":2: module 'limit-threading': argument 'thread-level' must be [^\n]*")))
      << describe(arg);
  const RunResult env =
      run_with("module limit-threading\n", {"init"}, {{"PNMPI_FORCE_THREADING_LEVEL", "lots"}});
  EXPECT_NE(env.exit_code, 0) << describe(env);
  EXPECT_NE(env.err.find("pnmpi: module 'limit-threading': environment variable "
                         "PNMPI_FORCE_THREADING_LEVEL must be "),
            std::string::npos)
      << describe(env);
}

} // namespace
} // namespace pnmpi::test
