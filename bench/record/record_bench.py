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
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tools", "report"))
from pnmpi_report import record, record_synth  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchlib import timed  # noqa: E402


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
    p.add_argument("--cxx", metavar="RECORD_SYNTH",
                   help="also time records written by the C++ writer (bench/record/record_synth)")
    p.add_argument("--check", action="store_true",
                   help="fail if a record exceeds its size limit or reads back wrong")
    args = p.parse_args()
    failed = []
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
            if args.check and n in LIMITS and os.path.getsize(path) > LIMITS[n]:
                failed.append("python writer, %d ranks: %d bytes" % (n, os.path.getsize(path)))
            if args.cxx:
                cxx = os.path.join(d, "c%d.record.npz" % n)
                subprocess.run([args.cxx, str(n), cxx], check=True)
                med, lo, hi = timed(lambda: record.read_record(cxx), args.repeats)
                print("| %d | npz (zlib), C++ writer | %d | %.4f (%.4f-%.4f) |"
                      % (n, os.path.getsize(cxx), med, lo, hi))
                if args.check:
                    failed += check_cxx(record.read_record(cxx), n, os.path.getsize(cxx))
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
    for f in failed:
        print("record_bench: FAILED: " + f)
    return 1 if failed else 0


# docs/record.md: at most 64 KB at 1,024 ranks and 1 MB at 16,384 (3-D stencil).
LIMITS = {1024: 64 * 1024, 16384: 1024 * 1024}


def check_cxx(r, n, size):
    """What record_synth.cpp made, exactly."""
    bad = []
    if n in LIMITS and size > LIMITS[n]:
        bad.append("C++ writer, %d ranks: %d bytes > %d" % (n, size, LIMITS[n]))
    neighbours = np.bincount(r.p2p_src.astype(np.int64), minlength=n)
    k = r.routine_index("MPI_Isend")
    if r.ranks != n or k is None or not np.array_equal(r.calls[:, k], neighbours * 100):
        bad.append("C++ writer, %d ranks: MPI_Isend calls differ from the neighbours" % n)
    if not np.all(r.p2p_count == 100) or not np.all(r.p2p_bytes == 100 * 8 * 64 * 64):
        bad.append("C++ writer, %d ranks: point-to-point values differ" % n)
    comms = r.communicators()
    if len(comms) != 1 or comms[0][0] != "MPI_COMM_WORLD" or \
            not np.array_equal(comms[0][1], np.arange(n)) or not np.all(comms[0][2] == 800):
        bad.append("C++ writer, %d ranks: the world communicator differs" % n)
    if r.ended != "finalized" or len(r.hosts) != (n + 63) // 64:
        bad.append("C++ writer, %d ranks: ended %s, %d hosts" % (n, r.ended, len(r.hosts)))
    return bad


if __name__ == "__main__":
    sys.exit(main())
