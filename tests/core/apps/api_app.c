/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The module API's probe application. Test modules append a token to a trace this program
 * exports (pnmpi_test_tag) whenever one of their wrappers runs; the program makes one call
 * at a time and prints, on rank 0, what the layers appended:
 *   init, barrier-world (2 ranks), barrier-self (1 rank), size,
 *   pcontrol-1 (level only), pcontrol-2 (int 42), pcontrol-3 (long 1234567890123),
 *   pcontrol-4 (double 2.5), pcontrol-5 (pointer to "marker"),
 * then "finalized" after MPI_Finalize. Built linked with libpnmpi and unchanged (for
 * pnmpi-run). Output is line-buffered so that lines keep their order among modules' own. */

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
  setvbuf(stdout, NULL, _IOLBF, 0);
  int rc = MPI_Init(&argc, &argv);
  int rank = -1, size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  report(rank, "init", rc);
  rc = MPI_Barrier(MPI_COMM_WORLD);
  report(rank, "barrier-world", rc);
  rc = MPI_Barrier(MPI_COMM_SELF);
  report(rank, "barrier-self", rc);
  rc = MPI_Comm_size(MPI_COMM_WORLD, &size);
  report(rank, "size", rc);
  rc = MPI_Pcontrol(1);
  report(rank, "pcontrol-1", rc);
  rc = MPI_Pcontrol(2, 42);
  report(rank, "pcontrol-2", rc);
  rc = MPI_Pcontrol(3, 1234567890123L);
  report(rank, "pcontrol-3", rc);
  rc = MPI_Pcontrol(4, 2.5);
  report(rank, "pcontrol-4", rc);
  rc = MPI_Pcontrol(5, (void *)"marker");
  report(rank, "pcontrol-5", rc);
  if (rank == 0)
    printf("result: size=%d\n", size);
  MPI_Finalize();
  if (rank == 0)
    printf("finalized\n");
  return 0;
}
