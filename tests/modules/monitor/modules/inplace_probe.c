/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module stacked below the monitor: it sees the monitor's own collectives (made through
 * PMPI_*) and counts those whose send buffer is MPI_IN_PLACE, which MPI checkers linked into
 * the application (valgrind's libmpiwrap) misreport as unaddressable bytes, and the
 * MPI_Gatherv calls (one per round of the gathered file). At its MPI_Finalize, after the
 * monitor wrote its output, it prints "inplace-probe: rank R: N collectives, M in place,
 * G gathervs". */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>

static long g_calls, g_in_place, g_gathervs;

static void seen(const void *sendbuf) {
  ++g_calls;
  if (sendbuf == MPI_IN_PLACE)
    ++g_in_place;
}

PNMPI_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm) {
  seen(sendbuf);
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

PNMPI_EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                            MPI_Op op, int root, MPI_Comm comm) {
  seen(sendbuf);
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

PNMPI_EXPORT int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm) {
  seen(sendbuf);
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

PNMPI_EXPORT int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, int root, MPI_Comm comm) {
  seen(sendbuf);
  ++g_gathervs;
  return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                      comm);
}

PNMPI_EXPORT int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  seen(sendbuf);
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

PNMPI_EXPORT int MPI_Finalize(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "inplace-probe: rank %d: %ld collectives, %ld in place, %ld gathervs\n", rank,
          g_calls, g_in_place, g_gathervs);
  return PMPI_Finalize();
}
