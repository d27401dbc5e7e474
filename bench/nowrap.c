/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Benchmark module that wraps neither MPI_Comm_rank nor the point-to-point routines: loaded,
 * it must add nothing to their cost. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  return PMPI_Barrier(comm);
}
