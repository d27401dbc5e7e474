/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Communication patterns with one late rank, for pnmpi-report check's wait-state analysis
 * (test_waitstates.py). Usage: waits_app MODE ITERATIONS [LATE MS]
 *   ring            every iteration an MPI_Sendrecv of 8 bytes to the next rank and from the
 *                   previous one, then an MPI_Barrier: the coupled pattern. The late rank is
 *                   made by `module delay` below the trace (inside its MPI_Sendrecv), not here.
 *   late-sender     rank LATE sleeps MS milliseconds, then sends 8 bytes to every other rank
 *                   (MPI_Send, in rank order); the others wait in MPI_Recv.
 *   late-receiver   rank LATE sleeps MS milliseconds, then receives from every other rank
 *                   (MPI_Recv, in rank order); the others wait in MPI_Ssend.
 *   collectives     rank LATE sleeps MS milliseconds before an MPI_Barrier, and again before
 *                   an MPI_Allreduce; the others enter at once.
 * The sleeps are outside MPI: the trace sees the late rank enter its call late. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0)
      fprintf(stderr, "usage: waits_app ring|late-sender|late-receiver|collectives N [LATE MS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *mode = argv[1];
  const int iterations = atoi(argv[2]);
  const int late = argc > 3 ? atoi(argv[3]) : 0;
  const int ms = argc > 4 ? atoi(argv[4]) : 0;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  char out[8] = {0}, in[8];
  double sum = 0;
  for (int i = 0; i < iterations; ++i) {
    if (strcmp(mode, "ring") == 0) {
      MPI_Sendrecv(out, sizeof out, MPI_CHAR, next, i, in, sizeof in, MPI_CHAR, prev, i,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "late-sender") == 0) {
      if (rank == late) {
        sleep_ms(ms);
        for (int r = 0; r < size; ++r)
          if (r != late)
            MPI_Send(out, sizeof out, MPI_CHAR, r, i, MPI_COMM_WORLD);
      } else {
        MPI_Recv(in, sizeof in, MPI_CHAR, late, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    } else if (strcmp(mode, "late-receiver") == 0) {
      if (rank == late) {
        sleep_ms(ms);
        for (int r = 0; r < size; ++r)
          if (r != late)
            MPI_Recv(in, sizeof in, MPI_CHAR, r, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Ssend(out, sizeof out, MPI_CHAR, late, i, MPI_COMM_WORLD);
      }
    } else if (strcmp(mode, "collectives") == 0) {
      if (rank == late)
        sleep_ms(ms);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == late)
        sleep_ms(ms);
      double one = 1;
      MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    } else {
      if (rank == 0)
        fprintf(stderr, "waits_app: unknown mode '%s'\n", mode);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (rank == 0)
    printf("waits %s ok\n", mode);
  MPI_Finalize();
  return 0;
}
