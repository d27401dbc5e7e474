/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors */
/* The routine names record_synth's writer needs, from the generated table (the profile
 * module has them from its generated wrappers, which a plain program must not link). */
#define pnmpi_routine_names profile_routine_names
#include "pnmpi_routine_names.c"
