/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/**
 * @file attributes.h
 * @brief PnMPI's function attribute macros, for modules that use them in their own
 * declarations. Each expands to nothing on a compiler that lacks the attribute.
 */
#ifndef PNMPI_ATTRIBUTES_H
#define PNMPI_ATTRIBUTES_H

#if defined(__GNUC__) || defined(__clang__)
/** The listed parameters (1-based) must not be NULL. */
#define PNMPI_FUNCTION_ARG_NONNULL(...) __attribute__((nonnull(__VA_ARGS__)))
/** A printf-like function: parameter `format` is the format, `arguments` the first value. */
#define PNMPI_FUNCTION_PRINTF(format, arguments)                                                   \
  __attribute__((__format__(__printf__, format, arguments)))
/** The function does not return. */
#define PNMPI_FUNCTION_NORETURN __attribute__((noreturn))
#else
#define PNMPI_FUNCTION_ARG_NONNULL(...)
#define PNMPI_FUNCTION_PRINTF(format, arguments)
#define PNMPI_FUNCTION_NORETURN
#endif

#endif /* PNMPI_ATTRIBUTES_H */
