// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
//
// Traffic whose order in time is known, for checking a trace's clock alignment across hosts.
// clock_pingpong ROUNDS: in each round every pair of ranks (a < b) ping-pongs once (a sends
// 64 bytes with tag 1, b answers with tag 2), pairs taken in one global order so that the
// blocking calls cannot deadlock; then each rank sleeps rank x 2 ms, so that the ranks enter
// the round's barrier at different times. Prints one line per rank:
// "rank R on HOST monotonic SECONDS", its CLOCK_MONOTONIC just after a last barrier, so the
// caller can see each host's own clock.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void pause_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc == 2 ? atoi(argv[1]) : 0;
  if (rounds <= 0) {
    if (rank == 0)
      fprintf(stderr, "usage: clock_pingpong ROUNDS (a positive number)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char ping[64] = {0}, pong[64] = {0};
  for (int round = 0; round < rounds; ++round) {
    for (int a = 0; a < size; ++a)
      for (int b = a + 1; b < size; ++b) {
        if (rank == a) {
          MPI_Send(ping, sizeof ping, MPI_BYTE, b, 1, MPI_COMM_WORLD);
          MPI_Recv(pong, sizeof pong, MPI_BYTE, b, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == b) {
          MPI_Recv(ping, sizeof ping, MPI_BYTE, a, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(pong, sizeof pong, MPI_BYTE, a, 2, MPI_COMM_WORLD);
        }
      }
    pause_ms(2 * rank);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  char host[MPI_MAX_PROCESSOR_NAME];
  int length;
  MPI_Get_processor_name(host, &length);
  printf("rank %d on %s monotonic %lld.%09ld\n", rank, host, (long long)now.tv_sec, now.tv_nsec);
  MPI_Finalize();
  return 0;
}
