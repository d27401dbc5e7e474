/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Walks the MPI_M_ sessions API through every state transition and error code on 4 ranks,
 * checking exact data for known traffic: `sessions_app DIR` (the monitor loaded with
 * `argument max-sessions 4`; flush files go to DIR), or `sessions_app --no-monitor` (no
 * monitor: every call must fail cleanly). Both first call MPI_M_init before MPI_Init.
 * Prints `sessions: rank R ok` or FAIL lines. */

#include <MPI_Monitoring.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

#define EXPECT_RC(call, want)                                                                      \
  do {                                                                                             \
    const int rc_ = (call);                                                                        \
    if (rc_ != (want)) {                                                                           \
      printf("FAIL rank %d line %d: %s returned %d, expected %s (%d)\n", rank, __LINE__, #call,    \
             rc_, #want, (want));                                                                  \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

#define EXPECT_EQ(value, want)                                                                     \
  do {                                                                                             \
    const unsigned long v_ = (unsigned long)(value), w_ = (unsigned long)(want);                   \
    if (v_ != w_) {                                                                                \
      printf("FAIL rank %d line %d: %s is %lu, expected %lu\n", rank, __LINE__, #value, v_, w_);   \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

static int next(void) {
  return (rank + 1) % size;
}
static int prev(void) {
  return (rank + size - 1) % size;
}

/* Sends `count` ints to the next rank and receives as many from the previous one. */
static void ring(int count) {
  int out[16] = {0}, in[16];
  MPI_Sendrecv(out, count, MPI_INT, next(), 1, in, count, MPI_INT, prev(), 1, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
}

/* Checks this rank's row: `want_next` messages/bytes to the next rank, `want_other` to every
 * other rank (not self). */
static void check_row(MPI_M_msid id, int flags, unsigned long next_count, unsigned long next_bytes,
                      unsigned long other_count, unsigned long other_bytes, int line) {
  unsigned long counts[16], sizes[16];
  EXPECT_RC(MPI_M_get_data(id, counts, sizes, flags), MPI_SUCCESS);
  for (int j = 0; j < size; ++j) {
    const unsigned long wc = j == rank ? 0 : j == next() ? next_count : other_count;
    const unsigned long wb = j == rank ? 0 : j == next() ? next_bytes : other_bytes;
    if (counts[j] != wc || sizes[j] != wb) {
      printf("FAIL rank %d line %d: session %d flags %d peer %d: %lu msgs %lu bytes, expected "
             "%lu msgs %lu bytes\n",
             rank, line, id, flags, j, counts[j], sizes[j], wc, wb);
      ++failures;
    }
  }
}

static void no_monitor(void) {
  MPI_M_msid id = 0;
  int n = 0;
  unsigned long data[16];
  EXPECT_RC(MPI_M_start(MPI_COMM_WORLD, &id), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_init(), MPI_M_NO_MONITOR);
  EXPECT_RC(MPI_M_init(), MPI_M_NO_MONITOR);
  EXPECT_RC(MPI_M_start(MPI_COMM_WORLD, &id), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_suspend(1), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_continue(1), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_reset(MPI_M_ALL_MSID), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_free(MPI_M_ALL_MSID), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_get_info(1, MPI_M_INT_IGNORE, &n), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_get_data(1, data, data, MPI_M_ALL_COMM), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_allgather_data(1, data, data, MPI_M_ALL_COMM), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_rootgather_data(1, 0, data, data, MPI_M_ALL_COMM), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_flush(1, "x", MPI_M_ALL_COMM), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_rootflush(1, 0, "x", MPI_M_ALL_COMM), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_finalize(), MPI_M_MISSING_INIT);
}

static void sessions(const char *dir) {
  MPI_M_msid a = 0, b = 0, c = 0, d = 0, e = 0, unused = 0;
  unsigned long data[16], counts[256], sizes[256];
  int n = 0, provided = -1, level = -2;

  /* Before MPI_M_init. */
  EXPECT_RC(MPI_M_start(MPI_COMM_WORLD, &a), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_suspend(1), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_finalize(), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_init(), MPI_SUCCESS);
  EXPECT_RC(MPI_M_init(), MPI_M_MULTIPLE_CALL);

  /* a covers phases 1-3, b (nested) phase 2 only. */
  EXPECT_RC(MPI_M_start(MPI_COMM_WORLD, &a), MPI_SUCCESS);
  EXPECT_RC(MPI_M_start(MPI_COMM_WORLD, NULL), MPI_M_INVALID_MSID);
  EXPECT_RC(MPI_M_start(MPI_COMM_NULL, &unused), MPI_M_INVALID_ARG);
  {
    /* Not live communicators: a freed one, a datatype's bits, garbage (each crashed inside
     * the monitor's PMPI_Comm_* calls before). */
    MPI_Comm freed = MPI_COMM_NULL, stale, garbage;
    MPI_Comm_dup(MPI_COMM_WORLD, &freed);
    stale = freed;
    MPI_Comm_free(&freed);
    EXPECT_RC(MPI_M_start(stale, &unused), MPI_M_INVALID_ARG);
    MPI_Datatype type = MPI_DOUBLE;
    memset(&garbage, 0, sizeof garbage);
    memcpy(&garbage, &type, sizeof type < sizeof garbage ? sizeof type : sizeof garbage);
    EXPECT_RC(MPI_M_start(garbage, &unused), MPI_M_INVALID_ARG);
    memset(&garbage, 0x5a, sizeof garbage);
    EXPECT_RC(MPI_M_start(garbage, &unused), MPI_M_INVALID_ARG);
  }
  ring(10);
  EXPECT_RC(MPI_M_start(MPI_COMM_WORLD, &b), MPI_SUCCESS);
  if (a <= 0 || b <= 0 || a == b) {
    printf("FAIL rank %d: session ids %d and %d\n", rank, a, b);
    ++failures;
  }
  ring(5);
  int two[2] = {1, 1};
  MPI_Allreduce(MPI_IN_PLACE, two, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

  /* Active sessions: data not readable, no reset, no free, no continue, no finalize. */
  EXPECT_RC(MPI_M_get_data(b, data, data, MPI_M_P2P_ONLY), MPI_M_SESSION_NOT_SUSPENDED);
  EXPECT_RC(MPI_M_allgather_data(b, counts, sizes, MPI_M_P2P_ONLY), MPI_M_SESSION_NOT_SUSPENDED);
  EXPECT_RC(MPI_M_reset(b), MPI_M_SESSION_NOT_SUSPENDED);
  EXPECT_RC(MPI_M_free(b), MPI_M_SESSION_NOT_SUSPENDED);
  EXPECT_RC(MPI_M_continue(b), MPI_M_MULTIPLE_CALL);
  EXPECT_RC(MPI_M_finalize(), MPI_M_SESSION_STILL_ACTIVE);
  EXPECT_RC(MPI_M_get_info(b, MPI_M_INT_IGNORE, &n), MPI_SUCCESS);
  EXPECT_EQ(n, size);

  EXPECT_RC(MPI_M_suspend(b), MPI_SUCCESS);
  EXPECT_RC(MPI_M_suspend(b), MPI_M_MULTIPLE_CALL);
  ring(3);
  EXPECT_RC(MPI_M_suspend(a), MPI_SUCCESS);

  MPI_Query_thread(&level);
  EXPECT_RC(MPI_M_get_info(a, &provided, &n), MPI_SUCCESS);
  EXPECT_EQ(provided, level);
  EXPECT_EQ(n, size);
  EXPECT_RC(MPI_M_get_info(MPI_M_ALL_MSID, &provided, &n), MPI_M_INVALID_MSID);

  /* Exact data by category. */
  check_row(a, MPI_M_P2P_ONLY, 3, 72, 0, 0, __LINE__);
  check_row(a, MPI_M_COLL_ONLY, 1, 8, 1, 8, __LINE__);
  check_row(b, MPI_M_P2P_ONLY, 1, 20, 0, 0, __LINE__);
  check_row(b, MPI_M_COLL_ONLY, 1, 8, 1, 8, __LINE__);
  check_row(b, MPI_M_OSC_ONLY, 0, 0, 0, 0, __LINE__);
  check_row(b, MPI_M_ALL_COMM, 2, 28, 1, 8, __LINE__);
  check_row(b, MPI_M_P2P_ONLY | MPI_M_COLL_ONLY, 2, 28, 1, 8, __LINE__);
  EXPECT_RC(MPI_M_get_data(b, MPI_M_DATA_IGNORE, data, MPI_M_P2P_ONLY), MPI_SUCCESS);
  EXPECT_EQ(data[next()], 20);
  EXPECT_RC(MPI_M_get_data(b, data, data, 0), MPI_M_INVALID_ARG);
  EXPECT_RC(MPI_M_get_data(b, data, data, 8), MPI_M_INVALID_ARG);
  EXPECT_RC(MPI_M_get_data(MPI_M_ALL_MSID, data, data, MPI_M_P2P_ONLY), MPI_M_INVALID_MSID);
  EXPECT_RC(MPI_M_get_data(12345, data, data, MPI_M_P2P_ONLY), MPI_M_INVALID_MSID);
  EXPECT_RC(MPI_M_get_data(0, data, data, MPI_M_P2P_ONLY), MPI_M_INVALID_MSID);

  /* Gathered matrices, row = sender. */
  EXPECT_RC(MPI_M_allgather_data(b, counts, sizes, MPI_M_P2P_ONLY), MPI_SUCCESS);
  for (int i = 0; i < size; ++i)
    for (int j = 0; j < size; ++j) {
      EXPECT_EQ(counts[i * size + j], j == (i + 1) % size ? 1 : 0);
      EXPECT_EQ(sizes[i * size + j], j == (i + 1) % size ? 20 : 0);
    }
  memset(sizes, 0xff, sizeof sizes);
  EXPECT_RC(MPI_M_rootgather_data(a, 2, MPI_M_DATA_IGNORE, sizes, MPI_M_P2P_ONLY), MPI_SUCCESS);
  if (rank == 2)
    for (int i = 0; i < size; ++i)
      for (int j = 0; j < size; ++j)
        EXPECT_EQ(sizes[i * size + j], j == (i + 1) % size ? 72 : 0);
  EXPECT_RC(MPI_M_rootgather_data(a, -1, counts, sizes, MPI_M_P2P_ONLY), MPI_M_INVALID_ROOT);
  EXPECT_RC(MPI_M_rootgather_data(a, size, counts, sizes, MPI_M_P2P_ONLY), MPI_M_INVALID_ROOT);

  /* Files: checked by the test. */
  char path[4096];
  snprintf(path, sizeof path, "%s/flush", dir);
  EXPECT_RC(MPI_M_flush(a, path, MPI_M_P2P_ONLY | MPI_M_COLL_ONLY), MPI_SUCCESS);
  EXPECT_RC(MPI_M_flush(a, NULL, MPI_M_P2P_ONLY), MPI_M_INVALID_ARG);
  /* No one-sided traffic in session a: a file with its header only. */
  snprintf(path, sizeof path, "%s/quiet", dir);
  EXPECT_RC(MPI_M_flush(a, path, MPI_M_OSC_ONLY), MPI_SUCCESS);
  snprintf(path, sizeof path, "%s/root", dir);
  EXPECT_RC(MPI_M_rootflush(a, 0, path, MPI_M_P2P_ONLY), MPI_SUCCESS);
  EXPECT_RC(MPI_M_rootflush(a, 7, path, MPI_M_P2P_ONLY), MPI_M_INVALID_ROOT);

  /* MPI_M_ALL_MSID: continue both, one more message, suspend both. */
  EXPECT_RC(MPI_M_continue(MPI_M_ALL_MSID), MPI_SUCCESS);
  EXPECT_RC(MPI_M_continue(a), MPI_M_MULTIPLE_CALL);
  ring(1);
  EXPECT_RC(MPI_M_suspend(MPI_M_ALL_MSID), MPI_SUCCESS);
  EXPECT_RC(MPI_M_suspend(MPI_M_ALL_MSID), MPI_SUCCESS);
  check_row(a, MPI_M_P2P_ONLY, 4, 76, 0, 0, __LINE__);
  check_row(b, MPI_M_P2P_ONLY, 2, 24, 0, 0, __LINE__);
  EXPECT_RC(MPI_M_reset(a), MPI_SUCCESS);
  check_row(a, MPI_M_ALL_COMM, 0, 0, 0, 0, __LINE__);
  check_row(b, MPI_M_P2P_ONLY, 2, 24, 0, 0, __LINE__);

  /* A session on a sub-communicator counts traffic between its members through any
   * communicator, indexed by its own ranks. */
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
  EXPECT_RC(MPI_M_start(sub, &c), MPI_SUCCESS);
  int out[4] = {0}, in[4];
  MPI_Sendrecv(out, 2, MPI_INT, (rank + 2) % size, 2, in, 2, MPI_INT, (rank + 2) % size, 2,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  ring(1); /* to a non-member: not in c */
  EXPECT_RC(MPI_M_suspend(c), MPI_SUCCESS);
  EXPECT_RC(MPI_M_get_info(c, MPI_M_INT_IGNORE, &n), MPI_SUCCESS);
  EXPECT_EQ(n, 2);
  int sub_rank;
  MPI_Comm_rank(sub, &sub_rank);
  EXPECT_RC(MPI_M_get_data(c, counts, sizes, MPI_M_ALL_COMM), MPI_SUCCESS);
  EXPECT_EQ(counts[sub_rank], 0);
  EXPECT_EQ(counts[1 - sub_rank], 1);
  EXPECT_EQ(sizes[1 - sub_rank], 8);
  EXPECT_RC(MPI_M_allgather_data(c, counts, sizes, MPI_M_P2P_ONLY), MPI_SUCCESS);
  EXPECT_EQ(sizes[0 * 2 + 1], 8);
  EXPECT_EQ(sizes[1 * 2 + 0], 8);
  EXPECT_EQ(sizes[0], 0);

  /* At most 4 sessions (argument max-sessions 4). */
  EXPECT_RC(MPI_M_start(MPI_COMM_WORLD, &d), MPI_SUCCESS);
  EXPECT_RC(MPI_M_start(MPI_COMM_WORLD, &e), MPI_M_SESSION_OVERFLOW);
  EXPECT_RC(MPI_M_suspend(d), MPI_SUCCESS);
  EXPECT_RC(MPI_M_free(d), MPI_SUCCESS);
  EXPECT_RC(MPI_M_suspend(d), MPI_M_INVALID_MSID);

  /* ALL_MSID with an active session. */
  EXPECT_RC(MPI_M_continue(c), MPI_SUCCESS);
  EXPECT_RC(MPI_M_free(MPI_M_ALL_MSID), MPI_M_SESSION_STILL_ACTIVE);
  EXPECT_RC(MPI_M_reset(MPI_M_ALL_MSID), MPI_M_SESSION_STILL_ACTIVE);
  check_row(b, MPI_M_P2P_ONLY, 2, 24, 0, 0, __LINE__);
  EXPECT_RC(MPI_M_suspend(c), MPI_SUCCESS);
  EXPECT_RC(MPI_M_reset(MPI_M_ALL_MSID), MPI_SUCCESS);
  check_row(b, MPI_M_P2P_ONLY, 0, 0, 0, 0, __LINE__);
  EXPECT_RC(MPI_M_free(a), MPI_SUCCESS);
  EXPECT_RC(MPI_M_get_data(a, data, data, MPI_M_P2P_ONLY), MPI_M_INVALID_MSID);
  EXPECT_RC(MPI_M_free(MPI_M_ALL_MSID), MPI_SUCCESS);
  EXPECT_RC(MPI_M_get_info(b, MPI_M_INT_IGNORE, &n), MPI_M_INVALID_MSID);
  MPI_Comm_free(&sub);

  /* A session whose communicator the application freed: the calls collective over it fail
   * cleanly (they crashed in MPI before), the local ones still work. A communicator created
   * afterwards (perhaps with the same handle) is another one. */
  MPI_Comm dup, again;
  MPI_M_msid f = 0, h = 0;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  EXPECT_RC(MPI_M_start(dup, &f), MPI_SUCCESS);
  ring(2);
  MPI_Comm_free(&dup);
  EXPECT_RC(MPI_M_allgather_data(f, counts, sizes, MPI_M_P2P_ONLY), MPI_M_COMM_FREED);
  EXPECT_RC(MPI_M_suspend(f), MPI_SUCCESS);
  EXPECT_RC(MPI_M_get_info(f, MPI_M_INT_IGNORE, &n), MPI_SUCCESS);
  EXPECT_EQ(n, size);
  EXPECT_RC(MPI_M_get_data(f, data, data, MPI_M_P2P_ONLY), MPI_M_COMM_FREED);
  EXPECT_RC(MPI_M_allgather_data(f, counts, sizes, MPI_M_P2P_ONLY), MPI_M_COMM_FREED);
  EXPECT_RC(MPI_M_rootgather_data(f, 0, counts, sizes, MPI_M_P2P_ONLY), MPI_M_COMM_FREED);
  snprintf(path, sizeof path, "%s/freed", dir);
  EXPECT_RC(MPI_M_flush(f, path, MPI_M_P2P_ONLY), MPI_M_COMM_FREED);
  EXPECT_RC(MPI_M_rootflush(f, 0, path, MPI_M_P2P_ONLY), MPI_M_COMM_FREED);
  MPI_Comm_dup(MPI_COMM_WORLD, &again);
  EXPECT_RC(MPI_M_start(again, &h), MPI_SUCCESS);
  ring(1);
  EXPECT_RC(MPI_M_suspend(h), MPI_SUCCESS);
  EXPECT_RC(MPI_M_allgather_data(h, counts, sizes, MPI_M_P2P_ONLY), MPI_SUCCESS);
  EXPECT_EQ(sizes[rank * size + next()], 4);
  EXPECT_RC(MPI_M_allgather_data(f, counts, sizes, MPI_M_P2P_ONLY), MPI_M_COMM_FREED);
  EXPECT_RC(MPI_M_continue(f), MPI_SUCCESS);
  EXPECT_RC(MPI_M_suspend(f), MPI_SUCCESS);
  EXPECT_RC(MPI_M_reset(f), MPI_SUCCESS);
  EXPECT_RC(MPI_M_free(f), MPI_SUCCESS);
  EXPECT_RC(MPI_M_free(h), MPI_SUCCESS);
  MPI_Comm_free(&again);

  /* Finalize, and the environment can be set up again. */
  EXPECT_RC(MPI_M_finalize(), MPI_SUCCESS);
  EXPECT_RC(MPI_M_start(MPI_COMM_WORLD, &a), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_finalize(), MPI_M_MISSING_INIT);
  EXPECT_RC(MPI_M_init(), MPI_SUCCESS);
  EXPECT_RC(MPI_M_start(MPI_COMM_WORLD, &a), MPI_SUCCESS);
  EXPECT_RC(MPI_M_suspend(a), MPI_SUCCESS);
  EXPECT_RC(MPI_M_finalize(), MPI_SUCCESS);
}

int main(int argc, char **argv) {
  /* Before MPI_Init: MPI is not initialised (whether or not a monitor will be loaded). */
  const int early = MPI_M_init();
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  EXPECT_RC(early, MPI_M_MPIT_FAIL);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 4) {
    fprintf(stderr, "sessions_app: needs 4 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int without = argc > 1 && strcmp(argv[1], "--no-monitor") == 0;
  if (without)
    no_monitor();
  else
    sessions(argc > 1 ? argv[1] : ".");
  printf("%s: rank %d %s\n", without ? "no-monitor" : "sessions", rank,
         failures == 0 ? "ok" : "FAILED");
  fflush(stdout);
  MPI_Finalize();
  return failures != 0;
}
