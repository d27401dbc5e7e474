/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Four threads per rank send concurrently under MPI_THREAD_MULTIPLE (2 ranks): thread t
 * exchanges ITERATIONS messages of 8 * (t + 1) bytes with the other rank, on tag t. */

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ITERATIONS 500

static int g_rank;

static void *exchange(void *arg) {
  const int t = (int)(long)arg;
  const int peer = 1 - g_rank;
  char out[32] = {0}, in[32];
  for (int i = 0; i < ITERATIONS; ++i) {
    if (g_rank == 0) {
      MPI_Send(out, 8 * (t + 1), MPI_CHAR, peer, t, MPI_COMM_WORLD);
      MPI_Recv(in, 8 * (t + 1), MPI_CHAR, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, 8 * (t + 1), MPI_CHAR, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(out, 8 * (t + 1), MPI_CHAR, peer, t, MPI_COMM_WORLD);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE || size != 2) {
    fprintf(stderr, "threads_app: needs MPI_THREAD_MULTIPLE and 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  pthread_t threads[THREADS];
  for (long t = 0; t < THREADS; ++t)
    pthread_create(&threads[t], NULL, exchange, (void *)t);
  for (int t = 0; t < THREADS; ++t)
    pthread_join(threads[t], NULL);
  printf("rank %d: threads done\n", g_rank);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
