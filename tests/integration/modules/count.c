/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module: counts the MPI_Send and MPI_Recv calls that pass through this layer, with
 * atomic counters (calls arrive from many threads), and prints the counts at finalize:
 * `count <tag> rank <r>: send=<n> recv=<n>`. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_long g_sends, g_recvs;

PNMPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  atomic_fetch_add_explicit(&g_sends, 1, memory_order_relaxed);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

PNMPI_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
                          MPI_Comm comm, MPI_Status *status) {
  atomic_fetch_add_explicit(&g_recvs, 1, memory_order_relaxed);
  return PMPI_Recv(buf, count, type, source, tag, comm, status);
}

PNMPI_EXPORT void PNMPI_Fini(void) {
  const char *tag = PNMPI_Service_GetArgumentSelf("tag");
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("count %s rank %d: send=%ld recv=%ld\n", tag ? tag : "?", rank, atomic_load(&g_sends),
         atomic_load(&g_recvs));
  fflush(stdout);
}
