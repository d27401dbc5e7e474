/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/**
 * @file const.h
 * @brief PNMPI_CONST: `const` where the MPI's prototypes have it (MPI 3 and later), so
 * that a wrapper written once matches the `const void *buf` of MPI_Send in every MPI.
 */
#ifndef PNMPI_CONST_H
#define PNMPI_CONST_H

#include <mpi.h>

/* Every MPI from version 3 on declares input buffers const (PnMPI tested for exactly 3,
 * which MPI 4 libraries such as MPICH 4 would fail). */
#if MPI_VERSION >= 3
#define PNMPI_CONST const
#else
#define PNMPI_CONST
#endif

#endif /* PNMPI_CONST_H */
