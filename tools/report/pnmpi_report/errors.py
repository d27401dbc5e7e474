# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The one error type the command line turns into a single line and a non-zero exit."""


class ReportError(Exception):
    """A problem with the user's input or environment, printed as `pnmpi-report: MESSAGE`.

    `where` is `FILE` or `FILE:LINE`; the message says what is wrong and what to do."""

    def __init__(self, message, where=None, line=None):
        if where is not None and line is not None:
            where = "%s:%d" % (where, line)
        super().__init__("%s: %s" % (where, message) if where else message)
