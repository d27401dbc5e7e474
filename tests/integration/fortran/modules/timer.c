/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module: a profiler as they are commonly written. Its wrappers time each send with
 * the public MPI_Wtime and look at their arguments with public calls (MPI_Comm_rank,
 * MPI_Type_size, MPI_Comm_c2f) before forwarding; at finalize rank 1 sends its report, 8
 * bytes, to rank 0. Placed above the monitor, with a wrap-everything layer above it, the
 * application's traffic must still be filed as the application's and the report as the
 * module's. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>

static double g_seconds;
static long g_calls;

static void look_at(MPI_Datatype type, MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Type_size(type, &size);
  (void)MPI_Comm_c2f(comm);
  g_calls += rank >= 0 && size >= 0;
}

PNMPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  const double t0 = MPI_Wtime();
  look_at(type, comm);
  const int rc = PMPI_Send(buf, count, type, dest, tag, comm);
  g_seconds += MPI_Wtime() - t0;
  return rc;
}

PNMPI_EXPORT int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request) {
  const double t0 = MPI_Wtime();
  look_at(type, comm);
  const int rc = PMPI_Isend(buf, count, type, dest, tag, comm, request);
  g_seconds += MPI_Wtime() - t0;
  return rc;
}

PNMPI_EXPORT int MPI_Finalize(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double report = g_seconds + (double)g_calls;
  if (rank == 1)
    PMPI_Send(&report, 1, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD);
  else if (rank == 0)
    PMPI_Recv(&report, 1, MPI_DOUBLE, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return PMPI_Finalize();
}
