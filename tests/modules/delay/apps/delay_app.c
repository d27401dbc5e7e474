/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Times, on rank 0, the quickest of `iterations` calls of every kind of send the delay
 * module must delay (MPI_Send, MPI_Isend, MPI_Sendrecv, a persistent send at MPI_Start and
 * at MPI_Startall) and one it must not (MPI_Start of a persistent receive made after a
 * persistent send was freed: a freed send forgotten by the module would delay it when MPI
 * reuses the handle). Prints `NAME_us=MIN` per kind, and `reused=1` when the receive got
 * the freed send's handle. The minimum skips calls a busy machine preempted; a call of an
 * eager 8-byte send returns without waiting for the receiver. Usage: delay_app [iterations] */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double g_min[6];
static const char *const g_names[6] = {"send",       "isend",    "sendrecv",
                                       "start_send", "startall", "start_recv"};

static void took(int kind, double seconds) {
  if (seconds < g_min[kind])
    g_min[kind] = seconds;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int iterations = argc > 1 ? atoi(argv[1]) : 50;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int peer = 1 - rank;
  double out = 1, in = 0;
  for (int k = 0; k < 6; ++k)
    g_min[k] = 1e9;
  MPI_Request req[2];
  MPI_Status statuses[2]; /* not MPI_STATUSES_IGNORE: MPICH's header makes gcc warn */

  for (int i = 0; i < iterations; ++i) {
    double t = MPI_Wtime();
    MPI_Send(&out, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD);
    took(0, MPI_Wtime() - t);
    MPI_Recv(&in, 1, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    t = MPI_Wtime();
    MPI_Isend(&out, 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &req[0]);
    took(1, MPI_Wtime() - t);
    MPI_Recv(&in, 1, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req[0], MPI_STATUS_IGNORE);

    t = MPI_Wtime();
    MPI_Sendrecv(&out, 1, MPI_DOUBLE, peer, 3, &in, 1, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    took(2, MPI_Wtime() - t);
  }

  MPI_Send_init(&out, 1, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, &req[0]);
  MPI_Recv_init(&in, 1, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, &req[1]);
  for (int i = 0; i < iterations; ++i) {
    double t = MPI_Wtime();
    MPI_Start(&req[0]);
    took(3, MPI_Wtime() - t);
    MPI_Start(&req[1]);
    MPI_Waitall(2, req, statuses);
    t = MPI_Wtime();
    MPI_Startall(2, req);
    took(4, MPI_Wtime() - t);
    MPI_Waitall(2, req, statuses);
  }
  /* The send is freed last, so that an allocator that reuses the latest freed request gives
   * its handle to the next one. */
  MPI_Request freed;
  memcpy(&freed, &req[0], sizeof freed);
  MPI_Request_free(&req[1]);
  MPI_Request_free(&req[0]);

  /* The freed send's handle may come back for the receive. */
  MPI_Request recv;
  MPI_Recv_init(&in, 1, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &recv);
  const int reused = memcmp(&freed, &recv, sizeof recv) == 0;
  for (int i = 0; i < iterations; ++i) {
    const double t = MPI_Wtime();
    MPI_Start(&recv);
    took(5, MPI_Wtime() - t);
    MPI_Send(&out, 1, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&recv);

  if (rank == 0) {
    for (int k = 0; k < 6; ++k)
      printf("%s_us=%.3f\n", g_names[k], g_min[k] * 1e6);
    printf("reused=%d\n", reused);
  }
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
