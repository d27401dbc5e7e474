#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi-stubgen: generates pnmpi's per-routine C code from the MPI it is built against.

    pnmpi_stubgen.py --preprocessed mpi.i --library libmpi.so \\
                     --exceptions exceptions.txt [--place-exceptions place_exceptions.txt]
                     --outdir DIR

The preprocessed header is `#include <mpi.h>` run through the MPI's own `mpicc -E`.
A routine is covered when mpi.h declares PMPI_X and the library exports PMPI_X; every
other PMPI_ name seen on either side is listed with a reason in pnmpi_api_report.txt.
Outputs are rewritten only when their content changes, so builds stay incremental.
"""

import argparse
import json
import os
import sys
import tempfile

import elfsyms
import emit_common
import emit_core
import emit_passthrough
import emit_place
import emit_profile
import emit_stub
import parse
from model import Api, Skipped, StubGenError

REPORT = "pnmpi_api_report.txt"
MODEL = "mpi_api.json"


def read_text(path, what):
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError as e:
        raise StubGenError("%s: cannot read %s: %s" % (path, what, e.strerror))


def library_exports(paths, notes):
    """(used libraries, exported PMPI_ names): the libraries that export PMPI_ functions.

    Several libraries may be given (CMake's MPI_C_LIBRARIES): those exporting no PMPI_
    function (libpthread, a linker script) are ignored, with a note.
    """
    used, names = [], set()
    for path in paths:
        try:
            exported = {n for n in elfsyms.exported_functions(path) if parse.ROUTINE_RE.match(n)}
        except elfsyms.ElfError as e:
            if len(paths) == 1:
                raise
            notes.append("library ignored: %s" % e)
            continue
        if exported:
            used.append(path)
            names |= exported
        else:
            notes.append("library ignored: %s exports no PMPI_ function" % path)
    if "PMPI_Init" not in names:
        raise StubGenError("no --library exports PMPI_Init (given: %s)" % ", ".join(paths))
    return used, names


def build_api(header, exported, libraries, entries, exceptions_path):
    """Covered routines (declared AND exported) with ids and exceptions; skips with reasons."""
    libs = ", ".join(os.path.basename(p) for p in libraries)
    skipped = []
    for name in sorted(set(header.routines) - exported):
        r = header.routines[name]
        skipped.append(Skipped(name, "not-exported", "declared at %s:%d but not exported "
                               "by %s" % (r.header, r.line, libs)))
    for name in sorted(exported - set(header.routines)):
        skipped.append(Skipped(name, "not-declared", "exported by %s but not declared in %s "
                               "(an application compiled against this header cannot call it)"
                               % (libs, os.path.basename(header.path))))
    skipped.sort(key=lambda s: s.name)
    routines = [header.routines[n] for n in sorted(set(header.routines) & exported)]
    by_name = {}
    for k, r in enumerate(routines):
        r.id = k
        by_name[r.name] = r
    for e in entries:
        if e.routine in by_name:
            by_name[e.routine].exception = e
    for r in routines:
        if r.varargs and not r.manual:
            raise StubGenError("%s:%d: routine %s: variadic routine cannot be forwarded; it "
                               "needs a 'manual' block in %s"
                               % (r.header, r.line, r.pmpi_name, exceptions_path))
    return Api(header=header.path, libraries=list(libraries), routines=routines,
               skipped=skipped, exceptions=entries, exceptions_file=exceptions_path,
               notes=list(header.notes))


def render_report(api):
    covered = {r.name for r in api.routines}
    out = ["# " + emit_common.banner_text(api), "",
           "MPI header:  %s" % api.header,
           "libraries:   %s" % ", ".join(api.libraries),
           "exceptions:  %s" % api.exceptions_file,
           "covered:     %d routines" % len(api.routines),
           "skipped:     %d" % len(api.skipped),
           "", "Covered routines (id name [exception]):"]
    for r in api.routines:
        tags = (["manual"] if r.manual else []) + ["before %s" % f for f in r.before]
        out.append("  %4d %s%s" % (r.id, r.name, " [%s]" % ", ".join(tags) if tags else ""))
    out += ["", "Skipped (a PMPI_ name seen in only one of header and library):"]
    out += ["  %s: %s" % (s.name, s.reason) for s in api.skipped] or ["  (none)"]
    out += ["", "Exceptions:"]
    for e in api.exceptions:
        what = ("manual" if e.manual else "") + ", ".join("before " + f for f in e.before)
        state = what if e.routine in covered else "not present in this MPI"
        out.append("  %s: %s -- %s" % (e.routine, state, e.reason))
    if api.notes:
        out += ["", "Notes:"] + ["  " + n for n in api.notes]
    return "\n".join(out) + "\n"


def write_if_changed(path, text):
    """Writes atomically, and not at all when the content is unchanged (keeps mtimes)."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return False
    except (OSError, UnicodeDecodeError):
        pass
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".pnmpi-stubgen-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return True


def generate(args):
    text = read_text(args.preprocessed, "the preprocessed mpi.h")
    header = parse.parse_header(text, args.preprocessed)
    entries = parse.parse_exceptions(read_text(args.exceptions, "the exceptions"),
                                     args.exceptions)
    lib_notes = []
    libraries, exported = library_exports(args.library, lib_notes)
    api = build_api(header, exported, libraries, entries, args.exceptions)
    api.notes += lib_notes
    outputs = {}
    for emitter in (emit_core, emit_stub, emit_passthrough, emit_profile):
        outputs.update(emitter.emit(api))
    if args.place_exceptions:
        place = emit_place.parse_place_exceptions(
            read_text(args.place_exceptions, "the place exceptions"), args.place_exceptions)
        outputs.update(emit_place.emit(api, place, args.place_exceptions))
    outputs[MODEL] = json.dumps(api.to_json_dict(emit_common.banner_text(api)), indent=1) + "\n"
    outputs[REPORT] = render_report(api)
    os.makedirs(args.outdir, exist_ok=True)
    for name, content in sorted(outputs.items()):
        write_if_changed(os.path.join(args.outdir, name), content)
    return api


def main(argv=None):
    ap = argparse.ArgumentParser(prog="pnmpi-stubgen", description=__doc__.split("\n")[0])
    ap.add_argument("--preprocessed", required=True, metavar="FILE.i",
                    help="mpi.h preprocessed by the MPI's own compiler wrapper (mpicc -E)")
    ap.add_argument("--library", required=True, action="append", metavar="LIB",
                    help="the MPI library (repeatable; those exporting no PMPI_ are ignored)")
    ap.add_argument("--exceptions", required=True, metavar="FILE",
                    help="routines handled specially (stub-gen/exceptions.txt)")
    ap.add_argument("--place-exceptions", metavar="FILE",
                    help="routines the place module writes by hand or leaves physical "
                         "(stub-gen/place_exceptions.txt); also writes place_wrappers.c")
    ap.add_argument("--outdir", required=True, metavar="DIR", help="where to write the outputs")
    args = ap.parse_args(argv)
    try:
        api = generate(args)
    except StubGenError as e:
        print("pnmpi-stubgen: %s" % e, file=sys.stderr)
        return 1
    print("pnmpi-stubgen: %d routines covered, %d skipped (see %s)"
          % (len(api.routines), len(api.skipped), os.path.join(args.outdir, REPORT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
