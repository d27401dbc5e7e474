#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The profile module's cost per call against one passthrough layer (docs/record.md).

    bench/record/profile_bench.py --build BUILD [--repeats 7] [--calls 10000000]

Runs bench/overhead.c (2 ranks) under `module passthrough` and under `module profile`,
alternated, --repeats times each, and prints the median and the spread (min-max) of the
CPU time per MPI_Comm_rank call and of half an 8-byte ping-pong (an MPI_Send and an
MPI_Recv per rank), and the profile's extra cost per call: the difference of the medians.
"""

import argparse
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402

LINE = re.compile(r"calls_ns=([0-9.]+) pingpong_us=([0-9.]+)")


def flavor(build):
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        cache = f.read()
    m = re.search(r"^PNMPI_MPIEXEC:FILEPATH=(.*)$", cache, re.M)
    return m.group(1), ("mpich" if "mpich" in m.group(1) else "openmpi")


def run(build, module, calls, iterations, scratch):
    mpiexec, kind = flavor(build)
    conf = os.path.join(scratch, "conf")
    with open(conf, "w") as f:
        f.write("module %s\n" % module)
        if module == "profile":
            f.write("argument output %s\n" % os.path.join(scratch, "out"))
    env = dict(os.environ, PNMPI_CONF=conf, HOME=scratch,
               PNMPI_LIB_PATH=os.path.join(build, "lib", "pnmpi", "modules"))
    argv = benchlib.launcher(mpiexec, kind, env)
    argv += ["-np", "2", os.path.join(build, "bench", "bench_overhead"), str(calls),
             str(iterations)]
    _, m = benchlib.run("profile_bench", argv, env, pattern=LINE)
    return float(m.group(1)), float(m.group(2)) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--calls", type=int, default=10000000)
    ap.add_argument("--iterations", type=int, default=100000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        res = benchlib.alternated(args.repeats, ("passthrough", "profile"),
                                  lambda m: run(args.build, m, args.calls, args.iterations, d))
    print("| module | Comm_rank ns, median (min-max) | half ping-pong ns, median (min-max) |")
    print("| --- | --- | --- |")
    med = {}
    for module, rows in res.items():
        c, p = [r[0] for r in rows], [r[1] for r in rows]
        med[module] = (statistics.median(c), statistics.median(p))
        print("| %s | %.1f (%.1f-%.1f) | %.0f (%.0f-%.0f) |"
              % (module, med[module][0], min(c), max(c), med[module][1], min(p), max(p)))
    print("profile - passthrough: %.1f ns per MPI_Comm_rank call, %.0f ns per half ping-pong "
          "(one MPI_Send and one MPI_Recv per rank)"
          % (med["profile"][0] - med["passthrough"][0], med["profile"][1] - med["passthrough"][1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
