# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The time pnmpi-report check's wait-state analysis takes on synthetic traces of the coupled
pattern (a ring of MPI_Sendrecv and a barrier per step, one rank held in its Sendrecv):
median, minimum and maximum of --repeats runs per size, and the time per wait.

Usage: /usr/bin/python3 bench/trace/waitstates_bench.py [--repeats N] [--sizes R:S,R:S...]"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tools", "report"))

from pnmpi_report import waitstates  # noqa: E402
from pnmpi_report.trace_reader import Collective, Message, Region, Trace  # noqa: E402


def coupled_ring(ranks, steps, held=1, hold=0.01):
    t = Trace(path="synthetic", ranks=ranks, hosts=["a"] * ranks)
    for r in range(ranks):
        t.regions.append(Region(r, 0, "MPI_Init", "env", 0.0, 0.5))
    now = 1.0
    succ = (held + 1) % ranks
    for _ in range(steps):
        ends = [now + 1e-5] * ranks
        ends[held] = ends[succ] = now + hold
        for r in range(ranks):
            t.regions.append(Region(r, 0, "MPI_Sendrecv", "p2p", now, ends[r]))
        for r in range(ranks):
            nxt = (r + 1) % ranks
            done = now + hold if held in (r, nxt) else now + 1e-5
            t.messages.append(Message(r, nxt, 0, 8, "MPI_COMM_WORLD", "MPI_Sendrecv", now, now,
                                      ends[r], True, send_region_end=ends[r],
                                      recv_routine="MPI_Sendrecv", recv_time=done,
                                      recv_start=now))
        leave = now + hold + 2e-5
        for r in range(ranks):
            enter = ends[r] + (5e-6 if r == succ else 0.0)
            t.regions.append(Region(r, 0, "MPI_Barrier", "coll", enter, leave))
            t.collectives.append(Collective(r, "MPI_Barrier", "MPI_COMM_WORLD", None, 0, 0,
                                            enter, leave))
        now = leave + 1e-5
    return t


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", default="64:500,256:500",
                        help="RANKS:STEPS pairs separated by commas")
    args = parser.parse_args()
    print("| ranks x steps | waits | seconds, median (min-max) | us per wait |")
    print("| --- | --- | --- | --- |")
    for item in args.sizes.split(","):
        ranks, steps = (int(x) for x in item.split(":"))
        trace = coupled_ring(ranks, steps)
        times, found = [], None
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            found = waitstates.analyse(trace)
            times.append(time.perf_counter() - t0)
        assert found.causes(0.01, 0.1) == [1], found.causes(0.01, 0.1)
        median = statistics.median(times)
        print(f"| {ranks} x {steps} | {len(found.waits)} | {median:.2f} ({min(times):.2f}-"
              f"{max(times):.2f}) | {1e6 * median / max(len(found.waits), 1):.0f} |")


if __name__ == "__main__":
    main()
