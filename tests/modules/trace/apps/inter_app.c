/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Inter-communicators, on an even number of ranks (4 in test_trace_req.py): MPI_COMM_WORLD
 * is split into a lower and an upper half, joined by MPI_Intercomm_create. Across it, local
 * rank i of each half exchanges with local rank i of the other: a blocking message (lower
 * half sends 40 + 4 i bytes, tag 1), a nonblocking pair (8 + i bytes each way, tag 2,
 * MPI_Waitall), then an MPI_Allreduce (one int) and an MPI_Bcast from the lower half's rank 0
 * (16 bytes); on MPI_Comm_dup of the inter-communicator, one message upwards (12 bytes,
 * tag 3). MPI_Intercomm_merge gives an intra-communicator (lower half first): an Allreduce
 * on it. MPI_Comm_idup of the merged one, completed by MPI_Wait: a message on it from rank 0
 * to the last rank (20 bytes, tag 4). Prints "inter ok" on rank 0. */

#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2 != 0) {
    fprintf(stderr, "inter_app: needs an even number of ranks, not %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int half = size / 2, upper = rank >= half;
  MPI_Comm local, inter, dup, merged, idup;
  MPI_Comm_split(MPI_COMM_WORLD, upper, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, upper ? 0 : half, 99, &inter);
  int me = 0;
  MPI_Comm_rank(local, &me);

  char buf[64] = {0}, back[64] = {0};
  if (!upper)
    MPI_Send(buf, 40 + 4 * me, MPI_BYTE, me, 1, inter);
  else
    MPI_Recv(buf, 64, MPI_BYTE, me, 1, inter, MPI_STATUS_IGNORE);

  MPI_Request req[2];
  MPI_Irecv(back, 64, MPI_BYTE, me, 2, inter, &req[0]);
  MPI_Isend(buf, 8 + me, MPI_BYTE, me, 2, inter, &req[1]);
  /* Through a volatile: MPICH's MPI_STATUSES_IGNORE is a null constant, which GCC reads as an
   * array of size 0 and warns about. */
  MPI_Status *volatile no_statuses = MPI_STATUSES_IGNORE;
  MPI_Waitall(2, req, no_statuses);

  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter);
  if (sum != half) {
    fprintf(stderr, "inter_app: rank %d: inter-communicator Allreduce gave %d\n", rank, sum);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Bcast(buf, 16, MPI_BYTE, upper ? 0 : (me == 0 ? MPI_ROOT : MPI_PROC_NULL), inter);

  MPI_Comm_dup(inter, &dup);
  if (!upper)
    MPI_Send(buf, 12, MPI_BYTE, me, 3, dup);
  else
    MPI_Recv(buf, 64, MPI_BYTE, me, 3, dup, MPI_STATUS_IGNORE);

  MPI_Intercomm_merge(inter, upper, &merged);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);

  MPI_Request r;
  MPI_Comm_idup(merged, &idup, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  if (rank == 0)
    MPI_Send(buf, 20, MPI_BYTE, size - 1, 4, idup);
  else if (rank == size - 1)
    MPI_Recv(buf, 64, MPI_BYTE, 0, 4, idup, MPI_STATUS_IGNORE);

  MPI_Comm_free(&idup);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  if (rank == 0)
    printf("inter ok\n");
  MPI_Finalize();
  return 0;
}
