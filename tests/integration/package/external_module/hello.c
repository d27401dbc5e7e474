/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* An out-of-tree module: counts MPI_Send calls and reports them with its greeting
 * (`argument greeting WORD`) when the application finalizes. It includes PnMPI's umbrella
 * header, as a module written for PnMPI would. */

#include <pnmpimod.h>
#include <stdio.h>

const char *PNMPI_ModuleName = "hello";

static const char *g_greeting = "hello";
static long g_sends;

void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  pnmpi_argument_string(self, "greeting", PNMPI_ARG_OPTIONAL, &g_greeting);
}

PNMPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  ++g_sends;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

void pnmpi_module_finalize(PNMPI_modHandle_t self) {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("hello[%d]: %s from layer %d, %ld send(s)\n", rank, g_greeting, self, g_sends);
  fflush(stdout);
}
