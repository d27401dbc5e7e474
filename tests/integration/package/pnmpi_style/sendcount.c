/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* A module in the original PnMPI's style: <pnmpimod.h>, PNMPI_CONST in its MPI_Send wrapper,
 * a registration point that registers its name, and PMPI_ calls to the next layer (the build
 * renames them). It counts the sends of each rank and prints the count at MPI_Finalize. */
#include <pnmpimod.h>
#include <stdio.h>

static int sends;

void PNMPI_RegistrationPoint(void) {
  if (PNMPI_Service_RegisterModule("sendcount") != PNMPI_SUCCESS)
    fprintf(stderr, "sendcount: PNMPI_Service_RegisterModule failed\n");
}

int MPI_Send(PNMPI_CONST void *buf, int count, MPI_Datatype type, int dest, int tag,
             MPI_Comm comm) {
  sends++;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Finalize(void) {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("sendcount[%d]: %d send(s)\n", rank, sends);
  fflush(stdout);
  return PMPI_Finalize();
}
