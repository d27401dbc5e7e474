# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Shared by pnmpi-report's tests: where things are, running the tool, reading pictures."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
REPORT = os.environ.get("PNMPI_REPORT", os.path.join(SOURCE, "tools", "report", "pnmpi-report"))
SCRATCH = os.environ.get("PNMPI_REPORT_SCRATCH", os.path.join(tempfile.gettempdir(),
                                                              "pnmpi-report-tests"))
sys.path.insert(0, os.path.join(SOURCE, "tools", "report"))
sys.path.insert(0, HERE)


def run(*args, env=None, timeout=600):
    """(exit status, stdout, stderr) of pnmpi-report ARGS."""
    e = dict(os.environ)
    e.pop("PNMPI_REPORT_DEBUG", None)
    e.update(env or {})
    p = subprocess.run([REPORT] + [str(a) for a in args], capture_output=True, text=True,
                       env=e, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


class Case(unittest.TestCase):
    """A test case with its own scratch directory, emptied before each test."""

    def setUp(self):
        self.dir = os.path.join(SCRATCH, self.id().split(".", 1)[-1])
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def ok(self, *args, **kw):
        rc, out, err = run(*args, **kw)
        self.assertEqual(rc, 0, "pnmpi-report %s failed:\n%s%s" % (args, out, err))
        return out, err

    def fails(self, expected, *args, **kw):
        """The tool must fail with status 2 and one line containing `expected`."""
        rc, out, err = run(*args, **kw)
        self.assertEqual(rc, 2, "pnmpi-report %s: status %d\n%s%s" % (args, rc, out, err))
        self.assertNotIn("Traceback", err)
        lines = err.strip().split("\n")
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("pnmpi-report: "), err)
        self.assertIn(expected, lines[0])
        return lines[0]


def viridis_lut():
    import matplotlib
    return (matplotlib.colormaps["viridis"](range(256))[:, :3] * 255).round()


def colour_scalar(rgb, lut):
    """Position 0..255 of the viridis colour nearest to rgb, and its distance."""
    import numpy as np
    d = np.sqrt(((lut - np.asarray(rgb[:3], dtype=float)) ** 2).sum(axis=1))
    k = int(d.argmin())
    return k, float(d[k])
