// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// The monitor through MPI_T, as an application sees it: `figure1` is the monitoring paper's
// Figure 1 around a ring; `lifecycle` checks every pvar call, with exact values for known
// patterns (start/stop windows, two sessions, a split communicator, collectives, one-sided)
// and every error code; `native` reads one of the MPI's own variables beside ours; `mix`
// only communicates (for a tool above the monitor that reads it through MPI_T); `cost`
// measures a read and a send with handles started; `badobj` binds objects that are not live
// communicators. Each
// check that fails prints `FAIL rank R line L: ...`; a rank that passes all prints `ok`.

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

// Each line is printed with one call: MPICH's launcher may cut lines written piecewise.
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      char msg_[512];                                                                              \
      ++failures;                                                                                  \
      snprintf(msg_, sizeof msg_, __VA_ARGS__);                                                    \
      printf("FAIL rank %d line %d: %s\n", rank, __LINE__, msg_);                                  \
      fflush(stdout);                                                                              \
    }                                                                                              \
  } while (0)

#define RC(call, want)                                                                             \
  do {                                                                                             \
    const int rc_ = (call);                                                                        \
    CHECK(rc_ == (want), "%s returned %d, expected %d (%s)", #call, rc_, (want), #want);           \
  } while (0)

static int pvar(const char *name, int var_class) {
  int index = -1;
  RC(MPI_T_pvar_get_index(name, var_class, &index), MPI_SUCCESS);
  return index;
}

static MPI_T_pvar_handle alloc(MPI_T_pvar_session s, const char *name, int var_class, MPI_Comm comm,
                               int want_count) {
  MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
  int count = -1;
  RC(MPI_T_pvar_handle_alloc(s, pvar(name, var_class), &comm, &h, &count), MPI_SUCCESS);
  CHECK(count == want_count, "%s: count %d, expected %d", name, count, want_count);
  return h;
}

/// Reads a handle and compares it with want[0..n).
static void expect(MPI_T_pvar_session s, MPI_T_pvar_handle h, const unsigned long long *want, int n,
                   const char *what) {
  unsigned long long got[64];
  memset(got, 0xff, sizeof got);
  RC(MPI_T_pvar_read(s, h, got), MPI_SUCCESS);
  for (int i = 0; i < n; ++i)
    CHECK(got[i] == want[i], "%s [%d]: %llu, expected %llu", what, i, got[i], want[i]);
}

static void ring_send(int bytes, int messages) {
  char buf[4096] = {0};
  for (int m = 0; m < messages; ++m)
    MPI_Sendrecv(buf, bytes, MPI_BYTE, (rank + 1) % size, 7, buf + 2048, bytes, MPI_BYTE,
                 (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

// ---- Figure 1 -----------------------------------------------------------------------------

/// One line `figure1: rank R WHAT: v0 v1 ...`, printed with one call.
static void print_counts(const char *what, const size_t *counts, int count) {
  char line[1024];
  int len = snprintf(line, sizeof line, "figure1: rank %d %s:", rank, what);
  for (int i = 0; i < count && len < (int)sizeof line - 24; ++i)
    len += snprintf(line + len, sizeof line - (size_t)len, " %zu", counts[i]);
  printf("%s\n", line);
  fflush(stdout);
}

// The paper passes MPI_COMM_WORLD itself, as Open MPI 4.1 accepts; MPICH's MPI_Comm is an
// int, which does not convert to the standard's `void *` (a pointer to the handle).
#if defined(OPEN_MPI)
#define FIGURE1_COMM MPI_COMM_WORLD
#else
static MPI_Comm figure1_world = MPI_COMM_WORLD;
#define FIGURE1_COMM (&figure1_world)
#endif

static int figure1(void) {
  int provided = 0;
  MPI_T_pvar_session session;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_T_pvar_session_create(&session);
  ring_send(100, 1); // before the handle exists: not counted

  // From here to the end of the block: the paper's Figure 1, unchanged.
  MPI_T_pvar_handle count_handle;
  int count_pvar_idx;
  const char count_pvar_name[] = "pml_monitoring_messages_count";
  size_t *counts;
  int count; /*size of the array*/

  /* Retrieve the proper pvar index */
  MPI_T_pvar_get_index(count_pvar_name, MPI_T_PVAR_CLASS_SIZE, &count_pvar_idx);

  /* Allocating a new PVAR in a session will reset the counters and set count */
  MPI_T_pvar_handle_alloc(session, count_pvar_idx, FIGURE1_COMM, &count_handle, &count);

  counts = (size_t *)malloc(count * sizeof(size_t));

  /* start monitoring session */
  MPI_T_pvar_start(session, count_handle);

  /* Begin communications */
  ring_send(8, 3);
  /* End communications */

  /* get the monitored values */
  MPI_T_pvar_read(session, count_handle, counts);
  print_counts("sent", counts, count);

  /*
     Global reduce so everyone knows the maximum
     messages sent to each rank
  */
  MPI_Allreduce(MPI_IN_PLACE, counts, count, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);

  print_counts("max", counts, count);

  free(counts);

  MPI_T_pvar_stop(session, count_handle);

  MPI_T_pvar_handle_free(session, &count_handle);
  // End of Figure 1.

  MPI_T_pvar_session_free(&session);
  MPI_T_finalize();
  return 0;
}

// ---- the life cycle -----------------------------------------------------------------------

static int lifecycle(void) {
  int provided = 0, num = 0, ours = 0;
  // Before MPI_T_init_thread: the MPI's answer.
  RC(MPI_T_pvar_get_num(&num), MPI_T_ERR_NOT_INITIALIZED);
  RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS); // nested
  RC(MPI_T_pvar_get_num(&num), MPI_SUCCESS);

  // The category lists the monitor's variables, which are the last ones.
  int cat = -1, ncat = 0, npvars = -1, ncvars = -1, nsub = -1, name_len = 64, desc_len = 0;
  char name[64];
  RC(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
  RC(MPI_T_category_get_index("pnmpi_monitor", &cat), MPI_SUCCESS);
  CHECK(cat == ncat - 1, "category %d of %d", cat, ncat);
  RC(MPI_T_category_get_info(cat, name, &name_len, NULL, &desc_len, &ncvars, &npvars, &nsub),
     MPI_SUCCESS);
  CHECK(strcmp(name, "pnmpi_monitor") == 0 && name_len == 14 && desc_len > 1 && ncvars == 0 &&
            npvars == 14 && nsub == 0,
        "category info %s %d %d %d %d %d", name, name_len, desc_len, ncvars, npvars, nsub);
  int indices[14];
  RC(MPI_T_category_get_pvars(cat, 14, indices), MPI_SUCCESS);
  ours = num - 14;
  for (int i = 0; i < 14; ++i) {
    CHECK(indices[i] == ours + i, "category pvar %d: %d", i, indices[i]);
    int verbosity, var_class, bind, readonly, continuous, atomic;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    name_len = sizeof name;
    RC(MPI_T_pvar_get_info(ours + i, name, &name_len, &verbosity, &var_class, &type, &enumtype,
                           NULL, &desc_len, &bind, &readonly, &continuous, &atomic),
       MPI_SUCCESS);
    int index = -1;
    RC(MPI_T_pvar_get_index(name, var_class, &index), MPI_SUCCESS);
    CHECK(index == ours + i, "%s: index %d, listed at %d", name, index, ours + i);
    CHECK(type == MPI_UNSIGNED_LONG_LONG && bind == MPI_T_BIND_MPI_COMM && readonly == 1 &&
              continuous == 0 && atomic == 0,
          "%s: info", name);
    CHECK(var_class == (i < 8        ? MPI_T_PVAR_CLASS_SIZE
                        : i % 2 == 0 ? MPI_T_PVAR_CLASS_COUNTER
                                     : MPI_T_PVAR_CLASS_AGGREGATE),
          "%s: class %d", name, var_class);
  }
  name_len = 4;
  RC(MPI_T_pvar_get_info(ours, name, &name_len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                         NULL, NULL),
     MPI_SUCCESS);
  CHECK(strcmp(name, "pml") == 0 && name_len == 30, "truncated name '%s' %d", name, name_len);

  // Windows: only what is sent while a handle is started counts.
  MPI_T_pvar_session a, b;
  RC(MPI_T_pvar_session_create(&a), MPI_SUCCESS);
  RC(MPI_T_pvar_session_create(&b), MPI_SUCCESS);
  const int next = (rank + 1) % size;
  MPI_T_pvar_handle count =
      alloc(a, "pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE, MPI_COMM_WORLD, size);
  MPI_T_pvar_handle bytes =
      alloc(a, "pml_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE, MPI_COMM_WORLD, size);
  unsigned long long want[64] = {0}, want_bytes[64] = {0};
  ring_send(10, 1); // allocated, not started
  expect(a, count, want, size, "never started");
  RC(MPI_T_pvar_start(a, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  ring_send(8, 3);
  want[next] = 3;
  want_bytes[next] = 24;
  expect(a, count, want, size, "started");
  expect(a, bytes, want_bytes, size, "started, bytes");
  RC(MPI_T_pvar_stop(a, count), MPI_SUCCESS);
  MPI_T_pvar_handle b_count =
      alloc(b, "pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE, MPI_COMM_WORLD, size);
  RC(MPI_T_pvar_start(b, b_count), MPI_SUCCESS);
  ring_send(1000, 2); // a's count is stopped; a's bytes and b's count run
  expect(a, count, want, size, "stopped");
  want_bytes[next] += 2000;
  expect(a, bytes, want_bytes, size, "bytes kept running");
  unsigned long long want_b[64] = {0};
  want_b[next] = 2;
  expect(b, b_count, want_b, size, "second session");
  RC(MPI_T_pvar_start(a, count), MPI_SUCCESS);
  RC(MPI_T_pvar_start(a, count), MPI_SUCCESS); // already started: nothing changes
  ring_send(0, 4);
  want[next] += 4;
  want_b[next] += 4;
  expect(a, count, want, size, "second window");
  expect(b, b_count, want_b, size, "second session, second window");
  // Read-only variables: reset of a handle is refused, of all handles skips them.
  unsigned long long scratch[64];
  RC(MPI_T_pvar_reset(a, count), MPI_T_ERR_PVAR_NO_WRITE);
  RC(MPI_T_pvar_readreset(a, count, scratch), MPI_T_ERR_PVAR_NO_WRITE);
  RC(MPI_T_pvar_write(a, count, scratch), MPI_T_ERR_PVAR_NO_WRITE);
  RC(MPI_T_pvar_reset(a, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  expect(a, count, want, size, "after refused resets");
  RC(MPI_T_pvar_stop(a, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  RC(MPI_T_pvar_stop(a, count), MPI_SUCCESS); // already stopped

  // A split communicator: values indexed by its ranks; sends through any communicator count.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int hsize = 0, hrank = 0;
  MPI_Comm_size(half, &hsize);
  MPI_Comm_rank(half, &hrank);
  MPI_T_pvar_handle h_count =
      alloc(a, "pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE, half, hsize);
  MPI_T_pvar_handle h_coll =
      alloc(a, "coll_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE, half, hsize);
  MPI_T_pvar_handle o2a = alloc(a, "coll_monitoring_o2a_size", MPI_T_PVAR_CLASS_AGGREGATE, half, 1);
  MPI_T_pvar_handle o2a_n =
      alloc(a, "coll_monitoring_o2a_count", MPI_T_PVAR_CLASS_COUNTER, half, 1);
  MPI_T_pvar_handle a2a = alloc(a, "coll_monitoring_a2a_count", MPI_T_PVAR_CLASS_COUNTER, half, 1);
  RC(MPI_T_pvar_start(a, h_count), MPI_SUCCESS);
  RC(MPI_T_pvar_start(a, h_coll), MPI_SUCCESS);
  RC(MPI_T_pvar_start(a, o2a), MPI_SUCCESS);
  RC(MPI_T_pvar_start(a, o2a_n), MPI_SUCCESS);
  RC(MPI_T_pvar_start(a, a2a), MPI_SUCCESS);
  int data[4] = {0};
  const int pairs = size >= 4 && size % 2 == 0; // world rank + 2 is then half rank + 1
  if (pairs) {
    MPI_Sendrecv(data, 1, MPI_INT, (rank + 2) % size, 9, data + 1, 1, MPI_INT,
                 (rank + size - 2) % size, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Bcast(data, 4, MPI_INT, 0, half);
  MPI_Bcast(data, 4, MPI_INT, 0, half);
  MPI_Allreduce(MPI_IN_PLACE, data, 2, MPI_INT, MPI_SUM, half);
  unsigned long long hw[64] = {0}, hc[64] = {0}, one;
  if (pairs)
    hw[(hrank + 1) % hsize] = 1;
  expect(a, h_count, hw, hsize, "split communicator");
  for (int j = 0; j < hsize; ++j)
    hc[j] = j == hrank ? 0 : (hrank == 0 ? 32 : 0) + 8;
  expect(a, h_coll, hc, hsize, "split communicator, collective bytes");
  one = hrank == 0 ? 2ull * 16 * (hsize - 1) : 0;
  expect(a, o2a, &one, 1, "o2a bytes");
  one = hrank == 0 ? 2 : 0;
  expect(a, o2a_n, &one, 1, "o2a operations");
  one = 1;
  expect(a, a2a, &one, 1, "a2a operations");
  // The handle outlives its communicator.
  MPI_Comm_free(&half);
  expect(a, o2a_n, (unsigned long long[]){hrank == 0 ? 2 : 0}, 1, "after MPI_Comm_free");

  // One-sided: put 2 ints to the next rank, get 3 from the previous one.
  MPI_T_pvar_handle s_n =
      alloc(a, "osc_monitoring_messages_sent_count", MPI_T_PVAR_CLASS_SIZE, MPI_COMM_WORLD, size);
  MPI_T_pvar_handle s_b =
      alloc(a, "osc_monitoring_messages_sent_size", MPI_T_PVAR_CLASS_SIZE, MPI_COMM_WORLD, size);
  MPI_T_pvar_handle r_n =
      alloc(a, "osc_monitoring_messages_recv_count", MPI_T_PVAR_CLASS_SIZE, MPI_COMM_WORLD, size);
  MPI_T_pvar_handle r_b =
      alloc(a, "osc_monitoring_messages_recv_size", MPI_T_PVAR_CLASS_SIZE, MPI_COMM_WORLD, size);
  int winbuf[8] = {0};
  MPI_Win win;
  MPI_Win_create(winbuf, sizeof winbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  RC(MPI_T_pvar_start(a, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  MPI_Win_fence(0, win);
  MPI_Put(data, 2, MPI_INT, next, 0, 2, MPI_INT, win);
  MPI_Get(data, 3, MPI_INT, (rank + size - 1) % size, 4, 3, MPI_INT, win);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  unsigned long long w[64] = {0};
  w[next] = 1;
  expect(a, s_n, w, size, "osc sent count");
  w[next] = 8;
  expect(a, s_b, w, size, "osc sent bytes");
  w[next] = 0;
  w[(rank + size - 1) % size] = 1;
  expect(a, r_n, w, size, "osc recv count");
  w[(rank + size - 1) % size] = 12;
  expect(a, r_b, w, size, "osc recv bytes");

#if defined(OPEN_MPI)
  { // Open MPI 4.1's way: the communicator itself.
    MPI_T_pvar_handle v = MPI_T_PVAR_HANDLE_NULL;
    int n = 0;
    RC(MPI_T_pvar_handle_alloc(a, pvar("pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE),
                               MPI_COMM_WORLD, &v, &n),
       MPI_SUCCESS);
    CHECK(n == size, "by value: count %d", n);
    RC(MPI_T_pvar_handle_free(a, &v), MPI_SUCCESS);
  }
#endif

  // Bad input.
  MPI_Comm null_comm = MPI_COMM_NULL;
  MPI_T_pvar_handle bad = MPI_T_PVAR_HANDLE_NULL;
  int n = 0;
  const int idx = pvar("pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE);
  RC(MPI_T_pvar_get_index("pml_monitoring_no_such_thing", MPI_T_PVAR_CLASS_SIZE, &n),
     MPI_T_ERR_INVALID_NAME);
  RC(MPI_T_pvar_get_index("pml_monitoring_messages_count", MPI_T_PVAR_CLASS_COUNTER, &n),
     MPI_T_ERR_INVALID_NAME);
  RC(MPI_T_pvar_get_info(num, name, &name_len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                         NULL),
     MPI_T_ERR_INVALID_INDEX);
  RC(MPI_T_pvar_get_info(-1, name, &name_len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                         NULL),
     MPI_T_ERR_INVALID_INDEX);
  MPI_Comm world = MPI_COMM_WORLD;
  RC(MPI_T_pvar_handle_alloc(a, num + 100, &world, &bad, &n), MPI_T_ERR_INVALID_INDEX);
  RC(MPI_T_pvar_handle_alloc(a, -1, &world, &bad, &n), MPI_T_ERR_INVALID_INDEX);
  RC(MPI_T_pvar_handle_alloc(a, idx, &null_comm, &bad, &n), MPI_T_ERR_INVALID_HANDLE);
  RC(MPI_T_pvar_handle_alloc(a, idx, NULL, &bad, &n), MPI_T_ERR_INVALID_HANDLE);
  RC(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, idx, &world, &bad, &n),
     MPI_T_ERR_INVALID_SESSION);
  RC(MPI_T_category_get_info(ncat, name, &name_len, NULL, NULL, NULL, NULL, NULL),
     MPI_T_ERR_INVALID_INDEX);
  RC(MPI_T_category_get_pvars(ncat + 5, 14, indices), MPI_T_ERR_INVALID_INDEX);
  RC(MPI_T_pvar_session_create(NULL), MPI_T_ERR_INVALID);
  RC(MPI_T_pvar_session_free(NULL), MPI_T_ERR_INVALID);
  RC(MPI_T_pvar_handle_free(a, NULL), MPI_T_ERR_INVALID);
  RC(MPI_T_pvar_handle_alloc(a, idx, &world, NULL, &n), MPI_T_ERR_INVALID);
  // A handle of session a given with session b (and the other way round).
  RC(MPI_T_pvar_read(b, count, scratch), MPI_T_ERR_INVALID_HANDLE);
  RC(MPI_T_pvar_start(b, count), MPI_T_ERR_INVALID_HANDLE);
  RC(MPI_T_pvar_handle_free(b, &count), MPI_T_ERR_INVALID_HANDLE);
  // Freed handles and sessions are recognised, never passed to the MPI.
  MPI_T_pvar_handle freed = bytes;
  RC(MPI_T_pvar_handle_free(a, &bytes), MPI_SUCCESS);
  CHECK(bytes == MPI_T_PVAR_HANDLE_NULL, "handle_free must null the handle");
  RC(MPI_T_pvar_read(a, freed, scratch), MPI_T_ERR_INVALID_HANDLE);
  RC(MPI_T_pvar_handle_free(a, &freed), MPI_T_ERR_INVALID_HANDLE);
  MPI_T_pvar_session freed_session = b;
  RC(MPI_T_pvar_session_free(&b), MPI_SUCCESS);
  CHECK(b == MPI_T_PVAR_SESSION_NULL, "session_free must null the session");
  RC(MPI_T_pvar_read(freed_session, b_count, scratch), MPI_T_ERR_INVALID_SESSION);
  RC(MPI_T_pvar_session_free(&freed_session), MPI_T_ERR_INVALID_SESSION);

  // Finalize nesting: one MPI_T_finalize leaves MPI_T usable, the second ends it.
  RC(MPI_T_finalize(), MPI_SUCCESS);
  expect(a, count, want, size, "after the inner MPI_T_finalize");
  RC(MPI_T_finalize(), MPI_SUCCESS);
  RC(MPI_T_pvar_read(a, count, scratch), MPI_T_ERR_NOT_INITIALIZED);
  RC(MPI_T_pvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  return 0;
}

// ---- mixed traffic, for ompi_monitoring_prof.so ---------------------------------------------

/// Uneven point-to-point (odd sums, for the tool's integer halves), collectives and
/// one-sided traffic; the tool above reads it through MPI_T.
static int mix(void) {
  char buf[4096] = {0};
  int data[16] = {0};
  for (int m = 0; m <= rank; ++m)
    MPI_Send(buf, 10 * (rank + 1) + m, MPI_BYTE, (rank + 1) % size, 1, MPI_COMM_WORLD);
  for (int m = 0; m <= (rank + size - 1) % size; ++m)
    MPI_Recv(buf, sizeof buf, MPI_BYTE, (rank + size - 1) % size, 1, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
  if (size > 2)
    MPI_Sendrecv(buf, 3, MPI_BYTE, (rank + 2) % size, 2, buf + 8, 3, MPI_BYTE,
                 (rank + size - 2) % size, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Bcast(data, 5, MPI_INT, 1 % size, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, data, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : data, data, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  int winbuf[8] = {0};
  MPI_Win win;
  MPI_Win_create(winbuf, sizeof winbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  MPI_Put(data, rank + 1, MPI_INT, (rank + 1) % size, 0, rank + 1, MPI_INT, win);
  if (rank == 0)
    MPI_Get(data + 8, 3, MPI_INT, size - 1, 4, 3, MPI_INT, win);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  return 0;
}

// ---- cost ---------------------------------------------------------------------------------

/// Prints the time of one read of a started per-peer handle on MPI_COMM_WORLD, and rank 0's
/// time per 8-byte MPI_Send to rank 1 without handles and with all 8 per-peer handles
/// started (a measurement for the README, not a test).
static double send_ns(int n) {
  char b[8] = {0};
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < n; ++i) {
    if (rank == 0)
      MPI_Send(b, 8, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
    else if (rank == 1)
      MPI_Recv(b, 8, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  const double t = (MPI_Wtime() - t0) * 1e9 / n;
  MPI_Barrier(MPI_COMM_WORLD);
  return t;
}

static int cost(void) {
  int provided = 0;
  const int n = 200000;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_T_pvar_session s;
  MPI_T_pvar_session_create(&s);
  const double before = send_ns(n);
  static const char *names[8] = {
      "pml_monitoring_messages_count",      "pml_monitoring_messages_size",
      "osc_monitoring_messages_sent_count", "osc_monitoring_messages_sent_size",
      "osc_monitoring_messages_recv_count", "osc_monitoring_messages_recv_size",
      "coll_monitoring_messages_count",     "coll_monitoring_messages_size"};
  MPI_T_pvar_handle h[8];
  for (int i = 0; i < 8; ++i)
    h[i] = alloc(s, names[i], MPI_T_PVAR_CLASS_SIZE, MPI_COMM_WORLD, size);
  RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  const double with = send_ns(n);
  unsigned long long values[64];
  const double t0 = MPI_Wtime();
  for (int i = 0; i < n / 10; ++i)
    MPI_T_pvar_read(s, h[0], values);
  const double read = (MPI_Wtime() - t0) * 1e9 / (n / 10);
  if (rank == 0)
    printf("cost: %d ranks: read %.0f ns; send %.0f ns without handles, %.0f ns with 8 started\n",
           size, read, before, with);
  MPI_T_pvar_session_free(&s);
  MPI_T_finalize();
  return 0;
}

// ---- the MPI's own variables --------------------------------------------------------------

static int native(void) {
  int provided = 0, num = 0, done = 0;
  RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  RC(MPI_T_pvar_get_num(&num), MPI_SUCCESS);
  MPI_T_pvar_session s;
  RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
  ring_send(8, 2);
  for (int i = 0; i < num - 14 && !done; ++i) {
    char name[256], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, var_class, bind, readonly,
        continuous, atomic;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    RC(MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &type, &enumtype, desc,
                           &desc_len, &bind, &readonly, &continuous, &atomic),
       MPI_SUCCESS);
    if (bind != MPI_T_BIND_NO_OBJECT ||
        (type != MPI_UNSIGNED_LONG_LONG && type != MPI_UNSIGNED_LONG && type != MPI_UNSIGNED))
      continue;
    int index = -1;
    RC(MPI_T_pvar_get_index(name, var_class, &index), MPI_SUCCESS);
    CHECK(index == i, "%s: get_index %d, listed at %d", name, index, i);
    MPI_T_pvar_handle h;
    int count = 0;
    RC(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count), MPI_SUCCESS);
    unsigned long long buf[64] = {0};
    if (count < 1 || count > 8) {
      RC(MPI_T_pvar_handle_free(s, &h), MPI_SUCCESS);
      continue;
    }
    if (!continuous)
      RC(MPI_T_pvar_start(s, h), MPI_SUCCESS);
    RC(MPI_T_pvar_read(s, h, buf), MPI_SUCCESS);
    if (!continuous)
      RC(MPI_T_pvar_stop(s, h), MPI_SUCCESS);
    RC(MPI_T_pvar_handle_free(s, &h), MPI_SUCCESS);
    if (rank == 0)
      printf("native: read pvar %s (index %d of %d)\n", name, i, num);
    done = 1;
  }
  // Debian's MPICH is built without performance variables of its own: then its control
  // variables and categories, numbered like ours, must still answer.
  CHECK(done || num == 14, "none of the MPI's %d pvars could be read", num - 14);
  if (num == 14 && rank == 0)
    printf("native: the MPI has no pvars of its own\n");
  int ncvar = 0, ncat = 0;
  RC(MPI_T_cvar_get_num(&ncvar), MPI_SUCCESS);
  RC(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
  for (int i = 0, read = 0; i < ncvar && !read; ++i) {
    char name[256], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope, value[8] = {0},
        count = 0, index = -1;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    RC(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &bind,
                           &scope),
       MPI_SUCCESS);
    if (bind != MPI_T_BIND_NO_OBJECT || type != MPI_INT)
      continue;
    RC(MPI_T_cvar_get_index(name, &index), MPI_SUCCESS);
    CHECK(index == i, "cvar %s: get_index %d, listed at %d", name, index, i);
    MPI_T_cvar_handle h;
    RC(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
    if (count == 1)
      RC(MPI_T_cvar_read(h, value), MPI_SUCCESS);
    RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    if (rank == 0)
      printf("native: read cvar %s (index %d of %d); %d categories\n", name, i, ncvar, ncat);
    read = 1;
  }
  if (ncat > 1) { // the MPI's first category
    int n_pvars = -1, n_cvars = -1, n_sub = -1;
    char name[256], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc;
    RC(MPI_T_category_get_info(0, name, &name_len, desc, &desc_len, &n_cvars, &n_pvars, &n_sub),
       MPI_SUCCESS);
    CHECK(n_pvars >= 0 && n_pvars <= num - 14, "the MPI's category %s: %d pvars", name, n_pvars);
  }
  RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
  RC(MPI_T_finalize(), MPI_SUCCESS);
  return 0;
}

// ---- objects that are not live communicators ------------------------------------------------

/// A handle of the monitor's per-communicator variable bound to `obj`: a datatype, a freed
/// communicator, a split one never used, and garbage are refused with
/// MPI_T_ERR_INVALID_HANDLE (each crashed inside the monitor's PMPI_Comm_* calls before);
/// a live one made by MPI_Comm_split and never used is accepted.
static void badobj(void) {
  int provided = 0, count = -1;
  RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL;
  RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
  const int index = pvar("pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE);
  MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;

  MPI_Datatype type = MPI_DOUBLE;
  RC(MPI_T_pvar_handle_alloc(s, index, &type, &h, &count), MPI_T_ERR_INVALID_HANDLE);
  MPI_Datatype contiguous = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(3, MPI_INT, &contiguous);
  MPI_Type_commit(&contiguous);
  RC(MPI_T_pvar_handle_alloc(s, index, &contiguous, &h, &count), MPI_T_ERR_INVALID_HANDLE);
  MPI_Type_free(&contiguous);

  MPI_Comm freed = MPI_COMM_NULL, kept = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &freed);
  MPI_Comm stale = freed;
  MPI_Comm_free(&freed);
  RC(MPI_T_pvar_handle_alloc(s, index, &stale, &h, &count), MPI_T_ERR_INVALID_HANDLE);

  union {
    MPI_Comm comm;
    unsigned char bytes[sizeof(MPI_Comm)];
  } garbage;
  memset(garbage.bytes, 0x5a, sizeof garbage.bytes);
  RC(MPI_T_pvar_handle_alloc(s, index, &garbage.comm, &h, &count), MPI_T_ERR_INVALID_HANDLE);

  MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &kept);
  RC(MPI_T_pvar_handle_alloc(s, index, &kept, &h, &count), MPI_SUCCESS);
  CHECK(count == size, "count %d, expected %d", count, size);
  RC(MPI_T_pvar_handle_free(s, &h), MPI_SUCCESS);
  MPI_Comm_free(&kept);
  RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
  RC(MPI_T_finalize(), MPI_SUCCESS);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "figure1") == 0)
    figure1();
  else if (strcmp(mode, "lifecycle") == 0)
    lifecycle();
  else if (strcmp(mode, "native") == 0)
    native();
  else if (strcmp(mode, "mix") == 0)
    mix();
  else if (strcmp(mode, "cost") == 0)
    cost();
  else if (strcmp(mode, "badobj") == 0)
    badobj();
  else {
    printf("usage: mpit_app figure1|lifecycle|native|mix|cost|badobj\n");
    failures = 1;
  }
  if (failures == 0 && strcmp(mode, "figure1") != 0 && strcmp(mode, "cost") != 0)
    printf("%s: rank %d ok\n", mode, rank);
  fflush(stdout);
  MPI_Finalize();
  return failures != 0;
}
