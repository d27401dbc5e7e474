# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""4096 ranks: every reader and view works, with progress on stderr (no bound on the time:
ctest's TIMEOUT ends a hang)."""

import json
import os
import unittest

import common
import fixtures as F

N = 4096


class Scale(common.Case):
    def test_4096_per_rank_files_and_json_v2(self):
        # Each rank talks to rank + 1 and to rank + 64 (the next node of 64).
        lines = {r: [("E", (r + 1) % N, 1000, 1, F.histogram([1000])),
                     ("E", (r + 64) % N, 10, 1, F.histogram([10]))] for r in range(N)}
        F.write_prof(self.path("mon"), N, lines, world=False)
        out, err = self.ok("summary", "--json", self.path("mon"), "--nodes", "64x64")
        s = json.loads(out)
        self.assertIn("reading %s.*.prof: rank 3840 of 4096" % self.path("mon"), err)
        self.assertEqual(s["origins"]["application"]["bytes"], N * 1010)
        self.assertEqual(s["nodes"]["between"], 64 * 1000 + N * 10)
        self.assertEqual(s["histograms"]["application"][1]["messages"], N)
        out, _ = self.ok("heatmap", self.path("mon"), "-o", self.path("blocks.png"))
        self.assertIn("256x256 cells (one per block of 16 ranks)", out)
        hosts = ["node%02d" % (r // 64) for r in range(N)]
        entries = sorted([[r, (r + 1) % N, 1, 1000] for r in range(N)] +
                         [[r, (r + 64) % N, 1, 10] for r in range(N)])
        doc = {"format": "pnmpi-monitor-matrices", "version": 2, "world_size": N,
               "orientation": F.ORIENTATION, "hosts": hosts,
               "categories": {"p2p": {"origin": "application", "what": "t",
                                      "entries": entries}}}
        F.write_json(self.path("run.json"), doc)
        out, _ = self.ok("heatmap", self.path("run.json"), "-o", self.path("nodes.png"))
        self.assertIn("64x64 cells (one per node)", out)
        self.ok("html", self.path("run.json"), "-o", self.path("report.html"))
        # No bound on the time taken (a loaded machine may take any time): ctest's TIMEOUT
        # ends a run that hangs; bench/ measures speed.

    def test_large_dense_json_v1(self):
        n = 1024  # 16 dense matrices of a million cells, 34 MB: read with progress
        c, b = F.zeros(n), F.zeros(n)
        for i in range(n):
            c[i][(i + 3) % n], b[i][(i + 3) % n] = 2, 77
        F.write_json_v1(self.path("big.json"), n, {"coll": (c, b)})
        self.assertGreater(os.path.getsize(self.path("big.json")), 32 << 20)
        out, err = self.ok("summary", "--json", self.path("big.json"))
        self.assertIn("pnmpi-report: reading %s (" % self.path("big.json"), err)
        s = json.loads(out)
        self.assertEqual([c["bytes"] for c in s["categories"] if c["name"] == "coll"],
                         [77 * n])


if __name__ == "__main__":
    unittest.main()
