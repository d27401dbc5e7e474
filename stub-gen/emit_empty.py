# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""empty.c: the empty module, which is also the annotated template for module writers.

It wraps every covered routine (manual ones included: a module never knows which
routines the core special-cases) and passes each call on unchanged.
"""

import emit_common as c

INTRO = """\
/* The empty module wraps every MPI routine and passes each call on unchanged. It is the
 * file to copy when you start a module: keep the wrappers you need (a routine you do not
 * wrap costs your layer nothing) and put your tool's work around the PMPI_ calls.
 *
 * A module is an ordinary PMPI tool
 *   Define MPI_X to intercept routine X and call PMPI_X to pass the call on, exactly as
 *   in any PMPI tool; it can be tested on its own, linked or preloaded without pnmpi.
 *   Build it as a shared object (add_library(<name> MODULE ...) in CMake) against mpi.h.
 *   After the link, pnmpi-patch renames the module's imported PMPI_X symbols to XMPI_X.
 *   pnmpi's core defines every XMPI_X and sends the call to the next layer of the stack
 *   the configuration builds: the next module that wraps X, or the MPI library itself
 *   after the last one. Existing binary PMPI tools become modules the same way.
 *
 * Rules
 * - Pass a call on with PMPI_X, never with MPI_X: the public name enters the whole chain
 *   again from the top, this module included (recursion, or every layer counting the
 *   call twice). Call MPI_X only for a new call of your own that all layers should see.
 * - Return the next layer's return code untouched, and leave the arguments alone unless
 *   changing the call is the point of the module. Errors are reported by the MPI library
 *   below, through the communicator's error handler, as without pnmpi.
 * - Export every wrapper with PNMPI_EXPORT (from <pnmpi/pnmpi.h>, which also declares the
 *   hooks and services a module may use). Modules are built with hidden
 *   visibility, so a wrapper without it is invisible to pnmpi and never called. Keep all
 *   other functions and globals static: several modules share one process.
 * - Listing the same module k times in the configuration gives k independent layers,
 *   each with its own copy of the module's global variables.
 * - Wrappers may run on several threads at once (MPI_THREAD_MULTIPLE): protect shared
 *   state as any PMPI tool must.
 */
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
    about = "empty.c: the empty pnmpi module (%d routines)." % len(api.routines)
    out = [c.c_banner(api, about), "\n", INTRO, "\n", c.DEPRECATED_PRAGMA, "\n",
           INCLUDES]
    for r in api.routines:
        out += ["\n", emit_routine(r)]
    return {"empty.c": "".join(out)}
