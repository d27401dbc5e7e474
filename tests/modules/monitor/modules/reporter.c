/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module stacked above the monitor, like a profiler such as mpiP: it times the
 * application's sends and collectives around ordinary (non-tail) calls, so the monitor is
 * called from this module's code, yet they must stay the application's. It also makes
 * calls of its own that must be counted as a module's: in its PNMPI_Fini hook an
 * MPI_Allreduce of one int, made as a tail call (so the monitor sees the core's return
 * address, not this module's); in its MPI_Finalize wrapper an MPI_Reduce of one double to
 * rank 0, 16 bytes from rank 1 to rank 0, and one-sided traffic on a window of its own (an
 * MPI_Put of one int to the next rank, an MPI_Get of two ints from the rank after it, an
 * MPI_Fetch_and_op of one int on the previous rank); and, inside the application's MPI_Barrier, an
 * MPI_Send of 8 bytes to the next rank, a different routine than the one the application
 * entered. It prints "reporter: timed N calls" at finalize, so a test can see it ran. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>

static double g_time;
static long g_calls;

#define TIMED(call)                                                                                \
  do {                                                                                             \
    const double start = PMPI_Wtime();                                                             \
    rc = (call);                                                                                   \
    g_time += PMPI_Wtime() - start;                                                                \
    ++g_calls;                                                                                     \
  } while (0)

PNMPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  int rc;
  TIMED(PMPI_Send(buf, count, type, dest, tag, comm));
  return rc;
}

PNMPI_EXPORT int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request) {
  int rc;
  TIMED(PMPI_Isend(buf, count, type, dest, tag, comm, request));
  return rc;
}

PNMPI_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm) {
  int rc;
  TIMED(PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm));
  return rc;
}

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  char note[8] = {0}, in[8];
  MPI_Request request;
  PMPI_Irecv(in, 8, MPI_CHAR, (rank + size - 1) % size, 98, MPI_COMM_WORLD, &request);
  PMPI_Send(note, 8, MPI_CHAR, (rank + 1) % size, 98, MPI_COMM_WORLD);
  PMPI_Wait(&request, MPI_STATUS_IGNORE);
  int rc;
  TIMED(PMPI_Barrier(comm));
  return rc;
}

PNMPI_EXPORT void PNMPI_Fini(void) {
  static int one = 1, sum;
  PMPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

PNMPI_EXPORT int MPI_Finalize(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double mine = g_time, total = 0;
  PMPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  char report[16] = {0};
  if (rank == 1)
    PMPI_Send(report, 16, MPI_CHAR, 0, 99, MPI_COMM_WORLD);
  else if (rank == 0)
    PMPI_Recv(report, 16, MPI_CHAR, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int size = 1, window[4] = {0}, one = 1, got[2], old;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win win;
  PMPI_Win_create(window, sizeof window, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  PMPI_Win_fence(0, win);
  PMPI_Put(&one, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
  PMPI_Get(got, 2, MPI_INT, (rank + 2) % size, 2, 2, MPI_INT, win);
  PMPI_Win_fence(0, win);
  PMPI_Win_lock_all(0, win);
  PMPI_Fetch_and_op(&one, &old, MPI_INT, (rank + size - 1) % size, 1, MPI_SUM, win);
  PMPI_Win_unlock_all(win);
  PMPI_Win_free(&win);
  fprintf(stderr, "reporter: timed %ld calls\n", g_calls);
  return PMPI_Finalize();
}
