// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Fortran applications under pnmpi, on the MPI this tree is built for: every interface
// (mpif.h, use mpi, use mpi_f08) and every external-name mangling, preloaded and linked.
// A module that logs each call with its C arguments must see exactly the C calls the
// Fortran pattern makes, once each; the monitor's files must hold exactly its traffic; and
// a job whose MPI was started behind pnmpi's back must stop with the exact error.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "monitor_files.h"
#include "pnmpi_test_config.h"
#include "run_mpi.h"

namespace pnmpi::test {
namespace {

namespace fs = std::filesystem;

const bool kMpich = std::string(PNMPI_TEST_MPI_FLAVOR) == "mpich";

std::string bin(const std::string &name) {
  return std::string(FORTRAN_TEST_BIN_DIR) + "/" + name;
}

std::string scratch() {
  const fs::path dir = fs::path(PNMPI_TEST_SCRATCH_DIR) / "fortran" / test_name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

/// One Fortran program as the tests run it.
struct Program {
  const char *name;
  bool f08;
  bool linked; ///< linked with -lpnmpi: no preload
};

std::ostream &operator<<(std::ostream &os, const Program &p) {
  return os << p.name;
}

RunResult run_program(const Program &p, const std::string &conf, int ranks = 2) {
  MpiJob job;
  job.ranks = ranks;
  job.program = {bin(p.name)};
  if (!p.linked)
    job.preload = PNMPI_LIBRARY;
  job.env["PNMPI_LIB_PATH"] = std::string(FORTRAN_TEST_MODULE_DIR) + ":" + PNMPI_MODULE_BUILD_DIR;
  job.env["PNMPI_CONF"] = write_temp_file(test_name() + ".conf", conf);
  job.timeout_s = 120;
  return run_mpi(job);
}

/// What the calls module must log on `rank` (of 2) for the Fortran pattern, in order, less
/// the lines of MPI_Waitany, MPI_Testany and MPI_Waitsome (their number and order depend on
/// timing; they are checked against what Fortran saw).
std::vector<std::string> expected_calls(int rank, bool f08, const std::string &host) {
  const int peer = 1 - rank;
  const std::string p = std::to_string(peer);
  std::vector<std::string> e = {"C MPI_Init",
                                "C MPI_Comm_rank comm=world rank=" + std::to_string(rank),
                                "C MPI_Comm_size comm=world size=2"};
  const std::string send = "C MPI_Send count=4 bytes=16 dest=" + p + " tag=10 comm=world bottom=0";
  const std::string recv =
      "C MPI_Recv count=4 bytes=16 source=" + p + " tag=10 comm=world status_ignore=1";
  if (rank == 0)
    e.insert(e.end(), {send, recv});
  else
    e.insert(e.end(), {recv, send});
  e.insert(e.end(), {"C MPI_Irecv count=8 bytes=64 source=" + p + " tag=11",
                     "C MPI_Isend count=8 bytes=64 dest=" + p + " tag=11", "C MPI_Waitall count=2",
                     "C MPI_Recv_init count=2 source=" + p + " tag=12",
                     "C MPI_Send_init count=2 dest=" + p + " tag=12"});
  for (int k = 0; k < 3; ++k)
    e.insert(e.end(), {"C MPI_Startall count=2", "C MPI_Waitall count=2"});
  e.insert(e.end(), {"C MPI_Request_free", "C MPI_Request_free"});
  if (!f08)
    e.insert(e.end(), {"C MPI_Irecv count=1 bytes=4 source=" + p + " tag=13",
                       "C MPI_Isend count=1 bytes=4 dest=" + p + " tag=13"});
  for (const char *tag : {"15", "16"})
    e.insert(e.end(), {"C MPI_Irecv count=1 bytes=4 source=" + p + " tag=" + tag,
                       "C MPI_Isend count=1 bytes=4 dest=" + p + " tag=" + tag});
  e.insert(e.end(),
           {"C MPI_Get_address", "C MPI_Type_create_hindexed count=1", "C MPI_Type_commit"});
  if (rank == 0)
    e.push_back("C MPI_Send count=1 bytes=4 dest=1 tag=14 comm=world bottom=1");
  else
    e.push_back("C MPI_Recv count=1 bytes=4 source=0 tag=14 comm=world status_ignore=1");
  e.insert(e.end(),
           {"C MPI_Type_free", "C MPI_Barrier comm=world", "C MPI_Bcast count=4 bytes=16 root=0",
            "C MPI_Allreduce count=1 bytes=4 in_place=1 sum=1",
            "C MPI_Reduce count=1 root=1 in_place=0", "C MPI_Alltoall sendcount=1 recvcount=1",
            "C MPI_Comm_split color=0 key=" + std::to_string(-rank),
            "C MPI_Comm_set_name name=[fortran split]",
            "C MPI_Comm_get_name name=[fortran split] length=13",
            "C MPI_Comm_rank comm=other rank=" + p, "C MPI_Comm_free",
            "C MPI_Get_processor_name name=[" + host + "]", "C MPI_Win_create size=8 disp_unit=4",
            "C MPI_Win_fence", "C MPI_Put count=1 target=" + p + " disp=" + std::to_string(rank),
            "C MPI_Win_fence", "C MPI_Win_free", "C MPI_Pcontrol level=3", "C MPI_Finalize"});
  return e;
}

bool is_index_line(const std::string &line) {
  for (const char *r : {"C MPI_Waitany ", "C MPI_Testany ", "C MPI_Waitsome "})
    if (line.rfind(r, 0) == 0)
      return true;
  return false;
}

/// The indices Fortran printed (`F waitany index=2`) and those the module saw, per routine.
std::vector<std::string> sorted_indices(const std::vector<std::string> &lines,
                                        const std::string &routine, int add) {
  std::vector<std::string> out;
  const std::string key = routine + " ";
  for (const std::string &l : lines) {
    const auto at = l.find("index=");
    if (l.find(key) == std::string::npos || at == std::string::npos)
      continue;
    out.push_back(std::to_string(std::stoi(l.substr(at + 6)) + add));
  }
  std::sort(out.begin(), out.end());
  return out;
}

class FortranProgram : public ::testing::TestWithParam<Program> {};

TEST_P(FortranProgram, ModulesSeeEveryCallOnceWithItsCArguments) {
  const Program &p = GetParam();
  const RunResult r = run_program(p, "module calls\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  ASSERT_EQ(lines_starting_with(r.out, "F ok").size(), 2u) << describe(r);
  ASSERT_EQ(r.rank_err.size(), 2u) << describe(r);
  const std::vector<std::string> hosts = lines_starting_with(r.out, "F host=");
  ASSERT_EQ(hosts.size(), 2u) << describe(r);
  const std::string host = hosts[0].substr(7);

  std::vector<std::string> all_calls;
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<std::string> calls, ordered;
    for (const std::string &l : lines_starting_with(r.rank_err[rank], "C "))
      (is_index_line(l) ? calls : ordered).push_back(l);
    EXPECT_EQ(joined_lines(ordered), joined_lines(expected_calls(rank, p.f08, host)))
        << "rank " << rank;
    all_calls.insert(all_calls.end(), calls.begin(), calls.end());
  }
  // Fortran indices are 1-based, C's 0-based: the binding converted them. (MPICH 4.0.2's
  // mpi_f08 returns 0-based indices to Fortran, without pnmpi too.)
  const int base = p.f08 && kMpich ? 0 : 1;
  const std::vector<std::string> fortran = lines_starting_with(r.out, "F ");
  for (const char *routine : {"waitany", "testany", "waitsome"}) {
    std::string c_name = std::string("MPI_") + routine;
    c_name[4] = static_cast<char>(std::toupper(c_name[4]));
    EXPECT_EQ(sorted_indices(all_calls, c_name, base), sorted_indices(fortran, routine, 0))
        << routine << "\n"
        << describe(r);
  }
  EXPECT_EQ(sorted_indices(all_calls, "MPI_Testany", base).size(), 4u);
  EXPECT_EQ(sorted_indices(all_calls, "MPI_Waitsome", base).size(), 4u);
  EXPECT_EQ(sorted_indices(all_calls, "MPI_Waitany", base).size(), p.f08 ? 0u : 4u);
}

/// The monitor's files of the Fortran pattern run under `above` + the monitor.
void check_monitor_files(const Program &p, const std::string &above, bool report) {
  const std::string dir = scratch();
  const RunResult r = run_program(p, above + "module monitor\nargument output " + dir + "/mon\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  const ProfSet prof = read_prof_set(dir + "/mon", 2);
  ASSERT_TRUE(prof.problems.empty()) << prof.problems << describe(r);
  // Per rank: 16 B blocking, 64 B nonblocking, 3 x 8 B persistent, 4 B for each of the
  // Waitany (not in the f08 program), Testany and Waitsome exchanges; rank 0 also sends
  // 4 B from MPI_BOTTOM.
  Matrix expected;
  for (int rank = 0; rank < 2; ++rank) {
    add(expected, rank, 1 - rank, 16);
    add(expected, rank, 1 - rank, 64);
    add(expected, rank, 1 - rank, 8, 3);
    add(expected, rank, 1 - rank, 4, p.f08 ? 2 : 3);
  }
  add(expected, 0, 1, 4);
  const auto e = prof.lines.find("E");
  ASSERT_NE(e, prof.lines.end()) << describe(r);
  EXPECT_EQ(diff(e->second, expected), "");
  // One-sided: each rank puts 4 bytes to the other.
  Matrix puts;
  add(puts, 0, 1, 4);
  add(puts, 1, 0, 4);
  const auto s = prof.lines.find("S");
  ASSERT_NE(s, prof.lines.end()) << describe(r);
  EXPECT_EQ(diff(s->second, puts), "");
  // The timer module's report at finalize is the only traffic of the modules above.
  Matrix tools;
  if (report)
    add(tools, 1, 0, 8);
  const auto i = prof.lines.find("I");
  EXPECT_EQ(diff(i == prof.lines.end() ? Matrix{} : i->second, tools), "") << describe(r);
}

TEST_P(FortranProgram, MonitorFilesHoldExactlyTheTraffic) {
  check_monitor_files(GetParam(), "", false);
}

// A profiler above the monitor that calls MPI_Wtime, MPI_Comm_rank, MPI_Type_size and
// MPI_Comm_c2f by their public names inside its wrappers, under a layer that wraps every
// routine: the application's traffic stays the application's.
TEST_P(FortranProgram, MonitorKeepsTheOriginUnderToolsMakingPublicCalls) {
  check_monitor_files(GetParam(), "module passthrough\nmodule timer\n", true);
}

INSTANTIATE_TEST_SUITE_P(Interfaces, FortranProgram,
                         ::testing::Values(Program{"fortran_mpif_h", false, false},
                                           Program{"fortran_use_mpi", false, false},
                                           Program{"fortran_f08", true, false},
                                           Program{"fortran_mpif_h_linked", false, true},
                                           Program{"fortran_f08_linked", true, true}),
                         [](const ::testing::TestParamInfo<Program> &info) {
                           return std::string(info.param.name);
                         });

// gfortran's other manglings, and MPI started with MPI_INIT_THREAD (preloaded and linked).
TEST(Fortran, EveryManglingEntersTheChain) {
  for (const Program p :
       {Program{"fortran_nounderscore", false, false}, Program{"fortran_underscore2", false, false},
        Program{"fortran_init_thread", false, false},
        Program{"fortran_init_thread_linked", false, true}}) {
    const std::string name = p.name;
    const RunResult r = run_program(p, "module calls\n");
    ASSERT_EQ(r.exit_code, 0) << name << "\n" << describe(r);
    ASSERT_EQ(r.rank_err.size(), 2u) << describe(r);
    const bool init_thread = name.find("init_thread") != std::string::npos;
    for (int rank = 0; rank < 2; ++rank) {
      std::vector<std::string> e = {init_thread ? "C MPI_Init_thread" : "C MPI_Init",
                                    "C MPI_Comm_rank comm=world rank=" + std::to_string(rank),
                                    "C MPI_Comm_size comm=world size=2"};
      e.push_back(rank == 0
                      ? "C MPI_Send count=1 bytes=4 dest=1 tag=30 comm=world bottom=0"
                      : "C MPI_Recv count=1 bytes=4 source=0 tag=30 comm=world status_ignore=0");
      e.insert(e.end(), {"C MPI_Allreduce count=1 bytes=4 in_place=0 sum=1", "C MPI_Finalize"});
      EXPECT_EQ(joined_lines(lines_starting_with(r.rank_err[rank], "C ")), joined_lines(e))
          << name << " rank " << rank;
    }
  }
}

TEST(Fortran, LinkedProgramKeepsLibpnmpi) {
  // A Fortran program uses no C MPI name; libpnmpi's Fortran MPI_INIT keeps it linked.
  for (const char *name : {"fortran_mpif_h_linked", "fortran_f08_linked"}) {
    const RunResult r = run({"readelf", "-d", bin(name)}, {}, 30);
    ASSERT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_NE(r.out.find("[libpnmpi.so"), std::string::npos) << name << "\n" << r.out;
  }
}

TEST(Fortran, MixedCAndFortranCallsShareOneChain) {
  const RunResult r = run_program(Program{"fortran_mixed", true, false}, "module calls\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  ASSERT_EQ(r.rank_err.size(), 2u) << describe(r);
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<std::string> e = {"C MPI_Init",
                                  "C MPI_Comm_rank comm=world rank=" + std::to_string(rank)};
    e.push_back(rank == 0
                    ? "C MPI_Send count=1 bytes=4 dest=1 tag=20 comm=world bottom=0"
                    : "C MPI_Recv count=1 bytes=4 source=0 tag=20 comm=world status_ignore=1");
    e.insert(e.end(), {"C MPI_Allreduce count=1 bytes=4 in_place=0 sum=1", "C MPI_Finalize"});
    EXPECT_EQ(joined_lines(lines_starting_with(r.rank_err[rank], "C ")), joined_lines(e))
        << "rank " << rank;
  }
}

TEST(Fortran, BindingsAreRedirectedAndSaySo) {
  const RunResult r = run_program(Program{"fortran_f08", true, false}, "module calls\n");
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  (void)r;
  MpiJob job;
  job.ranks = 1;
  job.program = {bin("fortran_f08")};
  job.preload = PNMPI_LIBRARY;
  job.env["PNMPI_DEBUG"] = "2";
  job.env["PNMPI_CONF"] = write_temp_file(test_name() + ".conf", "");
  const RunResult d = run_mpi(job);
  const std::string lib = kMpich ? "libmpichfort.so" : "libmpi_mpifh.so";
  const std::vector<std::string> lines = lines_with(d.err, "MPI language binding");
  ASSERT_FALSE(lines.empty()) << describe(d);
  bool named = false;
  for (const std::string &l : lines)
    named |=
        l.find(lib) != std::string::npos && l.find(" calls enter the chain, ") != std::string::npos;
  EXPECT_TRUE(named) << describe(d);
}

// A real Fortran application from Debian (built against Open MPI): a silicon SCF of Quantum
// ESPRESSO on 2 ranks under the monitor, preloaded. The total energy must be the one of the
// same run without pnmpi, and the monitor's application point-to-point matrix must equal
// Open MPI's own monitoring's (its E lines), measured in the same job.
TEST(QuantumEspresso, SiliconScfUnderTheMonitor) {
  const std::string pw = "/usr/bin/pw.x", pseudo = "/usr/share/espresso/pseudo";
  if (kMpich)
    GTEST_SKIP() << "Debian's Quantum ESPRESSO is built against Open MPI";
  if (!fs::exists(pw) || !fs::exists(pseudo + "/Si.pz-vbc.UPF"))
    GTEST_SKIP() << "needs Debian's quantum-espresso and quantum-espresso-data (scripts/deps.sh)";
  const std::string dir = scratch();
  auto input = [&](const std::string &out) {
    return write_temp_file(test_name() + "." + out + ".in",
                           "&control\n  calculation = 'scf', prefix = 'si', outdir = '" + dir +
                               "/" + out + "', pseudo_dir = '" + pseudo +
                               "'\n/\n&system\n  ibrav = 2, celldm(1) = 10.20, nat = 2, ntyp = 1, "
                               "ecutwfc = 18.0\n/\n&electrons\n/\nATOMIC_SPECIES\n Si 28.086 "
                               "Si.pz-vbc.UPF\nATOMIC_POSITIONS alat\n Si 0.00 0.00 0.00\n Si "
                               "0.25 0.25 0.25\nK_POINTS automatic\n 4 4 4 1 1 1\n");
  };
  auto energy = [](const RunResult &r) {
    const std::vector<std::string> lines = lines_starting_with(r.out, "!    total energy");
    return lines.size() == 1 ? lines[0] : std::string("(no single total energy line)");
  };

  MpiJob native;
  native.program = {pw, "-in", input("native")};
  native.timeout_s = 300;
  const RunResult base = run_mpi(native);
  ASSERT_EQ(base.exit_code, 0) << describe(base);

  MpiJob job = native;
  job.program = {pw, "-in", input("pnmpi")};
  job.preload = PNMPI_LIBRARY;
  job.env["PNMPI_LIB_PATH"] = PNMPI_MODULE_BUILD_DIR;
  job.env["PNMPI_CONF"] =
      write_temp_file(test_name() + ".conf", "module monitor\nargument output " + dir + "/mon\n");
  job.env["OMPI_MCA_pml_monitoring_enable"] = "2";
  job.env["OMPI_MCA_pml_monitoring_enable_output"] = "3";
  job.env["OMPI_MCA_pml_monitoring_filename"] = dir + "/ompi";
  const RunResult r = run_mpi(job);
  ASSERT_EQ(r.exit_code, 0) << describe(r);
  EXPECT_EQ(energy(r), energy(base));
  EXPECT_NE(energy(r).find("Ry"), std::string::npos) << describe(r);

  const ProfSet ours = read_prof_set(dir + "/mon", 2), theirs = read_prof_set(dir + "/ompi", 2);
  ASSERT_TRUE(ours.problems.empty()) << ours.problems;
  ASSERT_TRUE(theirs.problems.empty()) << theirs.problems;
  ASSERT_TRUE(ours.lines.count("E")) << describe(r);
  ASSERT_TRUE(theirs.lines.count("E")) << describe(r);
  EXPECT_FALSE(ours.lines.at("E").empty());
  EXPECT_EQ(diff(ours.lines.at("E"), theirs.lines.at("E")), "");
}

// MPI started behind pnmpi's back (a direct PMPI_Init) while the configuration lists modules:
// every rank stops with the error, at the first call pnmpi sees or at exit.
/// start_behind_pnmpi `mode` preloaded under `conf`; the message every rank must print
/// starts with "pnmpi: CONF: MPI was started without ... (" + `seen` + ")".
RunResult run_started_behind(const std::string &mode, const std::string &conf_text,
                             const std::string &seen, std::string &message) {
  MpiJob job;
  job.program = {bin("start_behind_pnmpi"), mode};
  job.preload = PNMPI_LIBRARY;
  job.env["PNMPI_LIB_PATH"] = std::string(FORTRAN_TEST_MODULE_DIR);
  job.env["PNMPI_CONF"] = write_temp_file(test_name() + ".conf", conf_text);
  job.timeout_s = 60;
  message = "pnmpi: " + job.env["PNMPI_CONF"] +
            ": MPI was started without passing through pnmpi's MPI_Init or MPI_Init_thread (" +
            seen + "), so the 1 module(s) listed here were never loaded";
  return run_mpi(job);
}

/// The first rank to fail ends the job (PMPI_Abort during the run; the launcher after a
/// rank's exit), possibly before another rank has said anything: at least one rank says
/// `message`, and no rank says it twice.
void expect_said_once_by_some_rank(const RunResult &r, const std::string &message) {
  std::size_t said = 0;
  for (int rank = 0; rank < 2; ++rank) {
    const std::size_t n = lines_with(r.rank_err.at(rank), message).size();
    EXPECT_LE(n, 1u) << describe(r);
    said += n;
  }
  EXPECT_GE(said, 1u) << describe(r);
}

TEST(StartedBehindPnmpi, FirstCallStopsTheJob) {
  std::string message;
  const RunResult r = run_started_behind("calls", "module calls\n",
                                         "the first call pnmpi saw was MPI_Comm_rank", message);
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  EXPECT_TRUE(lines_starting_with(r.out, "app:").empty()) << describe(r);
  expect_said_once_by_some_rank(r, message);
}

TEST(StartedBehindPnmpi, NoCallThroughPnmpiStopsAtExit) {
  std::string message;
  const RunResult r = run_started_behind("pmpi", "module calls\n",
                                         "no MPI call of the run passed through pnmpi", message);
  EXPECT_FALSE(r.timed_out) << describe(r);
  EXPECT_NE(r.exit_code, 0) << describe(r);
  expect_said_once_by_some_rank(r, message);
}

TEST(StartedBehindPnmpi, WithoutModulesTheRunGoesOn) {
  for (const char *mode : {"calls", "pmpi"}) {
    MpiJob job;
    job.program = {bin("start_behind_pnmpi"), mode};
    job.preload = PNMPI_LIBRARY;
    job.env["PNMPI_CONF"] = write_temp_file(test_name() + ".conf", "# no module\n");
    job.timeout_s = 60;
    const RunResult r = run_mpi(job);
    EXPECT_EQ(r.exit_code, 0) << mode << "\n" << describe(r);
    EXPECT_EQ(lines_starting_with(r.out, "app: rank").size(), 2u) << mode << "\n" << describe(r);
  }
}

} // namespace
} // namespace pnmpi::test
