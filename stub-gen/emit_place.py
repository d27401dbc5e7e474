# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""place_wrappers.c: the generated half of the `place` module (modules/place/).

Every routine with a communicator parameter passed by value gets a wrapper that replaces the
handle MPI_COMM_WORLD by the application's renumbered world (place_app_comm(), one compare
and select per communicator parameter) and passes the call on. Routines without such a
parameter are not wrapped, so the module costs them nothing. Routines the module writes by
hand, or must leave on the physical world, are data in stub-gen/place_exceptions.txt.
"""

import emit_common as c
from directives import read_blocks
from model import StubGenError

OUTPUT = "place_wrappers.c"

INTRO = """\
/* The application's world for every routine that takes a communicator: the handle
 * MPI_COMM_WORLD becomes the module's renumbered world (modules/place/place.h); everything
 * else passes on unchanged. Routines listed in stub-gen/place_exceptions.txt are written by
 * hand in modules/place/place.c ('hand') or not wrapped ('physical'). */
"""

INCLUDES = """\
#include <mpi.h>
#include <pnmpi/pnmpi.h>

#include "place.h"
"""

DIRECTIVES = ("hand", "physical", "reason")


class PlaceEntry:
    def __init__(self, routine, line):
        self.routine = routine
        self.line = line
        self.kind = None
        self.reason = ""


def parse_place_exceptions(text, path):
    """Parses place_exceptions.txt (format documented at the top of that file)."""

    def apply(entry, keyword, rest, fail):
        if rest:
            raise fail("'%s' takes no argument, found '%s'" % (keyword, rest))
        if entry.kind is not None:
            raise fail("routine %s is already '%s'" % (entry.routine, entry.kind))
        entry.kind = keyword

    def finish(entry, fail):
        if entry.kind is None:
            raise fail("routine %s: needs 'hand' or 'physical'" % entry.routine)

    return read_blocks(text, path, DIRECTIVES, PlaceEntry, apply, finish)


def param_type(param):
    """The type of a parameter: its declaration without its name."""
    decl = param.decl.strip()
    if decl.endswith(param.name):
        decl = decl[:len(decl) - len(param.name)]
    return " ".join(decl.split())


def comm_params(routine):
    """The names of the communicator parameters passed by value."""
    return [p.name for p in routine.params if param_type(p) == "MPI_Comm"]


def emit_routine(routine):
    comms = set(comm_params(routine))
    args = ["place_app_comm(%s)" % n if n in comms else n for n in routine.arg_names()]
    return c.function("PNMPI_EXPORT ", routine, routine.name,
                      c.returning_call(routine, routine.pmpi_name, args))


def emit(api, entries, path):
    by_name = {e.routine: e for e in entries}
    for e in entries:
        r = api.routine(e.routine)
        if r is not None and not comm_params(r):
            raise StubGenError("%s:%d: routine %s takes no communicator by value: remove it"
                               % (path, e.line, e.routine))
    wrapped, listed = [], []
    for r in api.routines:
        if not comm_params(r):
            continue
        if r.name in by_name:
            listed.append(r)
            continue
        if r.varargs:
            raise StubGenError("%s:%d: routine %s: variadic with a communicator; list it in %s"
                               % (r.header, r.line, r.name, path))
        wrapped.append(r)
    about = ("place_wrappers.c: the place module's wrappers (%d routines with a communicator "
             "parameter; %d more in place.c or left physical)" % (len(wrapped), len(listed)))
    out = [c.c_banner(api, about), "\n", INTRO, "\n", c.DEPRECATED_PRAGMA, "\n", INCLUDES]
    for r in wrapped:
        out += ["\n", emit_routine(r)]
    if listed:
        out += ["\n/* Not generated (stub-gen/place_exceptions.txt):\n"]
        out += [" *   %s: %s\n" % (r.name, by_name[r.name].kind) for r in listed]
        out += [" */\n"]
    return {OUTPUT: "".join(out)}
