/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* One overhead measurement, run on 2 ranks by bench/run_bench.py:
 *   calls_ns   CPU time per MPI_Comm_rank call on rank 0 (a loop of `calls` calls)
 *   pingpong_us  mean 8-byte round trip / 2 between ranks 0 and 1 (`iterations` of them)
 * Usage: overhead CALLS ITERATIONS. Built twice: linked with libpnmpi, and natively. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const long calls = argc > 1 ? atol(argv[1]) : 10000000;
  const int iterations = argc > 2 ? atoi(argv[2]) : 10000;
  int rank = 0, r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  for (long i = 0; i < calls / 10; ++i) /* warm up caches and branch predictors */
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const double c0 = cpu_seconds();
  for (long i = 0; i < calls; ++i)
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
  const double c1 = cpu_seconds();

  char msg[8] = {0};
  for (int phase = 0; phase < 2; ++phase) {
    const int n = phase ? iterations : iterations / 10;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < n; ++i) {
      if (rank == 0) {
        MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    const double t1 = MPI_Wtime();
    if (phase == 1 && rank == 0)
      printf("calls_ns=%.4f pingpong_us=%.4f\n", (c1 - c0) / (double)calls * 1e9,
             (t1 - t0) / n / 2 * 1e6);
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
