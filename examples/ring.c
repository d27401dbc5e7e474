/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The demo application: a token travels ROUNDS times around a ring of ranks, then every
 * rank contributes to a sum. An ordinary MPI program; it knows nothing of pnmpi.
 * Usage: ring [rounds] */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rounds = argc > 1 ? atoi(argv[1]) : 3;
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  const double start = MPI_Wtime();
  long token = 0;
  for (int r = 0; r < rounds; ++r) {
    if (rank == 0) {
      token += 1;
      MPI_Send(&token, 1, MPI_LONG, next, r, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_LONG, prev, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_LONG, prev, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token += 1;
      MPI_Send(&token, 1, MPI_LONG, next, r, MPI_COMM_WORLD);
    }
  }
  const double elapsed = MPI_Wtime() - start;
  long total = 0;
  MPI_Allreduce(&token, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("ring: %d ranks, %d rounds, token %ld, checksum %ld, %.3f ms\n", size, rounds, token,
           total, elapsed * 1e3);
  MPI_Finalize();
  return 0;
}
