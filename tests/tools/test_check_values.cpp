// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi-info --check against the job itself (issue 26 item 11): for every first-party module
// that takes arguments, a bad value gives pnmpi-info exit 1 and exactly the FILE:LINE message
// the job prints when it starts (both come from the module's own pnmpi_module_check), and
// good values give exit 0.

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "pnmpi_test_config.h"
#include "run_mpi.h"

using namespace pnmpi::test;

namespace {

RunResult check(const std::string &conf) {
  return run({TOOLS_TEST_INFO, "--check", "-c", conf}, {{"PNMPI_LIB_PATH", PNMPI_MODULE_BUILD_DIR}},
             120);
}

RunResult job(const std::string &conf) {
  MpiJob j;
  j.program = {TOOLS_TEST_APP};
  j.env["PNMPI_LIB_PATH"] = PNMPI_MODULE_BUILD_DIR;
  j.env["PNMPI_CONF"] = conf;
  return run_mpi(j);
}

struct Case {
  const char *name;
  std::string conf; ///< the configuration, `@` standing for a file of the scratch directory
  const char *key;  ///< what the message must name
};

class BadValue : public ::testing::TestWithParam<Case> {};

TEST_P(BadValue, CheckAndJobPrintTheSameMessage) {
  const Case &c = GetParam();
  std::string conf_text = c.conf;
  // `@order`: an order file with a bad second line; `@file`: a regular file.
  const std::string order = write_temp_file(test_name() + ".order", "1\n0,x\n");
  const std::string file = write_temp_file(test_name() + ".file", "not a directory\n");
  for (auto [token, path] : {std::pair<std::string, std::string>{"@order", order}, {"@file", file}})
    for (std::size_t at; (at = conf_text.find(token)) != std::string::npos;)
      conf_text.replace(at, token.size(), path);
  const std::string conf = test_conf_file(conf_text);

  const RunResult info = check(conf);
  EXPECT_EQ(info.exit_code, 1) << describe(info);
  EXPECT_EQ(info.out, "");
  const std::vector<std::string> lines = lines_starting_with(info.err, "pnmpi-info: ");
  ASSERT_EQ(lines.size(), 1u) << info.err;
  const std::string message = lines[0].substr(12);
  // FILE:LINE: the configuration's line, or the order file's.
  EXPECT_TRUE(message.rfind(conf + ":", 0) == 0 || message.rfind(order + ":2: ", 0) == 0)
      << message;
  EXPECT_NE(message.find(c.key), std::string::npos) << message;

  const RunResult r = job(conf);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(lines_with(r.err, "pnmpi: " + message).empty())
      << "expected: pnmpi: " << message << "\n"
      << describe(r);
}

const Case kCases[] = {
    {"delay_negative", "module delay\nargument delay-us -5\n", "'delay-us'"},
    {"delay_ranks", "module delay\nargument ranks 0,x\n", "'ranks'"},
    {"monitor_files", "module monitor\nargument files everything\n", "'files'"},
    {"monitor_top", "module monitor\nargument top 101\n", "'top'"},
    // The output directory the job checks at MPI_Init (a regular file where it should be).
    {"monitor_output", "module monitor\nargument output @file/mon\n",
     "argument 'output': the output directory"},
    {"trace_buffer", "module trace\nargument buffer 1\n", "'buffer'"},
    {"trace_output", "module trace\nargument output @file/trace\n",
     "argument 'output': cannot create directory"},
    {"trace_routines", "module trace\nargument routines MPI_Send,MPI_Bogus\n", "MPI_Bogus"},
    {"profile_output_file", "module profile\nargument output @file\n", "'output'"},
    {"place_order", "module place\nargument order @order\n", "'x' is not a rank"},
    {"place_both", "module place\nargument order @order\nargument from run\n", "'from'"},
    {"wait_negative", "module wait-for-debugger\nargument wait -1\n", "'wait'"},
    {"threading_level", "module limit-threading\nargument thread-level bogus\n", "'thread-level'"},
    {"empty_report", "module empty\nargument report maybe\n", "'report'"},
};

INSTANTIATE_TEST_SUITE_P(Modules, BadValue, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &i) { return i.param.name; });

TEST(GoodValues, CheckSaysOkAndTheJobRuns) {
  const std::string order = write_temp_file(test_name() + ".order", "1\n0\n");
  const std::string conf = test_conf_file("module delay\nargument delay-us 1\nargument ranks 0\n"
                                          "module monitor\nargument files gathered\n"
                                          "argument output " +
                                          std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + test_name() +
                                          "\nmodule place\nargument order " + order +
                                          "\nmodule wait-for-debugger\nargument wait 0\n"
                                          "module limit-threading\nargument thread-level single\n"
                                          "module empty\nargument report off\n");
  const RunResult info = check(conf);
  EXPECT_EQ(info.exit_code, 0) << describe(info);
  EXPECT_EQ(info.out, "pnmpi-info: " + conf + ": ok (6 module(s), 1 stack(s))\n");
  EXPECT_EQ(info.err, "");
  const RunResult r = job(conf);
  EXPECT_EQ(r.exit_code, 0) << describe(r);
}

// A module whose constructor calls MPI (issue 26 item 11): the job stops naming the module,
// its line and its file, on every MPI.
TEST(Constructor, AModuleConstructorThatCallsMpiIsNamed) {
  const std::string conf = test_conf_file("module ctor_mpi\n");
  MpiJob j;
  j.program = {TOOLS_TEST_APP};
  j.env["PNMPI_LIB_PATH"] = TOOLS_TEST_MODULE_DIR;
  j.env["PNMPI_CONF"] = conf;
  const RunResult r = run_mpi(j);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(lines_with(r.err, "pnmpi: " + conf + ":1: module 'ctor_mpi' (" +
                                     TOOLS_TEST_MODULE_DIR +
                                     "/ctor_mpi.so): code that runs while the module is opened "
                                     "(a constructor, or a static object's) called "
                                     "MPI_Comm_rank, before pnmpi has bound the layers and "
                                     "before MPI is initialised; call MPI from the module's "
                                     "MPI_Init wrapper (after PMPI_Init) or later")
                   .empty())
      << describe(r);
}

// Two copies of pnmpi in one process (issue 26 item 11): a program linked with libpnmpi.a and
// libpnmpi.so preloaded is told so, both files named, not blamed on a direct PMPI_Init.
TEST(TwoCopies, BothFilesAreNamed) {
  MpiJob j;
  j.program = {TOOLS_TEST_STATIC_APP};
  j.preload = TOOLS_TEST_LIBPNMPI;
  j.env["PNMPI_LIB_PATH"] = PNMPI_MODULE_BUILD_DIR;
  j.env["PNMPI_CONF"] = test_conf_file("module delay\n");
  const RunResult r = run_mpi(j);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(lines_with(r.err, std::string("pnmpi: two copies of pnmpi are loaded in this "
                                             "process: ") +
                                     TOOLS_TEST_STATIC_APP + " and " + TOOLS_TEST_LIBPNMPI +
                                     " (a program linked with one")
                   .empty())
      << describe(r);
  EXPECT_TRUE(lines_with(r.err, "called PMPI_Init directly").empty()) << describe(r);
}

} // namespace
