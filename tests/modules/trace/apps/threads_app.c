// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// A multi-threaded program whose trace is known, on 2 ranks: threads_app MESSAGES.
// MPI_THREAD_MULTIPLE; the main thread duplicates MPI_COMM_WORLD once per worker, then
// starts 3 worker threads. Worker t (0..2) ping-pongs MESSAGES times with worker t of the
// other rank on its own communicator: rank 0 sends 8 x (t + 1) bytes with tag 10 + t and
// receives the answer with tag 20 + t; rank 1 the other way round. Meanwhile the main thread
// runs 5 x (MPI_Barrier, MPI_Allreduce of one int) and one MPI_Bcast of 16 bytes from rank
// 0 on MPI_COMM_WORLD. It then joins the workers, frees the communicators and prints
// "threads ok".
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kWorkers = 3, kCollectiveRounds = 5 };

static MPI_Comm comms[kWorkers];
static int rank, messages;

static void *worker(void *arg) {
  const int t = (int)(size_t)arg;
  char buffer[8 * kWorkers] = {0};
  const int bytes = 8 * (t + 1);
  for (int i = 0; i < messages; ++i) {
    if (rank == 0) {
      MPI_Send(buffer, bytes, MPI_BYTE, 1, 10 + t, comms[t]);
      MPI_Recv(buffer, bytes, MPI_BYTE, 1, 20 + t, comms[t], MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer, bytes, MPI_BYTE, 0, 10 + t, comms[t], MPI_STATUS_IGNORE);
      MPI_Send(buffer, bytes, MPI_BYTE, 0, 20 + t, comms[t]);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided = MPI_THREAD_SINGLE, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  messages = argc == 2 ? atoi(argv[1]) : 0;
  if (provided < MPI_THREAD_MULTIPLE || size != 2 || messages <= 0) {
    if (rank == 0)
      fprintf(stderr,
              "threads_app: needs MPI_THREAD_MULTIPLE (this MPI provides level %d), 2 ranks "
              "(not %d) and a positive number of messages as its argument\n",
              provided, size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int t = 0; t < kWorkers; ++t)
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
  pthread_t threads[kWorkers];
  for (int t = 0; t < kWorkers; ++t)
    if (pthread_create(&threads[t], NULL, worker, (void *)(size_t)t) != 0) {
      fprintf(stderr, "threads_app: rank %d: cannot start thread %d\n", rank, t);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  int one = 1, sum = 0;
  for (int i = 0; i < kCollectiveRounds; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  char block[16] = {0};
  MPI_Bcast(block, sizeof block, MPI_BYTE, 0, MPI_COMM_WORLD);
  for (int t = 0; t < kWorkers; ++t)
    pthread_join(threads[t], NULL);
  for (int t = 0; t < kWorkers; ++t)
    MPI_Comm_free(&comms[t]);
  if (rank == 0)
    printf("threads ok\n");
  MPI_Finalize();
  return sum == size ? 0 : 1;
}
