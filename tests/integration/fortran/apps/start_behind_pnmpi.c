/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Starts MPI behind pnmpi's back, as a tool or library that calls PMPI_Init does:
 *   start_behind_pnmpi calls   PMPI_Init, then MPI_Comm_rank and MPI_Barrier, PMPI_Finalize
 *   start_behind_pnmpi pmpi    every call by its PMPI_ name: no call passes through pnmpi */

#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  const int only_pmpi = argc > 1 && strcmp(argv[1], "pmpi") == 0;
  int rank = -1;
  PMPI_Init(&argc, &argv);
  if (only_pmpi) {
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Barrier(MPI_COMM_WORLD);
  } else {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("app: rank %d done\n", rank);
  fflush(stdout);
  PMPI_Finalize();
  return 0;
}
