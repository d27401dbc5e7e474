/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* minprof: a small PMPI profiler that knows nothing of pnmpi. It is built with the MPI's
 * plain compiler wrapper (`mpicc -shared -fPIC`) and exports its MPI_ wrappers with default
 * visibility, exactly as third-party profilers are shipped; the tests convert it with the
 * pnmpi-patch CLI. It imitates what real profilers (mpiP and its kind) do that a chain must
 * survive:
 *   - it initialises inside its MPI_Init/MPI_Init_thread wrapper and refuses to run (error,
 *     MPI_Abort) when a profiled call arrives before it saw either;
 *   - it counts calls and bytes per routine, per rank;
 *   - it consumes MPI_Pcontrol (level 0 stops counting, any other level resumes) and never
 *     calls PMPI_Pcontrol;
 *   - it converts handles with MPI_Comm_c2f/MPI_Comm_f2c/MPI_Type_c2f/MPI_Type_f2c called by
 *     their public names, and uses the converted handles for its report;
 *   - inside its MPI_Finalize wrapper it sums the counts on rank 0 with PMPI_Reduce, sends
 *     every rank's own counts to rank 0 with PMPI_Send/PMPI_Recv, prints the report on rank
 *     0 (stderr, lines prefixed "minprof: "), and only then calls PMPI_Finalize.
 * Bytes are count * type size of the data sent (for MPI_Recv: of the data received). */

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define MINPROF_API __attribute__((visibility("default")))

enum routine {
  R_SEND,
  R_ISEND,
  R_RECV,
  R_SENDRECV,
  R_WAIT,
  R_BARRIER,
  R_BCAST,
  R_REDUCE,
  R_ALLREDUCE,
  R_ALLGATHER,
  R_PCONTROL,
  R_COUNT
};

static const char *const g_names[R_COUNT] = {
    "MPI_Send",  "MPI_Isend",  "MPI_Recv",      "MPI_Sendrecv",  "MPI_Wait",    "MPI_Barrier",
    "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Allgather", "MPI_Pcontrol"};

/* Counts as one array so that one reduction and one message carry them: calls of routine r
 * at [2r], bytes at [2r+1]. Written only by the thread that calls MPI (the test programs
 * are single-threaded; a real profiler would use per-thread tables). */
static unsigned long long g_counts[2 * R_COUNT];
static int g_initialised;
static int g_enabled = 1;
static const char *g_init_routine = "";
static MPI_Comm g_world;          /* MPI_COMM_WORLD after a round trip through Fortran */
static MPI_Datatype g_count_type; /* MPI_UNSIGNED_LONG_LONG, likewise */
static int g_handles_ok;

static void refuse(const char *routine) {
  fprintf(stderr,
          "minprof: error: %s was called before minprof saw MPI_Init or MPI_Init_thread; "
          "minprof cannot profile this run\n",
          routine);
  fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 3);
}

/* Whether the call should be counted; refuses calls before initialisation. */
static int profiling(enum routine r) {
  if (!g_initialised)
    refuse(g_names[r]);
  return g_enabled;
}

static void count(enum routine r, int n, MPI_Datatype type) {
  int size = 0;
  if (n > 0)
    PMPI_Type_size(type, &size);
  g_counts[2 * r] += 1;
  g_counts[2 * r + 1] += (unsigned long long)n * (unsigned long long)size;
}

/* Handles go through Fortran and back by the public names, as profilers that share code
 * with their Fortran bindings do. */
static void start(const char *init_routine) {
  g_initialised = 1;
  g_init_routine = init_routine;
  const MPI_Fint world = MPI_Comm_c2f(MPI_COMM_WORLD);
  g_world = MPI_Comm_f2c(world);
  const MPI_Fint type = MPI_Type_c2f(MPI_UNSIGNED_LONG_LONG);
  g_count_type = MPI_Type_f2c(type);
  g_handles_ok = g_world == MPI_COMM_WORLD && g_count_type == MPI_UNSIGNED_LONG_LONG;
}

MINPROF_API int MPI_Init(int *argc, char ***argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS)
    start("MPI_Init");
  return rc;
}

MINPROF_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS)
    start("MPI_Init_thread");
  return rc;
}

MINPROF_API int MPI_Pcontrol(const int level, ...) {
  profiling(R_PCONTROL);
  count(R_PCONTROL, 0, MPI_DATATYPE_NULL);
  g_enabled = level != 0;
  return MPI_SUCCESS;
}

MINPROF_API int MPI_Send(const void *buf, int n, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm) {
  if (profiling(R_SEND))
    count(R_SEND, n, type);
  return PMPI_Send(buf, n, type, dest, tag, comm);
}

MINPROF_API int MPI_Isend(const void *buf, int n, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm, MPI_Request *request) {
  if (profiling(R_ISEND))
    count(R_ISEND, n, type);
  return PMPI_Isend(buf, n, type, dest, tag, comm, request);
}

MINPROF_API int MPI_Recv(void *buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                         MPI_Status *status) {
  MPI_Status local;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
  const int on = profiling(R_RECV);
  const int rc = PMPI_Recv(buf, n, type, source, tag, comm, st);
  if (on && rc == MPI_SUCCESS) {
    int received = 0;
    PMPI_Get_count(st, type, &received);
    count(R_RECV, received, type);
  }
  return rc;
}

MINPROF_API int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                             void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                             MPI_Comm comm, MPI_Status *status) {
  if (profiling(R_SENDRECV))
    count(R_SENDRECV, scount, stype);
  return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
                       status);
}

MINPROF_API int MPI_Wait(MPI_Request *request, MPI_Status *status) {
  if (profiling(R_WAIT))
    count(R_WAIT, 0, MPI_DATATYPE_NULL);
  return PMPI_Wait(request, status);
}

MINPROF_API int MPI_Barrier(MPI_Comm comm) {
  if (profiling(R_BARRIER))
    count(R_BARRIER, 0, MPI_DATATYPE_NULL);
  return PMPI_Barrier(comm);
}

MINPROF_API int MPI_Bcast(void *buf, int n, MPI_Datatype type, int root, MPI_Comm comm) {
  if (profiling(R_BCAST))
    count(R_BCAST, n, type);
  return PMPI_Bcast(buf, n, type, root, comm);
}

MINPROF_API int MPI_Reduce(const void *sbuf, void *rbuf, int n, MPI_Datatype type, MPI_Op op,
                           int root, MPI_Comm comm) {
  if (profiling(R_REDUCE))
    count(R_REDUCE, n, type);
  return PMPI_Reduce(sbuf, rbuf, n, type, op, root, comm);
}

MINPROF_API int MPI_Allreduce(const void *sbuf, void *rbuf, int n, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm) {
  if (profiling(R_ALLREDUCE))
    count(R_ALLREDUCE, n, type);
  return PMPI_Allreduce(sbuf, rbuf, n, type, op, comm);
}

MINPROF_API int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                              int rcount, MPI_Datatype rtype, MPI_Comm comm) {
  if (profiling(R_ALLGATHER))
    count(R_ALLGATHER, scount, stype);
  return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

static void print_counts(const char *who, const unsigned long long *counts) {
  for (int r = 0; r < R_COUNT; ++r)
    if (counts[2 * r] != 0)
      fprintf(stderr, "minprof: %s: %s %llu calls %llu bytes\n", who, g_names[r], counts[2 * r],
              counts[2 * r + 1]);
}

/* The report travels through whatever lies below this library: a reduction for the totals,
 * then one message per rank, so both collectives and point-to-point must still work. */
MINPROF_API int MPI_Finalize(void) {
  if (!g_initialised)
    refuse("MPI_Finalize");
  enum { kTag = 7411, kN = 2 * R_COUNT };
  int rank = 0, size = 1;
  PMPI_Comm_rank(g_world, &rank);
  PMPI_Comm_size(g_world, &size);
  unsigned long long total[kN];
  memset(total, 0, sizeof total);
  PMPI_Reduce(g_counts, total, kN, g_count_type, MPI_SUM, 0, g_world);
  if (rank != 0) {
    PMPI_Send(g_counts, kN, g_count_type, 0, kTag, g_world);
  } else {
    fprintf(stderr, "minprof: %d ranks, initialised by %s, handles %s\n", size, g_init_routine,
            g_handles_ok ? "round-trip through Fortran" : "BROKEN by the Fortran round trip");
    print_counts("rank 0", g_counts);
    for (int source = 1; source < size; ++source) {
      unsigned long long theirs[kN];
      MPI_Status status;
      PMPI_Recv(theirs, kN, g_count_type, source, kTag, g_world, &status);
      char who[32];
      snprintf(who, sizeof who, "rank %d", source);
      print_counts(who, theirs);
    }
    print_counts("total", total);
    fprintf(stderr, "minprof: end of report\n");
    fflush(stderr);
  }
  return PMPI_Finalize();
}
