// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors
#pragma once

#include <string>
#include <string_view>

namespace pnmpi {

/// The PNMPI_DEBUG level (0 when unset): 1 names the config and sums up the load, 2 adds
/// every layer and its file, 3 the link stack of every wrapped routine, 4 the bound call
/// sites of every layer. A value that is not a whole number from 0 up is reported once, as
/// a warning, and read as 0.
int debug_level();

/// Prints `pnmpi[debug]: message` when PNMPI_DEBUG >= level.
void debug(int level, const std::string &message);

/// Prints `pnmpi: message` to stderr, in one write so ranks do not interleave.
void print_error(const std::string &message);

/// What ends the whole job after a fatal error, beyond this process: libpnmpi installs one
/// that aborts the MPI job (abort_job.cpp), so that no launcher waits for a rank that is
/// gone. It must not return when it succeeds; if it returns, the process exits alone.
using JobEnder = void (*)();
void set_job_ender(JobEnder ender);

/// Prints the error, then ends the job (set_job_ender) or, failing that, the process with
/// status 1 without running exit handlers (modules may be half loaded). Used where the job
/// cannot go on.
[[noreturn]] void fatal(const std::string &message);

/// Ends the job as fatal() does, without printing (the message is out already).
[[noreturn]] void end_job();

/// `token` as a message shows it: whole when it is at most 200 bytes long, else its start
/// and its end around `...(N bytes)...`, 200 bytes in all (never a UTF-8 character cut), so
/// that a huge name or path cannot make huge messages. The one shortener of the core,
/// pnmpi-run and pnmpi-info; where() applies it to every FILE of a `FILE:LINE`.
std::string shown(std::string_view token);

} // namespace pnmpi
