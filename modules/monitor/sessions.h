// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <mpi.h>

namespace pnmpi::monitor {

/// Publishes the "monitor.sessions" service (PNMPI_RegistrationPoint).
void register_sessions_service() noexcept;

/// Closes the sessions environment at MPI_Finalize.
void sessions_at_finalize() noexcept;

/// `comm` is being freed (the monitor's attribute delete callback): its sessions can no
/// longer communicate over it.
void sessions_comm_freed(MPI_Comm comm) noexcept;

/// Heap bytes held by sessions.
unsigned long sessions_bytes() noexcept;

} // namespace pnmpi::monitor
