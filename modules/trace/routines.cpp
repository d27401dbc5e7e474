// SPDX-License-Identifier: BSD-3-Clause
// Copyright (c) 2026 the pnmpi authors

#include "routines.h"

#include <otf2/OTF2_Events.h>

namespace pnmpi::trace {

const RoutineInfo kRoutines[kRoutineCount] = {
#define PNMPI_TRACE_INFO_PLAIN(name, cls) {"MPI_" #name, cls, kNotCollective, 0},
#define PNMPI_TRACE_INFO_P2P(name, shape) {"MPI_" #name, kClassP2P, kNotCollective, 0},
#define PNMPI_TRACE_INFO_IO(name, kind, side, flags, where)                                        \
  {"MPI_" #name, kClassIo, kNotCollective, 0},
#define PNMPI_TRACE_INFO_COLL(name, kind, op)                                                      \
  {"MPI_" #name, kClassColl, kind, OTF2_COLLECTIVE_OP_##op},
    PNMPI_TRACE_ROUTINES(PNMPI_TRACE_INFO)
#undef PNMPI_TRACE_INFO_PLAIN
#undef PNMPI_TRACE_INFO_P2P
#undef PNMPI_TRACE_INFO_IO
#undef PNMPI_TRACE_INFO_COLL
};

} // namespace pnmpi::trace
