// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The delay module in real jobs: every kind of send is delayed once per layer, by the
// argument read through the core's typed reader.

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>

#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

std::string app(const char *name) {
  return std::string(DELAY_TEST_BIN_DIR) + "/" + name;
}

/// Runs `program` on two ranks with the config text `conf` (none if empty).
RunResult run_with(const std::string &conf, std::vector<std::string> program,
                   const std::map<std::string, std::string> &env = {}) {
  MpiJob job;
  job.program = std::move(program);
  job.env = env;
  job.env["PNMPI_LIB_PATH"] = PNMPI_MODULE_BUILD_DIR;
  if (!conf.empty())
    job.env["PNMPI_CONF"] = test_conf_file(conf);
  return run_mpi(job);
}

/// The value of `key=` in a run's output, or -1.
double value_of(const RunResult &r, const std::string &key) {
  std::smatch m;
  const std::regex re(key + "=([0-9.]+)");
  if (!std::regex_search(r.out, m, re))
    return -1;
  return std::stod(m[1]);
}

/// The lines `[delay] rank R delayed N sends` of a run (one per layer and rank).
std::size_t delayed_lines(const RunResult &r, int rank, int sends) {
  return lines_with(r.out, "[delay] rank " + std::to_string(rank) + " delayed " +
                               std::to_string(sends) + " sends")
      .size();
}

TEST(Delay, EachLayerAddsItsDelayToEverySend) {
  // k layers of d microseconds: every send takes at least k*d, and each layer delays each
  // of a rank's 110 sends (10 warm-up, 100 timed) exactly once, which catches a delay applied
  // twice without an upper bound on time (a busy machine stretches every call).
  constexpr int kDelay = 250;
  for (int k : {1, 3}) {
    std::string conf;
    for (int i = 0; i < k; ++i)
      conf += "module delay\nargument delay-us " + std::to_string(kDelay) + "\n";
    const RunResult r = run_with(conf, {app("pingpong_app"), "100"}, {{"PNMPI_DBGLEVEL", "2"}});
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    const double send = value_of(r, "send_min_us");
    EXPECT_GE(send, 0.99 * k * kDelay) << k << " layers\n" << r.out;
    for (int rank = 0; rank < 2; ++rank)
      EXPECT_EQ(delayed_lines(r, rank, 110), static_cast<std::size_t>(k)) << r.out;
  }
}

// Every kind of send is delayed, once: blocking, nonblocking, Sendrecv, persistent at
// MPI_Start and MPI_Startall; a persistent receive is not, even when it reuses the handle
// of a freed persistent send.
//
// Asserted without any upper bound on time (a busy machine stretches every call): each kind
// takes at least the delay (it is delayed), and each rank's count of delayed sends is exactly
// the number of its sends, 6 per iteration (MPI_Send, MPI_Isend, MPI_Sendrecv, MPI_Start and
// MPI_Startall of the persistent send, the MPI_Send of the last loop): none is delayed twice,
// and the persistent receive, which would make it more, never is.
TEST(Delay, DelaysEverySendKindOnce) {
  constexpr int kDelay = 200, kIterations = 30;
  const RunResult r =
      run_with("module delay\nargument delay-us " + std::to_string(kDelay) + "\n",
               {app("delay_app"), std::to_string(kIterations)}, {{"PNMPI_DBGLEVEL", "2"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (const char *kind : {"send", "isend", "sendrecv", "start_send", "startall"}) {
    const double us = value_of(r, std::string(kind) + "_us");
    EXPECT_GE(us, 0.99 * kDelay) << kind << "\n" << r.out;
  }
  ASSERT_GE(value_of(r, "start_recv_us"), 0) << r.out;
  for (int rank = 0; rank < 2; ++rank)
    EXPECT_EQ(lines_with(r.out, "[delay] rank " + std::to_string(rank) + " delayed " +
                                    std::to_string(6 * kIterations) + " sends")
                  .size(),
              1u)
        << "reused=" << value_of(r, "reused") << "\n"
        << r.out;
}

TEST(Delay, RejectsAMalformedDelay) {
  const RunResult r = run_with("module delay\nargument delay-us soon\n", {app("delay_app"), "1"});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(r.timed_out);
  // Read through the core's typed reader: the message names the config file and line.
  EXPECT_FALSE(lines_with(r.err, ".conf:2: module 'delay': argument 'delay-us' must be a whole "
                                 "number from 0 to 60000000, not 'soon'")
                   .empty())
      << r.err;
}

TEST(Delay, AMisspeltArgumentStopsTheJob) {
  const RunResult r = run_with("module delay\nargument delay_us 200000\n", {app("delay_app"), "1"});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(lines_with(r.err, ".conf:2: module 'delay' takes no argument 'delay_us' (it takes "
                                 "delay-us, ranks); check the spelling")
                   .empty())
      << r.err;
}

// `argument ranks` slows the listed world ranks only. Rank 0 prints the shortest time one of
// its sends took and the mean round trip with rank 1: with rank 1 listed, rank 0's sends are
// fast and every round trip carries rank 1's delay; with rank 0 listed, rank 0's sends are slow.
TEST(Delay, SlowsOnlyTheListedRanks) {
  constexpr int kDelay = 300;
  const std::string base = "module delay\nargument delay-us " + std::to_string(kDelay) + "\n";
  // Which rank was slowed is counted (each rank's 60 sends), not timed from above.
  const std::map<std::string, std::string> counted = {{"PNMPI_DBGLEVEL", "2"}};
  const RunResult other =
      run_with(base + "argument ranks 1\n", {app("pingpong_app"), "50"}, counted);
  ASSERT_EQ(other.exit_code, 0) << describe(other);
  EXPECT_EQ(delayed_lines(other, 0, 0), 1u) << other.out;
  EXPECT_EQ(delayed_lines(other, 1, 60), 1u) << other.out;
  EXPECT_GE(value_of(other, "rtt_us"), 0.99 * kDelay) << other.out;
  const RunResult self =
      run_with(base + "argument ranks 2, 0\n", {app("pingpong_app"), "50"}, counted);
  ASSERT_EQ(self.exit_code, 0) << describe(self);
  EXPECT_GE(value_of(self, "send_min_us"), 0.99 * kDelay) << self.out;
  EXPECT_EQ(delayed_lines(self, 0, 60), 1u) << self.out;
  EXPECT_EQ(delayed_lines(self, 1, 0), 1u) << self.out;
  // Rank 2 does not exist in a 2-rank job: said once, not ignored silently.
  EXPECT_EQ(lines_with(self.err, "argument 'ranks' lists rank 2, but the job has 2 ranks").size(),
            1u)
      << self.err;
}

TEST(Delay, RejectsAMalformedRankList) {
  const RunResult r = run_with("module delay\nargument ranks 1,x\n", {app("delay_app"), "1"});
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(r.timed_out);
  // Through the core, which names the argument's line.
  EXPECT_FALSE(lines_with(r.err, ":2: module 'delay': argument 'ranks' must be world ranks "
                                 "separated by commas, as 'ranks 1,3', not '1,x'")
                   .empty())
      << r.err;
}

TEST(Delay, TakesAHexadecimalDelay) {
  const RunResult r = run_with("module delay\nargument delay-us 0xc8\n", {app("delay_app"), "10"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_GE(value_of(r, "send_us"), 0.99 * 200) << r.out;
}

} // namespace
} // namespace pnmpi::test
