// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The monitor through MPI_T, under real mpirun jobs: the monitoring paper's Figure 1, every
// pvar call with exact values and error codes (checked inside mpit_app, which prints what
// failed), the MPI's own variables beside ours, and Open MPI's binary ompi_monitoring_prof.so
// stacked above the monitor, whose matrices must equal the monitor's gathered ones.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "monitor_files.h"
#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

namespace fs = std::filesystem;

std::string scratch(const std::string &tag) {
  const fs::path dir = fs::path(PNMPI_TEST_SCRATCH_DIR) / "monitor" / (test_name() + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

/// Runs mpit_app `mode` on `ranks` ranks in `dir`, under `stack_above` + the monitor.
RunResult run_app(const std::string &mode, int ranks, const std::string &dir,
                  const std::string &stack_above = "") {
  MpiJob job;
  job.ranks = ranks;
  // The tools write into their working directory: each rank starts there.
  job.program = {"/bin/sh", "-c", "cd '" + dir + "' && exec '" + MPIT_APP + "' " + mode};
  job.env["PNMPI_LIB_PATH"] = std::string(MONITOR_TEST_MODULE_DIR) + ":" + PNMPI_MODULE_BUILD_DIR;
  job.env["PNMPI_CONF"] = write_temp_file(test_name() + "." + std::to_string(ranks) + ".conf",
                                          stack_above + "module monitor\nargument output " + dir +
                                              "/mon\nargument summary off\n");
  job.timeout_s = 120;
  return run_mpi(job);
}

void expect_all_ranks_ok(const RunResult &r, const std::string &mode, int ranks) {
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(joined_lines(lines_starting_with(r.out, "FAIL")), "") << describe(r);
  for (int rank = 0; rank < ranks; ++rank)
    EXPECT_EQ(lines_with(r.out, mode + ": rank " + std::to_string(rank) + " ok").size(), 1u)
        << describe(r);
}

TEST(MonitorMpit, PaperFigureOnePrintsExactCounts) {
  for (int n : {2, 4}) {
    const RunResult r = run_app("figure1", n, scratch(std::to_string(n)));
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    for (int rank = 0; rank < n; ++rank) {
      std::string sent = "figure1: rank " + std::to_string(rank) + " sent:";
      std::string max = "figure1: rank " + std::to_string(rank) + " max:";
      for (int j = 0; j < n; ++j) {
        sent += j == (rank + 1) % n ? " 3" : " 0";
        max += " 3";
      }
      EXPECT_EQ(lines_with(r.out, sent).size(), 1u) << sent << "\n" << describe(r);
      EXPECT_EQ(lines_with(r.out, max).size(), 1u) << max << "\n" << describe(r);
    }
  }
}

TEST(MonitorMpit, EveryCallWindowsSessionsCommunicatorsAndErrorCodes) {
  for (int n : {2, 3, 4})
    expect_all_ranks_ok(run_app("lifecycle", n, scratch(std::to_string(n))), "lifecycle", n);
}

TEST(MonitorMpit, ObjectsThatAreNotLiveCommunicatorsAreInvalidHandles) {
  expect_all_ranks_ok(run_app("badobj", 2, scratch("")), "badobj", 2);
}

TEST(MonitorMpit, TheMpisOwnVariablesStillWork) {
  const RunResult r = run_app("native", 2, scratch(""));
  expect_all_ranks_ok(r, "native", 2);
  // Debian's MPICH has no pvars of its own (it is built without them): its control
  // variables stand in; Open MPI has both.
  const bool mpich = std::string(PNMPI_TEST_MPI_FLAVOR) == "mpich";
  EXPECT_EQ(lines_with(r.out, "native: read pvar ").size(), mpich ? 0u : 1u) << describe(r);
  EXPECT_EQ(lines_with(r.out, "native: the MPI has no pvars of its own").size(), mpich ? 1u : 0u)
      << describe(r);
  EXPECT_EQ(lines_with(r.out, "native: read cvar ").size(), 1u) << describe(r);
}

// ---- ompi_monitoring_prof.so --------------------------------------------------------------

using Dense = std::vector<std::vector<std::uint64_t>>;

Dense dense(const Matrix &m, int n, bool bytes) {
  Dense d(static_cast<std::size_t>(n), std::vector<std::uint64_t>(static_cast<std::size_t>(n)));
  for (const auto &[key, cell] : m)
    d[static_cast<std::size_t>(key.first)][static_cast<std::size_t>(key.second)] =
        bytes ? cell.bytes : cell.count;
  return d;
}

Dense read_mat(const std::string &path) {
  Dense d;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream row(line);
    d.emplace_back();
    for (std::uint64_t v; row >> v;)
      d.back().push_back(v);
  }
  return d;
}

/// The tool's twelve matrices computed from the monitor's gathered ones: each pair's
/// values halved as (a_ij + a_ji) / 2 (one-sided: sent and fetched together), averages per
/// message, the `all` matrices the sums, as the tool documents them.
std::map<std::string, Dense> expected_prof(const Json &doc, int n) {
  const auto N = static_cast<std::size_t>(n);
  const Dense zero(N, std::vector<std::uint64_t>(N));
  std::map<std::string, Dense> out;
  auto sym = [&](const Dense &a, const Dense *b) {
    Dense s = a; // the diagonal stays as gathered
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = i + 1; j < N; ++j)
        s[i][j] = s[j][i] = (a[i][j] + a[j][i] + (b ? (*b)[i][j] + (*b)[j][i] : 0)) / 2;
    return s;
  };
  auto avg = [&](const Dense &size, const Dense &count) {
    Dense a = zero;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j)
        if (i != j && count[i][j] != 0)
          a[i][j] = size[i][j] / count[i][j];
    return a;
  };
  const Dense pml_n = sym(dense(json_matrix(doc, "p2p"), n, false), nullptr);
  const Dense pml_b = sym(dense(json_matrix(doc, "p2p"), n, true), nullptr);
  const Dense coll_n = sym(dense(json_matrix(doc, "coll"), n, false), nullptr);
  const Dense coll_b = sym(dense(json_matrix(doc, "coll"), n, true), nullptr);
  const Dense fetched_n = dense(json_matrix(doc, "osc_fetched"), n, false);
  const Dense fetched_b = dense(json_matrix(doc, "osc_fetched"), n, true);
  const Dense osc_n = sym(dense(json_matrix(doc, "osc_sent"), n, false), &fetched_n);
  const Dense osc_b = sym(dense(json_matrix(doc, "osc_sent"), n, true), &fetched_b);
  Dense all_n = zero, all_b = zero;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < N; ++j)
      if (i != j) {
        all_n[i][j] = pml_n[i][j] + coll_n[i][j] + osc_n[i][j];
        all_b[i][j] = pml_b[i][j] + coll_b[i][j] + osc_b[i][j];
      }
  out["pml_msg"] = pml_n;
  out["pml_size"] = pml_b;
  out["pml_avg"] = avg(pml_b, pml_n);
  out["coll_msg"] = coll_n;
  out["coll_size"] = coll_b;
  out["coll_avg"] = avg(coll_b, coll_n);
  out["osc_msg"] = osc_n;
  out["osc_size"] = osc_b;
  out["osc_avg"] = avg(osc_b, osc_n);
  out["all_msg"] = all_n;
  out["all_size"] = all_b;
  out["all_avg"] = avg(all_b, all_n);
  return out;
}

std::string show(const Dense &d) {
  std::string s;
  for (const auto &row : d) {
    for (std::uint64_t v : row)
      s += std::to_string(v) + " ";
    s += "\n";
  }
  return s;
}

TEST(MonitorMpit, OpenMpisMonitoringProfWritesTheMonitorsMatrices) {
  if (std::string(MONITOR_PROF_MODULE).empty())
    GTEST_SKIP() << "no ompi_monitoring_prof.so (Open MPI builds on Debian only)";
  for (int n : {2, 4}) {
    const std::string dir = scratch(std::to_string(n));
    const RunResult r = run_app("mix", n, dir, "module " + std::string(MONITOR_PROF_MODULE) + "\n");
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    Json doc;
    std::string error;
    ASSERT_TRUE(parse_json(read_text(dir + "/mon.json"), doc, error)) << error;
    // The traffic is there at all (else equal zero matrices would prove nothing).
    EXPECT_FALSE(json_matrix(doc, "p2p").empty());
    EXPECT_FALSE(json_matrix(doc, "coll").empty());
    EXPECT_FALSE(json_matrix(doc, "osc_sent").empty());
    for (const auto &[name, want] : expected_prof(doc, n)) {
      const std::string path = dir + "/monitoring_" + name + ".mat";
      ASSERT_TRUE(fs::exists(path)) << path << "\n" << describe(r);
      EXPECT_EQ(show(read_mat(path)), show(want)) << n << " ranks, " << path;
    }
  }
}

} // namespace
} // namespace pnmpi::test
