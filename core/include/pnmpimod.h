/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/**
 * @file pnmpimod.h
 * @brief The header PnMPI modules include: MPI, the module API, XMPI_X, XMPI_X_NewStack and
 * PNMPI_CONST.
 *
 * New modules need only <pnmpi/pnmpi.h> (plus <pnmpi/newstack.h> to route calls into
 * another stack).
 */
#ifndef PNMPI_PNMPIMOD_COMPAT_H
#define PNMPI_PNMPIMOD_COMPAT_H

#include <mpi.h>
#include <pnmpi/const.h>
#include <pnmpi/newstack.h>
#include <pnmpi/pnmpi.h>
#include <pnmpi/xmpi.h>

/* As in PnMPI, <pnmpimod.h> and <pnmpi.h> include each other's content: the application
 * header's constants and <pnmpi-config.h> come with it. */
#include <pnmpi.h>

/** PnMPI's error codes for a module's MPI wrapper that fails in pnmpi's services. */
#define MPI_ERROR_MEM MPI_ERR_INTERN
#define MPI_ERROR_PNMPI MPI_ERR_INTERN

/** PnMPI's names for the registration hook, as a string (for dlsym-style lookups). */
#define PNMPI_REGISTRATION_POINT "PNMPI_RegistrationPoint"

/** PnMPI's limits, for modules that size buffers with them: a module file's path, a
 * registered module name, the number of modules. */
#define PNMPI_MODULE_FILENAMELEN 512
#define PNMPI_MODULE_USERNAMELEN 256
#define PNMPI_MAX_MOD 100000

#endif /* PNMPI_PNMPIMOD_COMPAT_H */
