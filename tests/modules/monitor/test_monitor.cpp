// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The monitor end to end: real mpirun jobs of known communication patterns, whose per-rank
// files and gathered matrices must hold exactly the traffic the pattern implies; Open MPI's
// own monitoring as an oracle; sessions; threads; a tool stacked above the monitor.

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numeric>
#include <regex>
#include <set>
#include <string>
#include <unistd.h>

#include "monitor_files.h"
#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

namespace fs = std::filesystem;

constexpr int N = 4; // ranks of most patterns

std::string bin(const char *name) {
  return std::string(MONITOR_TEST_BIN_DIR) + "/" + name;
}

/// This test's scratch directory.
std::string scratch_path() {
  return (fs::path(PNMPI_TEST_SCRATCH_DIR) / "monitor" / test_name()).string();
}

/// A fresh scratch directory for this test.
std::string scratch() {
  const fs::path dir = scratch_path();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

struct Monitored {
  RunResult result;
  std::string dir;
  ProfSet prof;
  Json json;
  std::string json_error;
  int mpi_version = 0;
};

/// Runs `program` under `conf` (the monitor's lines get `argument output DIR/mon`), then
/// reads what the monitor wrote. `prepare` can put files in DIR before the run.
Monitored run_monitored(std::vector<std::string> program, const std::string &stack_above = "",
                        const std::string &monitor_args = "", int ranks = N,
                        std::map<std::string, std::string> env = {},
                        const std::function<void(const std::string &dir)> &prepare = {},
                        int timeout_s = 120) {
  Monitored run;
  run.dir = scratch();
  if (prepare)
    prepare(run.dir);
  const std::string conf =
      stack_above + "module monitor\nargument output " + run.dir + "/mon\n" + monitor_args;
  MpiJob job;
  job.ranks = ranks;
  job.program = std::move(program);
  job.env = std::move(env);
  job.env["PNMPI_LIB_PATH"] = std::string(MONITOR_TEST_MODULE_DIR) + ":" + PNMPI_MODULE_BUILD_DIR;
  job.env["PNMPI_CONF"] = write_temp_file(test_name() + ".conf", conf);
  job.timeout_s = timeout_s;
  run.result = run_mpi(job);
  run.prof = read_prof_set(run.dir + "/mon", ranks);
  const std::string text = read_text(run.dir + "/mon.json");
  if (!text.empty())
    parse_json(text, run.json, run.json_error);
  else
    run.json_error = "no " + run.dir + "/mon.json";
  std::smatch m;
  static const std::regex version("mpi-version ([0-9]+)");
  if (std::regex_search(run.result.out, m, version))
    run.mpi_version = std::stoi(m[1]);
  return run;
}

Monitored run_pattern(const std::string &pattern, const std::string &monitor_args = "") {
  return run_monitored({bin("monitor_patterns"), pattern}, "", monitor_args);
}

int next(int r, int k) {
  return (r + k) % N;
}

/// floor(log2) by repeated halving, independent of the module's bit trick.
unsigned bin_of(std::uint64_t bytes) {
  if (bytes == 0)
    return 0;
  unsigned k = 0;
  while (bytes >>= 1)
    ++k;
  return k + 1;
}

/// What a pattern must produce, per output category.
struct Expected {
  Matrix E, I, S, R, C, coll_tool, osc_sent_tool, osc_fetched_tool;
  std::map<std::pair<int, int>, std::map<unsigned, std::uint64_t>> hist_E, hist_I;
  /// world rank -> MPI_COMM_WORLD's O2A, A2O, A2A
  std::map<int, std::array<Cell, 3>> world;

  void p2p(int from, int to, std::uint64_t bytes, std::uint64_t n = 1) {
    add(E, from, to, bytes, n);
    hist_E[{from, to}][bin_of(bytes)] += n;
  }
  void cls(int rank, int c, std::uint64_t bytes, std::uint64_t n = 1) {
    world[rank][c].count += n;
    world[rank][c].bytes += bytes * n;
  }
};

std::string
histogram_diff(const ProfSet &prof, const std::string &type,
               const std::map<std::pair<int, int>, std::map<unsigned, std::uint64_t>> &want) {
  std::string out;
  for (const auto &[key, bins] : want) {
    auto it = prof.histograms.find({type, key.first, key.second});
    if (it == prof.histograms.end()) {
      out += type + " " + std::to_string(key.first) + "->" + std::to_string(key.second) +
             ": no histogram\n";
      continue;
    }
    if (it->second.size() != 66)
      out += "histogram of " + std::to_string(it->second.size()) + " bins\n";
    for (std::size_t b = 0; b < it->second.size(); ++b) {
      auto w = bins.find(static_cast<unsigned>(b));
      const std::uint64_t expected = w == bins.end() ? 0 : w->second;
      if (it->second[b] != expected)
        out += type + " " + std::to_string(key.first) + "->" + std::to_string(key.second) +
               " bin " + std::to_string(b) + ": " + std::to_string(it->second[b]) + ", expected " +
               std::to_string(expected) + "\n";
    }
  }
  return out;
}

/// The block of `comm_name` (or, with procs, of the first other communicator with those
/// procs) in rank `r`'s file.
const ProfFile::Comm *find_comm(const Monitored &run, int r, const std::string &name,
                                const std::string &procs = "") {
  if (r >= static_cast<int>(run.prof.files.size()))
    return nullptr;
  for (const ProfFile::Comm &c : run.prof.files[static_cast<std::size_t>(r)].comms)
    if (procs.empty() ? c.name == name : (c.procs == procs && c.name != "MPI_COMM_WORLD"))
      return &c;
  return nullptr;
}

void expect_comm(const ProfFile::Comm *c, const std::array<Cell, 3> &want,
                 const std::string &what) {
  ASSERT_NE(c, nullptr) << what << ": no D block";
  const char *names[3] = {"O2A", "A2O", "A2A"};
  for (int k = 0; k < 3; ++k)
    EXPECT_TRUE(c->classes[k] == want[k])
        << what << " " << names[k] << ": got " << c->classes[k].count << " msgs/"
        << c->classes[k].bytes << " bytes, expected " << want[k].count << "/" << want[k].bytes;
}

/// Everything a pattern run must show: exit 0, the per-rank files equal to the expectation
/// for every line type, the gathered file equal to the same matrices, the histograms of
/// every E and I line, and MPI_COMM_WORLD's collective classes on every rank.
void expect_run(const Monitored &run, const Expected &want) {
  ASSERT_EQ(run.result.exit_code, 0) << describe(run.result);
  ASSERT_EQ(run.prof.problems, "") << describe(run.result);
  ASSERT_EQ(run.json_error, "") << describe(run.result);
  auto lines = [&](const char *type) {
    auto it = run.prof.lines.find(type);
    return it == run.prof.lines.end() ? Matrix{} : it->second;
  };
  EXPECT_EQ(diff(lines("E"), want.E), "") << "E lines";
  EXPECT_EQ(diff(lines("I"), want.I), "") << "I lines";
  EXPECT_EQ(diff(lines("S"), want.S), "") << "S lines";
  EXPECT_EQ(diff(lines("R"), want.R), "") << "R lines";
  EXPECT_EQ(diff(lines("C"), want.C), "") << "C lines";
  EXPECT_EQ(diff(json_matrix(run.json, "p2p"), want.E), "") << "json p2p";
  EXPECT_EQ(diff(json_matrix(run.json, "p2p_tool"), want.I), "") << "json p2p_tool";
  EXPECT_EQ(diff(json_matrix(run.json, "osc_sent"), want.S), "") << "json osc_sent";
  EXPECT_EQ(diff(json_matrix(run.json, "osc_fetched"), want.R), "") << "json osc_fetched";
  EXPECT_EQ(diff(json_matrix(run.json, "coll"), want.C), "") << "json coll";
  EXPECT_EQ(diff(json_matrix(run.json, "coll_tool"), want.coll_tool), "") << "json coll_tool";
  EXPECT_EQ(diff(json_matrix(run.json, "osc_sent_tool"), want.osc_sent_tool), "");
  EXPECT_EQ(diff(json_matrix(run.json, "osc_fetched_tool"), want.osc_fetched_tool), "");
  EXPECT_EQ(run.json["world_size"].number, run.prof.files.size());
  EXPECT_EQ(json_problems(run.json), "");
  EXPECT_EQ(histogram_diff(run.prof, "E", want.hist_E), "");
  EXPECT_EQ(histogram_diff(run.prof, "I", want.hist_I), "");
  for (int r = 0; r < static_cast<int>(run.prof.files.size()); ++r) {
    auto it = want.world.find(r);
    expect_comm(find_comm(run, r, "MPI_COMM_WORLD"),
                it == want.world.end() ? std::array<Cell, 3>{} : it->second,
                "rank " + std::to_string(r) + " MPI_COMM_WORLD");
  }
}

enum { O2A = 0, A2O = 1, A2A = 2 };

// ---- patterns -----------------------------------------------------------------------------

TEST(MonitorPatterns, Ring) {
  const Monitored run = run_pattern("ring");
  Expected want;
  for (int r = 0; r < N; ++r) {
    want.p2p(r, next(r, 1), 400, 3);
    want.p2p(r, next(r, 1), 0);
  }
  expect_run(run, want);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: 4 ranks; application: p2p 16 msgs 4800 "
                                       "bytes, coll 0 msgs 0 bytes")
                .size(),
            1u)
      << run.result.err;
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: top talkers (application bytes sent): "
                                       "0->1 1200 bytes/4 msgs, 1->2 1200 bytes/4 msgs, "
                                       "2->3 1200 bytes/4 msgs, 3->0 1200 bytes/4 msgs")
                .size(),
            1u)
      << run.result.err;
  // One peer per rank: its counters and histograms (1200 bytes) and index slots, alike on
  // every rank; the fixed caches are 512 datatype and 2 x 256 recent-entry slots.
  std::smatch m;
  static const std::regex memory(
      "pnmpi monitor: memory per rank: max ([0-9]+) bytes, mean ([0-9]+) bytes, plus 12288 "
      "bytes of fixed caches; peers contacted per rank: max 1\n");
  ASSERT_TRUE(std::regex_search(run.result.err, m, memory)) << run.result.err;
  EXPECT_EQ(m[1], m[2]);
  EXPECT_GE(std::stoull(m[1]), 1200u);
  EXPECT_LT(std::stoull(m[1]), 16384u);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: wrote " + run.dir + "/mon.<rank>.prof and " +
                                           run.dir + "/mon.json")
                .size(),
            1u)
      << run.result.err;
  EXPECT_EQ(lines_with(run.result.err, "failed to write").size(), 0u) << run.result.err;
}

TEST(MonitorPatterns, HaloExchangeOnAPeriodicGrid) {
  const Monitored run = run_pattern("halo");
  Expected want;
  for (int r = 0; r < N; ++r) {
    want.p2p(r, r ^ 2, 64, 2); // dimension 0: both directions reach the same rank
    want.p2p(r, r ^ 1, 24, 2);
    add(want.C, r, r ^ 2, 8, 2); // neighbor alltoall: 2 ints to each of 4 neighbors
    add(want.C, r, r ^ 1, 8, 2);
  }
  expect_run(run, want);
  for (int r = 0; r < N; ++r)
    expect_comm(find_comm(run, r, "", "0,1,2,3"), {Cell{}, Cell{}, Cell{1, 32}},
                "rank " + std::to_string(r) + " cartesian communicator");
}

/// What the alltoallv pattern sends: (r + 2j) % 5 ints from r to j, none to itself.
Expected alltoallv_expected() {
  Expected want;
  for (int r = 0; r < N; ++r) {
    std::uint64_t total = 0;
    for (int j = 0; j < N; ++j) {
      const int ints = (r + 2 * j) % 5;
      if (j == r || ints == 0)
        continue;
      add(want.C, r, j, 4 * ints);
      total += 4 * ints;
    }
    want.cls(r, A2A, total);
  }
  return want;
}

TEST(MonitorPatterns, IrregularAlltoallv) {
  const Monitored run = run_pattern("alltoallv", "argument top 2\n");
  const Expected want = alltoallv_expected();
  expect_run(run, want);
  // The two loudest pairs, by bytes, then sender, then receiver.
  std::vector<std::pair<std::pair<int, int>, Cell>> talkers(want.C.begin(), want.C.end());
  std::sort(talkers.begin(), talkers.end(), [](const auto &a, const auto &b) {
    return a.second.bytes != b.second.bytes ? a.second.bytes > b.second.bytes : a.first < b.first;
  });
  std::string line = "pnmpi monitor: top talkers (application bytes sent):";
  for (std::size_t i = 0; i < 2; ++i)
    line += std::string(i > 0 ? "," : "") + " " + std::to_string(talkers[i].first.first) + "->" +
            std::to_string(talkers[i].first.second) + " " +
            std::to_string(talkers[i].second.bytes) + " bytes/" +
            std::to_string(talkers[i].second.count) + " msgs";
  const auto lines = lines_with(run.result.err, "top talkers");
  ASSERT_EQ(lines.size(), 1u) << run.result.err;
  EXPECT_EQ(lines[0], line);
}

TEST(MonitorPatterns, ReduceFlowsToTheRoot) {
  const Monitored run = run_pattern("reduce");
  Expected want;
  for (int r = 0; r < N; ++r) {
    if (r != 1)
      add(want.C, r, 1, 56); // 7 doubles, row = sender (not the root's row)
    if (r != 2)
      add(want.C, r, 2, 12); // Ireduce of 3 ints to rank 2
  }
  want.cls(1, A2O, 3 * 56);
  want.cls(2, A2O, 3 * 12);
  expect_run(run, want);
}

TEST(MonitorPatterns, BcastFlowsFromTheRoot) {
  const Monitored run = run_pattern("bcast");
  Expected want;
  for (int j = 0; j < N; ++j) {
    if (j != 2)
      add(want.C, 2, j, 40);
    if (j != 0)
      add(want.C, 0, j, 5); // Ibcast of 5 bytes from rank 0
  }
  want.cls(2, O2A, 120);
  want.cls(0, O2A, 15);
  expect_run(run, want);
}

TEST(MonitorPatterns, PersistentSendsCountAtEveryStart) {
  const Monitored run = run_pattern("persistent");
  Expected want;
  for (int r = 0; r < N; ++r)
    want.p2p(r, next(r, 1), 24, 8); // 5 MPI_Start + 3 MPI_Startall
  if (run.mpi_version >= 4) {       // MPI_Bcast_init from rank 0, started twice
    for (int j = 1; j < N; ++j)
      add(want.C, 0, j, 8, 2);
    want.cls(0, O2A, 24, 2);
  }
  expect_run(run, want);
}

TEST(MonitorPatterns, OneSidedSentAndFetched) {
  const Monitored run = run_pattern("rma");
  Expected want;
  for (int r = 0; r < N; ++r) {
    add(want.S, r, next(r, 1), 16, 2); // two puts
    add(want.S, r, next(r, 1), 4);     // fetch_and_op sends its operand
    add(want.S, r, next(r, 1), 8);     // get_accumulate sends 2 ints
    add(want.S, r, next(r, 2), 8);     // compare_and_swap: value and compare
    add(want.S, r, next(r, 3), 12);    // accumulate of 3 ints
    add(want.S, r, next(r, 3), 4);     // rput
    add(want.R, r, next(r, 1), 4);     // fetch_and_op result
    add(want.R, r, next(r, 1), 8);     // get_accumulate result
    add(want.R, r, next(r, 2), 8);     // get
    add(want.R, r, next(r, 2), 4);     // compare_and_swap result
  }
  expect_run(run, want);
}

TEST(MonitorPatterns, SplitCommunicatorUsesWorldRanks) {
  const Monitored run = run_pattern("split");
  Expected want;
  want.p2p(2, 0, 20); // sub rank 0 is the higher world rank (key -rank)
  want.p2p(3, 1, 20);
  for (int r = 0; r < N; ++r) {
    add(want.C, r, r ^ 2, 8); // allreduce of 2 ints in the pair
    want.p2p(r, next(r, 1), 1);
  }
  expect_run(run, want);
  expect_comm(find_comm(run, 0, "", "2,0"), {Cell{}, Cell{}, Cell{1, 8}}, "rank 0 split");
  expect_comm(find_comm(run, 1, "", "3,1"), {Cell{}, Cell{}, Cell{1, 8}}, "rank 1 split");
}

TEST(MonitorPatterns, IntercommunicatorMapsToTheRemoteGroup) {
  const Monitored run = run_pattern("intercomm");
  Expected want;
  for (int r = 0; r < N; ++r) {
    want.p2p(r, r ^ 2, 12);
    for (int remote : {(r / 2 == 0) ? 2 : 0, (r / 2 == 0) ? 3 : 1})
      add(want.C, r, remote, 4); // allgather of one int to each remote rank
  }
  add(want.C, 0, 2, 16); // bcast from the MPI_ROOT, world 0, to the remote group
  add(want.C, 0, 3, 16);
  expect_run(run, want);
  expect_comm(find_comm(run, 0, "", "0,1"), {Cell{1, 32}, Cell{}, Cell{1, 8}},
              "rank 0 intercommunicator");
}

TEST(MonitorPatterns, ProcNullIsNotAMessage) {
  const Monitored run = run_pattern("procnull");
  Expected want;
  for (int r = 0; r < N; ++r)
    want.p2p(r, next(r, 1), 1);
  expect_run(run, want);
}

TEST(MonitorPatterns, EverySendMode) {
  const Monitored run = run_pattern("sendmodes");
  Expected want;
  const int last = run.mpi_version >= 4 ? 13 : 10;
  for (int r = 0; r < N; ++r) {
    for (int k = 1; k <= last; ++k)
      want.p2p(r, next(r, 1), 4 * k);
    if (run.mpi_version >= 4)
      want.p2p(r, next(r, 1), 2 * 7 * 4); // partitioned: one message per start
    want.p2p(r, next(r, 3), 0, 2);        // ready-mode tokens to the previous rank
  }
  expect_run(run, want);
}

TEST(MonitorPatterns, EveryCollective) {
  const Monitored run = run_pattern("collectives");
  Expected want;
  auto others = [](int r, auto f) {
    for (int j = 0; j < N; ++j)
      if (j != r)
        f(j);
  };
  for (int r = 0; r < N; ++r) {
    // Gather 2 ints to 0; Gatherv r+1 ints to 1; Igather 1 int to 3.
    if (r != 0)
      add(want.C, r, 0, 8);
    if (r != 1)
      add(want.C, r, 1, 4 * (r + 1));
    if (r != 3)
      add(want.C, r, 3, 4);
    std::uint64_t a2a = 0, ops = 0;
    auto all = [&](std::uint64_t bytes) {
      others(r, [&](int j) { add(want.C, r, j, bytes); });
      a2a += 3 * bytes;
      ++ops;
    };
    all(8);              // Allgather 1 double
    all(r + 1);          // Allgatherv r+1 chars
    all(4);              // Alltoall 2 shorts
    all(20);             // Allreduce 5 ints
    all(8);              // Reduce_scatter_block 2 ints
    all(0);              // Barrier
    all(4);              // Iallreduce 1 int
    all(0);              // Ibarrier
    std::uint64_t w = 0; // Alltoallw: j+1 elements, char for even j, int for odd j
    others(r, [&](int j) {
      const std::uint64_t b = (j + 1) * (j % 2 == 0 ? 1 : 4);
      add(want.C, r, j, b);
      w += b;
    });
    a2a += w;
    ++ops;
    std::uint64_t rs = 0; // Reduce_scatter: j ints to rank j, none to rank 0
    others(r, [&](int j) {
      if (j > 0) {
        add(want.C, r, j, 4 * j);
        rs += 4 * j;
      }
    });
    a2a += rs;
    ++ops;
    for (int scan_bytes : {4, 8}) { // Scan 1 int, Exscan 2 ints: to every higher rank
      for (int j = r + 1; j < N; ++j)
        add(want.C, r, j, scan_bytes);
      a2a += scan_bytes * (N - 1 - r);
      ++ops;
    }
    add(want.C, r, next(r, 1), 4); // Ialltoallv: one int to the next rank only
    a2a += 4;
    ++ops;
    if (run.mpi_version >= 4) {
      all(12); // Allreduce_c of 3 ints
      all(4);  // Allreduce_init, started twice
      all(4);
      all(0); // Barrier_init, started once
    }
    want.world[r][A2A] = Cell{ops, a2a};
  }
  for (int j = 0; j < N; ++j) {
    if (j != 2)
      add(want.C, 2, j, 12); // Scatter 3 ints from 2
    if (j != 3 && j > 0)
      add(want.C, 3, j, 4 * j); // Scatterv j ints from 3 (none to rank 0)
    if (j != 0)
      add(want.C, 0, j, 4); // Iscatter 1 int from 0
  }
  want.cls(0, A2O, 24); // Gather
  want.cls(1, A2O, 4 * (1 + 3 + 4));
  want.cls(3, A2O, 12);    // Igather
  want.cls(2, O2A, 36);    // Scatter
  want.cls(3, O2A, 4 + 8); // Scatterv
  want.cls(0, O2A, 12);    // Iscatter
  expect_run(run, want);
}

TEST(MonitorThreads, FourThreadsPerRankCountExactly) {
  const Monitored run = run_monitored({bin("monitor_threads")}, "", "", 2);
  Expected want;
  for (int r = 0; r < 2; ++r)
    for (int t = 0; t < 4; ++t)
      want.p2p(r, 1 - r, 8 * (t + 1), 500);
  expect_run(run, want);
}

TEST(MonitorOrigin, ToolAboveTheMonitorIsKeptApartHoweverItForwards) {
  // The reporter forwards the application's sends and collectives with ordinary calls (it
  // times them): they stay the application's. Its own calls are a module's, whether made
  // inside its MPI_Finalize wrapper (collective, point-to-point and one-sided), as a tail
  // call from its PNMPI_Fini hook, or inside the application's MPI_Barrier (a send: another
  // routine than the one the application entered).
  const Monitored run =
      run_monitored({bin("monitor_patterns"), "tooled"}, "module monitor_reporter\n");
  Expected want;
  for (int r = 0; r < N; ++r) {
    want.p2p(r, next(r, 1), 400, 3); // the ring's sends and its 0-byte Isend
    want.p2p(r, next(r, 1), 0);
    for (int j = 0; j < N; ++j)
      if (j != r) {
        add(want.C, r, j, 8);         // the application's allreduce of 2 ints
        add(want.C, r, j, 0);         // and its barrier
        add(want.coll_tool, r, j, 4); // the tool's allreduce in its PNMPI_Fini
      }
    want.cls(r, A2A, 3 * 8);
    want.cls(r, A2A, 0);
    if (r != 0)
      add(want.coll_tool, r, 0, 8); // the tool's reduce in its MPI_Finalize
    add(want.I, r, next(r, 1), 8);  // the tool's send inside the application's barrier
    want.hist_I[{r, next(r, 1)}][bin_of(8)] = 1;
    add(want.osc_sent_tool, r, next(r, 1), 4);    // the tool's put of one int
    add(want.osc_fetched_tool, r, next(r, 2), 8); // its get of two ints
    add(want.osc_sent_tool, r, next(r, 3), 4);    // its fetch_and_op: one int each way
    add(want.osc_fetched_tool, r, next(r, 3), 4);
  }
  add(want.I, 1, 0, 16); // the tool's report message
  want.hist_I[{1, 0}][bin_of(16)] = 1;
  expect_run(run, want);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: 4 ranks; application: p2p 16 msgs 4800 "
                                       "bytes, coll 24 msgs 96 bytes")
                .size(),
            1u)
      << run.result.err;
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: modules above the monitor: p2p 5 msgs 48 "
                                       "bytes, coll 15 msgs 72 bytes, osc 8 msgs 32 bytes sent + "
                                       "8 msgs 48 bytes fetched")
                .size(),
            1u)
      << run.result.err;
  EXPECT_EQ(lines_with(run.result.err, "reporter: timed 6 calls").size(), static_cast<size_t>(N))
      << run.result.err;
}

// ---- Open MPI's own monitoring as an oracle -----------------------------------------------

TEST(MonitorOracle, AgreesWithOpenMpiMonitoring) {
  if (std::string(PNMPI_TEST_MPI_FLAVOR) != "openmpi")
    GTEST_SKIP() << "Open MPI's monitoring components are the oracle";
  const std::string ompi_dir =
      (fs::path(PNMPI_TEST_SCRATCH_DIR) / "monitor" / (test_name() + ".ompi")).string();
  fs::remove_all(ompi_dir);
  fs::create_directories(ompi_dir);
  // No gathered file and no summary: our output then sends nothing Open MPI could count.
  const Monitored run = run_monitored({bin("monitor_patterns"), "oracle"}, "",
                                      "argument files per-rank\nargument summary off\n", N,
                                      {{"OMPI_MCA_pml_monitoring_enable", "2"},
                                       {"OMPI_MCA_pml_monitoring_enable_output", "3"},
                                       {"OMPI_MCA_pml_monitoring_filename", ompi_dir + "/prof"}});
  ASSERT_EQ(run.result.exit_code, 0) << describe(run.result);
  ASSERT_EQ(run.prof.problems, "");
  const ProfSet ompi = read_prof_set(ompi_dir + "/prof", N);
  ASSERT_EQ(ompi.problems, "") << describe(run.result);

  Matrix plain, persistent, alltoallv, reduce_ours, reduce_ompi;
  std::map<std::pair<int, int>, std::map<unsigned, std::uint64_t>> plain_hist;
  auto msg = [&](Matrix &m, int from, int to, std::uint64_t bytes, std::uint64_t n = 1) {
    add(m, from, to, bytes, n);
    if (&m == &plain || &m == &alltoallv)
      plain_hist[{from, to}][bin_of(bytes)] += n;
  };
  for (int r = 0; r < N; ++r) {
    for (std::uint64_t bytes : {0, 1, 100, 5000, 70000, 8})
      msg(plain, r, next(r, 1), bytes);
    msg(plain, r, next(r, 2), 33, 3);
    msg(plain, r, next(r, 3), 68);
    msg(persistent, r, next(r, 2), 24, 3);
    for (int j = 0; j < N; ++j)
      if (j != r)
        msg(alltoallv, r, j, 4 * (j + 1));
    if (r != 0) {
      add(reduce_ours, r, 0, 24);
      add(reduce_ompi, 0, r, 24); // Open MPI 4.1.4 puts all-to-one volume in the root's row
    }
  }
  auto sum = [](Matrix a, const Matrix &b) {
    for (const auto &[k, c] : b) {
      a[k].count += c.count;
      a[k].bytes += c.bytes;
    }
    return a;
  };
  // Plain point-to-point: both agree exactly; the documented differences are exactly that
  // Open MPI misses persistent sends and counts alltoallv's messages as E.
  EXPECT_EQ(diff(run.prof.lines.at("E"), sum(plain, persistent)), "") << "our E lines";
  EXPECT_EQ(diff(ompi.lines.at("E"), sum(plain, alltoallv)), "") << "Open MPI's E lines";
  EXPECT_EQ(diff(run.prof.lines.at("C"), sum(alltoallv, reduce_ours)), "") << "our C lines";
  EXPECT_EQ(diff(ompi.lines.at("C"), sum(alltoallv, reduce_ompi)), "") << "Open MPI's C lines";
  // Histograms agree wherever Open MPI's E histogram holds E messages only (its histogram
  // also counts the internal messages to the same peer).
  int compared = 0;
  for (const auto &[key, h] : ompi.histograms) {
    const auto &[type, me, peer] = key;
    if (type != "E")
      continue;
    std::uint64_t total = 0;
    for (std::uint64_t v : h)
      total += v;
    if (total != ompi.lines.at("E").at({me, peer}).count)
      continue;
    ++compared;
    const auto &bins = plain_hist[std::make_pair(me, peer)];
    for (std::size_t b = 0; b < h.size(); ++b) {
      auto want = bins.find(static_cast<unsigned>(b));
      const std::uint64_t expected = want == bins.end() ? 0u : want->second;
      EXPECT_EQ(h[b], expected) << me << "->" << peer << " bin " << b;
    }
  }
  EXPECT_GT(compared, 0) << "no Open MPI histogram was free of internal messages";
  // Our E histograms hold the plain and persistent messages exactly.
  for (const auto &[pair, cell] : sum(plain, persistent)) {
    const auto &h = run.prof.histograms.at({"E", pair.first, pair.second});
    std::uint64_t total = 0;
    for (std::uint64_t v : h)
      total += v;
    EXPECT_EQ(total, cell.count);
  }
  // Per-communicator classes are defined alike: MPI_COMM_WORLD's blocks are equal.
  for (int r = 0; r < N; ++r) {
    const ProfFile::Comm *ours = find_comm(run, r, "MPI_COMM_WORLD");
    const ProfFile::Comm *theirs = nullptr;
    for (const ProfFile::Comm &c : ompi.files[r].comms)
      if (c.name == "MPI_COMM_WORLD")
        theirs = &c;
    ASSERT_NE(ours, nullptr);
    ASSERT_NE(theirs, nullptr);
    EXPECT_EQ(ours->procs, theirs->procs);
    for (int k = 0; k < 3; ++k)
      EXPECT_TRUE(ours->classes[k] == theirs->classes[k])
          << "rank " << r << " class " << k << ": ours " << ours->classes[k].bytes
          << " bytes, Open MPI " << theirs->classes[k].bytes;
  }
}

// ---- sessions -----------------------------------------------------------------------------

TEST(MonitorSessions, EveryTransitionAndErrorCode) {
  // Not under scratch(): run_monitored() starts that afresh.
  const std::string dir =
      (fs::path(PNMPI_TEST_SCRATCH_DIR) / "monitor" / (test_name() + ".files")).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  const Monitored run = run_monitored({bin("monitor_sessions"), dir}, "",
                                      "argument max-sessions 4\nargument files none\n");
  ASSERT_EQ(run.result.exit_code, 0) << describe(run.result);
  for (int r = 0; r < N; ++r)
    EXPECT_EQ(lines_with(run.result.out, "sessions: rank " + std::to_string(r) + " ok").size(), 1u)
        << run.result.out;
  // MPI_M_flush: session a's point-to-point and collective data, session ranks.
  for (int r = 0; r < N; ++r) {
    const ProfFile f = read_prof(dir + "/flush." + std::to_string(r) + ".prof");
    ASSERT_TRUE(f.read) << r;
    Matrix e, c;
    add(e, r, next(r, 1), 24, 3);
    for (int j = 0; j < N; ++j)
      if (j != r)
        add(c, r, j, 8);
    EXPECT_EQ(diff(f.lines.count("E") ? f.lines.at("E") : Matrix{}, e), "");
    EXPECT_EQ(diff(f.lines.count("C") ? f.lines.at("C") : Matrix{}, c), "");
    const std::string header =
        "# MPI_M_flush: session rank " + std::to_string(r) + " of " + std::to_string(N) + "\n";
    EXPECT_EQ(read_text(dir + "/flush." + std::to_string(r) + ".prof").rfind(header, 0), 0u);
    // Nothing to write: the header alone, never an empty file.
    EXPECT_EQ(read_text(dir + "/quiet." + std::to_string(r) + ".prof"), header);
  }
  // MPI_M_rootflush on root 0: the matrices, row = sender.
  std::string counts, sizes;
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < N; ++j) {
      counts += std::string(j > 0 ? " " : "") + (j == next(i, 1) ? "3" : "0");
      sizes += std::string(j > 0 ? " " : "") + (j == next(i, 1) ? "72" : "0");
    }
    counts += "\n";
    sizes += "\n";
  }
  EXPECT_EQ(read_text(dir + "/root_counts.0.prof"), counts);
  EXPECT_EQ(read_text(dir + "/root_sizes.0.prof"), sizes);
  EXPECT_FALSE(fs::exists(dir + "/root_counts.1.prof"));
}

TEST(MonitorSessions, WithoutTheMonitorEveryCallFailsCleanly) {
  MpiJob job;
  job.ranks = N;
  job.program = {bin("monitor_sessions"), "--no-monitor"};
  job.env["PNMPI_LIB_PATH"] = PNMPI_MODULE_BUILD_DIR;
  job.env["PNMPI_CONF"] = write_temp_file(test_name() + ".conf", "module passthrough\n");
  const RunResult r = run_mpi(job);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (int rank = 0; rank < N; ++rank)
    EXPECT_EQ(lines_with(r.out, "no-monitor: rank " + std::to_string(rank) + " ok").size(), 1u)
        << r.out;
}

TEST(MonitorSessions, ReorderingExampleRuns) {
  const Monitored run = run_monitored({MONITOR_REORDER_EXAMPLE, "--simulate-nodes", "2"}, "",
                                      "argument files none\n");
  ASSERT_EQ(run.result.exit_code, 0) << describe(run.result);
  // Heavy partners are i and i+2: the mapping puts each pair on adjacent new ranks.
  EXPECT_EQ(lines_with(run.result.out, "reorder: new rank of each rank: 0 2 1 3").size(), 1u)
      << run.result.out;
  EXPECT_EQ(lines_with(run.result.out, "reorder: bytes inside hosts: before 8%, after 83%").size(),
            1u)
      << run.result.out;
}

// ---- options ------------------------------------------------------------------------------

TEST(MonitorOptions, RecordSelectsCategoriesAndHistogramsCanBeOff) {
  const Monitored run = run_monitored({bin("monitor_patterns"), "collectives"}, "",
                                      "argument record p2p,osc\nargument histograms off\n"
                                      "argument files per-rank\nargument summary off\n");
  ASSERT_EQ(run.result.exit_code, 0) << describe(run.result);
  ASSERT_EQ(run.prof.problems, "");
  EXPECT_EQ(run.prof.lines.count("C"), 0u);
  EXPECT_FALSE(fs::exists(run.dir + "/mon.json"));
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor:").size(), 0u) << run.result.err;

  const Monitored ring = run_monitored({bin("monitor_patterns"), "ring"}, "",
                                       "argument histograms off\nargument files per-rank\n");
  ASSERT_EQ(ring.result.exit_code, 0) << describe(ring.result);
  EXPECT_EQ(ring.prof.lines.at("E").size(), 4u);
  EXPECT_TRUE(ring.prof.histograms.empty());
}

TEST(MonitorOptions, EnvironmentOverridesTheConfig) {
  const std::string elsewhere =
      (fs::path(PNMPI_TEST_SCRATCH_DIR) / "monitor" / (test_name() + ".elsewhere")).string();
  fs::remove(elsewhere + ".json");
  const Monitored run =
      run_monitored({bin("monitor_patterns"), "ring"}, "", "argument files per-rank\n", N,
                    {{"PNMPI_MONITOR_OUTPUT", elsewhere}, {"PNMPI_MONITOR_FILES", "gathered"}});
  ASSERT_EQ(run.result.exit_code, 0) << describe(run.result);
  EXPECT_TRUE(fs::exists(elsewhere + ".json"));
  EXPECT_FALSE(fs::exists(elsewhere + ".0.prof"));
  EXPECT_FALSE(fs::exists(run.dir + "/mon.0.prof"));
}

TEST(MonitorOptions, MalformedValuesStopTheJob) {
  const Monitored bad_arg =
      run_monitored({bin("monitor_patterns"), "ring"}, "", "argument record everything\n");
  EXPECT_NE(bad_arg.result.exit_code, 0);
  EXPECT_FALSE(bad_arg.result.timed_out);
  // The core's typed reader prints it, naming the config file and the argument's line (3).
  const std::vector<std::string> printed = lines_with(
      bad_arg.result.err, test_name() + ".conf:3: module 'monitor': argument 'record' must be a "
                                        "comma-separated list of 'p2p', 'coll', 'osc' or 'all', or "
                                        "'none', not 'everything'");
  ASSERT_FALSE(printed.empty()) << bad_arg.result.err;
  EXPECT_EQ(printed[0].rfind("pnmpi: /", 0), 0u) << printed[0];
  const Monitored bad_env = run_monitored({bin("monitor_patterns"), "ring"}, "", "", N,
                                          {{"PNMPI_MONITOR_HISTOGRAMS", "maybe"}});
  EXPECT_NE(bad_env.result.exit_code, 0);
  EXPECT_FALSE(lines_with(bad_env.result.err,
                          "pnmpi: module 'monitor': environment variable "
                          "PNMPI_MONITOR_HISTOGRAMS must be 'on' or 'off' (or yes/no, "
                          "true/false, 1/0), not 'maybe'")
                   .empty())
      << bad_env.result.err;
}

// ---- output that cannot be written, planted files, names ---------------------------------

/// The summary's and the ranks' lines that say what was not written.
std::string failures(const RunResult &r) {
  std::string text;
  for (const std::string &line : lines_with(r.err, "pnmpi"))
    if (line.find("cannot") != std::string::npos || line.find("wr") != std::string::npos)
      text += line + "\n";
  return text;
}

TEST(MonitorOutput, AMissingOutputDirectoryStopsTheJobAtInit) {
  // Found at MPI_Init, before the application runs, not at MPI_Finalize with the run lost.
  const Monitored run = run_monitored({bin("monitor_patterns"), "ring"}, "", "", N,
                                      {{"PNMPI_MONITOR_OUTPUT", "/nonexistent/dir/mon"}});
  EXPECT_NE(run.result.exit_code, 0) << describe(run.result);
  EXPECT_FALSE(run.result.timed_out);
  EXPECT_GE(
      lines_with(
          run.result.err,
          ": module 'monitor': argument 'output': the output directory '/nonexistent/dir' (of "
          "PNMPI_MONITOR_OUTPUT=/nonexistent/dir/mon) cannot be used: No such file or "
          "directory; the monitor does not create it: make it before the job "
          "starts, or choose another prefix (checked at MPI_Init, before the "
          "application runs)")
          .size(),
      1u)
      << run.result.err;
  EXPECT_EQ(run.result.out.find("pattern ring done"), std::string::npos) << run.result.out;
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor:").size(), 0u) << run.result.err;

  // A file where the directory should be, and files none: nothing is checked then.
  const Monitored file = run_monitored({bin("monitor_patterns"), "ring"}, "", "", N,
                                       {{"PNMPI_MONITOR_OUTPUT", "/etc/passwd/mon"}});
  EXPECT_NE(file.result.exit_code, 0) << describe(file.result);
  EXPECT_GE(lines_with(file.result.err, "module 'monitor': argument 'output': the output directory "
                                        "'/etc/passwd' (of PNMPI_MONITOR_OUTPUT=/etc/passwd/mon) "
                                        "is not a directory; choose another prefix")
                .size(),
            1u)
      << file.result.err;
  const Monitored none =
      run_monitored({bin("monitor_patterns"), "ring"}, "", "argument files none\n", N,
                    {{"PNMPI_MONITOR_OUTPUT", "/nonexistent/dir/mon"}});
  EXPECT_EQ(none.result.exit_code, 0) << describe(none.result);
}

TEST(MonitorOutput, LostOutputFailsTheJobAndIsNamed) {
  // The directory is there at MPI_Init and gone at MPI_Finalize (`patterns rmdir`); the
  // part file, by default in the output directory, goes elsewhere so that it can go.
  const Monitored run = run_monitored(
      {bin("monitor_patterns"), "rmdir"}, "", "", N,
      {{"PNMPI_MONITOR_OUTPUT", "/tmp/pnmpi-monitor-rmdir-" + std::to_string(::getpid()) + "/mon"},
       {"PNMPI_MONITOR_PARTS", "/tmp/pnmpi-monitor-rmdir-parts-" + std::to_string(::getpid())}},
      [](const std::string &) {
        fs::create_directories("/tmp/pnmpi-monitor-rmdir-" + std::to_string(::getpid()));
      });
  const std::string gone = "/tmp/pnmpi-monitor-rmdir-" + std::to_string(::getpid());
  EXPECT_NE(run.result.exit_code, 0) << describe(run.result);
  EXPECT_FALSE(run.result.timed_out);
  for (int r = 0; r < N; ++r)
    EXPECT_EQ(lines_with(run.result.err, "pnmpi: module 'monitor': cannot write '" + gone +
                                             "/mon." + std::to_string(r) +
                                             ".prof': No such file or directory")
                  .size(),
              1u)
        << run.result.err;
  EXPECT_EQ(lines_with(run.result.err, "pnmpi: module 'monitor': cannot write '" + gone +
                                           "/mon.json': No such file or directory")
                .size(),
            1u)
      << run.result.err;
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: failed to write " + gone +
                                           "/mon.<rank>.prof on 4 of 4 ranks (0,1,2,3) and " +
                                           gone + "/mon.json")
                .size(),
            1u)
      << run.result.err;
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: wrote").size(), 0u) << run.result.err;
}

TEST(MonitorOutput, ANameTooLongStopsTheJobAtInit) {
  // A path longer than PATH_MAX, per-rank files only, no summary: each rank says why, and
  // the job still fails.
  const std::string too_long = "/tmp/" + std::string(5000, 'a') + "/mon";
  const Monitored quiet = run_monitored({bin("monitor_patterns"), "ring"}, "",
                                        "argument files per-rank\nargument summary off\n", N,
                                        {{"PNMPI_MONITOR_OUTPUT", too_long}});
  EXPECT_NE(quiet.result.exit_code, 0) << describe(quiet.result);
  EXPECT_FALSE(quiet.result.timed_out);
  EXPECT_GE(lines_with(quiet.result.err, "cannot be used: File name too long").size(), 1u)
      << failures(quiet.result);
  EXPECT_EQ(lines_with(quiet.result.err, "pnmpi monitor:").size(), 0u);
}

TEST(MonitorOutput, AWriteErrorAfterTheFileWasCreatedIsAFailureToo) {
  // Rank 1 can create its file but not write it all (as on a full disk): its file is not
  // written (and no partial file is left), the others are.
  const Monitored run = run_pattern("fullfile");
  EXPECT_NE(run.result.exit_code, 0) << describe(run.result);
  EXPECT_FALSE(run.result.timed_out);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi: module 'monitor': cannot write '" + run.dir +
                                           "/mon.1.prof': File too large")
                .size(),
            1u)
      << failures(run.result);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: wrote " + run.dir +
                                           "/mon.<rank>.prof on 3 of 4 ranks and " + run.dir +
                                           "/mon.json")
                .size(),
            1u)
      << failures(run.result);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: failed to write " + run.dir +
                                           "/mon.<rank>.prof on 1 of 4 ranks (1)")
                .size(),
            1u)
      << failures(run.result);
  EXPECT_FALSE(fs::exists(run.dir + "/mon.1.prof"));
  for (const auto &entry : fs::directory_iterator(run.dir))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  EXPECT_EQ(run.json_error, "");
}

TEST(MonitorOutput, WhatCannotBeReplacedIsRefusedAndNamed) {
  // A dangling symbolic link at the gathered file's name (following it would create its
  // target), a directory at rank 2's: both are left alone, the other ranks' files are
  // written, and the summary says which are which. (FIFOs: the unit test; reading one here
  // would block.)
  const std::string prefix = scratch_path() + "/mon";
  const Monitored run =
      run_monitored({bin("monitor_patterns"), "ring"}, "", "", N, {}, [&](const std::string &) {
        fs::create_symlink(prefix + ".nowhere", prefix + ".json");
        fs::create_directory(prefix + ".2.prof");
      });
  EXPECT_NE(run.result.exit_code, 0) << describe(run.result);
  EXPECT_FALSE(run.result.timed_out);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi: module 'monitor': cannot write '" + prefix +
                                           ".json': it is a symbolic link, not a regular file, "
                                           "and is left as it is")
                .size(),
            1u)
      << failures(run.result);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi: module 'monitor': cannot write '" + prefix +
                                           ".2.prof': it is a directory, not a regular file, and "
                                           "is left as it is")
                .size(),
            1u)
      << failures(run.result);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: wrote").size(), 1u) << failures(run.result);
  EXPECT_EQ(
      lines_with(run.result.err, "pnmpi monitor: wrote " + prefix + ".<rank>.prof on 3 of 4 ranks")
          .size(),
      1u)
      << failures(run.result);
  EXPECT_EQ(lines_with(run.result.err, ".json on").size(), 0u) << failures(run.result);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: failed to write " + prefix +
                                           ".<rank>.prof on 1 of 4 ranks (2) and " + prefix +
                                           ".json")
                .size(),
            1u)
      << failures(run.result);
  EXPECT_TRUE(fs::is_symlink(prefix + ".json"));
  EXPECT_FALSE(fs::exists(prefix + ".nowhere"));
  EXPECT_TRUE(fs::is_directory(prefix + ".2.prof"));
  for (int r : {0, 1, 3}) {
    const ProfFile f = read_prof(prefix + "." + std::to_string(r) + ".prof");
    ASSERT_TRUE(f.read) << r;
    EXPECT_TRUE(f.malformed.empty()) << r;
    EXPECT_EQ(f.lines.at("E").size(), 1u) << r;
  }
}

TEST(MonitorOutput, PlantedSymbolicLinksAreNeverFollowed) {
  // Each rank plants links to the victim at the names its temporary files used to have
  // (PREFIX.<rank>.prof.tmp.<pid>, PREFIX.json.tmp.<pid>); the test plants one at rank 3's
  // final name. The victim stays as it was, rank 3's link too, and rank 3's file is reported
  // as not written.
  const std::string prefix = scratch_path() + "/mon";
  const Monitored run = run_monitored({bin("monitor_patterns"), "plant", prefix}, "", "", N, {},
                                      [&](const std::string &) {
                                        std::ofstream(prefix + ".victim") << "precious\n";
                                        fs::create_symlink(prefix + ".victim", prefix + ".3.prof");
                                      });
  EXPECT_EQ(read_text(prefix + ".victim"), "precious\n");
  EXPECT_TRUE(fs::is_symlink(prefix + ".3.prof"));
  EXPECT_NE(run.result.exit_code, 0) << describe(run.result);
  EXPECT_FALSE(run.result.timed_out);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi: module 'monitor': cannot write '" + prefix +
                                           ".3.prof': it is a symbolic link, not a regular file, "
                                           "and is left as it is")
                .size(),
            1u)
      << failures(run.result);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: wrote " + prefix +
                                           ".<rank>.prof on 3 of 4 ranks and " + prefix + ".json")
                .size(),
            1u)
      << failures(run.result);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: failed to write " + prefix +
                                           ".<rank>.prof on 1 of 4 ranks (3)")
                .size(),
            1u)
      << failures(run.result);
  for (int r = 0; r < 3; ++r) {
    const ProfFile f = read_prof(prefix + "." + std::to_string(r) + ".prof");
    ASSERT_TRUE(f.read) << r;
    EXPECT_TRUE(f.malformed.empty()) << r;
    EXPECT_EQ(f.lines.at("E").size(), 1u) << r;
  }
  EXPECT_EQ(run.json_error, "");
  EXPECT_EQ(run.json["world_size"].number, static_cast<std::uint64_t>(N));
}

TEST(MonitorOutput, CommunicatorNamesCannotForgeLines) {
  // Two duplicates of MPI_COMM_WORLD named with newlines and TABs, the first freed before
  // MPI_Finalize (its name is kept), the second alive: a barrier on each.
  const Monitored run = run_pattern("names");
  Expected want;
  for (int r = 0; r < N; ++r) {
    want.p2p(r, next(r, 1), 400, 3);
    want.p2p(r, next(r, 1), 0);
    for (int j = 0; j < N; ++j)
      if (j != r)
        add(want.C, r, j, 0, 2);
  }
  expect_run(run, want); // no forged E line, no malformed line
  for (int r = 0; r < N; ++r) {
    const std::string who = "rank " + std::to_string(r);
    expect_comm(find_comm(run, r, R"(forged\nE\t0\t1\t999999 bytes\t777 msgs sent\n# OSC\tx\\)"),
                {Cell{}, Cell{}, Cell{1, 0}}, who + " forged name");
    expect_comm(find_comm(run, r, R"(kept\tname)"), {Cell{}, Cell{}, Cell{1, 0}},
                who + " kept name");
    EXPECT_EQ(run.prof.files[static_cast<std::size_t>(r)].comms.size(), 3u) << who;
  }
}

TEST(MonitorOutput, HostNamesAreValidJson) {
  // A module below the monitor names rank r's host "n<r>", newline, TAB, the byte 0xff and a
  // quote: the JSON file is read back by Python's json module, strictly as UTF-8.
  const Monitored run =
      run_monitored({bin("monitor_patterns"), "ring"}, "", "module monitor_hostile_host\n", 2);
  ASSERT_EQ(run.result.exit_code, 0) << describe(run.result);
  const RunResult py =
      pnmpi::test::run({"/usr/bin/python3", "-c",
                        "import json, sys\n"
                        "with open(sys.argv[1], encoding='utf-8', errors='strict') as f:\n"
                        "    print(json.dumps(json.load(f)['hosts']))\n",
                        run.dir + "/mon.json"},
                       {}, 60);
  EXPECT_EQ(py.exit_code, 0) << py.err;
  EXPECT_EQ(py.out, R"(["n0\n\t\ufffd\"", "n1\n\t\ufffd\""])"
                    "\n");
}

TEST(MonitorOutput, OwnCollectivesUseSeparateBuffers) {
  // A module below the monitor sees the monitor's output collectives and counts those whose
  // send buffer is MPI_IN_PLACE (valgrind's MPI checker reports them as unaddressable).
  const Monitored run =
      run_monitored({bin("monitor_patterns"), "ring"}, "", "module monitor_inplace_probe\n");
  ASSERT_EQ(run.result.exit_code, 0) << describe(run.result);
  for (int r = 0; r < N; ++r) {
    std::smatch m;
    const std::regex probe("inplace-probe: rank " + std::to_string(r) +
                           ": ([0-9]+) collectives, ([0-9]+) in place");
    ASSERT_TRUE(std::regex_search(run.result.err, m, probe)) << run.result.err;
    EXPECT_GT(std::stoi(m[1]), 0) << r;
    EXPECT_EQ(m[2], "0") << r;
  }
}

TEST(MonitorOutOfMemory, TrafficNotRecordedIsSaidOnceAndTheRestIsWritten) {
  // Each rank's first send to a new peer finds no memory for the peer's counters: that
  // message is not recorded, said once per rank; the next two are, and the files are written.
  const Monitored run = run_monitored({bin("monitor_oom")});
  ASSERT_EQ(run.result.exit_code, 0) << describe(run.result);
  for (int r = 0; r < N; ++r)
    EXPECT_EQ(lines_with(run.result.out, "oom: rank " + std::to_string(r) + " ok").size(), 1u)
        << run.result.out;
  for (int r = 0; r < N; ++r)
    EXPECT_EQ(lines_with(run.result.rank_err[static_cast<std::size_t>(r)],
                         "pnmpi: module 'monitor': out of memory: some traffic is not recorded")
                  .size(),
              1u)
        << "rank " << r << ": " << run.result.rank_err[static_cast<std::size_t>(r)];
  Expected want;
  for (int r = 0; r < N; ++r)
    want.p2p(r, next(r, 1), 8, 2);
  expect_run(run, want);
}

TEST(MonitorOutOfMemory, ARankThatCannotCollectItsOutputStallsNoOne) {
  // Rank 1 finds no memory to collect its output in MPI_Finalize: it still takes part in
  // every collective (with no data), its file and the gathered file are not written, the
  // others' files are, and the job fails. It used to leave the other ranks waiting.
  const Monitored run = run_monitored({bin("monitor_oom"), "finalize"});
  EXPECT_FALSE(run.result.timed_out);
  EXPECT_NE(run.result.exit_code, 0) << describe(run.result);
  EXPECT_EQ(lines_with(run.result.out, "FAILED").size(), 0u) << run.result.out;
  ASSERT_EQ(run.result.rank_err.size(), static_cast<std::size_t>(N));
  EXPECT_EQ(lines_with(run.result.rank_err[1], "pnmpi: module 'monitor': out of memory: this "
                                               "rank's output cannot be written")
                .size(),
            1u)
      << run.result.rank_err[1];
  EXPECT_EQ(lines_with(run.result.err, "pnmpi: module 'monitor': cannot write '" + run.dir +
                                           "/mon.json': a rank could not collect its data (out "
                                           "of memory)")
                .size(),
            1u)
      << failures(run.result);
  EXPECT_EQ(lines_with(run.result.err,
                       "pnmpi monitor: wrote " + run.dir + "/mon.<rank>.prof on 3 of 4 ranks")
                .size(),
            1u)
      << failures(run.result);
  EXPECT_EQ(lines_with(run.result.err, "pnmpi monitor: failed to write " + run.dir +
                                           "/mon.<rank>.prof on 1 of 4 ranks (1) and " + run.dir +
                                           "/mon.json")
                .size(),
            1u)
      << failures(run.result);
  EXPECT_FALSE(fs::exists(run.dir + "/mon.1.prof"));
  EXPECT_FALSE(fs::exists(run.dir + "/mon.json"));
  EXPECT_TRUE(fs::exists(run.dir + "/mon.2.prof"));
}

TEST(MonitorOutput, GatheredFileInSeveralRounds) {
  // One row per rank and round: the alltoallv pattern's ranks each contacted at most 3 peers,
  // so the gathered file takes 3 rounds (the probe below the monitor counts its gathervs) and
  // is the same as in one.
  const Monitored run =
      run_pattern("alltoallv", "argument gather-round-bytes 1\nmodule monitor_inplace_probe\n");
  expect_run(run, alltoallv_expected());
  for (int r = 0; r < N; ++r) {
    std::smatch m;
    const std::regex probe("inplace-probe: rank " + std::to_string(r) +
                           ": [0-9]+ collectives, 0 in place, ([0-9]+) gathervs");
    ASSERT_TRUE(std::regex_search(run.result.err, m, probe)) << run.result.err;
    EXPECT_EQ(m[1], "3") << r;
  }
}

// ---- scale: collectives kept per communicator, sparse gathered file ----------------------

/// The scale app's random numbers (apps/scale_app.c, lcg()).
struct Lcg {
  std::uint64_t state;
  std::uint32_t operator()() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(state >> 33);
  }
};

/// The members of a communicator split from MPI_COMM_WORLD of `n` ranks, in rank order.
std::vector<int> split_members(int n, int color, const std::function<int(int)> &color_of,
                               const std::function<int(int)> &key_of) {
  std::vector<int> m;
  for (int r = 0; r < n; ++r)
    if (color_of(r) == color)
      m.push_back(r);
  std::stable_sort(m.begin(), m.end(), [&](int a, int b) { return key_of(a) < key_of(b); });
  return m;
}

TEST(MonitorScale, IrregularCollectivesAsPerPeerLoops) {
  // Every collective of the pattern written out as the per-peer loop the monitor used to run
  // on each call: the files, the gathered file and MPI_T's per-peer collective variables
  // (read on each rank, after both communicators were freed) must all agree with it.
  const Monitored run = run_monitored({bin("monitor_scale"), "irregular"});
  Expected want;
  const std::vector<int> sub = {3, 0, 2}; // the sub-communicator's world ranks, in its order
  auto each_other = [&](int i, auto f) {
    for (int j = 0; j < 3; ++j)
      if (j != i)
        f(j);
  };
  for (int i = 0; i < 3; ++i) {
    each_other(i, [&](int j) {
      add(want.C, sub[i], sub[j], 0); // Barrier
      add(want.C, sub[i], sub[j], 4); // Allgather of 1 int
      add(want.C, sub[i], sub[j], 0); // Alltoall of 0 ints: still a message
      if (i > 0)                      // Allgatherv in place: sub rank i has i ints
        add(want.C, sub[i], sub[j], 4 * i);
      const int sendc[3] = {2, 0, 1}; // Alltoallv
      if (sendc[j] > 0)
        add(want.C, sub[i], sub[j], 4 * sendc[j]);
      if (j > i) { // Scan of 1 int, Exscan of 2
        add(want.C, sub[i], sub[j], 4);
        add(want.C, sub[i], sub[j], 8);
      }
    });
    if (i != 2)
      add(want.C, sub[2], sub[i], 12); // Bcast of 3 ints from sub rank 2
    if (i != 1)
      add(want.C, sub[i], sub[1], 8); // Reduce of 2 ints to sub rank 1
    if (i != 0 && i > 0)
      add(want.C, sub[0], sub[i], 4 * i); // Scatterv from sub rank 0: i ints
    if (i != 2 && i > 0)
      add(want.C, sub[i], sub[2], 4 * i); // Gatherv to sub rank 2: i ints
  }
  for (int r = 0; r < N; ++r)
    for (int remote : {r / 2 == 0 ? 2 : 0, r / 2 == 0 ? 3 : 1}) {
      add(want.C, r, remote, 0); // intercommunicator Barrier
      add(want.C, r, remote, 8); // and Allreduce of 2 ints
    }
  add(want.C, 1, 2, 20); // Bcast of 5 ints from MPI_ROOT (world 1) to the remote group
  add(want.C, 1, 3, 20);
  expect_run(run, want);
  for (int r = 0; r < N; ++r) {
    std::string line = "mpit: rank " + std::to_string(r) + " counts";
    for (int j = 0; j < N; ++j) {
      auto it = want.C.find({r, j});
      line += " " + std::to_string(it == want.C.end() ? 0 : it->second.count);
    }
    line += " sizes";
    for (int j = 0; j < N; ++j) {
      auto it = want.C.find({r, j});
      line += " " + std::to_string(it == want.C.end() ? 0 : it->second.bytes);
    }
    EXPECT_EQ(lines_with(run.result.out, line).size(), 1u) << line << "\n" << run.result.out;
  }
  // The freed sub-communicator's operations stay in its block: Barrier, Scan, Exscan,
  // Allgather(v), Alltoall(v) are all-to-all, Bcast/Scatterv one-to-all, Reduce/Gatherv
  // all-to-one; world rank 3 (sub rank 0) roots the Scatterv of 1 + 2 ints.
  expect_comm(find_comm(run, 3, "", "3,0,2"), {Cell{1, 12}, Cell{}, Cell{7, 8 + 16 + 8 + 4}},
              "rank 3 sub-communicator");
}

TEST(MonitorJson, DenseMatricesOnlyWhenSmallOrAskedForAndHosts) {
  const Monitored sparse = run_pattern("ring", "argument json-dense-limit 3\n");
  ASSERT_EQ(sparse.result.exit_code, 0) << describe(sparse.result);
  EXPECT_EQ(json_problems(sparse.json, 3), "");
  EXPECT_EQ(sparse.json["categories"]["p2p"].fields.count("counts"), 0u);
  EXPECT_EQ(sparse.json["categories"]["p2p"]["entries"].items.size(), 4u);
  EXPECT_EQ(sparse.json["categories"]["coll"]["entries"].items.size(), 0u);
  Expected want;
  for (int r = 0; r < N; ++r) {
    want.p2p(r, next(r, 1), 400, 3);
    want.p2p(r, next(r, 1), 0);
  }
  expect_run(run_pattern("ring", "argument json-dense-limit 3\nargument json-dense on\n"), want);
  // Every rank runs on this host: all application bytes stay inside it.
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  for (int r = 0; r < N; ++r)
    EXPECT_EQ(sparse.json["hosts"][static_cast<std::size_t>(r)].text, host);
  EXPECT_EQ(lines_with(sparse.result.err, "pnmpi monitor: application bytes inside nodes 4800, "
                                          "between nodes 0 (1 hosts)")
                .size(),
            1u)
      << sparse.result.err;
}

/// The world size of the scale test (PNMPI_TEST_SCALE_RANKS overrides it): 256 ranks under
/// Open MPI; MPICH's ranks poll instead of yielding, so on 2 cores its 256-rank MPI_Finalize
/// took 31 s (the output was exact): it runs 64.
int scale_ranks() {
  if (const char *n = std::getenv("PNMPI_TEST_SCALE_RANKS"))
    return std::atoi(n);
  return std::string(PNMPI_TEST_MPI_FLAVOR) == "openmpi" ? 256 : 64;
}

TEST(MonitorScale, RingBarriersAllreducesAndRandomPairsOnManyRanks) {
  const int n = scale_ranks();
  const std::uint64_t seed = 20261124;
  const int pairs = 4 * n;
  const auto started = std::chrono::steady_clock::now();
  const Monitored run =
      run_monitored({bin("monitor_scale"), "scale", std::to_string(seed), std::to_string(pairs)},
                    "", "", n, {{"OMPI_MCA_mpi_yield_when_idle", "1"}}, {}, 900);
  const double job_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  Expected want;
  for (int r = 0; r < n; ++r)
    want.p2p(r, (r + 1) % n, 8 * (r % 7 + 1), 3);
  Lcg lcg{seed};
  for (int k = 0; k < pairs; ++k) {
    const int from = static_cast<int>(lcg() % static_cast<std::uint32_t>(n));
    const int to = static_cast<int>(lcg() % static_cast<std::uint32_t>(n));
    want.p2p(from, to, lcg() % 1000u);
  }
  for (int r = 0; r < n; ++r) {
    for (int j = 0; j < n; ++j)
      if (j != r)
        add(want.C, r, j, 24, 2); // 2 allreduces of 3 doubles
    for (int j = 0; j < n; ++j)
      if (j != r)
        add(want.C, r, j, 0, 2); // 2 barriers
    want.cls(r, A2A, 24 * static_cast<std::uint64_t>(n - 1), 2);
    want.cls(r, A2A, 0, 2);
  }
  for (int color = 0; color < 3; ++color) {
    const std::vector<int> m = split_members(
        n, color, [](int r) { return r % 3; }, [n](int r) { return (r * 7) % n; });
    for (std::size_t i = 0; i < m.size(); ++i)
      for (std::size_t j = 0; j < m.size(); ++j) {
        if (i == 1 && j != 1 && m.size() > 1)
          add(want.C, m[i], m[j], 16); // Bcast from its rank 1
        if (j > i)
          add(want.C, m[i], m[j], 4); // Scan of 1 int
      }
  }
  expect_run(run, want);

  // The model (docs/monitor.md, "Scale"): memory per rank grows with the peers a rank sends
  // point-to-point messages to, not with the world: 2 fixed entries plus ~1.3 KB per peer
  // (counters, histograms, index slots) and a few hundred bytes per communicator.
  std::uint64_t most_peers = 0;
  for (int r = 0; r < n; ++r) {
    std::set<int> peers;
    for (const auto &[pair, cell] : want.E)
      if (pair.first == r)
        peers.insert(pair.second);
    most_peers = std::max<std::uint64_t>(most_peers, peers.size());
  }
  std::smatch m;
  static const std::regex memory("memory per rank: max ([0-9]+) bytes");
  ASSERT_TRUE(std::regex_search(run.result.err, m, memory)) << run.result.err;
  const std::uint64_t bound = 4096 + 1536 * most_peers + 3 * 1024;
  EXPECT_LE(std::stoull(m[1]), bound) << "peers " << most_peers << "\n" << run.result.err;

  // The gathered file holds one entry per non-zero pair: at most ~40 bytes each, plus the
  // host names; rank 0's MPI_Finalize gathers and writes it in time linear in that.
  std::size_t entries = 0;
  for (const auto &[name, cat] : run.json["categories"].fields)
    entries += cat["entries"].items.size();
  EXPECT_EQ(entries, want.E.size() + want.C.size());
  // Up to json-dense-limit (64) ranks, also 16 dense matrices of numbers up to 12 digits.
  const std::uintmax_t json_bytes = fs::file_size(run.dir + "/mon.json");
  const std::size_t dense = n <= 64 ? 16 * static_cast<std::size_t>(n) * (13 * n + 12) : 0;
  EXPECT_LE(json_bytes, 4096 + 40 * entries + 300 * static_cast<std::size_t>(n) + dense)
      << json_bytes;
  std::smatch f;
  static const std::regex finalize("scale: finalize_s=([0-9.]+)");
  ASSERT_TRUE(std::regex_search(run.result.out, f, finalize)) << run.result.out;
  const double finalize_s = std::stod(f[1]);
  // The model (docs/monitor.md, "Scale"), from bench/monitor on this 2-core machine: about
  // 2 us per entry written and, oversubscribed, 10 ms per rank for the output's collectives
  // under Open MPI (yielding ranks), 40 ms under MPICH (polling ranks); the bound is 5 times
  // that.
  const bool mpich = std::string(PNMPI_TEST_MPI_FLAVOR) != "openmpi";
  const double model_s = 2e-6 * static_cast<double>(entries) + (mpich ? 0.04 : 0.01) * n;
  EXPECT_LE(finalize_s, 5 * model_s + 2.0) << "entries " << entries;
  std::printf("MonitorScale: %d ranks, job %.1f s, rank 0's MPI_Finalize %.3f s, %zu entries, "
              "%ju bytes of JSON, %s\n",
              n, job_s, finalize_s, entries, json_bytes, m[0].str().c_str());
}

} // namespace
} // namespace pnmpi::test
