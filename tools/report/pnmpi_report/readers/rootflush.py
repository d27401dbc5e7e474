# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`MPI_M_rootflush` files of the monitor's sessions: `NAME_counts.<rank>.prof` and
`NAME_sizes.<rank>.prof` written by the root, one matrix row per line (row = sender, in
ranks of the session's communicator), numbers separated by spaces. The session's flags
chose which traffic they sum, so they make one category, `session`.

(`MPI_M_flush` writes `NAME.<rank>.prof` with E, C, S, R lines: `prof.py` reads those.)"""

import re

import numpy as np

from ..errors import ReportError
from .square import read_square_matrix
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
    # Rows of numbers; a .prof file of the same name pattern has tabs on every line.
    return b"\t" not in head and not head.startswith(b"#")


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
    counts = read_square_matrix(files["counts"], "an MPI_M_rootflush file")
    sizes = read_square_matrix(files["sizes"], "an MPI_M_rootflush file")
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
