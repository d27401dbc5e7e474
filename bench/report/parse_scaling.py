#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""How pnmpi-report's JSON reader scales with malformed bracket input (issue 26 item 7).

For each shape and size, the time to refuse the file (median of --repeats runs, with the
min-max spread), and the ratio of each size's median to the previous one's. Linear reading
shows ratios near the size ratio (2); the quadratic reader of before showed about 4-6.

    /usr/bin/python3 bench/report/parse_scaling.py [--repeats 5] [--sizes 50,100,200]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "tools", "report"))

from pnmpi_report.errors import ReportError  # noqa: E402
from pnmpi_report.readers import monitor_json  # noqa: E402

SHAPES = {
    "nested [1,[1,...]]": lambda n: "[1," * (n // 3) + "1" + "]" * (n // 3),
    "unclosed rows [[1],[[1],...": lambda n: "[[1]," * (n // 5),
    "three deep [[[1]],...]": lambda n: "[" + ",".join(["[[1]]"] * (n // 6)) + "]",
}


def once(path):
    t = time.perf_counter()
    try:
        monitor_json.read(path)
    except ReportError:
        pass
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", default="50,100,200", help="KB, comma-separated")
    args = ap.parse_args()
    sizes = [int(s) * 1024 for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.json")
        print("%-30s %8s %10s %20s %7s" % ("shape", "KB", "median s", "spread (min-max) s",
                                            "ratio"))
        for shape, make in SHAPES.items():
            previous = None
            for n in sizes:
                with open(path, "w") as f:
                    f.write('{"format": "pnmpi-monitor-matrices", "version": 2, "x": %s}\n'
                            % make(n))
                times = [once(path) for _ in range(args.repeats)]
                med = statistics.median(times)
                print("%-30s %8d %10.4f %9.4f-%-10.4f %7s" % (
                    shape, n // 1024, med, min(times), max(times),
                    "%.2f" % (med / previous) if previous else "-"))
                previous = med


if __name__ == "__main__":
    main()
