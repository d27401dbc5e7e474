/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */
/** @file
 * The MPI_COMM_WORLD rank of every process of a group or of a communicator's local group,
 * for a module (C and C++, header only, with <mpi.h>: the support library itself makes no
 * MPI call). The calls are PMPI_ ones, so they go through the layers below the
 * module, as every call a module makes does. A process outside MPI_COMM_WORLD (one a spawn
 * or a connect brought in) has no world rank: it gets -1.
 *
 *     static MPI_Group world;                  // after MPI_Init:
 *     PMPI_Comm_group(MPI_COMM_WORLD, &world); // once, then for each communicator:
 *     int n;
 *     PMPI_Comm_size(comm, &n);
 *     int *ranks = malloc(n * sizeof *ranks);
 *     pnmpi_comm_world_ranks(comm, world, n, ranks);
 */
#ifndef PNMPI_WORLD_RANKS_H
#define PNMPI_WORLD_RANKS_H

#include <mpi.h>

#ifdef __cplusplus
#include <vector>
extern "C" {
#endif

/** Fills `world_ranks[i]` with the world rank of rank i of `group`, for i < `n` (at most
 * the group's size); -1 where there is none. `world_group` is MPI_COMM_WORLD's group, or
 * MPI_GROUP_NULL to have it fetched (and freed) here. MPI_SUCCESS or MPI's error; on an
 * error every entry is -1. */
static inline int pnmpi_group_world_ranks(MPI_Group group, MPI_Group world_group, int n,
                                          int *world_ranks) {
  /* Ranks go in chunks from a fixed array: no allocation, and MPI forbids passing the same
   * array as both the ranks to translate and the result. */
  enum { kChunk = 256 };
  int chunk[kChunk];
  int rc = MPI_SUCCESS;
  MPI_Group world = world_group;
  if (world == MPI_GROUP_NULL)
    rc = PMPI_Comm_group(MPI_COMM_WORLD, &world);
  for (int first = 0; first < n && rc == MPI_SUCCESS; first += kChunk) {
    const int m = n - first < kChunk ? n - first : kChunk;
    for (int i = 0; i < m; ++i)
      chunk[i] = first + i;
    rc = PMPI_Group_translate_ranks(group, m, chunk, world, world_ranks + first);
  }
  if (world_group == MPI_GROUP_NULL && world != MPI_GROUP_NULL)
    PMPI_Group_free(&world);
  for (int i = 0; i < n; ++i)
    if (rc != MPI_SUCCESS || world_ranks[i] == MPI_UNDEFINED)
      world_ranks[i] = -1;
  return rc;
}

/** The same for the local group of `comm` (an intercommunicator's too). */
static inline int pnmpi_comm_world_ranks(MPI_Comm comm, MPI_Group world_group, int n,
                                         int *world_ranks) {
  MPI_Group group = MPI_GROUP_NULL;
  int rc = PMPI_Comm_group(comm, &group);
  if (rc == MPI_SUCCESS)
    rc = pnmpi_group_world_ranks(group, world_group, n, world_ranks);
  else
    for (int i = 0; i < n; ++i)
      world_ranks[i] = -1;
  if (group != MPI_GROUP_NULL)
    PMPI_Group_free(&group);
  return rc;
}

#ifdef __cplusplus
}

namespace pnmpi::support {

/** The world ranks of every process of `group` (-1 for none); empty if MPI failed. */
inline std::vector<int> group_world_ranks(MPI_Group group, MPI_Group world_group) {
  int n = 0;
  if (PMPI_Group_size(group, &n) != MPI_SUCCESS || n <= 0)
    return {};
  std::vector<int> ranks(static_cast<std::size_t>(n));
  if (pnmpi_group_world_ranks(group, world_group, n, ranks.data()) != MPI_SUCCESS)
    return {};
  return ranks;
}

/** The world ranks of every process of the local group of `comm`; empty if MPI failed (a
 * communicator always has a process, so empty means failure). */
inline std::vector<int> comm_world_ranks(MPI_Comm comm, MPI_Group world_group) {
  MPI_Group group = MPI_GROUP_NULL;
  if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS)
    return {};
  std::vector<int> ranks;
  try {
    ranks = group_world_ranks(group, world_group);
  } catch (...) {
    PMPI_Group_free(&group);
    throw;
  }
  PMPI_Group_free(&group);
  return ranks;
}

} // namespace pnmpi::support
#endif

#endif /* PNMPI_WORLD_RANKS_H */
