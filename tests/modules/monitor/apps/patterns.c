/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Communication patterns with known matrices for the monitor's tests: `patterns NAME`.
 * Each pattern does exactly the traffic test_monitor.cpp expects, nothing else (no extra
 * barrier: that would be a collective too). Needs 4 ranks unless stated. Prints
 * `mpi-version N` and `pattern NAME done` from rank 0. */

#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int rank, size;
static const char *arg; /* the pattern's argument, argv[2] */

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "patterns: rank %d: check failed at line %d: %s\n", rank, __LINE__, #cond);  \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                                \
    }                                                                                              \
  } while (0)

/* MPI_Waitall with a real status array: MPICH's MPI_STATUSES_IGNORE trips GCC's
 * -Wstringop-overflow through the header's access attributes. */
static void wait_all(int n, MPI_Request *requests) {
  MPI_Status statuses[8];
  MPI_Waitall(n, requests, statuses);
}

static int next(int k) {
  return (rank + k) % size;
}
static int prev(int k) {
  return (rank - k + size) % size;
}

static void ring(void) {
  int out[100] = {0}, in[100];
  for (int it = 0; it < 3; ++it) {
    if (rank % 2 == 0) {
      MPI_Send(out, 100, MPI_INT, next(1), 1, MPI_COMM_WORLD);
      MPI_Recv(in, 100, MPI_INT, prev(1), 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, 100, MPI_INT, prev(1), 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(out, 100, MPI_INT, next(1), 1, MPI_COMM_WORLD);
    }
  }
  MPI_Request q[2];
  MPI_Irecv(in, 0, MPI_INT, prev(1), 2, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(out, 0, MPI_INT, next(1), 2, MPI_COMM_WORLD, &q[1]);
  wait_all(2, q);
}

/* For the origin tests: the ring, an allreduce of 2 ints and a barrier, calls a tool above
 * the monitor forwards (and, in its barrier, adds traffic of its own to). */
static void tooled(void) {
  ring();
  int mine[2] = {rank, 1}, sum[2];
  MPI_Allreduce(mine, sum, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum[1] == size);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* 2x2 periodic grid: each dimension's neighbor in both directions, then a neighborhood
 * alltoall on the grid. */
static void halo(void) {
  int dims[2] = {2, 2}, periods[2] = {1, 1};
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  double out[8] = {0}, in[8];
  const int counts[2] = {8, 3};
  for (int d = 0; d < 2; ++d) {
    int src, dst;
    MPI_Cart_shift(cart, d, 1, &src, &dst);
    MPI_Sendrecv(out, counts[d], MPI_DOUBLE, dst, 3, in, counts[d], MPI_DOUBLE, src, 3, cart,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(out, counts[d], MPI_DOUBLE, src, 4, in, counts[d], MPI_DOUBLE, dst, 4, cart,
                 MPI_STATUS_IGNORE);
  }
  int nout[8] = {0}, nin[8];
  MPI_Neighbor_alltoall(nout, 2, MPI_INT, nin, 2, MPI_INT, cart);
  MPI_Comm_free(&cart);
}

static void alltoallv(void) {
  int sc[64], sd[64], rc[64], rd[64], out[256] = {0}, in[256];
  int s = 0, t = 0;
  for (int j = 0; j < size; ++j) {
    sc[j] = (rank + 2 * j) % 5;
    rc[j] = (j + 2 * rank) % 5;
    sd[j] = s;
    rd[j] = t;
    s += sc[j];
    t += rc[j];
  }
  MPI_Alltoallv(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, MPI_COMM_WORLD);
}

static void reduce(void) {
  double d[7] = {1, 2, 3, 4, 5, 6, 7}, sum[7];
  MPI_Reduce(rank == 1 ? MPI_IN_PLACE : d, rank == 1 ? d : sum, 7, MPI_DOUBLE, MPI_SUM, 1,
             MPI_COMM_WORLD);
  int v[3] = {rank, rank, rank}, w[3];
  MPI_Request q;
  MPI_Ireduce(v, w, 3, MPI_INT, MPI_SUM, 2, MPI_COMM_WORLD, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  if (rank == 2)
    CHECK(w[0] == size * (size - 1) / 2);
}

static void bcast(void) {
  int v[10] = {0};
  MPI_Bcast(v, 10, MPI_INT, 2, MPI_COMM_WORLD);
  char c[5] = {0};
  MPI_Request q;
  MPI_Ibcast(c, 5, MPI_BYTE, 0, MPI_COMM_WORLD, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
}

static void persistent(void) {
  int out[6] = {0}, in[6];
  MPI_Request q[2];
  MPI_Recv_init(in, 6, MPI_INT, prev(1), 5, MPI_COMM_WORLD, &q[0]);
  MPI_Send_init(out, 6, MPI_INT, next(1), 5, MPI_COMM_WORLD, &q[1]);
  for (int i = 0; i < 5; ++i) {
    MPI_Start(&q[0]);
    MPI_Start(&q[1]);
    wait_all(2, q);
  }
  for (int i = 0; i < 3; ++i) {
    MPI_Startall(2, q);
    wait_all(2, q);
  }
  MPI_Request_free(&q[0]);
  MPI_Request_free(&q[1]);
#if MPI_VERSION >= 4
  int b[2] = {0};
  MPI_Request c;
  MPI_Bcast_init(b, 2, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &c);
  for (int i = 0; i < 2; ++i) {
    MPI_Start(&c);
    MPI_Wait(&c, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&c);
#endif
}

static void rma(void) {
  char *base;
  MPI_Win win;
  MPI_Win_allocate(256, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  memset(base, 0, 256);
  char buf[64] = {0};
  int ints[3] = {1, 2, 3}, result[3];
  MPI_Win_fence(0, win);
  MPI_Put(buf, 16, MPI_BYTE, next(1), 0, 16, MPI_BYTE, win);
  MPI_Put(buf, 16, MPI_BYTE, next(1), 16, 16, MPI_BYTE, win);
  MPI_Get(buf + 32, 8, MPI_BYTE, next(2), 64, 8, MPI_BYTE, win);
  MPI_Accumulate(ints, 3, MPI_INT, next(3), 128, 3, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  MPI_Win_lock_all(0, win);
  MPI_Fetch_and_op(ints, result, MPI_INT, next(1), 144, MPI_SUM, win);
  MPI_Compare_and_swap(ints, ints + 1, result, MPI_INT, next(2), 152, win);
  MPI_Request q;
  MPI_Rput(buf, 4, MPI_BYTE, next(3), 160, 4, MPI_BYTE, win, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Get_accumulate(ints, 2, MPI_INT, result, 2, MPI_INT, next(1), 168, 2, MPI_INT, MPI_SUM, win);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
}

static void split(void) {
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &sub);
  int sr;
  MPI_Comm_rank(sub, &sr);
  int v[5] = {0}, w[2] = {1, 1};
  if (sr == 0)
    MPI_Send(v, 5, MPI_INT, 1, 6, sub);
  else
    MPI_Recv(v, 5, MPI_INT, 0, 6, sub, MPI_STATUS_IGNORE);
  MPI_Allreduce(MPI_IN_PLACE, w, 2, MPI_INT, MPI_SUM, sub);
  MPI_Comm_free(&sub);
  /* A new communicator may get the freed one's handle: its ranks must be translated anew. */
  MPI_Comm again;
  MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &again);
  char c = 0;
  MPI_Request q;
  MPI_Irecv(&c, 1, MPI_CHAR, prev(1), 7, again, &q);
  MPI_Send(&c, 1, MPI_CHAR, next(1), 7, again);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Comm_free(&again);
}

/* Groups {0,1} and {2,3}; local rank l talks to remote rank l. */
static void intercomm(void) {
  MPI_Comm local, inter;
  const int group = rank / 2;
  MPI_Comm_split(MPI_COMM_WORLD, group, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, group == 0 ? 2 : 0, 8, &inter);
  int lr;
  MPI_Comm_rank(inter, &lr);
  int v[3] = {0}, w[3];
  MPI_Request q;
  MPI_Irecv(w, 3, MPI_INT, lr, 9, inter, &q);
  MPI_Send(v, 3, MPI_INT, lr, 9, inter);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  int b[4] = {0};
  const int root = group == 0 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  MPI_Bcast(b, 4, MPI_INT, root, inter);
  int one = rank, all[2];
  MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, inter);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
}

static void procnull(void) {
  int v[10] = {0};
  MPI_Request q;
  MPI_Send(v, 10, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  MPI_Isend(v, 10, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Sendrecv(v, 3, MPI_INT, MPI_PROC_NULL, 0, v + 3, 3, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Send_init(v, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q);
  MPI_Start(&q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Request_free(&q);
  char c = 0;
  MPI_Irecv(&c, 1, MPI_CHAR, prev(1), 1, MPI_COMM_WORLD, &q);
  MPI_Send(&c, 1, MPI_CHAR, next(1), 1, MPI_COMM_WORLD);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
}

/* Every send mode to the next rank, k ints for the k-th; ready sends wait for a 0-byte
 * token from the receiver (to the previous rank). */
static void sendmodes(void) {
  int out[64] = {0}, in[64];
  static char bsend_buffer[4096];
  MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer);
  MPI_Request q[4];
  int k = 1;
  MPI_Irecv(in, 64, MPI_INT, prev(1), 1, MPI_COMM_WORLD, &q[0]);
  MPI_Send(out, k++, MPI_INT, next(1), 1, MPI_COMM_WORLD);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  MPI_Irecv(in, 64, MPI_INT, prev(1), 1, MPI_COMM_WORLD, &q[0]);
  MPI_Bsend(out, k++, MPI_INT, next(1), 1, MPI_COMM_WORLD);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  MPI_Irecv(in, 64, MPI_INT, prev(1), 1, MPI_COMM_WORLD, &q[0]);
  MPI_Ssend(out, k++, MPI_INT, next(1), 1, MPI_COMM_WORLD);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  for (int mode = 0; mode < 2; ++mode) { /* Rsend, then Irsend at k+4 */
    MPI_Irecv(in, 64, MPI_INT, prev(1), 2, MPI_COMM_WORLD, &q[0]);
    MPI_Send(NULL, 0, MPI_INT, prev(1), 3, MPI_COMM_WORLD);
    MPI_Recv(NULL, 0, MPI_INT, next(1), 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (mode == 0) {
      MPI_Rsend(out, k++, MPI_INT, next(1), 2, MPI_COMM_WORLD);
      MPI_Wait(&q[0], MPI_STATUS_IGNORE);
      MPI_Irecv(in, 64, MPI_INT, prev(1), 1, MPI_COMM_WORLD, &q[0]);
      MPI_Isend(out, k++, MPI_INT, next(1), 1, MPI_COMM_WORLD, &q[1]);
      wait_all(2, q);
      MPI_Irecv(in, 64, MPI_INT, prev(1), 1, MPI_COMM_WORLD, &q[0]);
      MPI_Ibsend(out, k++, MPI_INT, next(1), 1, MPI_COMM_WORLD, &q[1]);
      wait_all(2, q);
      MPI_Irecv(in, 64, MPI_INT, prev(1), 1, MPI_COMM_WORLD, &q[0]);
      MPI_Issend(out, k++, MPI_INT, next(1), 1, MPI_COMM_WORLD, &q[1]);
      wait_all(2, q);
    } else {
      MPI_Irsend(out, k++, MPI_INT, next(1), 2, MPI_COMM_WORLD, &q[1]);
      wait_all(2, q);
    }
  }
  MPI_Sendrecv(out, k, MPI_INT, next(1), 4, in, k, MPI_INT, prev(1), 4, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  ++k;
  int rep[64] = {0};
  MPI_Sendrecv_replace(rep, k++, MPI_INT, next(1), 5, prev(1), 5, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
#if MPI_VERSION >= 4
  MPI_Isendrecv(out, k, MPI_INT, next(1), 6, in, k, MPI_INT, prev(1), 6, MPI_COMM_WORLD, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  ++k;
  MPI_Isendrecv_replace(rep, k++, MPI_INT, next(1), 7, prev(1), 7, MPI_COMM_WORLD, &q[0]);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  MPI_Irecv(in, 64, MPI_INT, prev(1), 8, MPI_COMM_WORLD, &q[0]);
  MPI_Send_c(out, (MPI_Count)k++, MPI_INT, next(1), 8, MPI_COMM_WORLD);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  /* Partitioned: 2 partitions of 7 ints, one message per MPI_Start. */
  MPI_Psend_init(out, 2, 7, MPI_INT, next(1), 9, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]);
  MPI_Precv_init(in, 2, 7, MPI_INT, prev(1), 9, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]);
  MPI_Startall(2, q);
  MPI_Pready(0, q[1]);
  MPI_Pready(1, q[1]);
  wait_all(2, q);
  MPI_Request_free(&q[0]);
  MPI_Request_free(&q[1]);
#endif
  void *detached;
  int detached_size;
  MPI_Buffer_detach(&detached, &detached_size);
}

static void collectives(void) {
  int ia[64] = {0}, ib[256];
  char ca[64] = {0}, cb[256];
  double da[8] = {0}, db[64];
  short sa[64] = {0}, sb[256];
  int counts[64], displs[64], rcounts[64], rdispls[64];
  const int n = size;

  MPI_Gather(ia, 2, MPI_INT, ib, 2, MPI_INT, 0, MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    rcounts[i] = i + 1;
    rdispls[i] = 8 * i;
  }
  MPI_Gatherv(ia, rank + 1, MPI_INT, ib, rcounts, rdispls, MPI_INT, 1, MPI_COMM_WORLD);
  MPI_Scatter(ia, 3, MPI_INT, ib, 3, MPI_INT, 2, MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    counts[i] = i;
    displs[i] = 8 * i;
  }
  MPI_Scatterv(ia, counts, displs, MPI_INT, ib, rank, MPI_INT, 3, MPI_COMM_WORLD);
  MPI_Allgather(da, 1, MPI_DOUBLE, db, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    rcounts[i] = i + 1;
    rdispls[i] = 8 * i;
  }
  MPI_Allgatherv(ca, rank + 1, MPI_CHAR, cb, rcounts, rdispls, MPI_CHAR, MPI_COMM_WORLD);
  MPI_Alltoall(sa, 2, MPI_SHORT, sb, 2, MPI_SHORT, MPI_COMM_WORLD);
  MPI_Datatype stypes[64], rtypes[64];
  for (int j = 0; j < n; ++j) {
    counts[j] = j + 1;
    displs[j] = 64 * j;
    stypes[j] = j % 2 == 0 ? MPI_CHAR : MPI_INT;
    rcounts[j] = rank + 1;
    rdispls[j] = 64 * j;
    rtypes[j] = rank % 2 == 0 ? MPI_CHAR : MPI_INT;
  }
  static char wout[4096], win[4096];
  MPI_Alltoallw(wout, counts, displs, stypes, win, rcounts, rdispls, rtypes, MPI_COMM_WORLD);
  MPI_Allreduce(ia, ib, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int j = 0; j < n; ++j)
    counts[j] = j;
  MPI_Reduce_scatter(ia, ib, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block(ia, ib, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Scan(ia, ib, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(ia, ib, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Request q;
  MPI_Iallreduce(ia, ib, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Igather(ia, 1, MPI_INT, ib, 1, MPI_INT, 3, MPI_COMM_WORLD, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Ibarrier(MPI_COMM_WORLD, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  for (int j = 0; j < n; ++j) {
    counts[j] = j == next(1) ? 1 : 0;
    displs[j] = j;
    rcounts[j] = j == prev(1) ? 1 : 0;
    rdispls[j] = j;
  }
  MPI_Ialltoallv(ia, counts, displs, MPI_INT, ib, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Iscatter(ia, 1, MPI_INT, ib, 1, MPI_INT, 0, MPI_COMM_WORLD, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
#if MPI_VERSION >= 4
  MPI_Allreduce_c(ia, ib, (MPI_Count)3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce_init(ia, ib, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
  for (int i = 0; i < 2; ++i) {
    MPI_Start(&q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&q);
  MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &q);
  MPI_Start(&q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Request_free(&q);
#endif
}

/* For the Open MPI oracle: plain point-to-point traffic both monitors must agree on, then
 * the documented differences (persistent sends, alltoallv, an all-to-one reduce). */
static void oracle(void) {
  static char out[70000], in[70000];
  const int sizes[5] = {0, 1, 100, 5000, 70000};
  MPI_Request q[6];
  for (int k = 0; k < 5; ++k) {
    MPI_Irecv(in, sizes[k], MPI_CHAR, prev(1), 10 + k, MPI_COMM_WORLD, &q[0]);
    MPI_Send(out, sizes[k], MPI_CHAR, next(1), 10 + k, MPI_COMM_WORLD);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
  }
  for (int i = 0; i < 3; ++i)
    MPI_Irecv(in + 64 * i, 33, MPI_CHAR, prev(2), 20 + i, MPI_COMM_WORLD, &q[i]);
  for (int i = 0; i < 3; ++i)
    MPI_Isend(out, 33, MPI_CHAR, next(2), 20 + i, MPI_COMM_WORLD, &q[3 + i]);
  wait_all(6, q);
  MPI_Sendrecv(out, 17, MPI_INT, next(3), 30, in, 17, MPI_INT, prev(3), 30, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MPI_Irecv(in, 8, MPI_CHAR, prev(1), 31, MPI_COMM_WORLD, &q[0]);
  MPI_Ssend(out, 8, MPI_CHAR, next(1), 31, MPI_COMM_WORLD);
  MPI_Wait(&q[0], MPI_STATUS_IGNORE);

  MPI_Recv_init(in, 24, MPI_CHAR, prev(2), 40, MPI_COMM_WORLD, &q[0]);
  MPI_Send_init(out, 24, MPI_CHAR, next(2), 40, MPI_COMM_WORLD, &q[1]);
  for (int i = 0; i < 3; ++i) {
    MPI_Startall(2, q);
    wait_all(2, q);
  }
  MPI_Request_free(&q[0]);
  MPI_Request_free(&q[1]);

  int sc[64], sd[64], rc[64], rd[64];
  for (int j = 0; j < size; ++j) {
    sc[j] = j + 1;
    sd[j] = 64 * j;
    rc[j] = rank + 1;
    rd[j] = 64 * j;
  }
  MPI_Alltoallv(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, MPI_COMM_WORLD);
  double d[3] = {1, 2, 3}, sum[3];
  MPI_Reduce(d, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}

/* For the symlink test (`patterns plant PREFIX`): the ring, then each rank plants a symbolic
 * link to PREFIX.victim at the names the monitor's temporary files used to have,
 * PREFIX.<rank>.prof.tmp.<pid> (and PREFIX.json.tmp.<pid> on rank 0). */
static void plant(void) {
  ring();
  char link[4096], victim[4096];
  snprintf(victim, sizeof victim, "%s.victim", arg);
  snprintf(link, sizeof link, "%s.%d.prof.tmp.%ld", arg, rank, (long)getpid());
  CHECK(symlink(victim, link) == 0);
  if (rank == 0) {
    snprintf(link, sizeof link, "%s.json.tmp.%ld", arg, (long)getpid());
    CHECK(symlink(victim, link) == 0);
  }
}

/* For the output-injection test: the ring, then a barrier on each of two duplicates of
 * MPI_COMM_WORLD named to forge lines of the per-rank files; the first one is freed. */
static const char kForged[] = "forged\nE\t0\t1\t999999 bytes\t777 msgs sent\n# OSC\tx\\";
static void names(void) {
  ring();
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_dup(MPI_COMM_WORLD, &b);
  MPI_Comm_set_name(a, (char *)kForged);
  MPI_Comm_set_name(b, (char *)"kept\tname");
  MPI_Barrier(a);
  MPI_Barrier(b);
  MPI_Comm_free(&a);
}

/* For the write-error test (`patterns fullfile`): one message to each other rank, so that
 * each per-rank file has three E lines (some 600 bytes), then rank 1 lets no file of its own
 * grow beyond 400 bytes (RLIMIT_FSIZE, SIGXFSZ ignored: write(2) fails with EFBIG), as a
 * full disk would make a write fail after the file was created. Its stderr (a file under the
 * tests' launcher) keeps room for the monitor's message. */
static void fullfile(void) {
  int out = rank, in;
  for (int k = 1; k < size; ++k)
    MPI_Sendrecv(&out, 1, MPI_INT, next(k), 3, &in, 1, MPI_INT, prev(k), 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  if (rank == 1) {
    struct rlimit limit = {400, 400};
    signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &limit) == 0);
  }
}

/* For the lost-output test (`patterns rmdir`): the output directory of PNMPI_MONITOR_OUTPUT
 * exists at MPI_Init, and rank 0 removes it before MPI_Finalize (as a cleanup job could), so
 * every file is lost at MPI_Finalize. */
static void rmdir_output(void) {
  const char *prefix = getenv("PNMPI_MONITOR_OUTPUT");
  CHECK(prefix != NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", prefix);
    char *slash = strrchr(dir, '/');
    CHECK(slash != NULL);
    *slash = '\0';
    CHECK(rmdir(dir) == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *name = argc > 1 ? argv[1] : "";
  arg = argc > 2 ? argv[2] : "";
  struct {
    const char *name;
    void (*run)(void);
  } patterns[] = {{"ring", ring},         {"halo", halo},           {"alltoallv", alltoallv},
                  {"reduce", reduce},     {"bcast", bcast},         {"persistent", persistent},
                  {"rma", rma},           {"split", split},         {"intercomm", intercomm},
                  {"procnull", procnull}, {"sendmodes", sendmodes}, {"collectives", collectives},
                  {"oracle", oracle},     {"tooled", tooled},       {"plant", plant},
                  {"names", names},       {"fullfile", fullfile},   {"rmdir", rmdir_output}};
  int found = 0;
  for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; ++i)
    if (strcmp(name, patterns[i].name) == 0) {
      patterns[i].run();
      found = 1;
    }
  if (!found) {
    if (rank == 0)
      fprintf(stderr, "patterns: unknown pattern '%s'\n", name);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    printf("mpi-version %d\npattern %s done\n", MPI_VERSION, name);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
