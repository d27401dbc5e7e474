// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

// What the original PnMPI's interface needs from the services (services.cpp) for its
// start-up banner (banner.cpp) and PNMPI_Service_GetReturnAddress.

#include <string>
#include <utility>
#include <vector>

namespace pnmpi {

/// What a layer made known through the services: the name others look it up by, and the
/// services (name, signature) and globals (name, signature character) it published.
struct LayerRegistrations {
  std::string name;
  std::vector<std::pair<std::string, std::string>> services;
  std::vector<std::pair<std::string, char>> globals;
};

/// Layer `layer`'s registrations (the core must be loaded).
LayerRegistrations layer_registrations(int layer);

/// Where the application called the MPI routine whose wrappers are running: the first
/// return address on the call stack outside libpnmpi and the layers' code. PnMPI notes it
/// on every call; pnmpi keeps nothing per call and walks the stack only when asked. From a
/// hook, the application's call of MPI_Init. nullptr when the stack cannot be walked.
void *application_return_address();

/// Prints the start-up banner once, on rank 0, after MPI_Init (banner.cpp): to stdout
/// unless PNMPI_BE_SILENT is set, and as debug output with PNMPI_DEBUG >= 1.
void print_banner();

} // namespace pnmpi
