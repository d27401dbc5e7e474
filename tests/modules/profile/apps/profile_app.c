/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */
/* A program with known calls for the profile's tests. Each rank, ITER times: MPI_Send of
 * 100 ints to the next rank, MPI_Recv of 100 ints from the previous one, MPI_Allreduce of
 * 3 doubles; then one MPI_Barrier. argv[1] says how it ends:
 *   finalize      MPI_Finalize
 *   abort         rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7), the others wait in a barrier
 *   exit          rank 1 calls exit(3) without finalizing, the others wait in a barrier
 *   hang          every rank writes "ready RANK PID" to stdout, then sleeps (the test sends
 *                 a signal)
 *   threads       as finalize, but with MPI_THREAD_MULTIPLE and THREADS threads per rank
 *                 each doing ITER MPI_Allreduce of 1 int on its own duplicate of WORLD
 *   comms         THREADS duplicates of WORLD, one MPI_Allreduce of 1 int on each, then as
 *                 hang
 * argv[2] = ITER (default 10), argv[3] = THREADS (default 4). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_iter = 10;

static void *thread_main(void *arg) {
  MPI_Comm comm = *(MPI_Comm *)arg;
  for (int i = 0; i < g_iter; ++i) {
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "finalize";
  g_iter = argc > 2 ? atoi(argv[2]) : 10;
  const int threads = argc > 3 ? atoi(argv[3]) : 4;
  int provided = 0;
  if (strcmp(mode, "threads") == 0) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) {
      fprintf(stderr, "profile_app: no MPI_THREAD_MULTIPLE\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int buf[100] = {0}, in[100];
  double x[3] = {1, 2, 3}, y[3];
  for (int i = 0; i < g_iter; ++i) {
    MPI_Request req;
    MPI_Irecv(in, 100, MPI_INT, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &req);
    MPI_Send(buf, 100, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Allreduce(x, y, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (strcmp(mode, "threads") == 0) {
    MPI_Comm comms[64];
    pthread_t tid[64];
    for (int t = 0; t < threads && t < 64; ++t)
      MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    for (int t = 0; t < threads && t < 64; ++t)
      pthread_create(&tid[t], NULL, thread_main, &comms[t]);
    for (int t = 0; t < threads && t < 64; ++t)
      pthread_join(tid[t], NULL);
    for (int t = 0; t < threads && t < 64; ++t)
      MPI_Comm_free(&comms[t]);
  } else if (strcmp(mode, "abort") == 0 || strcmp(mode, "exit") == 0) {
    if (rank == 1) {
      if (mode[0] == 'a')
        MPI_Abort(MPI_COMM_WORLD, 7);
      exit(3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(mode, "comms") == 0 || strcmp(mode, "hang") == 0) {
    for (int c = 0; mode[0] == 'c' && c < threads; ++c) {
      MPI_Comm dup;
      int one = 1, sum = 0;
      MPI_Comm_dup(MPI_COMM_WORLD, &dup);
      MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
    }
    printf("ready %d %ld\n", rank, (long)getpid());
    fflush(stdout);
    for (;;)
      sleep(1);
  }
  MPI_Finalize();
  return 0;
}
