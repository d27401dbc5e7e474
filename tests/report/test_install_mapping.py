# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi-report finds pnmpi's mapping library by itself: the build tree's
BUILD/bin/pnmpi-report uses BUILD/lib, an installed bin/pnmpi-report its own lib/
(components `report` and `mapping`), with PNMPI_MAPPING_LIBRARY unset."""

import json
import os
import subprocess
import unittest

import common
import fixtures as F


class InstallMapping(common.Case):
    def reorder(self, tool):
        n = 4
        c, b = F.zeros(n), F.zeros(n)
        for r in range(n):
            c[r][(r + 2) % n], b[r][(r + 2) % n] = 1, 100
        F.write_json_v1(self.path("run.json"), n, {"p2p": (c, b)})
        env = dict(os.environ)
        env.pop("PNMPI_MAPPING_LIBRARY", None)
        p = subprocess.run([tool, "reorder", self.path("run.json"), "--nodes", "2x2", "--json"],
                           capture_output=True, text=True, env=env, timeout=300, cwd=self.dir)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        r = json.loads(p.stdout)
        self.assertEqual((r["natural_between"], r["reordered_between"]), (400, 0))

    def test_build_tree(self):
        self.reorder(os.path.join(os.environ["PNMPI_TEST_BUILD_DIR"], "bin", "pnmpi-report"))

    def test_install(self):
        build = os.environ["PNMPI_TEST_BUILD_DIR"]
        prefix = self.path("prefix")
        for component in ("report", "mapping"):
            p = subprocess.run([os.environ.get("CMAKE_COMMAND", "cmake"), "--install", build,
                                "--prefix", prefix, "--component", component],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.reorder(os.path.join(prefix, "bin", "pnmpi-report"))


if __name__ == "__main__":
    unittest.main()
