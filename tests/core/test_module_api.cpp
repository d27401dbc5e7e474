// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The module API in real mpirun jobs: hooks, services, typed arguments, stacks and
// XMPI_X_NewStack, MPI_Pcontrol delivery, call origin, and pnmpi-run on an unchanged binary.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/stat.h>

#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

const std::string kModules = CORE_TEST_MODULE_DIR;

std::string app(const char *name) {
  return std::string(PNMPI_TEST_BIN_DIR) + "/" + name;
}

/// Where run_with() writes this test's config.
std::string conf_path() {
  return std::string(PNMPI_TEST_SCRATCH_DIR) + "/" + test_name() + ".conf";
}

/// Runs api_app on `ranks` ranks with the config text `conf`.
RunResult run_with(const std::string &conf, int ranks = 2,
                   std::map<std::string, std::string> env = {}) {
  MpiJob job;
  job.ranks = ranks;
  job.program = {app("api_app")};
  job.env = std::move(env);
  job.env["PNMPI_LIB_PATH"] = kModules;
  job.env["PNMPI_CONF"] = test_conf_file(conf);
  return run_mpi(job);
}

/// Whether `lines` occur in `text` as whole lines, in this order (others may come between).
::testing::AssertionResult in_order(const std::string &text,
                                    const std::vector<std::string> &lines) {
  std::istringstream in(text);
  std::size_t next = 0;
  for (std::string line; next < lines.size() && std::getline(in, line);)
    if (line == lines[next])
      ++next;
  if (next == lines.size())
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "missing, or out of order: '" << lines[next] << "' in\n"
                                       << text;
}

std::size_t count(const std::string &text, const std::string &line) {
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string l; std::getline(in, l);)
    n += l == line;
  return n;
}

const std::string kTwoProbes =
    "module api_probe\nargument tag a\nmodule api_probe\nargument tag b\n";

TEST(Hooks, RunInPhaseAndConfigOrderWithTheirHandles) {
  const RunResult r = run_with(kTwoProbes, 1);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(
      r.out, {"loaded a self=0 own=0 stack=0", "registration a barrier-id=found unknown-id=-1",
              "loaded b self=1 own=1 stack=0", "registration b barrier-id=found unknown-id=-1",
              "init-hook a", "init-hook b", "init: [Ia Ib] rc=0", "result: size=1", "fini a sum=1",
              "finalize a self=0 finalized=0", "fini b sum=1", "finalize b self=1 finalized=0",
              "finalized", "unregistered a", "unregistered b"}));
}

TEST(Hooks, FinalizeHooksCanStillUseCollectives) {
  const RunResult r = run_with(kTwoProbes);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  // Output after MPI_Finalize is not compared with 2 ranks: MPICH's launcher may join lines
  // of different ranks once they have finalized. The 1-rank test above covers it.
  for (const char *line : {"fini a sum=2", "fini b sum=2", "finalize a self=0 finalized=0"})
    EXPECT_EQ(count(r.out, line), 2u) << line << "\n" << r.out;
}

TEST(Origin, ApplicationOrWhichModuleAbove) {
  // The application's barrier reaches a from the application, and b from a by return
  // address (a forwards it with an ordinary call) but as the application's by entry. a's
  // MPI_Comm_size makes a new MPI_Barrier call by the public name: it enters the chain at
  // the top, like the application's, so every layer sees it come from a (layer 0) by return
  // address and, by entry, as the application's (it entered through MPI_Barrier).
  const RunResult r = run_with("module api_probe\nargument tag a\nargument calls-barrier "
                               "on\nmodule api_probe\nargument tag b\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(r.out, {"registration a barrier-id=found unknown-id=-1",
                               "registration b barrier-id=found unknown-id=-1",
                               "barrier-world: [Ba Bb<-0] rc=0", "barrier-self: [Ba Bb<-0] rc=0",
                               "size: [Sa Ba<-0 Bb<-0 Sb] rc=0"}));
}

TEST(Origin, AModulesOwnPmpiCallIsTheModulesByEntry) {
  // a's PMPI_Barrier inside MPI_Comm_size reaches b only, from a by return address, and
  // as a module's by entry ("m"): the application entered through MPI_Comm_size.
  const RunResult r = run_with("module api_probe\nargument tag a\nargument calls-barrier on\n"
                               "argument barrier-via-pmpi on\nmodule api_probe\nargument tag b\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(r.out, {"barrier-world: [Ba Bb<-0] rc=0", "size: [Sa Bb<-0m Sb] rc=0"}))
      << r.out;
}

const std::string kRoute = "module api_route\n"
                           "argument threshold 2\n"
                           "argument small small\n"
                           "argument large large\n"
                           "stack small\n"
                           "module api_probe\n"
                           "argument tag s\n"
                           "stack large\n"
                           "module api_probe\n"
                           "argument tag l\n";

TEST(Stacks, ModuleRoutesEachCallByCommunicatorSize) {
  const RunResult r = run_with(kRoute + "globalpcontrol typed 3 long\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  // The probes of the other stacks see no call the application makes directly; whether a
  // routed call looks like the application's or route's depends on tail calls, so both are
  // accepted for the origin.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nbarrier-world: \\[R2 Bl(<-0)?\\] rc=0\n")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nbarrier-self: \\[R1 Bs(<-0)?\\] rc=0\n")))
      << r.out;
  EXPECT_TRUE(in_order(r.out, {"init: [] rc=0", "size: [] rc=0", "pcontrol-1: [Pl:1] rc=0",
                               "pcontrol-3: [Pl:3:1234567890123] rc=0", "result: size=2"}));
  // PnMPI's numbering: each `stack` line takes a handle (route 0, small 1, s 2, large 3,
  // l 4), and a stack's handle is that of the line after its `stack` line.
  EXPECT_EQ(count(r.out, "loaded s self=2 own=2 stack=2"), 2u) << r.out;
  EXPECT_EQ(count(r.out, "loaded l self=4 own=4 stack=4"), 2u) << r.out;
}

TEST(Stacks, DefaultStackNamedExplicitly) {
  const RunResult r = run_with("stack default\n" + kTwoProbes + "stack unused\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  // The `stack default` line takes handle 0 (PnMPI's numbering): a is 1, b is 2.
  EXPECT_TRUE(in_order(r.out, {"barrier-world: [Ba Bb<-1] rc=0"}));
  EXPECT_EQ(count(r.out, "loaded b self=2 own=2 stack=1"), 2u) << r.out;
}

TEST(Stacks, AStackStartedTwiceStopsTheJob) {
  const RunResult r = run_with("stack a\nmodule api_probe\nargument tag a\nstack a\n");
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.err, "pnmpi: " + conf_path() +
                             ":4: stack 'a' started twice (first on line 1): each stack is one "
                             "section; list its modules together"),
            2u)
      << r.err;
}

TEST(Stacks, ABadHandleStopsTheJobForPcontrolAsForEveryRoutine) {
  // Pcontrol used to be delivered to nobody, returning MPI_SUCCESS, where every other
  // routine stopped the job. Each rank in turn makes the bad call while the other waits in
  // MPI: the failing rank prints the error once, and the job ends promptly.
  const struct {
    const char *call, *message;
  } cases[] = {
      {"pcontrol", "pnmpi: XMPI_Pcontrol_NewStack: there is no stack with handle 99"},
      {"send", "pnmpi: XMPI_Send_NewStack: there is no stack with handle 99"},
  };
  for (const auto &c : cases)
    for (int failing = 0; failing < 2; ++failing) {
      const std::string what = std::string(c.call) + " on rank " + std::to_string(failing);
      MpiJob job;
      job.program = {app("api_app")};
      job.env["PNMPI_LIB_PATH"] = kModules;
      job.env["PNMPI_CONF"] = write_temp_file(
          "api.Stacks.BadHandle." + std::string(c.call) + std::to_string(failing) + ".conf",
          "module api_bad_stack\nargument call " + std::string(c.call) + "\nargument rank " +
              std::to_string(failing) + "\n");
      job.timeout_s = 60;
      const RunResult r = run_mpi(job); // ends, not hangs: timed_out says a hang
      EXPECT_FALSE(r.timed_out) << what << "\n" << describe(r);
      EXPECT_NE(r.exit_code, 0) << what << "\n" << describe(r);
      ASSERT_EQ(r.rank_err.size(), 2u) << what;
      EXPECT_EQ(count(r.rank_err[failing], c.message), 1u) << what << "\n" << r.rank_err[failing];
      EXPECT_EQ(lines_with(r.rank_err[1 - failing], "pnmpi: ").size(), 0u)
          << what << "\n"
          << r.rank_err[1 - failing];
      EXPECT_EQ(r.out.find("barrier-world:"), std::string::npos) << what << "\n" << r.out;
    }
}

const std::string kPcontrolTrio = "module api_probe\nargument tag a\n"
                                  "module api_probe_nopcontrol\nargument tag b\n"
                                  "module api_probe\nargument tag c\n";

TEST(Pcontrol, ReachesEveryModuleThatWrapsItWithTheLevel) {
  const RunResult r = run_with(kPcontrolTrio);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(
      in_order(r.out, {"barrier-world: [Ba Bb<-0 Bc<-1] rc=0", "pcontrol-1: [Pa:1 Pc:1] rc=0",
                       "pcontrol-2: [Pa:2 Pc:2] rc=0", "pcontrol-5: [Pa:5 Pc:5] rc=0"}));
}

TEST(Pcontrol, AModuleThatDoesNotWrapItIsSkipped) {
  const RunResult r = run_with("module api_probe_nopcontrol\nargument tag b\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(r.out, {"barrier-world: [Bb] rc=0", "pcontrol-1: [] rc=0"}));
}

TEST(Pcontrol, OffForOneModule) {
  const RunResult r = run_with("module api_probe\nargument tag a\npcontrol off\n"
                               "module api_probe\nargument tag c\npcontrol on\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(r.out, {"pcontrol-1: [Pc:1] rc=0"}));
}

TEST(Pcontrol, GlobalOffAndOn) {
  const std::string conf = "module api_probe\nargument tag a\npcontrol off\n"
                           "module api_probe\nargument tag c\n";
  const RunResult off = run_with("globalpcontrol off\n" + conf);
  ASSERT_EQ(off.exit_code, 0) << describe(off);
  EXPECT_TRUE(in_order(off.out, {"barrier-world: [Ba Bc<-0] rc=0", "pcontrol-1: [] rc=0"}));
  const RunResult on = run_with("globalpcontrol on\n" + conf);
  ASSERT_EQ(on.exit_code, 0) << describe(on);
  EXPECT_TRUE(in_order(on.out, {"pcontrol-1: [Pa:1 Pc:1] rc=0"}));
}

TEST(Pcontrol, TypedPassesOneArgumentAtItsLevel) {
  const struct {
    const char *config, *at_level, *other;
  } cases[] = {
      {"typed 2 int", "pcontrol-2: [Pa:2:42 Pc:2:42] rc=0", "pcontrol-3: [Pa:3 Pc:3] rc=0"},
      {"typed 3 long", "pcontrol-3: [Pa:3:1234567890123 Pc:3:1234567890123] rc=0",
       "pcontrol-4: [Pa:4 Pc:4] rc=0"},
      {"typed 4 double", "pcontrol-4: [Pa:4:2.5 Pc:4:2.5] rc=0", "pcontrol-5: [Pa:5 Pc:5] rc=0"},
      {"typed 5 pointer", "pcontrol-5: [Pa:5:marker Pc:5:marker] rc=0",
       "pcontrol-1: [Pa:1 Pc:1] rc=0"},
  };
  for (const auto &c : cases) {
    const RunResult r = run_with(std::string("globalpcontrol ") + c.config + "\n" + kPcontrolTrio);
    ASSERT_EQ(r.exit_code, 0) << c.config << "\n" << describe(r);
    EXPECT_EQ(count(r.out, c.at_level), 1u) << c.config << "\n" << r.out;
    EXPECT_EQ(count(r.out, c.other), 1u) << c.config << "\n" << r.out;
  }
}

TEST(Pcontrol, TheFirstErrorReachesTheApplicationAndEveryoneStillReceives) {
  const RunResult r = run_with("module api_probe\nargument tag a\nargument pcontrol-returns 7\n"
                               "module api_probe\nargument tag c\nargument pcontrol-returns 9\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(r.out, {"pcontrol-1: [Pa:1 Pc:1] rc=7"}));
}

TEST(Services, PublishAndSubscribe) {
  const RunResult r =
      run_with("module api_consumer\nargument colour blue\nmodule api_provider\n", 1);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(r.out, {"provider: register service=0 again=-9 global=0",
                               "consumer: self=0 provider=1 (Success) modules=2 stacks=1",
                               "consumer: api.add(2, 3) = 5",
                               "consumer: api.add with signature dd: Signatures don't match",
                               "consumer: api.nope: Service not found",
                               "consumer: api.add of module 99: Module not found",
                               "consumer: api.counter = 40, set to 42",
                               "consumer: api.counter with signature d: Signatures don't match",
                               "consumer: api.nope global: Global not found",
                               "consumer: module nope: Module not found",
                               "consumer: stack default = 0 (Success)",
                               "consumer: stack nope: Stack not found",
                               "consumer: renamed = 0 (Success)",
                               "consumer: argument colour = blue (Success)",
                               "consumer: argument missing: Argument not found",
                               "consumer: return address: Success",
                               "consumer: pcontrol self=1",
                               "provider: api_hook in layer 1",
                               "result: size=1",
                               "provider: counter=42"}));
}

TEST(Arguments, TypedValuesAndDefaults) {
  const RunResult r = run_with("module api_args\nargument count 5\nargument ratio 0.25\n"
                               "argument verbose yes\nargument mode exact\nargument name abc\n",
                               1);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(r.out, {"args: count=5 ratio=0.25 verbose=1 mode=exact name=abc "
                               "(0 0 0 0 0)"}));
  const RunResult d = run_with("module api_args\nargument name two words\n", 1);
  ASSERT_EQ(d.exit_code, 0) << describe(d);
  EXPECT_TRUE(in_order(d.out, {"args: count=7 ratio=0.5 verbose=0 mode=fast name=two words "
                               "(-7 -7 -7 -7 0)"}));
}

/// The job stops, every rank printing `message` once, and the application never runs.
void expect_stops_with(const RunResult &r, const std::string &message) {
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.err, "pnmpi: " + message), 2u) << "want: pnmpi: " << message << "\n"
                                                   << describe(r);
  EXPECT_EQ(r.out.find("init:"), std::string::npos) << "the application must not go on";
}

TEST(Arguments, MalformedValuesStopTheJobWithFileAndLine) {
  expect_stops_with(run_with("module api_args\nargument name x\n\nargument count 500\n"),
                    conf_path() + ":4: module 'api_args': argument 'count' must be a whole number "
                                  "from 0 to 100, not '500'");
  expect_stops_with(run_with("module api_args\nargument name x\nargument verbose maybe\n"),
                    conf_path() + ":3: module 'api_args': argument 'verbose' must be 'on' or 'off' "
                                  "(or yes/no, true/false, 1/0), not 'maybe'");
  expect_stops_with(run_with("module api_args\nargument name x\nargument mode slow\n"),
                    conf_path() + ":3: module 'api_args': argument 'mode' must be one of 'fast' or "
                                  "'exact', not 'slow'");
  expect_stops_with(run_with("module api_args\nargument name x\nargument ratio 2\n"),
                    conf_path() + ":3: module 'api_args': argument 'ratio' must be a number from 0 "
                                  "to 1, not '2'");
}

TEST(Arguments, AMissingRequiredArgumentNamesTheModuleLine) {
  expect_stops_with(
      run_with("module api_probe\nargument tag a\nmodule api_args\nargument count 1\n"),
      conf_path() + ":3: module 'api_args' needs an argument 'name': add 'argument "
                    "name VALUE' below this line");
}

TEST(PnmpiRun, RunsAnUnchangedBinaryUnderAStack) {
  MpiJob job;
  const std::string conf = write_temp_file("api.PnmpiRun.conf", kTwoProbes);
  job.program = {PNMPI_RUN, "-c", conf, "-L", kModules, "-d", "1", app("api_app_plain")};
  job.env["PNMPI_LIB_PATH"] = "/nonexistent";
  job.env["PNMPI_CONF"] = "/nonexistent.conf";
  const RunResult r = run_mpi(job);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(r.out, {"init: [Ia Ib] rc=0", "barrier-world: [Ba Bb<-0] rc=0",
                               "pcontrol-1: [Pa:1 Pb:1] rc=0", "result: size=2"}));
  EXPECT_EQ(count(r.out, "loaded b self=1 own=1 stack=0"), 2u) << r.out;
  EXPECT_EQ(count(r.err, "pnmpi[debug]: configuration " + conf + ": 2 module line(s)"), 2u)
      << r.err;
}

TEST(Fatal, AnErrorOnOneRankEndsTheWholeJobPromptly) {
  // Only rank 1 reads a config whose module is missing: rank 0 goes on into MPI_Init. A rank
  // that just exited would leave Hydra (MPICH) waiting for it forever.
  const std::string good =
      write_temp_file("api.Fatal.good.conf", "module api_probe\nargument tag a\n");
  const std::string bad = write_temp_file("api.Fatal.bad.conf", "module api_probe\nargument tag a\n"
                                                                "module nosuchmodule\n");
  MpiJob job;
  job.program = {"/bin/sh", "-c",
                 "if [ \"${OMPI_COMM_WORLD_RANK:-$PMI_RANK}\" = 1 ]; then PNMPI_CONF=\"$1\"; "
                 "export PNMPI_CONF; fi; exec \"$0\"",
                 app("api_app"), bad};
  job.env["PNMPI_LIB_PATH"] = kModules;
  job.env["PNMPI_CONF"] = good;
  job.timeout_s = 60;
  const RunResult r = run_mpi(job); // ends, not hangs: timed_out says a hang
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  ASSERT_EQ(r.rank_err.size(), 2u);
  EXPECT_EQ(lines_with(r.rank_err[0], "pnmpi: ").size(), 0u) << r.rank_err[0];
  EXPECT_EQ(lines_with(r.rank_err[1], "pnmpi: " + bad +
                                          ":3: module 'nosuchmodule' not found: no "
                                          "nosuchmodule.so or libnosuchmodule.so in ")
                .size(),
            1u)
      << r.rank_err[1];
  EXPECT_EQ(r.out.find("result:"), std::string::npos) << "the application must not finish";
}

TEST(Trust, AModuleInAWorldWritableDirectoryStopsEveryRank) {
  const std::string open = std::string(PNMPI_TEST_SCRATCH_DIR) + "/api.open-modules";
  ::mkdir(open.c_str(), 0755);
  {
    std::ifstream in(kModules + "/api_probe.so", std::ios::binary);
    std::ofstream out(open + "/api_probe.so", std::ios::binary | std::ios::trunc);
    out << in.rdbuf();
  }
  ASSERT_EQ(::chmod(open.c_str(), 0777), 0);
  MpiJob job;
  job.program = {app("api_app")};
  job.env["PNMPI_LIB_PATH"] = open;
  job.env["PNMPI_CONF"] = write_temp_file("api.Trust.conf", kTwoProbes);
  const RunResult refused = run_mpi(job);
  EXPECT_NE(refused.exit_code, 0) << describe(refused);
  ASSERT_EQ(refused.rank_err.size(), 2u);
  for (const std::string &err : refused.rank_err)
    EXPECT_EQ(lines_with(err, "pnmpi: " + job.env["PNMPI_CONF"] + ":1: module 'api_probe' (" +
                                  open + "/api_probe.so): not trusted: its directory " + open +
                                  " is writable by its group and others (mode 0777), so they "
                                  "decide what pnmpi loads; run 'chmod go-w " +
                                  open + "', or set PNMPI_ALLOW_UNSAFE=1 to accept it")
                  .size(),
              1u)
        << err;
  job.env["PNMPI_ALLOW_UNSAFE"] = "1";
  const RunResult allowed = run_mpi(job);
  EXPECT_EQ(allowed.exit_code, 0) << describe(allowed);
  ::chmod(open.c_str(), 0755);
}

TEST(Debug, AValueThatIsNoLevelIsAWarningOnEveryRank) {
  const RunResult r = run_with(kTwoProbes, 2, {{"PNMPI_DEBUG", "abc"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.err, "pnmpi: warning: PNMPI_DEBUG is 'abc', not a debug level (a whole "
                         "number, 0 to 4); debug output stays off"),
            2u)
      << r.err;
}

// --- Modules written for the original PnMPI ---------------------------------------------

TEST(Compat, StatusTextsAreTheOriginals) {
  const RunResult r = run_with("module api_compat\n", 1);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(
      r.out,
      {"compat: strerror 0: Success", "compat: strerror -1: Failure",
       "compat: strerror -2: Can't allocate memory", "compat: strerror -3: Module not found",
       "compat: strerror -4: Service not found", "compat: strerror -5: Global not found",
       "compat: strerror -6: Signatures don't match", "compat: strerror -7: Argument not found",
       "compat: strerror -8: Stack not found", "compat: strerror -128: Service not implemented",
       "compat: strerror 12345: Unknown"}));
}

TEST(Compat, ReturnAddressIsTheApplications) {
  // From a hook: where the application called MPI_Init; from a wrapper: where it called
  // the routine, even below another layer, and from a second (slid) copy of a module.
  const RunResult r =
      run_with("module api_probe\nargument tag a\nmodule api_compat\nmodule api_compat\n", 1);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.out, "compat: hook return address: application (Success)"), 2u) << r.out;
  // Two copies, MPI_Barrier on MPI_COMM_WORLD and on MPI_COMM_SELF.
  EXPECT_EQ(count(r.out, "compat: barrier return address: application (Success)"), 4u) << r.out;
}

TEST(Compat, DebugAndWarningMessagesAsThePnmpiMacrosPrintThem) {
  // PNMPI_DBGLEVEL 2 is PNMPI_DEBUG_MODULE alone: printed before MPI_Init (no rank prefix,
  // every rank); the warning goes to stderr with the rank in front once MPI runs.
  const RunResult r = run_with("module api_compat\n", 2, {{"PNMPI_DBGLEVEL", "2"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.out, "[compat] debug module 1"), 2u) << r.out;
  EXPECT_EQ(r.out.find("debug init"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("barrier debug"), std::string::npos) << r.out;
  ASSERT_EQ(r.rank_err.size(), 2u);
  EXPECT_EQ(count(r.rank_err[0], "0: [compat] barrier warning w"), 2u) << r.rank_err[0];
  EXPECT_EQ(count(r.rank_err[1], "1: [compat] barrier warning w"), 2u) << r.rank_err[1];
}

TEST(Compat, DebugNodeLimitsDebugMessagesToOneRank) {
  const RunResult r =
      run_with("module api_compat\n", 2, {{"PNMPI_DBGLEVEL", "4"}, {"PNMPI_DBGNODE", "1"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  // MPI_Barrier on MPI_COMM_WORLD and on MPI_COMM_SELF.
  EXPECT_EQ(count(r.out, "1: [compat] barrier debug"), 2u) << r.out;
  EXPECT_EQ(r.out.find("0: [compat] barrier debug"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("debug module"), std::string::npos) << r.out;
}

TEST(Compat, ErrorNamesFunctionAndLineAndEndsTheJob) {
  const RunResult r = run_with("module api_compat\nargument fail yes\n");
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex("[01]: \\[compat\\] MPI_Barrier:[0-9]+: stopping as asked: yes\n")))
      << r.err;
  EXPECT_EQ(r.out.find("result:"), std::string::npos) << r.out;
}

TEST(Compat, AModuleThatDoesNothingIsLoadedWithADebugNote) {
  // PnMPI loads it; it takes its number, so the probe after it is module 1.
  const RunResult r =
      run_with("module api_inert\nmodule api_probe\nargument tag a\n", 1, {{"PNMPI_DEBUG", "1"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(r.out, {"loaded a self=1 own=1 stack=0", "result: size=1"}));
  EXPECT_EQ(count(r.err, "pnmpi[debug]: " + conf_path() + ":1: module 'api_inert' (" + kModules +
                             "/api_inert.so): wraps no MPI routine and defines no pnmpi hook, "
                             "so it does nothing but load; if it was built with "
                             "-fvisibility=hidden, export its MPI_ wrappers (PNMPI_EXPORT)"),
            1u)
      << r.err;
}

// Layers that are copies of one file. By default pnmpi maps copies itself: the first from
// the file by the dynamic linker, each further one from the file again or from one of the
// slid images in memory that copies with the same slide share (PNMPI_COPIES=unslid: all
// from the file); PNMPI_COPIES=files writes each copy to a file for the dynamic linker, as
// it does for modules it cannot map itself. In every way each copy has its own data and
// runs its constructor once, in config order, and its destructor once.
struct CopyMode {
  const char *mode;
  int file, memory, deleted; ///< the executable mappings api_copies counts
};

class Copies : public ::testing::TestWithParam<CopyMode> {};

TEST_P(Copies, ThreeLayersOfOneFileAreThreeCopiesWithTheirOwnData) {
  const CopyMode m = GetParam();
  std::map<std::string, std::string> env;
  if (*m.mode != '\0')
    env["PNMPI_COPIES"] = m.mode;
  const RunResult r = run_with("module api_copies\nargument tag a\nmodule api_copies\n"
                               "argument tag b\nmodule api_copies\nargument tag c\n",
                               1, env);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::vector<std::string> ctors = lines_starting_with(r.out, "ctor ");
  ASSERT_EQ(ctors.size(), 3u) << r.out;
  const std::string a = ctors[0].substr(5), b = ctors[1].substr(5), c = ctors[2].substr(5);
  EXPECT_TRUE(a != b && b != c && a != c) << r.out;
  const std::string maps = " maps file=" + std::to_string(m.file) +
                           " memory=" + std::to_string(m.memory) +
                           " deleted=" + std::to_string(m.deleted);
  EXPECT_TRUE(in_order(r.out, {"ctor " + a, "ctor " + b, "ctor " + c, "loaded a " + a + maps,
                               "loaded b " + b + maps, "loaded c " + c + maps,
                               "barrier-world: [a1 b1 c1] rc=0", "barrier-self: [a2 b2 c2] rc=0",
                               "finalized"}));
  EXPECT_EQ(lines_starting_with(r.out, "dtor ").size(), 3u) << r.out;
  if (std::string(m.mode) == "files") {
    // The dynamic linker runs the destructors of objects nothing depends on in load order.
    EXPECT_TRUE(in_order(r.out, {"finalized", "dtor " + a + " barriers=2",
                                 "dtor " + b + " barriers=2", "dtor " + c + " barriers=2"}));
  } else {
    // Mapped copies go in reverse, as constructed objects do, the newest first; the first
    // copy, the dynamic linker's, goes last.
    EXPECT_TRUE(in_order(r.out, {"finalized", "dtor " + c + " barriers=2",
                                 "dtor " + b + " barriers=2", "dtor " + a + " barriers=2"}));
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Copies,
                         ::testing::Values(CopyMode{"", 1, 2, 0}, CopyMode{"unslid", 3, 0, 0},
                                           CopyMode{"files", 1, 0, 2}),
                         [](const ::testing::TestParamInfo<CopyMode> &info) {
                           return std::string(*info.param.mode ? info.param.mode : "mapped");
                         });

TEST(CopiesOfTls, AnUnknownCopyModeIsAWarningAndCopiesAreMapped) {
  const RunResult r = run_with("module api_copies\nargument tag a\nmodule api_copies\n"
                               "argument tag b\n",
                               1, {{"PNMPI_COPIES", "disk"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(count(r.err, "pnmpi: warning: PNMPI_COPIES is 'disk', not mapped, unslid or files; "
                         "copies are mapped"),
            1u)
      << r.err;
  EXPECT_EQ(lines_with(r.out, " maps file=1 memory=1 deleted=0").size(), 2u) << r.out;
}

TEST(CopiesOfTls, AModuleWithThreadLocalStorageIsCopiedToAFileWithADebugNote) {
  const RunResult r = run_with("module api_tls\nmodule api_tls\n", 1, {{"PNMPI_DEBUG", "1"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(r.out, {"barrier-world: [T1 T1] rc=0", "barrier-self: [T2 T2] rc=0"}));
  EXPECT_EQ(count(r.err, "pnmpi[debug]: " + conf_path() + ":2: module 'api_tls' (" + kModules +
                             "/api_tls.so): further copies are written to files for the dynamic "
                             "linker, each with its own code (it has thread-local storage "
                             "(PT_TLS))"),
            1u)
      << r.err;
}

// PnMPI's numbering: every `module` and `stack` line takes the next handle; a stack's handle
// is that of the line after its `stack` line. Here: a 0, stack side 1, b 2, c 3,
// stack empty 4, stack third 5, d 6.
const std::string kNumbered = "module api_numbering\nargument tag a\nargument into side\n"
                              "stack side\n"
                              "module api_numbering\nargument tag b\n"
                              "module api_numbering\nargument tag c\nargument into third\n"
                              "stack empty\nstack third\n"
                              "module api_numbering\nargument tag d\n";

TEST(Numbering, AStackLineTakesAHandleAsInPnmpi) {
  const RunResult r = run_with(kNumbered, 1);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(
      r.out,
      {"numbering: a self=0 stack=0 by-name=0 arg=a pcontrol=1",
       "numbering: stack side = 2 (Success)", "numbering: num_hook in 2 (b)",
       "numbering: num_hook in 3 (c)", "numbering: b self=2 stack=2 by-name=2 arg=b pcontrol=1",
       "numbering: c self=3 stack=2 by-name=3 arg=c pcontrol=1",
       "numbering: stack third = 6 (Success)", "numbering: num_hook in 6 (d)",
       "numbering: d self=6 stack=6 by-name=6 arg=d pcontrol=1", "result: size=1"}));
  // The hook that recursed through stack side stopped at its end, before d.
  EXPECT_EQ(count(r.out, "numbering: num_hook in 6 (d)"), 1u) << r.out;
}

TEST(Numbering, AnExplicitDefaultStackLineTakesHandleZero) {
  const RunResult r =
      run_with("stack default\nmodule api_numbering\nargument tag a\nargument into default\n", 1);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(
      in_order(r.out, {"numbering: a self=1 stack=1 by-name=1 arg=a pcontrol=1",
                       "numbering: stack default = 1 (Success)", "numbering: num_hook in 1 (a)"}));
}

TEST(Numbering, AHandleThatIsAStackLineIsNoModule) {
  // Handle 1 is `stack side`: no module has it. api_consumer asks for module 99's service;
  // here the bad handle is a stack line's, which must be refused the same way.
  const RunResult r = run_with(kNumbered, 1);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out.find("self=1 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("self=4 "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("self=5 "), std::string::npos) << r.out;
}

// --- The start-up banner -----------------------------------------------------------------

RunResult run_banner(const std::string &conf, std::map<std::string, std::string> env = {}) {
  MpiJob job;
  job.ranks = 2;
  job.banner = true;
  job.program = {app("api_app")};
  job.env = std::move(env);
  job.env["PNMPI_LIB_PATH"] = kModules;
  job.env["PNMPI_CONF"] = test_conf_file(conf);
  return run_mpi(job);
}

TEST(Banner, ListsStacksModulesArgumentsServicesAndGlobalsOnRankZeroOnce) {
  const RunResult r = run_banner("module api_provider\nstack side\nmodule api_probe\n"
                                 "argument tag a\npcontrol off\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(
      r.out, {" Application:", "  MPI interface: C", " Global settings:", "  Pcontrol: 5 (int)",
              " Loaded modules:", "  Stack default:",
              "    api_provider (registered as: provider-name) (Pcontrol: 1)",
              "      Services:", "        api.add (signature: ii)",
              "      Globals:", "        api.counter (i)", "  Stack side:", "    api_probe",
              "      Arguments:", "        tag: a", "init: [] rc=0"}));
  EXPECT_EQ(count(r.out, " Loaded modules:"), 1u) << r.out;
}

TEST(Banner, SaysWhenTheConfigListsNoModule) {
  const RunResult r = run_banner("# nothing yet\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(in_order(
      r.out, {" Application:", "  MPI interface: C", " No modules loaded.", "init: [] rc=0"}));
  EXPECT_EQ(r.out.find("Loaded modules"), std::string::npos) << r.out;
}

TEST(Banner, PnmpiBeSilentSilencesItAndPnmpiDebugShowsItAsDebugOutput) {
  const RunResult quiet = run_banner(kTwoProbes, {{"PNMPI_BE_SILENT", "1"}});
  ASSERT_EQ(quiet.exit_code, 0) << describe(quiet);
  EXPECT_EQ(quiet.out.find("Loaded modules"), std::string::npos) << quiet.out;
  EXPECT_EQ(quiet.err.find("banner"), std::string::npos) << quiet.err;
  const RunResult debug = run_banner(kTwoProbes, {{"PNMPI_BE_SILENT", "1"}, {"PNMPI_DEBUG", "1"}});
  ASSERT_EQ(debug.exit_code, 0) << describe(debug);
  EXPECT_EQ(debug.out.find("Loaded modules"), std::string::npos) << debug.out;
  EXPECT_TRUE(in_order(
      debug.err, {"pnmpi[debug]: banner: Loaded modules:", "pnmpi[debug]: banner:  Stack default:",
                  "pnmpi[debug]: banner:    api_probe (Pcontrol: 1)",
                  "pnmpi[debug]: banner:      Arguments:", "pnmpi[debug]: banner:        tag: a"}));
}

TEST(Banner, WithoutAConfigurationThereIsNone) {
  // Unlike PnMPI: a site that preloads pnmpi for every job adds nothing to the output of a
  // job that configured no tools.
  MpiJob job;
  job.banner = true;
  job.program = {app("api_app")};
  job.env["PNMPI_CONF"] = "";
  job.env["HOME"] = PNMPI_TEST_SCRATCH_DIR;
  const RunResult r = run_mpi(job);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("init: [] rc=0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Application:"), std::string::npos) << r.out;
  EXPECT_EQ(count(r.out, "No modules loaded."), 0u) << r.out;
}

} // namespace
} // namespace pnmpi::test
