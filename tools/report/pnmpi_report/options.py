# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Numeric options checked before anything is read or allocated for them, with one message
form: `pnmpi-report: --top must be ..., not -1`."""

from .errors import ReportError


def count(value, name, low=0, high=10 ** 9):
    """An integer option from `low` to `high`, as given (argparse made it an int)."""
    if not low <= value <= high:
        raise ReportError("%s must be a whole number from %d to %d, not %d"
                          % (name, low, high, value))
    return value
