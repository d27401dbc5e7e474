# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Runs one subcommand of pnmpi-report (timeline, check) from the source tree, through the
tool's own cli.main: its errors become the one `pnmpi-report: ...` line and status 2.

Usage: run_subcommand.py SUBCOMMAND ARGS..."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tools", "report"))


def main(argv):
    from pnmpi_report import cli
    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
