// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// <pnmpi/world_ranks.h> under a real MPI job of 2 ranks: the world ranks of communicators
// whose order differs from MPI_COMM_WORLD's, of an intercommunicator's two groups, of part
// of a group, of a process outside the world, and with the world group cached or fetched.
// Each rank prints one line, which the test compares whole.

#include <mpi.h> // the C API only: OMPI_SKIP_MPICXX (CMakeLists.txt)
#include <pnmpi/world_ranks.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

std::string list(const std::vector<int> &v) {
  std::string s;
  for (int x : v)
    s += (s.empty() ? "" : ",") + std::to_string(x);
  return "[" + s + "]";
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);

  // MPI_COMM_WORLD's ranks in reverse order.
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
  std::vector<int> c(static_cast<std::size_t>(size), 77);
  const int rc = pnmpi_comm_world_ranks(reversed, world, size, c.data());
  std::string line = "rank " + std::to_string(rank) + ": reversed " + list(c) + " rc " +
                     std::to_string(rc == MPI_SUCCESS ? 0 : 1);
  // The world group fetched by the helper itself gives the same.
  std::vector<int> fetched(static_cast<std::size_t>(size), 77);
  pnmpi_comm_world_ranks(reversed, MPI_GROUP_NULL, size, fetched.data());
  line += " fetched " + list(fetched);
  // Only the first rank of the group asked for: the rest is left as it was.
  MPI_Group group;
  MPI_Comm_group(reversed, &group);
  std::vector<int> first(2, 77);
  pnmpi_group_world_ranks(group, world, 1, first.data());
  line += " first " + list(first);
  MPI_Group_free(&group);
  // A process outside the group taken as the world (as a spawned one is outside
  // MPI_COMM_WORLD's) gets -1, not MPI_UNDEFINED.
  MPI_Group only0;
  const int zero = 0;
  MPI_Group_incl(world, 1, &zero, &only0);
  std::vector<int> outside(static_cast<std::size_t>(size), 77);
  pnmpi_comm_world_ranks(MPI_COMM_WORLD, only0, size, outside.data());
  line += " outside " + list(outside);
  MPI_Group_free(&only0);
  // The C++ helpers.
  line += " cpp " + list(pnmpi::support::comm_world_ranks(reversed, world));
  line += " self " + list(pnmpi::support::comm_world_ranks(MPI_COMM_SELF, world));
  line += " empty " + list(pnmpi::support::group_world_ranks(MPI_GROUP_EMPTY, world));

  // An intercommunicator between each rank alone and the other one: its local group is the
  // rank itself, its remote group the other rank.
  MPI_Comm alone, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &alone);
  MPI_Intercomm_create(alone, 0, MPI_COMM_WORLD, 1 - rank, 5, &inter);
  MPI_Group remote;
  MPI_Comm_remote_group(inter, &remote);
  line += " inter local " + list(pnmpi::support::comm_world_ranks(inter, world)) + " remote " +
          list(pnmpi::support::group_world_ranks(remote, world));
  MPI_Group_free(&remote);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&alone);
  MPI_Comm_free(&reversed);
  MPI_Group_free(&world);
  // Rank 0 prints every rank's line: MPICH's launcher may join lines that two ranks print
  // at the same time.
  std::vector<char> all(static_cast<std::size_t>(size) * 512, '\0');
  line.resize(512, '\0');
  line[511] = '\0';
  MPI_Gather(line.data(), 512, MPI_CHAR, all.data(), 512, MPI_CHAR, 0, MPI_COMM_WORLD);
  for (int r = 0; rank == 0 && r < size; ++r)
    std::printf("%s\n", &all[static_cast<std::size_t>(r) * 512]);
  MPI_Finalize();
  return 0;
}
