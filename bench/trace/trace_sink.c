/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Benchmark module: swallows MPI_Send (returns at once, nothing reaches MPI). Below the
 * trace it isolates the trace's own cost per call from the MPI library's. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>

PNMPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  (void)buf;
  (void)count;
  (void)type;
  (void)dest;
  (void)tag;
  (void)comm;
  return MPI_SUCCESS;
}

/* Passed on untouched (and so that the module imports a PMPI_ symbol, as every module does). */
PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  return PMPI_Barrier(comm);
}
