/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* A module written as the original PnMPI's modules are: no PNMPI_EXPORT (it is built with
 * pnmpi_add_pmpi_module, default visibility), PnMPI's headers, message macros, checked PMPI
 * calls (<pnmpi/private/pmpi_assert.h>) and thread-local keyword (<pnmpi/private/tls.h>).
 * It counts sends; at MPI_Finalize each rank prints its count and PNMPI_F_STATUS_SIZE. With
 * `argument fail on`, its MPI_Barrier makes a checked call fail, which must end the job
 * with PNMPI_Error's message. */

#define PNMPI_MESSAGE_PREFIX "orig_pmpi"

#include <pnmpi/const.h>
#include <pnmpi/debug_io.h>
#include <pnmpi/hooks.h>
#include <pnmpi/private/pmpi_assert.h>
#include <pnmpi/private/tls.h>
#include <pnmpi/service.h>
#include <pnmpimod.h>
#include <stdio.h>
#include <string.h>

static pnmpi_compiler_tls_keyword int sends_of_this_thread;
static int fail;

void PNMPI_RegistrationPoint(void) {
  const char *value = PNMPI_Service_GetArgumentSelf("fail");
  fail = value != NULL && strcmp(value, "on") == 0;
  PNMPI_Debug(PNMPI_DEBUG_MODULE, "registered (fail %s)\n", fail ? "on" : "off");
}

int MPI_Send(PNMPI_CONST void *buf, int count, MPI_Datatype type, int dest, int tag,
             MPI_Comm comm) {
  ++sends_of_this_thread;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Barrier(MPI_Comm comm) {
  if (fail) {
    int rank;
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    PMPI_Comm_rank_assert(MPI_COMM_NULL, &rank);
  }
  return PMPI_Barrier(comm);
}

int MPI_Finalize(void) {
  int rank;
  PMPI_Comm_rank_assert(MPI_COMM_WORLD, &rank);
  printf("orig_pmpi: rank %d sent %d, Fortran status size %d\n", rank, sends_of_this_thread,
         PNMPI_F_STATUS_SIZE);
  fflush(stdout);
  return PMPI_Finalize();
}
