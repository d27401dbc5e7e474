/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Layer-order probe. Test modules append a token to a buffer this program exports
 * (pnmpi_test_tag) each time one of their wrappers runs; the program calls a routine and
 * prints, on rank 0, exactly what the layers appended, so a test can assert the order. */

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static char g_trace[8192];

__attribute__((visibility("default"))) void pnmpi_test_tag(const char *token) {
  size_t used = strlen(g_trace);
  snprintf(g_trace + used, sizeof g_trace - used, "%s%s", used ? " " : "", token);
}

static void report(int rank, const char *what, int rc) {
  if (rank == 0)
    printf("%s: [%s] rc=%d\n", what, g_trace, rc);
  g_trace[0] = '\0';
}

int main(int argc, char **argv) {
  int rc = MPI_Init(&argc, &argv);
  int rank = -1, size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  report(rank, "init", rc);
  rc = MPI_Barrier(MPI_COMM_WORLD);
  report(rank, "barrier", rc);
  rc = MPI_Comm_size(MPI_COMM_WORLD, &size);
  report(rank, "size", rc);
  int sum = 0;
  rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  report(rank, "allreduce", rc);
  if (rank == 0)
    printf("result: size=%d sum=%d\n", size, sum);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
