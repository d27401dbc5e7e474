/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module for a bad stack handle: in MPI_Barrier, the world rank given by `argument rank
 * N` sends one call into stack 99, which no configuration here has, with
 * XMPI_Pcontrol_NewStack (`argument call pcontrol`) or XMPI_Send_NewStack (`argument call
 * send`). The other ranks wait in a second barrier that never completes, so the job ends only
 * if that rank's error ends it. (One rank at a time: a rank that ends the job may kill
 * another before it prints its own error.) */

#include <mpi.h>
#include <pnmpi/newstack.h>
#include <pnmpi/pnmpi.h>
#include <string.h>
#include <unistd.h>

PNMPI_MODULE_ARGUMENTS("call rank");

static int g_send;
static long g_rank;

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  const char *call = NULL;
  if (pnmpi_argument_string(self, "call", PNMPI_ARG_REQUIRED, &call) != PNMPI_SUCCESS ||
      pnmpi_argument_long(self, "rank", PNMPI_ARG_REQUIRED, 0, 1 << 20, &g_rank) != PNMPI_SUCCESS)
    _exit(1);
  g_send = strcmp(call, "send") == 0;
}

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Barrier(comm);
  if (rank != g_rank)
    return PMPI_Barrier(comm);
  if (g_send) {
    int value = 0;
    return XMPI_Send_NewStack(99, &value, 1, MPI_INT, 0, 0, comm);
  }
  return XMPI_Pcontrol_NewStack(99, 1);
}
