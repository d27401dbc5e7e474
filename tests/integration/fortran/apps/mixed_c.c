/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The C half of mixed.f90: rank 0 sends its rank to rank 1 with the C bindings. */

#include <mpi.h>

int mixed_c_exchange(int rank) {
  int value = rank;
  if (rank == 0)
    MPI_Send(&value, 1, MPI_INT, 1, 20, MPI_COMM_WORLD);
  else
    MPI_Recv(&value, 1, MPI_INT, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return rank == 1 ? 1 - value : 0;
}
