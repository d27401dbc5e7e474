# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""A real job under the monitor (and, on Open MPI, Open MPI's own monitoring and its
ompi_monitoring_prof tool), read back by pnmpi-report: summary, heatmap, html, reorder."""

import json
import os
import sys
import unittest

import numpy as np
from PIL import Image

import common
import fixtures as F
from pnmpi_report import inputs

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import mpi_launch  # noqa: E402

N = 4
HEAVY, ROUNDS, LIGHT = 4096, 5, 64  # tests/report/apps/pairs.c
FLAVOR = os.environ.get("PNMPI_TEST_MPI_FLAVOR", "openmpi")


def mpirun(argv, cwd, extra=(), env=None):
    e = dict(os.environ)
    e.update(env or {})
    launcher = [os.environ["PNMPI_TEST_MPIEXEC"]]
    if FLAVOR == "openmpi":
        e.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                  "OMPI_MCA_rmaps_base_oversubscribe": "1"})
        launcher += ["--oversubscribe"]
    launcher += ["-np", str(N)] + list(extra)
    return mpi_launch.run_job(launcher + argv, FLAVOR, capture_output=True, text=True, cwd=cwd,
                              env=e, timeout=300)


class MpiJob(common.Case):
    def monitored(self, modules=""):
        conf = self.path("conf")
        with open(conf, "w") as f:
            f.write("%smodule monitor\nargument output %s\n" % (modules, self.path("mon")))
        os.chmod(conf, 0o600)
        p = mpirun([os.environ["PNMPI_TEST_RUN"], "-c", conf, "-L",
                    os.environ["PNMPI_TEST_MODULE_DIR"], os.environ["PNMPI_TEST_APP"]],
                   self.dir)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("pairs: %d ranks done" % N, p.stdout)
        return p

    def expected(self):
        """The application's p2p bytes: partner (i + 2) % 4 and i + 1."""
        want = {}
        for i in range(N):
            want[(i, (i + N // 2) % N)] = HEAVY * ROUNDS
            want[(i, (i + 1) % N)] = want.get((i, (i + 1) % N), 0) + LIGHT
        return want

    def test_monitor_output(self):
        self.monitored()
        run = inputs.load_run([self.path("mon")])
        p2p = run.categories["p2p"].bytes
        self.assertEqual({(int(s), int(d)): int(v) for s, d, v in zip(p2p.src, p2p.dst, p2p.val)},
                         self.expected())
        out, _ = self.ok("summary", "--json", self.path("mon"))
        s = json.loads(out)
        cats = {c["name"]: c for c in s["categories"]}
        self.assertEqual(cats["p2p"]["messages"], N * (ROUNDS + 1))
        self.assertEqual(cats["coll"]["bytes"], 8 * (N - 1))  # the broadcast
        self.assertEqual(s["histograms"]["application"],
                         [{"bin": 7, "label": "64 B+", "messages": N},
                          {"bin": 13, "label": "4.0 KiB+", "messages": N * ROUNDS}])
        # Rank 0 to its partner: the heavy messages and the broadcast.
        self.assertEqual(s["top_talkers"][0], {"from": 0, "to": 2, "bytes": HEAVY * ROUNDS + 8,
                                               "messages": ROUNDS + 1})
        # The picture: heavy partners brighter than the light ring.
        self.ok("heatmap", self.path("mon"), "-o", self.path("h.png"), "--category", "p2p")
        from test_heatmap import cell_colour
        lut = common.viridis_lut()
        img = Image.open(self.path("h.png"))
        heavy = common.colour_scalar(cell_colour(img, N, 0, 2), lut)[0]
        light = common.colour_scalar(cell_colour(img, N, 0, 1), lut)[0]
        self.assertGreater(heavy, 240)
        self.assertLess(light, 15)
        self.assertTrue(np.all(cell_colour(img, N, 0, 3) > 250))
        self.ok("html", self.path("mon"), "-o", self.path("report.html"))
        self.assertIn("data:image/png;base64,", F.read_text(self.path("report.html")))
        # Natural placement on 2 nodes of 2: both heavy pairs cross; reordered, none.
        out, _ = self.ok("reorder", self.path("mon"), "--nodes", "2x2", "--json")
        r = json.loads(out)
        self.assertEqual(r["natural_between"], 2 * 2 * HEAVY * ROUNDS + 2 * LIGHT + 2 * 8)
        self.assertEqual(r["reordered_between"], 4 * LIGHT + 2 * 8)
        self.assertEqual(r["node_of_rank"][0], r["node_of_rank"][2])

    def test_open_mpi_own_files(self):
        if FLAVOR != "openmpi":
            self.skipTest("Open MPI's monitoring components and ompi_monitoring_prof")
        # Open MPI's own per-rank files, from its monitoring components, without pnmpi.
        p = mpirun([os.environ["PNMPI_TEST_APP"]], self.dir,
                   ["--mca", "pml_monitoring_enable", "2", "--mca",
                    "pml_monitoring_enable_output", "3", "--mca", "pml_monitoring_filename",
                    self.path("ompi")])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        run = inputs.load_run([self.path("ompi")])
        p2p = run.categories["p2p"].bytes
        self.assertEqual({(int(s), int(d)): int(v) for s, d, v in zip(p2p.src, p2p.dst, p2p.val)},
                         self.expected())
        self.ok("summary", self.path("ompi"))
        self.ok("heatmap", self.path("ompi"), "-o", self.path("ompi.png"))
        # ompi_monitoring_prof above the monitor: its .mat files in the working directory.
        module = os.environ.get("PNMPI_TEST_PROF_MODULE")
        if not module:
            self.skipTest("no ompi_monitoring_prof.so in this Open MPI")
        self.monitored("module %s\n" % module)
        mats = sorted(os.path.join(self.dir, f) for f in os.listdir(self.dir)
                      if f.endswith(".mat"))
        self.assertEqual(len(mats), 12)
        run = inputs.load_run(mats)
        pml = run.categories["p2p"].bytes
        self.assertEqual(pml.get(0, 2), HEAVY * ROUNDS)  # (a02 + a20) / 2
        self.assertEqual(pml.get(0, 1), LIGHT // 2)  # (64 + 0) / 2
        out, _ = self.ok("summary", *mats)
        self.assertIn("symmetrises", out)


if __name__ == "__main__":
    unittest.main()
