/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The limit-threading module: caps, or sets, the thread level the application asks MPI for.
 *
 *   module limit-threading
 *   argument thread-level serialized        # MPI_Init_thread asks for at most this
 *   argument force-thread-level multiple    # or: MPI_Init and MPI_Init_thread ask for this
 *
 * Levels are single, funneled, serialized and multiple. The environment variables
 * PNMPI_THREADING_LEVEL and PNMPI_FORCE_THREADING_LEVEL (the original PnMPI module's)
 * override the arguments. A forced level turns MPI_Init into MPI_Init_thread; when MPI
 * provides less than the forced level, every rank says so on stderr. The layers below see
 * the changed call: a limit or a forced level also applies to the modules under this one. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

PNMPI_MODULE_ARGUMENTS("thread-level force-thread-level");

static const char *const kLevelNames[] = {"single", "funneled", "serialized", "multiple", NULL};
static const int kLevels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                              MPI_THREAD_MULTIPLE};

/* -1: not set. */
static int g_limit = -1;
static int g_force = -1;

/* Argument `key`, overridden by environment variable `env`: a level, or -1 when neither is
 * set. A malformed value stops the job (the core has printed FILE:LINE for an argument). */
static int read_level(PNMPI_modHandle_t self, const char *key, const char *env) {
  int index = -1;
  const char *text = getenv(env);
  if (text != NULL) {
    char problem[256];
    if (pnmpi_parse_choice(text, kLevelNames, &index, problem, sizeof problem) != PNMPI_SUCCESS) {
      fprintf(stderr, "pnmpi: module 'limit-threading': environment variable %s %s\n", env,
              problem);
      _exit(1);
    }
  } else if (pnmpi_argument_choice(self, key, PNMPI_ARG_OPTIONAL, kLevelNames, &index) ==
             PNMPI_BADARG) {
    _exit(1);
  }
  return index < 0 ? -1 : kLevels[index];
}

/* The arguments' values (pnmpi-info --check runs this too; the environment variables are
 * the job's, read at start-up only). */
PNMPI_EXPORT int pnmpi_module_check(PNMPI_modHandle_t self) {
  int index = -1;
  if (pnmpi_argument_choice(self, "thread-level", PNMPI_ARG_OPTIONAL, kLevelNames, &index) ==
          PNMPI_BADARG ||
      pnmpi_argument_choice(self, "force-thread-level", PNMPI_ARG_OPTIONAL, kLevelNames, &index) ==
          PNMPI_BADARG)
    return PNMPI_BADARG;
  return PNMPI_SUCCESS;
}

PNMPI_EXPORT void pnmpi_module_loaded(PNMPI_modHandle_t self) {
  if (pnmpi_module_check(self) != PNMPI_SUCCESS)
    _exit(1);
  g_limit = read_level(self, "thread-level", "PNMPI_THREADING_LEVEL");
  g_force = read_level(self, "force-thread-level", "PNMPI_FORCE_THREADING_LEVEL");
}

static const char *level_name(int level) {
  for (int i = 0; i < 4; ++i)
    if (kLevels[i] == level)
      return kLevelNames[i];
  return "unknown";
}

static int init_forced(int *argc, char ***argv, int *provided) {
  const int rc = PMPI_Init_thread(argc, argv, g_force, provided);
  if (rc == MPI_SUCCESS && *provided < g_force) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr,
            "pnmpi: module 'limit-threading': rank %d: the thread level '%s' is forced, but MPI "
            "provides only '%s'\n",
            rank, level_name(g_force), level_name(*provided));
  }
  return rc;
}

PNMPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  if (g_force >= 0)
    return init_forced(argc, argv, provided);
  if (g_limit >= 0 && required > g_limit)
    required = g_limit;
  return PMPI_Init_thread(argc, argv, required, provided);
}

PNMPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  if (g_force >= 0) {
    int provided = MPI_THREAD_SINGLE;
    return init_forced(argc, argv, &provided);
  }
  return PMPI_Init(argc, argv);
}
