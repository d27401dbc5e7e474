/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module for stacks: routes every MPI_Barrier by the size of its communicator, into
 * the stack named by `argument small NAME` when the size is below `argument threshold N`,
 * else into `argument large NAME`, and appends "R<size>" to the application's trace. It
 * sends every MPI_Pcontrol into the large stack, typed argument included. */

#include <mpi.h>
#include <pnmpi/newstack.h>
#include <pnmpi/pnmpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

extern void pnmpi_test_tag(const char *token);

static long g_threshold;
static PNMPI_modHandle_t g_small, g_large;

static PNMPI_modHandle_t stack_argument(PNMPI_modHandle_t self, const char *name) {
  const char *stack = NULL;
  PNMPI_modHandle_t handle = -1;
  if (pnmpi_argument_string(self, name, PNMPI_ARG_REQUIRED, &stack) != PNMPI_SUCCESS)
    _exit(1);
  const PNMPI_status_t status = PNMPI_Service_GetStackByName(stack, &handle);
  if (status != PNMPI_SUCCESS) {
    fprintf(stderr, "route: stack '%s': %s\n", stack, PNMPI_Service_strerror(status));
    _exit(1);
  }
  return handle;
}

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  if (pnmpi_argument_long(self, "threshold", PNMPI_ARG_REQUIRED, 1, 1 << 20, &g_threshold) !=
      PNMPI_SUCCESS)
    _exit(1);
  g_small = stack_argument(self, "small");
  g_large = stack_argument(self, "large");
}

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  char token[32];
  snprintf(token, sizeof token, "R%d", size);
  pnmpi_test_tag(token);
  return XMPI_Barrier_NewStack(size < g_threshold ? g_small : g_large, comm);
}

PNMPI_EXPORT int MPI_Pcontrol(const int level, ...) {
  va_list ap;
  va_start(ap, level);
  int rc = MPI_SUCCESS;
  switch (pnmpi_pcontrol_argument_type(level)) {
  case PNMPI_PCONTROL_TYPE_NONE:
    rc = XMPI_Pcontrol_NewStack(g_large, level);
    break;
  case PNMPI_PCONTROL_TYPE_INT:
    rc = XMPI_Pcontrol_NewStack(g_large, level, va_arg(ap, int));
    break;
  case PNMPI_PCONTROL_TYPE_LONG:
    rc = XMPI_Pcontrol_NewStack(g_large, level, va_arg(ap, long));
    break;
  case PNMPI_PCONTROL_TYPE_DOUBLE:
    rc = XMPI_Pcontrol_NewStack(g_large, level, va_arg(ap, double));
    break;
  case PNMPI_PCONTROL_TYPE_POINTER:
    rc = XMPI_Pcontrol_NewStack(g_large, level, va_arg(ap, void *));
    break;
  }
  va_end(ap);
  return rc;
}
