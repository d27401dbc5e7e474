/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The `report` module of the worked example: a service consumer with a finalize hook. It
 * finds the "sizes.histogram" service of the `sizes` module when the modules are loaded,
 * and at MPI_Finalize sums every rank's histogram on rank 0 and prints it.
 *
 *   module report
 *   argument format csv  # optional: text (default) or csv
 *
 * Output on rank 0, one line per bin that counted a send:
 *   text: report: 2 send(s) of 8 to 15 bytes      (or "of 1 byte(s)", "of 64 bytes or more")
 *   csv:  8,15,2            (smallest size, largest size or -1 for no limit, sends) */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>
#include <unistd.h>

PNMPI_MODULE_ARGUMENTS("format");

#define MAX_BINS 64

typedef int (*histogram_fn)(long *out, int n);
static histogram_fn g_histogram;
static int g_csv;

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  static const char *const formats[] = {"text", "csv", NULL};
  if (pnmpi_argument_choice(self, "format", PNMPI_ARG_OPTIONAL, formats, &g_csv) == PNMPI_BADARG)
    _exit(1);
}

/* Every module has published its services by now: look the provider up once. */
PNMPI_EXPORT void PNMPI_Init(void) {
  PNMPI_Service_descriptor_t service;
  const PNMPI_status_t status = PNMPI_Service_GetServiceByName(
      PNMPI_MODHANDLE_NULL, "sizes.histogram", "int(long*,int)", &service);
  if (status != PNMPI_SUCCESS) {
    fprintf(stderr,
            "pnmpi: module 'report': cannot find service 'sizes.histogram' (%s); list "
            "'module sizes' in the configuration\n",
            PNMPI_Service_StatusString(status));
    _exit(1);
  }
  g_histogram = (histogram_fn)service.fct;
}

/* MPI is still usable here: the reduction goes through the layers below this one. */
PNMPI_EXPORT void pnmpi_module_finalize(PNMPI_modHandle_t self) {
  (void)self;
  long mine[MAX_BINS] = {0}, all[MAX_BINS] = {0};
  const int bins = g_histogram(mine, MAX_BINS);
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Reduce(mine, all, bins, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0)
    return;
  for (int i = 0; i < bins; ++i) {
    if (all[i] == 0)
      continue;
    const long long lo = i == 0 ? 0 : 1LL << (i - 1);
    const long long hi = i == 0 ? 0 : i == bins - 1 ? -1 : (1LL << i) - 1;
    if (g_csv)
      printf("%lld,%lld,%ld\n", lo, hi, all[i]);
    else if (hi < 0)
      printf("report: %ld send(s) of %lld bytes or more\n", all[i], lo);
    else if (hi == lo)
      printf("report: %ld send(s) of %lld byte(s)\n", all[i], lo);
    else
      printf("report: %ld send(s) of %lld to %lld bytes\n", all[i], lo, hi);
  }
  fflush(stdout);
}
