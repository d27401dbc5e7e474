/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* A small MPI program with a known sequence of calls, for the tests of real tools. Usage:
 * calls_app [ITERATIONS [thread]] (default 3; `thread` starts MPI with MPI_Init_thread).
 *
 * Every rank, in this order (tags keep the message streams apart):
 *   MPI_Init or MPI_Init_thread
 *   ITERATIONS times:
 *     MPI_Sendrecv   1 int to the right neighbour, from the left one           (tag 1)
 *     MPI_Send       rank 0 only: 4 ints to rank 1 / MPI_Recv rank 1 only       (tag 2)
 *     MPI_Isend      2 ints to the right, MPI_Recv 2 ints from the left, MPI_Wait (tag 3)
 *     MPI_Allreduce  1 double
 *   MPI_Bcast 8 doubles, MPI_Reduce 1 int, MPI_Allgather 1 int, MPI_Barrier
 *   MPI_Pcontrol(0), MPI_Barrier, MPI_Allreduce 1 int, MPI_Pcontrol(1)
 *   MPI_Finalize
 * Rank 0 prints the results on stdout, lines starting "app: "; nothing else is printed, so
 * the stdout of a run must not depend on the tools it runs under. */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  const int iterations = argc > 1 ? atoi(argv[1]) : 3;
  const int use_thread = argc > 2 && strcmp(argv[2], "thread") == 0;
  if (use_thread) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  int checksum = 0;
  double reduced = 0;
  for (int i = 0; i < iterations; ++i) {
    int out = rank * 100 + i, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, right, 1, &in, 1, MPI_INT, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    checksum += in;

    if (size > 1 && rank == 0) {
      int four[4] = {i, i + 1, i + 2, i + 3};
      MPI_Send(four, 4, MPI_INT, 1, 2, MPI_COMM_WORLD);
    } else if (size > 1 && rank == 1) {
      int four[4] = {0};
      MPI_Recv(four, 4, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      checksum += 3 * (four[0] + four[1] + four[2] + four[3]);
    }

    int two_out[2] = {rank, i}, two_in[2] = {-1, -1};
    MPI_Request request;
    MPI_Isend(two_out, 2, MPI_INT, right, 3, MPI_COMM_WORLD, &request);
    MPI_Status status;
    MPI_Recv(two_in, 2, MPI_INT, left, 3, MPI_COMM_WORLD, &status);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    checksum += 7 * two_in[0] + 11 * two_in[1];

    double mine = rank + 0.5 * i, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    reduced += sum;
  }

  double eight[8] = {0};
  if (rank == 0)
    for (int k = 0; k < 8; ++k)
      eight[k] = 1.25 * k;
  MPI_Bcast(eight, 8, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  double broadcast = 0;
  for (int k = 0; k < 8; ++k)
    broadcast += eight[k];

  int total = 0;
  MPI_Reduce(&checksum, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

  int square = rank * rank;
  int *squares = calloc((size_t)size, sizeof *squares);
  MPI_Allgather(&square, 1, MPI_INT, squares, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Pcontrol(0);
  MPI_Barrier(MPI_COMM_WORLD);
  int one = 1, ranks = 0;
  MPI_Allreduce(&one, &ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Pcontrol(1);

  if (rank == 0) {
    printf("app: size=%d iterations=%d started by %s\n", size, iterations,
           use_thread ? "MPI_Init_thread" : "MPI_Init");
    printf("app: checksum=%d\n", total);
    printf("app: allreduce=%.2f\n", reduced);
    printf("app: bcast=%.2f\n", broadcast);
    printf("app: allgather=");
    for (int r = 0; r < size; ++r)
      printf("%s%d", r ? "," : "", squares[r]);
    printf("\napp: unprofiled allreduce=%d\n", ranks);
    fflush(stdout);
  }
  free(squares);
  MPI_Finalize();
  return 0;
}
