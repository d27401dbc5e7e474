/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module for the module API. Its wrappers append to the application's trace
 * (pnmpi_test_tag): "I<tag>" for MPI_Init, "S<tag>" for MPI_Comm_size, "B<tag>" for
 * MPI_Barrier ("B<tag><-N" when the call came from module N by return address, then "m" when
 * pnmpi_entry_origin() says a module made it rather than the application),
 * "P<tag>:<level>" for MPI_Pcontrol ("P<tag>:<level>:<value>" with a typed extra argument).
 * Its hooks print one line each ("loaded <tag> self=H stack=S", "registration <tag>
 * barrier-id=<found|missing> unknown-id=<pnmpi_routine_id of a name MPI does not have>",
 * "init-hook <tag>", "fini <tag> sum=N", "finalize <tag> self=H", "unregistered <tag>").
 * Arguments: tag (required), calls-barrier (bool: its MPI_Comm_size wrapper makes a new
 * MPI_Barrier call of its own, by the public name), barrier-via-pmpi (bool: that call is
 * PMPI_Barrier instead), pcontrol-returns (its MPI_Pcontrol wrapper's return code).
 * Built twice: probe.so, and probe_nopcontrol.so (PROBE_NO_PCONTROL) without MPI_Pcontrol. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

extern void pnmpi_test_tag(const char *token);

static const char *g_tag = "?";
static int g_calls_barrier;
static int g_barrier_via_pmpi;
static long g_pcontrol_returns = MPI_SUCCESS;
static volatile int g_calls;
static int g_barrier_id = -1;

static void say(const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vprintf(format, ap);
  va_end(ap);
  fflush(stdout);
}

static void tag(const char *format, ...) {
  char token[128];
  va_list ap;
  va_start(ap, format);
  vsnprintf(token, sizeof token, format, ap);
  va_end(ap);
  pnmpi_test_tag(token);
}

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  PNMPI_modHandle_t own = -1, stack = -1;
  if (pnmpi_argument_string(self, "tag", PNMPI_ARG_REQUIRED, &g_tag) != PNMPI_SUCCESS ||
      pnmpi_argument_bool(self, "calls-barrier", PNMPI_ARG_OPTIONAL, &g_calls_barrier) ==
          PNMPI_BADARG ||
      pnmpi_argument_bool(self, "barrier-via-pmpi", PNMPI_ARG_OPTIONAL, &g_barrier_via_pmpi) ==
          PNMPI_BADARG ||
      pnmpi_argument_long(self, "pcontrol-returns", PNMPI_ARG_OPTIONAL, 0, 1000,
                          &g_pcontrol_returns) == PNMPI_BADARG)
    _exit(1);
  PNMPI_Service_GetModuleSelf(&own);
  pnmpi_module_stack(self, &stack);
  say("loaded %s self=%d own=%d stack=%d\n", g_tag, self, own, stack);
}

PNMPI_EXPORT void PNMPI_RegistrationPoint(void) {
  g_barrier_id = pnmpi_routine_id("MPI_Barrier");
  say("registration %s barrier-id=%s unknown-id=%d\n", g_tag,
      g_barrier_id >= 0 ? "found" : "missing", pnmpi_routine_id("MPI_No_such_routine"));
}

PNMPI_EXPORT void PNMPI_Init(void) {
  say("init-hook %s\n", g_tag);
}

PNMPI_EXPORT void PNMPI_Fini(void) {
  /* MPI must still work, through the layers below this one. */
  int one = 1, sum = 0;
  PMPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  say("fini %s sum=%d\n", g_tag, sum);
}

PNMPI_EXPORT void pnmpi_module_finalize(PNMPI_modHandle_t self) {
  int finalized = -1;
  PMPI_Finalized(&finalized);
  say("finalize %s self=%d finalized=%d\n", g_tag, self, finalized);
}

PNMPI_EXPORT void PNMPI_UnregistrationPoint(void) {
  say("unregistered %s\n", g_tag);
}

PNMPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  tag("I%s", g_tag);
  return PMPI_Init(argc, argv);
}

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  PNMPI_modHandle_t from = -1;
  const char *entry = pnmpi_entry_origin(g_barrier_id) == PNMPI_ORIGIN_MODULE ? "m" : "";
  if (PNMPI_CALL_ORIGIN(&from) == PNMPI_ORIGIN_MODULE)
    tag("B%s<-%d%s", g_tag, from, entry);
  else
    tag("B%s%s", g_tag, entry);
  const int rc = PMPI_Barrier(comm);
  ++g_calls; /* no tail call: the next layer must see this wrapper as its caller */
  return rc;
}

PNMPI_EXPORT int MPI_Comm_size(MPI_Comm comm, int *size) {
  tag("S%s", g_tag);
  /* A new call of this module's own. By the public name it enters the chain at the top,
   * like the application's calls: every layer sees it. As PMPI_Barrier it goes to the
   * layers below this one only. */
  if (g_calls_barrier && g_barrier_via_pmpi)
    PMPI_Barrier(comm);
  else if (g_calls_barrier)
    MPI_Barrier(comm);
  const int rc = PMPI_Comm_size(comm, size);
  ++g_calls;
  return rc;
}

#ifndef PROBE_NO_PCONTROL
PNMPI_EXPORT int MPI_Pcontrol(const int level, ...) {
  va_list ap;
  va_start(ap, level);
  switch (pnmpi_pcontrol_argument_type(level)) {
  case PNMPI_PCONTROL_TYPE_NONE:
    tag("P%s:%d", g_tag, level);
    break;
  case PNMPI_PCONTROL_TYPE_INT:
    tag("P%s:%d:%d", g_tag, level, va_arg(ap, int));
    break;
  case PNMPI_PCONTROL_TYPE_LONG:
    tag("P%s:%d:%ld", g_tag, level, va_arg(ap, long));
    break;
  case PNMPI_PCONTROL_TYPE_DOUBLE:
    tag("P%s:%d:%g", g_tag, level, va_arg(ap, double));
    break;
  case PNMPI_PCONTROL_TYPE_POINTER:
    tag("P%s:%d:%s", g_tag, level, (const char *)va_arg(ap, void *));
    break;
  }
  va_end(ap);
  /* Passing it on ends this module's delivery; the core calls MPI once for everyone. */
  PMPI_Pcontrol(level);
  return (int)g_pcontrol_returns;
}
#endif
