#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Measures what the monitor module costs per 8-byte MPI_Send and per rank in memory.

Scenarios run interleaved, --repeats times each; the table shows medians (and minimums:
on a loaded machine they are closer to the intrinsic cost):
  send ns      CPU time per MPI_Send on rank 0 of 2, with a module below that returns at
               once (monitor_sink): [sink] against [monitor, sink]. The difference is the
               monitor's whole added cost per send, its layer's dispatch included.
  send ns MT   the same under MPI_THREAD_MULTIPLE (the counters are then atomic adds).
  stream ns    rank 0's CPU time per 8-byte MPI_Send through the real MPI while rank 1
               receives: no module against the monitor; on Open MPI also the native program
               without and with Open MPI's own monitoring (pml_monitoring_enable 1).
  memory       the monitor's memory per rank (from its summary) when each of 4 ranks
               contacts 1 peer and 3 peers (the growth is the cost of one contacted peer),
               and when each of 8 ranks contacts 1 (the world size costs nothing).
  coll ns      (--scale) CPU time per MPI_Allreduce on MPI_COMM_WORLD of P ranks on rank 0,
               swallowed by monitor_sink below: [sink] against [monitor, sink], P from 2 to
               --max-ranks (real communicators, oversubscribed); with --baseline, the
               monitor module of another build too, in the same runs.
  scale        (--scale) a ring, barriers and allreduces on N ranks with the monitor writing
               all its files: memory per rank (summary), rank 0's MPI_Finalize wall time,
               size of the gathered JSON, for N from 4 to --max-ranks.

Usage: monitor_bench.py --build BUILD_DIR [--repeats N] [--quick] [--json FILE]
                        [--scale] [--max-ranks N] [--baseline OTHER_BUILD_DIR]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

SEND = re.compile(r"send_ns=([0-9.]+)")
STREAM = re.compile(r"stream_ns=([0-9.]+)")
COLL = re.compile(r"coll_ns=([0-9.]+)")
FINALIZE = re.compile(r"finalize_s=([0-9.]+)")
MEMORY = re.compile(r"memory per rank: max (\d+) bytes, mean (\d+) bytes, plus (\d+) bytes "
                    r"of fixed caches; peers contacted per rank: max (\d+)")

MONITOR = "module monitor\nargument files none\nargument summary {summary}\n"
SINK = "module monitor_sink\n"


def run_once(cfg, scratch, binary, conf, args, ranks=2, env_extra=None):
    env = dict(os.environ)
    env.pop("PNMPI_CONF", None)
    env["HOME"] = scratch  # no stray ~/.pnmpi-conf
    env["PNMPI_LIB_PATH"] = ":".join(cfg["module_dirs"])
    env.update(env_extra or {})
    if conf is not None:
        path = os.path.join(scratch, "bench.conf")
        with open(path, "w") as f:
            f.write(conf)
        env["PNMPI_CONF"] = path
    argv = [cfg["mpiexec"]]
    if cfg["flavor"] == "openmpi":
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        argv += ["--oversubscribe", "--bind-to", "none"]
    if cfg["flavor"] == "openmpi" and ranks > 2:
        argv += ["--mca", "mpi_yield_when_idle", "1"]
    argv += ["-np", str(ranks), binary] + [str(a) for a in args]
    proc = subprocess.run(argv, env=env, cwd=scratch, capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        sys.exit("monitor_bench: %s failed (exit %d)\n%s\n%s"
                 % (" ".join(argv), proc.returncode, proc.stdout, proc.stderr))
    return proc.stdout + proc.stderr


def value(pattern, text, what):
    m = pattern.search(text)
    if not m:
        sys.exit("monitor_bench: no %s in the output:\n%s" % (what, text))
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the CMake build directory")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="short runs (smoke test)")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--scale", action="store_true",
                    help="also the cost per collective, memory, finalize time and output size "
                         "against the number of ranks")
    ap.add_argument("--max-ranks", type=int, default=64)
    ap.add_argument("--baseline", help="another build whose monitor module is compared")
    args = ap.parse_args()
    with open(os.path.join(args.build, "bench", "monitor", "bench_monitor_config.json")) as f:
        cfg = json.load(f)
    calls = 200000 if args.quick else 10000000
    streamed = 100000 if args.quick else 2000000
    linked, native = cfg["linked"], cfg["native"]
    monitor = MONITOR.format(summary="off")

    timed = [
        ("send ns: [sink]", SEND, linked, SINK, ["sends", calls], None),
        ("send ns: [monitor, sink]", SEND, linked, monitor + SINK, ["sends", calls], None),
        ("send ns MT: [sink]", SEND, linked, SINK, ["sends-mt", calls], None),
        ("send ns MT: [monitor, sink]", SEND, linked, monitor + SINK, ["sends-mt", calls],
         None),
        ("stream ns: no module", STREAM, linked, "", ["stream", streamed], None),
        ("stream ns: [monitor]", STREAM, linked, monitor, ["stream", streamed], None),
    ]
    if cfg["flavor"] == "openmpi":
        timed += [
            ("stream ns: native", STREAM, native, None, ["stream", streamed], None),
            ("stream ns: native + Open MPI monitoring", STREAM, native, None,
             ["stream", streamed], {"OMPI_MCA_pml_monitoring_enable": "1"}),
        ]
    samples = {name: [] for name, *_ in timed}
    memory = {}
    with tempfile.TemporaryDirectory(prefix="pnmpi-bench-monitor-") as scratch:
        for _ in range(args.repeats):
            for name, pattern, binary, conf, argv, env in timed:
                out = run_once(cfg, scratch, binary, conf, argv, 2, env)
                samples[name].append(float(value(pattern, out, name).group(1)))
        for ranks, peers in ((4, 1), (4, 3)) + (() if args.quick else ((8, 1),)):
            out = run_once(cfg, scratch, linked, MONITOR.format(summary="on"),
                           ["contact", peers], ranks)
            m = value(MEMORY, out, "memory summary")
            memory[(ranks, peers)] = {"max": int(m.group(1)), "mean": int(m.group(2)),
                                      "fixed": int(m.group(3)), "peers": int(m.group(4))}

    med = {name: statistics.median(v) for name, v in samples.items()}
    low = {name: min(v) for name, v in samples.items()}

    def delta(with_monitor, without):
        return med[with_monitor] - med[without], low[with_monitor] - low[without]

    send = delta("send ns: [monitor, sink]", "send ns: [sink]")
    send_mt = delta("send ns MT: [monitor, sink]", "send ns MT: [sink]")
    stream = delta("stream ns: [monitor]", "stream ns: no module")
    rows = [(name, "%.3f (min %.3f)" % (med[name], low[name])) for name, *_ in timed]
    rows.insert(2, ("  the monitor's cost per send", "%.3f (mins: %.3f)" % send))
    rows.insert(5, ("  the monitor's cost per send, MT", "%.3f (mins: %.3f)" % send_mt))
    rows.insert(8, ("  the monitor's cost per streamed send", "%.3f (mins: %.3f)" % stream))
    result = {"flavor": cfg["flavor"], "repeats": args.repeats, "medians": med,
              "minimums": low, "monitor_send_ns": send[0], "monitor_send_ns_mt": send_mt[0],
              "monitor_stream_ns": stream[0]}
    if cfg["flavor"] == "openmpi":
        ompi = delta("stream ns: native + Open MPI monitoring", "stream ns: native")
        rows.append(("  Open MPI monitoring's cost per streamed send", "%.3f (mins: %.3f)" % ompi))
        result["ompi_monitoring_stream_ns"] = ompi[0]
    for (ranks, peers), m in sorted(memory.items()):
        rows.append(("memory per rank, %d ranks, %d peer(s) contacted: max / mean (bytes)"
                     % (ranks, m["peers"]), "%d / %d" % (m["max"], m["mean"])))
    rows.append(("  plus fixed caches per rank (bytes)", "%d" % memory[(4, 1)]["fixed"]))
    per_peer = (memory[(4, 3)]["max"] - memory[(4, 1)]["max"]) / 2.0
    rows.append(("  memory per contacted peer (bytes)", "%.0f" % per_peer))
    result["memory"] = {"%d ranks, %d peers" % k: v for k, v in memory.items()}
    result["memory_per_peer"] = per_peer

    if args.scale or args.quick:
        rows += scale_rows(cfg, args, result)

    width = max(len(r[0]) for r in rows)
    print("pnmpi monitor benchmark: %s, %d run(s) per scenario" % (cfg["flavor"], args.repeats))
    for name, v in rows:
        print("%-*s  %s" % (width, name, v))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


def sizes_up_to(first, last):
    n, out = first, []
    while n <= last:
        out.append(n)
        n *= 2
    return out


def scale_rows(cfg, args, result):
    """The monitor against the number of ranks: cost per collective, memory, finalize, JSON."""
    linked = cfg["linked"]
    builds = [("new", cfg["module_dirs"])]
    if args.baseline:
        # The baseline's monitor.so, with this build's sink and program (same core commit).
        builds.append(("baseline", [os.path.join(args.baseline, "lib", "pnmpi", "modules")]
                       + cfg["module_dirs"][1:]))
    last = 4 if args.quick else args.max_ranks
    calls = 20000 if args.quick else 200000
    coll_sizes = sizes_up_to(2, last)
    coll = {}
    rows = []
    with tempfile.TemporaryDirectory(prefix="pnmpi-bench-monitor-") as scratch:
        for _ in range(args.repeats):
            for p in coll_sizes:
                for label, dirs in [("sink", cfg["module_dirs"])] + builds:
                    conf = SINK if label == "sink" else MONITOR.format(summary="off") + SINK
                    c = dict(cfg, module_dirs=dirs)
                    out = run_once(c, scratch, linked, conf, ["coll", calls], p)
                    coll.setdefault((label, p), []).append(
                        float(value(COLL, out, "coll_ns").group(1)))
        for p in coll_sizes:
            base = statistics.median(coll[("sink", p)])
            cells = []
            for label, _ in builds:
                cells.append("%s %.1f" % (label, statistics.median(coll[(label, p)]) - base))
            rows.append(("coll ns per MPI_Allreduce, %d ranks: monitor's cost" % p,
                         ", ".join(cells)))
        result["coll_ns"] = {"%s %d" % k: statistics.median(v) for k, v in coll.items()}
        scale_sizes = sizes_up_to(4, last)
        for n in scale_sizes:
            for label, dirs in builds:
                outdir = os.path.join(scratch, "out-%s-%d" % (label, n))
                os.makedirs(outdir, exist_ok=True)
                conf = "module monitor\nargument output %s/mon\n" % outdir
                finals, memories = [], []
                for _ in range(1 if args.quick else max(1, args.repeats // 2)):
                    out = run_once(dict(cfg, module_dirs=dirs), scratch, linked, conf,
                                   ["scale", 10], n)
                    finals.append(float(value(FINALIZE, out, "finalize_s").group(1)))
                    memories.append(int(value(MEMORY, out, "memory summary").group(1)))
                size = os.path.getsize(os.path.join(outdir, "mon.json"))
                rows.append(("scale %s, %d ranks: memory/rank max, finalize s, JSON bytes"
                             % (label, n), "%d, %.3f, %d"
                             % (max(memories), statistics.median(finals), size)))
                result.setdefault("scale", {})["%s %d" % (label, n)] = {
                    "memory_max": max(memories), "finalize_s": statistics.median(finals),
                    "json_bytes": size}
    return rows


if __name__ == "__main__":
    main()
