/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* A ring in MPI_COMM_WORLD ranks, whose traffic says who sent it: rank r sends 100*(r+1)
 * bytes to rank r+1 (mod size) with tag 100 + its launch slot (the launcher's rank, from
 * the environment). Tools below and above the place module must record this traffic in
 * physical and application ranks respectively. Prints `ring RANK SLOT GOT_BYTES FROM TAG`.
 * With the argument `thread`, MPI starts with MPI_Init_thread(MPI_THREAD_MULTIPLE). */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "thread") == 0) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *env = getenv("OMPI_COMM_WORLD_RANK");
  if (env == NULL)
    env = getenv("PMI_RANK");
  const int slot = env != NULL ? atoi(env) : -1;
  static char out[100 * 64], in[100 * 64];
  if (size > 64)
    MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Status st;
  MPI_Send(out, 100 * (rank + 1), MPI_BYTE, (rank + 1) % size, 100 + slot, MPI_COMM_WORLD);
  MPI_Recv(in, sizeof in, MPI_BYTE, (rank + size - 1) % size, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  int got = 0;
  MPI_Get_count(&st, MPI_BYTE, &got);
  printf("ring %d %d %d %d %d\n", rank, slot, got, st.MPI_SOURCE, st.MPI_TAG);
  MPI_Finalize();
  return 0;
}
