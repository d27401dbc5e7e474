// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// MPI_M_reorder (the report's Figure 1 with pnmpi's mapping library) in C and Fortran, and
// the sessions API's Fortran binding, in real mpirun jobs under the monitor.

#include <gtest/gtest.h>

#include <string>

#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

RunResult run_monitored(const std::vector<std::string> &program) {
  MpiJob job;
  job.ranks = 4;
  job.program = program;
  job.env["PNMPI_LIB_PATH"] = PNMPI_MODULE_BUILD_DIR;
  job.env["PNMPI_CONF"] =
      test_conf_file("module monitor\nargument files none\nargument summary off\n");
  return run_mpi(job);
}

std::string bin(const char *name) {
  return std::string(MAPPING_TEST_BIN_DIR) + "/" + name;
}

TEST(MappingReorder, CallMapsTheSessionOntoTheHosts) {
  const RunResult r = run_monitored({bin("mapping_reorder_app")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(joined_lines(lines_starting_with(r.out, "reorder_app:")),
            "reorder_app: active session: rc -5, new ranks -1 -1 -1 -1\n"
            "reorder_app: unknown session: rc -6, new ranks -1 -1 -1 -1\n"
            "reorder_app: communicator of another size: rc -11, new ranks -1 -1 -1 -1\n"
            "reorder_app: a negative host: rc -11, new ranks -1 -1 -1 -1\n"
            "reorder_app: this machine's hosts: rc 0, new ranks 0 1 2 3\n"
            "reorder_app: hosts of 2 consecutive ranks: rc 0, new ranks 0 2 1 3\n"
            "reorder_app: hosts of 2 consecutive ranks: bytes inside hosts 16000, between 160\n"
            "reorder_app: hosts of 2 alternating ranks: rc 0, new ranks 0 1 2 3\n")
      << describe(r);
}

TEST(MappingReorder, ExampleUsesTheCall) {
  const RunResult r = run_monitored({MAPPING_REORDER_EXAMPLE, "--simulate-nodes", "2"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(joined_lines(lines_starting_with(r.out, "reorder:")),
            "reorder: new rank of each rank: 0 2 1 3\n"
            "reorder: bytes inside hosts: before 8%, after 83%\n")
      << describe(r);
}

class MappingFortran : public ::testing::TestWithParam<const char *> {};

TEST_P(MappingFortran, SessionsAndReorder) {
  if (!MAPPING_TEST_FORTRAN)
    GTEST_SKIP() << "no Fortran compiler in this build";
  const RunResult r = run_monitored({bin(GetParam())});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(joined_lines(lines_starting_with(r.out, "sessions_fortran:")),
            "sessions_fortran: init 0\n"
            "sessions_fortran: start 0\n"
            "sessions_fortran: suspend 0\n"
            "sessions_fortran: suspend again -8\n"
            "sessions_fortran: get_info 0 size 4\n"
            "sessions_fortran: get_data 0 0 0 4000 0\n"
            "sessions_fortran: allgather_data 0 0 0 4000 0 0 0 0 4000 4000 0 0 0 0 4000 0 0\n"
            "sessions_fortran: rootgather_data 0 0 0 4000 0 0 0 0 4000 4000 0 0 0 0 4000 0 0\n"
            "sessions_fortran: reorder_hosts 0\n"
            "sessions_fortran: new ranks 0 2 1 3\n"
            "sessions_fortran: reorder 0\n"
            "sessions_fortran: new ranks on this machine 0 1 2 3\n"
            "sessions_fortran: reset 0\n"
            "sessions_fortran: continue 0\n"
            "sessions_fortran: free active -5\n"
            "sessions_fortran: free 0\n"
            "sessions_fortran: suspend freed -6\n"
            "sessions_fortran: finalize 0\n")
      << describe(r);
}

INSTANTIATE_TEST_SUITE_P(Interfaces, MappingFortran,
                         ::testing::Values("mapping_sessions_mpif_h", "mapping_sessions_use_mpi"));

} // namespace
} // namespace pnmpi::test
