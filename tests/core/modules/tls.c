/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module with thread-local storage: pnmpi leaves its copies to the dynamic linker. Its
 * MPI_Barrier appends "T<count>" to the application's trace, counted per thread and copy. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>

extern void pnmpi_test_tag(const char *token);

static __thread int t_barriers;

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  char token[16];
  snprintf(token, sizeof token, "T%d", ++t_barriers);
  pnmpi_test_tag(token);
  return PMPI_Barrier(comm);
}
