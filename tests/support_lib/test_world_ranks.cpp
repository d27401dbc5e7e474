// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// <pnmpi/world_ranks.h> in a real MPI job (apps/world_ranks_app.cpp, 2 ranks).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "run_mpi.h"

namespace pnmpi::test {
namespace {

TEST(SupportWorldRanks, EveryProcessOfAGroupOrCommunicator) {
  MpiJob job;
  job.ranks = 2;
  job.program = {WORLD_RANKS_APP};
  const RunResult r = run_mpi(job);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  std::vector<std::string> lines = lines_starting_with(r.out, "rank ");
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"rank 0: reversed [1,0] rc 0 fetched [1,0] first "
                                             "[1,77] outside [0,-1] cpp [1,0] self [0] "
                                             "empty [] inter local [0] remote [1]",
                                             "rank 1: reversed [1,0] rc 0 fetched [1,0] first "
                                             "[1,77] outside [0,-1] cpp [1,0] self [1] "
                                             "empty [] inter local [1] remote [0]"}))
      << describe(r);
}

} // namespace
} // namespace pnmpi::test
