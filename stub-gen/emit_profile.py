# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""profile_wrappers.c: the profile module's wrapper of every routine (modules/profile).

Each wrapper notes whether the application made the call, reads the tick counter around
the call it passes on, and adds the duration and the bytes of its (count, datatype)
parameters to the calling thread's counters (modules/profile/profile.h). What differs
per routine is data: stub-gen/profile.txt."""

import os

import emit_common as c
from directives import read_blocks
from model import StubGenError

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "profile.txt")

INTRO = """\
/* The profile module's wrappers: time, calls and bytes per routine (docs/record.md). The
 * counting is in modules/profile/profile.h; what differs per routine is data in
 * stub-gen/profile.txt. */
"""

INCLUDES = """\
#include <mpi.h>
#include <pnmpi/pnmpi.h>
#include <pnmpi_routine_ids.h>

#include "profile.h"
"""

COUNT_TYPES = ("int", "MPI_Count")
DIRECTIVES = ("before", "after", "bytes", "reason")


class Entry:
    def __init__(self, routine, line):
        self.routine, self.line = routine, line
        self.before, self.after, self.bytes, self.reason = [], [], None, ""


def parse_data(text, path):
    """Parses profile.txt (format documented at the top of that file): entries by routine."""

    def apply(entry, keyword, rest, fail):
        if keyword == "bytes":
            words = rest.split()
            if words != ["none"] and len(words) != 2:
                raise fail("'bytes' needs COUNT TYPE or none")
            entry.bytes = words
        else:
            getattr(entry, keyword).append(rest)

    entries = read_blocks(text, path, DIRECTIVES, Entry, apply)
    return {e.routine: e for e in entries}


def param_type(p):
    """The type of a scalar parameter (`int count` -> `int`), None for arrays."""
    if "[" in p.decl or not p.decl.endswith(p.name):
        return None
    return p.decl[:-len(p.name)].strip()


def pairs(routine):
    """[(buffer name or None, count name, datatype name)] of scalar (count, datatype)."""
    out = []
    ps = routine.params
    for k in range(len(ps) - 1):
        if (param_type(ps[k]) in COUNT_TYPES and "count" in ps[k].name
                and param_type(ps[k + 1]) == "MPI_Datatype" and ps[k + 1].name != "oldtype"):
            buf = ps[k - 1].name if k > 0 and "void *" in ps[k - 1].decl else None
            out.append((buf, ps[k].name, ps[k + 1].name))
    return out


def comm_arg(routine):
    """The routine's first communicator parameter, for the split by communicator size."""
    for p in routine.params:
        if param_type(p) == "MPI_Comm":
            return p.name
    return "MPI_COMM_NULL"


def bytes_expr(routine, entry):
    if entry is not None and entry.bytes is not None:
        if entry.bytes == ["none"]:
            return "0"
        names = routine.arg_names()
        for n in entry.bytes:
            if n not in names:
                raise StubGenError("%s:%d: routine %s has no parameter %s"
                                   % (DATA, entry.line, routine.name, n))
        return "profile_volume(%s, %s)" % tuple(entry.bytes)
    ps = pairs(routine)
    if not ps:
        return "0"
    first = "profile_volume(%s, %s)" % ps[0][1:]
    if ps[0][0] == "sendbuf" and len(ps) > 1:
        return "(sendbuf == MPI_IN_PLACE ? profile_volume(%s, %s) : %s)" % (ps[1][1], ps[1][2],
                                                                           first)
    return first


def emit_routine(routine, entry):
    body = []
    if entry is not None:
        body += ["  %s;" % b for b in entry.before]
    body.append("  const int pnmpi_app = profile_from_application(%s);" % routine.id_name)
    body.append("  const uint64_t pnmpi_t0 = pnmpi_ticks();")
    call = c.wrap("  " + ("" if routine.returns_void else
                          c.declarator(routine.return_type, "pnmpi_rc") + " = ")
                  + routine.pmpi_name + "(", routine.arg_names(), ");", "  ")
    body.append(call)
    body.append("  const uint64_t pnmpi_t1 = pnmpi_ticks();")
    body.append(c.wrap("  const uint64_t pnmpi_bytes = ", [bytes_expr(routine, entry)], ";", "  "))
    body.append(c.wrap("  profile_count(", [routine.id_name, "pnmpi_app", "pnmpi_t1 - pnmpi_t0",
                                            "pnmpi_bytes"], ");", "  "))
    body.append("  if (__builtin_expect(profile_split_on, 0))")
    body.append(c.wrap("    profile_split(", [routine.id_name, "pnmpi_app", "pnmpi_t1 - pnmpi_t0",
                                              "pnmpi_bytes", comm_arg(routine)], ");", "    "))
    if entry is not None:
        body += ["  %s;" % a for a in entry.after]
    body.append("  return;" if routine.returns_void else "  return pnmpi_rc;")
    return c.function("PNMPI_EXPORT ", routine, routine.name, body)


def emit(api):
    with open(DATA, encoding="utf-8") as f:
        entries = parse_data(f.read(), DATA)
    about = "profile_wrappers.c: the profile module's wrappers (%d routines)." % len(api.routines)
    out = [c.c_banner(api, about), "\n", INTRO, "\n", c.DEPRECATED_PRAGMA, "\n", INCLUDES]
    names = []
    for r in api.routines:
        out += ["\n", emit_routine(r, entries.get(r.name))]
        names.append(r.name)
    out.append("\nconst char *const profile_routine_names[PNMPI_NUM_ROUTINES] = {\n")
    out += ["    \"%s\",\n" % n for n in names]
    out.append("};\n")
    return {"profile_wrappers.c": "".join(out)}
