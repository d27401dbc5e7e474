/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/**
 * @file hooks.h
 * @brief PnMPI's name for the hooks header: the hooks are declared in <pnmpi/pnmpi.h>.
 */
#ifndef PNMPI_HOOKS_COMPAT_H
#define PNMPI_HOOKS_COMPAT_H

#include <pnmpi/pnmpi.h>

#endif /* PNMPI_HOOKS_COMPAT_H */
