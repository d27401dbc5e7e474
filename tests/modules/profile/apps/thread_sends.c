/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */
/* Point-to-point sends from several threads under MPI_THREAD_MULTIPLE, then a hang, for the
 * tests of a killed job's merged matrix (the monitor's per-thread counters in its part file).
 * Each rank R starts THREADS sender threads and as many receiver threads. Sender thread T
 * sends 4 + 3T messages of 1 + 10T doubles (tag T) to rank (R + T) % size (T = 0: itself);
 * receiver thread T receives them from rank (R - T) mod size. When every thread has joined,
 * the ranks meet in one MPI_Barrier, then each writes "ready RANK PID" to stdout and sleeps
 * until it is killed. argv[1] = THREADS (default 3, at most 16). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { kMaxThreads = 16, kMaxDoubles = 1 + 10 * (kMaxThreads - 1) };

static int g_rank, g_size;

static int messages(int t) {
  return 4 + 3 * t;
}

static int doubles(int t) {
  return 1 + 10 * t;
}

static void *sender(void *arg) {
  const int t = (int)(long)arg;
  double buf[kMaxDoubles] = {0};
  for (int i = 0; i < messages(t); ++i)
    MPI_Send(buf, doubles(t), MPI_DOUBLE, (g_rank + t) % g_size, t, MPI_COMM_WORLD);
  return NULL;
}

static void *receiver(void *arg) {
  const int t = (int)(long)arg;
  double buf[kMaxDoubles];
  const int from = ((g_rank - t) % g_size + g_size) % g_size;
  for (int i = 0; i < messages(t); ++i)
    MPI_Recv(buf, doubles(t), MPI_DOUBLE, from, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided != MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "thread_sends: no MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int threads = argc > 1 ? atoi(argv[1]) : 3;
  if (threads < 1 || threads > kMaxThreads) {
    fprintf(stderr, "thread_sends: THREADS must be 1 to %d\n", kMaxThreads);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  pthread_t send_tid[kMaxThreads], recv_tid[kMaxThreads];
  for (long t = 0; t < threads; ++t) {
    pthread_create(&recv_tid[t], NULL, receiver, (void *)t);
    pthread_create(&send_tid[t], NULL, sender, (void *)t);
  }
  for (int t = 0; t < threads; ++t) {
    pthread_join(send_tid[t], NULL);
    pthread_join(recv_tid[t], NULL);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("ready %d %ld\n", g_rank, (long)getpid());
  fflush(stdout);
  for (;;)
    sleep(1);
}
