/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The contract between the monitor module and libmpi_monitoring.so: the module publishes
 * one pnmpi service whose function returns this table; the library looks it up once, in
 * MPI_M_init, and calls through it. The table's functions implement the MPI_M_ calls of
 * the same names and return MPI_M_ codes. Changing the table means changing the signature
 * string, so that a library and a module of different versions refuse each other. */
#ifndef PNMPI_MONITOR_SESSIONS_API_H
#define PNMPI_MONITOR_SESSIONS_API_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PNMPI_MONITOR_SERVICE "monitor.sessions"
#define PNMPI_MONITOR_SERVICE_SIG "v:sessions-api-1"

typedef struct pnmpi_monitor_sessions_api {
  int (*init)(void);
  int (*finalize)(void);
  int (*start)(MPI_Comm comm, int *msid);
  int (*suspend)(int msid);
  int (*resume)(int msid);
  int (*reset)(int msid);
  int (*free_session)(int msid);
  int (*get_info)(int msid, int *provided, int *array_size);
  int (*get_data)(int msid, unsigned long *counts, unsigned long *sizes, int flags);
  int (*allgather_data)(int msid, unsigned long *counts, unsigned long *sizes, int flags);
  int (*rootgather_data)(int msid, int root, unsigned long *counts, unsigned long *sizes,
                         int flags);
  int (*flush)(int msid, const char *filename, int flags);
  int (*rootflush)(int msid, int root, const char *filename, int flags);
} pnmpi_monitor_sessions_api_t;

/** The service function's real type (PNMPI_Service_Fct_t is cast to it). */
typedef const pnmpi_monitor_sessions_api_t *(*pnmpi_monitor_sessions_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* PNMPI_MONITOR_SESSIONS_API_H */
