/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The wait-for-debugger module: right after MPI is initialised, every rank prints where it
 * runs ("Rank 3 at node7 has pid 4242.") and then waits, so that a debugger can be attached
 * to the rank of interest before the application goes on:
 *
 *   module wait-for-debugger
 *   argument wait 60          # seconds; 0 (the default) only prints
 *
 * The environment variable WAIT_AT_STARTUP (the original PnMPI module's) overrides `wait`.
 * A debugger ends the wait early by setting the module's `pnmpi_wait_for_debugger_release`
 * to 1 in the ranks it attached to (gdb: `set var *(volatile int *)&
 * pnmpi_wait_for_debugger_release = 1`); the others go on when their time is up. */

#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

PNMPI_MODULE_ARGUMENTS("wait");

/* The longest wait accepted: a day, so a typo (an extra digit) cannot hang a job for weeks. */
#define MAX_WAIT_S (24L * 60 * 60)

static long g_wait_s;

/* Set by a debugger to end this rank's wait; volatile, since nothing in this program
 * writes it. Exported so the debugger finds it by name. */
PNMPI_EXPORT volatile int pnmpi_wait_for_debugger_release;

/* The argument's value (pnmpi-info --check runs this too). */
PNMPI_EXPORT int pnmpi_module_check(PNMPI_modHandle_t self) {
  return pnmpi_argument_long(self, "wait", PNMPI_ARG_OPTIONAL, 0, MAX_WAIT_S, &g_wait_s) ==
                 PNMPI_BADARG
             ? PNMPI_BADARG
             : PNMPI_SUCCESS;
}

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  if (pnmpi_module_check(self) != PNMPI_SUCCESS)
    _exit(1);
  const char *env = getenv("WAIT_AT_STARTUP");
  if (env != NULL) {
    char problem[256];
    if (pnmpi_parse_long(env, 0, MAX_WAIT_S, &g_wait_s, problem, sizeof problem) != PNMPI_SUCCESS) {
      fprintf(stderr,
              "pnmpi: module 'wait-for-debugger': environment variable WAIT_AT_STARTUP %s\n",
              problem);
      _exit(1);
    }
  }
}

static void announce_and_wait(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char host[HOST_NAME_MAX + 1] = "";
  if (gethostname(host, sizeof host) != 0)
    host[0] = '\0';
  host[HOST_NAME_MAX] = '\0';
  /* One printf per line, flushed: ranks share the launcher's output. */
  if (host[0] != '\0')
    printf("Rank %d at %s has pid %ld.\n", rank, host, (long)getpid());
  else
    printf("Rank %d has pid %ld.\n", rank, (long)getpid());
  fflush(stdout);
  if (g_wait_s == 0)
    return;
  if (rank == 0) {
    printf("Waiting for %ld seconds ...\n", g_wait_s);
    fflush(stdout);
  }
  /* Short naps, so a debugger's release is seen at once. */
  struct timespec nap = {0, 100 * 1000 * 1000};
  for (long naps = g_wait_s * 10; naps > 0 && !pnmpi_wait_for_debugger_release; --naps)
    nanosleep(&nap, NULL);
  if (rank == 0) {
    printf("Done waiting.\n");
    fflush(stdout);
  }
}

PNMPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS)
    announce_and_wait();
  return rc;
}

PNMPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    announce_and_wait();
  return rc;
}
