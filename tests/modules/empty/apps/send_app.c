/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Rank 0 sends 1, 2 and 3 to rank 1 with MPI_Send; rank 1 prints what arrived, so a test
 * sees that the sends were forwarded intact through the layers. */

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int got[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    int value = i + 1;
    if (rank == 0)
      MPI_Send(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    else if (rank == 1)
      MPI_Recv(&got[i], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank == 1) {
    printf("send_app: rank 1 received %d %d %d\n", got[0], got[1], got[2]);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
