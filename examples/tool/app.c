/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* An ordinary MPI program for the worked example: every rank sends messages of 1, 10, 100
 * and 1000 bytes to the next rank in a ring. It knows nothing about pnmpi. */

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static char out[1000], in[1000];
  const int sizes[] = {1, 10, 100, 1000};
  for (int i = 0; i < 4; ++i) {
    MPI_Request request;
    MPI_Isend(out, sizes[i], MPI_CHAR, (rank + 1) % size, i, MPI_COMM_WORLD, &request);
    MPI_Recv(in, sizes[i], MPI_CHAR, (rank + size - 1) % size, i, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  if (rank == 0)
    printf("app: %d ranks done\n", size);
  MPI_Finalize();
  return 0;
}
