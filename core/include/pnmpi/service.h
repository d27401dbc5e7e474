/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */

/**
 * @file service.h
 * @brief PnMPI's name for the services header: everything is in <pnmpi/pnmpi.h>.
 */
#ifndef PNMPI_SERVICE_COMPAT_H
#define PNMPI_SERVICE_COMPAT_H

#include <pnmpi/pnmpi.h>

#endif /* PNMPI_SERVICE_COMPAT_H */
