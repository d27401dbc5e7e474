/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Four threads on each of two ranks exchange messages concurrently under
 * MPI_THREAD_MULTIPLE: every thread sends ITERATIONS messages to the other rank and
 * receives as many, with its own tag. */

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ITERATIONS 500

static int g_rank;

static void *exchange(void *arg) {
  const int tag = (int)(long)arg;
  const int peer = 1 - g_rank;
  for (int i = 0; i < ITERATIONS; ++i) {
    int out = i, in = -1;
    if (g_rank == 0) {
      MPI_Send(&out, 1, MPI_INT, peer, tag, MPI_COMM_WORLD);
      MPI_Recv(&in, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&in, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&out, 1, MPI_INT, peer, tag, MPI_COMM_WORLD);
    }
    if (in != i)
      return (void *)1;
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE || size != 2) {
    fprintf(stderr, "thread_app: needs MPI_THREAD_MULTIPLE and 2 ranks (provided %d, size %d)\n",
            provided, size);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  pthread_t threads[THREADS];
  for (long t = 0; t < THREADS; ++t)
    pthread_create(&threads[t], NULL, exchange, (void *)t);
  int failed = 0;
  for (int t = 0; t < THREADS; ++t) {
    void *rc = NULL;
    pthread_join(threads[t], &rc);
    failed |= rc != NULL;
  }
  printf("rank %d: threads done, %s\n", g_rank, failed ? "DATA MISMATCH" : "data ok");
  fflush(stdout);
  MPI_Finalize();
  return failed;
}
