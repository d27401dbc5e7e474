// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// libpnmpi_support's helpers of site mode (support/src/day_directory.cpp).
#include <pnmpi/support.h>

#include <gtest/gtest.h>

#include <string>

namespace {

std::string day(const char *logdir, int64_t when) {
  char out[256];
  const size_t n = pnmpi_day_directory(logdir, when, out, sizeof out);
  EXPECT_EQ(n, std::string(out).size());
  return out;
}

TEST(SupportSite, DayDirectoryInUtcWithoutLeadingZeros) {
  EXPECT_EQ(day("/var/log/pnmpi", 0), "/var/log/pnmpi/1970/1/1");
  // 2026-11-28 23:59:59 UTC, and one second later.
  EXPECT_EQ(day("/l", 1795910399), "/l/2026/11/28");
  EXPECT_EQ(day("/l", 1795910400), "/l/2026/11/29");
  EXPECT_EQ(day("/l", 1772323200), "/l/2026/3/1"); // 2026-03-01 00:00:00
}

TEST(SupportSite, DayDirectoryTruncatesAsSnprintf) {
  char out[8];
  EXPECT_EQ(pnmpi_day_directory("/var/log/pnmpi", 0, out, sizeof out),
            std::string("/var/log/pnmpi/1970/1/1").size());
  EXPECT_EQ(std::string(out), "/var/lo");
}

} // namespace
