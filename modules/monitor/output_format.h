// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <pnmpi/support.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace pnmpi::monitor {

/// One peer line of Open MPI's monitoring format, TAB-separated:
/// `<type> <me> <peer> <bytes> bytes <count> msgs sent[ <h0,...,h65>]` and a newline.
std::string prof_line(const char *type, int me, int peer, std::uint64_t bytes, std::uint64_t count,
                      const std::uint64_t *histogram);

/// `name` as it may appear in a line of a text output (a .prof file, the summary, an error
/// message), and `text` as a JSON string literal: the support library's
/// (pnmpi_escape_name(), pnmpi_json_string()).
using support::escape_name;
using support::json_string;

/// A communicator's block: `D <name> procs: <world ranks>` then O2A, A2O and A2A lines
/// (`name` is escaped with escape_name()).
std::string prof_comm_block(const std::string &name, const std::vector<int> &procs, int me,
                            const std::uint64_t counts[3], const std::uint64_t bytes[3]);

/// Output files written whole or not at all (pnmpi_atomic_open()): write_file_atomically()
/// for a text at once, AtomicFile for output produced piecewise.
using support::AtomicFile;
using support::write_file_atomically;

} // namespace pnmpi::monitor
