#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The site report's index on synthetic records (docs/site.md, issue 25's targets: 10,000
records indexed from scratch in at most 60 s on 2 cores, a re-run with 100 new records in at
most 2 s).

    /usr/bin/python3 bench/site/site_bench.py [--records 10000] [--new 100] [--repeats 3]
                                              [--dir SCRATCH]

Records have realistic sizes: the stencil generator's jobs of 4 to 4,096 ranks, most of
them small as on a real machine (60% up to 64 ranks, 30% 128 to 512, 10% 1,024 to 4,096),
spread over the days of a month in a directory made by pnmpi-admin mkdirs. Prints the
sizes, then per run the median and the spread of the repeats, wall and CPU time."""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "report"))

import numpy as np  # noqa: E402

from pnmpi_report import record, record_synth, site  # noqa: E402

SIZES = [(4, 0.1), (16, 0.2), (32, 0.15), (64, 0.15), (128, 0.12), (256, 0.1), (512, 0.08),
         (1024, 0.06), (2048, 0.03), (4096, 0.01)]
APPS = ["lmp", "pw.x", "cp2k.psmp", "nwchem", "abinit", "wrf.exe", "a.out", "gromacs"]


def make_records(logdir, count, first, rng, templates):
    sizes = [s for s, _ in SIZES]
    weights = np.array([w for _, w in SIZES])
    weights /= weights.sum()
    total = 0
    for i in range(first, first + count):
        ranks = int(rng.choice(sizes, p=weights))
        meta, arrays = templates[ranks]
        meta = dict(meta)
        meta["job_id"] = str(100000 + i)
        meta["user"] = "user%03d" % (i % 150)
        meta["executable"] = "/home/%s/bin/%s" % (meta["user"], APPS[i % len(APPS)])
        day = 1 + i % 28
        meta["start"] = 1793491200.0 + (day - 1) * 86400 + (i % 86000)  # 2026-11
        meta["end"] = meta["start"] + 60.0 + (i % 3600)
        data = record.record_bytes(meta, arrays)
        d = os.path.join(logdir, "2026", "11", str(day))
        name = "%s_%s_id%s_11-%d-%d-%016x.record.npz" % (
            meta["user"], APPS[i % len(APPS)], meta["job_id"], day, i % 86000, i)
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
        total += len(data)
    return total


def timed(logdir, index):
    """(wall seconds, CPU seconds of this process and its workers, new, unreadable)."""
    c = os.times()
    t = time.perf_counter()
    new, bad = site.update_index(logdir, index, None, 2)
    wall = time.perf_counter() - t
    d = os.times()
    cpu = (d.user + d.system + d.children_user + d.children_system) - (
        c.user + c.system + c.children_user + c.children_system)
    return wall, cpu, new, bad


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=int, default=10000)
    p.add_argument("--new", type=int, default=100)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--dir", help="scratch directory (default: a new one in /tmp, removed)")
    a = p.parse_args(argv)
    scratch = a.dir or tempfile.mkdtemp(prefix="pnmpi-site-bench-")
    logdir = os.path.join(scratch, "logs")
    shutil.rmtree(logdir, ignore_errors=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "admin", "pnmpi-admin"),
                    "mkdirs", logdir, "--years", "2026"], check=True, stdout=subprocess.DEVNULL)
    rng = np.random.default_rng(1)
    templates = {s: record_synth.stencil(s, seed=s) for s, _ in SIZES}
    t = time.perf_counter()
    size = make_records(logdir, a.records, 0, rng, templates)
    print("%d records, %.1f MB (mean %.1f KB), written in %.1f s" % (
        a.records, size / 1e6, size / a.records / 1e3, time.perf_counter() - t))
    scratch_runs, rerun_runs, scratch_cpu, rerun_cpu = [], [], [], []
    next_id = a.records
    for k in range(a.repeats):
        index = os.path.join(scratch, "index-%d.sqlite" % k)
        s, c, new, bad = timed(logdir, index)
        assert new == next_id and bad == 0, (new, bad)
        scratch_runs.append(s)
        scratch_cpu.append(c)
        make_records(logdir, a.new, next_id, rng, templates)
        next_id += a.new
        r, c, new, bad = timed(logdir, index)
        assert new == a.new and bad == 0, (new, bad)
        rerun_runs.append(r)
        rerun_cpu.append(c)
        os.unlink(index)
    # Wall time depends on what else runs; CPU time (this process and its 2 readers) is
    # what the machine spends: on 2 idle cores the wall time is about half of it.
    print("load average (1 min) at the end: %.1f" % os.getloadavg()[0])
    for name, runs, cpu in (("from scratch", scratch_runs, scratch_cpu),
                            ("re-run, %d new" % a.new, rerun_runs, rerun_cpu)):
        print("%-18s wall median %.2f s (min %.2f, max %.2f), CPU median %.2f s, %d runs" % (
            name, statistics.median(runs), min(runs), max(runs), statistics.median(cpu),
            len(runs)))
    if not a.dir:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
