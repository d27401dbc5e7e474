// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Chaining end to end: real mpirun jobs of small MPI programs through stacks of modules.

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>

#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

const std::string kLibPath = std::string(PNMPI_TEST_MODULE_DIR) + ":" + PNMPI_MODULE_BUILD_DIR;

std::string app(const char *name) {
  return std::string(PNMPI_TEST_BIN_DIR) + "/" + name;
}

/// Runs `program` on `ranks` ranks with the config text `conf` (none if empty).
RunResult run_with(const std::string &conf, std::vector<std::string> program, int ranks = 2,
                   std::map<std::string, std::string> env = {}) {
  MpiJob job;
  job.ranks = ranks;
  job.program = std::move(program);
  job.env = std::move(env);
  job.env["PNMPI_LIB_PATH"] = kLibPath;
  if (!conf.empty())
    job.env["PNMPI_CONF"] = test_conf_file(conf);
  return run_mpi(job);
}

std::string tags(std::initializer_list<const char *> layers) {
  std::string conf;
  for (const char *l : layers)
    conf += l;
  return conf;
}

const char *X = "module tag\nargument tag x\n";
const char *Y = "module tag\nargument tag y\n";
const char *Z = "module tag\nargument tag z\n";

TEST(Order, LayersRunInConfigOrder) {
  const RunResult r = run_with(tags({X, Y, Z}), {app("order_app")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("init: [Ix Iy Iz] rc=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("barrier: [Bx By Bz] rc=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("size: [Sx Sy Sz] rc=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("allreduce: [Ax Ay Az] rc=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: size=2 sum=1\n"), std::string::npos) << r.out;
}

TEST(Order, ReversedConfigReversesLayers) {
  const RunResult r = run_with(tags({Z, Y, X}), {app("order_app")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("barrier: [Bz By Bx] rc=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("size: [Sz Sy Sx] rc=0\n"), std::string::npos) << r.out;
}

TEST(Order, WrapperCallingAnotherRoutineReachesTheNextModuleThatWrapsIt) {
  // x's barrier calls PMPI_Comm_size: it must reach z (the next layer after x wrapping
  // MPI_Comm_size), skip y (tag_barrier does not wrap it), then continue the barrier at y.
  const std::string conf = "module tag\nargument tag x\nargument calls Comm_size\n"
                           "module tag_barrier\nargument tag y\n"
                           "module tag\nargument tag z\n";
  const RunResult r = run_with(conf, {app("order_app")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("barrier: [Bx Sz By Bz] rc=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("size: [Sx Sz] rc=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("init: [Ix Iz] rc=0\n"), std::string::npos) << r.out;
}

TEST(Order, ModuleThatDoesNotWrapARoutineIsSkipped) {
  const std::string conf = "module tag_barrier\nargument tag y\n";
  const RunResult r = run_with(conf, {app("order_app")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("barrier: [By] rc=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("size: [] rc=0\n"), std::string::npos) << r.out;
}

TEST(Order, ReturnCodesPassThroughUntouched) {
  const std::string conf =
      tags({X}) + "module tag\nargument tag y\nargument barrier-returns 42\n" + Z;
  const RunResult r = run_with(conf, {app("order_app")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("barrier: [Bx By] rc=42\n"), std::string::npos) << r.out;
}

TEST(Order, PreloadedIntoUnchangedBinary) {
  MpiJob job;
  job.program = {app("order_app_plain")};
  job.preload = PNMPI_TEST_LIBPNMPI;
  job.env["PNMPI_LIB_PATH"] = kLibPath;
  job.env["PNMPI_CONF"] = write_temp_file("preload.conf", tags({Y, X}));
  const RunResult r = run_mpi(job);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("barrier: [By Bx] rc=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: size=2 sum=1\n"), std::string::npos) << r.out;
}

TEST(Order, NoConfigIsAPlainPassThrough) {
  MpiJob job;
  job.program = {app("order_app")};
  job.env["PNMPI_DEBUG"] = "1";
  job.env["HOME"] = PNMPI_TEST_SCRATCH_DIR; // no ~/.pnmpi-conf there
  const RunResult r = run_mpi(job);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("barrier: [] rc=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: size=2 sum=1\n"), std::string::npos) << r.out;
  EXPECT_EQ(lines_with(r.err, "pnmpi[debug]: no configuration file").size(), 2u) << r.err;
}

TEST(Order, ThousandLayersLoadAndRun) {
  std::string conf;
  for (int i = 0; i < 999; ++i)
    conf += "module passthrough\n";
  conf += X;
  const RunResult r = run_with(conf, {app("order_app")}, 2, {{"PNMPI_DEBUG", "1"}});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("barrier: [Bx] rc=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: size=2 sum=1\n"), std::string::npos) << r.out;
  EXPECT_EQ(lines_with(r.err, "loaded 1000 layer(s) from 2 file(s)").size(), 2u) << r.err;
}

TEST(Threads, EveryLayerCountsEveryCallExactly) {
  const std::string conf = "module count\nargument tag first\nmodule count\nargument tag second\n";
  const RunResult r = run_with(conf, {app("thread_app")});
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  for (const char *layer : {"first", "second"})
    for (int rank : {0, 1}) {
      const std::string want =
          std::string("count ") + layer + " rank " + std::to_string(rank) + ": send=2000 recv=2000";
      EXPECT_EQ(lines_with(r.out, want).size(), 1u) << want << "\n" << r.out;
    }
  EXPECT_EQ(lines_with(r.out, "data ok").size(), 2u) << r.out;
}

TEST(Config, ExampleFileLoads) {
  MpiJob job;
  job.program = {app("order_app")};
  job.env["PNMPI_LIB_PATH"] = kLibPath;
  job.env["PNMPI_CONF"] = std::string(PNMPI_TEST_SOURCE_DIR) + "/.pnmpi-conf.example";
  job.env["PNMPI_DEBUG"] = "2";
  const RunResult r = run_mpi(job);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_NE(r.out.find("result: size=2 sum=1\n"), std::string::npos) << r.out;
  EXPECT_EQ(lines_with(r.err, "pnmpi[debug]: layer 0: module 'passthrough'").size(), 2u) << r.err;
  EXPECT_EQ(lines_with(r.err, "pnmpi[debug]: layer 1: module 'delay'").size(), 2u) << r.err;
}

/// A job that must stop: non-zero exit, no hang, and this exact message from every rank.
void expect_stops_with(const std::string &conf, const std::string &message) {
  MpiJob job;
  job.program = {app("order_app")};
  job.env["PNMPI_LIB_PATH"] = kLibPath;
  job.env["PNMPI_CONF"] = test_conf_file(conf);
  const RunResult r = run_mpi(job);
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  ASSERT_EQ(r.rank_err.size(), 2u);
  for (const std::string &err : r.rank_err)
    EXPECT_EQ(lines_with(err, "pnmpi: " + message).size(), 1u) << "want: pnmpi: " << message << "\n"
                                                               << err;
  EXPECT_EQ(r.out.find("result:"), std::string::npos) << "the application must not run";
}

std::string conf_path(const char *test) {
  return std::string(PNMPI_TEST_SCRATCH_DIR) + "/Errors." + test + ".conf";
}

TEST(Errors, UnknownDirective) {
  expect_stops_with("module tag\nmodul empty\n",
                    conf_path("UnknownDirective") +
                        ":2: unknown directive 'modul' (expected 'module', 'argument', "
                        "'pcontrol', 'stack' or 'globalpcontrol')");
}

TEST(Errors, ModuleWithoutName) {
  expect_stops_with("# nothing\n\nmodule\n",
                    conf_path("ModuleWithoutName") +
                        ":3: 'module' needs a module name, as in 'module empty'");
}

TEST(Errors, ArgumentBeforeModule) {
  expect_stops_with("argument tag x\nmodule tag\n",
                    conf_path("ArgumentBeforeModule") +
                        ":1: 'argument' before any 'module': an argument belongs to the "
                        "module above it");
}

TEST(Errors, MissingModule) {
  expect_stops_with("module tag\nmodule nosuchtool\n",
                    conf_path("MissingModule") +
                        ":2: module 'nosuchtool' not found: no nosuchtool.so or "
                        "libnosuchtool.so in " +
                        std::regex_replace(kLibPath, std::regex(":"), ", ") +
                        ", " PNMPI_TEST_INSTALL_MODULE_DIR
                        " (PNMPI_LIB_PATH, then the install's module directory); add the "
                        "directory that holds it to PNMPI_LIB_PATH");
}

TEST(Errors, ModuleThatIsNotASharedObject) {
  const std::string path = write_temp_file("notelf.so", "this is a text file\n");
  expect_stops_with("module " + path + "\n",
                    conf_path("ModuleThatIsNotASharedObject") + ":1: module '" + path + "' (" +
                        path + "): not an ELF file (a module must be a shared object, .so)");
}

TEST(Errors, ModuleWithUnresolvedSymbol) {
  const std::string path = std::string(PNMPI_TEST_MODULE_DIR) + "/unresolved.so";
  expect_stops_with("module unresolved\n", conf_path("ModuleWithUnresolvedSymbol") +
                                               ":1: module 'unresolved' (" + path +
                                               "): cannot be loaded: " + path +
                                               ": undefined symbol: pnmpi_test_no_such_function");
}

TEST(Errors, UnconvertedPmpiTool) {
  const std::string path = PNMPI_TEST_PLAIN_TOOL;
  expect_stops_with("module " + path + "\n",
                    conf_path("UnconvertedPmpiTool") + ":1: module '" + path + "' (" + path +
                        "): calls PMPI_Allreduce directly (and 3 more PMPI_ routines): it is a "
                        "plain PMPI tool, not converted yet; run 'pnmpi-patch " +
                        path + " OUT.so' and list OUT.so instead");
}

TEST(Errors, ConfigNamedByPnmpiConfMustExist) {
  MpiJob job;
  job.program = {app("order_app")};
  job.env["PNMPI_CONF"] = "/nonexistent/pnmpi.conf";
  const RunResult r = run_mpi(job);
  EXPECT_FALSE(r.timed_out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(lines_with(r.err, "pnmpi: PNMPI_CONF is set to '/nonexistent/pnmpi.conf', which is "
                              "not a readable file; fix the path or unset PNMPI_CONF")
                .size(),
            2u)
      << describe(r);
}

} // namespace
} // namespace pnmpi::test
