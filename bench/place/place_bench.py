#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The place module's cost per call against the passthrough layer, on 2 ranks.

Three stacks run the same program (bench/place/place_overhead.c), alternated, `--repeats`
times each: no module (the stub only), `module passthrough` (a layer that passes every call
on), `module place` with the identity order (the same layer plus one compare and select per
communicator). The table shows per stack the median and [min, max] of CPU ns per
MPI_Comm_rank(MPI_COMM_WORLD), per MPI_Comm_rank on a duplicate, per MPI_Type_size (no
communicator: place does not wrap it, so the call skips the layer), and per 8-byte MPI_Send
to itself plus its MPI_Recv on MPI_COMM_WORLD (rank 0, CPU-bound: no partner to wait for);
then place minus passthrough, median and [min, max] of the per-round differences.

Usage: bench/place/place_bench.py --build BUILD_DIR [--repeats N] [--quick]
"""

import argparse
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402

LINE = re.compile(r"rank_world=([0-9.]+) rank_dup=([0-9.]+) type_size=([0-9.]+) "
                  r"send_self=([0-9.]+)")
FIELDS = ("rank_world", "rank_dup", "type_size", "send_self")
STACKS = (("stub only", None), ("passthrough", "module passthrough\n"),
          ("place", "module place\nargument order identity.txt\n"))


def run_once(cfg, conf_text, calls, scratch):
    env = benchlib.job_env(cfg, scratch, conf_text, unset=("PNMPI_DEBUG",), PNMPI_BE_SILENT="1")
    argv = benchlib.launcher(cfg["mpiexec"], cfg["flavor"], env)
    argv += ["-np", "2", cfg["program"], str(calls)]
    _, m = benchlib.run("place_bench", argv, env, scratch, pattern=LINE)
    return [float(v) for v in m.groups()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the CMake build directory")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="few calls (a smoke run)")
    args = ap.parse_args()
    with open(os.path.join(args.build, "bench", "place", "bench_place_config.json")) as f:
        cfg = json.load(f)
    calls = 100000 if args.quick else 20000000
    confs = dict(STACKS)
    with tempfile.TemporaryDirectory(prefix="pnmpi-place-bench-") as scratch:
        with open(os.path.join(scratch, "identity.txt"), "w") as f:
            f.write("0-1\n")
        results = benchlib.alternated(args.repeats, list(confs),
                                      lambda name: run_once(cfg, confs[name], calls, scratch))
    print("%s, 2 ranks, %d rounds, median [min, max]" % (cfg["flavor"], args.repeats))
    print("%-12s %-26s %-26s %-26s %-26s" % (("stack",) + FIELDS))
    for name, _ in STACKS:
        cols = [benchlib.spread([r[k] for r in results[name]]) for k in range(len(FIELDS))]
        print("%-12s %-26s %-26s %-26s %-26s" % tuple([name] + cols))
    diffs = [benchlib.spread([p[k] - q[k] for p, q in zip(results["place"], results["passthrough"])])
             for k in range(len(FIELDS))]
    print("%-12s %-26s %-26s %-26s %-26s" % tuple(["place - pass"] + diffs))


if __name__ == "__main__":
    main()
