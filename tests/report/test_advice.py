# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`summary` and `html` say what share of bytes crosses nodes now and after the mapping
library's placement on the same hosts, and the .pnmpi-conf lines of module place."""

import json
import os
import unittest

import common
import fixtures as F


def partners_across(n=4, heavy=5000):
    """Heavy partners r <-> r + n/2: every pair split by hosts of n/2 consecutive ranks."""
    c, b = F.zeros(n), F.zeros(n)
    for r in range(n):
        c[r][(r + n // 2) % n], b[r][(r + n // 2) % n] = 1, heavy
    return c, b


class Advice(common.Case):
    def test_summary_says_now_after_and_how(self):
        c, b = partners_across()
        F.write_json_v2(self.path("run.json"), 4, {"p2p": (c, b)}, ["a", "a", "b", "b"])
        out, _ = self.ok("summary", self.path("run.json"))
        self.assertIn("\nPlacement (pnmpi's mapping library: the same hosts, each keeping its "
                      "ranks)\n"
                      "application bytes between nodes now 20000 (100.0%), after placement 0 "
                      "(0.0%): 20000 fewer\n", out)
        self.assertIn("apply it to the unchanged program with pnmpi's module place:\n"
                      "  in .pnmpi-conf, computed at start-up from this run, on whatever hosts "
                      "the job gets:\n"
                      "    module place\n"
                      "    argument from %s\n" % self.path("run.json"), out)
        out, _ = self.ok("summary", self.path("run.json"), "--json")
        p = json.loads(out)["placement"]
        self.assertEqual((p["total"], p["between_now"], p["between_after"], p["hosts"]),
                         (20000, 20000, 0, 2))
        self.assertEqual(p["conf"][0]["lines"],
                         ["module place", "argument from " + self.path("run.json")])

    def test_already_placed_and_unknown_hosts(self):
        c, b = partners_across()
        F.write_json_v2(self.path("good.json"), 4, {"p2p": (c, b)}, ["a", "b", "a", "b"])
        out, _ = self.ok("summary", self.path("good.json"))
        self.assertIn("application bytes between nodes now 0 (0.0%), after placement 0 (0.0%): "
                      "the run's placement is kept\n", out)
        self.assertNotIn("module place", out)
        F.write_json_v1(self.path("v1.json"), 4, {"p2p": (c, b)})
        out, _ = self.ok("summary", self.path("v1.json"))
        self.assertIn("\nPlacement (pnmpi's mapping library: the same hosts, each keeping its "
                      "ranks)\nhosts unknown: --nodes NxC or --hostfile FILE assume a "
                      "placement\n", out)
        out, _ = self.ok("summary", self.path("v1.json"), "--nodes", "2x2")
        self.assertIn("now 20000 (100.0%), after placement 0 (0.0%): 20000 fewer\n", out)

    def test_without_the_library_the_summary_still_runs(self):
        c, b = partners_across()
        F.write_json_v2(self.path("run.json"), 4, {"p2p": (c, b)}, ["a", "a", "b", "b"])
        out, _ = self.ok("summary", self.path("run.json"),
                         env={"PNMPI_MAPPING_LIBRARY": self.path("missing.so")})
        self.assertIn("\nnot computed: this needs pnmpi's mapping library and cannot load it (",
                      out)

    def test_html_has_the_section(self):
        c, b = partners_across()
        F.write_json_v2(self.path("run.json"), 4, {"p2p": (c, b)}, ["a", "a", "b", "b"])
        self.ok("html", self.path("run.json"), "-o", self.path("r.html"))
        page = F.read_text(self.path("r.html"))
        self.assertIn("<h2>Placement</h2>\n<p>Application bytes between nodes now <b>20000</b> "
                      "(100.0%), after placement by pnmpi's mapping library on the same hosts, "
                      "each keeping its ranks: <b>0</b> (0.0%).</p>", page)
        self.assertIn("<pre>module place\nargument from %s</pre>" % self.path("run.json"), page)
        self.assertLess(page.index("<h2>Placement</h2>"), page.index("<h2>Totals</h2>"))


if __name__ == "__main__":
    unittest.main()
