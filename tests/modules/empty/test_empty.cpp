// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The template module (modules/empty/empty.c) as a real layer: mpirun -n 2 jobs with the
// build's MPI. Each test checks what the template's opening comment promises.

#include <gtest/gtest.h>

#include <string>

#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

const std::string kLibPath = std::string(PNMPI_TEST_MODULE_DIR) + ":" + PNMPI_MODULE_BUILD_DIR;

/// Runs the send program on 2 ranks under the config text `conf`, written to the test's own
/// file (test_conf_file), whose path the core's messages name.
RunResult run_with(const std::string &conf) {
  MpiJob job;
  job.program = {std::string(PNMPI_TEST_BIN_DIR) + "/empty_send_app"};
  job.env["PNMPI_LIB_PATH"] = kLibPath;
  job.env["PNMPI_CONF"] = test_conf_file(conf);
  return run_mpi(job);
}

std::string conf_path() {
  return std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + test_name() + ".conf";
}

std::string empty_lines(const RunResult &r) {
  return joined_lines(lines_starting_with(r.out, "empty["));
}

TEST(EmptyTemplate, CountsAndForwardsTheApplicationsSends) {
  const RunResult r = run_with("module empty\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(lines_with(r.out, "send_app: rank 1 received 1 2 3").size(), 1u) << r.out;
  // Lines of the two ranks may come in either order: compare each rank's own.
  EXPECT_EQ(joined_lines(lines_starting_with(r.out, "empty[0]")),
            "empty[0]: layer 0: 3 send(s), 3 from the application\n")
      << r.out;
  EXPECT_EQ(joined_lines(lines_starting_with(r.out, "empty[1]")),
            "empty[1]: layer 0: 0 send(s), 0 from the application\n")
      << r.out;
}

TEST(EmptyTemplate, ReadsItsArgument) {
  const RunResult off = run_with("module empty\nargument report off\n");
  ASSERT_EQ(off.exit_code, 0) << describe(off);
  EXPECT_EQ(lines_with(off.out, "send_app: rank 1 received 1 2 3").size(), 1u) << off.out;
  EXPECT_EQ(empty_lines(off), "") << "report off prints nothing";
  const RunResult on = run_with("module empty\nargument report yes\n");
  ASSERT_EQ(on.exit_code, 0) << describe(on);
  EXPECT_EQ(lines_starting_with(on.out, "empty[").size(), 2u) << on.out;
}

TEST(EmptyTemplate, ABadArgumentValueStopsTheJobWithTheCoresMessage) {
  const RunResult r = run_with("module empty\nargument report maybe\n");
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_EQ(lines_with(r.err, "pnmpi: " + conf_path() +
                                  ":2: module 'empty': argument 'report' must be 'on' or 'off' "
                                  "(or yes/no, true/false, 1/0), not 'maybe'")
                .size(),
            2u)
      << describe(r);
  EXPECT_EQ(r.out.find("send_app:"), std::string::npos) << "the application must not run";
}

TEST(EmptyTemplate, AMisspeltKeyIsRefusedFromItsDeclaredArguments) {
  const RunResult r = run_with("module empty\nargument reprot off\n");
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_EQ(lines_with(r.err, "pnmpi: " + conf_path() +
                                  ":2: module 'empty' takes no argument 'reprot' (it takes "
                                  "report); check the spelling")
                .size(),
            2u)
      << describe(r);
}

// A module above sends one message of its own at finalize: the template counts it as a send
// but not as the application's, and the module above reads the count through the service.
// Listed twice, the second copy reaches the first through that copy's handle.
TEST(EmptyTemplate, ItsServiceIsReachableAndItTellsTheOrigin) {
  const RunResult r = run_with("module empty_consumer\nmodule empty\nmodule empty\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(lines_with(r.out, "send_app: rank 1 received 1 2 3").size(), 1u) << r.out;
  EXPECT_EQ(lines_with(r.out, "consumer: empty.sends: Success").size(), 2u) << r.out;
  EXPECT_EQ(joined_lines(lines_starting_with(r.out, "consumer[0]")),
            "consumer[0]: empty.sends says 4 send(s), 3 from the application\n")
      << r.out;
  EXPECT_EQ(joined_lines(lines_starting_with(r.out, "empty[0]")),
            "empty[0]: layer 1: 4 send(s), 3 from the application\n"
            "empty[0]: layer 2: 4 send(s), 3 from the application\n"
            "empty[0]: layer 2: the empty layer above (1) counted 4 send(s)\n")
      << r.out;
  EXPECT_EQ(joined_lines(lines_starting_with(r.out, "empty[1]")),
            "empty[1]: layer 1: 0 send(s), 0 from the application\n"
            "empty[1]: layer 2: 0 send(s), 0 from the application\n"
            "empty[1]: layer 2: the empty layer above (1) counted 0 send(s)\n")
      << r.out;
}

} // namespace
} // namespace pnmpi::test
