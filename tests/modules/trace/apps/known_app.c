/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* A program whose trace is known exactly (test_trace.py lists what each rank must hold), on
 * 2 to 4 ranks: a blocking message 0 -> 1, a ring of nonblocking messages, collectives on
 * MPI_COMM_WORLD (blocking, and nonblocking ones completed by a Waitall and a Wait) and on a
 * split communicator, a persistent ring started twice, two rings received by matched probes
 * (MPI_Mrecv, MPI_Imrecv), and a message inside the split one.
 * Usage: known_app [N [kill|pause]]: repeats the ring N times (default 1); with `kill`, rank 1
 * kills itself with SIGKILL after the ring, as a job killed part-way; with `pause`, every
 * rank sleeps 5 ms after each step, so that a timeline draws each call apart. */

#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_pause;

static void step(void) {
  const struct timespec five_ms = {0, 5000000};
  if (g_pause)
    nanosleep(&five_ms, NULL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int repeat = argc > 1 ? atoi(argv[1]) : 1;
  g_pause = argc > 2 && strcmp(argv[2], "pause") == 0;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int block[100] = {0};
  if (rank == 0)
    MPI_Send(block, 100, MPI_INT, 1, 7, MPI_COMM_WORLD);
  else if (rank == 1)
    MPI_Recv(block, 100, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  step();

  double out[10] = {0}, in[10];
  /* MPI_STATUSES_IGNORE through a volatile: MPICH's is a null constant, which GCC reads as
   * an array of size 0 and warns about; the trace must supply statuses of its own here. */
  MPI_Status *volatile no_statuses = MPI_STATUSES_IGNORE;
  for (int i = 0; i < repeat; ++i) {
    MPI_Request req[2];
    MPI_Irecv(in, 10, MPI_DOUBLE, (rank + size - 1) % size, 3, MPI_COMM_WORLD, &req[0]);
    step();
    MPI_Isend(out, 10, MPI_DOUBLE, (rank + 1) % size, 3, MPI_COMM_WORLD, &req[1]);
    step();
    MPI_Waitall(2, req, no_statuses);
    step();
  }

  if (argc > 2 && strcmp(argv[2], "kill") == 0 && rank == 1)
    raise(SIGKILL);
  MPI_Barrier(MPI_COMM_WORLD);
  step();
  char word[16] = "hello";
  MPI_Bcast(word, 16, MPI_CHAR, 0, MPI_COMM_WORLD);
  step();
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  step();
  /* Two nonblocking collectives completed together, the bcast's root the last rank (its
   * comm rank is recorded, not 0), then one completed by MPI_Wait. */
  MPI_Request nbc[2];
  long total = 0, mine = rank;
  MPI_Iallreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &nbc[0]);
  step();
  MPI_Ibcast(word, 8, MPI_CHAR, size - 1, MPI_COMM_WORLD, &nbc[1]);
  step();
  MPI_Waitall(2, nbc, no_statuses);
  step();
  MPI_Ibarrier(MPI_COMM_WORLD, &nbc[0]);
  step();
  MPI_Wait(&nbc[0], MPI_STATUS_IGNORE);
  step();
  /* A persistent ring: each start issues a receive and a send, completed by the Waitall. */
  MPI_Request ring[2];
  MPI_Recv_init(in, 4, MPI_DOUBLE, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &ring[0]);
  step();
  MPI_Send_init(out, 4, MPI_DOUBLE, (rank + 1) % size, 5, MPI_COMM_WORLD, &ring[1]);
  step();
  for (int i = 0; i < 2; ++i) {
    MPI_Startall(2, ring);
    step();
    MPI_Waitall(2, ring, no_statuses);
    step();
  }
  MPI_Request_free(&ring[0]);
  step();
  MPI_Request_free(&ring[1]);
  step();
  /* Matched probes: the first ring received by MPI_Mrecv, the second by MPI_Imrecv. */
  int probe_out[3] = {0}, probe_in[3];
  for (int i = 0; i < 2; ++i) {
    MPI_Request sent, got;
    MPI_Message msg;
    MPI_Isend(probe_out, 3, MPI_INT, (rank + 1) % size, 6 + i, MPI_COMM_WORLD, &sent);
    step();
    MPI_Mprobe((rank + size - 1) % size, 6 + i, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
    step();
    if (i == 0) {
      MPI_Mrecv(probe_in, 3, MPI_INT, &msg, MPI_STATUS_IGNORE);
    } else {
      MPI_Imrecv(probe_in, 3, MPI_INT, &msg, &got);
      step();
      MPI_Wait(&got, MPI_STATUS_IGNORE);
    }
    step();
    MPI_Wait(&sent, MPI_STATUS_IGNORE);
    step();
  }

  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  step();
  int hrank = 0, hsize = 1;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half);
  step();
  if (hsize > 1) {
    long pair[2] = {0, 0};
    if (hrank == 0)
      MPI_Send(pair, 2, MPI_LONG, 1, 9, half);
    else if (hrank == 1)
      MPI_Recv(pair, 2, MPI_LONG, 0, 9, half, MPI_STATUS_IGNORE);
  }
  step();
  MPI_Comm_free(&half);
  step();
  MPI_Finalize();
  return 0;
}
