// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pnmpi {

/// The bytes of the regular file at `path`, which may hold at most `max_bytes`: how the core
/// reads every input (configuration, modules, the MPI's language bindings). A FIFO never
/// blocks, a device or directory is refused, a file over the limit is refused before it is
/// read. Throws pnmpi::Error with `what` + ": " + the reason.
std::vector<unsigned char> read_input_file(const std::string &path, std::uint64_t max_bytes,
                                           const std::string &what);

} // namespace pnmpi
