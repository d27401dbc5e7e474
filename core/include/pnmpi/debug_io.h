/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/**
 * @file debug_io.h
 * @brief PnMPI's message macros for modules: PNMPI_Debug, PNMPI_Warning and PNMPI_Error.
 *
 * Once MPI is initialised on more than one rank, each message starts with the rank
 * (right-aligned to the width of the highest rank, then `: `). Example:
 * @code
 * #define PNMPI_MESSAGE_PREFIX "mytool"   // before the first pnmpi header; default "PnMPI"
 * #include <pnmpi/debug_io.h>
 *
 * PNMPI_Debug(PNMPI_DEBUG_MODULE, "loaded with %d buffers\n", n); // [mytool] loaded ...
 * PNMPI_Warning("buffer %d is full\n", i);                        // to stderr
 * PNMPI_Error("cannot open %s\n", path);  // [mytool] function:line: ..., then ends the job
 * @endcode
 */
#ifndef PNMPI_DEBUG_IO_H
#define PNMPI_DEBUG_IO_H

#include <pnmpi/attributes.h>
#include <pnmpi/pnmpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Debug message classes: PNMPI_DBGLEVEL holds the sum of the classes to print. */
typedef enum pnmpi_debug_level {
  PNMPI_DEBUG_INIT = 1 << 0,   /**< start-up, before MPI is initialised (every rank prints) */
  PNMPI_DEBUG_MODULE = 1 << 1, /**< modules: loading, hooks, settings */
  PNMPI_DEBUG_CALL = 1 << 2    /**< entry to and exit from MPI calls */
} PNMPI_debug_level_t;

/** The word in square brackets that starts every message of the macros below. Define it
 * before including any pnmpi header to name the module instead. */
#ifndef PNMPI_MESSAGE_PREFIX
#define PNMPI_MESSAGE_PREFIX "PnMPI"
#endif

/** PNMPI_Debug(level, format, ...): to stdout when PNMPI_DBGLEVEL includes `level` and,
 * if PNMPI_DBGNODE is set, on that rank only. Defining PNMPI_NO_DEBUG compiles it out. */
#ifndef PNMPI_NO_DEBUG
#define PNMPI_Debug(level, ...) pnmpi_print_debug(level, "[" PNMPI_MESSAGE_PREFIX "] " __VA_ARGS__)
#else
#define PNMPI_Debug(...)
#endif

/** PNMPI_Warning(format, ...): to stderr, on every rank. */
#define PNMPI_Warning(...) pnmpi_print_warning("[" PNMPI_MESSAGE_PREFIX "] " __VA_ARGS__)

/** PNMPI_Error(format, ...): `[PREFIX] function:line: message` to stderr, then ends the
 * whole job (MPI_Abort while MPI runs, else exit(EXIT_FAILURE)). */
#define PNMPI_Error(...) pnmpi_print_error(PNMPI_MESSAGE_PREFIX, __func__, __LINE__, __VA_ARGS__);

/** What PNMPI_Debug calls. */
PNMPI_EXPORT PNMPI_FUNCTION_PRINTF(2, 3)
    PNMPI_FUNCTION_ARG_NONNULL(2) void pnmpi_print_debug(PNMPI_debug_level_t level,
                                                         const char *format, ...);

/** What PNMPI_Warning calls. */
PNMPI_EXPORT PNMPI_FUNCTION_PRINTF(1, 2)
    PNMPI_FUNCTION_ARG_NONNULL(1) void pnmpi_print_warning(const char *format, ...);

/** What PNMPI_Error calls. */
PNMPI_EXPORT PNMPI_FUNCTION_PRINTF(4, 5) PNMPI_FUNCTION_ARG_NONNULL(1, 2, 4) PNMPI_FUNCTION_NORETURN
    void pnmpi_print_error(const char *prefix, const char *function, int line, const char *format,
                           ...);

#ifdef __cplusplus
}
#endif

#endif /* PNMPI_DEBUG_IO_H */
