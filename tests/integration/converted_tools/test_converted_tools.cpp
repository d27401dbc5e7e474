// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Real PMPI tools, converted with the pnmpi-patch CLI and chained in real mpirun jobs of
// calls_app, whose calls are known exactly (see calls_app.c).
//
// Oracles: the stdout of calls_app without pnmpi (results must not change); the tools' own
// native runs (the unpatched library preloaded, no pnmpi); and a model of calls_app's
// calls from which every expected trace line and report line is computed. Each layer
// prints to stderr as it runs (probe: "probe <tag> MPI_SEND[<rank>]", libompitrace:
// "MPI_SEND[<rank>]: ..."); each rank's stderr goes to a file of its own, so one rank's
// lines are the order in which the layers ran.

#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

const bool kOpenMpi = std::string(PNMPI_TEST_MPI_FLAVOR) == "openmpi";
// MPICH busy-polls: two ranks on two cores. Open MPI gets three, so that a rank without
// point-to-point partners (rank 2) shows up in the counts.
const int kRanks = kOpenMpi ? 3 : 2;
const int kIterations = 3;
const std::string kLibPath =
    std::string(PNMPI_TOOLS_REPO) + ":" + PNMPI_TOOLS_MODULE_DIR + ":" + PNMPI_MODULE_BUILD_DIR;

std::string app(const char *name) {
  return std::string(PNMPI_TOOLS_BIN_DIR) + "/" + name;
}

std::vector<std::string> app_args(bool thread = false) {
  std::vector<std::string> args{app("calls_app"), std::to_string(kIterations)};
  if (thread)
    args.emplace_back("thread");
  return args;
}

/// Launches `job` with each rank's stderr in a file of its own. The launchers forward the
/// ranks' stderr in chunks that need not end at a line (measured with Open MPI: one rank's
/// output landed inside another rank's line), so the merged stream cannot be parsed by line.
/// The result's `err` is every rank's stderr in rank order, then the launcher's own.
RunResult run_ranks(MpiJob job) {
  static int runs = 0;
  const std::filesystem::path dir = std::filesystem::path(PNMPI_TEST_SCRATCH_DIR) /
                                    (test_name() + ".run" + std::to_string(++runs));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // The preload is set inside the rank, so that it does not reach the shell.
  static const char *const kScript =
      "rank=${OMPI_COMM_WORLD_RANK:-$PMI_RANK}; "
      "if [ -n \"$TOOLS_TEST_PRELOAD\" ]; then export LD_PRELOAD=\"$TOOLS_TEST_PRELOAD\"; fi; "
      "exec \"$0\" \"$@\" 2>\"$TOOLS_TEST_ERR_DIR/rank.$rank\"";
  job.env["TOOLS_TEST_ERR_DIR"] = dir.string();
  job.env["TOOLS_TEST_PRELOAD"] = job.preload;
  job.preload.clear();
  job.program.insert(job.program.begin(), {"/bin/sh", "-c", kScript});
  RunResult r = run_mpi(job);
  std::string err;
  for (int rank = 0; rank < job.ranks; ++rank) {
    std::ifstream in(dir / ("rank." + std::to_string(rank)));
    err += std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  r.err = err + "--- the launcher's own stderr ---\n" + r.err;
  return r;
}

/// calls_app under pnmpi with the config text `conf`.
RunResult run_stack(const std::string &conf, bool thread = false,
                    std::map<std::string, std::string> env = {}) {
  MpiJob job;
  job.ranks = kRanks;
  job.program = app_args(thread);
  job.env = std::move(env);
  job.env["PNMPI_LIB_PATH"] = kLibPath;
  job.env["PNMPI_CONF"] = write_temp_file(test_name() + ".conf", conf);
  return run_ranks(job);
}

/// The unchanged calls_app, no pnmpi, with `preload` (a plain PMPI tool) or nothing.
RunResult run_native(const std::string &preload, bool thread = false) {
  MpiJob job;
  job.ranks = kRanks;
  job.program = app_args(thread);
  job.program[0] = app("calls_app_plain");
  job.preload = preload;
  return run_ranks(job);
}

/// The stdout of calls_app without any tool, run once.
const RunResult &baseline() {
  static const RunResult r = run_native("");
  return r;
}

RunResult run_command(const std::vector<std::string> &argv) {
  return run(argv, {}, 60);
}

std::vector<std::string> split_lines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

std::string join(const std::vector<std::string> &lines) {
  std::string text;
  for (const std::string &l : lines)
    text += l + "\n";
  return text;
}

// ---- The model of calls_app --------------------------------------------------------------

/// What rank `rank` calls after MPI_Init, in order, as upper-case routine names.
std::vector<std::string> app_calls(int rank, int size) {
  std::vector<std::string> calls;
  for (int i = 0; i < kIterations; ++i) {
    calls.emplace_back("MPI_SENDRECV");
    if (size > 1 && rank == 0)
      calls.emplace_back("MPI_SEND");
    if (size > 1 && rank == 1)
      calls.emplace_back("MPI_RECV");
    for (const char *c : {"MPI_ISEND", "MPI_RECV", "MPI_WAIT", "MPI_ALLREDUCE"})
      calls.emplace_back(c);
  }
  for (const char *c : {"MPI_BCAST", "MPI_REDUCE", "MPI_ALLGATHER", "MPI_BARRIER", "MPI_PCONTROL",
                        "MPI_BARRIER", "MPI_ALLREDUCE", "MPI_PCONTROL", "MPI_FINALIZE"})
    calls.emplace_back(c);
  return calls;
}

/// What minprof calls by itself, through the layers below it, in its MPI_Finalize wrapper.
std::vector<std::string> report_calls(int rank, int size) {
  std::vector<std::string> calls{"MPI_REDUCE"};
  if (rank != 0)
    calls.emplace_back("MPI_SEND");
  else
    calls.insert(calls.end(), static_cast<std::size_t>(size - 1), "MPI_RECV");
  return calls;
}

/// The handle conversions minprof calls by their public names in its MPI_Init wrapper. They
/// are functions in Open MPI and macros in MPICH (nothing to call, nothing to wrap).
std::vector<std::string> conversion_calls() {
  if (!kOpenMpi)
    return {};
  return {"MPI_COMM_C2F", "MPI_COMM_F2C", "MPI_TYPE_C2F", "MPI_TYPE_F2C"};
}

const std::set<std::string> kTraced = {"MPI_SENDRECV", "MPI_SEND",      "MPI_RECV",
                                       "MPI_ISEND",    "MPI_ALLREDUCE", "MPI_BCAST",
                                       "MPI_REDUCE",   "MPI_ALLGATHER", "MPI_BARRIER",
                                       "MPI_FINALIZE"}; // what libompitrace prints, of these
const std::set<std::string> kProbed = {
    "MPI_SENDRECV", "MPI_SEND",     "MPI_RECV",      "MPI_ISEND",   "MPI_WAIT",     "MPI_ALLREDUCE",
    "MPI_BCAST",    "MPI_REDUCE",   "MPI_ALLGATHER", "MPI_BARRIER", "MPI_PCONTROL", "MPI_FINALIZE",
    "MPI_COMM_C2F", "MPI_COMM_F2C", "MPI_TYPE_C2F",  "MPI_TYPE_F2C"};

/// One layer as the per-rank line sequence sees it: the token its lines get, the routines
/// it prints a line for, and whether it is minprof (prints nothing per call, but adds its
/// report's calls below itself at MPI_Finalize).
struct Layer {
  std::string token;
  std::set<std::string> prints;
  bool profiler = false;
};

Layer probe(const std::string &tag) {
  return {tag, kProbed, false};
}
const Layer kOmpitrace{"trace", kTraced, false};
const Layer kMinprof{"minprof", {}, true};
const Layer kSilent{"silent", {}, false}; // passthrough, delay

/// The tokens ("<layer>:<ROUTINE>") one rank's lines must show, in order, for `layers` in
/// config order. Each call enters at the top and visits every layer once (MPI_Pcontrol
/// too: the core delivers it to each layer that wraps it).
std::vector<std::string> expected_sequence(const std::vector<Layer> &layers, int rank, int size) {
  std::vector<std::string> seq;
  auto visit = [&](const std::string &call, std::size_t from) {
    for (std::size_t i = from; i < layers.size(); ++i)
      if (layers[i].prints.count(call))
        seq.push_back(layers[i].token + ":" + call);
  };
  std::size_t profiler = layers.size();
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (layers[i].profiler)
      profiler = i;
  if (profiler < layers.size())
    for (const std::string &c : conversion_calls())
      visit(c, 0);
  for (const std::string &call : app_calls(rank, size)) {
    if (call != "MPI_FINALIZE" || profiler == layers.size()) {
      visit(call, 0);
      continue;
    }
    for (std::size_t i = 0; i < profiler; ++i)
      if (layers[i].prints.count(call))
        seq.push_back(layers[i].token + ":" + call);
    for (const std::string &c : report_calls(rank, size))
      visit(c, profiler + 1);
    visit(call, profiler + 1);
  }
  return seq;
}

/// The tokens of each rank's lines in `err`, in order. Lines without a rank (MPI_Init, before
/// MPI has one) and other output are left out.
std::map<int, std::vector<std::string>> actual_sequences(const std::string &err) {
  static const std::regex probe_line(R"(^probe (\S+) (MPI_[A-Z0-9_]+)\[(\d+)\])");
  static const std::regex trace_line(R"(^(MPI_[A-Z0-9_]+)\[(\d+)\])");
  std::map<int, std::vector<std::string>> seqs;
  for (const std::string &line : split_lines(err)) {
    std::smatch m;
    if (std::regex_search(line, m, probe_line))
      seqs[std::stoi(m[3])].push_back(m[1].str() + ":" + m[2].str());
    else if (std::regex_search(line, m, trace_line))
      seqs[std::stoi(m[2])].push_back("trace:" + m[1].str());
  }
  return seqs;
}

/// Asserts every rank's sequence, each with a count per routine first for a readable failure.
void expect_sequences(const RunResult &r, const std::vector<Layer> &layers) {
  const auto seqs = actual_sequences(r.err);
  EXPECT_EQ(seqs.size(), static_cast<std::size_t>(kRanks)) << r.err;
  for (int rank = 0; rank < kRanks; ++rank) {
    const std::vector<std::string> want = expected_sequence(layers, rank, kRanks);
    const auto it = seqs.find(rank);
    const std::vector<std::string> got = it == seqs.end() ? std::vector<std::string>{} : it->second;
    std::map<std::string, int> want_counts, got_counts;
    for (const std::string &t : want)
      ++want_counts[t];
    for (const std::string &t : got)
      ++got_counts[t];
    EXPECT_EQ(got_counts, want_counts) << "rank " << rank << "\n" << r.err;
    EXPECT_EQ(join(got), join(want)) << "rank " << rank;
  }
}

/// Lines of `text` that are exactly `line`.
std::size_t count_exact(const std::string &text, const std::string &line) {
  std::size_t n = 0;
  for (const std::string &l : split_lines(text))
    n += l == line;
  return n;
}

// minprof's counts: calls and bytes per routine, in its report's order.
const std::vector<std::string> kProfiled = {
    "MPI_Send",  "MPI_Isend",  "MPI_Recv",      "MPI_Sendrecv",  "MPI_Wait",    "MPI_Barrier",
    "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Allgather", "MPI_Pcontrol"};

struct Count {
  unsigned long long calls = 0, bytes = 0;
};

/// What minprof must count on `rank`: calls_app's calls made while profiling is on (the
/// Barrier and Allreduce between MPI_Pcontrol(0) and MPI_Pcontrol(1) are not counted).
std::map<std::string, Count> rank_counts(int rank, int size) {
  const unsigned long long n = kIterations;
  std::map<std::string, Count> c;
  c["MPI_Sendrecv"] = {n, 4 * n};
  if (size > 1 && rank == 0)
    c["MPI_Send"] = {n, 16 * n};
  c["MPI_Isend"] = {n, 8 * n};
  c["MPI_Recv"] = {n, 8 * n};
  if (size > 1 && rank == 1)
    c["MPI_Recv"] = {2 * n, 24 * n};
  c["MPI_Wait"] = {n, 0};
  c["MPI_Allreduce"] = {n, 8 * n};
  c["MPI_Bcast"] = {1, 64};
  c["MPI_Reduce"] = {1, 4};
  c["MPI_Allgather"] = {1, 4};
  c["MPI_Barrier"] = {1, 0};
  c["MPI_Pcontrol"] = {2, 0};
  return c;
}

std::vector<std::string> count_lines(const std::string &who,
                                     const std::map<std::string, Count> &counts) {
  std::vector<std::string> lines;
  for (const std::string &routine : kProfiled) {
    const auto it = counts.find(routine);
    if (it != counts.end() && it->second.calls != 0)
      lines.push_back("minprof: " + who + ": " + routine + " " + std::to_string(it->second.calls) +
                      " calls " + std::to_string(it->second.bytes) + " bytes");
  }
  return lines;
}

/// minprof's whole report, exactly.
std::string expected_report(const char *init_routine) {
  std::vector<std::string> lines{"minprof: " + std::to_string(kRanks) + " ranks, initialised by " +
                                 init_routine + ", handles round-trip through Fortran"};
  std::map<std::string, Count> total;
  for (int rank = 0; rank < kRanks; ++rank) {
    const auto counts = rank_counts(rank, kRanks);
    for (const std::string &l : count_lines("rank " + std::to_string(rank), counts))
      lines.push_back(l);
    for (const auto &[routine, c] : counts) {
      total[routine].calls += c.calls;
      total[routine].bytes += c.bytes;
    }
  }
  for (const std::string &l : count_lines("total", total))
    lines.push_back(l);
  lines.emplace_back("minprof: end of report");
  return join(lines);
}

/// minprof's report as printed: its lines, in order.
std::string report_of(const RunResult &r) {
  std::vector<std::string> lines;
  for (const std::string &l : split_lines(r.err))
    if (l.rfind("minprof: ", 0) == 0)
      lines.push_back(l);
  return join(lines);
}

/// The results must be those of the run without pnmpi and without tools.
void expect_results_unchanged(const RunResult &r) {
  ASSERT_EQ(baseline().exit_code, 0) << describe(baseline());
  ASSERT_NE(baseline().out.find("app: size=" + std::to_string(kRanks) + " iterations=" +
                                std::to_string(kIterations) + " started by MPI_Init\n"),
            std::string::npos)
      << baseline().out;
  EXPECT_EQ(r.out, baseline().out);
}

std::string module(const std::string &name, const std::string &args = "") {
  return "module " + name + "\n" + args;
}
std::string probe_module(const std::string &tag, const std::string &more = "") {
  return module("probe", "argument tag " + tag + "\n" + more);
}
const std::string kPassthrough = module("passthrough");
const std::string kDelay = module("delay", "argument delay-us 2\n");

#define SKIP_UNLESS_OPENMPI()                                                                      \
  do {                                                                                             \
    if (!kOpenMpi)                                                                                 \
      GTEST_SKIP() << "libompitrace.so is Open MPI's tracing tool; this tree is built for MPICH";  \
    if (std::string(PNMPI_TOOLS_OMPITRACE).empty())                                                \
      GTEST_SKIP() << "libompitrace.so was not found in Open MPI's library directory";             \
  } while (0)

// ---- Converting the tools with the CLI ---------------------------------------------------

const std::vector<std::string> kMinprofImports = {
    "PMPI_Abort",       "PMPI_Allgather", "PMPI_Allreduce", "PMPI_Barrier",   "PMPI_Bcast",
    "PMPI_Comm_rank",   "PMPI_Comm_size", "PMPI_Finalize",  "PMPI_Get_count", "PMPI_Init",
    "PMPI_Init_thread", "PMPI_Isend",     "PMPI_Recv",      "PMPI_Reduce",    "PMPI_Send",
    "PMPI_Sendrecv",    "PMPI_Type_size", "PMPI_Wait"};

/// The undefined dynamic symbols of `path`, by name.
std::set<std::string> imports_of(const std::string &path) {
  const RunResult r = run_command({PNMPI_TOOLS_NM, "-D", "--undefined-only", path});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  std::set<std::string> names;
  for (const std::string &line : split_lines(r.out)) {
    std::string name = line.substr(line.find_last_of(' ') + 1);
    names.insert(name.substr(0, name.find('@')));
  }
  return names;
}

TEST(Patch, ProfilerImportsAreRenamedAndItsPublicCallsAreKept) {
  const RunResult list = run_command({PNMPI_TOOLS_PATCH, "--list", PNMPI_TOOLS_MINPROF_PLAIN});
  ASSERT_EQ(list.exit_code, 0) << describe(list);
  std::vector<std::string> want;
  for (const std::string &p : kMinprofImports)
    want.push_back(p + " -> X" + p.substr(1));
  std::vector<std::string> got = split_lines(list.out);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(join(got), join(want));

  const std::string out = std::string(PNMPI_TEST_SCRATCH_DIR) + "/minprof-patched.so";
  const RunResult patch = run_command({PNMPI_TOOLS_PATCH, PNMPI_TOOLS_MINPROF_PLAIN, out});
  ASSERT_EQ(patch.exit_code, 0) << describe(patch);
  EXPECT_EQ(patch.out, "pnmpi-patch: renamed 18 PMPI_ import(s) to XMPI_ in " +
                           std::string(PNMPI_TOOLS_MINPROF_PLAIN) + " -> " + out + "\n");
  const std::set<std::string> imports = imports_of(out);
  for (const std::string &p : kMinprofImports) {
    EXPECT_EQ(imports.count(p), 0u) << p;
    EXPECT_EQ(imports.count("X" + p.substr(1)), 1u) << p;
  }
  // The handle conversions stay public calls (Open MPI; MPICH makes them macros).
  for (const char *c : {"MPI_Comm_c2f", "MPI_Comm_f2c", "MPI_Type_c2f", "MPI_Type_f2c"})
    EXPECT_EQ(imports.count(c), kOpenMpi ? 1u : 0u) << c;

  // The build's converted copy is the same conversion.
  EXPECT_EQ(imports_of(std::string(PNMPI_TOOLS_REPO) + "/minprof.so"), imports);

  const RunResult again = run_command({PNMPI_TOOLS_PATCH, out, out + ".twice"});
  EXPECT_EQ(again.exit_code, 3) << describe(again);
  EXPECT_EQ(again.err,
            "pnmpi-patch: " + out +
                ": already patched: it imports 18 XMPI_ symbol(s) and no PMPI_ symbol\n");
}

TEST(Patch, OmpitraceHas25ImportsRenamed) {
  SKIP_UNLESS_OPENMPI();
  const std::string out = std::string(PNMPI_TEST_SCRATCH_DIR) + "/ompitrace-patched.so";
  const RunResult patch = run_command({PNMPI_TOOLS_PATCH, PNMPI_TOOLS_OMPITRACE, out});
  ASSERT_EQ(patch.exit_code, 0) << describe(patch);
  EXPECT_EQ(patch.out, "pnmpi-patch: renamed 25 PMPI_ import(s) to XMPI_ in " +
                           std::string(PNMPI_TOOLS_OMPITRACE) + " -> " + out + "\n");
  const std::set<std::string> imports = imports_of(out);
  for (const std::string &name : imports)
    EXPECT_NE(name.rfind("PMPI_", 0), 0u) << name;
  for (const char *x : {"XMPI_Send", "XMPI_Comm_rank", "XMPI_Type_get_name", "XMPI_Finalize"})
    EXPECT_EQ(imports.count(x), 1u) << x;
}

// ---- libompitrace.so alone ----------------------------------------------------------------

TEST(Ompitrace, NativeTraceMatchesTheModel) {
  // The oracle for the model: the unpatched library preloaded, no pnmpi.
  SKIP_UNLESS_OPENMPI();
  const RunResult r = run_native(PNMPI_TOOLS_OMPITRACE);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  expect_results_unchanged(r);
  expect_sequences(r, {kOmpitrace});
  EXPECT_EQ(count_exact(r.err, "MPI_INIT: argc 2"), static_cast<std::size_t>(kRanks)) << r.err;
}

TEST(Ompitrace, TracesEachCallOnceWithLayersInConfigOrder) {
  SKIP_UNLESS_OPENMPI();
  const std::string conf = probe_module("a") + kPassthrough + kDelay + module("ompitrace") +
                           kPassthrough + kDelay + probe_module("b");
  const RunResult r = run_stack(conf, false, {{"PNMPI_DEBUG", "3"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  expect_results_unchanged(r);
  expect_sequences(r, {probe("a"), kSilent, kSilent, kOmpitrace, kSilent, kSilent, probe("b")});
  // MPI_Init, before MPI knows ranks: once per rank in each layer.
  const auto ranks = static_cast<std::size_t>(kRanks);
  EXPECT_EQ(count_exact(r.err, "probe a MPI_INIT"), ranks) << r.err;
  EXPECT_EQ(count_exact(r.err, "MPI_INIT: argc 2"), ranks) << r.err;
  EXPECT_EQ(count_exact(r.err, "probe b MPI_INIT"), ranks) << r.err;
  // The chain the core built is the config's order; delay wraps only the send family.
  const std::map<std::string, std::string> chains = {
      {"MPI_Send",
       "probe[0] passthrough[1] delay[2] ompitrace[3] passthrough[4] delay[5] probe[6]"},
      {"MPI_Barrier", "probe[0] passthrough[1] ompitrace[3] passthrough[4] probe[6]"}};
  for (const auto &[routine, chain] : chains)
    EXPECT_EQ(count_exact(r.err, "pnmpi[debug]: " + routine + ": " + chain + " -> MPI"), ranks)
        << routine << "\n"
        << r.err;
}

// ---- Two tools at once: minprof and libompitrace.so ---------------------------------------

TEST(TwoTools, ProfilerAboveOmpitrace) {
  // minprof's report traffic at MPI_Finalize goes through passthrough, ompitrace, delay and the
  // bottom probe: ompitrace traces it, with the handles minprof converted through Fortran.
  SKIP_UNLESS_OPENMPI();
  const std::string conf = probe_module("top") + module("minprof") + kPassthrough +
                           module("ompitrace") + kDelay + probe_module("bottom");
  const RunResult r = run_stack(conf);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  expect_results_unchanged(r);
  EXPECT_EQ(report_of(r), expected_report("MPI_Init"));
  expect_sequences(r, {probe("top"), kMinprof, kSilent, kOmpitrace, kSilent, probe("bottom")});
  const std::regex report_reduce(R"(^MPI_REDUCE\[\d+\]: sendbuf \w+ recvbuf \w+ count 22 )"
                                 R"(datatype MPI_UNSIGNED_LONG_LONG op MPI_SUM root 0 )"
                                 R"(comm MPI_COMM_WORLD$)");
  std::size_t traced_report_reduces = 0;
  for (const std::string &line : split_lines(r.err))
    traced_report_reduces += std::regex_search(line, report_reduce);
  EXPECT_EQ(traced_report_reduces, static_cast<std::size_t>(kRanks)) << r.err;
}

TEST(TwoTools, OmpitraceAboveProfiler) {
  // Above minprof, ompitrace sees the application's calls only; minprof's report is the same.
  SKIP_UNLESS_OPENMPI();
  const std::string conf =
      kPassthrough + module("ompitrace") + kDelay + module("minprof") + kPassthrough;
  const RunResult r = run_stack(conf);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  expect_results_unchanged(r);
  EXPECT_EQ(report_of(r), expected_report("MPI_Init"));
  expect_sequences(r, {kSilent, kOmpitrace, kSilent, kMinprof, kSilent});
}

// ---- The monitor below real tools ---------------------------------------------------------

/// "p2p N msgs B bytes, coll N msgs B bytes, osc 0 msgs 0 bytes sent + 0 msgs 0 bytes fetched"
std::string monitor_totals(std::uint64_t p2p_msgs, std::uint64_t p2p_bytes, std::uint64_t coll_msgs,
                           std::uint64_t coll_bytes) {
  return "p2p " + std::to_string(p2p_msgs) + " msgs " + std::to_string(p2p_bytes) +
         " bytes, coll " + std::to_string(coll_msgs) + " msgs " + std::to_string(coll_bytes) +
         " bytes, osc 0 msgs 0 bytes sent + 0 msgs 0 bytes fetched";
}

TEST(Monitor, KeepsTheApplicationsTrafficApartFromTheToolsAbove) {
  // minprof forwards with tail calls, libompitrace.so (Open MPI) with ordinary calls: below
  // both, the monitor counts calls_app's traffic as the application's, exactly, and only
  // minprof's report at MPI_Finalize (a reduce and a send to rank 0) as the tools'.
  const std::string out = std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + test_name() + ".mon";
  // libompitrace.so is stacked where it exists (Open MPI 4; Open MPI 5 ships none).
  const bool ompitrace = kOpenMpi && !std::string(PNMPI_TOOLS_OMPITRACE).empty();
  const std::string conf =
      module("minprof") + (ompitrace ? module("ompitrace") : "") +
      module("monitor", "argument output " + out + "\nargument files none\nargument top 0\n");
  const RunResult r = run_stack(conf);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  expect_results_unchanged(r);
  EXPECT_EQ(report_of(r), expected_report("MPI_Init"));
  // calls_app, in logical per-peer messages (calls_app.c): per iteration a Sendrecv of 1 int
  // and an Isend of 2 ints on every rank, 4 ints from rank 0 to 1, an Allreduce of a double;
  // then Bcast 8 doubles, Reduce 1 int, Allgather 1 int, 2 Barriers, Allreduce 1 int.
  const std::uint64_t n = kRanks, it = kIterations, peers = n - 1;
  const std::string app =
      monitor_totals(2 * n * it + it, 12 * n * it + 16 * it, n * peers * (it + 4) + 2 * peers,
                     8 * n * peers * it + 68 * peers + 8 * n * peers);
  // minprof's report: 22 unsigned long longs to rank 0 from every other rank, by PMPI_Reduce
  // and by PMPI_Send.
  const std::string tools = monitor_totals(peers, 176 * peers, peers, 176 * peers);
  EXPECT_EQ(
      count_exact(r.err, "pnmpi monitor: " + std::to_string(n) + " ranks; application: " + app), 1u)
      << r.err;
  EXPECT_EQ(count_exact(r.err, "pnmpi monitor: modules above the monitor: " + tools), 1u) << r.err;
}

// ---- minprof, on either MPI ----------------------------------------------------------------

const std::string kProfilerStack = probe_module("top") + kPassthrough + module("minprof") + kDelay +
                                   kPassthrough + probe_module("bottom");
const std::vector<Layer> kProfilerLayers = {probe("top"), kSilent, kMinprof,
                                            kSilent,      kSilent, probe("bottom")};

TEST(Profiler, ReportIsExactAndEqualsItsNativeReport) {
  const RunResult native = run_native(PNMPI_TOOLS_MINPROF_PLAIN);
  ASSERT_EQ(native.exit_code, 0) << describe(native);
  EXPECT_EQ(report_of(native), expected_report("MPI_Init"));
  expect_results_unchanged(native);

  const RunResult r = run_stack(kProfilerStack);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(report_of(r), expected_report("MPI_Init"));
  expect_results_unchanged(r);
  expect_sequences(r, kProfilerLayers);
}

TEST(Profiler, InitialisesInMPIInitThread) {
  const RunResult r = run_stack(kProfilerStack, true);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(report_of(r), expected_report("MPI_Init_thread"));
  EXPECT_NE(r.out.find("started by MPI_Init_thread\n"), std::string::npos) << r.out;
  EXPECT_EQ(count_exact(r.err, "probe top MPI_INIT_THREAD"), static_cast<std::size_t>(kRanks));
  EXPECT_EQ(count_exact(r.err, "probe bottom MPI_INIT_THREAD"), static_cast<std::size_t>(kRanks));
}

TEST(Profiler, RefusesToProfileWhenALayerAboveHidesMPIInit) {
  // The top probe starts MPI without passing MPI_Init down: minprof's first profiled call
  // comes before it saw MPI_Init, and it stops the job as real profilers do.
  const std::string conf =
      probe_module("top", "argument init bypass\n") + module("minprof") + probe_module("bottom");
  const RunResult r = run_stack(conf);
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_GE(count_exact(r.err, "minprof: error: MPI_Sendrecv was called before minprof saw "
                               "MPI_Init or MPI_Init_thread; minprof cannot profile this run"),
            1u)
      << describe(r);
  EXPECT_EQ(count_exact(r.err, "probe bottom MPI_INIT"), 0u) << r.err;
  EXPECT_EQ(r.out.find("app: "), std::string::npos) << r.out;
  EXPECT_EQ(report_of(r).find("minprof: end of report"), std::string::npos);

  // The same layer below minprof hides MPI_Init only from the layers below it.
  const std::string below =
      probe_module("top") + module("minprof") + probe_module("bottom", "argument init bypass\n");
  const RunResult ok = run_stack(below);
  ASSERT_EQ(ok.exit_code, 0) << describe(ok);
  EXPECT_EQ(report_of(ok), expected_report("MPI_Init"));
  expect_results_unchanged(ok);
}

TEST(Profiler, ReportsAtFinalizeThroughTheLayersBelow) {
  // Its MPI_Reduce and MPI_Send/MPI_Recv at MPI_Finalize reach the bottom probe (and MPI),
  // never the top one; then its PMPI_Finalize goes down the chain once.
  const RunResult r = run_stack(kProfilerStack);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(report_of(r), expected_report("MPI_Init"));
  const auto seqs = actual_sequences(r.err);
  for (int rank = 0; rank < kRanks; ++rank) {
    ASSERT_EQ(seqs.count(rank), 1u) << r.err;
    const std::vector<std::string> &seq = seqs.at(rank);
    std::vector<std::string> want_tail{"top:MPI_FINALIZE"};
    for (const std::string &c : report_calls(rank, kRanks))
      want_tail.push_back("bottom:" + c);
    want_tail.emplace_back("bottom:MPI_FINALIZE");
    ASSERT_GE(seq.size(), want_tail.size());
    EXPECT_EQ(
        join(std::vector<std::string>(seq.end() - static_cast<long>(want_tail.size()), seq.end())),
        join(want_tail))
        << "rank " << rank;
  }
}

TEST(Profiler, ConsumesPcontrol) {
  // MPI_Pcontrol(0) .. MPI_Pcontrol(1) hides one MPI_Barrier and one MPI_Allreduce from the
  // counts; the other layers still get both MPI_Pcontrol calls, each exactly once.
  const RunResult r = run_stack(kProfilerStack);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::string report = report_of(r);
  EXPECT_NE(report.find("minprof: rank 0: MPI_Barrier 1 calls 0 bytes\n"), std::string::npos)
      << report;
  EXPECT_NE(report.find("minprof: rank 0: MPI_Allreduce " + std::to_string(kIterations) +
                        " calls " + std::to_string(8 * kIterations) + " bytes\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("minprof: rank 0: MPI_Pcontrol 2 calls 0 bytes\n"), std::string::npos)
      << report;
  for (const char *tag : {"top", "bottom"})
    for (int level : {0, 1})
      for (int rank = 0; rank < kRanks; ++rank)
        EXPECT_EQ(count_exact(r.err, std::string("probe ") + tag + " MPI_PCONTROL[" +
                                         std::to_string(rank) + "] level " + std::to_string(level)),
                  1u)
            << tag << " rank " << rank << " level " << level << "\n"
            << r.err;
}

TEST(Profiler, ConvertsHandlesByTheirPublicNames) {
  // In Open MPI the conversions are functions: called by their public names from inside
  // minprof's MPI_Init wrapper, they enter the chain at the top like an application's call.
  // In MPICH they are macros. Either way the handles must survive the round trip.
  const RunResult r = run_stack(kProfilerStack);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(report_of(r).find("handles round-trip through Fortran\n"), std::string::npos)
      << report_of(r);
  for (const char *c : {"MPI_COMM_C2F", "MPI_COMM_F2C", "MPI_TYPE_C2F", "MPI_TYPE_F2C"})
    for (const char *tag : {"top", "bottom"})
      for (int rank = 0; rank < kRanks; ++rank)
        EXPECT_EQ(count_exact(r.err, std::string("probe ") + tag + " " + c + "[" +
                                         std::to_string(rank) + "]"),
                  kOpenMpi ? 1u : 0u)
            << c << " " << tag << " rank " << rank << "\n"
            << r.err;
}

// ---- A tool built for another MPI ------------------------------------------------------------

TEST(Mpich, OpenMpiToolIsRefusedWithTheSymbolItLacks) {
  // libompitrace.so converts cleanly (its imports are standard PMPI_ routines) but refers to
  // Open MPI's own objects; under MPICH the core must stop with the config line and the
  // missing symbol, once per rank, instead of crashing at the first call.
  if (kOpenMpi)
    GTEST_SKIP() << "this tree is built for Open MPI; the test needs an MPICH build";
  if (std::string(PNMPI_TOOLS_OMPITRACE).empty())
    GTEST_SKIP() << "Open MPI's libompitrace.so is not installed";
  const std::string out = std::string(PNMPI_TEST_SCRATCH_DIR) + "/ompitrace-for-mpich.so";
  const RunResult patch = run_command({PNMPI_TOOLS_PATCH, PNMPI_TOOLS_OMPITRACE, out});
  ASSERT_EQ(patch.exit_code, 0) << describe(patch);
  const RunResult r = run_stack(module(out) + probe_module("x"));
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  const std::string conf = std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + test_name() + ".conf";
  EXPECT_EQ(count_exact(r.err, "pnmpi: " + conf + ":1: module '" + out + "' (" + out +
                                   "): cannot be loaded: " + out +
                                   ": undefined symbol: ompi_mpi_comm_world"),
            static_cast<std::size_t>(kRanks))
      << describe(r);
  EXPECT_EQ(r.out.find("app: "), std::string::npos) << r.out;
}

// ---- A site stack below the user's own tools (docs/site.md) -------------------------------

TEST(Site, MonitorAndProfileBelowTheUsersToolsLeaveEveryOutputExact) {
  // The user's stack: minprof and (Open MPI) libompitrace.so. The site's, appended below it
  // by the core: the monitor and the profile, whose record goes to the site's directory.
  const bool ompitrace = kOpenMpi && !std::string(PNMPI_TOOLS_OMPITRACE).empty();
  const std::string user = module("minprof") + (ompitrace ? module("ompitrace") : "");
  const std::string logdir = std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + test_name() + ".logs";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  const std::filesystem::path day = std::filesystem::path(logdir) /
                                    std::to_string(utc.tm_year + 1900) /
                                    std::to_string(utc.tm_mon + 1) / std::to_string(utc.tm_mday);
  std::filesystem::remove_all(logdir);
  std::filesystem::create_directories(day);
  const std::string mon = std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + test_name() + ".mon";
  const std::string site =
      "records " + logdir + "\n" +
      module("monitor", "argument output " + mon +
                            "\nargument files none\nargument top 0\nargument summary on\n") +
      module("profile");
  const RunResult alone = run_stack(user);
  const RunResult both = run_stack(
      user, false, {{"PNMPI_SITE_CONF", write_temp_file(test_name() + ".site.conf", site)}});
  ASSERT_EQ(alone.exit_code, 0) << describe(alone);
  ASSERT_EQ(both.exit_code, 0) << describe(both);
  // The application's results and the user's tools: as without the site.
  expect_results_unchanged(both);
  EXPECT_EQ(both.out, alone.out);
  EXPECT_EQ(report_of(both), expected_report("MPI_Init"));
  EXPECT_EQ(report_of(both), report_of(alone));
  if (ompitrace) // each traced call once, in the application's order (minprof prints none)
    expect_sequences(both, {kMinprof, kOmpitrace});
  // Every line of the user's tools, and only the site monitor's summary besides (a site
  // monitor is silent unless the site asks for its summary, as this one does).
  std::size_t monitor_lines = 0;
  for (const std::string &line : split_lines(both.err))
    monitor_lines += line.rfind("pnmpi monitor: ", 0) == 0;
  EXPECT_EQ(monitor_lines, 4u) << both.err;
  EXPECT_EQ(split_lines(both.err).size(), split_lines(alone.err).size() + monitor_lines);
  // The site's monitor, below both tools: the application's traffic exactly, and minprof's
  // report as the tools' (libompitrace.so sends nothing of its own).
  const std::uint64_t n = kRanks, it = kIterations, peers = n - 1;
  const std::string app =
      monitor_totals(2 * n * it + it, 12 * n * it + 16 * it, n * peers * (it + 4) + 2 * peers,
                     8 * n * peers * it + 68 * peers + 8 * n * peers);
  const std::string tools = monitor_totals(peers, 176 * peers, peers, 176 * peers);
  EXPECT_EQ(
      count_exact(both.err, "pnmpi monitor: " + std::to_string(n) + " ranks; application: " + app),
      1u)
      << both.err;
  EXPECT_EQ(count_exact(both.err, "pnmpi monitor: modules above the monitor: " + tools), 1u)
      << both.err;
  // The site's profile: one record, the admins' to read, none in the job's directory.
  std::vector<std::filesystem::path> records;
  for (const auto &e : std::filesystem::directory_iterator(day))
    records.push_back(e.path());
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].string().substr(records[0].string().size() - 11), ".record.npz");
  EXPECT_EQ(std::filesystem::status(records[0]).permissions(),
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                std::filesystem::perms::group_read);
}

} // namespace
} // namespace pnmpi::test
