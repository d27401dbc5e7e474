/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Two ranks: rank 0 sends three messages to rank 1, rank 1 sends one back. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank = 0, size = 0, value = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    fprintf(stderr, "sends: needs 2 ranks, has %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    for (int i = 0; i < 3; i++)
      MPI_Send(&i, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    for (int i = 0; i < 3; i++)
      MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  if (rank == 0)
    printf("sends: done\n");
  MPI_Finalize();
  return 0;
}
