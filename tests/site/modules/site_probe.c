/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module for the site policy: a module written to be listed by a site. It tags the
 * application's MPI_Barrier ("B<tag>") and can be told to fail: `argument count N` (0 to
 * 100) is read by the typed reader; `argument fail load` fails in its load hook, `argument
 * fail finalize` in its MPI_Finalize wrapper (as a writer whose file cannot be written).
 * Every failure goes through pnmpi_site_failure(): as a site module it disables itself and
 * the job goes on; as the user's it says so and stops the job (status 3 at load, 1 at
 * finalize). */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

PNMPI_MODULE_ARGUMENTS("tag count fail");

extern void pnmpi_test_tag(const char *token);

static PNMPI_modHandle_t g_self = PNMPI_MODHANDLE_NULL;
static const char *g_tag = "?";
static int g_fail; /* 0 none, 1 load, 2 finalize */
static int g_disabled;

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  static const char *const fails[] = {"none", "load", "finalize", NULL};
  long count = 0;
  g_self = self;
  pnmpi_argument_string(self, "tag", PNMPI_ARG_OPTIONAL, &g_tag);
  if (pnmpi_argument_long(self, "count", PNMPI_ARG_OPTIONAL, 0, 100, &count) == PNMPI_BADARG ||
      pnmpi_argument_choice(self, "fail", PNMPI_ARG_OPTIONAL, fails, &g_fail) == PNMPI_BADARG) {
    if (pnmpi_site_failure(self, NULL) == PNMPI_SUCCESS) {
      g_disabled = 1;
      return;
    }
    _exit(3);
  }
  if (g_fail == 1) {
    if (pnmpi_site_failure(self, "cannot allocate its buffers (test)") == PNMPI_SUCCESS) {
      g_disabled = 1;
      return;
    }
    fprintf(stderr, "site_probe: cannot allocate its buffers (test)\n");
    _exit(3);
  }
}

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  if (!g_disabled) {
    char token[64];
    snprintf(token, sizeof token, "B%s", g_tag);
    pnmpi_test_tag(token);
  }
  return PMPI_Barrier(comm);
}

PNMPI_EXPORT int MPI_Finalize(void) {
  int user_failure = 0;
  if (!g_disabled && g_fail == 2 &&
      pnmpi_site_failure(g_self, "cannot write its output (test)") != PNMPI_SUCCESS) {
    fprintf(stderr, "site_probe: cannot write its output (test)\n");
    user_failure = 1;
  }
  const int rc = PMPI_Finalize();
  if (user_failure)
    _exit(1);
  return rc;
}
