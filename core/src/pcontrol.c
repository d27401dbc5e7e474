/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* MPI_Pcontrol by hand (stub-gen/exceptions.txt): its varargs cannot be forwarded, and
 * profilers consume it rather than pass it on, so the core delivers the level to every
 * module that wraps it and then calls MPI once. A module's own PMPI_Pcontrol is bound to
 * XMPI_Pcontrol below, which ends that module's delivery. */

#include <mpi.h>

#include "dispatch.h"

PNMPI_API int MPI_Pcontrol(const int level, ...) {
  if (pnmpi_routine_wrapped(PNMPI_ID_MPI_Pcontrol))
    pnmpi_pcontrol_deliver(0, level);
  return PMPI_Pcontrol(level);
}

PNMPI_API int XMPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}

PNMPI_API int XMPI_Pcontrol_NewStack(int stack, const int level, ...) {
  pnmpi_pcontrol_deliver(stack, level);
  return MPI_SUCCESS;
}
