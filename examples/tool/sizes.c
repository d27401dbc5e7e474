/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The `sizes` module of the worked example: a service provider. It sorts every MPI_Send
 * and MPI_Isend of the application by message size into power-of-two bins and offers the
 * counts to other modules as the service "sizes.histogram". It prints nothing itself: the
 * `report` module (report.c) does.
 *
 *   module sizes
 *   argument bins 12     # optional, 2 to 64 (default 16): bin 0 counts empty messages,
 *                        # bin i (1 <= i < bins - 1) sizes 2^(i-1) to 2^i - 1 bytes, and
 *                        # the last bin everything larger
 *
 * modules/empty/empty.c (installed as share/pnmpi/template/empty.c) explains each part. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

PNMPI_MODULE_ARGUMENTS("bins");

#define MAX_BINS 64

static int g_bins = 16; /* set before MPI_Init returns, read-only afterwards */
static int g_send_id = -1, g_isend_id = -1;
static atomic_long g_counts[MAX_BINS]; /* wrappers may run on several threads */

static void count(int routine_id, int count, MPI_Datatype type) {
  /* Only the application's sends: a module's own traffic (the report's reduction, say)
   * would distort the picture. */
  if (pnmpi_entry_origin(routine_id) != PNMPI_ORIGIN_APPLICATION)
    return;
  int size = 0;
  PMPI_Type_size(type, &size);
  const long long bytes = (long long)count * size;
  int bin = 0;
  while (bin < g_bins - 1 && bytes >= (1LL << bin))
    ++bin;
  atomic_fetch_add_explicit(&g_counts[bin], 1, memory_order_relaxed);
}

PNMPI_EXPORT int MPI_Send(const void *buf, int count_, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  count(g_send_id, count_, type);
  return PMPI_Send(buf, count_, type, dest, tag, comm);
}

PNMPI_EXPORT int MPI_Isend(const void *buf, int count_, MPI_Datatype type, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request) {
  count(g_isend_id, count_, type);
  return PMPI_Isend(buf, count_, type, dest, tag, comm, request);
}

/* The service, signature "int(long*,int)": copies up to `n` bin counts into `out` and
 * returns the number of bins. */
static int histogram(long *out, int n) {
  for (int i = 0; i < n && i < g_bins; ++i)
    out[i] = atomic_load_explicit(&g_counts[i], memory_order_relaxed);
  return g_bins;
}

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  long bins = g_bins;
  if (pnmpi_argument_long(self, "bins", PNMPI_ARG_OPTIONAL, 2, MAX_BINS, &bins) == PNMPI_BADARG)
    _exit(1); /* the core has printed FILE:LINE and what is wrong */
  g_bins = (int)bins;
  g_send_id = pnmpi_routine_id("MPI_Send");
  g_isend_id = pnmpi_routine_id("MPI_Isend");

  PNMPI_Service_descriptor_t service;
  memset(&service, 0, sizeof service);
  strcpy(service.name, "sizes.histogram");
  strcpy(service.sig, "int(long*,int)");
  service.fct = (PNMPI_Service_Fct_t)histogram;
  if (PNMPI_Service_RegisterService(&service) != PNMPI_SUCCESS)
    _exit(1);
}
