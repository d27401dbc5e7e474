// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

// PnMPI's message functions behind <pnmpi/debug_io.h> (PNMPI_Debug, PNMPI_Warning,
// PNMPI_Error), with its environment variables PNMPI_DBGLEVEL and PNMPI_DBGNODE. They use
// stdio, not the core's own stderr writer, because modules print with printf too and the
// two must come out in the order they were made.

#include <pnmpi/debug_io.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mpi.h>
#include <string>

#include "log.h"

namespace {

bool mpi_running() {
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

/// The rank, or -1 while MPI is not running.
int world_rank() {
  int rank = -1;
  if (mpi_running())
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

/// `RANK: ` right-aligned to the width of the highest rank, or nothing when MPI is not
/// running or runs on one rank (PnMPI's layout, which scripts may match).
std::string rank_prefix() {
  if (!mpi_running())
    return "";
  int size = 1, rank = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (size <= 1)
    return "";
  const int width = static_cast<int>(std::to_string(size - 1).size());
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "%*d: ", width, rank);
  return prefix;
}

std::string formatted(const char *format, std::va_list ap) {
  std::va_list copy;
  va_copy(copy, ap);
  const int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (n < 0)
    return format;
  std::string text(static_cast<std::size_t>(n) + 1, '\0');
  std::vsnprintf(text.data(), text.size(), format, ap);
  text.resize(static_cast<std::size_t>(n));
  return text;
}

/// One message, whole, so that ranks sharing a terminal do not cut into each other's lines.
void emit(std::FILE *stream, const std::string &text) {
  const std::string line = rank_prefix() + text;
  std::fwrite(line.data(), 1, line.size(), stream);
  std::fflush(stream);
}

/// An environment variable holding a whole number from 0 up; -1 when unset. A malformed
/// value is reported once and read as `fallback`, so a typo is not silently ignored.
long env_number(const char *name, long fallback) {
  const char *env = std::getenv(name);
  if (env == nullptr || *env == '\0')
    return -1;
  char *end = nullptr;
  const long v = std::strtol(env, &end, 10);
  if (*end != '\0' || v < 0) {
    pnmpi::print_error(std::string("warning: ") + name + " is '" + pnmpi::shown(env) +
                       "', not a whole number from 0 up; it is ignored");
    return fallback;
  }
  return v;
}

bool debug_wanted(PNMPI_debug_level_t level) {
  static const long levels = env_number("PNMPI_DBGLEVEL", 0);
  if (levels <= 0 || (levels & level) == 0)
    return false;
  static const long node = env_number("PNMPI_DBGNODE", -1);
  if (node < 0)
    return true;
  // Before MPI_Init the rank is unknown: every rank prints (as in PnMPI).
  const int rank = world_rank();
  return rank < 0 || rank == node;
}

} // namespace

extern "C" {

void pnmpi_print_debug(PNMPI_debug_level_t level, const char *format, ...) {
  if (!debug_wanted(level))
    return;
  std::va_list ap;
  va_start(ap, format);
  const std::string text = formatted(format, ap);
  va_end(ap);
  emit(stdout, text);
}

void pnmpi_print_warning(const char *format, ...) {
  std::va_list ap;
  va_start(ap, format);
  const std::string text = formatted(format, ap);
  va_end(ap);
  emit(stderr, text);
}

void pnmpi_print_error(const char *prefix, const char *function, int line, const char *format,
                       ...) {
  // The arguments are declared nonnull (<pnmpi/debug_io.h>), as in PnMPI.
  std::string text =
      std::string("[") + prefix + "] " + function + ":" + std::to_string(line) + ": ";
  std::va_list ap;
  va_start(ap, format);
  text += formatted(format, ap);
  va_end(ap);
  emit(stderr, text);
  std::fflush(stdout);
  // The module asked to stop: the whole job, as PnMPI does, not one rank that others
  // would wait for.
  if (mpi_running())
    PMPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
  std::exit(EXIT_FAILURE);
}

} // extern "C"
