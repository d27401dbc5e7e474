/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/* What the generated wrappers (BUILD/generated/place_wrappers.c) share with place.c. */
#ifndef PNMPI_PLACE_H
#define PNMPI_PLACE_H

#include <mpi.h>

/* The application's MPI_COMM_WORLD: the physical world renumbered by the placement, made by
 * MPI_Init/MPI_Init_thread before they return. MPI_COMM_WORLD itself until then, so the
 * wrappers need no "ready" test. Written once, by the thread that initialises MPI, before
 * the application can call anything else. */
extern MPI_Comm place_world;

/* The communicator a wrapper passes on: the application's world for MPI_COMM_WORLD, any
 * other one unchanged. One compare and one select. */
static inline MPI_Comm place_app_comm(MPI_Comm comm) {
  return comm == MPI_COMM_WORLD ? place_world : comm;
}

#endif /* PNMPI_PLACE_H */
