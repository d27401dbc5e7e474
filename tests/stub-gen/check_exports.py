#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Checks the symbols of the built libpnmpi.so against the MPI it was generated for.

    check_exports.py --stub build/lib/libpnmpi.so --api-json build/generated/mpi_api.json

(or PNMPI_STUB_LIB / PNMPI_API_JSON in the environment). Fails unless libpnmpi exports
  - MPI_X for every covered routine (mpi_api.json),
  - MPI_X for every PMPI_X the MPI library exports (read again here) and mpi.h declares,
  - XMPI_X and XMPI_X_NewStack for every covered routine (unless --no-xmpi),
and defines no PMPI_ symbol at all: the stub must never shadow the MPI library's PMPI_X.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "stub-gen"))

import elfsyms  # noqa: E402
from model import StubGenError  # noqa: E402


def check(stub, api_path, xmpi=True):
    """The list of problems found (empty when all is well)."""
    with open(api_path) as f:
        api = json.load(f)
    covered = {r["name"] for r in api["routines"]}
    declared = {"P" + n for n in covered} | {s["name"] for s in api["skipped"]
                                             if s["kind"] == "not-exported"}
    library_exports = set()
    for lib in api["libraries"]:
        library_exports |= elfsyms.exported_functions(lib)
    exported = elfsyms.exported_functions(stub)
    defined = {s["name"] for s in elfsyms.dynamic_symbols(stub) if s["defined"]}

    problems = []

    def expect(what, names):
        missing = sorted(names - exported)
        if missing:
            problems.append("%d %s not exported, e.g. %s"
                            % (len(missing), what, ", ".join(missing[:10])))

    expect("covered routines' MPI_X", covered)
    expect("MPI_X of routines that mpi.h declares and the library exports",
           {n[1:] for n in declared & library_exports})
    if xmpi:
        expect("XMPI_X", {"X" + n for n in covered})
        expect("XMPI_X_NewStack", {"X%s_NewStack" % n for n in covered})
    pmpi = sorted(n for n in defined if n.startswith("PMPI_"))
    if pmpi:
        problems.append("%d PMPI_ symbols defined (must come from the MPI library only), "
                        "e.g. %s" % (len(pmpi), ", ".join(pmpi[:10])))
    return problems, len(covered)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stub", default=os.environ.get("PNMPI_STUB_LIB"),
                    help="the built libpnmpi.so (default: $PNMPI_STUB_LIB)")
    ap.add_argument("--api-json", default=os.environ.get("PNMPI_API_JSON"),
                    help="the generated mpi_api.json (default: $PNMPI_API_JSON)")
    ap.add_argument("--no-xmpi", action="store_true", help="do not expect XMPI_ symbols")
    args = ap.parse_args(argv)
    if not args.stub or not args.api_json:
        ap.error("--stub and --api-json (or PNMPI_STUB_LIB and PNMPI_API_JSON) are required")
    try:
        problems, count = check(args.stub, args.api_json, not args.no_xmpi)
    except (OSError, StubGenError, ValueError, KeyError) as e:
        print("check_exports: %s" % e, file=sys.stderr)
        return 1
    for p in problems:
        print("check_exports: %s: %s" % (args.stub, p), file=sys.stderr)
    if problems:
        return 1
    print("check_exports: %s exports all %d routines and defines no PMPI_ symbol"
          % (args.stub, count))
    return 0


if __name__ == "__main__":
    sys.exit(main())
