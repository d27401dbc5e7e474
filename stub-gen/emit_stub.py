# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi_stub.c: the MPI_X entry points of libpnmpi.so.

Their shape is written once, in C, in templates/stub_routine.c.in, which explains the fast
path; this file fills it in per routine and adds the initial dispatch tables.

Until the core is loaded every routine's bit is set and its head is its pending function;
the core's load replaces the mask and the heads, so afterwards no call reaches a pending
function.
"""

import functools
import os
import re

import emit_common as c

TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates",
                        "stub_routine.c.in")


@functools.lru_cache(maxsize=None)
def read_template(path=TEMPLATE):
    """The template's sections: {name: [line, ...]}, documentation lines dropped."""
    sections, current = {}, None
    with open(path) as f:
        for line in f.read().splitlines():
            if line.startswith("@@ "):
                current = sections.setdefault(line[3:].strip(), [])
            elif current is not None and not line.startswith("//"):
                current.append(line)
    for name in sections:  # a blank line separates sections in the template, not routines
        while sections[name] and not sections[name][-1].strip():
            sections[name].pop()
    return sections


_DIRECTIVE = re.compile(r"^(\s*)\{\{(define|return|before)(?: (.*))?\}\}$")


def render(section, routine):
    """One section of the template for `routine`, as a block of C."""
    out = []
    for line in section:
        line = line.replace("{{id}}", routine.id_name).replace("{{name}}", routine.name)
        m = _DIRECTIVE.match(line)
        if not m:
            out.append(line)
            continue
        indent, what, arg = m.group(1), m.group(2), m.group(3)
        if what == "define":
            prefix, _, name = arg.rpartition(" ")
            out.append(c.definition(prefix + " ", routine, name))
        elif what == "before":
            out += [indent + "%s();" % f for f in routine.before]
        elif arg == "head":
            callee = c.cast_call(routine, "pnmpi_head[%s]" % routine.id_name)
            out += c.returning_call(routine, callee, routine.arg_names(), indent)
        elif arg == "pmpi":
            out += c.returning_call(routine, routine.pmpi_name, routine.arg_names(), indent)
        else:
            raise ValueError("%s: unknown call {{return %s}}" % (TEMPLATE, arg))
    return "\n".join(out) + "\n"


def emit_routine(routine, sections=None, nested=False):
    sections = sections or read_template()
    if nested:
        return render(sections["nested"], routine)
    return render(sections["entry_before" if routine.before else "entry"], routine)


def nested_name(routine):
    return "pnmpi_nested_" + routine.name


def pending_name(routine):
    return "pnmpi_pending_" + routine.name


def emit_pending(routine, sections=None):
    sections = sections or read_template()
    return render(sections["pending"], routine)


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
    sections = read_template()
    for r in api.routines:
        if not r.manual:
            out += ["\n", emit_pending(r, sections), "\n",
                    emit_routine(r, sections, nested=True), "\n", emit_routine(r, sections)]
    out += emit_initial_tables(api)
    return {"pnmpi_stub.c": "".join(out)}
