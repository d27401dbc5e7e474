// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

namespace pnmpi::monitor {

/// Publishes the "monitor.sessions" service (PNMPI_RegistrationPoint).
void register_sessions_service() noexcept;

/// Closes the sessions environment at MPI_Finalize.
void sessions_at_finalize() noexcept;

/// Heap bytes held by sessions.
unsigned long sessions_bytes() noexcept;

} // namespace pnmpi::monitor
