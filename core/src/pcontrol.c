/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* MPI_Pcontrol by hand (stub-gen/exceptions.txt): its varargs cannot be forwarded, and
 * profilers consume it rather than pass it on, so the core delivers it to every module that
 * receives it (`pcontrol on|off`, `globalpcontrol`) and then calls MPI once. The level
 * always arrives; one extra argument arrives only under `globalpcontrol typed LEVEL TYPE`,
 * at that level, read here with the configured type. A module's own PMPI_Pcontrol is bound
 * to XMPI_Pcontrol below, which ends that module's delivery. */

#include <mpi.h>
#include <stdarg.h>

#include "dispatch.h"
#include "pnmpi_newstack.h"
#include "pnmpi_xmpi.h"

/* Reads the extra argument the configuration says a call at `level` carries. Reading one
 * that the application did not pass is what the config promised it would: the user's
 * `globalpcontrol typed` line is the contract, as in PnMPI. */
static void read_argument(int level, va_list *ap, pnmpi_pcontrol_arg *arg) {
  arg->type = pnmpi_pcontrol_argument_type(level);
  switch (arg->type) {
  case PNMPI_PCONTROL_TYPE_NONE:
    break;
  case PNMPI_PCONTROL_TYPE_INT:
    arg->value.i = va_arg(*ap, int);
    break;
  case PNMPI_PCONTROL_TYPE_LONG:
    arg->value.l = va_arg(*ap, long);
    break;
  case PNMPI_PCONTROL_TYPE_DOUBLE:
    arg->value.d = va_arg(*ap, double);
    break;
  case PNMPI_PCONTROL_TYPE_POINTER:
    arg->value.p = va_arg(*ap, void *);
    break;
  }
}

PNMPI_EXPORT int MPI_Pcontrol(const int level, ...) {
  int rc = MPI_SUCCESS;
  if (pnmpi_routine_wrapped(PNMPI_ID_MPI_Pcontrol)) {
    pnmpi_note_entry(PNMPI_ID_MPI_Pcontrol);
    pnmpi_core_pending(PNMPI_ID_MPI_Pcontrol);
    pnmpi_pcontrol_arg arg;
    va_list ap;
    va_start(ap, level);
    read_argument(level, &ap, &arg);
    va_end(ap);
    rc = pnmpi_pcontrol_deliver(0, level, &arg);
  }
  const int mpi_rc = PMPI_Pcontrol(level);
  return rc != MPI_SUCCESS ? rc : mpi_rc;
}

PNMPI_EXPORT int XMPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}

PNMPI_EXPORT int XMPI_Pcontrol_NewStack(PNMPI_modHandle_t stack, const int level, ...) {
  pnmpi_pcontrol_arg arg;
  va_list ap;
  va_start(ap, level);
  read_argument(level, &ap, &arg);
  va_end(ap);
  return pnmpi_pcontrol_deliver(stack, level, &arg);
}
