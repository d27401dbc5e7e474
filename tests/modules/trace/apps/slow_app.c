/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* A ring of blocking 1 KiB messages, N rounds (default 4): every rank sends to the next and
 * receives from the previous one (even ranks send first, odd ranks receive first). With the
 * delay module slowing some ranks' sends, exactly those sends are slow. Usage: slow_app [N] */

#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int rounds = argc > 1 ? atoi(argv[1]) : 4;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char out[1024] = {0}, in[1024];
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int i = 0; i < rounds; ++i) {
    if (rank % 2 == 0) {
      MPI_Send(out, sizeof out, MPI_CHAR, next, i, MPI_COMM_WORLD);
      MPI_Recv(in, sizeof in, MPI_CHAR, prev, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, sizeof in, MPI_CHAR, prev, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(out, sizeof out, MPI_CHAR, next, i, MPI_COMM_WORLD);
    }
  }
  MPI_Finalize();
  return 0;
}
