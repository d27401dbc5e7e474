// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// The wrong launcher: a program whose MPI cannot talk to the launcher that started it (pnmpi
// built for MPICH under Open MPI's mpirun, or the reverse) starts every process as a one-rank
// job of its own; they all run, overwrite each other's outputs and succeed. The launcher's
// environment tells how many processes it started: when it says more than one and MPI says
// the world has one rank, the job must stop.

#include <functional>
#include <string>

namespace pnmpi {

/// Reads an environment variable (nullptr if unset); std::getenv in the library.
using EnvLookup = std::function<const char *(const char *)>;

/// The message that stops a process whose MPI_COMM_WORLD has `world_size` ranks while its
/// launcher's environment says it started more; empty when they agree (or no launcher
/// variable is set). `built_for` is the MPI library pnmpi was built for (its soname).
std::string wrong_launcher(int world_size, const std::string &built_for, const EnvLookup &env);
/// The same for the MPI this pnmpi is built for.
std::string wrong_launcher(int world_size, const EnvLookup &env);

/// Whether the launcher's environment is that of another MPI's launcher (and none of this
/// MPI's): MPI cannot join that job, so ending it through MPI is no use (an MPICH singleton's
/// MPI_Abort under Open MPI's mpirun waits forever).
bool foreign_launcher(const EnvLookup &env);

/// Whether this process is the launcher's first (its rank variable is 0, or unset): only it
/// prints the message, once for the job.
bool launcher_first_process(const EnvLookup &env);

} // namespace pnmpi
