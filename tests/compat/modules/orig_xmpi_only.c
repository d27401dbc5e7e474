/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* An XMPI module with nothing to rename: pnmpi_add_xmpi_module must build it silently. */

#include <pnmpi/xmpi.h>
#include <stdio.h>

int MPI_Barrier(MPI_Comm comm) {
  printf("orig_xmpi_only: barrier\n");
  fflush(stdout);
  return XMPI_Barrier(comm);
}
