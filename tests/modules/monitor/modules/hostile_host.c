/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module stacked below the monitor: MPI_Get_processor_name gives rank R the host name
 * "nR", a newline, a TAB, the byte 0xff (not UTF-8) and a quote, which the monitor must write
 * into its JSON file as a valid JSON string ("nR\n\t\ufffd\"", docs/monitor.md). */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>

PNMPI_EXPORT int MPI_Get_processor_name(char *name, int *resultlen) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  *resultlen = snprintf(name, MPI_MAX_PROCESSOR_NAME, "n%d\n\t\xff\"", rank);
  return MPI_SUCCESS;
}
