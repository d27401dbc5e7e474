# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report summary`: every number checked against a run of known content."""

import json
import unittest

import common
import fixtures as F

N = 6
HOSTS = ["n0", "n0", "n0", "n1", "n1", "n1"]


def traffic():
    """p2p: i -> i+1 (100 * (i+1) bytes, 2 messages); 0 <-> 3 heavy (5000 bytes);
    osc_fetched: 5 fetched 40 bytes from 2; p2p_tool: 1 -> 0 16 bytes."""
    c, b = F.zeros(N), F.zeros(N)
    for i in range(N):
        c[i][(i + 1) % N], b[i][(i + 1) % N] = 2, 100 * (i + 1)
    c[0][3], b[0][3] = 5, 5000
    c[3][0], b[3][0] = 5, 5000
    fc, fb = F.zeros(N), F.zeros(N)
    fc[5][2], fb[5][2] = 1, 40
    tc, tb = F.zeros(N), F.zeros(N)
    tc[1][0], tb[1][0] = 2, 16
    return {"p2p": (c, b), "osc_fetched": (fc, fb), "p2p_tool": (tc, tb)}


class Summary(common.Case):
    def setUp(self):
        super().setUp()
        F.write_json_v2(self.path("run.json"), N, traffic(), HOSTS, dense=False)

    def summary(self, *extra):
        out, _ = self.ok("summary", "--json", self.path("run.json"), *extra)
        return json.loads(out)

    def test_numbers(self):
        s = self.summary("--top", "3")
        cats = {c["name"]: c for c in s["categories"]}
        p2p_bytes = 100 * sum(range(1, N + 1)) + 10000
        self.assertEqual(cats["p2p"]["bytes"], p2p_bytes)
        self.assertEqual(cats["p2p"]["messages"], 2 * N + 10)
        self.assertEqual(cats["p2p"]["pairs"], N + 2)
        self.assertEqual(s["origins"]["application"]["bytes"], p2p_bytes + 40)
        self.assertEqual(s["origins"]["modules"], {"messages": 2, "bytes": 16})
        self.assertEqual([(p["from"], p["to"], p["bytes"], p["messages"])
                          for p in s["top_talkers"]],
                         [(0, 3, 5000, 5), (3, 0, 5000, 5), (5, 0, 600, 2)])
        # Nodes: 0,1,2 | 3,4,5. Crossing: 0->3, 3->0, 2->3 (300), 5->0 (600), fetched 5->2.
        between = 5000 + 5000 + 300 + 600 + 40
        self.assertEqual(s["nodes"]["between"], between)
        self.assertEqual(s["nodes"]["inside"], p2p_bytes + 40 - between)
        hosts = {h["host"]: h for h in s["nodes"]["hosts"]}
        self.assertEqual(hosts["n0"]["sent_out"], 5000 + 300)
        self.assertEqual(hosts["n1"]["received_in"], 5000 + 300)
        self.assertEqual(hosts["n0"]["inside"], 100 + 200)
        # Load: bytes sent, one-sided fetches excluded.
        sent = [100 * (i + 1) for i in range(N)]
        sent[0] += 5000
        sent[3] += 5000
        self.assertEqual(s["load"]["per_rank"], sent)
        self.assertEqual(s["load"]["max"], 5400)
        self.assertEqual(s["load"]["max_rank"], 3)
        self.assertAlmostEqual(s["load"]["imbalance"], 5400 / (sum(sent) / N))

    def test_text(self):
        out, _ = self.ok("summary", self.path("run.json"))
        self.assertIn("2 hosts; application bytes inside nodes %d, between nodes 10940"
                      % (100 * 21 + 10000 + 40 - 10940), out)
        self.assertIn("max 5400 (rank 3)", out)
        self.assertRegex(out, r"\np2p_tool +modules +2 +16 ")

    def test_assumed_nodes_and_histograms(self):
        F.write_json_v1(self.path("v1.json"), N, traffic())
        lines = {0: [("E", 1, 100, 2, F.histogram([0, 100]))],
                 1: [("E", 2, 200, 2, F.histogram([100, 100]))]}
        F.write_prof(self.path("v1"), N, lines)
        # The .prof files beside this JSON are not of its run: their histograms are left out.
        out, _ = self.ok("summary", "--json", self.path("v1"), "--nodes", "2x3")
        s = json.loads(out)
        self.assertTrue(s["nodes"]["assumed"])
        self.assertEqual(s["nodes"]["between"], 10940)
        self.assertEqual(s["histograms"], {})
        self.assertIn("are of another run", " ".join(s["notes"]))
        F.write_prof(self.path("p"), N, lines)
        out, _ = self.ok("summary", "--json", self.path("p"), "--nodes", "2x3")
        s = json.loads(out)
        self.assertEqual(s["nodes"]["between"], 0)
        self.assertEqual(s["histograms"]["application"],
                         [{"bin": 0, "label": "0 B", "messages": 1},
                          {"bin": 7, "label": "64 B+", "messages": 3}])
        out, _ = self.ok("summary", self.path("p"), "--hostfile", self.hostfile())
        self.assertIn("(assumed: natural placement)", out)
        # Over recorded hosts: the placement asked for, labelled as assumed.
        out, _ = self.ok("summary", self.path("run.json"), "--nodes", "3x2")
        self.assertIn("note: hosts assumed (--nodes 3x2, ranks filling the nodes in order) in "
                      "place of the 2 hosts the run recorded\n", out)
        self.assertIn("\n3 hosts (assumed: natural placement); application bytes inside nodes",
                      out)
        self.assertIn("\nnode2      2     500       640          400\n", out)
        self.fails("6 ranks do not fit into 4 slots", "summary", self.path("v1.json"),
                   "--nodes", "2x2")
        self.fails("--nodes must be NxC", "summary", self.path("v1.json"), "--nodes", "2y3")

    def hostfile(self):
        F.write_text(self.path("hosts"), "a slots=3\n# comment\nb:3\n")
        return self.path("hosts")


if __name__ == "__main__":
    unittest.main()
