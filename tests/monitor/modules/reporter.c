/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module stacked above the monitor, like a profiler: it forwards the application's
 * sends with tail calls (so they stay the application's) and sends a report of its own at
 * finalize: in its PNMPI_Fini hook an MPI_Allreduce of one int, in its MPI_Finalize
 * wrapper an MPI_Reduce of one double to rank 0 and 16 bytes from rank 1 to rank 0. None
 * of these report calls is a tail call: a tail call would hand the monitor its caller's
 * return address, outside this module. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>

static volatile int g_sink;

PNMPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

PNMPI_EXPORT void PNMPI_Fini(void) {
  int one = 1, sum = 0;
  PMPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  g_sink = sum;
}

PNMPI_EXPORT int MPI_Finalize(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double mine = rank, total = 0;
  PMPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  char report[16] = {0};
  if (rank == 1)
    PMPI_Send(report, 16, MPI_CHAR, 0, 99, MPI_COMM_WORLD);
  else if (rank == 0)
    PMPI_Recv(report, 16, MPI_CHAR, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  g_sink = (int)total;
  return PMPI_Finalize();
}
