/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The place module's cost per call, run on 2 ranks by bench/place/place_bench.py. Rank 0
 * prints CPU ns per call of
 *   rank_world  MPI_Comm_rank(MPI_COMM_WORLD)      (the handle place replaces)
 *   rank_dup    MPI_Comm_rank on a duplicate       (a communicator place passes on)
 *   type_size   MPI_Type_size                      (no communicator: place wraps nothing)
 *   send_self   an 8-byte MPI_Send to itself and its MPI_Recv, on MPI_COMM_WORLD (CALLS/20
 *               pairs)
 * Usage: place_overhead CALLS */

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
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  const double world_ns = rank_ns(MPI_COMM_WORLD, calls);
  const double dup_ns = rank_ns(dup, calls);
  const double type_ns = type_size_ns(calls);

  /* An 8-byte MPI_Send to itself (eager: it returns at once) and the MPI_Recv that takes it,
   * on MPI_COMM_WORLD: CPU-bound, no partner to wait for. */
  char msg[8] = {0};
  const long pairs = calls / 20;
  for (long i = 0; i < pairs / 10; ++i) {
    MPI_Send(msg, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD);
    MPI_Recv(msg, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  const double s0 = cpu_seconds();
  for (long i = 0; i < pairs; ++i) {
    MPI_Send(msg, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD);
    MPI_Recv(msg, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  const double send_ns = (cpu_seconds() - s0) / (double)pairs * 1e9;
  if (rank == 0)
    printf("rank_world=%.4f rank_dup=%.4f type_size=%.4f send_self=%.4f\n", world_ns, dup_ns,
           type_ns, send_ns);
  fflush(stdout);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
