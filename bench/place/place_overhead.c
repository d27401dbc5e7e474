/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The place module's cost per call, run on 2 ranks by bench/place/place_bench.py. Rank 0
 * prints CPU ns per call of
 *   rank_world  MPI_Comm_rank(MPI_COMM_WORLD)      (the handle place replaces)
 *   rank_dup    MPI_Comm_rank on a duplicate       (a communicator place passes on)
 *   type_size   MPI_Type_size                      (no communicator: place wraps nothing)
 * and send_us, half an 8-byte MPI_Send/MPI_Recv round trip on MPI_COMM_WORLD.
 * Usage: place_overhead CALLS ITERATIONS */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double rank_ns(MPI_Comm comm, long calls) {
  int r = 0;
  for (long i = 0; i < calls / 10; ++i) /* warm up caches and branch predictors */
    MPI_Comm_rank(comm, &r);
  const double c0 = cpu_seconds();
  for (long i = 0; i < calls; ++i)
    MPI_Comm_rank(comm, &r);
  return (cpu_seconds() - c0) / (double)calls * 1e9;
}

static double type_size_ns(long calls) {
  int s = 0;
  for (long i = 0; i < calls / 10; ++i)
    MPI_Type_size(MPI_INT, &s);
  const double c0 = cpu_seconds();
  for (long i = 0; i < calls; ++i)
    MPI_Type_size(MPI_INT, &s);
  return (cpu_seconds() - c0) / (double)calls * 1e9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const long calls = argc > 1 ? atol(argv[1]) : 10000000;
  const int iterations = argc > 2 ? atoi(argv[2]) : 10000;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  const double world_ns = rank_ns(MPI_COMM_WORLD, calls);
  const double dup_ns = rank_ns(dup, calls);
  const double type_ns = type_size_ns(calls);

  char msg[8] = {0};
  double send_us = 0;
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
    send_us = (MPI_Wtime() - t0) / n / 2 * 1e6;
  }
  if (rank == 0)
    printf("rank_world=%.4f rank_dup=%.4f type_size=%.4f send_us=%.4f\n", world_ns, dup_ns,
           type_ns, send_us);
  fflush(stdout);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
