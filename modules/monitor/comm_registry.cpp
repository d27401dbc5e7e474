// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Which communicators are alive, as the monitor saw them made and freed (monitor.h,
// known_comm). MPI_T_pvar_handle_alloc and MPI_M_start are given a communicator by the
// application; a freed one, a datatype or garbage passed to any PMPI_Comm_* call crashes
// (Open MPI reads it as an object, MPICH calls the fatal error handler). They look the handle
// up here first and refuse what is not a live communicator.
//
// The communicators the monitor knows: MPI_COMM_WORLD and MPI_COMM_SELF, every one made by
// the calls wrapped below (those of the layers above the monitor and of the application),
// and every one the monitor has met in a call (its CommInfo, erased when MPI frees it).
// Making a communicator is rare: a mutex and a set are enough.

#include <mutex>
#include <unordered_set>

#include "monitor.h"

namespace pnmpi::monitor {

namespace {

std::mutex g_registry_lock;
std::unordered_set<std::uintptr_t> g_made; ///< handle keys of live communicators made

void note_made(MPI_Comm comm) noexcept {
  if (comm == MPI_COMM_NULL)
    return;
  try {
    std::lock_guard<std::mutex> guard(g_registry_lock);
    g_made.insert(handle_key(comm));
  } catch (...) {
    // Out of memory: the communicator is still known once the application uses it.
  }
}

void note_freed(MPI_Comm comm) noexcept {
  std::lock_guard<std::mutex> guard(g_registry_lock);
  g_made.erase(handle_key(comm));
}

/// Notes `*out` made by a call that returned `rc`; returns rc.
int made(int rc, const MPI_Comm *out) noexcept {
  if (rc == MPI_SUCCESS && out != nullptr)
    note_made(*out);
  return rc;
}

} // namespace

bool known_comm(MPI_Comm comm) noexcept {
  if (comm == MPI_COMM_NULL || g.world_size == 0)
    return false;
  const std::uintptr_t key = handle_key(comm);
  if (comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF || g.comms.find(key) != nullptr)
    return true;
  std::lock_guard<std::mutex> guard(g_registry_lock);
  return g_made.count(key) != 0;
}

} // namespace pnmpi::monitor

using pnmpi::monitor::made;
using pnmpi::monitor::note_freed;

extern "C" {

PNMPI_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm) {
  return made(PMPI_Comm_dup(comm, newcomm), newcomm);
}

PNMPI_EXPORT int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm) {
  return made(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

// The new handle is the application's to use once the request completes; noting it now is
// harmless (it is only compared, never passed to MPI, until then).
PNMPI_EXPORT int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) {
  return made(PMPI_Comm_idup(comm, newcomm, request), newcomm);
}

PNMPI_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  return made(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

PNMPI_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                     MPI_Comm *newcomm) {
  return made(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm);
}

PNMPI_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  return made(PMPI_Comm_create(comm, group, newcomm), newcomm);
}

PNMPI_EXPORT int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm) {
  return made(PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}

PNMPI_EXPORT int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                      int remote_leader, int tag, MPI_Comm *newintercomm) {
  return made(
      PMPI_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm),
      newintercomm);
}

PNMPI_EXPORT int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
  return made(PMPI_Intercomm_merge(intercomm, high, newintracomm), newintracomm);
}

PNMPI_EXPORT int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                                 const int periods[], int reorder, MPI_Comm *comm_cart) {
  return made(PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart), comm_cart);
}

PNMPI_EXPORT int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
  return made(PMPI_Cart_sub(comm, remain_dims, newcomm), newcomm);
}

PNMPI_EXPORT int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
                                  const int edges[], int reorder, MPI_Comm *comm_graph) {
  return made(PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph), comm_graph);
}

PNMPI_EXPORT int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                       const int degrees[], const int destinations[],
                                       const int weights[], MPI_Info info, int reorder,
                                       MPI_Comm *comm_dist_graph) {
  return made(PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info,
                                     reorder, comm_dist_graph),
              comm_dist_graph);
}

PNMPI_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree,
                                                const int sources[], const int sourceweights[],
                                                int outdegree, const int destinations[],
                                                const int destweights[], MPI_Info info, int reorder,
                                                MPI_Comm *comm_dist_graph) {
  return made(PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree,
                                              destinations, destweights, info, reorder,
                                              comm_dist_graph),
              comm_dist_graph);
}

PNMPI_EXPORT int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                                 MPI_Comm *newcomm) {
  return made(PMPI_Comm_accept(port_name, info, root, comm, newcomm), newcomm);
}

PNMPI_EXPORT int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                                  MPI_Comm *newcomm) {
  return made(PMPI_Comm_connect(port_name, info, root, comm, newcomm), newcomm);
}

PNMPI_EXPORT int MPI_Comm_join(int fd, MPI_Comm *intercomm) {
  return made(PMPI_Comm_join(fd, intercomm), intercomm);
}

PNMPI_EXPORT int MPI_Comm_get_parent(MPI_Comm *parent) {
  return made(PMPI_Comm_get_parent(parent), parent);
}

PNMPI_EXPORT int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info,
                                int root, MPI_Comm comm, MPI_Comm *intercomm,
                                int array_of_errcodes[]) {
  return made(
      PMPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes),
      intercomm);
}

PNMPI_EXPORT int MPI_Comm_spawn_multiple(int count, char *array_of_commands[],
                                         char **array_of_argv[], const int array_of_maxprocs[],
                                         const MPI_Info array_of_info[], int root, MPI_Comm comm,
                                         MPI_Comm *intercomm, int array_of_errcodes[]) {
  return made(PMPI_Comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs,
                                       array_of_info, root, comm, intercomm, array_of_errcodes),
              intercomm);
}

#if MPI_VERSION >= 4
PNMPI_EXPORT int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                                         MPI_Request *request) {
  return made(PMPI_Comm_idup_with_info(comm, info, newcomm, request), newcomm);
}

PNMPI_EXPORT int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                            MPI_Errhandler errhandler, MPI_Comm *newcomm) {
  return made(PMPI_Comm_create_from_group(group, stringtag, info, errhandler, newcomm), newcomm);
}

PNMPI_EXPORT int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                                  MPI_Group remote_group, int remote_leader,
                                                  const char *stringtag, MPI_Info info,
                                                  MPI_Errhandler errhandler,
                                                  MPI_Comm *newintercomm) {
  return made(PMPI_Intercomm_create_from_groups(local_group, local_leader, remote_group,
                                                remote_leader, stringtag, info, errhandler,
                                                newintercomm),
              newintercomm);
}
#endif

PNMPI_EXPORT int MPI_Comm_free(MPI_Comm *comm) {
  if (comm != nullptr)
    note_freed(*comm);
  return PMPI_Comm_free(comm);
}

PNMPI_EXPORT int MPI_Comm_disconnect(MPI_Comm *comm) {
  if (comm != nullptr)
    note_freed(*comm);
  return PMPI_Comm_disconnect(comm);
}

} // extern "C"
