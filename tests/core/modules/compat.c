/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* A module written against the original PnMPI's headers only (its names, no pnmpi_
 * function): PNMPI_Debug/Warning/Error, PNMPI_CONST, XMPI_X, PNMPI_Service_strerror and
 * PNMPI_Service_GetReturnAddress. It prints what each gives, one "compat: ..." line each.
 * `argument fail yes` makes its MPI_Barrier wrapper stop the job with PNMPI_Error. */

#define _GNU_SOURCE /* dladdr */
#define PNMPI_MESSAGE_PREFIX "compat"

#include <dlfcn.h>
#include <mpi.h>
#include <pnmpi/attributes.h>
#include <pnmpi/const.h>
#include <pnmpi/debug_io.h>
#include <pnmpi/hooks.h>
#include <pnmpi/service.h>
#include <pnmpi/xmpi.h>
#include <stdio.h>
#include <string.h>

/* Where a return address is: "application" when in the program's own code (the probe
 * application exports pnmpi_test_tag), else the file it is in. */
static const char *where(void *address) {
  Dl_info at, app;
  void *program = dlopen(NULL, RTLD_NOW);
  void *tag = program != NULL ? dlsym(program, "pnmpi_test_tag") : NULL;
  if (address == NULL || dladdr(address, &at) == 0)
    return "nowhere";
  if (tag != NULL && dladdr(tag, &app) != 0 && app.dli_fbase == at.dli_fbase)
    return "application";
  return at.dli_fname != NULL ? at.dli_fname : "unknown";
}

PNMPI_FUNCTION_ARG_NONNULL(1) static void show_return_address(const char *when) {
  void *address = NULL;
  const PNMPI_status_t s = PNMPI_Service_GetReturnAddress(&address);
  printf("compat: %s return address: %s (%s)\n", when, where(address), PNMPI_Service_strerror(s));
}

void PNMPI_RegistrationPoint(void) {
  PNMPI_Debug(PNMPI_DEBUG_MODULE, "debug module %d\n", 1);
  PNMPI_Debug(PNMPI_DEBUG_INIT, "debug init\n");
  const PNMPI_status_t codes[] = {
      PNMPI_SUCCESS,  PNMPI_FAILURE,   PNMPI_NOMEM, PNMPI_NOMODULE, PNMPI_NOSERVICE,
      PNMPI_NOGLOBAL, PNMPI_SIGNATURE, PNMPI_NOARG, PNMPI_NOSTACK,  PNMPI_NOT_IMPLEMENTED};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; ++i)
    printf("compat: strerror %d: %s\n", (int)codes[i], PNMPI_Service_strerror(codes[i]));
  printf("compat: strerror 12345: %s\n", PNMPI_Service_strerror((PNMPI_status_t)12345));
  show_return_address("hook");
  fflush(stdout);
}

int MPI_Barrier(MPI_Comm comm) {
  show_return_address("barrier");
  fflush(stdout);
  PNMPI_Debug(PNMPI_DEBUG_CALL, "barrier debug\n");
  PNMPI_Warning("barrier warning %s\n", "w");
  const char *fail = PNMPI_Service_GetArgumentSelf("fail");
  if (fail != NULL && strcmp(fail, "yes") == 0)
    PNMPI_Error("stopping as asked: %s\n", fail);
  return XMPI_Barrier(comm);
}

/* PNMPI_CONST makes the prototype match this MPI's. */
int MPI_Send(PNMPI_CONST void *buf, int count, MPI_Datatype type, int dest, int tag,
             MPI_Comm comm) {
  return XMPI_Send(buf, count, type, dest, tag, comm);
}
