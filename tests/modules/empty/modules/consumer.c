/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module, listed above the template (modules/empty/empty.c): in PNMPI_Init it looks up
 * the template's service "empty.sends" (the first layer that offers it), and at finalize
 * rank 0 sends one message of its own to rank 1 through the layers below, then prints what
 * the service counts. That send is a module's, not the application's. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>

typedef long (*sends_fn)(int application_only);
static sends_fn g_sends;

PNMPI_EXPORT void PNMPI_Init(void) {
  PNMPI_Service_descriptor_t service;
  const PNMPI_status_t status =
      PNMPI_Service_GetServiceByName(PNMPI_MODHANDLE_NULL, "empty.sends", "long(int)", &service);
  printf("consumer: empty.sends: %s\n", PNMPI_Service_StatusString(status));
  fflush(stdout);
  if (status == PNMPI_SUCCESS)
    g_sends = (sends_fn)(void (*)(void))service.fct; /* returns long: see empty.c */
}

PNMPI_EXPORT void PNMPI_Fini(void) {
  int rank = -1, token = 42;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    PMPI_Send(&token, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
  else if (rank == 1)
    PMPI_Recv(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (g_sends != NULL)
    printf("consumer[%d]: empty.sends says %ld send(s), %ld from the application\n", rank,
           g_sends(0), g_sends(1));
  fflush(stdout);
}
