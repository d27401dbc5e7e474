/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* An XMPI module as the original PnMPI built them (pnmpi_add_xmpi_module): it calls the
 * next layer as XMPI_Barrier itself, and also calls PMPI_Comm_rank, which the build must
 * rename (the core refuses a module with PMPI_ imports left). */

#include <pnmpi/xmpi.h>
#include <stdio.h>

int MPI_Barrier(MPI_Comm comm) {
  int rank = -1;
  PMPI_Comm_rank(comm, &rank);
  printf("orig_xmpi: barrier on rank %d\n", rank);
  fflush(stdout);
  return XMPI_Barrier(comm);
}
