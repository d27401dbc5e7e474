# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Per-rank `.prof` files: the monitor's (`PREFIX.<rank>.prof`), Open MPI's own monitoring
(`pml_monitoring_filename`) and the monitor's `MPI_M_flush` session files, which share
Open MPI's line format:

    E<TAB>me<TAB>peer<TAB>B bytes<TAB>M msgs sent[<TAB>h0,h1,...,h65]

E: point-to-point the application issued; I: point-to-point it did not (modules above the
monitor; in Open MPI's files, the MPI's internal messages); S/R: one-sided data sent and
fetched; C: collectives as per-peer messages. D blocks describe communicators."""

import re

import numpy as np

from ..errors import ReportError
from ..model import APPLICATION, HISTOGRAM_BINS, MODULES, Category, Run, Sparse, progress

NAME = re.compile(r"\A(?P<prefix>.*)\.(?P<rank>\d{1,9})\.prof\Z", re.ASCII)
_PAIR = re.compile(r"\A([EISRC])\t(\d{1,9})\t(\d{1,9})\t(\d+) bytes\t(\d+) msgs sent"
                   r"(?:\t([0-9,]*))?\Z", re.ASCII)
_CLASS = re.compile(r"\A(O2A|A2O|A2A)\t(\d+)\t(\d+) bytes\t(\d+) msgs sent\Z",
                    re.ASCII)
_COMM = re.compile(r"\AD\t(.*)\tprocs: ([0-9,]*)\Z")

# Line type -> (category, origin, what)
TYPES = {
    "E": ("p2p", APPLICATION, "point-to-point messages the application sent (E lines)"),
    "C": ("coll", APPLICATION, "collectives as per-peer messages (C lines)"),
    "S": ("osc_sent", APPLICATION, "one-sided data sent by the origin (S lines)"),
    "R": ("osc_fetched", APPLICATION, "one-sided data fetched by the origin (R lines)"),
    "I": ("p2p_tool", MODULES, "point-to-point the application did not issue (I lines: "
          "modules above the monitor; in Open MPI's own files, its internal messages)"),
}


INT64_MAX = (1 << 63) - 1


def _count(text, path, ln):
    """A count or byte number of a line, at most what int64 holds."""
    v = int(text) if len(text) <= 19 else INT64_MAX + 1
    if v > INT64_MAX:
        raise ReportError("a number of 2^63 or more (%s...): more bytes or messages than "
                          "pnmpi-report counts" % text[:20], path, ln)
    return v


def rank_of(path):
    m = NAME.match(path)
    return (m.group("prefix"), int(m.group("rank"))) if m else None


def read(paths, source):
    """paths: the .prof files of one run, one per rank 0..N-1, of one prefix."""
    by_rank, prefix = {}, None
    for p in paths:
        pr = rank_of(p)
        if pr is None:
            raise ReportError("not a per-rank file (its name must end in .<rank>.prof)", p)
        if prefix is not None and pr[0] != prefix:
            raise ReportError("is not of the same run as %s.*.prof (another prefix): give "
                              "the files of one run" % prefix, p)
        prefix = pr[0]
        if pr[1] in by_rank:
            raise ReportError("rank %d is given twice (also %s)" % (pr[1], by_rank[pr[1]]), p)
        by_rank[pr[1]] = p
    n = len(by_rank)
    for r in range(n):
        if r not in by_rank:
            raise ReportError("rank %d's file is missing (%s.%d.prof): %d files were given, "
                              "so ranks 0 to %d are expected" % (r, prefix, r, n, n - 1),
                              max(by_rank.values(), key=lambda q: rank_of(q)[1]))
    cols = {t: ([], [], [], []) for t in TYPES}
    hist = {APPLICATION: np.zeros(HISTOGRAM_BINS, dtype=np.int64),
            MODULES: np.zeros(HISTOGRAM_BINS, dtype=np.int64)}
    have_hist = False
    for r in range(n):
        if n >= 256 and r % 256 == 0:
            progress("reading %s.*.prof: rank %d of %d" % (prefix, r, n))
        have_hist |= _read_one(by_rank[r], r, n, cols, hist)
    run = Run(source, "per-rank .prof files (%s.<rank>.prof)" % prefix, n)
    for t, (name, origin, what) in TYPES.items():
        src, dst, cnt, byt = (np.array(c, dtype=np.int64) for c in cols[t])
        if t in ("E", "C") or src.size:
            run.add(Category(name, origin, what, Sparse.build(n, src, dst, cnt),
                             Sparse.build(n, src, dst, byt)))
    if have_hist:
        run.histograms = hist
    return run


def _read_one(path, rank, n, cols, hist):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReportError("cannot read: %s" % e.strerror, path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ReportError("not text (byte %d): not a .prof file" % e.start, path)
    if not text:
        raise ReportError("empty file: every .prof file has at least a header line (the "
                          "monitor's, Open MPI's and MPI_M_flush's): was the run killed "
                          "while writing it?", path)
    if not text.endswith("\n"):
        raise ReportError("the last line has no end: the file is truncated (was the run "
                          "killed while writing it?)", path, text.count("\n") + 1)
    have_hist = False
    for ln, line in enumerate(text.split("\n")[:-1], 1):
        if not line or line.startswith("#"):
            continue
        m = _PAIR.match(line)
        if m:
            t, me, peer = m.group(1), int(m.group(2)), int(m.group(3))
            if me != rank:
                raise ReportError("a line of rank %d in rank %d's file: files of different "
                                  "runs or renamed files?" % (me, rank), path, ln)
            if peer >= n:
                raise ReportError("peer %d, but %d files were given (ranks 0 to %d): the "
                                  "files of some ranks are missing, or are of a run of "
                                  "another size" % (peer, n, n - 1), path, ln)
            c = cols[t]
            c[0].append(me)
            c[1].append(peer)
            c[3].append(_count(m.group(4), path, ln))
            c[2].append(_count(m.group(5), path, ln))
            if m.group(6) is not None and t in ("E", "I"):
                bins = m.group(6).split(",")
                if len(bins) != HISTOGRAM_BINS or "" in bins:
                    raise ReportError("the histogram must have %d bins, not %d"
                                      % (HISTOGRAM_BINS, len(bins)), path, ln)
                hist[APPLICATION if t == "E" else MODULES] += np.array(
                    [_count(b, path, ln) for b in bins], dtype=np.int64)
                have_hist = True
            continue
        m = _COMM.match(line)
        if m:
            if m.group(1) == "MPI_COMM_WORLD":
                size = len(m.group(2).split(",")) if m.group(2) else 0
                if size != n:
                    raise ReportError("MPI_COMM_WORLD has %d processes, but %d files were "
                                      "given: files of different runs?" % (size, n), path, ln)
            continue
        if _CLASS.match(line):
            continue
        raise ReportError("not a line of a .prof file: %r" % line[:80], path, ln)
    return have_hist
