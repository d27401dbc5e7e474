# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Runs one subcommand of pnmpi-report (timeline, check) from the source tree, through the
interface the tool's cli.py uses: HELP, add_arguments(parser), run(args) -> int.

Usage: run_subcommand.py SUBCOMMAND ARGS..."""

import argparse
import importlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tools", "report"))


def main(argv):
    module = importlib.import_module(f"pnmpi_report.{argv[0]}")
    parser = argparse.ArgumentParser(prog=f"pnmpi-report {argv[0]}", description=module.HELP)
    module.add_arguments(parser)
    return module.run(parser.parse_args(argv[1:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
