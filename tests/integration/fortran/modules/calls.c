/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module: writes one line `C <routine> <arguments>` to stderr for every call of the
 * routines the Fortran pattern uses (and of the handle conversions and helper routines it
 * must not see), with the C arguments a correct conversion yields: counts, peers, tags,
 * byte sizes, whether a buffer is MPI_IN_PLACE or MPI_BOTTOM, whether a status is
 * MPI_STATUS_IGNORE, strings, and 0-based indices. The tests compare these lines with the
 * calls the Fortran program made. */

#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* One write per line, so that lines are never interleaved. */
static void say(const char *format, ...) {
  char line[512];
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(line, sizeof line - 1, format, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n > sizeof line - 2)
    n = (int)sizeof line - 2;
  line[n] = '\n';
  (void)!write(2, line, (size_t)n + 1);
}

static int bytes(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return count * size;
}

static const char *comm_name(MPI_Comm comm) {
  return comm == MPI_COMM_WORLD ? "world" : "other";
}

PNMPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  say("C MPI_Init");
  return PMPI_Init(argc, argv);
}

PNMPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  say("C MPI_Init_thread");
  return PMPI_Init_thread(argc, argv, required, provided);
}

PNMPI_EXPORT int MPI_Finalize(void) {
  say("C MPI_Finalize");
  return PMPI_Finalize();
}

PNMPI_EXPORT int MPI_Comm_rank(MPI_Comm comm, int *rank) {
  const int rc = PMPI_Comm_rank(comm, rank);
  say("C MPI_Comm_rank comm=%s rank=%d", comm_name(comm), *rank);
  return rc;
}

PNMPI_EXPORT int MPI_Comm_size(MPI_Comm comm, int *size) {
  const int rc = PMPI_Comm_size(comm, size);
  say("C MPI_Comm_size comm=%s size=%d", comm_name(comm), *size);
  return rc;
}

PNMPI_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  say("C MPI_Send count=%d bytes=%d dest=%d tag=%d comm=%s bottom=%d", count, bytes(count, type),
      dest, tag, comm_name(comm), buf == MPI_BOTTOM);
  return PMPI_Send(buf, count, type, dest, tag, comm);
}

PNMPI_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
                          MPI_Comm comm, MPI_Status *status) {
  say("C MPI_Recv count=%d bytes=%d source=%d tag=%d comm=%s status_ignore=%d", count,
      bytes(count, type), source, tag, comm_name(comm), status == MPI_STATUS_IGNORE);
  return PMPI_Recv(buf, count, type, source, tag, comm, status);
}

PNMPI_EXPORT int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request) {
  say("C MPI_Isend count=%d bytes=%d dest=%d tag=%d", count, bytes(count, type), dest, tag);
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}

PNMPI_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
                           MPI_Comm comm, MPI_Request *request) {
  say("C MPI_Irecv count=%d bytes=%d source=%d tag=%d", count, bytes(count, type), source, tag);
  return PMPI_Irecv(buf, count, type, source, tag, comm, request);
}

PNMPI_EXPORT int MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                               MPI_Comm comm, MPI_Request *request) {
  say("C MPI_Send_init count=%d dest=%d tag=%d", count, dest, tag);
  return PMPI_Send_init(buf, count, type, dest, tag, comm, request);
}

PNMPI_EXPORT int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag,
                               MPI_Comm comm, MPI_Request *request) {
  say("C MPI_Recv_init count=%d source=%d tag=%d", count, source, tag);
  return PMPI_Recv_init(buf, count, type, source, tag, comm, request);
}

PNMPI_EXPORT int MPI_Start(MPI_Request *request) {
  say("C MPI_Start");
  return PMPI_Start(request);
}

PNMPI_EXPORT int MPI_Startall(int count, MPI_Request requests[]) {
  say("C MPI_Startall count=%d", count);
  return PMPI_Startall(count, requests);
}

PNMPI_EXPORT int MPI_Request_free(MPI_Request *request) {
  say("C MPI_Request_free");
  return PMPI_Request_free(request);
}

PNMPI_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  say("C MPI_Wait status_ignore=%d", status == MPI_STATUS_IGNORE);
  return PMPI_Wait(request, status);
}

PNMPI_EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  say("C MPI_Waitall count=%d", count);
  return PMPI_Waitall(count, requests, statuses);
}

PNMPI_EXPORT int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  const int rc = PMPI_Waitany(count, requests, index, status);
  say("C MPI_Waitany count=%d index=%d status_ignore=%d", count, *index,
      status == MPI_STATUS_IGNORE);
  return rc;
}

PNMPI_EXPORT int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                             MPI_Status *status) {
  const int rc = PMPI_Testany(count, requests, index, flag, status);
  if (*flag && *index != MPI_UNDEFINED)
    say("C MPI_Testany count=%d index=%d", count, *index);
  else
    say("C MPI_Testany pending");
  return rc;
}

PNMPI_EXPORT int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                              MPI_Status statuses[]) {
  const int rc = PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  for (int i = 0; i < *outcount; ++i)
    say("C MPI_Waitsome index=%d", indices[i]);
  return rc;
}

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  say("C MPI_Barrier comm=%s", comm_name(comm));
  return PMPI_Barrier(comm);
}

PNMPI_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  say("C MPI_Bcast count=%d bytes=%d root=%d", count, bytes(count, type), root);
  return PMPI_Bcast(buf, count, type, root, comm);
}

PNMPI_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                               MPI_Op op, MPI_Comm comm) {
  say("C MPI_Allreduce count=%d bytes=%d in_place=%d sum=%d", count, bytes(count, type),
      sendbuf == MPI_IN_PLACE, op == MPI_SUM);
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

PNMPI_EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type,
                            MPI_Op op, int root, MPI_Comm comm) {
  say("C MPI_Reduce count=%d root=%d in_place=%d", count, root, sendbuf == MPI_IN_PLACE);
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

PNMPI_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  say("C MPI_Alltoall sendcount=%d recvcount=%d", sendcount, recvcount);
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

PNMPI_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  say("C MPI_Comm_split color=%d key=%d", color, key);
  return PMPI_Comm_split(comm, color, key, newcomm);
}

PNMPI_EXPORT int MPI_Comm_set_name(MPI_Comm comm, const char *name) {
  say("C MPI_Comm_set_name name=[%s]", name);
  return PMPI_Comm_set_name(comm, name);
}

PNMPI_EXPORT int MPI_Comm_get_name(MPI_Comm comm, char *name, int *length) {
  const int rc = PMPI_Comm_get_name(comm, name, length);
  say("C MPI_Comm_get_name name=[%s] length=%d", name, *length);
  return rc;
}

PNMPI_EXPORT int MPI_Comm_free(MPI_Comm *comm) {
  say("C MPI_Comm_free");
  return PMPI_Comm_free(comm);
}

PNMPI_EXPORT int MPI_Get_processor_name(char *name, int *length) {
  const int rc = PMPI_Get_processor_name(name, length);
  say("C MPI_Get_processor_name name=[%s]", name);
  return rc;
}

PNMPI_EXPORT int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                                MPI_Comm comm, MPI_Win *win) {
  say("C MPI_Win_create size=%ld disp_unit=%d", (long)size, disp_unit);
  return PMPI_Win_create(base, size, disp_unit, info, comm, win);
}

PNMPI_EXPORT int MPI_Win_fence(int assertion, MPI_Win win) {
  say("C MPI_Win_fence");
  return PMPI_Win_fence(assertion, win);
}

PNMPI_EXPORT int MPI_Put(const void *buf, int count, MPI_Datatype type, int target, MPI_Aint disp,
                         int target_count, MPI_Datatype target_type, MPI_Win win) {
  say("C MPI_Put count=%d target=%d disp=%ld", count, target, (long)disp);
  return PMPI_Put(buf, count, type, target, disp, target_count, target_type, win);
}

PNMPI_EXPORT int MPI_Win_free(MPI_Win *win) {
  say("C MPI_Win_free");
  return PMPI_Win_free(win);
}

PNMPI_EXPORT int MPI_Type_create_hindexed(int count, const int blocklengths[],
                                          const MPI_Aint displacements[], MPI_Datatype old,
                                          MPI_Datatype *type) {
  say("C MPI_Type_create_hindexed count=%d", count);
  return PMPI_Type_create_hindexed(count, blocklengths, displacements, old, type);
}

PNMPI_EXPORT int MPI_Type_commit(MPI_Datatype *type) {
  say("C MPI_Type_commit");
  return PMPI_Type_commit(type);
}

PNMPI_EXPORT int MPI_Type_free(MPI_Datatype *type) {
  say("C MPI_Type_free");
  return PMPI_Type_free(type);
}

PNMPI_EXPORT int MPI_Get_address(const void *location, MPI_Aint *address) {
  say("C MPI_Get_address");
  return PMPI_Get_address(location, address);
}

PNMPI_EXPORT int MPI_Pcontrol(const int level, ...) {
  say("C MPI_Pcontrol level=%d", level);
  return MPI_SUCCESS;
}

/* Handle conversions: a Fortran call converts its handles inside MPI, never through the
 * chain, so these must stay silent for a Fortran program. */
#ifndef MPI_Comm_f2c
PNMPI_EXPORT MPI_Comm MPI_Comm_f2c(MPI_Fint comm) {
  say("C MPI_Comm_f2c");
  return PMPI_Comm_f2c(comm);
}
#endif

#ifndef MPI_Type_f2c
PNMPI_EXPORT MPI_Datatype MPI_Type_f2c(MPI_Fint type) {
  say("C MPI_Type_f2c");
  return PMPI_Type_f2c(type);
}
#endif
