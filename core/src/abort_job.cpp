// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// How libpnmpi ends the whole job after a fatal error (log.h, set_job_ender). A rank that
// just exits before MPI_Init leaves some launchers (MPICH's Hydra) waiting forever for it,
// and the other ranks blocked in MPI_Init. So the rank joins MPI first, if it has not, and
// aborts the job: every launcher then ends every rank promptly. The error has been printed
// before this runs, so each failing rank's message comes out even if another rank's abort
// ends the job first. log.cpp stays free of MPI (pnmpi-info shares it); this file is
// libpnmpi's only and installs the hook when the library is loaded. Modules end the job
// through the same path (pnmpi_abort_job, pnmpi_await_abort in <pnmpi/pnmpi.h>).

#include <cstdlib>
#include <ctime>
#include <mpi.h>
#include <pnmpi/pnmpi.h>

#include "launcher.h"
#include "log.h"

namespace {

void abort_job() {
  int finalized = 0;
  if (PMPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
    return; // too late for MPI: the process exits alone
  // Started by another MPI's launcher, each process is a job of its own: it exits alone.
  if (pnmpi::foreign_launcher([](const char *name) -> const char * { return std::getenv(name); }))
    return;
  int initialized = 0;
  if (PMPI_Initialized(&initialized) != MPI_SUCCESS)
    return;
  // PMPI_ directly: MPI_Init would enter pnmpi again, and a module may be half loaded.
  if (!initialized && PMPI_Init(nullptr, nullptr) != MPI_SUCCESS)
    return;
  // MPICH's Hydra stops passing the ranks' output on once a rank aborts: a message written
  // just before could be lost (seen as an empty stderr, once in some tens of jobs). A quarter
  // of a second lets the launcher forward it; this path runs once, when the job ends.
  const timespec pause{0, 250 * 1000 * 1000};
  ::nanosleep(&pause, nullptr);
  PMPI_Abort(MPI_COMM_WORLD, 1);
}

struct InstallJobEnder {
  InstallJobEnder() { pnmpi::set_job_ender(&abort_job); }
} install_job_ender;

} // namespace

extern "C" {

PNMPI_EXPORT void pnmpi_abort_job(const char *message) {
  if (message != nullptr)
    pnmpi::print_error(message);
  pnmpi::end_job();
}

PNMPI_EXPORT void pnmpi_await_abort(void) {
  // The reporting rank's abort ends this process; sleeping rather than entering a
  // collective keeps this rank out of MPI, whatever state its communicators are in. If no
  // abort comes (the reporting rank died first), this rank ends the job itself.
  for (int i = 0; i < 40; ++i) {
    const timespec pause{0, 250 * 1000 * 1000};
    ::nanosleep(&pause, nullptr);
  }
  pnmpi::end_job();
}

} // extern "C"
