#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Size and read time of synthetic job records (docs/record.md, "Design notes").

    bench/record/record_bench.py [--ranks 2,1024,16384] [--repeats 5] [--candidates]

Writes a synthetic 3-D stencil record per rank count (pnmpi_report.record_synth), prints
its size and the median (min-max) time of read_record(); --candidates also writes the
same data as SQLite and as uncompressed .npz, the containers compared in the notes."""

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tools", "report"))
from pnmpi_report import record, record_synth  # noqa: E402


def timed(fn, repeats):
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), min(ts), max(ts)


def sqlite_write(path, meta, a):
    db = sqlite3.connect(path)
    db.execute("create table meta (k text, v text)")
    for k, v in meta.items():
        db.execute("insert into meta values (?, ?)", (k, str(v)))
    for k, arr in a.items():
        arr = np.asarray(arr)
        if arr.ndim == 2:
            rows = [(i, j, float(arr[i, j])) for i, j in zip(*np.nonzero(arr))]
            db.execute("create table %s (rank integer, routine integer, v)" % k)
            db.executemany("insert into %s values (?, ?, ?)" % k, rows)
        else:
            db.execute("create table %s (i integer, v)" % k)
            db.executemany("insert into %s values (?, ?)" % k,
                           [(i, v.item()) for i, v in enumerate(arr)])
    db.commit()
    db.close()


def sqlite_read(path):
    db = sqlite3.connect(path)
    out = {}
    for (name,) in db.execute("select name from sqlite_master where type='table'"):
        out[name] = db.execute("select * from %s" % name).fetchall()
    db.close()
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", default="2,1024,16384")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--candidates", action="store_true")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        print("| ranks | container | bytes | read s, median (min-max) |")
        print("| --- | --- | --- | --- |")
        for n in [int(x) for x in args.ranks.split(",")]:
            meta, a = record_synth.stencil(n, seed=n)
            path = os.path.join(d, "r%d.record.npz" % n)
            record.write_record(path, meta, a)
            med, lo, hi = timed(lambda: record.read_record(path), args.repeats)
            print("| %d | npz (zlib) | %d | %.4f (%.4f-%.4f) |"
                  % (n, os.path.getsize(path), med, lo, hi))
            if not args.candidates:
                continue
            raw = os.path.join(d, "r%d.npz" % n)
            with open(raw, "wb") as f:
                np.savez(f, **{k: np.asarray(v) for k, v in a.items()})
            med, lo, hi = timed(lambda: dict(np.load(raw)), args.repeats)
            print("| %d | npz (stored) | %d | %.4f (%.4f-%.4f) |"
                  % (n, os.path.getsize(raw), med, lo, hi))
            db = os.path.join(d, "r%d.sqlite" % n)
            sqlite_write(db, meta, a)
            med, lo, hi = timed(lambda: sqlite_read(db), args.repeats)
            print("| %d | SQLite | %d | %.4f (%.4f-%.4f) |"
                  % (n, os.path.getsize(db), med, lo, hi))
    return 0


if __name__ == "__main__":
    sys.exit(main())
