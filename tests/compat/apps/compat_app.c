/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* An application written for the original PnMPI: it includes <pnmpi.h>, its header for
 * applications, and checks the constants there. It starts MPI as argv[1] says ("init", or
 * "thread:LEVEL" with LEVEL single|funneled|serialized|multiple), prints on rank 0 the level
 * MPI provides, passes a token around a ring through compat_app_send (the call the
 * return-address test looks for), and finalizes. With "version" as argv[2], rank 0 prints
 * the version macros of <pnmpi-config.h>. */

#include <pnmpi.h>
#include <stdio.h>
#include <string.h>

_Static_assert(PNMPI_PCONTROL_LEVEL == 3, "the original's request level");
_Static_assert(PNMPI_PCONTROL_INT == 5 && PNMPI_PCONTROL_DEFAULT == PNMPI_PCONTROL_INT,
               "the original's mode numbers");
_Static_assert(PNMPI_PCONTROL_OFF == 1 && PNMPI_PCONTROL_ON == 2 && PNMPI_PCONTROL_TYPED == 6,
               "the original's mode numbers");
_Static_assert(PNMPI_ERROR == -1, "the original's failure value");
_Static_assert(PNMPI_MODHANDLE_NULL == -1, "pnmpimod.h comes with pnmpi.h");

static const char *const kLevels[] = {"single", "funneled", "serialized", "multiple"};
static const int kLevelValues[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                   MPI_THREAD_MULTIPLE};

static const char *level_name(int level) {
  for (int i = 0; i < 4; ++i)
    if (kLevelValues[i] == level)
      return kLevels[i];
  return "?";
}

/* Exported (the program is built with its symbols exported) and never inlined, so that a
 * return address inside it can be named. */
__attribute__((noinline)) int compat_app_send(int *token, int to) {
  const int rc = MPI_Send(token, 1, MPI_INT, to, 7, MPI_COMM_WORLD);
  /* Code after the call, so it is not a tail call (whose return address is main's). */
  __asm__ volatile("" ::: "memory");
  return rc;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "init";
  int provided = -1;
  if (strncmp(mode, "thread:", 7) == 0) {
    int required = -1;
    for (int i = 0; i < 4; ++i)
      if (strcmp(mode + 7, kLevels[i]) == 0)
        required = kLevelValues[i];
    if (required < 0) {
      fprintf(stderr, "compat_app: unknown level '%s'\n", mode + 7);
      return 2;
    }
    MPI_Init_thread(&argc, &argv, required, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank = 0, size = 1, query = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Query_thread(&query);
  if (rank == 0) {
    if (provided >= 0)
      printf("provided: %s\n", level_name(provided));
    printf("query: %s\n", level_name(query));
    if (argc > 2 && strcmp(argv[2], "version") == 0)
      printf("version: %s = %d.%d.%d\n", PNMPI_VERSION, PNMPI_MAJOR_VERSION, PNMPI_MINOR_VERSION,
             PNMPI_PATCH_VERSION);
    fflush(stdout);
  }
  int token = rank;
  if (size > 1) {
    if (rank == 0) {
      compat_app_send(&token, 1);
      MPI_Recv(&token, 1, MPI_INT, size - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_INT, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      compat_app_send(&token, (rank + 1) % size);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
