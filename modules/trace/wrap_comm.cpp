// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// Inter-communicators and MPI_Comm_idup. Like the other communicator makers (wrap_rma.cpp)
// they register what they make whether or not their class is traced. An inter-communicator
// is registered with both of its groups (trace.cpp's register_comm), so that its messages and
// collectives name their peers in the remote group. MPI_Comm_idup's new handle is valid only
// once the operation completes: the request is noted, and the Wait/Test that completes it
// registers the communicator.

#include "trace.h"

using namespace pnmpi::trace;

namespace {

bool active() noexcept {
  return g.active.load(std::memory_order_relaxed);
}

} // namespace

extern "C" {

PNMPI_EXPORT int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                      int remote_leader, int tag, MPI_Comm *newintercomm) {
  if (!active())
    return PMPI_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag,
                                 newintercomm);
  const std::uint64_t t0 = now();
  const int rc =
      PMPI_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm);
  const std::uint64_t t1 = now();
  if (rc == MPI_SUCCESS)
    register_comm(*newintercomm, t1);
  if (g.enabled[r_Intercomm_create])
    call_record(r_Intercomm_create, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm) {
  if (!active())
    return PMPI_Intercomm_merge(intercomm, high, newintracomm);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Intercomm_merge(intercomm, high, newintracomm);
  const std::uint64_t t1 = now();
  if (rc == MPI_SUCCESS)
    register_comm(*newintracomm, t1);
  if (g.enabled[r_Intercomm_merge])
    call_record(r_Intercomm_merge, t0, t1);
  return rc;
}

PNMPI_EXPORT int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request) {
  if (!active())
    return PMPI_Comm_idup(comm, newcomm, request);
  const std::uint64_t t0 = now();
  const int rc = PMPI_Comm_idup(comm, newcomm, request);
  const std::uint64_t t1 = now();
  if (rc == MPI_SUCCESS) {
    // MPI keeps *newcomm valid until the request completes: its address is what is noted.
    Pending p;
    p.kind = kPendingCommIdup;
    p.object = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(newcomm));
    p.routine = r_Comm_idup;
    remember(*request, p);
  }
  if (g.enabled[r_Comm_idup])
    call_record(r_Comm_idup, t0, t1);
  return rc;
}

} // extern "C"
