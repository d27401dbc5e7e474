/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/**
 * @file tls.h
 * @brief The original PnMPI's thread-local storage keyword, for its modules (metrics
 * timing). Every compiler pnmpi builds with has one, so PNMPI_COMPILER_NO_TLS is never set.
 */
#ifndef PNMPI_PRIVATE_TLS_H
#define PNMPI_PRIVATE_TLS_H

#if defined(__cplusplus)
#define pnmpi_compiler_tls_keyword thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define pnmpi_compiler_tls_keyword _Thread_local
#else
#define pnmpi_compiler_tls_keyword __thread
#endif

#endif /* PNMPI_PRIVATE_TLS_H */
