// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "routines.h"

namespace pnmpi::trace {

const RoutineInfo kRoutines[kRoutineCount] = {
#define PNMPI_TRACE_INFO(name, cls) {"MPI_" #name, cls},
    PNMPI_TRACE_ROUTINES(PNMPI_TRACE_INFO)
#undef PNMPI_TRACE_INFO
};

} // namespace pnmpi::trace
