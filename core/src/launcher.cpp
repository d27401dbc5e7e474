// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "launcher.h"

#include <cerrno>
#include <cstdlib>

namespace pnmpi {

namespace {

/// A launcher's variables: how many processes it started, and which one this is.
struct LauncherVars {
  const char *size;
  const char *rank;
  const char *family; ///< the MPI whose launcher sets them ("" for a resource manager's)
  const char *launcher;
};

constexpr LauncherVars kLaunchers[] = {
    {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "Open MPI", "Open MPI's mpirun"},
    {"PMI_SIZE", "PMI_RANK", "MPICH", "MPICH's mpiexec (Hydra) or another PMI launcher"},
    {"MPI_LOCALNRANKS", "MPI_LOCALRANKID", "MPICH", "MPICH's mpiexec (Hydra)"},
    {"SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "", "Slurm's srun"},
};

/// A positive count from `text`, or 0.
long count_of(const char *text) {
  if (text == nullptr || *text == '\0')
    return 0;
  char *end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  return *end == '\0' && errno == 0 && v > 0 ? v : 0;
}

std::string family_of(const std::string &soname) {
  if (soname.rfind("libmpich", 0) == 0 || soname == "libmpi.so.12")
    return "MPICH";
  if (soname == "libmpi.so.40")
    return "Open MPI";
  return "";
}

} // namespace

std::string wrong_launcher(int world_size, const std::string &built_for, const EnvLookup &env) {
  if (world_size != 1)
    return "";
  for (const LauncherVars &l : kLaunchers) {
    const char *value = env(l.size);
    const long n = count_of(value);
    if (n <= 1)
      continue;
    const std::string ours = family_of(built_for);
    std::string why;
    if (*l.family != '\0' && !ours.empty() && ours != l.family)
      why = "; this pnmpi (and the program with it) is built for " + built_for + " (" + ours +
            "), which cannot join a job of " + l.family + "'s launcher. Start it with " + ours +
            "'s launcher (" + (ours == "MPICH" ? "mpiexec.mpich" : "mpirun.openmpi") +
            "), or use a pnmpi and a program built for " + l.family;
    else
      why = "; this pnmpi is built for " + built_for + (ours.empty() ? "" : " (" + ours + ")") +
            ", which did not join the launcher's job: check that the program, pnmpi and the "
            "launcher use one MPI";
    return "this process is alone in its MPI job (MPI_COMM_WORLD has 1 rank), but its launcher "
           "started " +
           std::to_string(n) + " processes (" + l.size + "=" + value + ", set by " + l.launcher +
           "): each would run as its own one-rank job" + why;
  }
  return "";
}

std::string wrong_launcher(int world_size, const EnvLookup &env) {
  return wrong_launcher(world_size, PNMPI_MPI_SONAME, env);
}

bool foreign_launcher(const EnvLookup &env) {
  const std::string ours = family_of(PNMPI_MPI_SONAME);
  bool foreign = false;
  for (const LauncherVars &l : kLaunchers) {
    if (*l.family == '\0' || env(l.size) == nullptr)
      continue;
    if (ours == l.family)
      return false;
    foreign = foreign || !ours.empty();
  }
  return foreign;
}

bool launcher_first_process(const EnvLookup &env) {
  for (const LauncherVars &l : kLaunchers) {
    if (count_of(env(l.size)) <= 1)
      continue;
    const char *rank = env(l.rank);
    return rank == nullptr || std::string(rank) == "0";
  }
  return true;
}

} // namespace pnmpi
