#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Measures pnmpi's overhead against native MPI in the same run and prints a table.

Every scenario runs the same 2-rank program (bench/overhead.c) `--repeats` times; the
table shows medians and ratios to the native build (not linked with pnmpi):
  call ns      CPU time per MPI_Comm_rank call (rank 0)
  per layer    (call ns - stub call ns) / layers
  pingpong us  half an 8-byte round trip
  load ms      the core's own measurement of reading the config and loading and binding
               every module (PNMPI_DEBUG=1 line), 0 modules = an empty config
  floor pages  (x86-64) ns per jump of a synthetic chain of as many `jmp *slot(%rip)` as
  floor packed there are layers, no MPI (bench/layer_floor.c): each jump on a page of its
               own (as every layer is a copy of its own), and all packed 64 bytes apart.
               What a pass-through layer cannot go below on this CPU, and what its code
               pages alone cost.

Layers after the first of one file are copies; --copies chooses how they are made, to
compare: mapped (the default: pnmpi maps them, slid, code shared per slide), unslid (every
copy maps the file's own code), files (a slid file per copy, for the dynamic linker).

With --fortran the program is bench/overhead.f90 (`use mpi`), one unchanged binary run
natively and with libpnmpi preloaded, as Fortran applications are usually run.

Usage: bench/run_bench.py --build BUILD_DIR [--fortran] [--repeats N] [--quick] [--json FILE]
                          [--copies mapped|unslid|files]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import benchlib

LINE = re.compile(r"calls_ns=([0-9.]+) pingpong_us=([0-9.]+)")
FLOOR = re.compile(r"pages_ns=([0-9.]+) packed_ns=([0-9.]+)")
LOAD = re.compile(r"loaded (\d+) layer\(s\) from \d+ file\(s\) in (\d+) us")


def run_once(cfg, binary, conf_text, calls, iterations, scratch, preload=None, copies=None):
    settings = {"PNMPI_DEBUG": "1"}
    if copies and copies != "mapped":
        settings["PNMPI_COPIES"] = copies
    env = benchlib.job_env(cfg, scratch, conf_text, unset=("PNMPI_COPIES",), **settings)
    argv = benchlib.launcher(cfg["mpiexec"], cfg["flavor"], env)
    if cfg["flavor"] == "openmpi" and preload:
        argv += ["-x", "LD_PRELOAD=" + preload]
    elif preload:
        argv += ["-genv", "LD_PRELOAD", preload]
    argv += ["-np", "2", binary, str(calls), str(iterations)]
    proc, m = benchlib.run("run_bench", argv, env, scratch, pattern=LINE)
    loads = [int(us) for _, us in LOAD.findall(proc.stderr)]
    load_ms = max(loads) / 1000.0 if loads else None
    return float(m.group(1)), float(m.group(2)), load_ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the CMake build directory")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="few layers, short runs (smoke test)")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--copies", choices=["mapped", "unslid", "files"], default="mapped",
                    help="how layers after the first of one file are copied (default mapped)")
    ap.add_argument("--fortran", action="store_true",
                    help="the Fortran program, native and preloaded (1 and 10 layers)")
    args = ap.parse_args()
    with open(os.path.join(args.build, "bench", "bench_config.json")) as f:
        cfg = json.load(f)

    base_calls = 200000 if args.quick else 20000000
    iterations = 2000 if args.quick else 20000
    if args.fortran:
        if not cfg.get("fortran"):
            sys.exit("run_bench: this build has no Fortran benchmark (no MPI Fortran compiler)")
        # (name, binary, config, layers, preload)
        program, lib = cfg["fortran"], cfg["libpnmpi"]
        scenarios = [("native (Fortran)", program, None, 0, None),
                     ("stub, no module", program, "", 0, lib),
                     ("1 passthrough layer", program, "module passthrough\n", 1, lib),
                     ("10 passthrough layers", program, "module passthrough\n" * 10, 10, lib)]
    else:
        layer_counts = [1, 10] if args.quick else [1, 10, 100, 1000]
        scenarios = [("native", cfg["native"], None, 0, None),
                     ("stub, no module", cfg["linked"], "", 0, None),
                     ("1 module, not wrapping", cfg["linked"], "module nowrap\n", 0, None)]
        scenarios += [("%d passthrough layer%s" % (k, "s" if k > 1 else ""), cfg["linked"],
                       "module passthrough\n" * k, k, None) for k in layer_counts]

    results = []
    with tempfile.TemporaryDirectory(prefix="pnmpi-bench-") as scratch:
        for name, binary, conf, layers, preload in scenarios:
            calls = max(20000, int(base_calls / (1 + layers / 4)))
            runs = [run_once(cfg, binary, conf, calls, iterations, scratch, preload, args.copies)
                    for _ in range(args.repeats)]
            loads = [r[2] for r in runs if r[2] is not None]
            results.append({
                "scenario": name, "layers": layers,
                "call_ns": statistics.median(r[0] for r in runs),
                "pingpong_us": statistics.median(r[1] for r in runs),
                "load_ms": statistics.median(loads) if loads else None,
            })
            print("  measured: %-24s" % name, file=sys.stderr, flush=True)

    floors = {}
    if cfg.get("layer_floor"):
        for layers in sorted({r["layers"] for r in results if r["layers"]}):
            runs = []
            for _ in range(args.repeats):
                out = subprocess.run([cfg["layer_floor"], str(layers)], capture_output=True,
                                     text=True, timeout=600)
                m = FLOOR.search(out.stdout)
                if out.returncode != 0 or not m:
                    sys.exit("run_bench: %s %d failed (exit %d)\n%s" % (
                        cfg["layer_floor"], layers, out.returncode, out.stderr))
                runs.append((float(m.group(1)), float(m.group(2))))
            floors[layers] = (statistics.median(r[0] for r in runs),
                              statistics.median(r[1] for r in runs))

    native, stub = results[0], results[1]
    print("pnmpi overhead%s (%s, %d ranks, median of %d runs; ratios vs native in this run; "
          "copies %s)"
          % (" for Fortran, MPI_COMM_RANK" if args.fortran else "", cfg["flavor"], 2,
             args.repeats, args.copies))
    print("%-24s %10s %8s %12s %12s %8s %9s %12s %13s" % (
        "scenario", "call ns", "ratio", "ns/layer", "pingpong us", "ratio", "load ms",
        "floor pages", "floor packed"))
    for r in results:
        per_layer = ("%12.2f" % ((r["call_ns"] - stub["call_ns"]) / r["layers"])
                     if r["layers"] else "%12s" % "-")
        if r is stub:
            per_layer = "%+11.2f*" % (r["call_ns"] - native["call_ns"])
        r["call_ratio"] = r["call_ns"] / native["call_ns"]
        r["pingpong_ratio"] = r["pingpong_us"] / native["pingpong_us"]
        floor = floors.get(r["layers"]) if r["layers"] and r is not stub else None
        if floor:
            r["floor_pages_ns"], r["floor_packed_ns"] = floor
        print("%-24s %10.2f %8.2f %s %12.3f %8.2f %9s %12s %13s" % (
            r["scenario"], r["call_ns"], r["call_ratio"], per_layer, r["pingpong_us"],
            r["pingpong_ratio"], "-" if r["load_ms"] is None else "%.2f" % r["load_ms"],
            "%.2f" % floor[0] if floor else "-", "%.2f" % floor[1] if floor else "-"))
    print("* the stub row shows ns added per call over native, not per layer")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"flavor": cfg["flavor"], "repeats": args.repeats, "copies": args.copies,
                       "results": results},
                      f, indent=2)


if __name__ == "__main__":
    main()
