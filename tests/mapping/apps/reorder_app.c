/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* MPI_M_reorder on 4 ranks: heavy partners r <-> r + 2 (4000 bytes), a light ring (40
 * bytes). Rank 0 prints every return code and the new rank of each world rank; the traffic
 * of an iteration on the new communicator, as the session sees it in world ranks, shows what
 * stays inside the declared hosts. */

#include <MPI_Monitoring.h>
#include <mpi.h>
#include <stdio.h>

static int out[1000], in[1000];

static void iteration(MPI_Comm comm) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  const int partner = (rank + n / 2) % n;
  MPI_Sendrecv(out, 1000, MPI_INT, partner, 0, in, 1000, MPI_INT, partner, 0, comm,
               MPI_STATUS_IGNORE);
  const int right = (rank + 1) % n, left = (rank + n - 1) % n;
  MPI_Sendrecv(out, 10, MPI_INT, right, 1, in, 10, MPI_INT, left, 1, comm, MPI_STATUS_IGNORE);
}

static void show(const char *what, int rc, const MPI_Comm *newcomm, int host_div) {
  int world_rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int new_rank = -1, ranks[64];
  if (rc == MPI_SUCCESS)
    MPI_Comm_rank(*newcomm, &new_rank);
  MPI_Gather(&new_rank, 1, MPI_INT, ranks, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (world_rank == 0) {
    printf("reorder_app: %s: rc %d, new ranks", what, rc);
    for (int r = 0; r < n; ++r)
      printf(" %d", ranks[r]);
    printf("\n");
  }
  if (rc != MPI_SUCCESS || host_div == 0)
    return;
  /* One iteration on the new communicator, recorded in world ranks. (newcomm is read
   * through a pointer: the caller's MPI_M_reorder argument is evaluated first.) */
  MPI_M_msid s;
  MPI_M_start(MPI_COMM_WORLD, &s);
  iteration(*newcomm);
  MPI_M_suspend(s);
  unsigned long m[64 * 64];
  MPI_M_rootgather_data(s, 0, MPI_M_DATA_IGNORE, m, MPI_M_P2P_ONLY);
  if (world_rank == 0) {
    unsigned long inside = 0, between = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        *(i / host_div == j / host_div ? &inside : &between) += m[i * n + j];
    printf("reorder_app: %s: bytes inside hosts %lu, between %lu\n", what, inside, between);
  }
  MPI_M_free(s);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm newcomm = MPI_COMM_NULL, half;
  MPI_M_init();
  MPI_M_msid id;
  MPI_M_start(MPI_COMM_WORLD, &id);
  iteration(MPI_COMM_WORLD);
  show("active session", MPI_M_reorder(id, MPI_COMM_WORLD, &newcomm), &newcomm, 0);
  MPI_M_suspend(id);
  show("unknown session", MPI_M_reorder(id + 100, MPI_COMM_WORLD, &newcomm), &newcomm, 0);
  MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
  show("communicator of another size", MPI_M_reorder(id, half, &newcomm), &newcomm, 0);
  MPI_Comm_free(&half);
  show("a negative host", MPI_M_reorder_hosts(id, MPI_COMM_WORLD, rank == 3 ? -1 : 0, &newcomm),
       &newcomm, 0);

  /* The launch order as it is: consecutive pairs on a host split every heavy pair. */
  MPI_M_msid base;
  MPI_M_start(MPI_COMM_WORLD, &base);
  iteration(MPI_COMM_WORLD);
  MPI_M_suspend(base);
  show("this machine's hosts", MPI_M_reorder(id, MPI_COMM_WORLD, &newcomm), &newcomm, 0);
  MPI_Comm_free(&newcomm);
  show("hosts of 2 consecutive ranks", MPI_M_reorder_hosts(id, MPI_COMM_WORLD, rank / 2, &newcomm),
       &newcomm, 2);
  MPI_Comm_free(&newcomm);
  show("hosts of 2 alternating ranks",
       MPI_M_reorder_hosts(id, MPI_COMM_WORLD, 7 * (rank % 2), &newcomm), &newcomm, 0);
  MPI_Comm_free(&newcomm);
  MPI_M_free(base);
  MPI_M_free(id);
  MPI_M_finalize();
  MPI_Finalize();
  return 0;
}
