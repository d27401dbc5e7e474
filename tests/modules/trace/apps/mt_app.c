/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Requests issued on one thread and completed on another (MPI_THREAD_MULTIPLE), on 2 ranks:
 * on each rank, issuer thread k (k = 0, 1) posts, per round i, an MPI_Irecv and an MPI_Isend
 * of tag 1000 k + i and 4 (i % 7 + 1) + k bytes to the other rank, and hands both requests
 * to waiter thread k, which completes them: by MPI_Waitall, by MPI_Wait on each, or by
 * MPI_Test until done, in turn; an issuer runs at most 8 rounds ahead of its waiter. Both
 * pairs run at once, so the trace's request table is written and read by four threads, and
 * MPI reuses request handles while earlier ones are still being looked up.
 * test_trace_req.py checks every completion against its request.
 * Usage: mt_app [ROUNDS [lag]] (default 200 rounds); with `lag`, each waiter starts only
 * once its issuer has posted every round (all requests in flight at once).
 * Prints "mt ok" on rank 0. */

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kPairs = 2, kMaxBytes = 64, kAhead = 8 };

struct Handoff {
  pthread_mutex_t lock;
  pthread_cond_t ready;
  MPI_Request *requests; /* 2 per round */
  int posted;            /* rounds handed over so far; -1: all completed */
  int completed;         /* rounds completed so far */
};

static struct Handoff g_pairs[kPairs];
static int g_rounds = 200, g_peer, g_lag;

static int bytes_of(int k, int i) {
  return 4 * (i % 7 + 1) + k;
}

static void *issuer(void *arg) {
  const int k = (int)(long)arg;
  struct Handoff *h = &g_pairs[k];
  static char out[kPairs][kMaxBytes];
  char *in = malloc((size_t)g_rounds * kMaxBytes);
  for (int i = 0; i < g_rounds; ++i) {
    pthread_mutex_lock(&h->lock);
    while (!g_lag && i - h->completed >= kAhead)
      pthread_cond_wait(&h->ready, &h->lock);
    pthread_mutex_unlock(&h->lock);
    MPI_Request r[2];
    const int tag = 1000 * k + i, n = bytes_of(k, i);
    MPI_Irecv(in + (size_t)i * kMaxBytes, n, MPI_BYTE, g_peer, tag, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out[k], n, MPI_BYTE, g_peer, tag, MPI_COMM_WORLD, &r[1]);
    pthread_mutex_lock(&h->lock);
    h->requests[2 * i] = r[0];
    h->requests[2 * i + 1] = r[1];
    h->posted = i + 1;
    pthread_cond_broadcast(&h->ready);
    pthread_mutex_unlock(&h->lock);
  }
  /* The receive buffers stay until the waiter has completed every receive. */
  pthread_mutex_lock(&h->lock);
  while (h->posted != -1)
    pthread_cond_wait(&h->ready, &h->lock);
  pthread_mutex_unlock(&h->lock);
  free(in);
  return NULL;
}

static void *waiter(void *arg) {
  const int k = (int)(long)arg;
  struct Handoff *h = &g_pairs[k];
  for (int i = 0; i < g_rounds; ++i) {
    pthread_mutex_lock(&h->lock);
    while (h->posted < (g_lag ? g_rounds : i + 1))
      pthread_cond_wait(&h->ready, &h->lock);
    MPI_Request r[2] = {h->requests[2 * i], h->requests[2 * i + 1]};
    pthread_mutex_unlock(&h->lock);
    MPI_Status st[2];
    if (i % 3 == 0) {
      MPI_Waitall(2, r, st);
    } else if (i % 3 == 1) {
      MPI_Wait(&r[0], &st[0]);
      MPI_Wait(&r[1], &st[1]);
    } else {
      for (int j = 0; j < 2; ++j) {
        int done = 0;
        while (!done)
          MPI_Test(&r[j], &done, &st[j]);
      }
    }
    int got = 0;
    MPI_Get_count(&st[0], MPI_BYTE, &got);
    if (got != bytes_of(k, i) || st[0].MPI_TAG != 1000 * k + i) {
      fprintf(stderr, "mt_app: thread %d round %d: received %d bytes, tag %d\n", k, i, got,
              st[0].MPI_TAG);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pthread_mutex_lock(&h->lock);
    h->completed = i + 1;
    pthread_cond_broadcast(&h->ready);
    pthread_mutex_unlock(&h->lock);
  }
  pthread_mutex_lock(&h->lock);
  h->posted = -1;
  pthread_cond_broadcast(&h->ready);
  pthread_mutex_unlock(&h->lock);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (argc > 1)
    g_rounds = atoi(argv[1]);
  g_lag = argc > 2 && strcmp(argv[2], "lag") == 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided < MPI_THREAD_MULTIPLE || size != 2) {
    fprintf(stderr, "mt_app: needs MPI_THREAD_MULTIPLE (got %d) and 2 ranks (got %d)\n", provided,
            size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  g_peer = 1 - rank;
  pthread_t threads[2 * kPairs];
  for (int k = 0; k < kPairs; ++k) {
    pthread_mutex_init(&g_pairs[k].lock, NULL);
    pthread_cond_init(&g_pairs[k].ready, NULL);
    g_pairs[k].requests = malloc(2 * (size_t)g_rounds * sizeof(MPI_Request));
    g_pairs[k].posted = 0;
    g_pairs[k].completed = 0;
  }
  for (int k = 0; k < kPairs; ++k) {
    pthread_create(&threads[2 * k], NULL, issuer, (void *)(long)k);
    pthread_create(&threads[2 * k + 1], NULL, waiter, (void *)(long)k);
  }
  for (int t = 0; t < 2 * kPairs; ++t)
    pthread_join(threads[t], NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("mt ok\n");
  for (int k = 0; k < kPairs; ++k)
    free(g_pairs[k].requests);
  MPI_Finalize();
  return 0;
}
