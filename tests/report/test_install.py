# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`cmake --install` puts pnmpi-report in bin/ and its package under share/, and the
installed copy runs from there (also through a symbolic link to it). Only its install
component is installed: the sanitizer build runs this test without building everything."""

import os
import subprocess
import unittest

import common
import fixtures as F


class Install(common.Case):
    def test_installed_copy_runs(self):
        build = os.environ["PNMPI_TEST_BUILD_DIR"]
        prefix = self.path("prefix")
        p = subprocess.run([os.environ.get("CMAKE_COMMAND", "cmake"), "--install", build,
                            "--prefix", prefix, "--component", "report"],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        tool = os.path.join(prefix, "bin", "pnmpi-report")
        self.assertTrue(os.access(tool, os.X_OK))
        with open(tool) as f:
            self.assertEqual(f.readline(), "#!/usr/bin/python3\n")
        package = os.path.join(prefix, "share", "pnmpi", "python", "pnmpi_report")
        for name in ("cli.py", "summary.py", "heatmap.py", "html.py", "diff.py", "reorder.py",
                     "readers/monitor_json.py"):
            self.assertTrue(os.path.isfile(os.path.join(package, name)), name)
        c, b = F.zeros(2), F.zeros(2)
        c[0][1], b[0][1] = 1, 64
        F.write_json_v1(self.path("run.json"), 2, {"p2p": (c, b)})
        link = self.path("pnmpi-report")
        os.symlink(tool, link)
        for exe in (tool, link):
            rc, out, err = self.run_tool(exe, "summary", self.path("run.json"))
            self.assertEqual(rc, 0, err)
            self.assertIn("p2p               application         1     64", out)
        rc, out, err = self.run_tool(tool, "heatmap", self.path("run.json"), "-o",
                                     self.path("h.png"))
        self.assertEqual(rc, 0, err)
        self.assertTrue(os.path.getsize(self.path("h.png")) > 1000)
        self.assertEqual(os.listdir(os.path.join(prefix, "share", "pnmpi", "python")),
                         ["pnmpi_report"])  # nothing written beside it (no __pycache__)
        self.assertNotIn("__pycache__", os.listdir(package))

    def run_tool(self, exe, *args):
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        p = subprocess.run([exe] + list(args), capture_output=True, text=True, env=env,
                           timeout=300, cwd=self.dir)
        return p.returncode, p.stdout, p.stderr


if __name__ == "__main__":
    unittest.main()
