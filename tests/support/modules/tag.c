/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module: appends "<R><tag>" to the application's trace (pnmpi_test_tag) whenever one
 * of its wrappers runs, R naming the routine (B barrier, S comm_size, A allreduce, I init).
 * `argument tag X` names the layer; `argument calls Comm_size` makes its barrier wrapper
 * call PMPI_Comm_size on its way down; `argument barrier-returns N` makes its barrier
 * wrapper return N without calling down (return codes must reach the application). Built twice:
 * tag.so wraps all four routines, tag_barrier.so (TAG_BARRIER_ONLY) only MPI_Barrier. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void pnmpi_test_tag(const char *token);

static const char *g_tag = "?";
static int g_calls_size;
static int g_barrier_returns = -1;

PNMPI_EXPORT void PNMPI_RegistrationPoint(void) {
  const char *tag = PNMPI_Service_GetArgumentSelf("tag");
  const char *calls = PNMPI_Service_GetArgumentSelf("calls");
  if (tag != NULL)
    g_tag = tag;
  g_calls_size = calls != NULL && strcmp(calls, "Comm_size") == 0;
  const char *returns = PNMPI_Service_GetArgumentSelf("barrier-returns");
  if (returns != NULL)
    g_barrier_returns = atoi(returns);
}

static void tag(char routine) {
  char token[64];
  snprintf(token, sizeof token, "%c%s", routine, g_tag);
  pnmpi_test_tag(token);
}

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  tag('B');
  if (g_barrier_returns >= 0)
    return g_barrier_returns;
  if (g_calls_size) {
    int size = 0;
    PMPI_Comm_size(comm, &size);
  }
  return PMPI_Barrier(comm);
}

#ifndef TAG_BARRIER_ONLY
PNMPI_EXPORT int MPI_Comm_size(MPI_Comm comm, int *size) {
  tag('S');
  return PMPI_Comm_size(comm, size);
}

PNMPI_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm) {
  tag('A');
  return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
}

PNMPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  tag('I');
  return PMPI_Init(argc, argv);
}
#endif
