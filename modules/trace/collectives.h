// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// Persistent collectives (MPI 4 MPI_X_init): what their init calls noted, for the
// MPI_Start/MPI_Startall of wrap_p2p.cpp to record each start as a nonblocking collective.

#include "trace.h"

namespace pnmpi::trace {

/// Records, for every persistent collective request among `requests`, the start of a
/// nonblocking collective (a request with a new id, at time t, by routine r); the Wait or
/// Test that completes the request records the collective.
void start_persistent_collectives(Routine r, int count, const MPI_Request *requests,
                                  std::uint64_t t) noexcept;

/// Forgets a persistent collective request freed with MPI_Request_free.
void forget_persistent_collective(MPI_Request request) noexcept;

} // namespace pnmpi::trace
