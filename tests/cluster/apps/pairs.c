// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// A program whose natural placement is bad: rank i exchanges HEAVY bytes with its partner
// (i + N/2) mod N, which a block placement puts on another node, and LIGHT bytes with its
// ring neighbours. pairs HEAVY LIGHT (bytes; N even). Prints one line per rank:
// "rank R on HOST".
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3 || size % 2 != 0) {
    if (rank == 0)
      fprintf(stderr, "usage: pairs HEAVY LIGHT (bytes), on an even number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int heavy = atoi(argv[1]), light = atoi(argv[2]);
  char *out = calloc((size_t)heavy + (size_t)light, 1);
  char *in = calloc((size_t)heavy + (size_t)light, 1);
  if (out == NULL || in == NULL)
    MPI_Abort(MPI_COMM_WORLD, 3);

  const int partner = (rank + size / 2) % size;
  MPI_Sendrecv(out, heavy, MPI_BYTE, partner, 1, in, heavy, MPI_BYTE, partner, 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(out, light, MPI_BYTE, (rank + 1) % size, 2, in, light, MPI_BYTE,
               (rank + size - 1) % size, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

  char host[MPI_MAX_PROCESSOR_NAME];
  int length;
  MPI_Get_processor_name(host, &length);
  printf("rank %d on %s\n", rank, host);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
