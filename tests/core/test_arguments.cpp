// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The typed argument readers' parsing and messages (pnmpi_argument_* print exactly these).

#include <gtest/gtest.h>

#include <climits>
#include <cmath>

#include "arguments.h"

namespace pnmpi {
namespace {

TEST(ArgumentLong, AcceptsWholeNumbersInRange) {
  long v = -1;
  EXPECT_EQ(parse_long("42", 0, 100, v), std::nullopt);
  EXPECT_EQ(v, 42);
  EXPECT_EQ(parse_long("-5", -10, 10, v), std::nullopt);
  EXPECT_EQ(v, -5);
  EXPECT_EQ(parse_long("0x10", 0, 100, v), std::nullopt);
  EXPECT_EQ(v, 16);
  EXPECT_EQ(parse_long("010", 0, 100, v), std::nullopt); // decimal, not octal
  EXPECT_EQ(v, 10);
  EXPECT_EQ(parse_long("100", 0, 100, v), std::nullopt);
}

TEST(ArgumentLong, RejectsWithTheRange) {
  long v = 7;
  EXPECT_EQ(parse_long("soon", 0, 60000000, v),
            "must be a whole number from 0 to 60000000, not 'soon'");
  EXPECT_EQ(parse_long("101", 0, 100, v), "must be a whole number from 0 to 100, not '101'");
  EXPECT_EQ(parse_long("1.5", 0, 100, v), "must be a whole number from 0 to 100, not '1.5'");
  EXPECT_EQ(parse_long("12abc", 0, 100, v), "must be a whole number from 0 to 100, not '12abc'");
  EXPECT_EQ(parse_long("", 0, 100, v), "must be a whole number from 0 to 100, not ''");
  EXPECT_EQ(parse_long("99999999999999999999", LONG_MIN, LONG_MAX, v),
            "must be a whole number, not '99999999999999999999'");
  EXPECT_EQ(v, 7) << "untouched on error";
}

TEST(ArgumentDouble, AcceptsFiniteNumbersInRange) {
  double v = -1;
  EXPECT_EQ(parse_double("0.25", 0, 1, v), std::nullopt);
  EXPECT_EQ(v, 0.25);
  EXPECT_EQ(parse_double("1e-3", 0, 1, v), std::nullopt);
  EXPECT_EQ(v, 0.001);
}

TEST(ArgumentDouble, RejectsWithTheRange) {
  double v = 3;
  EXPECT_EQ(parse_double("1.5", 0, 1, v), "must be a number from 0 to 1, not '1.5'");
  EXPECT_EQ(parse_double("half", 0, 0.5, v), "must be a number from 0 to 0.5, not 'half'");
  EXPECT_EQ(parse_double("nan", -HUGE_VAL, HUGE_VAL, v), "must be a number, not 'nan'");
  EXPECT_EQ(parse_double("inf", -HUGE_VAL, HUGE_VAL, v), "must be a number, not 'inf'");
  EXPECT_EQ(v, 3);
}

TEST(ArgumentBool, EveryAcceptedSpelling) {
  for (const char *yes : {"on", "yes", "true", "1"}) {
    bool v = false;
    EXPECT_EQ(parse_bool(yes, v), std::nullopt) << yes;
    EXPECT_TRUE(v) << yes;
  }
  for (const char *no : {"off", "no", "false", "0"}) {
    bool v = true;
    EXPECT_EQ(parse_bool(no, v), std::nullopt) << no;
    EXPECT_FALSE(v) << no;
  }
  bool v = true;
  EXPECT_EQ(parse_bool("On", v), "must be 'on' or 'off' (or yes/no, true/false, 1/0), not 'On'");
}

TEST(ArgumentChoice, IndexOrTheList) {
  int v = -1;
  EXPECT_EQ(parse_choice("exact", {"fast", "exact"}, v), std::nullopt);
  EXPECT_EQ(v, 1);
  EXPECT_EQ(parse_choice("slow", {"fast", "exact"}, v),
            "must be one of 'fast' or 'exact', not 'slow'");
  EXPECT_EQ(parse_choice("x", {"a", "b", "c"}, v), "must be one of 'a', 'b' or 'c', not 'x'");
  EXPECT_EQ(parse_choice("x", {"a"}, v), "must be 'a', not 'x'");
  EXPECT_EQ(v, 1);
}

TEST(ArgumentMessages, NameFileLineModuleAndKey) {
  const Config c = parse_config("module delay\n\nargument delay-us soon\n", "my.conf");
  const ModuleSpec &m = c.modules[0];
  EXPECT_EQ(argument_message(c, m, *m.find_argument("delay-us"),
                             "must be a whole number from 0 to 60000000, not 'soon'"),
            "my.conf:3: module 'delay': argument 'delay-us' must be a whole number from 0 to "
            "60000000, not 'soon'");
  EXPECT_EQ(missing_argument_message(c, m, "tag"),
            "my.conf:1: module 'delay' needs an argument 'tag': add 'argument tag VALUE' below "
            "this line");
}

} // namespace
} // namespace pnmpi
