# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`MPI_M_rootflush` files of the monitor's sessions: `NAME_counts.<rank>.prof` and
`NAME_sizes.<rank>.prof` written by the root, one matrix row per line (row = sender, in
ranks of the session's communicator), numbers separated by spaces. The session's flags
chose which traffic they sum, so they make one category, `session`.

(`MPI_M_flush` writes `NAME.<rank>.prof` with E, C, S, R lines: `prof.py` reads those.)"""

import re
import warnings

import numpy as np

from ..errors import ReportError
from ..model import APPLICATION, Category, Run, Sparse

NAME = re.compile(r"\A(?P<name>.*)_(?P<part>counts|sizes)\.(?P<rank>\d+)\.prof\Z")


def is_rootflush(path):
    m = NAME.match(path)
    if m is None:
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return True  # the reader reports it
    return re.match(rb"\A[0-9 \n]*\Z", head) is not None


def _read_matrix(path):
    try:
        with open(path, "rb") as f:
            text = f.read().decode("ascii")
    except OSError as e:
        raise ReportError("cannot read: %s" % e.strerror, path)
    except UnicodeDecodeError as e:
        raise ReportError("not text (byte %d)" % e.start, path)
    if not text:
        raise ReportError("empty file", path)
    if not text.endswith("\n"):
        raise ReportError("the last line has no end: the file is truncated",
                          path, text.count("\n") + 1)
    rows = text.split("\n")[:-1]
    n = len(rows)
    out = np.zeros((n, n), dtype=np.int64)
    for i, row in enumerate(rows):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            values = np.fromstring(row, dtype=np.int64, sep=" ")
        if values.size != n or len(row.split(None, n)) != n:
            raise ReportError("this row is not %d integers separated by spaces (the file "
                              "has %d rows; truncated?)" % (n, n), path, i + 1)
        out[i] = values
    return out


def read(paths, source):
    parts = {}
    for p in paths:
        m = NAME.match(p)
        if m is None:
            raise ReportError("not an MPI_M_rootflush file (NAME_counts.<rank>.prof or "
                              "NAME_sizes.<rank>.prof)", p)
        key = (m.group("name"), m.group("rank"))
        parts.setdefault(key, {})[m.group("part")] = p
    if len(parts) != 1:
        raise ReportError("files of %d different flushes given (%s): give the _counts and "
                          "_sizes files of one" % (len(parts), ", ".join(
                              "%s_*.%s.prof" % k for k in sorted(parts))), source)
    (name, rank), files = next(iter(parts.items()))
    for part in ("counts", "sizes"):
        if part not in files:
            raise ReportError("%s_%s.%s.prof is missing beside it" % (name, part, rank),
                              next(iter(files.values())))
    counts = _read_matrix(files["counts"])
    sizes = _read_matrix(files["sizes"])
    n = counts.shape[0]
    if sizes.shape[0] != n:
        raise ReportError("a %d x %d matrix, but %s is %d x %d: files of different flushes?"
                          % (sizes.shape[0], sizes.shape[0], files["counts"], n, n),
                          files["sizes"])
    run = Run(source, "MPI_M_rootflush session matrices (%s_{counts,sizes}.%s.prof)"
              % (name, rank), n)
    mats = []
    for d in (counts, sizes):
        src, dst = np.nonzero(d)
        mats.append(Sparse(n, src, dst, d[src, dst]))
    run.add(Category("session", APPLICATION, "the session's traffic (as its flags chose), "
                     "in ranks of the session's communicator", mats[0], mats[1]))
    run.notes.append("ranks are those of the session's communicator")
    return run
