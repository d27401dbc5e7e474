// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// pnmpi-info and pnmpi-run as a user runs them, without an MPI job: exact output, exit
// statuses and FILE:LINE messages. (pnmpi-run under mpirun is in tests/core/test_module_api.cpp.)

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "pnmpi_routine_ids.h"
#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

const std::string kModules = TOOLS_TEST_MODULE_DIR;

std::string conf_file(const std::string &text) {
  return test_conf_file(text);
}

/// Runs pnmpi-info with `args`, PNMPI_LIB_PATH = the test modules, no inherited config.
RunResult info(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  args.insert(args.begin(), TOOLS_TEST_INFO);
  env.emplace("PNMPI_LIB_PATH", kModules);
  env.emplace("PNMPI_CONF", "");
  env.emplace("HOME", PNMPI_TEST_SCRATCH_DIR);
  return run(args, env, 60);
}

RunResult run_tool(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  args.insert(args.begin(), TOOLS_TEST_RUN);
  return run(args, env, 60);
}

std::string header() {
  return std::string("pnmpi-info ") + TOOLS_TEST_VERSION + " (built for " + PNMPI_TEST_MPI_FLAVOR +
         ", " + std::to_string(PNMPI_NUM_ROUTINES) + " MPI routines)\n";
}

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

const char *kStacked = "module api_route\n"
                       "argument threshold 2\n"
                       "argument small small\n"
                       "argument large large\n"
                       "globalpcontrol typed 2 int\n"
                       "stack small\n"
                       "module api_probe\n"
                       "argument tag s\n"
                       "pcontrol off\n"
                       "stack large\n"
                       "module api_probe\n"
                       "argument tag l\n";

/// The report's line when no site configuration applies.
std::string no_site() {
  return std::string("site configuration: none ($PNMPI_SITE_CONF, or ") +
         TOOLS_TEST_SITE_CONF_FILE + ")\n";
}

/// The report's line for a module given arguments that exports no pnmpi_module_check.
const std::string kUnchecked =
    "      values: not checked (the module exports no pnmpi_module_check)\n";

// The numbers are the handles the services give (the original PnMPI's numbering): a `stack`
// line takes one, and a stack's is the number after its line.
TEST(Info, ReportsConfigModulesAndLinkStacks) {
  const std::string conf = conf_file(kStacked);
  const RunResult r = info({"-c", conf});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.err, "");
  const std::string hooks = "      hooks: pnmpi_module_loaded PNMPI_RegistrationPoint "
                            "PNMPI_Init PNMPI_Fini pnmpi_module_finalize "
                            "PNMPI_UnregistrationPoint\n";
  EXPECT_EQ(r.out, header() + "configuration: " + conf + " (from -c)\n" + no_site() +
                       "module search path:\n" + "  " + kModules + " (PNMPI_LIB_PATH)\n" + "  " +
                       PNMPI_TEST_INSTALL_MODULE_DIR +
                       " (the install's module directory)\n"
                       "globalpcontrol: typed 2 int\n"
                       "\n"
                       "modules:\n"
                       "  [0] api_route (line 1, stack default)\n"
                       "      file: " +
                       kModules +
                       "/api_route.so\n"
                       "      argument threshold = 2 (line 2)\n"
                       "      argument small = small (line 3)\n"
                       "      argument large = large (line 4)\n" +
                       kUnchecked +
                       "      wraps 2 routine(s); MPI_Pcontrol on\n"
                       "      hooks: pnmpi_module_loaded\n"
                       "  [2] api_probe (line 7, stack small)\n"
                       "      file: " +
                       kModules +
                       "/api_probe.so\n"
                       "      argument tag = s (line 8)\n" +
                       kUnchecked + "      wraps 4 routine(s); MPI_Pcontrol off\n" + hooks +
                       "  [4] api_probe (line 11, stack large)\n"
                       "      file: " +
                       kModules +
                       "/api_probe.so\n"
                       "      argument tag = l (line 12)\n" +
                       kUnchecked + "      wraps 4 routine(s); MPI_Pcontrol on\n" + hooks +
                       "\n"
                       "link stacks:\n"
                       "  stack default [0]:\n"
                       "    MPI_Barrier                  api_route[0] -> MPI\n"
                       "    MPI_Pcontrol                 api_route[0] -> MPI\n"
                       "  stack small [2]:\n"
                       "    MPI_Barrier                  api_probe[2] -> MPI\n"
                       "    MPI_Comm_size                api_probe[2] -> MPI\n"
                       "    MPI_Init                     api_probe[2] -> MPI\n"
                       "    MPI_Pcontrol                 api_probe[2] -> MPI\n"
                       "  stack large [4]:\n"
                       "    MPI_Barrier                  api_probe[4] -> MPI\n"
                       "    MPI_Comm_size                api_probe[4] -> MPI\n"
                       "    MPI_Init                     api_probe[4] -> MPI\n"
                       "    MPI_Pcontrol                 api_probe[4] -> MPI\n");
}

TEST(Info, ChainsListEveryLayerInOrder) {
  const std::string conf =
      conf_file("module api_probe\nargument tag a\nmodule api_probe_nopcontrol\nargument tag b\n"
                "module api_route\nargument threshold 1\nargument small default\n"
                "argument large default\n");
  const RunResult r = info({"-c", conf, "--routine", "Barrier"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("link stacks:\n  stack default [0]:\n    MPI_Barrier                  "
                       "api_probe[0] -> api_probe_nopcontrol[1] -> api_route[2] -> MPI\n"),
            std::string::npos)
      << r.out;
  const RunResult p = info({"-c", conf, "-r", "MPI_Pcontrol"});
  EXPECT_NE(p.out.find("    MPI_Pcontrol                 api_probe[0] -> api_route[2] -> MPI\n"),
            std::string::npos)
      << p.out;
  const RunResult s = info({"-c", conf, "-r", "MPI_Send"});
  EXPECT_NE(s.out.find("    MPI_Send                     MPI\n"), std::string::npos) << s.out;
}

TEST(Info, FindsTheConfigAsTheCoreDoes) {
  const std::string conf = conf_file("module api_probe\nargument tag a\n");
  const RunResult r = info({}, {{"PNMPI_CONF", conf}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("configuration: " + conf + " (from $PNMPI_CONF)\n"), std::string::npos)
      << r.out;
  const RunResult none = info({});
  ASSERT_EQ(none.exit_code, 0) << describe(none);
  EXPECT_EQ(none.out, header() +
                          "configuration: none ($PNMPI_CONF, ./.pnmpi-conf, "
                          "~/.pnmpi-conf): no modules, every MPI call goes straight "
                          "to MPI\n" +
                          no_site());
  const RunResult missing = info({}, {{"PNMPI_CONF", "/nonexistent/pnmpi.conf"}});
  EXPECT_EQ(missing.exit_code, 1) << describe(missing);
  EXPECT_EQ(missing.err, "pnmpi-info: PNMPI_CONF is set to '/nonexistent/pnmpi.conf', which is "
                         "not a readable file; fix the path or unset PNMPI_CONF\n");
  // -c names the file itself: the message says so, and PNMPI_CONF is not consulted.
  const RunResult option = info({"-c", "/nonexistent/c.conf"}, {{"PNMPI_CONF", "/elsewhere"}});
  EXPECT_EQ(option.exit_code, 1) << describe(option);
  EXPECT_EQ(option.err,
            "pnmpi-info: -c '/nonexistent/c.conf': not a readable file; fix the path\n");
}

TEST(Info, LibPathOptionComesBeforeTheEnvironment) {
  const std::string conf = conf_file("module api_probe\nargument tag a\n");
  // -L directories are labelled as such and shown clean (no "..", no trailing '/').
  const RunResult r = info({"-c", conf, "-L", "/first", "-L", "/x/../second/"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("module search path:\n  /first (-L)\n  /second (-L)\n  " + kModules +
                       " (PNMPI_LIB_PATH)\n"),
            std::string::npos)
      << r.out;
}

TEST(Check, AGoodConfigSaysOk) {
  const std::string conf = conf_file(kStacked);
  const RunResult r = info({"--check", "-c", conf});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "pnmpi-info: " + conf +
                       ": ok (3 module(s), 3 stack(s)); the argument values of 'api_route', "
                       "'api_probe' are not checked here (no pnmpi_module_check): "
                       "the job checks them when it starts\n");
  EXPECT_EQ(r.err, "");
}

TEST(Check, ReportsEveryProblemWithFileAndLine) {
  const std::string conf = conf_file("module api_probe\n"
                                     "argument tag a\n"
                                     "module nosuchmodule\n"
                                     "module api_unpatched\n"
                                     "stack other\n"
                                     "module api_probe_nopcontrol\n"
                                     "argument tag b\n"
                                     "pcontrol off\n"
                                     "stack spare\n");
  const RunResult r = info({"--check", "-c", conf});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_EQ(r.out, "");
  const std::vector<std::string> lines = lines_of(r.err);
  ASSERT_EQ(lines.size(), 4u) << r.err;
  EXPECT_EQ(lines[0], "pnmpi-info: " + conf +
                          ":9: warning: stack 'spare' has no modules: calls sent into it go "
                          "straight to MPI");
  EXPECT_EQ(lines[1], "pnmpi-info: " + conf +
                          ":8: warning: module 'api_probe_nopcontrol' does not wrap MPI_Pcontrol: "
                          "'pcontrol' has no effect");
  EXPECT_EQ(lines[2].rfind("pnmpi-info: " + conf + ":3: module 'nosuchmodule' not found", 0), 0u)
      << lines[2];
  EXPECT_EQ(lines[3].rfind("pnmpi-info: " + conf + ":4: module 'api_unpatched' (" + kModules +
                               "/api_unpatched.so): calls PMPI_",
                           0),
            0u)
      << lines[3];
}

TEST(Check, ASyntaxErrorStopsAtItsLine) {
  const std::string conf = conf_file("module api_probe\nargument tag a\nstack\n");
  for (bool check : {true, false}) {
    std::vector<std::string> args{"-c", conf};
    if (check)
      args.push_back("--check");
    const RunResult r = info(args);
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_EQ(r.err,
              "pnmpi-info: " + conf + ":3: 'stack' needs a stack name, as in 'stack small'\n");
  }
}

TEST(Check, TheExampleConfigIsClean) {
  const RunResult r =
      info({"--check", "-c", std::string(PNMPI_TEST_SOURCE_DIR) + "/.pnmpi-conf.example"},
           {{"PNMPI_LIB_PATH", PNMPI_MODULE_BUILD_DIR}});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.err, "");
}

// The site's configuration (issue 25 item 1): which file, its records, opt-out and rules,
// its modules after the user's default stack, and --check's verdict on it, marked as the
// site's.
TEST(Site, TheReportShowsTheSiteConfiguration) {
  const std::string conf = conf_file("module api_probe\nargument tag a\n");
  const std::string site = write_temp_file(test_name() + ".site", "records /var/log/pnmpi-test\n"
                                                                  "optout deny\n"
                                                                  "exclude ^/usr/bin/\n"
                                                                  "module api_route\n"
                                                                  "argument threshold 1\n"
                                                                  "argument small default\n"
                                                                  "argument large default\n");
  const std::map<std::string, std::string> env = {{"PNMPI_SITE_CONF", site},
                                                  {"PNMPI_SITE_DISABLE", "1"}};
  const RunResult r = info({"-c", conf, "-x", "/usr/bin/env"}, env);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("site configuration: " + site +
                       " (from $PNMPI_SITE_CONF)\n"
                       "  records: /var/log/pnmpi-test (line 1)\n"
                       "  opt-out: denied (line 2): PNMPI_SITE_DISABLE=1 is ignored (set here, "
                       "and ignored)\n"
                       "  exclude ^/usr/bin/ (line 3)\n"
                       "  executable /usr/bin/env: excluded: the site's modules do not apply\n"),
            std::string::npos)
      << r.out;
  // The user's module first, then the site's (nearest MPI).
  EXPECT_NE(r.out.find("  [0] api_probe (line 1, stack default)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  [1] api_route (the site's, " + site + " line 4, stack default)\n"),
            std::string::npos)
      << r.out;
  const RunResult other = info({"-c", conf, "-x", "/opt/app/bin/solver"}, env);
  EXPECT_NE(other.out.find("  executable /opt/app/bin/solver: included: the site's modules "
                           "apply\n"),
            std::string::npos)
      << other.out;
  const RunResult ok = info({"--check", "-c", conf}, env);
  EXPECT_EQ(ok.exit_code, 0) << describe(ok);
  EXPECT_EQ(lines_of(ok.out).size(), 1u) << ok.out;
  EXPECT_EQ(ok.out.rfind("pnmpi-info: " + conf + " and site configuration " + site +
                             ": ok (2 module(s), 1 stack(s))",
                         0),
            0u)
      << ok.out;
}

TEST(Site, CheckSaysTheSitesProblemsAreTheSites) {
  const std::string conf = conf_file("module api_probe\nargument tag a\n");
  // A value the site's module refuses: found by the module's own check, marked as the site's.
  const std::string site =
      write_temp_file(test_name() + ".site", "module delay\nargument delay-us -1\n");
  const RunResult bad =
      info({"--check", "-c", conf, "-L", PNMPI_MODULE_BUILD_DIR}, {{"PNMPI_SITE_CONF", site}});
  EXPECT_EQ(bad.exit_code, 1) << describe(bad);
  EXPECT_EQ(bad.err, "pnmpi-info: " + site +
                         ":2: module 'delay': argument 'delay-us' must be a whole number from 0 "
                         "to 60000000, not '-1' [a module of the site configuration: for the "
                         "site's administrators to fix; a job runs on without it]\n");
  // A site configuration that does not parse.
  const std::string broken = write_temp_file(test_name() + ".broken", "modul delay\n");
  const RunResult parse = info({"--check", "-c", conf}, {{"PNMPI_SITE_CONF", broken}});
  EXPECT_EQ(parse.exit_code, 1) << describe(parse);
  EXPECT_EQ(parse.err, "pnmpi-info: " + broken +
                           ":1: unknown directive 'modul' (expected 'module', 'argument', "
                           "'pcontrol', 'records', 'optout', 'include' or 'exclude') [the site "
                           "configuration's: for the site's administrators to fix; a job runs "
                           "on without the site's modules]\n");
  // Only a site configuration: it is checked alone.
  const std::string good = write_temp_file(test_name() + ".good", "module delay\n");
  const RunResult alone = info({"--check", "-L", PNMPI_MODULE_BUILD_DIR},
                               {{"PNMPI_SITE_CONF", good}, {"HOME", "/nonexistent"}});
  EXPECT_EQ(alone.exit_code, 0) << describe(alone);
  EXPECT_EQ(alone.out,
            "pnmpi-info: site configuration " + good + ": ok (1 module(s), 1 stack(s))\n");
}

// pnmpi-run shortens a long path the same way (the core's shown()).
TEST(Run, ALongPathIsShortenedInTheMiddle) {
  const std::string name = "/nonexistent/" + std::string(4000, 'd') + "/x.conf";
  const RunResult r = run_tool({"-c", name, "true"});
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_EQ(r.err, "pnmpi-run: -c /nonexistent/" + std::string(78, 'd') + "...(4020 bytes)..." +
                       std::string(84, 'd') +
                       "/x.conf: no such configuration file\nTry 'pnmpi-run --help'.\n");
}

// A path of thousands of characters is shown shortened in the middle, start and end kept.
TEST(Check, ALongPathIsShortenedInTheMiddle) {
  const std::string name = "/nonexistent/" + std::string(4000, 'd') + "/pnmpi.conf";
  const RunResult r = info({"--check", "-c", name});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_EQ(r.err, "pnmpi-info: -c '/nonexistent/" + std::string(78, 'd') + "...(4024 bytes)..." +
                       std::string(80, 'd') + "/pnmpi.conf': not a readable file; fix the path\n");
}

TEST(Info, HelpVersionAndUsageErrors) {
  const RunResult help = info({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.rfind(
                "usage: pnmpi-info [-c CONF] [-L DIR]... [-x PROGRAM] [--check] [-r ROUTINE]\n", 0),
            0u)
      << help.out;
  const RunResult version = info({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, header());
  const RunResult bad = info({"--frobnicate"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "pnmpi-info: unknown argument '--frobnicate'\nTry 'pnmpi-info --help'.\n");
  const RunResult routine = info({"-r", "MPI_Nonsense"});
  EXPECT_EQ(routine.exit_code, 2);
  EXPECT_EQ(routine.err, std::string("pnmpi-info: no routine 'MPI_Nonsense' in the MPI pnmpi was "
                                     "built for (") +
                             PNMPI_TEST_MPI_FLAVOR + ")\nTry 'pnmpi-info --help'.\n");
  const RunResult missing = info({"-c"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err,
            "pnmpi-info: option -c needs a configuration file\nTry 'pnmpi-info --help'.\n");
}

TEST(Info, EmptyOptionValuesAreUsageErrors) {
  const std::string conf = conf_file("module api_probe\nargument tag a\n");
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"-L", "", "-c", conf}, "option -L needs a directory, not an empty string"},
      {{"--lib-path", "", "-c", conf}, "option --lib-path needs a directory, not an empty string"},
      {{"-c", ""}, "option -c needs a configuration file, not an empty string"},
      {{"-r", ""}, "option -r needs a routine name, not an empty string"}};
  for (const auto &[args, message] : cases) {
    const RunResult r = info(args);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_EQ(r.err, "pnmpi-info: " + message + "\nTry 'pnmpi-info --help'.\n");
  }
}

TEST(Info, EmptyLibPathElementsAreNotTheWorkingDirectory) {
  const std::string conf = conf_file("module api_probe\nargument tag a\n");
  const RunResult r = info({"-c", conf}, {{"PNMPI_LIB_PATH", ":" + kModules + "::"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("module search path:\n  " + kModules + " (PNMPI_LIB_PATH)\n  " +
                       PNMPI_TEST_INSTALL_MODULE_DIR + " (the install's module directory)\n"),
            std::string::npos)
      << r.out;
}

TEST(Check, TheMpiLibraryIsRefusedAsAModule) {
  const RunResult r =
      info({"--check", "-c", conf_file("module " + std::string(TOOLS_TEST_MPI_LIBRARY) + "\n")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_NE(r.err.find("): defines "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" PMPI_ symbol(s) (PMPI_"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(", ...): it is an MPI library, not a PMPI tool; list the tools to chain, "
                       "never the MPI library itself, which is always the bottom layer\n"),
            std::string::npos)
      << r.err;
}

// Built for the other installed MPI: refused by name, as a module (pnmpi-info --check, the
// same reader as the core's) and as a program libpnmpi is preloaded into.
TEST(Check, AModuleBuiltForAnotherMpiIsRefused) {
  const std::string module = TOOLS_TEST_OTHER_MPI_MODULE;
  if (module.empty())
    GTEST_SKIP() << "the other MPI's C library is not installed";
  const RunResult r = info({"--check", "-c", conf_file("module " + module + "\n")});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  const std::string ours = TOOLS_TEST_MPI_SONAME;
  EXPECT_NE(r.err.find("): built for another MPI: the module needs libmpi"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("and this pnmpi was built for " + ours + " ("), std::string::npos) << r.err;
}

TEST(Preload, AProgramBuiltForAnotherMpiIsRefusedBeforeItRuns) {
  const std::string app = TOOLS_TEST_OTHER_MPI_APP;
  if (app.empty())
    GTEST_SKIP() << "the other MPI's C library is not installed";
  const RunResult plain = run({app}, {}, 30);
  ASSERT_EQ(plain.exit_code, 0) << describe(plain);
  const RunResult r = run({app}, {{"LD_PRELOAD", TOOLS_TEST_LIBPNMPI}}, 30);
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_EQ(r.out, "") << "the program must not run";
  const std::string ours = TOOLS_TEST_MPI_SONAME;
  EXPECT_NE(r.err.find("pnmpi: built for another MPI: the program needs libmpi"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("and this pnmpi was built for " + ours + " ("), std::string::npos) << r.err;
}

// A module that declares its argument keys (PNMPI_MODULE_ARGUMENTS) refuses a misspelt one,
// at its line; one that declares nothing (api_probe) takes any key.
TEST(Check, AnArgumentTheModuleDoesNotTakeIsAnError) {
  const std::string conf =
      conf_file("module delay\nargument delay_us 200000\nmodule api_probe\nargument anything 1\n");
  const RunResult r = info({"--check", "-c", conf, "-L", PNMPI_MODULE_BUILD_DIR});
  EXPECT_EQ(r.exit_code, 1) << describe(r);
  EXPECT_EQ(r.err,
            "pnmpi-info: " + conf +
                ":2: module 'delay' takes no argument 'delay_us' (it takes delay-us, ranks); "
                "check the spelling\n")
      << describe(r);
  const RunResult ok = info({"--check", "-c", conf_file("module delay\nargument delay-us 0x10\n"),
                             "-L", PNMPI_MODULE_BUILD_DIR});
  EXPECT_EQ(ok.exit_code, 0) << describe(ok);
  const RunResult monitor =
      info({"--check", "-c", conf_file("module monitor\nargument ouptut /tmp/x\n"), "-L",
            PNMPI_MODULE_BUILD_DIR});
  EXPECT_EQ(monitor.exit_code, 1) << describe(monitor);
  EXPECT_NE(monitor.err.find(":2: module 'monitor' takes no argument 'ouptut' (it takes record, "
                             "output, files, histograms, summary, top, max-sessions, "
                             "gather-round-bytes, json-dense, json-dense-limit, parts); check the "
                             "spelling\n"),
            std::string::npos)
      << describe(monitor);
}

TEST(Check, AQuotedModulePathMayHoldBlanks) {
  const std::string dir = std::string(PNMPI_TEST_SCRATCH_DIR) + "/my tools";
  ::mkdir(dir.c_str(), 0755);
  {
    std::ifstream in(kModules + "/api_probe.so", std::ios::binary);
    std::ofstream out(dir + "/api_probe.so", std::ios::binary | std::ios::trunc);
    out << in.rdbuf();
  }
  const std::string conf = conf_file("module \"" + dir + "/api_probe.so\"\nargument tag \"a b\"\n");
  const RunResult r = info({"-c", conf});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("  [0] " + dir + "/api_probe.so (line 1, stack default)\n      file: " +
                       dir + "/api_probe.so\n      argument tag = a b (line 2)\n"),
            std::string::npos)
      << r.out;
}

TEST(Check, TwoHundredThousandArgumentsAreQuick) {
  std::string text = "module api_probe\nargument tag a\n";
  for (int i = 0; i < 200000; ++i)
    text += "argument k" + std::to_string(i) + " v\n";
  for (int i = 0; i < 200; ++i)
    text += "stack s" + std::to_string(i) + "\nmodule api_probe\nargument tag s\n";
  const std::string conf = conf_file(text);
  const RunResult r = info({"--check", "-c", conf});
  EXPECT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "pnmpi-info: " + conf +
                       ": ok (201 module(s), 201 stack(s)); the argument values of 'api_probe' "
                       "are not checked here (no pnmpi_module_check): the job checks them when "
                       "it starts\n");
  // No bound on the time here (the quadratic parser took 50 s, linear work well under a
  // second, but a loaded machine may take any time): bench/ measures it.
}

std::string library() {
  char resolved[PATH_MAX];
  EXPECT_NE(::realpath((std::string(PNMPI_TEST_BUILD_DIR) + "/lib").c_str(), resolved), nullptr);
  return std::string(resolved) + "/" + TOOLS_TEST_LIBPNMPI_SONAME;
}

std::string cwd() {
  char buf[PATH_MAX];
  return ::getcwd(buf, sizeof buf) != nullptr ? buf : "";
}

TEST(Run, SetsTheEnvironmentAndExecutesTheProgram) {
  const std::string conf = conf_file("module api_probe\nargument tag a\n");
  const RunResult r =
      run_tool({"-c", conf, "-L", "rel/dir", "-L", "/abs/dir:rel2", "-d", "3", "/usr/bin/env"},
               {{"PNMPI_LIB_PATH", "/old"}, {"LD_PRELOAD", ""}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const std::vector<std::string> lines = lines_of(r.out);
  auto has = [&](const std::string &line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  EXPECT_TRUE(has("PNMPI_CONF=" + conf)) << r.out;
  // A list given to -L is a list: each of its directories is made absolute.
  EXPECT_TRUE(has("PNMPI_LIB_PATH=" + cwd() + "/rel/dir:/abs/dir:" + cwd() + "/rel2:/old"))
      << r.out;
  EXPECT_TRUE(has("PNMPI_DEBUG=3")) << r.out;
  EXPECT_TRUE(has("LD_PRELOAD=" + library())) << r.out;
}

TEST(Run, NamesAnImplicitConfigurationOnTheFirstRankOnly) {
  const std::string dir = std::string(PNMPI_TEST_SCRATCH_DIR) + "/tools.implicit-conf";
  ::mkdir(dir.c_str(), 0755);
  std::ofstream(dir + "/.pnmpi-conf") << "module api_probe\n";
  const std::vector<std::string> sh = {"/bin/sh", "-c", "cd '" + dir + "' && exec \"$0\" \"$@\"",
                                       TOOLS_TEST_RUN};
  auto in_dir = [&](std::vector<std::string> args, std::map<std::string, std::string> env) {
    args.insert(args.begin(), sh.begin(), sh.end());
    env.emplace("PNMPI_CONF", "");
    for (const char *var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
      env.emplace(var, "");
    return run(args, env, 60);
  };
  const RunResult r = in_dir({"/bin/true"}, {});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.err, "pnmpi-run: configuration ./.pnmpi-conf in the working directory " + dir +
                       " (found there: neither PNMPI_CONF nor -c names a configuration)\n");
  EXPECT_EQ(in_dir({"/bin/true"}, {{"PMI_RANK", "0"}}).err, r.err);
  EXPECT_EQ(in_dir({"/bin/true"}, {{"PMI_RANK", "1"}}).err, "");
  EXPECT_EQ(in_dir({"/bin/true"}, {{"OMPI_COMM_WORLD_RANK", "3"}}).err, "");
  EXPECT_EQ(in_dir({"-c", ".pnmpi-conf", "/bin/true"}, {}).err, "");
  EXPECT_EQ(in_dir({"/bin/true"}, {{"PNMPI_CONF", dir + "/.pnmpi-conf"}}).err, "");
  EXPECT_EQ(in_dir({"-q", "/bin/true"}, {}).err, "");
}

TEST(Run, PrependsToAnExistingPreloadOnce) {
  const RunResult r = run_tool({"/usr/bin/env"}, {{"LD_PRELOAD", library() + " /lib/none.so"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_FALSE(lines_with(r.out, "LD_PRELOAD=" + library() + ":/lib/none.so").empty()) << r.out;
  const RunResult kept = run_tool({"/usr/bin/env"}, {{"PNMPI_LIB_PATH", "/kept"}});
  EXPECT_FALSE(lines_with(kept.out, "PNMPI_LIB_PATH=/kept").empty()) << kept.out;
}

TEST(Run, OptionsEndAtTheProgram) {
  const RunResult r = run_tool({"/bin/echo", "-c", "not-an-option"});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(r.out, "-c not-an-option\n");
  const RunResult dashes = run_tool({"--", "/bin/echo", "x"});
  EXPECT_EQ(dashes.out, "x\n");
}

TEST(Run, Errors) {
  const RunResult none = run_tool({});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err, "pnmpi-run: no program to run\nTry 'pnmpi-run --help'.\n");
  const RunResult missing = run_tool({"no-such-program-pnmpi"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_EQ(missing.err,
            "pnmpi-run: cannot run 'no-such-program-pnmpi': No such file or directory\n");
  const RunResult conf = run_tool({"-c", "/nonexistent.conf", "/bin/true"});
  EXPECT_EQ(conf.exit_code, 2);
  EXPECT_EQ(conf.err, "pnmpi-run: -c /nonexistent.conf: no such configuration file\nTry "
                      "'pnmpi-run --help'.\n");
  const RunResult dir = run_tool({"-c", "/tmp", "/bin/true"});
  EXPECT_EQ(dir.exit_code, 2);
  EXPECT_EQ(dir.err, "pnmpi-run: -c /tmp: not a configuration file but a directory; give the "
                     "file (such as /tmp/.pnmpi-conf)\nTry 'pnmpi-run --help'.\n");
  const RunResult option = run_tool({"-x", "/bin/true"});
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_EQ(option.err, "pnmpi-run: unknown option '-x'\nTry 'pnmpi-run --help'.\n");
}

TEST(Run, ALibpnmpiThatIsNotBesideItIsAnError) {
  // A copy of pnmpi-run in a bin/ directory with no lib/ beside it, as when it is copied out
  // of its install.
  const std::string root = std::string(PNMPI_TEST_SCRATCH_DIR) + "/moved-install";
  ::mkdir(PNMPI_TEST_SCRATCH_DIR, 0755);
  ::mkdir(root.c_str(), 0755);
  ::mkdir((root + "/bin").c_str(), 0755);
  const std::string moved = root + "/bin/pnmpi-run";
  {
    std::ifstream in(TOOLS_TEST_RUN, std::ios::binary);
    std::ofstream out(moved, std::ios::binary | std::ios::trunc);
    out << in.rdbuf();
  }
  ASSERT_EQ(::chmod(moved.c_str(), 0755), 0);
  const RunResult r = run({moved, "/bin/true"}, {}, 60);
  std::string tried =
      root + "/bin/" + TOOLS_TEST_BINDIR_TO_LIBDIR + "/" + TOOLS_TEST_LIBPNMPI_SONAME;
  if (std::string(TOOLS_TEST_BINDIR_TO_LIBDIR) != "../lib")
    tried += " or " + root + "/bin/../lib/" + TOOLS_TEST_LIBPNMPI_SONAME;
  EXPECT_EQ(r.exit_code, 2) << describe(r);
  EXPECT_EQ(r.err, "pnmpi-run: cannot find libpnmpi at " + tried +
                       "; pnmpi-run must stay in the bin/ directory of its pnmpi install\n");
  EXPECT_EQ(r.out, "") << "the program must not run";
  // With a lib/ beside it, the same copy finds the library there.
  ::mkdir((root + "/lib").c_str(), 0755);
  const std::string lib = root + "/lib/" + TOOLS_TEST_LIBPNMPI_SONAME;
  ::unlink(lib.c_str());
  ASSERT_EQ(::symlink(TOOLS_TEST_LIBPNMPI, lib.c_str()), 0);
  const RunResult found = run({moved, "/usr/bin/env"}, {{"LD_PRELOAD", ""}}, 60);
  EXPECT_EQ(found.exit_code, 0) << describe(found);
  EXPECT_FALSE(lines_with(found.out, "LD_PRELOAD=" + lib).empty()) << found.out;
  ::unlink(lib.c_str());
}

TEST(Run, EmptyOptionValuesAreUsageErrors) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"-L", "", "/bin/true"}, "option -L needs a directory, not an empty string"},
      {{"-c", "", "/bin/true"}, "option -c needs a configuration file, not an empty string"},
      {{"--config", "", "/bin/true"},
       "option --config needs a configuration file, not an empty string"},
      {{"-d", "", "/bin/true"}, "option -d needs a level, not an empty string"}};
  for (const auto &[args, message] : cases) {
    const RunResult r = run_tool(args);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_EQ(r.err, "pnmpi-run: " + message + "\nTry 'pnmpi-run --help'.\n");
  }
}

TEST(Run, HelpAndVersion) {
  const RunResult help = run_tool({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.rfind("usage: pnmpi-run [OPTION]... [--] PROGRAM [ARGS...]\n", 0), 0u)
      << help.out;
  // PnMPI's launcher's spellings of help (argp's) give the same text.
  for (const char *spelling : {"-h", "-?", "--usage"}) {
    const RunResult other = run_tool({spelling});
    EXPECT_EQ(other.exit_code, 0) << spelling;
    EXPECT_EQ(other.out, help.out) << spelling;
  }
  const RunResult version = run_tool({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, std::string("pnmpi-run ") + TOOLS_TEST_VERSION + " (built for " +
                             PNMPI_TEST_MPI_FLAVOR + ")\n");
  EXPECT_EQ(run_tool({"-V"}).out, version.out);
}

/// The line of `env`'s output that sets `name`, or "" when it is not set.
std::string env_line(const std::string &out, const std::string &name) {
  const std::vector<std::string> lines = lines_starting_with(out, name + "=");
  return lines.empty() ? "" : lines.front();
}

/// The environment pnmpi-run sets, cleared, so that a test sees only what it asked for.
std::map<std::string, std::string> clean_env() {
  return {{"PNMPI_LIB_PATH", ""}, {"PNMPI_CONF", ""},    {"PNMPI_DEBUG", ""},
          {"PNMPI_DBGLEVEL", ""}, {"PNMPI_DBGNODE", ""}, {"PNMPI_BE_SILENT", ""},
          {"LD_PRELOAD", ""}};
}

TEST(Run, TakesTheOriginalLaunchersOptions) {
  // PnMPI's `pnmpi -m DIR -c CONF -q -n RANK -d CLASS... -i LANG -f PROGRAM`.
  const std::string conf = conf_file("module api_probe\n");
  const RunResult r = run_tool({"-m", "rel/mods", "-c", conf, "-q", "-n", "1", "-d", "init", "-d",
                                "call", "-i", "Fortran", "-f", "/usr/bin/env"},
                               clean_env());
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(env_line(r.out, "PNMPI_LIB_PATH"), "PNMPI_LIB_PATH=" + cwd() + "/rel/mods");
  EXPECT_EQ(env_line(r.out, "PNMPI_CONF"), "PNMPI_CONF=" + conf);
  EXPECT_EQ(env_line(r.out, "PNMPI_BE_SILENT"), "PNMPI_BE_SILENT=1");
  EXPECT_EQ(env_line(r.out, "PNMPI_DBGNODE"), "PNMPI_DBGNODE=1");
  // The classes combine (init 1 + call 4), as PnMPI's launcher combined them.
  EXPECT_EQ(env_line(r.out, "PNMPI_DBGLEVEL"), "PNMPI_DBGLEVEL=5");
  // A class is not pnmpi's own debug level.
  EXPECT_EQ(env_line(r.out, "PNMPI_DEBUG"), "PNMPI_DEBUG=");
  EXPECT_EQ(env_line(r.out, "LD_PRELOAD"), "LD_PRELOAD=" + library());
  // Each class alone has PnMPI's number.
  for (const auto &[word, number] :
       std::map<std::string, std::string>{{"init", "1"}, {"modules", "2"}, {"call", "4"}}) {
    const RunResult one = run_tool({"-d", word, "/usr/bin/env"}, clean_env());
    EXPECT_EQ(env_line(one.out, "PNMPI_DBGLEVEL"), "PNMPI_DBGLEVEL=" + number) << word;
  }
  const RunResult silent = run_tool({"--silent", "/usr/bin/env"}, clean_env());
  EXPECT_EQ(env_line(silent.out, "PNMPI_BE_SILENT"), "PNMPI_BE_SILENT=1");
}

TEST(Run, ValuesJoinedAndFlagsGrouped) {
  const std::string conf = conf_file("module api_probe\n");
  const RunResult r =
      run_tool({"--config=" + conf, "-qs", "-Lone", "--lib-path=/two", "--modules", "/three", "-d2",
                "--debug=modules", "-n0", "--interface=c", "/usr/bin/env"},
               clean_env());
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(env_line(r.out, "PNMPI_CONF"), "PNMPI_CONF=" + conf);
  EXPECT_EQ(env_line(r.out, "PNMPI_BE_SILENT"), "PNMPI_BE_SILENT=1");
  EXPECT_EQ(env_line(r.out, "PNMPI_LIB_PATH"), "PNMPI_LIB_PATH=" + cwd() + "/one:/two:/three");
  EXPECT_EQ(env_line(r.out, "PNMPI_DEBUG"), "PNMPI_DEBUG=2");
  EXPECT_EQ(env_line(r.out, "PNMPI_DBGLEVEL"), "PNMPI_DBGLEVEL=2");
  EXPECT_EQ(env_line(r.out, "PNMPI_DBGNODE"), "PNMPI_DBGNODE=0");
  // A group ends at an option that takes a value: the rest of the word, or the next one.
  const RunResult group = run_tool({"-qc", conf, "/usr/bin/env"}, clean_env());
  ASSERT_EQ(group.exit_code, 0) << describe(group);
  EXPECT_EQ(env_line(group.out, "PNMPI_CONF"), "PNMPI_CONF=" + conf);
  EXPECT_EQ(env_line(group.out, "PNMPI_BE_SILENT"), "PNMPI_BE_SILENT=1");
}

TEST(Run, TheOriginalLaunchersOptionErrors) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"-d", "unknown", "/bin/true"},
       "Unknown debug level unknown (-d takes 0 to 4, init, modules or call)"},
      {{"-d", "5", "/bin/true"}, "Unknown debug level 5 (-d takes 0 to 4, init, modules or call)"},
      {{"-d", "01", "/bin/true"},
       "Unknown debug level 01 (-d takes 0 to 4, init, modules or call)"},
      {{"-L", "/a::/b", "/bin/true"},
       "option -L '/a::/b': an empty directory in the list (it would be the working directory)"},
      {{"-n", "x", "/bin/true"}, "option -n needs a rank (a whole number from 0 up), not 'x'"},
      {{"-i", "cobol", "/bin/true"}, "option -i needs C or Fortran, not 'cobol'"},
      {{"--quiet=1", "/bin/true"}, "option --quiet takes no value"},
      {{"--bogus=1", "/bin/true"}, "unknown option '--bogus'"},
      {{"-qx", "/bin/true"}, "unknown option '-x'"},
      {{"-m"}, "option -m needs a directory"},
      {{"--debug-node="}, "option --debug-node needs a rank, not an empty string"}};
  for (const auto &[args, message] : cases) {
    const RunResult r = run_tool(args);
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_EQ(r.err, "pnmpi-run: " + message + "\nTry 'pnmpi-run --help'.\n");
    EXPECT_EQ(r.out, "");
  }
}

TEST(Run, PnmpizeAndPnmpiAreNamesOfIt) {
  // The original's launcher was built as pnmpize and installed as pnmpi: the build tree has
  // both names beside pnmpi-run, and the program speaks under the name it was called by.
  const std::string run_path = TOOLS_TEST_RUN;
  const std::string bindir = run_path.substr(0, run_path.rfind('/'));
  for (const std::string name : {"pnmpize", "pnmpi"}) {
    const std::string alias = bindir + "/" + name;
    char target[PATH_MAX] = {};
    ASSERT_GT(::readlink(alias.c_str(), target, sizeof target - 1), 0) << alias;
    EXPECT_STREQ(target, "pnmpi-run");
    const RunResult version = run({alias, "--version"}, {}, 60);
    EXPECT_EQ(version.out,
              name + " " + TOOLS_TEST_VERSION + " (built for " + PNMPI_TEST_MPI_FLAVOR + ")\n");
    const RunResult bad = run({alias, "-d", "unknown", "env"}, {}, 60);
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_EQ(bad.err, name + ": Unknown debug level unknown (-d takes 0 to 4, init, modules " +
                           "or call)\nTry '" + name + " --help'.\n");
    const RunResult help = run({alias, "--help"}, {}, 60);
    EXPECT_EQ(help.out.rfind("usage: " + name + " [OPTION]... [--] PROGRAM [ARGS...]\n", 0), 0u);
    const RunResult env = run({alias, "-m", "/mods", "env"}, clean_env(), 60);
    ASSERT_EQ(env.exit_code, 0) << describe(env);
    EXPECT_EQ(env_line(env.out, "LD_PRELOAD"), "LD_PRELOAD=" + library());
    EXPECT_EQ(env_line(env.out, "PNMPI_LIB_PATH"), "PNMPI_LIB_PATH=/mods");
  }
}

} // namespace
} // namespace pnmpi::test
