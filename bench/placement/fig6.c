/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* The introspection report's Fig. 6 micro-benchmark with MPI_M_reorder. Groups of G
 * consecutive world ranks each run MPI_Allgather of COUNT ints per iteration on their own
 * communicator; the launcher deals the ranks round-robin over the hosts (--map-by node,
 * Hydra's -rr), so every group spans hosts. For each cell (COUNT, N):
 *   t1: N iterations on the groups as launched;
 *   t2: a monitoring session over one iteration, MPI_M_reorder of the world (pnmpi's mapping
 *       library onto the hosts) and the groups split again from the reordered world;
 *   t3: N iterations on the new groups.
 * Each time is the slowest rank's, between barriers. Rank 0 prints one line per cell:
 *   fig6 COUNT N t1 t2 t3 gain_percent new_rank_of_world_rank_0..P-1
 * with gain = 100 (t1 - (t2 + t3)) / t1.
 *
 *   fig6 G REVERSE COUNTS ITERATIONS     (COUNTS, ITERATIONS: comma-separated lists)
 * REVERSE 1 runs the cells in the opposite order (the driver alternates). */

#include <MPI_Monitoring.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_list(const char *s, long *out, int max) {
  for (int n = 0;;) {
    char *end;
    const long v = strtol(s, &end, 10);
    if (end == s || v < 1 || n == max)
      return -1;
    out[n++] = v;
    if (*end == '\0')
      return n;
    if (*end != ',')
      return -1;
    s = end + 1;
  }
}

static double run(MPI_Comm group, const int *send, int *recv, int count, long iterations) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iterations; ++i)
    MPI_Allgather(send, count, MPI_INT, recv, count, MPI_INT, group);
  double t = MPI_Wtime() - t0, slowest = 0;
  MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long counts[16], iters[16];
  int ncounts = argc == 5 ? parse_list(argv[3], counts, 16) : -1;
  int niters = argc == 5 ? parse_list(argv[4], iters, 16) : -1;
  const int g = argc == 5 ? atoi(argv[1]) : 0, reverse = argc == 5 ? atoi(argv[2]) : 0;
  if (ncounts < 1 || niters < 1 || g < 1 || size % g != 0) {
    if (rank == 0)
      fprintf(stderr, "usage: fig6 G REVERSE COUNTS ITERATIONS (G divides the ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (MPI_M_init() != MPI_SUCCESS) {
    if (rank == 0)
      fprintf(stderr, "fig6: MPI_M_init failed: run under pnmpi with module monitor\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long maxcount = 0;
  for (int c = 0; c < ncounts; ++c)
    maxcount = counts[c] > maxcount ? counts[c] : maxcount;
  int *send = calloc((size_t)maxcount, sizeof *send);
  int *recv = calloc((size_t)maxcount * (size_t)g, sizeof *recv);
  int *ranks = malloc(sizeof *ranks * (size_t)size);
  for (int k = 0; k < ncounts * niters; ++k) {
    const int cell = reverse ? ncounts * niters - 1 - k : k;
    const int count = (int)counts[cell / niters];
    const long n = iters[cell % niters];
    MPI_Comm group, world2, group2;
    MPI_Comm_split(MPI_COMM_WORLD, rank / g, rank, &group);
    const double t1 = run(group, send, recv, count, n);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_M_msid id;
    MPI_M_start(MPI_COMM_WORLD, &id);
    MPI_Allgather(send, count, MPI_INT, recv, count, MPI_INT, group);
    MPI_M_suspend(id);
    const int rc = MPI_M_reorder(id, MPI_COMM_WORLD, &world2);
    if (rc != MPI_SUCCESS) {
      fprintf(stderr, "fig6: MPI_M_reorder returned %d\n", rc);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rank2;
    MPI_Comm_rank(world2, &rank2);
    MPI_Comm_split(world2, rank2 / g, rank2, &group2);
    MPI_M_free(id);
    double t = MPI_Wtime() - t0, t2 = 0;
    MPI_Allreduce(&t, &t2, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    const double t3 = run(group2, send, recv, count, n);
    MPI_Gather(&rank2, 1, MPI_INT, ranks, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("fig6 %d %ld %.6f %.6f %.6f %.1f", count, n, t1, t2, t3,
             100.0 * (t1 - (t2 + t3)) / t1);
      for (int r = 0; r < size; ++r)
        printf(" %d", ranks[r]);
      printf("\n");
      fflush(stdout);
    }
    MPI_Comm_free(&group);
    MPI_Comm_free(&group2);
    MPI_Comm_free(&world2);
  }
  free(send);
  free(recv);
  free(ranks);
  MPI_M_finalize();
  MPI_Finalize();
  return 0;
}
