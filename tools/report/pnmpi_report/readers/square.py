# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Square matrices of integers as text, one row per line, values separated by spaces: what
`ompi_monitoring_prof` writes (`.mat`) and what `MPI_M_rootflush` writes (`_counts`,
`_sizes`)."""

import warnings

import numpy as np

from ..errors import ReportError


def read_square_matrix(path, kind):
    """The matrix in `path` as an int64 array; `kind` names the format in the errors."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("ascii")
    except OSError as e:
        raise ReportError("cannot read: %s" % e.strerror, path)
    except UnicodeDecodeError as e:
        raise ReportError("not text (byte %d): not %s" % (e.start, kind), path)
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
            raise ReportError("this row is not %d integers separated by spaces, and the file "
                              "has %d rows: a matrix must be square (truncated file?)"
                              % (n, n), path, i + 1)
        out[i] = values
    return out
