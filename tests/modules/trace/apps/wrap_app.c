/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Calls the routines the trace wraps beyond known_app and io_app, with known sizes
 * (test_trace.py's expected_wrap lists what each rank's trace must hold), on n ranks:
 *   Alltoallw, Ialltoallw        rank r sends r+i+1 ints to rank i
 *   Ireduce_scatter              rank i gets i+1 ints; Ireduce_scatter_block 2 ints each
 *   Iscan 3 ints, Iexscan 5 doubles
 *   on a 1-D non-periodic Cartesian communicator of n ranks (the ends have one neighbour):
 *   Neighbor_allgather(v), Neighbor_alltoall(v/w) and their I forms: 2 ints to each
 *   neighbour; 3 ints; 1 double; 1 int to the left and 2 to the right (v and w)
 *   Neighbor_allgather 1 int on a graph ring, Neighbor_alltoall 2 ints on a distributed
 *   graph where rank r sends to every higher rank
 *   MPI 4 only: Allreduce_init (4 ints) and Neighbor_alltoall_init_c (1 double) started
 *   twice each, Barrier_init started once; Send_c/Recv_c (24 bytes around the ring),
 *   Allreduce_c (2 doubles), Ibcast_c (16 bytes from the last rank)
 *   MPI-IO on FILE (shared pointer ops one rank after the other, Barrier between):
 *   write_shared 100(r+1), iwrite_shared 10(r+1), seek_shared 0, read_shared 50,
 *   iread_shared 20, write_ordered 10(r+1), read_ordered 5, seek 64r,
 *   write_all_begin/end 64, read_all_begin/end 64, write_at_all_begin/end 32 at 300+32r,
 *   read_at_all_begin/end 32 at 300+32((r+1)%n), write_ordered_begin/end 8,
 *   read_ordered_begin/end 8; seek 32r, iwrite_all 32, iread_all 16, iwrite_at_all 24 at
 *   500+24r, iread_at_all 24 at 500+24((r+1)%n), each with Wait; MPI 4 only: write_at_c 16 at
 * 2000+16r, read_c 16 at 2000+16r Prints "wrap ok" on rank 0, or "skipped: ..." for what this MPI
 * lacks. Usage: wrap_app FILE */

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void shared_in_turn(MPI_File fh, int rank, int n, int write, int bytes, int nonblocking) {
  char buf[512];
  memset(buf, 'a' + rank, sizeof buf);
  for (int k = 0; k < n; ++k) {
    if (k == rank) {
      if (nonblocking) {
        MPI_Request req;
        if (write)
          MPI_File_iwrite_shared(fh, buf, bytes, MPI_BYTE, &req);
        else
          MPI_File_iread_shared(fh, buf, bytes, MPI_BYTE, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      } else if (write) {
        MPI_File_write_shared(fh, buf, bytes, MPI_BYTE, MPI_STATUS_IGNORE);
      } else {
        MPI_File_read_shared(fh, buf, bytes, MPI_BYTE, MPI_STATUS_IGNORE);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  enum { MAXN = 16 };
  if (argc < 2 || n > MAXN) {
    if (rank == 0)
      fprintf(stderr, "usage: wrap_app FILE (on at most %d ranks)\n", MAXN);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int sbuf[MAXN * (2 * MAXN + 1)], rbuf[MAXN * (2 * MAXN + 1)];
  double d[8] = {0}, e[8] = {0};
  for (int i = 0; i < MAXN * (2 * MAXN + 1); ++i)
    sbuf[i] = rank;
  MPI_Request req;

  int sc[MAXN], rc[MAXN], sd[MAXN], rd[MAXN];
  MPI_Datatype ints[MAXN];
  for (int i = 0, s = 0, r = 0; i < n; ++i) {
    sc[i] = rank + i + 1;
    rc[i] = i + rank + 1;
    sd[i] = s * (int)sizeof(int);
    rd[i] = r * (int)sizeof(int);
    s += sc[i];
    r += rc[i];
    ints[i] = MPI_INT;
  }
  MPI_Alltoallw(sbuf, sc, sd, ints, rbuf, rc, rd, ints, MPI_COMM_WORLD);
  MPI_Ialltoallw(sbuf, sc, sd, ints, rbuf, rc, rd, ints, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);

  int counts[MAXN];
  for (int i = 0; i < n; ++i)
    counts[i] = i + 1;
  MPI_Ireduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Ireduce_scatter_block(sbuf, rbuf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Iscan(sbuf, rbuf, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Iexscan(d, e, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);

  /* Neighbourhoods: block 0 is the left neighbour, block 1 the right one. */
  MPI_Comm cart;
  int dims[1] = {n}, periods[1] = {0};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  int three[2] = {3, 3}, tdispl[2] = {0, 3};
  int vs[2] = {1, 2}, vsd[2] = {0, 1}, vr[2] = {2, 1}, vrd[2] = {0, 2};
  MPI_Aint ws[2] = {0, sizeof(int)}, wr[2] = {0, 2 * sizeof(int)};
  MPI_Datatype two_ints[2] = {MPI_INT, MPI_INT};
  for (int nb = 0; nb < 2; ++nb) {
    if (nb == 0) {
      MPI_Neighbor_allgather(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, cart);
      MPI_Neighbor_allgatherv(sbuf, 3, MPI_INT, rbuf, three, tdispl, MPI_INT, cart);
      MPI_Neighbor_alltoall(d, 1, MPI_DOUBLE, e, 1, MPI_DOUBLE, cart);
      MPI_Neighbor_alltoallv(sbuf, vs, vsd, MPI_INT, rbuf, vr, vrd, MPI_INT, cart);
      MPI_Neighbor_alltoallw(sbuf, vs, ws, two_ints, rbuf, vr, wr, two_ints, cart);
    } else {
      MPI_Ineighbor_allgather(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, cart, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      MPI_Ineighbor_allgatherv(sbuf, 3, MPI_INT, rbuf, three, tdispl, MPI_INT, cart, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      MPI_Ineighbor_alltoall(d, 1, MPI_DOUBLE, e, 1, MPI_DOUBLE, cart, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      MPI_Ineighbor_alltoallv(sbuf, vs, vsd, MPI_INT, rbuf, vr, vrd, MPI_INT, cart, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      MPI_Ineighbor_alltoallw(sbuf, vs, ws, two_ints, rbuf, vr, wr, two_ints, cart, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
  }

  /* A graph ring (every rank's neighbours: the previous and the next rank) and a distributed
   * graph where every rank sends to every higher rank: rank r has r in-neighbours and n-1-r
   * out-neighbours. */
  int index[MAXN], edges[2 * MAXN], sources[MAXN], dests[MAXN], nin = 0, nout = 0;
  /* Weights of 1, not MPI_UNWEIGHTED: Open MPI's is a zero-size object GCC warns about. */
  int weights[MAXN];
  for (int i = 0; i < n; ++i) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i + n - 1) % n;
    edges[2 * i + 1] = (i + 1) % n;
    weights[i] = 1;
  }
  for (int i = 0; i < n; ++i) {
    if (i < rank)
      sources[nin++] = i;
    else if (i > rank)
      dests[nout++] = i;
  }
  MPI_Comm graph, dist;
  MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &graph);
  MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, graph);
  MPI_Comm_free(&graph);
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, sources, weights, nout, dests, weights,
                                 MPI_INFO_NULL, 0, &dist);
  MPI_Neighbor_alltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, dist);
  MPI_Comm_free(&dist);

#if MPI_VERSION >= 4
  MPI_Request pers[3];
  MPI_Status statuses[2];
  MPI_Allreduce_init(sbuf, rbuf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pers[0]);
  MPI_Neighbor_alltoall_init_c(d, 1, MPI_DOUBLE, e, 1, MPI_DOUBLE, cart, MPI_INFO_NULL, &pers[1]);
  MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &pers[2]);
  for (int k = 0; k < 2; ++k) {
    MPI_Startall(2, pers);
    MPI_Waitall(2, pers, statuses);
  }
  MPI_Start(&pers[2]);
  MPI_Wait(&pers[2], MPI_STATUS_IGNORE);
  for (int k = 0; k < 3; ++k)
    MPI_Request_free(&pers[k]);
  if (rank % 2 == 0) {
    MPI_Send_c(sbuf, 6, MPI_INT, (rank + 1) % n, 4, MPI_COMM_WORLD);
    MPI_Recv_c(rbuf, 6, MPI_INT, (rank + n - 1) % n, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv_c(rbuf, 6, MPI_INT, (rank + n - 1) % n, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send_c(sbuf, 6, MPI_INT, (rank + 1) % n, 4, MPI_COMM_WORLD);
  }
  MPI_Allreduce_c(d, e, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Ibcast_c(d, 2, MPI_DOUBLE, n - 1, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
#else
  if (rank == 0)
    printf("skipped: MPI %d.%d has no persistent collectives and no large-count routines\n",
           MPI_VERSION, MPI_SUBVERSION);
#endif
  MPI_Comm_free(&cart);

  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  shared_in_turn(fh, rank, n, 1, 100 * (rank + 1), 0);
  shared_in_turn(fh, rank, n, 1, 10 * (rank + 1), 1);
  MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
  shared_in_turn(fh, rank, n, 0, 50, 0);
  shared_in_turn(fh, rank, n, 0, 20, 1);
  char buf[128];
  memset(buf, 'A' + rank, sizeof buf);
  MPI_File_write_ordered(fh, buf, 10 * (rank + 1), MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_read_ordered(fh, buf, 5, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_seek(fh, 64 * rank, MPI_SEEK_SET);
  MPI_File_write_all_begin(fh, buf, 64, MPI_BYTE);
  MPI_File_write_all_end(fh, buf, MPI_STATUS_IGNORE);
  MPI_File_read_all_begin(fh, buf, 64, MPI_BYTE);
  MPI_File_read_all_end(fh, buf, MPI_STATUS_IGNORE);
  MPI_File_write_at_all_begin(fh, 300 + 32 * rank, buf, 32, MPI_BYTE);
  MPI_File_write_at_all_end(fh, buf, MPI_STATUS_IGNORE);
  MPI_File_read_at_all_begin(fh, 300 + 32 * ((rank + 1) % n), buf, 32, MPI_BYTE);
  MPI_File_read_at_all_end(fh, buf, MPI_STATUS_IGNORE);
  MPI_File_write_ordered_begin(fh, buf, 8, MPI_BYTE);
  MPI_File_write_ordered_end(fh, buf, MPI_STATUS_IGNORE);
  MPI_File_read_ordered_begin(fh, buf, 8, MPI_BYTE);
  MPI_File_read_ordered_end(fh, buf, MPI_STATUS_IGNORE);
  MPI_File_seek(fh, 32 * rank, MPI_SEEK_SET);
  MPI_File_iwrite_all(fh, buf, 32, MPI_BYTE, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_File_iread_all(fh, buf, 16, MPI_BYTE, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_File_iwrite_at_all(fh, 500 + 24 * rank, buf, 24, MPI_BYTE, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_File_iread_at_all(fh, 500 + 24 * ((rank + 1) % n), buf, 24, MPI_BYTE, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
#if MPI_VERSION >= 4
  MPI_File_write_at_c(fh, 2000 + 16 * rank, buf, 16, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_seek(fh, 2000 + 16 * rank, MPI_SEEK_SET);
  MPI_File_read_c(fh, buf, 16, MPI_BYTE, MPI_STATUS_IGNORE);
#endif
  MPI_File_close(&fh);

  /* Every collective in each of its forms, 1 int per block, root 0 (the neighbourhood ones on
   * a line of n ranks): MPI_X, MPI_IX + Wait and, with MPI 4, MPI_X_init + Start + Wait +
   * Request_free, MPI_X_c, MPI_IX_c + Wait, MPI_X_init_c + Start + Wait + Request_free. */
  MPI_Comm world = MPI_COMM_WORLD;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  int one[MAXN], dsp[MAXN], bdsp[MAXN];
  MPI_Aint adsp[MAXN];
  for (int i = 0; i < n; ++i) {
    one[i] = 1;
    dsp[i] = i;
    bdsp[i] = i * (int)sizeof(int);
    adsp[i] = i * (MPI_Aint)sizeof(int);
  }
#if MPI_VERSION >= 4
  MPI_Count one_c[MAXN];
  MPI_Aint dsp_c[MAXN], bdsp_c[MAXN];
  for (int i = 0; i < n; ++i) {
    one_c[i] = 1;
    dsp_c[i] = i;
    bdsp_c[i] = adsp[i];
  }
#endif
/* The arguments of each shape: S is empty (int counts) or _c (MPI_Count and MPI_Aint). */
#define A_BCAST(S) sbuf, 1, MPI_INT, 0, world
#define A_ROOTED(S) sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, 0, world
#define A_GATHERV(S) sbuf, 1, MPI_INT, rbuf, one##S, dsp##S, MPI_INT, 0, world
#define A_SCATTERV(S) sbuf, one##S, dsp##S, MPI_INT, rbuf, 1, MPI_INT, 0, world
#define A_ALL(S) sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, world
#define A_ALLGATHERV(S) sbuf, 1, MPI_INT, rbuf, one##S, dsp##S, MPI_INT, world
#define A_ALLTOALLV(S) sbuf, one##S, dsp##S, MPI_INT, rbuf, one##S, dsp##S, MPI_INT, world
#define A_ALLTOALLW(S) sbuf, one##S, bdsp##S, ints, rbuf, one##S, bdsp##S, ints, world
#define A_REDUCE(S) sbuf, rbuf, 1, MPI_INT, MPI_SUM, 0, world
#define A_ALLREDUCE(S) sbuf, rbuf, 1, MPI_INT, MPI_SUM, world
#define A_RSCATTER(S) sbuf, rbuf, one##S, MPI_INT, MPI_SUM, world
#define A_NALL(S) sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, cart
#define A_NALLGATHERV(S) sbuf, 1, MPI_INT, rbuf, one##S, dsp##S, MPI_INT, cart
#define A_NALLTOALLV(S) sbuf, one##S, dsp##S, MPI_INT, rbuf, one##S, dsp##S, MPI_INT, cart
#define A_NALLTOALLW(S) sbuf, one##S, adsp, ints, rbuf, one##S, adsp, ints, cart
#define PERSISTENT(CALL)                                                                           \
  CALL;                                                                                            \
  MPI_Start(&req);                                                                                 \
  MPI_Wait(&req, MPI_STATUS_IGNORE);                                                               \
  MPI_Request_free(&req);
#if MPI_VERSION >= 4
#define FORMS4(NAME, INAME, SHAPE)                                                                 \
  PERSISTENT(MPI_##NAME##_init(A_##SHAPE(), MPI_INFO_NULL, &req))                                  \
  MPI_##NAME##_c(A_##SHAPE(_c));                                                                   \
  MPI_##INAME##_c(A_##SHAPE(_c), &req);                                                            \
  MPI_Wait(&req, MPI_STATUS_IGNORE);                                                               \
  PERSISTENT(MPI_##NAME##_init_c(A_##SHAPE(_c), MPI_INFO_NULL, &req))
#else
#define FORMS4(NAME, INAME, SHAPE)
#endif
#define FORMS(NAME, INAME, SHAPE)                                                                  \
  MPI_##NAME(A_##SHAPE());                                                                         \
  MPI_##INAME(A_##SHAPE(), &req);                                                                  \
  MPI_Wait(&req, MPI_STATUS_IGNORE);                                                               \
  FORMS4(NAME, INAME, SHAPE)
  FORMS(Bcast, Ibcast, BCAST)
  FORMS(Gather, Igather, ROOTED)
  FORMS(Gatherv, Igatherv, GATHERV)
  FORMS(Scatter, Iscatter, ROOTED)
  FORMS(Scatterv, Iscatterv, SCATTERV)
  FORMS(Allgather, Iallgather, ALL)
  FORMS(Allgatherv, Iallgatherv, ALLGATHERV)
  FORMS(Alltoall, Ialltoall, ALL)
  FORMS(Alltoallv, Ialltoallv, ALLTOALLV)
  FORMS(Alltoallw, Ialltoallw, ALLTOALLW)
  FORMS(Reduce, Ireduce, REDUCE)
  FORMS(Allreduce, Iallreduce, ALLREDUCE)
  FORMS(Reduce_scatter, Ireduce_scatter, RSCATTER)
  FORMS(Reduce_scatter_block, Ireduce_scatter_block, ALLREDUCE)
  FORMS(Scan, Iscan, ALLREDUCE)
  FORMS(Exscan, Iexscan, ALLREDUCE)
  FORMS(Neighbor_allgather, Ineighbor_allgather, NALL)
  FORMS(Neighbor_allgatherv, Ineighbor_allgatherv, NALLGATHERV)
  FORMS(Neighbor_alltoall, Ineighbor_alltoall, NALL)
  FORMS(Neighbor_alltoallv, Ineighbor_alltoallv, NALLTOALLV)
  FORMS(Neighbor_alltoallw, Ineighbor_alltoallw, NALLTOALLW)
  MPI_Comm_free(&cart);
  if (rank == 0)
    printf("wrap ok\n");
  MPI_Finalize();
  return 0;
}
