#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Measures what the trace module costs per traced call and per message.

Scenarios run interleaved, --repeats times each; the table shows medians (and minimums: on
a loaded machine they are closer to the intrinsic cost), each against its own baseline of
the same run:
  call ns      CPU time per 8-byte MPI_Send on rank 0 of 2, with a module below that
               returns at once (monitor_sink): [sink] against [trace, sink]. The difference
               is the trace's whole added cost per traced call (clock reads, records,
               its layer's dispatch). Twice: with a buffer that holds every record (no
               flush: the per-call path alone) and with the default 16 MiB buffer (the
               flushes' write(2) amortised over the calls).
  message ns   elapsed time per 8-byte message, rank 0 sending and rank 1 receiving
               through the real MPI: native program, linked without modules, and traced
               (both ends' calls recorded).
  isend ns     the same, nonblocking: rank 0 MPI_Isend, rank 1 MPI_Irecv, 8 in flight,
               each completed by MPI_Wait (the trace notes every request at its issue and
               finds it again at its completion).
  selfreq ns   CPU time per 8-byte message rank 0 sends itself, 8 in flight (MPI_Irecv,
               MPI_Isend, one MPI_Waitall): two requests' issue and completion, not waiting
               for the other rank, so little disturbed by a loaded machine.

Usage: trace_bench.py --build BUILD_DIR [--repeats N] [--quick] [--json FILE]
"""

import argparse
import json
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402

SEND = re.compile(r"send_ns=([0-9.]+)")
STREAM = re.compile(r"stream_ns=([0-9.]+)")
ISEND = re.compile(r"isend_ns=([0-9.]+)")
SELFREQ = re.compile(r"selfreq_ns=([0-9.]+)")


def run_once(cfg, scratch, binary, conf, args):
    if conf is not None:
        conf = conf.format(out=os.path.join(scratch, "trace"))
    env = benchlib.job_env(cfg, scratch, conf, PNMPI_BE_SILENT="1")
    argv = benchlib.launcher(cfg["mpiexec"], cfg["flavor"], env)
    argv += ["-np", "2", binary] + [str(a) for a in args]
    proc, _ = benchlib.run("trace_bench", argv, env, scratch, timeout=900)
    return proc.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="fewer calls (a smoke run)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    with open(os.path.join(args.build, "bench", "trace", "bench_trace_config.json")) as f:
        cfg = json.load(f)
    calls = 100000 if args.quick else 2000000
    messages = 20000 if args.quick else 200000
    trace = "module trace\nargument output {out}\n"
    # Every record of `calls` sends: 2 records of 64 bytes per call, plus the warm-up.
    whole = "argument buffer %dM\n" % (calls * 128 * 1.2 // (1 << 20) + 8)
    scenarios = [
        ("call ns", "sink", "linked", "module monitor_sink\n", SEND, ["sends", calls]),
        ("call ns", "trace, no flush", "linked", trace + whole + "module monitor_sink\n", SEND,
         ["sends", calls]),
        ("call ns", "trace, 16 MiB buffer", "linked", trace + "module monitor_sink\n", SEND,
         ["sends", calls]),
        ("message ns", "native", "native", None, STREAM, ["stream", messages]),
        ("message ns", "linked, no module", "linked", None, STREAM, ["stream", messages]),
        ("message ns", "trace", "linked", trace + "argument buffer 64M\n", STREAM,
         ["stream", messages]),
        ("isend ns", "native isend", "native", None, ISEND, ["isend", messages]),
        ("isend ns", "linked isend", "linked", None, ISEND, ["isend", messages]),
        ("isend ns", "trace isend", "linked", trace + "argument buffer 64M\n", ISEND,
         ["isend", messages]),
        ("selfreq ns", "native selfreq", "native", None, SELFREQ, ["selfreq", messages]),
        ("selfreq ns", "linked selfreq", "linked", None, SELFREQ, ["selfreq", messages]),
        ("selfreq ns", "trace selfreq", "linked", trace + "argument buffer 128M\n", SELFREQ,
         ["selfreq", messages]),
    ]
    samples = {s[1]: [] for s in scenarios}
    with tempfile.TemporaryDirectory(prefix="trace-bench-") as scratch:
        for _ in range(args.repeats):
            for kind, name, binary, conf, pattern, argv in scenarios:
                out = run_once(cfg, scratch, cfg[binary], conf, argv)
                m = pattern.search(out)
                if not m:
                    sys.exit("trace_bench: no figure in the output of %s:\n%s" % (name, out))
                samples[name].append(float(m.group(1)))
    results = {}
    print("%-12s %-22s %10s %10s %10s %8s" % ("", "scenario", "median", "min", "added",
                                              "ratio"))
    base = {}
    for kind, name, *_ in scenarios:
        med = statistics.median(samples[name])
        if kind not in base:
            base[kind] = med
        added = med - base[kind]
        ratio = med / base[kind] if base[kind] else float("nan")
        results[name] = {"kind": kind, "median_ns": med, "min_ns": min(samples[name]),
                         "added_ns": added, "ratio": ratio, "samples": samples[name]}
        print("%-12s %-22s %10.1f %10.1f %+10.1f %8.2f" % (kind, name, med, min(samples[name]),
                                                        added, ratio))
    print("(%s, %d repeats, %d calls, %d messages; ratio: against the first line of its kind)"
          % (cfg["flavor"], args.repeats, calls, messages))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
