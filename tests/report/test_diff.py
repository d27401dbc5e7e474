# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report diff A B`: totals, the pairs that changed most, node traffic."""

import json
import unittest

import common
import fixtures as F

N = 4


class Diff(common.Case):
    def write(self, name, heavy, hosts):
        c, b = F.zeros(N), F.zeros(N)
        for i in range(N):
            c[i][(i + 1) % N], b[i][(i + 1) % N] = 1, 100
        c[0][2], b[0][2] = 3, heavy
        F.write_json_v2(self.path(name), N, {"p2p": (c, b)}, hosts)
        return self.path(name)

    def test_changes(self):
        a = self.write("a.json", 3000, ["x", "x", "y", "y"])
        b = self.write("b.json", 500, ["x", "y", "x", "y"])
        out, _ = self.ok("diff", "--json", a, b)
        d = json.loads(out)
        p2p = [c for c in d["categories"] if c["name"] == "p2p"][0]
        self.assertEqual((p2p["a_bytes"], p2p["b_bytes"]), (3400, 900))
        self.assertEqual(d["changed_pairs"], 1)
        self.assertEqual(d["pairs"], [{"from": 0, "to": 2, "a": 3000, "b": 500,
                                       "change": -2500}])
        # A: x = {0, 1}: 0->2 3000, 1->2 100, 3->0 100 cross. B: x = {0, 2}: all ring cross.
        self.assertEqual(d["nodes"], {"a_between": 3200, "b_between": 400, "a_hosts": 2,
                                      "b_hosts": 2})
        out, _ = self.ok("diff", a, b)
        self.assertIn("0 -> 2: 3000 -> 500 bytes (-2500", out)
        self.assertIn("-2500 (-73.5%)", out)
        self.assertIn("Bytes between nodes (app): A 3200 on 2 hosts, B 400 on 2 hosts (-2800)",
                      out)
        out, _ = self.ok("diff", a, a)
        self.assertIn("none: the matrices are equal", out)

    def test_different_sizes_and_errors(self):
        a = self.write("a.json", 3000, ["x"] * N)
        F.write_json_v1(self.path("six.json"), 6, {})
        out, _ = self.ok("diff", a, self.path("six.json"))
        self.assertIn("not compared (4 ranks against 6)", out)
        self.fails("no such file", "diff", a, self.path("missing.json"))


if __name__ == "__main__":
    unittest.main()
