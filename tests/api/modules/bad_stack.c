/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module for a bad stack handle: in MPI_Barrier it sends one call into stack 99, which
 * no configuration here has, with XMPI_Pcontrol_NewStack (`argument call pcontrol`) or
 * XMPI_Send_NewStack (`argument call send`). Every rank first passes a real barrier, so each
 * reaches the bad call before any rank's error ends the job. */

#include <mpi.h>
#include <pnmpi/newstack.h>
#include <pnmpi/pnmpi.h>
#include <string.h>
#include <unistd.h>

PNMPI_MODULE_ARGUMENTS("call");

static int g_send;

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  const char *call = NULL;
  if (pnmpi_argument_string(self, "call", PNMPI_ARG_REQUIRED, &call) != PNMPI_SUCCESS)
    _exit(1);
  g_send = strcmp(call, "send") == 0;
}

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  PMPI_Barrier(comm);
  if (g_send) {
    int value = 0;
    return XMPI_Send_NewStack(99, &value, 1, MPI_INT, 0, 0, comm);
  }
  return XMPI_Pcontrol_NewStack(99, 1);
}
