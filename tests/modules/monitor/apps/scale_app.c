/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Patterns for the monitor's scale tests (test_monitor.cpp, MonitorScale.*), any number of
 * ranks. Every pattern's traffic is a function of the world size and the arguments only, so
 * that the test can compute every expected line with per-peer loops, as the monitor used to
 * record them:
 *   scale_app scale SEED PAIRS   a ring (3 Sendrecv of 8 x (rank % 7 + 1) bytes to the next
 *                                rank), 2 barriers and 2 allreduces of 3 doubles on
 *                                MPI_COMM_WORLD, PAIRS random messages (seeded: from, to and
 *                                bytes drawn by lcg() below, self messages included), and on a
 *                                communicator split by rank % 3 in an irregular order (key
 *                                (rank * 7) % size), a bcast of 16 bytes from its rank 1 and a
 *                                scan of 1 int; it is freed before MPI_Finalize. Rank 0 prints
 *                                the wall time of MPI_Finalize (`finalize_s=`).
 *   scale_app irregular          on 4 ranks: rooted, v, scan and in-place collectives on an
 *                                irregular sub-communicator, an intercommunicator's barrier,
 *                                allreduce and bcast, both freed; each rank reads MPI_T's
 *                                coll_monitoring_messages_count/_size on MPI_COMM_WORLD around
 *                                all of it and prints `mpit: rank R counts ... sizes ...`. */

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "scale_app: rank %d: check failed at line %d: %s\n", rank, __LINE__, #cond); \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                                \
    }                                                                                              \
  } while (0)

/* The test draws the same numbers (test_monitor.cpp, Lcg). */
static uint64_t lcg_state;
static uint32_t lcg(void) {
  lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(lcg_state >> 33);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void scale(unsigned long seed, int pairs) {
  char buf[8 * 8] = {0}, in[8 * 8];
  const int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  for (int it = 0; it < 3; ++it)
    MPI_Sendrecv(buf, 8 * (rank % 7 + 1), MPI_BYTE, next, 1, in, (int)sizeof in, MPI_BYTE, prev, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double x[3] = {1, 2, 3}, y[3];
  for (int it = 0; it < 2; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(x, y, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }

  lcg_state = seed;
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)pairs);
  /* A real status array: MPICH's MPI_STATUSES_IGNORE trips GCC's -Wstringop-overflow
   * through the header's access attributes. */
  MPI_Status *statuses = malloc(sizeof(MPI_Status) * 2 * (size_t)pairs);
  char *data = calloc((size_t)pairs, 1000);
  CHECK(reqs != NULL && statuses != NULL && data != NULL);
  int n = 0;
  for (int k = 0; k < pairs; ++k) {
    const int from = (int)(lcg() % (uint32_t)size), to = (int)(lcg() % (uint32_t)size);
    const int bytes = (int)(lcg() % 1000u);
    if (to == rank)
      MPI_Irecv(data + 1000 * (size_t)k, bytes, MPI_BYTE, from, 2, MPI_COMM_WORLD, &reqs[n++]);
    if (from == rank)
      MPI_Isend(data + 1000 * (size_t)k, bytes, MPI_BYTE, to, 2, MPI_COMM_WORLD, &reqs[n++]);
  }
  MPI_Waitall(n, reqs, statuses);
  free(reqs);
  free(statuses);
  free(data);

  MPI_Comm third;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 3, (rank * 7) % size, &third);
  int third_size = 0;
  MPI_Comm_size(third, &third_size);
  char sixteen[16] = {0};
  if (third_size > 1)
    MPI_Bcast(sixteen, 16, MPI_BYTE, 1, third);
  int one = 1, sum = 0;
  MPI_Scan(&one, &sum, 1, MPI_INT, MPI_SUM, third);
  MPI_Comm_free(&third);

  const double t0 = now();
  MPI_Finalize();
  const double t1 = now();
  if (rank == 0)
    printf("scale: finalize_s=%.6f\n", t1 - t0);
}

/* MPI_T: the monitor's per-peer collective counters of MPI_COMM_WORLD, started here. */
struct Mpit {
  MPI_T_pvar_session session;
  MPI_T_pvar_handle count, bytes;
};

static void mpit_start(struct Mpit *m) {
  int provided = 0, index = -1, n = 0;
  CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_session_create(&m->session) == MPI_SUCCESS);
  MPI_Comm world = MPI_COMM_WORLD;
  CHECK(MPI_T_pvar_get_index("coll_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE, &index) ==
        MPI_SUCCESS);
  CHECK(MPI_T_pvar_handle_alloc(m->session, index, &world, &m->count, &n) == MPI_SUCCESS);
  CHECK(n == size);
  CHECK(MPI_T_pvar_get_index("coll_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE, &index) ==
        MPI_SUCCESS);
  CHECK(MPI_T_pvar_handle_alloc(m->session, index, &world, &m->bytes, &n) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_start(m->session, m->count) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_start(m->session, m->bytes) == MPI_SUCCESS);
}

static void mpit_print(struct Mpit *m) {
  unsigned long long counts[64], sizes[64];
  CHECK(size <= 64);
  CHECK(MPI_T_pvar_stop(m->session, m->count) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_stop(m->session, m->bytes) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_read(m->session, m->count, counts) == MPI_SUCCESS);
  CHECK(MPI_T_pvar_read(m->session, m->bytes, sizes) == MPI_SUCCESS);
  char line[1024];
  int at = snprintf(line, sizeof line, "mpit: rank %d counts", rank);
  for (int j = 0; j < size; ++j)
    at += snprintf(line + at, sizeof line - (size_t)at, " %llu", counts[j]);
  at += snprintf(line + at, sizeof line - (size_t)at, " sizes");
  for (int j = 0; j < size; ++j)
    at += snprintf(line + at, sizeof line - (size_t)at, " %llu", sizes[j]);
  printf("%s\n", line);
  fflush(stdout);
  MPI_T_pvar_handle_free(m->session, &m->count);
  MPI_T_pvar_handle_free(m->session, &m->bytes);
  MPI_T_pvar_session_free(&m->session);
  MPI_T_finalize();
}

/* On 4 ranks; test_monitor.cpp (MonitorScale.IrregularCollectivesAsPerPeerLoops) lists what
 * each call sends. The sub-communicator holds world ranks 3, 0, 2 in that order (key), so
 * its ranks are no arithmetic sequence; world rank 1 is alone in its own. */
static void irregular(void) {
  CHECK(size == 4);
  struct Mpit m;
  mpit_start(&m);
  MPI_Comm sub;
  const int keys[4] = {1, 0, 2, 0};
  MPI_Comm_split(MPI_COMM_WORLD, rank == 1 ? 1 : 0, keys[rank], &sub);
  int sr = 0, ss = 0;
  MPI_Comm_rank(sub, &sr);
  MPI_Comm_size(sub, &ss);
  int ints[8] = {0}, out[8] = {0};
  if (ss == 3) {
    MPI_Barrier(sub);                                      /* 0 bytes to each other */
    MPI_Bcast(ints, 3, MPI_INT, 2, sub);                   /* 12 from sub rank 2 */
    MPI_Reduce(ints, out, 2, MPI_INT, MPI_SUM, 1, sub);    /* 8 to sub rank 1 */
    MPI_Scan(ints, out, 1, MPI_INT, MPI_SUM, sub);         /* 4 to higher sub ranks */
    MPI_Exscan(ints, out, 2, MPI_INT, MPI_SUM, sub);       /* 8 to higher sub ranks */
    MPI_Allgather(ints, 1, MPI_INT, out, 1, MPI_INT, sub); /* 4 to each other */
    int counts[3] = {0, 1, 2}, displs[3] = {0, 1, 3};      /* sub rank i: i ints */
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, out, counts, displs, MPI_INT, sub);
    MPI_Scatterv(ints, counts, displs, MPI_INT, out, sr, MPI_INT, 0, sub);
    MPI_Gatherv(ints, sr, MPI_INT, out, counts, displs, MPI_INT, 2, sub);
    MPI_Alltoall(ints, 0, MPI_INT, out, 0, MPI_INT, sub); /* 0 bytes, still a message */
    /* To sub rank j: sendc[j] ints (none to sub rank 1). */
    int sendc[3] = {2, 0, 1}, sdispl[3] = {0, 2, 2}, recvc[3], rdispl[3];
    for (int i = 0; i < 3; ++i) {
      recvc[i] = sendc[sr];
      rdispl[i] = 2 * i;
    }
    MPI_Alltoallv(ints, sendc, sdispl, MPI_INT, out, recvc, rdispl, MPI_INT, sub);
  }
  MPI_Comm_free(&sub);

  /* Intercommunicator: world {0,1} and {2,3}, leaders 0 and 2. */
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank / 2 == 0 ? 2 : 0, 9, &inter);
  MPI_Barrier(inter);                                   /* 0 bytes to each remote */
  MPI_Allreduce(ints, out, 2, MPI_INT, MPI_SUM, inter); /* 8 to each remote */
  const int root = rank == 1 ? MPI_ROOT : rank / 2 == 0 ? MPI_PROC_NULL : 1;
  MPI_Bcast(ints, 5, MPI_INT, root, inter); /* 20 from world 1 */
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  mpit_print(&m);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "scale") == 0 && argc > 3) {
    scale(strtoul(argv[2], NULL, 10), atoi(argv[3]));
    return 0;
  }
  if (strcmp(mode, "irregular") == 0) {
    irregular();
    if (rank == 0)
      printf("irregular done\n");
    MPI_Finalize();
    return 0;
  }
  fprintf(stderr, "usage: scale_app scale SEED PAIRS | scale_app irregular\n");
  MPI_Abort(MPI_COMM_WORLD, 2);
  return 2;
}
