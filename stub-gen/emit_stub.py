# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi_stub.c: the MPI_X entry points of libpnmpi.so.

Each stub tests one bit and then tail-calls either the first module wrapping X or
PMPI_X: no frame of its own stays on the stack, so a tool's call-site attribution is
unchanged when no module wraps X, and both paths cost a jump. On the wrapped path it first
notes X as the routine the application entered through (pnmpi_note_entry, one store), which
is how a module tells the application's calls from those of the modules above it. Routines
with `before` work (loading, finalizing) note the entry before that work, on both paths, so
that the modules' hooks run under it.

A module that calls a routine by its public name (MPI_Wtime inside its MPI_Send wrapper, say)
is bound by the core to the routine's nested entry instead: the same chain from the top,
without the note, so the application's entry stays what the application entered.

Until the core is loaded every routine's bit is set and its head is its pending function,
which asks the core whether MPI was started behind pnmpi's back (a direct PMPI_Init) before
passing the call to MPI: a run never goes on silently without the configured modules. The
core's load replaces the mask and the heads, so afterwards no call reaches a pending
function.
"""

import emit_common as c


def emit_routine(routine, nested=False):
    note = [] if nested else ["pnmpi_note_entry(%s);" % routine.id_name]
    body, wrapped = [], []
    if routine.before:
        body = ["  " + n for n in note] + ["  %s();" % f for f in routine.before]
    else:
        wrapped = ["    " + n for n in note]
    wrapped += c.returning_call(routine, c.cast_call(routine, "pnmpi_head[%s]" % routine.id_name),
                                routine.arg_names(), "    ")
    body.append("  if (pnmpi_routine_wrapped(%s))%s" % (routine.id_name,
                                                          " {" if len(wrapped) > 1 else ""))
    body += wrapped
    if len(wrapped) > 1:
        body.append("  }")
    body += c.returning_call(routine, routine.pmpi_name, routine.arg_names())
    if nested:
        return c.function("static ", routine, nested_name(routine), body)
    return c.function("PNMPI_EXPORT ", routine, routine.name, body)


def nested_name(routine):
    return "pnmpi_nested_" + routine.name


def pending_name(routine):
    return "pnmpi_pending_" + routine.name


def emit_pending(routine):
    body = ["  pnmpi_core_pending(%s);" % routine.id_name]
    body += c.returning_call(routine, routine.pmpi_name, routine.arg_names())
    return c.function("static ", routine, pending_name(routine), body)


def emit_initial_tables(api):
    stubbed = [r for r in api.routines if not r.manual]
    words = (len(api.routines) + 63) // 64
    out = ["\n/* Until pnmpi_core_load() publishes the chains, every routine takes its pending path. */\n",
           "PNMPI_INTERNAL uint64_t pnmpi_mask[PNMPI_MASK_WORDS] = {\n"]
    out += ["  UINT64_MAX,\n"] * words
    out.append("};\n\nPNMPI_INTERNAL pnmpi_fn_any pnmpi_head[PNMPI_NUM_ROUTINES] = {\n")
    out += ["  [%s] = (pnmpi_fn_any)&%s,\n" % (r.id_name, pending_name(r)) for r in stubbed]
    out.append("};\n\nconst pnmpi_fn_any pnmpi_nested_table[PNMPI_NUM_ROUTINES] = {\n")
    out += ["  [%s] = (pnmpi_fn_any)&%s,\n" % (r.id_name, r.name if r.manual else nested_name(r))
            for r in api.routines]
    out.append("};\n")
    return out


def emit(api):
    before = sorted({f for r in api.routines if not r.manual for f in r.before})
    out = [c.c_banner(api, "pnmpi_stub.c: the MPI_ entry points of libpnmpi.so."), "\n",
           c.DEPRECATED_PRAGMA, "\n",
           "#include <mpi.h>\n#include <stdint.h>\n\n#include \"dispatch.h\"\n#include \"pnmpi_routine_types.h\"\n"]
    if before:
        out.append("\n/* The `before` calls of exceptions.txt. */\n")
        out += ["PNMPI_INTERNAL void %s(void);\n" % f for f in before]
    for r in api.routines:
        if not r.manual:
            out += ["\n", emit_pending(r), "\n", emit_routine(r, nested=True), "\n",
                    emit_routine(r)]
    out += emit_initial_tables(api)
    return {"pnmpi_stub.c": "".join(out)}
