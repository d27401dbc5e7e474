/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module for the typed argument readers: reads count (long, 0 to 100, default 7),
 * ratio (double, 0 to 1, default 0.5), verbose (bool, default off), mode (fast or exact,
 * default fast) and name (a required string), prints them on one line, and stops the job
 * (exit status 3) when the core reports a problem. It wraps no MPI routine. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>
#include <unistd.h>

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  long count = 7;
  double ratio = 0.5;
  int verbose = 0, mode = 0;
  const char *name = NULL;
  static const char *const modes[] = {"fast", "exact", NULL};
  const PNMPI_status_t s[] = {
      pnmpi_argument_long(self, "count", PNMPI_ARG_OPTIONAL, 0, 100, &count),
      pnmpi_argument_double(self, "ratio", PNMPI_ARG_OPTIONAL, 0.0, 1.0, &ratio),
      pnmpi_argument_bool(self, "verbose", PNMPI_ARG_OPTIONAL, &verbose),
      pnmpi_argument_choice(self, "mode", PNMPI_ARG_OPTIONAL, modes, &mode),
      pnmpi_argument_string(self, "name", PNMPI_ARG_REQUIRED, &name)};
  for (size_t i = 0; i < sizeof s / sizeof s[0]; ++i)
    if (s[i] == PNMPI_BADARG || (i == 4 && s[i] != PNMPI_SUCCESS))
      _exit(3);
  printf("args: count=%ld ratio=%g verbose=%d mode=%s name=%s (%d %d %d %d %d)\n", count, ratio,
         verbose, modes[mode], name, s[0], s[1], s[2], s[3], s[4]);
  fflush(stdout);
}
