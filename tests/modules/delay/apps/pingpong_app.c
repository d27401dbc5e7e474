/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* 8-byte ping-pong between ranks 0 and 1; rank 0 prints the mean round trip and the
 * shortest time one MPI_Send call took, in microseconds (an 8-byte send is eager: it returns
 * without waiting for the receiver, so the shortest call shows what the layers added, and
 * the minimum filters out calls a busy machine preempted). Usage: pingpong_app [iterations] */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int iterations = argc > 1 ? atoi(argv[1]) : 200;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double msg = 0, send_min = 1e9;
  for (int warm = 0; warm < 2; ++warm) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < (warm ? iterations : 10); ++i) {
      if (rank == 0) {
        const double s0 = MPI_Wtime();
        MPI_Send(&msg, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
        const double s1 = MPI_Wtime();
        if (warm && s1 - s0 < send_min)
          send_min = s1 - s0;
        MPI_Recv(&msg, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(&msg, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&msg, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
      }
    }
    const double elapsed = MPI_Wtime() - start;
    if (warm && rank == 0)
      printf("rtt_us=%.3f send_min_us=%.3f\n", elapsed / iterations * 1e6, send_min * 1e6);
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
