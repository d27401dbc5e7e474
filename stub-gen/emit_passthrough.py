# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""passthrough.c: the generated pass-through module, the yardstick of the benchmarks.

It wraps every covered routine (manual ones included: a module never knows which
routines the core special-cases) and passes each call on unchanged, so one layer of it
costs exactly what a layer costs. It is not the template: module writers copy the
hand-written, commented modules/empty/empty.c.
"""

import emit_common as c

INTRO = """\
/* The passthrough module wraps every MPI routine and passes each call on unchanged: one
 * layer of it is the cost of a layer, which is what bench/ measures. It is generated for
 * the MPI pnmpi was built for and is not meant to be read or copied: start a module from
 * the commented template modules/empty/empty.c (installed as share/pnmpi/template/empty.c),
 * whose opening comment states the rules these wrappers follow (PMPI_X to pass a call on,
 * the return code untouched, PNMPI_EXPORT on every wrapper, hidden visibility). */
"""

INCLUDES = """\
#include <mpi.h>
#include <pnmpi/pnmpi.h>
"""

VARARGS_NOTE = """\
/* Variadic: C cannot pass on a `...` it did not receive as a va_list, so only the named
 * parameters reach the next layer. */
"""


def emit_routine(routine):
    note = VARARGS_NOTE if routine.varargs else ""
    return note + c.function("PNMPI_EXPORT ", routine, routine.name,
                             c.returning_call(routine, routine.pmpi_name, routine.arg_names()))


def emit(api):
    about = "passthrough.c: the pass-through pnmpi module (%d routines)." % len(api.routines)
    out = [c.c_banner(api, about), "\n", INTRO, "\n", c.DEPRECATED_PRAGMA, "\n",
           INCLUDES]
    for r in api.routines:
        out += ["\n", emit_routine(r)]
    return {"passthrough.c": "".join(out)}
