/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Test module: marks where it sits in the chain. Every wrapper writes one line
 * "probe <tag> <ROUTINE>[<rank>]" to stderr before it calls down, the same stream and the
 * same shape as libompitrace's "MPI_SEND[0]: ..." lines, so that the order of the lines of
 * one rank is the order in which the layers ran. Before MPI is initialised the rank is
 * unknown and the line has no "[rank]".
 *
 * Arguments: `tag X` names the layer; `init bypass` makes MPI_Init/MPI_Init_thread start MPI
 * by calling the MPI library's PMPI_Init(_thread) directly, so the layers below never see
 * MPI_Init (a misbehaving layer, for the tests of tools that must see it). */

#define _GNU_SOURCE

#include <dlfcn.h>
#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *g_tag = "?";
static int g_bypass_init;
static int g_rank = -1;

PNMPI_EXPORT void PNMPI_RegistrationPoint(void) {
  const char *tag = PNMPI_Service_GetArgumentSelf("tag");
  const char *init = PNMPI_Service_GetArgumentSelf("init");
  if (tag != NULL)
    g_tag = tag;
  g_bypass_init = init != NULL && strcmp(init, "bypass") == 0;
}

static int rank(void) {
  if (g_rank < 0) {
    int initialised = 0, finalised = 0;
    PMPI_Initialized(&initialised);
    PMPI_Finalized(&finalised);
    if (initialised && !finalised)
      PMPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  }
  return g_rank;
}

/* One write per line: lines of one rank must not be split by other output. */
static void mark(const char *routine, const char *extra) {
  char line[256];
  const int r = rank();
  int n;
  if (r < 0)
    n = snprintf(line, sizeof line, "probe %s %s%s\n", g_tag, routine, extra);
  else
    n = snprintf(line, sizeof line, "probe %s %s[%d]%s\n", g_tag, routine, r, extra);
  if (n > 0)
    (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

typedef int (*init_fn)(int *, char ***);
typedef int (*init_thread_fn)(int *, char ***, int, int *);

PNMPI_EXPORT int MPI_Init(int *argc, char ***argv) {
  mark("MPI_INIT", "");
  if (g_bypass_init) {
    init_fn library_init = (init_fn)dlsym(RTLD_DEFAULT, "PMPI_Init");
    return library_init(argc, argv);
  }
  return PMPI_Init(argc, argv);
}

PNMPI_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  mark("MPI_INIT_THREAD", "");
  if (g_bypass_init) {
    init_thread_fn library_init = (init_thread_fn)dlsym(RTLD_DEFAULT, "PMPI_Init_thread");
    return library_init(argc, argv, required, provided);
  }
  return PMPI_Init_thread(argc, argv, required, provided);
}

PNMPI_EXPORT int MPI_Finalize(void) {
  mark("MPI_FINALIZE", "");
  return PMPI_Finalize();
}

PNMPI_EXPORT int MPI_Pcontrol(const int level, ...) {
  char extra[32];
  snprintf(extra, sizeof extra, " level %d", level);
  mark("MPI_PCONTROL", extra);
  return PMPI_Pcontrol(level);
}

PNMPI_EXPORT int MPI_Send(const void *buf, int n, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  mark("MPI_SEND", "");
  return PMPI_Send(buf, n, type, dest, tag, comm);
}

PNMPI_EXPORT int MPI_Isend(const void *buf, int n, MPI_Datatype type, int dest, int tag,
                           MPI_Comm comm, MPI_Request *request) {
  mark("MPI_ISEND", "");
  return PMPI_Isend(buf, n, type, dest, tag, comm, request);
}

PNMPI_EXPORT int MPI_Recv(void *buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                          MPI_Status *status) {
  mark("MPI_RECV", "");
  return PMPI_Recv(buf, n, type, source, tag, comm, status);
}

PNMPI_EXPORT int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                              void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                              MPI_Comm comm, MPI_Status *status) {
  mark("MPI_SENDRECV", "");
  return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
                       status);
}

PNMPI_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  mark("MPI_WAIT", "");
  return PMPI_Wait(request, status);
}

PNMPI_EXPORT int MPI_Barrier(MPI_Comm comm) {
  mark("MPI_BARRIER", "");
  return PMPI_Barrier(comm);
}

PNMPI_EXPORT int MPI_Bcast(void *buf, int n, MPI_Datatype type, int root, MPI_Comm comm) {
  mark("MPI_BCAST", "");
  return PMPI_Bcast(buf, n, type, root, comm);
}

PNMPI_EXPORT int MPI_Reduce(const void *sbuf, void *rbuf, int n, MPI_Datatype type, MPI_Op op,
                            int root, MPI_Comm comm) {
  mark("MPI_REDUCE", "");
  return PMPI_Reduce(sbuf, rbuf, n, type, op, root, comm);
}

PNMPI_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int n, MPI_Datatype type, MPI_Op op,
                               MPI_Comm comm) {
  mark("MPI_ALLREDUCE", "");
  return PMPI_Allreduce(sbuf, rbuf, n, type, op, comm);
}

PNMPI_EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                               int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  mark("MPI_ALLGATHER", "");
  return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

/* MPICH defines the handle conversions as macros (no function exists to wrap); Open MPI
 * has functions, which a tool that calls them by their public names enters from the top. */
#if !defined(MPI_Comm_c2f) && !defined(MPI_Type_c2f)
PNMPI_EXPORT MPI_Fint MPI_Comm_c2f(MPI_Comm comm) {
  mark("MPI_COMM_C2F", "");
  return PMPI_Comm_c2f(comm);
}

PNMPI_EXPORT MPI_Comm MPI_Comm_f2c(MPI_Fint comm) {
  mark("MPI_COMM_F2C", "");
  return PMPI_Comm_f2c(comm);
}

PNMPI_EXPORT MPI_Fint MPI_Type_c2f(MPI_Datatype type) {
  mark("MPI_TYPE_C2F", "");
  return PMPI_Type_c2f(type);
}

PNMPI_EXPORT MPI_Datatype MPI_Type_f2c(MPI_Fint type) {
  mark("MPI_TYPE_F2C", "");
  return PMPI_Type_f2c(type);
}
#endif
