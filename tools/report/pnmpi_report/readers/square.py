# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Square matrices of integers as text, one row per line, values separated by spaces: what
`ompi_monitoring_prof` writes (`.mat`) and what `MPI_M_rootflush` writes (`_counts`,
`_sizes`)."""

import re
import warnings

import numpy as np

from ..errors import ReportError

# A cell is a decimal count: numpy would read "-3" as -3, "0x10" as 0, "1.5" as 1 and "1e3"
# as 1, silently.
_NOT_A_CELL = re.compile(r"[^0-9 \n]")
_INT64_MAX = (1 << 63) - 1


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
    bad = _NOT_A_CELL.search(text)
    if bad:
        start = text.rfind("\n", 0, bad.start()) + 1
        line = text[start:text.find("\n", bad.start())]
        col = bad.start() - start
        end = line.find(" ", col)
        token = line[line.rfind(" ", 0, col) + 1:end if end >= 0 else len(line)]
        raise ReportError("%r is not a cell of %s: cells are whole numbers of 0 or more "
                          "(decimal digits only)" % (token[:40], kind), path,
                          text.count("\n", 0, bad.start()) + 1)
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
        if values.size and values.max() == _INT64_MAX:
            raise ReportError("a number of 2^63 or more: more bytes or messages than "
                              "pnmpi-report counts", path, i + 1)
        out[i] = values
    return out
