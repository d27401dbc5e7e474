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

  synthetic    (--synthetic, instead of the above) monitor_synth: the monitor's own recording
               code, one process, on synthetic communicators of P = 2 to 4,096 and 65,536
               members (no mpirun): CPU ns per recorded MPI_Allreduce, MPI_Bcast (root) and
               irregular MPI_Alltoallv, and per Allreduce/Bcast recorded by a loop over the
               peers (what each call cost before the per-communicator volume); ns to expand a
               communicator's volume (expand(), every reader) and to read it as MPI_T and
               MPI_M_ do (add_coll_volume()); memory per rank of rank 0 of N = 4 to 100,000
               for the ring pattern of `scale` and for 6 halo neighbours with collectives on
               MPI_COMM_WORLD and 3 sub-communicators, the collectives recorded per
               communicator and by the per-peer loop; rank 0's JSON size for the ring pattern
               (a model: the writer gathers over a real MPI_COMM_WORLD). --check fails unless
               the per-call cost at the largest P is within 3x of P = 2 and memory does not
               follow N.

Usage: monitor_bench.py --build BUILD_DIR [--repeats N] [--quick] [--json FILE]
                        [--scale] [--max-ranks N] [--baseline OTHER_BUILD_DIR]
       monitor_bench.py --build BUILD_DIR --synthetic [--repeats N] [--quick] [--check]
                        [--json FILE]
"""

import argparse
import json
import math
import os
import re
import socket
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import benchlib  # noqa: E402

SEND = re.compile(r"send_ns=([0-9.]+)")
STREAM = re.compile(r"stream_ns=([0-9.]+)")
COLL = re.compile(r"coll_ns=([0-9.]+)")
FINALIZE = re.compile(r"finalize_s=([0-9.]+)")
MEMORY = re.compile(r"memory per rank: max (\d+) bytes, mean (\d+) bytes, plus (\d+) bytes "
                    r"of fixed caches; peers contacted per rank: max (\d+)")

MONITOR = "module monitor\nargument files none\nargument summary {summary}\n"
SINK = "module monitor_sink\n"


def run_once(cfg, scratch, binary, conf, args, ranks=2, env_extra=None):
    env = benchlib.job_env(cfg, scratch, conf, **(env_extra or {}))
    argv = benchlib.launcher(cfg["mpiexec"], cfg["flavor"], env)
    if cfg["flavor"] == "openmpi" and ranks > 2:
        argv += ["--mca", "mpi_yield_when_idle", "1"]
    argv += ["-np", str(ranks), binary] + [str(a) for a in args]
    proc, _ = benchlib.run("monitor_bench", argv, env, scratch)
    return proc.stdout + proc.stderr


def value(pattern, text, what):
    m = pattern.search(text)
    if not m:
        sys.exit("monitor_bench: no %s in the output:\n%s" % (what, text))
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the CMake build directory")
    ap.add_argument("--repeats", type=int, default=None, help="runs per scenario (7; 5 synthetic)")
    ap.add_argument("--quick", action="store_true", help="short runs (smoke test)")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--scale", action="store_true",
                    help="also the cost per collective, memory, finalize time and output size "
                         "against the number of ranks")
    ap.add_argument("--max-ranks", type=int, default=64)
    ap.add_argument("--baseline", help="another build whose monitor module is compared")
    ap.add_argument("--synthetic", action="store_true",
                    help="only the recording code on synthetic communicators (one process)")
    ap.add_argument("--check", action="store_true",
                    help="with --synthetic: fail if a call's cost or memory follows the size")
    args = ap.parse_args()
    with open(os.path.join(args.build, "bench", "monitor", "bench_monitor_config.json")) as f:
        cfg = json.load(f)
    if args.synthetic:
        synthetic(cfg, args)
        return
    if args.check:
        ap.error("--check goes with --synthetic")
    if args.repeats is None:
        args.repeats = 7
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


SYNTH_COLUMNS = ["allreduce_ns", "allreduce_loop_ns", "bcast_ns", "bcast_loop_ns",
                 "alltoallv_ns", "expand_ns", "read_ns"]
SYNTH = re.compile(r"^(synth|synth-min) P=(\d+)((?: [a-z_]+=[0-9.]+)+)$", re.M)
SYNTH_MEMORY = re.compile(r"^memory N=(\d+) pattern=(ring|halo) collectives=(per-comm|per-peer) "
                          r"bytes=(\d+) fixed=(\d+) peers=(\d+)$", re.M)


def run_synth(cfg, argv):
    cmd = [cfg["synth"]] + [str(a) for a in argv]
    with tempfile.TemporaryDirectory(prefix="pnmpi-bench-synth-") as scratch:
        env = benchlib.job_env({}, scratch, OMPI_ALLOW_RUN_AS_ROOT="1",
                               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        proc, _ = benchlib.run("monitor_bench", cmd, env, scratch)
    return proc.stdout


def parse_synth(out, sizes):
    """{("synth"|"synth-min", P): {column: ns}}; exits unless every size has every column."""
    got = {}
    for kind, p, fields in SYNTH.findall(out):
        values = dict(f.split("=") for f in fields.split())
        if sorted(values) != sorted(SYNTH_COLUMNS):
            sys.exit("monitor_bench: monitor_synth printed columns %s, expected %s:\n%s"
                     % (sorted(values), sorted(SYNTH_COLUMNS), out))
        got[(kind, int(p))] = {k: float(v) for k, v in values.items()}
    for kind in ("synth", "synth-min"):
        for p in sizes:
            row = got.get((kind, p))
            if row is None:
                sys.exit("monitor_bench: no '%s P=%d' line from monitor_synth:\n%s"
                         % (kind, p, out))
            bad = [k for k, v in row.items() if not (v > 0 and math.isfinite(v))]
            if bad:
                sys.exit("monitor_bench: monitor_synth P=%d: %s not a positive time:\n%s"
                         % (p, ", ".join(bad), out))
    return got


def json_bytes_model(n, rounds, host):
    """Rank 0's <output>.json for `monitor_overhead scale K` on n > json-dense-limit ranks: the
    sparse entries and the host names formatted as output.cpp writes them, plus the fixed text
    (HEADER_BYTES, measured on a real run: see docs/monitor.md, Scale)."""
    def entries(pairs):  # pairs: (count of entries, sum of the digits of their four numbers)
        count, digits = pairs
        if count == 0:
            return 0
        # "\n        [s,r,c,b]" each (3 commas, 2 brackets), "," between, "\n      " at the end
        return count * (9 + 5) + digits + (count - 1) + 7
    digits = lambda v: len(str(v))
    rank_digits = sum(digits(r) for r in range(n))
    p2p = (n, 2 * rank_digits + n * (digits(rounds) + digits(8 * rounds)))
    coll = (n * (n - 1), 2 * (n - 1) * rank_digits
            + n * (n - 1) * (digits(2 * rounds) + digits(8 * rounds)))
    hosts = n * (len(host) + 2) + 2 * (n - 1)
    return HEADER_BYTES + digits(n) + hosts + entries(p2p) + entries(coll)


# Everything of the ring pattern's <output>.json that is not an entry, a host name or the world
# size: the format line, the orientation, 8 categories with their texts (measured: the real
# files of monitor_overhead scale 10 on 72 and 100 ranks are the model's bytes exactly).
HEADER_BYTES = 1453


def synthetic(cfg, args):
    sizes = [2, 64, 4096] if args.quick else sizes_up_to(2, 4096) + [65536]
    calls = 20000 if args.quick else 200000
    repeats = args.repeats if args.repeats else 5
    got = parse_synth(run_synth(cfg, ["cost", repeats, calls] + sizes), sizes)
    med = {p: got[("synth", p)] for p in sizes}
    low = {p: got[("synth-min", p)] for p in sizes}
    print("pnmpi monitor, synthetic communicators (monitor_synth, 1 process): %s, "
          "CPU ns, medians of %d (min in parentheses where it matters)" % (cfg["flavor"], repeats))
    print()
    print("| P | Allreduce | per-peer loop | Bcast (root) | per-peer loop | Alltoallv irregular "
          "(per peer) | expand() | add_coll_volume() |")
    print("|---|---|---|---|---|---|---|---|")
    for p in sizes:
        m, lo = med[p], low[p]
        print("| %d | %.1f (%.1f) | %s | %.1f (%.1f) | %s | %s (%.2f) | %s | %s |"
              % (p, m["allreduce_ns"], lo["allreduce_ns"], human_ns(m["allreduce_loop_ns"]),
                 m["bcast_ns"], lo["bcast_ns"], human_ns(m["bcast_loop_ns"]),
                 human_ns(m["alltoallv_ns"]), m["alltoallv_ns"] / (p - 1),
                 human_ns(m["expand_ns"]), human_ns(m["read_ns"])))
    result = {"flavor": cfg["flavor"], "repeats": repeats, "calls": calls,
              "cost_medians": {str(p): med[p] for p in sizes},
              "cost_minimums": {str(p): low[p] for p in sizes}}

    memory_sizes = [1024, 4096] if args.quick else [4, 256, 1024, 4096, 10000, 100000]
    patterns = [("ring", "per-comm"), ("ring", "per-peer")]
    if not args.quick:
        patterns += [("halo", "per-comm"), ("halo", "per-peer")]
    mem = {}
    for n in memory_sizes:
        for pattern, how in patterns:
            out = run_synth(cfg, ["memory", n, 10, pattern, how])
            m = SYNTH_MEMORY.search(out)
            if not m or (int(m.group(1)), m.group(2), m.group(3)) != (n, pattern, how):
                sys.exit("monitor_bench: no memory line for N=%d %s %s from monitor_synth:\n%s"
                         % (n, pattern, how, out))
            mem[(n, pattern, how)] = (int(m.group(4)), int(m.group(5)), int(m.group(6)))
    host = socket.gethostname()
    print()
    print("Memory per rank (rank 0, the summary's count; plus %d bytes of fixed caches), "
          "bytes, and rank 0's JSON for the ring pattern (model):" % mem[(n, "ring", "per-comm")][1])
    print()
    print("| N | ring | ring, per-peer loop | halo + 3 sub-communicators | halo, per-peer loop "
          "| ring JSON (model) |")
    print("|---|---|---|---|---|---|")
    for n in memory_sizes:
        cell = lambda pattern, how: ("{:,}".format(mem[(n, pattern, how)][0])
                                     if (n, pattern, how) in mem else "")
        print("| {:,} | {} | {} | {} | {} | {} |".format(
            n, cell("ring", "per-comm"), cell("ring", "per-peer"), cell("halo", "per-comm"),
            cell("halo", "per-peer"), human_bytes(json_bytes_model(n, 10, host))
            if n > 64 else "(dense)"))
    result["memory"] = {"%d %s %s" % k: v[0] for k, v in mem.items()}
    result["json_bytes_model"] = {str(n): json_bytes_model(n, 10, host) for n in memory_sizes}

    if args.check:
        failures = []
        big = sizes[-1]
        for col in ("allreduce_ns", "bcast_ns"):
            ratio = low[big][col] / low[2][col]
            print("check: %s at P=%d / at P=2 (minimums): %.2f (at most 3)" % (col, big, ratio))
            if ratio > 3:
                failures.append("%s costs %.1fx more at P=%d than at P=2 (medians %.1f, %.1f "
                                "ns): is there a loop over the peers in the recording code?"
                                % (col, ratio, big, med[big][col], med[2][col]))
            loop = col.replace("_ns", "_loop_ns")
            seen = low[big][loop] / low[2][loop]
            print("check: %s at P=%d / at P=2 (minimums): %.0f (at least 30: a per-peer loop "
                  "shows)" % (loop, big, seen))
            if seen < 30:
                failures.append("the per-peer loop costs only %.1fx more at P=%d than at P=2: "
                                "this benchmark would not see one" % (seen, big))
        flat = {n: mem[(n, "ring", "per-comm")][0] for n in memory_sizes}
        print("check: ring memory per rank at N=%s: %s bytes (all equal)"
              % ("/".join(map(str, memory_sizes)), "/".join(map(str, flat.values()))))
        if len(set(flat.values())) != 1:
            failures.append("memory per rank follows N for the ring pattern: %s" % flat)
        n = memory_sizes[-1]
        grown = mem[(n, "ring", "per-peer")][0] - flat[n]
        print("check: per-peer loop at N=%d: %d bytes more (at least 100 per rank)" % (n, grown))
        if grown < 100 * (n - 2):
            failures.append("the per-peer loop took only %d bytes more at N=%d: this benchmark "
                            "would not see per-peer memory" % (grown, n))
        if failures:
            sys.exit("monitor_bench --check (bench/monitor/monitor_bench.py): "
                     + "; ".join(failures))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


def human_ns(ns):
    if ns >= 1e6:
        return "%.1f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f us" % (ns / 1e3)
    return "%.1f ns" % ns


def human_bytes(b):
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= size:
            return "%.1f %s" % (b / size, unit)
    return "%d B" % b


if __name__ == "__main__":
    main()
