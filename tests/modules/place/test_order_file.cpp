// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The order files of `argument order FILE` (Cray's MPICH_RANK_ORDER format): what they
// mean, and the exact problem for every way one can be wrong.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "order_file.h"

namespace {

struct Parsed {
  int failed = 0;
  std::vector<int> order;
  int line = -1;
  std::string problem;
};

Parsed parse(const std::string &text, int size) {
  Parsed p;
  p.order.assign(static_cast<std::size_t>(size), -1);
  char problem[1024] = "";
  p.failed = place_parse_order(text.data(), text.size(), size, p.order.data(), &p.line, problem,
                               sizeof problem);
  p.problem = problem;
  return p;
}

TEST(PlaceOrderFile, ListsRanksInSlotOrder) {
  EXPECT_EQ(parse("2,0,3,1", 4).order, (std::vector<int>{2, 0, 3, 1}));
  EXPECT_EQ(parse("0-3", 4).order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(parse("3-0", 4).order, (std::vector<int>{3, 2, 1, 0}));
  // Ranges mixed with ranks, over lines, comments, blanks and empty items.
  EXPECT_EQ(parse("# from CrayPat\n4-5,0 # first node\n\n 1 ,, 2\r\n3\n", 6).order,
            (std::vector<int>{4, 5, 0, 1, 2, 3}));
  EXPECT_EQ(parse("7", 1).failed, 1);
  EXPECT_EQ(parse("0", 1).order, (std::vector<int>{0}));
}

TEST(PlaceOrderFile, SaysWhatIsWrongAndWhere) {
  Parsed p = parse("0,1\n2,x7\n3", 4);
  EXPECT_EQ(p.failed, 1);
  EXPECT_EQ(p.line, 2);
  EXPECT_EQ(p.problem, "'x7' is not a rank or a range of ranks: write ranks as 5 or 0-3, "
                       "separated by commas");
  p = parse("0,1,-2,3", 4);
  EXPECT_EQ(p.line, 1);
  EXPECT_EQ(p.problem, "'-2' is not a rank or a range of ranks: write ranks as 5 or 0-3, "
                       "separated by commas");
  p = parse("0,1\n\n3,1\n2", 4);
  EXPECT_EQ(p.line, 3);
  EXPECT_EQ(p.problem, "rank 1 is listed twice (first on line 1): list each rank once");
  p = parse("0-2\n1", 4);
  EXPECT_EQ(p.line, 2);
  EXPECT_EQ(p.problem, "rank 1 is listed twice (first on line 1): list each rank once");
  p = parse("0,1,2,3,4", 4);
  EXPECT_EQ(p.line, 1);
  EXPECT_EQ(p.problem, "rank 4 is out of range: this job has 4 ranks (0 to 3); the order is for "
                       "another number of ranks: write one for 4 ranks, or run the job with as "
                       "many ranks as the order lists");
  p = parse("0-99999999999", 4);
  EXPECT_EQ(p.problem, "'0-99999999999' is not a rank or a range of ranks: write ranks as 5 or "
                       "0-3, separated by commas");
  p = parse("0,2,3", 4);
  EXPECT_EQ(p.line, 0);
  EXPECT_EQ(p.problem, "lists 3 of this job's 4 ranks (rank 1 is missing): list every rank "
                       "from 0 to 3 once, or run the job with as many ranks as the order lists");
  p = parse("# nothing\n", 4);
  EXPECT_EQ(p.line, 0);
  EXPECT_EQ(p.problem, "lists no rank: list this job's 4 ranks (0 to 3) in the order of the "
                       "launch slots, separated by commas");
  // Bytes a terminal would interpret are escaped; long tokens are cut.
  p = parse("0,\x1b[2J", 4);
  EXPECT_EQ(p.problem, "'\\x1b[2J' is not a rank or a range of ranks: write ranks as 5 or 0-3, "
                       "separated by commas");
  p = parse(std::string(100, 'a'), 4);
  EXPECT_EQ(p.problem, "'" + std::string(40, 'a') +
                           "...' is not a rank or a range of ranks: write ranks as 5 or 0-3, "
                           "separated by commas");
}

TEST(PlaceOrderFile, AHugeRangeCostsNothing) {
  // A range is checked against the job's size before it is expanded.
  Parsed p = parse("0-2000000000", 4);
  EXPECT_EQ(p.line, 1);
  EXPECT_EQ(p.problem.rfind("rank 2000000000 is out of range", 0), 0u) << p.problem;
}

} // namespace
