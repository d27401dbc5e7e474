// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "elf_image.h"

namespace pnmpi {

/// Whether the shared object at `path` is one of the MPI's own language bindings: Open MPI's
/// `libmpi_mpifh`, `libmpi_usempif08`, `libmpi_usempi_ignore_tkr`, `libmpi_usempi`, MPICH's
/// `libmpichfort` or `libmpifort` (any version suffix).
bool is_language_binding(std::string_view path);

/// Whether routine `name` converts a handle or a status between languages (`MPI_Comm_f2c`,
/// `MPI_Status_c2f08`, ...). Bindings call these as part of every call; the application did
/// not, so they go straight to MPI.
bool is_language_conversion(std::string_view name);

/// Where each routine's calls from a language binding go: conversions to `mpi[id]`, every
/// other routine to `entry[id]` (pnmpi's own MPI_X, the top of the chain).
std::vector<std::uintptr_t> binding_targets(const char *const *names, unsigned count,
                                            const std::vector<std::uintptr_t> &entry,
                                            const std::vector<std::uintptr_t> &mpi);

/// One language binding whose calls now enter the chain.
struct RedirectedBinding {
  std::string path;
  std::size_t sites;       ///< call sites bound
  std::size_t conversions; ///< of which handle and status conversions, bound to MPI
};

/// Binds the calls every MPI language binding loaded in this process makes to MPI routines
/// (`PMPI_X`, `MPI_X`) to `targets[X]` (see binding_targets; `names` as there), so that an
/// application's Fortran call enters the chain exactly as the C call would, and MPI itself does
/// every argument conversion. Each object is bound once; later calls bind only bindings loaded
/// since. Returns those bound by this call. Throws pnmpi::Error naming the file.
std::vector<RedirectedBinding>
redirect_language_bindings(const RoutineIndex &routines, const char *const *names,
                           const std::vector<std::uintptr_t> &targets);

} // namespace pnmpi
