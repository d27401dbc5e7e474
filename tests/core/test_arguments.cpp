// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The one value parser (values.h) behind the typed argument readers and pnmpi_parse_*, and
// the readers' messages (pnmpi_argument_* print exactly these).

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>

#include "arguments.h"
#include "error.h"
#include "values.h"

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

TEST(ArgumentLong, EdgeCases) {
  long v = 7;
  // The extremes themselves, in both bases; one past them overflows.
  EXPECT_EQ(parse_long("9223372036854775807", LONG_MIN, LONG_MAX, v), std::nullopt);
  EXPECT_EQ(v, LONG_MAX);
  EXPECT_EQ(parse_long("-9223372036854775808", LONG_MIN, LONG_MAX, v), std::nullopt);
  EXPECT_EQ(v, LONG_MIN);
  EXPECT_EQ(parse_long("0x7fffffffffffffff", LONG_MIN, LONG_MAX, v), std::nullopt);
  EXPECT_EQ(v, LONG_MAX);
  EXPECT_EQ(parse_long("0X1F", 0, 100, v), std::nullopt);
  EXPECT_EQ(v, 31);
  EXPECT_EQ(parse_long("+5", 0, 100, v), std::nullopt);
  EXPECT_EQ(v, 5);
  v = 7;
  EXPECT_EQ(parse_long("-9223372036854775809", LONG_MIN, LONG_MAX, v),
            "must be a whole number, not '-9223372036854775809'");
  EXPECT_EQ(parse_long("0x8000000000000000", LONG_MIN, LONG_MAX, v),
            "must be a whole number, not '0x8000000000000000'");
  // Blanks on either side, and junk after the number, are malformed.
  for (const char *bad : {" 5", "\t5", "\n5", "5 ", "5\n", "5x", "0x", "0xg", "-0x10", "- 5", "5k",
                          "1e3", "--5", "+"})
    EXPECT_NE(parse_long(bad, LONG_MIN, LONG_MAX, v), std::nullopt) << bad;
  EXPECT_EQ(v, 7);
  EXPECT_EQ(parse_long("-1", 0, 100, v), "must be a whole number from 0 to 100, not '-1'");
}

TEST(ArgumentValues, ControlCharactersAreEscapedInMessages) {
  long v = 0;
  EXPECT_EQ(parse_long("3\npnmpi: all is well", 0, 9, v),
            "must be a whole number from 0 to 9, not '3\\npnmpi: all is well'");
  EXPECT_EQ(quoted_value("a\tb\\c\x01\x7f\r"), "'a\\tb\\\\c\\x01\\x7f\\x0d'");
  EXPECT_EQ(quoted_value("h\xc3\xa9 /x y"), "'h\xc3\xa9 /x y'"); // UTF-8 and blanks as they are
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
  for (const char *bad : {"", " 1", "1 ", "1e999", "-1e999", "0.5x", "1,5", "infinity"})
    EXPECT_NE(parse_double(bad, -HUGE_VAL, HUGE_VAL, v), std::nullopt) << bad;
  EXPECT_EQ(v, 3);
  EXPECT_EQ(parse_double("-1e-3", -1, 1, v), std::nullopt);
  EXPECT_EQ(v, -0.001);
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
  for (const char *bad : {"", "TRUE", " on", "on ", "2", "y", "enabled"})
    EXPECT_NE(parse_bool(bad, v), std::nullopt) << bad;
  EXPECT_TRUE(v);
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

const std::vector<FlagWord> kRecord = {
    {"p2p", 1}, {"coll", 2}, {"osc", 4}, {"all", 7}, {"none", 0}};

TEST(ArgumentFlags, ListsOfWords) {
  unsigned v = 99;
  EXPECT_EQ(parse_flags("p2p", kRecord, v), std::nullopt);
  EXPECT_EQ(v, 1u);
  EXPECT_EQ(parse_flags("osc,p2p", kRecord, v), std::nullopt);
  EXPECT_EQ(v, 5u);
  EXPECT_EQ(parse_flags(" p2p ,\tcoll ", kRecord, v), std::nullopt); // blanks around items
  EXPECT_EQ(v, 3u);
  EXPECT_EQ(parse_flags("p2p,p2p", kRecord, v), std::nullopt);
  EXPECT_EQ(v, 1u);
  EXPECT_EQ(parse_flags("all,coll", kRecord, v), std::nullopt);
  EXPECT_EQ(v, 7u);
  EXPECT_EQ(parse_flags("none", kRecord, v), std::nullopt);
  EXPECT_EQ(v, 0u);
}

TEST(ArgumentFlags, RejectsWithTheWords) {
  unsigned v = 99;
  const std::string expected =
      "must be a comma-separated list of 'p2p', 'coll', 'osc' or 'all', or 'none', not ";
  EXPECT_EQ(parse_flags("p2p,bogus", kRecord, v), expected + "'p2p,bogus'");
  // A word worth 0 stands alone; empty lists and items, other cases and inner blanks are
  // malformed.
  for (const char *bad :
       {"none,p2p", "none,none", "", " ", "p2p,", ",p2p", "p2p,,coll", "P2P", "p 2p", "p2p;coll"})
    EXPECT_EQ(parse_flags(bad, kRecord, v), expected + quoted_value(bad)) << bad;
  EXPECT_EQ(v, 99u);
  EXPECT_EQ(parse_flags("x", {{"a", 1}, {"b", 2}}, v),
            "must be a comma-separated list of 'a' or 'b', not 'x'");
  EXPECT_EQ(parse_flags("x", {{"off", 0}}, v), "must be 'off', not 'x'");
}

TEST(ArgumentString, EmptyOnlyWhenAllowed) {
  EXPECT_EQ(parse_string("", false), std::nullopt);
  EXPECT_EQ(parse_string("", true), "must not be empty");
  EXPECT_EQ(parse_string(" ", true), std::nullopt);
}

// The C entries for values from elsewhere: the same parser, the problem copied as
// snprintf copies, nothing stored on failure.
TEST(ParseEntries, SameParserAndMessage) {
  char problem[128] = "stale";
  long l = 0;
  EXPECT_EQ(pnmpi_parse_long("42", 0, 100, &l, problem, sizeof problem), PNMPI_SUCCESS);
  EXPECT_EQ(l, 42);
  EXPECT_STREQ(problem, "");
  EXPECT_EQ(pnmpi_parse_long("4x", 0, 100, &l, problem, sizeof problem), PNMPI_BADARG);
  EXPECT_STREQ(problem, "must be a whole number from 0 to 100, not '4x'");
  EXPECT_EQ(l, 42);
  char small[10];
  EXPECT_EQ(pnmpi_parse_long("4x", 0, 100, &l, small, sizeof small), PNMPI_BADARG);
  EXPECT_STREQ(small, "must be a");
  EXPECT_EQ(pnmpi_parse_long("4x", 0, 100, &l, nullptr, 0), PNMPI_BADARG);
  EXPECT_EQ(pnmpi_parse_long(nullptr, 0, 100, &l, problem, sizeof problem), PNMPI_BADARG);
  EXPECT_STREQ(problem, "");

  double d = 0;
  EXPECT_EQ(pnmpi_parse_double("0.5", 0, 1, &d, problem, sizeof problem), PNMPI_SUCCESS);
  EXPECT_EQ(d, 0.5);
  EXPECT_EQ(pnmpi_parse_double("2", 0, 1, &d, problem, sizeof problem), PNMPI_BADARG);
  EXPECT_STREQ(problem, "must be a number from 0 to 1, not '2'");

  int b = -1;
  EXPECT_EQ(pnmpi_parse_bool("yes", &b, problem, sizeof problem), PNMPI_SUCCESS);
  EXPECT_EQ(b, 1);
  EXPECT_EQ(pnmpi_parse_bool("maybe", &b, problem, sizeof problem), PNMPI_BADARG);
  EXPECT_EQ(b, 1);

  const char *const modes[] = {"fast", "exact", nullptr};
  int index = -1;
  EXPECT_EQ(pnmpi_parse_choice("exact", modes, &index, problem, sizeof problem), PNMPI_SUCCESS);
  EXPECT_EQ(index, 1);
  EXPECT_EQ(pnmpi_parse_choice("slow", modes, &index, problem, sizeof problem), PNMPI_BADARG);
  EXPECT_STREQ(problem, "must be one of 'fast' or 'exact', not 'slow'");
  const char *const no_modes[] = {nullptr};
  EXPECT_EQ(pnmpi_parse_choice("fast", no_modes, &index, problem, sizeof problem), PNMPI_BADARG);

  const pnmpi_flag_t words[] = {{"p2p", 1}, {"coll", 2}, {"none", 0}, {nullptr, 0}};
  unsigned flags = 9;
  EXPECT_EQ(pnmpi_parse_flags("coll, p2p", words, &flags, problem, sizeof problem), PNMPI_SUCCESS);
  EXPECT_EQ(flags, 3u);
  EXPECT_EQ(pnmpi_parse_flags("coll,none", words, &flags, problem, sizeof problem), PNMPI_BADARG);
  EXPECT_STREQ(problem,
               "must be a comma-separated list of 'p2p' or 'coll', or 'none', not 'coll,none'");
  EXPECT_EQ(flags, 3u);
  EXPECT_EQ(pnmpi_parse_flags("p2p", nullptr, &flags, problem, sizeof problem), PNMPI_BADARG);

  const char *text = nullptr;
  EXPECT_EQ(pnmpi_parse_string("", PNMPI_ARG_OPTIONAL, &text, problem, sizeof problem),
            PNMPI_SUCCESS);
  EXPECT_STREQ(text, "");
  text = nullptr;
  EXPECT_EQ(pnmpi_parse_string("", PNMPI_ARG_NONEMPTY, &text, problem, sizeof problem),
            PNMPI_BADARG);
  EXPECT_STREQ(problem, "must not be empty");
  EXPECT_EQ(text, nullptr);
}

TEST(ErrorPrefix, FileLineAndModule) {
  EXPECT_EQ(where("my.conf", 3), "my.conf:3");
  EXPECT_EQ(where("/a b/c.conf", 12, "monitor"), "/a b/c.conf:12: module 'monitor'");
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
