/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The trace's benchmark program, run on 2 ranks by trace_bench.py:
 *   sends N   rank 0 issues N 8-byte MPI_Send to rank 1 (a sink module below swallows them);
 *             prints send_ns, CPU time per call
 *   stream N  rank 0 sends N 8-byte messages to rank 1, which receives them; prints
 *             stream_ns, rank 0's elapsed time per message through the real MPI */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "sends";
  const long n = argc > 2 ? atol(argv[2]) : 1000000;
  int rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char msg[8] = {0};
  if (strcmp(mode, "sends") == 0) {
    if (rank == 0) {
      for (long i = 0; i < n / 10; ++i) /* warm up: the thread's buffer, caches, predictors */
        MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      const double t0 = seconds(CLOCK_THREAD_CPUTIME_ID);
      for (long i = 0; i < n; ++i)
        MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      const double t1 = seconds(CLOCK_THREAD_CPUTIME_ID);
      printf("send_ns=%.3f\n", (t1 - t0) / (double)n * 1e9);
    }
  } else {
    for (int phase = 0; phase < 2; ++phase) {
      const long count = phase ? n : n / 10;
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = seconds(CLOCK_MONOTONIC);
      for (long i = 0; i < count; ++i) {
        if (rank == 0)
          MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        else if (rank == 1)
          MPI_Recv(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      const double t1 = seconds(CLOCK_MONOTONIC);
      if (phase == 1 && rank == 0)
        printf("stream_ns=%.3f\n", (t1 - t0) / (double)count * 1e9);
    }
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
