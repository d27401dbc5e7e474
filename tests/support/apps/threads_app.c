/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Four threads on each of two ranks exchange messages concurrently under
 * MPI_THREAD_MULTIPLE: thread t sends ITERATIONS messages of 8 * (t + 1) bytes to the other
 * rank on tag t and receives as many, each stamped with its iteration and thread, and checks
 * what arrives. Prints `rank R: threads done, data ok` (or DATA MISMATCH, exit 1). */

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ITERATIONS 500

static int g_rank;

static void *exchange(void *arg) {
  const int t = (int)(long)arg;
  const int peer = 1 - g_rank;
  const int count = 2 * (t + 1); /* ints: 8 * (t + 1) bytes */
  int out[2 * THREADS], in[2 * THREADS];
  for (int i = 0; i < ITERATIONS; ++i) {
    for (int k = 0; k < count; ++k) {
      out[k] = k == 0 ? i : t;
      in[k] = -1;
    }
    if (g_rank == 0) {
      MPI_Send(out, count, MPI_INT, peer, t, MPI_COMM_WORLD);
      MPI_Recv(in, count, MPI_INT, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, count, MPI_INT, peer, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(out, count, MPI_INT, peer, t, MPI_COMM_WORLD);
    }
    for (int k = 0; k < count; ++k)
      if (in[k] != out[k])
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
    fprintf(stderr, "threads_app: needs MPI_THREAD_MULTIPLE and 2 ranks (provided %d, size %d)\n",
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
