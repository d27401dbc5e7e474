# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report reorder`: on placements whose optimum the test computes by brute force,
the cut it reports is the optimum, slots are respected exactly, and the rankfile and
machine file describe the same placement."""

import json
import os
import re
import unittest

import common
import fixtures as F


def optimum(b, n, nodes, slots):
    """The least bytes between nodes over every placement of n ranks on nodes x slots."""
    best = None

    def cut(assign):
        return sum(b[i][j] for i in range(n) for j in range(n) if assign[i] != assign[j])

    def place(rank, assign, free):
        nonlocal best
        if rank == n:
            v = cut(assign)
            best = v if best is None else min(best, v)
            return
        seen_empty = False
        for k in range(nodes):
            if free[k] == 0:
                continue
            if free[k] == slots:  # empty nodes are interchangeable: try one
                if seen_empty:
                    continue
                seen_empty = True
            free[k] -= 1
            assign.append(k)
            place(rank + 1, assign, free)
            assign.pop()
            free[k] += 1

    place(0, [], [slots] * nodes)
    return best


def parse_rankfile(text, n):
    placement = {}
    for line in text.strip().split("\n"):
        m = re.fullmatch(r"rank (\d+)=(\S+) slot=(\d+)", line)
        assert m, line
        placement[int(m.group(1))] = (m.group(2), int(m.group(3)))
    assert sorted(placement) == list(range(n)), placement
    return placement


def parse_machinefile(text):
    hosts = []
    for line in text.strip().split("\n"):
        host, count = line.split(":")
        hosts += [host] * int(count)
    return hosts


class Reorder(common.Case):
    def check_files(self, out_path, n, capacity):
        placement = parse_rankfile(F.read_text(out_path), n)
        used = {}
        for rank, (host, slot) in placement.items():
            self.assertLess(slot, capacity[host])
            self.assertNotIn((host, slot), used, "slot used twice")
            used[(host, slot)] = rank
        self.assertEqual(parse_machinefile(F.read_text(out_path + ".mpich")),
                         [placement[r][0] for r in range(n)])
        return placement

    def test_partners_across_nodes(self):
        # Heavy partners i <-> i+4 and a light ring: the natural placement (0-3 | 4-7)
        # crosses every heavy byte.
        n = 8
        c, b = F.zeros(n), F.zeros(n)
        for i in range(n):
            c[i][(i + 4) % n], b[i][(i + 4) % n] = 10, 1000
            c[i][(i + 1) % n], b[i][(i + 1) % n] = 1, 10
        F.write_json_v1(self.path("run.json"), n, {"p2p": (c, b)})
        out, _ = self.ok("reorder", self.path("run.json"), "--nodes", "2x4", "--json",
                         "-o", self.path("rankfile"))
        r = json.loads(out)
        best = optimum(b, n, 2, 4)
        self.assertEqual(best, 40)
        self.assertEqual(r["natural_between"], 8000 + 20)
        self.assertEqual(r["reordered_between"], best)
        placement = self.check_files(self.path("rankfile"), n, {"node0": 4, "node1": 4})
        for i in range(4):
            self.assertEqual(placement[i][0], placement[i + 4][0])
        out, _ = self.ok("reorder", self.path("run.json"), "--nodes", "2x4")
        self.assertIn("natural placement (ranks fill the nodes in order): 8020 bytes between "
                      "nodes (99.3%)", out)
        self.assertIn("40 bytes between nodes (0.5%), 7980 fewer than natural", out)
        self.assertIn("rank 0=node0 slot=0", out)

    def test_three_nodes_with_hosts_and_uneven_hostfile(self):
        # Three groups of four, scattered over the ranks, with light noise between all.
        n = 12
        groups = [[0, 5, 7, 10], [1, 3, 8, 11], [2, 4, 6, 9]]
        c, b = F.zeros(n), F.zeros(n)
        for i in range(n):
            for j in range(n):
                if i != j:
                    same = any(i in g and j in g for g in groups)
                    c[i][j], b[i][j] = 1, (500 + 37 * ((i + j) % 5)) if same else (i * j) % 7
        hosts = ["h0"] * 4 + ["h1"] * 4 + ["h2"] * 4
        F.write_json_v2(self.path("run.json"), n, {"p2p": (c, b)}, hosts, dense=False)
        out, _ = self.ok("reorder", self.path("run.json"), "--nodes", "3x4", "--json",
                         "-o", self.path("rf"))
        r = json.loads(out)
        self.assertEqual(r["nodes"], ["h0", "h1", "h2"])  # the run's host names
        self.assertEqual(r["reordered_between"], optimum(b, n, 3, 4))
        self.assertEqual(r["as_run_between"], r["natural_between"])
        self.check_files(self.path("rf"), n, {"h0": 4, "h1": 4, "h2": 4})
        # Uneven slots: 5 + 4 + 3, both hostfile forms.
        F.write_text(self.path("hosts"), "big slots=5 max_slots=8\nmid:4\n# none\nsmall\n"
                                         "small\nsmall\n")
        out, _ = self.ok("reorder", self.path("run.json"), "--hostfile", self.path("hosts"),
                         "--json", "-o", self.path("rf2"))
        r = json.loads(out)
        self.assertEqual(r["slots"], [5, 4, 3])
        placement = self.check_files(self.path("rf2"), n, {"big": 5, "mid": 4, "small": 3})
        counts = {}
        for host, _ in placement.values():
            counts[host] = counts.get(host, 0) + 1
        self.assertEqual(counts, {"big": 5, "mid": 4, "small": 3})
        self.assertLessEqual(r["reordered_between"], r["natural_between"])

    def test_errors(self):
        F.write_json_v1(self.path("run.json"), 6, {})
        self.fails("6 ranks do not fit into 4 slots (--nodes 2x2)", "reorder",
                   self.path("run.json"), "--nodes", "2x2")
        F.write_text(self.path("bad"), "a slots=two\n")
        self.fails("bad:1: slots must be a whole number", "reorder", self.path("run.json"),
                   "--hostfile", self.path("bad"))
        rc, _, err = common.run("reorder", self.path("run.json"))
        self.assertEqual(rc, 2)
        self.assertIn("one of the arguments --nodes --hostfile is required", err)
        c, b = F.zeros(4), F.zeros(4)
        c[0][1] = b[0][1] = 5
        F.write_json_v1(self.path("some.json"), 4, {"p2p": (c, b)})
        self.fails("reorder needs Scotch's library and cannot load it", "reorder",
                   self.path("some.json"), "--nodes", "2x2",
                   env={"PNMPI_SCOTCH_LIBRARY": os.path.join(self.dir, "libscotch.so")})

    def test_4096_ranks(self):
        # A 2-D 64 x 64 stencil; the natural placement puts a strip of 64 ranks per node.
        side, n = 64, 4096
        src, dst = [], []
        for x in range(side):
            for y in range(side):
                r = x * side + y
                for dx, dy in ((1, 0), (0, 1)):
                    if x + dx < side and y + dy < side:
                        q = (x + dx) * side + y + dy
                        src += [r, q]
                        dst += [q, r]
        entries = sorted((s, t) for s, t in zip(src, dst))
        doc = {"format": "pnmpi-monitor-matrices", "version": 2, "world_size": n,
               "orientation": F.ORIENTATION, "hosts": ["n%d" % (r // 64) for r in range(n)],
               "categories": {"p2p": {"origin": "application", "what": "stencil",
                                      "entries": [[s, t, 1, 1000] for s, t in entries]}}}
        F.write_json(self.path("stencil.json"), doc)
        out, err = self.ok("reorder", self.path("stencil.json"), "--nodes", "64x64", "--json",
                           "-o", self.path("rf"))
        r = json.loads(out)
        # Strips of 64 cut 63 x 64 edges; 8 x 8 squares, the optimum, 14 x 64.
        self.assertEqual(r["natural_between"], 63 * 64 * 2000)
        self.assertLess(r["reordered_between"], 1.25 * 14 * 64 * 2000)
        self.assertIn("mapping 4096 ranks with Scotch", err)
        counts = {}
        for host, _ in parse_rankfile(F.read_text(self.path("rf")), n).values():
            counts[host] = counts.get(host, 0) + 1
        self.assertEqual(set(counts.values()), {64})


if __name__ == "__main__":
    unittest.main()
