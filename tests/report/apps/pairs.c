/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* pnmpi-report's end-to-end program: traffic whose matrix the test knows exactly.
 * Every rank sends HEAVY bytes to its partner (rank + n/2) % n in ROUNDS messages, LIGHT
 * bytes to rank + 1 in one message, and rank 0 broadcasts 8 bytes once. With ranks filling
 * nodes in order, every heavy pair crosses nodes: a placement tool should bring them
 * together. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 5
#define HEAVY 4096 /* bytes per message */
#define LIGHT 64

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2 != 0) {
    if (rank == 0)
      fprintf(stderr, "pairs: needs an even number of ranks, not %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *out = calloc(HEAVY, 1), *in = calloc(HEAVY, 1);
  if (out == NULL || in == NULL)
    MPI_Abort(MPI_COMM_WORLD, 3);
  const int partner = (rank + size / 2) % size;
  for (int r = 0; r < ROUNDS; ++r)
    MPI_Sendrecv(out, HEAVY, MPI_CHAR, partner, 1, in, HEAVY, MPI_CHAR, partner, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  MPI_Sendrecv(out, LIGHT, MPI_CHAR, (rank + 1) % size, 2, in, LIGHT, MPI_CHAR,
               (rank + size - 1) % size, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double token = rank == 0 ? 1.0 : 0.0;
  MPI_Bcast(&token, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("pairs: %d ranks done\n", size);
  free(out);
  free(in);
  MPI_Finalize();
  return token == 1.0 ? 0 : 1;
}
