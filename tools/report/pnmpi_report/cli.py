# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The command line: one module per subcommand, each with HELP, add_arguments(parser) and
run(args) -> exit status. A ReportError becomes one line on stderr and status 2."""

import argparse
import importlib
import os
import sys
import traceback

from .errors import ReportError
from .text import message, printable

SUBCOMMANDS = ["summary", "heatmap", "html", "diff", "reorder", "timeline", "check", "site"]


def build_parser():
    parser = argparse.ArgumentParser(
        prog="pnmpi-report",
        description="The communication monitor's data as tables, pictures and rank "
                    "placements. See docs/report.md.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in SUBCOMMANDS:
        module = importlib.import_module("pnmpi_report." + name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def _silence_stdout():
    """What is left in stdout's buffer would fail again at exit, with a second message."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError):
        pass


def main(argv):
    try:
        args = build_parser().parse_args(argv)
        status = args._run(args)
        sys.stdout.flush()
        return status
    except ReportError as e:
        sys.stderr.write("pnmpi-report: %s\n" % message(e))
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("pnmpi-report: interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader of our output went away (`| head`): not an error of ours.
        sys.stderr.close()
        return 0
    except OSError as e:
        # Writing the tables to a full disk or a closed terminal (files are written by
        # output.write_atomic, whose errors are ReportErrors).
        _silence_stdout()
        sys.stderr.write("pnmpi-report: %s: cannot write: %s\n" % (
            message(e.filename) if e.filename else "standard output",
            e.strerror or message(e)))
        return 2
    except MemoryError:
        sys.stderr.write("pnmpi-report: out of memory\n")
        return 2
    except Exception as e:  # a defect of pnmpi-report, not of the input
        if os.environ.get("PNMPI_REPORT_DEBUG"):
            traceback.print_exc()
        sys.stderr.write("pnmpi-report: internal error: %s: %s (please report it with the "
                         "command line; PNMPI_REPORT_DEBUG=1 prints where)\n"
                         % (type(e).__name__, message(e)))
        return 3
