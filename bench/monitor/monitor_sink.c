/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Benchmark module: swallows MPI_Send and MPI_Allreduce (returns at once, nothing reaches
 * MPI). Below the monitor it isolates the monitor's own cost per send or collective from the
 * MPI library's. */

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

PNMPI_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm) {
  (void)sendbuf;
  (void)recvbuf;
  (void)count;
  (void)type;
  (void)op;
  (void)comm;
  return MPI_SUCCESS;
}

/* Passed on untouched (and so that the module imports a PMPI_ symbol, as every module does). */
PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  return PMPI_Barrier(comm);
}
