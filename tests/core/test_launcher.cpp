// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The wrong-launcher check (launcher.h) on given environments; the real launchers are
// tested in tests/integration/launcher.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "launcher.h"

namespace {

pnmpi::EnvLookup env_of(const std::map<std::string, std::string> &vars) {
  return [vars](const char *name) -> const char * {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(Launcher, AOneRankWorldUnderALauncherOfManyIsStopped) {
  const std::string m =
      pnmpi::wrong_launcher(1, "libmpich.so.12", env_of({{"OMPI_COMM_WORLD_SIZE", "4"}}));
  EXPECT_EQ(m, "this process is alone in its MPI job (MPI_COMM_WORLD has 1 rank), but its "
               "launcher started 4 processes (OMPI_COMM_WORLD_SIZE=4, set by Open MPI's mpirun): "
               "each would run as its own one-rank job; this pnmpi (and the program with it) is "
               "built for libmpich.so.12 (MPICH), which cannot join a job of Open MPI's "
               "launcher. Start it with MPICH's launcher (mpiexec.mpich), or use a pnmpi and a "
               "program built for Open MPI");
  EXPECT_NE(pnmpi::wrong_launcher(1, "libmpi.so.40", env_of({{"PMI_SIZE", "2"}})), "");
  const std::string slurm =
      pnmpi::wrong_launcher(1, "libmpi.so.40", env_of({{"SLURM_STEP_NUM_TASKS", "8"}}));
  EXPECT_NE(slurm.find("(SLURM_STEP_NUM_TASKS=8, set by Slurm's srun)"), std::string::npos)
      << slurm;
  EXPECT_NE(slurm.find("which did not join the launcher's job"), std::string::npos) << slurm;
}

TEST(Launcher, AgreeingOrAbsentCountsAreFine) {
  EXPECT_EQ(pnmpi::wrong_launcher(4, "libmpich.so.12", env_of({{"PMI_SIZE", "4"}})), "");
  EXPECT_EQ(pnmpi::wrong_launcher(1, "libmpich.so.12", env_of({{"PMI_SIZE", "1"}})), "");
  EXPECT_EQ(pnmpi::wrong_launcher(1, "libmpich.so.12", env_of({})), "");
  // An allocation's task count alone (sbatch running a serial step) is not a launch.
  EXPECT_EQ(pnmpi::wrong_launcher(1, "libmpich.so.12", env_of({{"SLURM_NTASKS", "4"}})), "");
  for (const char *bad : {"", "x", "-3", "4x", "99999999999999999999"})
    EXPECT_EQ(pnmpi::wrong_launcher(1, "libmpich.so.12", env_of({{"PMI_SIZE", bad}})), "") << bad;
}

TEST(Launcher, OnlyTheLaunchersFirstProcessSpeaks) {
  EXPECT_TRUE(pnmpi::launcher_first_process(
      env_of({{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "0"}})));
  EXPECT_FALSE(pnmpi::launcher_first_process(
      env_of({{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "1"}})));
  EXPECT_TRUE(pnmpi::launcher_first_process(env_of({{"PMI_SIZE", "2"}})));
}

} // namespace
