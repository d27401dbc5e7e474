/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module that needs a function nobody defines: loading it must fail with the dynamic
 * linker's message and the config line, not crash at the first call. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>

extern int pnmpi_test_no_such_function(void);

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  pnmpi_test_no_such_function();
  return PMPI_Barrier(comm);
}
