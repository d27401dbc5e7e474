/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The monitor's benchmark program, run on 2 or more ranks by monitor_bench.py:
 *   sends N     rank 0 issues N 8-byte MPI_Send to rank 1 (a sink module below swallows
 *               them); prints send_ns, CPU time per call
 *   sends-mt N  the same under MPI_THREAD_MULTIPLE (atomic counters)
 *   stream N    rank 0 sends N 8-byte messages to rank 1, which receives them; prints
 *               stream_ns, rank 0's CPU time per send through the real MPI
 *   contact K   every rank sends one byte to each of the K ranks after it (memory test)
 *   coll N      rank 0 issues N MPI_Allreduce of one double on MPI_COMM_WORLD (a sink module
 *               below swallows them; the other ranks wait in MPI_Finalize); prints coll_ns,
 *               CPU time per call: what recording one collective costs at this world size
 *   scale K     a ring (K Sendrecv of 8 bytes to the next rank), K barriers and K allreduces
 *               of one double on MPI_COMM_WORLD; rank 0 prints finalize_s, the wall time of
 *               its MPI_Finalize (where the monitor gathers and writes its output) */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "sends";
  const long n = argc > 2 ? atol(argv[2]) : 10000000;
  int provided = 0, rank = 0, size = 0;
  if (strcmp(mode, "sends-mt") == 0)
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  else
    MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char msg[8] = {0};

  if (strncmp(mode, "sends", 5) == 0) {
    if (rank == 0) {
      for (long i = 0; i < n / 10; ++i) /* warm up: first contact, caches, predictors */
        MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      const double t0 = cpu_seconds();
      for (long i = 0; i < n; ++i)
        MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      const double t1 = cpu_seconds();
      printf("send_ns=%.3f\n", (t1 - t0) / (double)n * 1e9);
    }
  } else if (strcmp(mode, "stream") == 0) {
    for (int phase = 0; phase < 2; ++phase) {
      const long count = phase ? n : n / 10;
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = cpu_seconds();
      for (long i = 0; i < count; ++i) {
        if (rank == 0)
          MPI_Send(msg, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        else if (rank == 1)
          MPI_Recv(msg, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      const double t1 = cpu_seconds();
      if (phase == 1 && rank == 0)
        printf("stream_ns=%.3f\n", (t1 - t0) / (double)count * 1e9);
    }
  } else if (strcmp(mode, "coll") == 0) {
    if (rank == 0) {
      double x = 1, y = 0;
      for (long i = 0; i < n / 10; ++i)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      const double t0 = cpu_seconds();
      for (long i = 0; i < n; ++i)
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      const double t1 = cpu_seconds();
      printf("coll_ns=%.3f\n", (t1 - t0) / (double)n * 1e9);
    }
  } else if (strcmp(mode, "scale") == 0) {
    double x = 1, y = 0;
    for (long k = 0; k < n; ++k) {
      char in[8];
      MPI_Sendrecv(msg, 8, MPI_CHAR, (rank + 1) % size, 0, in, 8, MPI_CHAR,
                   (rank - 1 + size) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    MPI_Finalize();
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (rank == 0)
      printf("finalize_s=%.6f\n",
             (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
    fflush(stdout);
    return 0;
  } else if (strcmp(mode, "contact") == 0) {
    for (long k = 1; k <= n && k < size; ++k) {
      char in = 0;
      MPI_Sendrecv(msg, 1, MPI_CHAR, (int)((rank + k) % size), 0, &in, 1, MPI_CHAR,
                   (int)((rank - k + size) % size), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
