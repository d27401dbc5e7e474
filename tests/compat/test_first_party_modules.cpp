// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The first-party wait-for-debugger and limit-threading modules (modules/), which do what
// the original PnMPI's modules of those names did, in real jobs.

#include <gtest/gtest.h>

#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <regex>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

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

std::string file_text(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(WaitForDebugger, ADebuggerEndsTheWait) {
  // One rank, started without a launcher (a singleton MPI_Init), told to wait a minute;
  // gdb attaches as a user would and sets the release flag. The wait must end at once.
  const std::string out = std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + test_name() + ".out";
  const std::string conf = test_conf_file("module wait-for-debugger\nargument wait 60\n");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<std::string> env_text;
  for (char **e = environ; *e != nullptr; ++e)
    env_text.emplace_back(*e);
  env_text.push_back("PNMPI_CONF=" + conf);
  env_text.push_back(std::string("PNMPI_LIB_PATH=") + PNMPI_MODULE_BUILD_DIR);
  env_text.push_back("PNMPI_BE_SILENT=1");
  std::vector<char *> envp;
  for (std::string &e : env_text)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string program = app();
  char *argv[] = {program.data(), nullptr};
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv, envp.data()), 0);
  posix_spawn_file_actions_destroy(&actions);
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::smatch m;
  std::string text;
  while (seconds() < 30 && !std::regex_search(text, m, std::regex("has pid ([0-9]+)\\."))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    text = file_text(out);
  }
  ASSERT_FALSE(m.empty()) << "the rank never said where it runs:\n" << text;
  // Without the module's debug information gdb would not know the type: say it.
  const RunResult gdb = run({"gdb", "-p", m[1], "-batch", "-ex",
                             "set var *(volatile int *)&pnmpi_wait_for_debugger_release = 1"},
                            {}, 60);
  if (gdb.out.find("ptrace") != std::string::npos || gdb.err.find("ptrace") != std::string::npos) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    GTEST_SKIP() << "this machine does not let gdb attach: " << gdb.err;
  }
  int status = -1;
  while (seconds() < 45 && ::waitpid(pid, &status, WNOHANG) == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (seconds() >= 45) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    FAIL() << "still waiting after the debugger's release\n" << file_text(out) << describe(gdb);
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << file_text(out);
  text = file_text(out);
  EXPECT_NE(text.find("Waiting for 60 seconds ...\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Done waiting.\n"), std::string::npos) << text;
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
