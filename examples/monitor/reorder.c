/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Rank reordering from one monitored iteration, after Figure 1 of the introspection
 * monitoring report, with pnmpi's monitor module answering the MPI_M_ calls.
 *
 *   mpirun -np 4 monitor_reorder          (PNMPI_CONF names a config with `module monitor`)
 *
 * The "application" is iterative: in each iteration, rank i exchanges a lot of data with
 * its partner (i + n/2) % n and a little with i - 1 and i + 1. Processes are placed in
 * blocks of NODE consecutive world ranks per node. The first iteration is monitored; rank 0
 * gathers the byte matrix, computes a mapping that makes heavy partners consecutive, and
 * every process takes its new rank with MPI_Comm_split. The next iteration runs on the new
 * communicator and is monitored too: the share of bytes that stay inside a node rises.
 * (A real application would also move its data to the new ranks here: the report's
 * redistribute_data step; this one keeps no data between iterations.) */

#include <MPI_Monitoring.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NODE 2
#define HEAVY 1000
#define LIGHT 100

#define CHECK_M(call)                                                                              \
  do {                                                                                             \
    const int rc_ = (call);                                                                        \
    if (rc_ != MPI_SUCCESS) {                                                                      \
      fprintf(stderr, "reorder: %s failed with %d\n", #call, rc_);                                 \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                \
    }                                                                                              \
  } while (0)

static int buffer_out[HEAVY], buffer_in[HEAVY];

static void exchange(MPI_Comm comm, int peer, int count) {
  MPI_Sendrecv(buffer_out, count, MPI_INT, peer, 0, buffer_in, count, MPI_INT, peer, 0, comm,
               MPI_STATUS_IGNORE);
}

static void compute_iteration(int iteration, MPI_Comm comm) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  buffer_out[0] = iteration;
  exchange(comm, (rank + n / 2) % n, HEAVY);
  /* Even ranks first to the right, odd ranks first to the left: no deadlock. */
  const int right = (rank + 1) % n, left = (rank + n - 1) % n;
  for (int step = 0; step < 2; ++step)
    exchange(comm, (rank % 2 == 0) == (step == 0) ? right : left, LIGHT);
}

/* Greedy mapping: a chain that always continues with the unplaced process exchanging the
 * most bytes with the last one; the process on processing unit p (original rank p) takes
 * role order[p], so consecutive roles in the chain land on neighbouring units. */
static void compute_mapping(const unsigned long *bytes, int n, int *k) {
  int *placed = calloc((size_t)n, sizeof *placed);
  int pos = 0;
  while (pos < n) {
    int current = 0;
    while (placed[current])
      ++current;
    placed[current] = 1;
    k[pos++] = current;
    while (pos < n) {
      int best = -1;
      unsigned long best_bytes = 0;
      for (int j = 0; j < n; ++j) {
        const unsigned long w = bytes[current * n + j] + bytes[j * n + current];
        if (!placed[j] && (best < 0 || w > best_bytes)) {
          best = j;
          best_bytes = w;
        }
      }
      placed[best] = 1;
      k[pos++] = best;
      current = best;
    }
  }
  free(placed);
}

/* Percentage of the bytes exchanged between processes of the same node. */
static int inside_nodes(const unsigned long *bytes, int n) {
  unsigned long inside = 0, total = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      total += bytes[i * n + j];
      if (i / NODE == j / NODE)
        inside += bytes[i * n + j];
    }
  return total == 0 ? 0 : (int)(100.0 * (double)inside / (double)total + 0.5);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm original = MPI_COMM_WORLD, optimized;
  int rank, n;
  MPI_Comm_rank(original, &rank);
  MPI_Comm_size(original, &n);
  unsigned long *size_mat = malloc(sizeof *size_mat * (size_t)n * (size_t)n);
  int *k = malloc(sizeof *k * (size_t)n);

  CHECK_M(MPI_M_init());
  MPI_M_msid id;
  CHECK_M(MPI_M_start(original, &id));
  compute_iteration(1, original);
  CHECK_M(MPI_M_suspend(id));
  CHECK_M(MPI_M_rootgather_data(id, 0, MPI_M_DATA_IGNORE, size_mat, MPI_M_P2P_ONLY));
  int before = 0;
  if (rank == 0) {
    compute_mapping(size_mat, n, k);
    before = inside_nodes(size_mat, n);
  }
  MPI_Bcast(k, n, MPI_INT, 0, original);
  MPI_Comm_split(original, 0, k[rank], &optimized);

  /* The following iterations run on the optimized communicator; the session, bound to the
   * original one, records them in original (placement) ranks. */
  CHECK_M(MPI_M_reset(id));
  CHECK_M(MPI_M_continue(id));
  compute_iteration(2, optimized);
  CHECK_M(MPI_M_suspend(id));
  CHECK_M(MPI_M_rootgather_data(id, 0, MPI_M_DATA_IGNORE, size_mat, MPI_M_P2P_ONLY));
  if (rank == 0) {
    printf("reorder: new rank of each rank:");
    for (int i = 0; i < n; ++i)
      printf(" %d", k[i]);
    printf("\nreorder: bytes inside nodes of %d consecutive ranks: before %d%%, after %d%%\n", NODE,
           before, inside_nodes(size_mat, n));
    fflush(stdout);
  }
  CHECK_M(MPI_M_free(id));
  CHECK_M(MPI_M_finalize());
  MPI_Comm_free(&optimized);
  free(k);
  free(size_mat);
  MPI_Finalize();
  return 0;
}
