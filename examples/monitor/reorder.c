/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* Rank reordering from one monitored iteration, after Figure 1 of the introspection
 * monitoring report, with pnmpi's monitor module answering the MPI_M_ calls and
 * MPI_M_reorder doing the report's gather, mapping, broadcast and split in one call.
 *
 *   mpirun -np 4 monitor_reorder [--simulate-nodes K]   (PNMPI_CONF: `module monitor`)
 *
 * The "application" is iterative: in each iteration, rank i exchanges a lot of data with
 * its partner (i + n/2) % n and a little with i - 1 and i + 1. The first iteration is
 * monitored; MPI_M_reorder maps the session's matrix onto the hosts the processes run on
 * (pnmpi's mapping library, the placement `module place` computes) and returns the
 * reordered communicator. The next iteration runs on it and is monitored too: the share of
 * bytes that stay inside a host rises. On one machine, --simulate-nodes K declares blocks of
 * K consecutive world ranks to be hosts (MPI_M_reorder_hosts). (A real application would
 * also move its data to the new ranks here: the report's redistribute_data step; this one
 * keeps no data between iterations.) */

#include <MPI_Monitoring.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Percentage of the bytes exchanged between processes of the same host (host[r] of world
 * rank r). */
static int inside_nodes(const unsigned long *bytes, int n, const int *host) {
  unsigned long inside = 0, total = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      total += bytes[i * n + j];
      if (host[i] == host[j])
        inside += bytes[i * n + j];
    }
  return total == 0 ? 0 : (int)(100.0 * (double)inside / (double)total + 0.5);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm original = MPI_COMM_WORLD, optimized;
  int rank, n, simulate = 0;
  MPI_Comm_rank(original, &rank);
  MPI_Comm_size(original, &n);
  if (argc == 3 && strcmp(argv[1], "--simulate-nodes") == 0)
    simulate = atoi(argv[2]);
  unsigned long *size_mat = malloc(sizeof *size_mat * (size_t)n * (size_t)n);
  int *host = malloc(sizeof *host * (size_t)n);

  /* Which host each world rank is on, for the percentages printed at the end. */
  int my_host = simulate > 0 ? rank / simulate : 0;
  if (simulate <= 0) {
    char name[MPI_MAX_PROCESSOR_NAME] = {0}, *names = NULL;
    int len;
    MPI_Get_processor_name(name, &len);
    if (rank == 0)
      names = malloc((size_t)n * MPI_MAX_PROCESSOR_NAME);
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               original);
    if (rank == 0)
      for (int r = 0; r < n; ++r) {
        host[r] = r;
        for (int q = 0; q < r; ++q)
          if (strcmp(names + (size_t)q * MPI_MAX_PROCESSOR_NAME,
                     names + (size_t)r * MPI_MAX_PROCESSOR_NAME) == 0) {
            host[r] = host[q];
            break;
          }
      }
    free(names);
  }
  for (int r = 0; simulate > 0 && r < n; ++r)
    host[r] = r / simulate;

  CHECK_M(MPI_M_init());
  MPI_M_msid id;
  CHECK_M(MPI_M_start(original, &id));
  compute_iteration(1, original);
  CHECK_M(MPI_M_suspend(id));
  CHECK_M(MPI_M_rootgather_data(id, 0, MPI_M_DATA_IGNORE, size_mat, MPI_M_P2P_ONLY));
  const int before = rank == 0 ? inside_nodes(size_mat, n, host) : 0;
  if (simulate > 0)
    CHECK_M(MPI_M_reorder_hosts(id, original, my_host, &optimized));
  else
    CHECK_M(MPI_M_reorder(id, original, &optimized));
  int new_rank;
  MPI_Comm_rank(optimized, &new_rank);
  int *k = malloc(sizeof *k * (size_t)n);
  MPI_Gather(&new_rank, 1, MPI_INT, k, 1, MPI_INT, 0, original);

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
    printf("\nreorder: bytes inside hosts: before %d%%, after %d%%\n", before,
           inside_nodes(size_mat, n, host));
    fflush(stdout);
  }
  CHECK_M(MPI_M_free(id));
  CHECK_M(MPI_M_finalize());
  MPI_Comm_free(&optimized);
  free(k);
  free(host);
  free(size_mat);
  MPI_Finalize();
  return 0;
}
