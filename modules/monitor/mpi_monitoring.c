/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* libmpi_monitoring.so: the MPI_M_ sessions API for applications. It holds no state of its
 * own: MPI_M_init finds the monitor module's "monitor.sessions" service through the pnmpi
 * core and every call goes to the table that service returns. The module keeps the
 * sessions, so the library can be loaded in any order and by several components. */

#include "MPI_Monitoring.h"

#include <pnmpi/pnmpi.h>
#include <stdatomic.h>
#include <stddef.h>

#include "sessions_api.h"

#define MPI_M_EXPORT __attribute__((visibility("default")))

static _Atomic(const pnmpi_monitor_sessions_api_t *) g_api;

static const pnmpi_monitor_sessions_api_t *api(void) {
  return atomic_load_explicit(&g_api, memory_order_acquire);
}

MPI_M_EXPORT int MPI_M_init(void) {
  /* Before MPI_Init the core has not loaded the modules yet: say that MPI is not
   * initialised, not that there is no monitor. */
  int initialized = 0, finalized = 0;
  if (PMPI_Initialized(&initialized) != MPI_SUCCESS || !initialized ||
      PMPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
    return MPI_M_MPIT_FAIL;
  PNMPI_Service_descriptor_t service;
  if (PNMPI_Service_GetServiceByName(PNMPI_MODHANDLE_NULL, PNMPI_MONITOR_SERVICE,
                                     PNMPI_MONITOR_SERVICE_SIG, &service) != PNMPI_SUCCESS)
    return MPI_M_NO_MONITOR;
  /* Through void (*)(void), the generic function pointer type, as the service's signature
   * string promises this type. */
  const pnmpi_monitor_sessions_fn fn = (pnmpi_monitor_sessions_fn)(void (*)(void))service.fct;
  const pnmpi_monitor_sessions_api_t *table = fn();
  if (table == NULL)
    return MPI_M_NO_MONITOR;
  const int rc = table->init();
  if (rc == MPI_SUCCESS || rc == MPI_M_MULTIPLE_CALL)
    atomic_store_explicit(&g_api, table, memory_order_release);
  return rc;
}

#define FORWARD(call)                                                                              \
  const pnmpi_monitor_sessions_api_t *table = api();                                               \
  return table != NULL ? table->call : MPI_M_MISSING_INIT

MPI_M_EXPORT int MPI_M_finalize(void) {
  FORWARD(finalize());
}

MPI_M_EXPORT int MPI_M_start(MPI_Comm comm, MPI_M_msid *msid) {
  FORWARD(start(comm, msid));
}

MPI_M_EXPORT int MPI_M_suspend(MPI_M_msid msid) {
  FORWARD(suspend(msid));
}

MPI_M_EXPORT int MPI_M_continue(MPI_M_msid msid) {
  FORWARD(resume(msid));
}

MPI_M_EXPORT int MPI_M_reset(MPI_M_msid msid) {
  FORWARD(reset(msid));
}

MPI_M_EXPORT int MPI_M_free(MPI_M_msid msid) {
  FORWARD(free_session(msid));
}

MPI_M_EXPORT int MPI_M_get_info(MPI_M_msid msid, int *provided, int *array_size) {
  FORWARD(get_info(msid, provided, array_size));
}

MPI_M_EXPORT int MPI_M_get_data(MPI_M_msid msid, unsigned long *msg_counts,
                                unsigned long *msg_sizes, int flags) {
  FORWARD(get_data(msid, msg_counts, msg_sizes, flags));
}

MPI_M_EXPORT int MPI_M_allgather_data(MPI_M_msid msid, unsigned long *matrix_counts,
                                      unsigned long *matrix_sizes, int flags) {
  FORWARD(allgather_data(msid, matrix_counts, matrix_sizes, flags));
}

MPI_M_EXPORT int MPI_M_rootgather_data(MPI_M_msid msid, int root, unsigned long *matrix_counts,
                                       unsigned long *matrix_sizes, int flags) {
  FORWARD(rootgather_data(msid, root, matrix_counts, matrix_sizes, flags));
}

MPI_M_EXPORT int MPI_M_flush(MPI_M_msid msid, const char *filename, int flags) {
  FORWARD(flush(msid, filename, flags));
}

MPI_M_EXPORT int MPI_M_rootflush(MPI_M_msid msid, int root, const char *filename, int flags) {
  FORWARD(rootflush(msid, root, filename, flags));
}
