/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/**
 * @file pnmpi.h
 * @brief The header the original PnMPI gave applications that know about it: MPI, the
 * version (<pnmpi-config.h>), the module API (<pnmpimod.h>) and PnMPI's MPI_Pcontrol
 * constants, under the same names and values.
 *
 * An application needs no pnmpi header to run under pnmpi; this one exists so that a
 * program written for PnMPI builds unchanged. Example: an application that says which
 * pnmpi it was built with.
 * @code
 * #include <pnmpi.h>
 * #include <stdio.h>
 *
 * int main(int argc, char **argv) {
 *   MPI_Init(&argc, &argv);
 *   printf("built with pnmpi %s\n", PNMPI_VERSION);
 *   MPI_Finalize();
 * }
 * @endcode
 *
 * The PNMPI_PCONTROL_* modes are the numbers of `globalpcontrol` modes (the start-up banner
 * prints them). pnmpi takes `off`, `on`, `int` and `typed` (docs/users-guide.md); `pmpi`,
 * `pnmpi` and `mixed` are configuration errors, so an MPI_Pcontrol(PNMPI_PCONTROL_LEVEL, ...)
 * reaches the modules as an ordinary level 3, not as a request addressed to one module. The
 * PNMPI_PCONTROL_TYPE_* names are those of <pnmpi/pnmpi.h>'s pnmpi_pcontrol_type_t (what
 * pnmpi_pcontrol_argument_type() returns), whose values differ from the original's macros.
 */
#ifndef PNMPI_APPLICATION_H
#define PNMPI_APPLICATION_H

#include <mpi.h>
#include <pnmpi-config.h>
#include <pnmpimod.h>

/** The MPI_Pcontrol level the original PnMPI reserved for requests to itself. */
#define PNMPI_PCONTROL_LEVEL 3

/** Flags of such a request (the original's; pnmpi does not interpret them). */
#define PNMPI_PCONTROL_SINGLE 0x0
#define PNMPI_PCONTROL_MULTIPLE 0x1
#define PNMPI_PCONTROL_VARG 0x0
#define PNMPI_PCONTROL_PTR 0x2

/** `globalpcontrol` modes by number. */
#define PNMPI_PCONTROL_PMPI 0
#define PNMPI_PCONTROL_OFF 1
#define PNMPI_PCONTROL_ON 2
#define PNMPI_PCONTROL_PNMPI 3
#define PNMPI_PCONTROL_MIXED 4
#define PNMPI_PCONTROL_INT 5
#define PNMPI_PCONTROL_TYPED 6

/** The mode without a `globalpcontrol` line. */
#define PNMPI_PCONTROL_DEFAULT PNMPI_PCONTROL_INT

/** The original's generic failure value. */
#define PNMPI_ERROR -1

#endif /* PNMPI_APPLICATION_H */
