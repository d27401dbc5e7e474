// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <map>
#include <string>
#include <vector>

namespace pnmpi::test {

struct RunResult {
  int exit_code = -1; ///< the exit status, or 128+signal; -1 if it timed out
  bool timed_out = false;
  std::string out;
  std::string err;                   ///< the launcher's, then each rank's in rank order
  std::vector<std::string> rank_err; ///< each rank's own stderr, with MpiJob::stderr_per_rank
};

/// Runs `argv` with `env` added to this process's environment, in its own process group,
/// killing the group after `timeout_s` seconds. Never hangs.
RunResult run(const std::vector<std::string> &argv, const std::map<std::string, std::string> &env,
              int timeout_s);

/// How to launch an MPI job with the MPI this tree was built for.
struct MpiJob {
  int ranks = 2;
  std::map<std::string, std::string> env;
  std::string preload; ///< LD_PRELOAD for the ranks only, not the launcher
  std::vector<std::string> program;
  int timeout_s = 120;
  /// Sends each rank's stderr to a file of its own and returns them in rank_err (and, in
  /// rank order, in err): the launcher's forwarding may cut one rank's line with another's
  /// output, which would make counting lines flaky.
  bool stderr_per_rank = true;
  /// Lets pnmpi print its start-up banner on rank 0. Every other job runs with
  /// PNMPI_BE_SILENT=1, so that tests comparing the program's output see only that.
  bool banner = false;
};

RunResult run_mpi(const MpiJob &job);

/// Writes `text` to a fresh file in the tests' scratch directory and returns its path.
std::string write_temp_file(const std::string &name, const std::string &text);

/// The running test's `Suite.Name`, with '/' of parameterised names made '_': unique across
/// the tree, so that scratch files of tests running in parallel never collide.
std::string test_name();

/// Writes `text` to `<test_name()>.conf` in the scratch directory and returns its path.
std::string test_conf_file(const std::string &text);

/// The lines of `text` that contain `needle`.
std::vector<std::string> lines_with(const std::string &text, const std::string &needle);

/// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting_with(const std::string &text, const std::string &prefix);

/// `lines`, each ended by a newline: one text to compare, so a failure shows a diff.
std::string joined_lines(const std::vector<std::string> &lines);

/// Everything a failed assertion should show about a run.
std::string describe(const RunResult &r);

} // namespace pnmpi::test
