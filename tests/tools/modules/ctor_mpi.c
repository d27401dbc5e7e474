/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* A module whose constructor calls MPI: pnmpi must stop and name it, not crash or blame
 * MPI. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>

__attribute__((constructor)) static void too_early(void) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
}

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  return PMPI_Barrier(comm);
}
