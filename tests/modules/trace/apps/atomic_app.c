/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* One of each atomic RMA operation from every rank to rank 0's window, in one fence epoch:
 * MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap (in that order).
 * The trace must write each with its OTF2 atomic type. */

#include <mpi.h>
#include <stddef.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long *cell = NULL, one = 1, got = 0, compare = 0;
  MPI_Win win;
  MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &cell, &win);
  for (int i = 0; i < 4; ++i)
    cell[i] = 0;
  MPI_Win_fence(0, win);
  MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
  MPI_Get_accumulate(&one, 1, MPI_LONG, &got, 1, MPI_LONG, 0, 1, 1, MPI_LONG, MPI_SUM, win);
  MPI_Fetch_and_op(&one, &got, MPI_LONG, 0, 2, MPI_SUM, win);
  MPI_Compare_and_swap(&one, &compare, &got, MPI_LONG, 0, 3, win);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
