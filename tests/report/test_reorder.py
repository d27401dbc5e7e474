# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report reorder`: on placements whose optimum the test computes by brute force,
the cut it reports is the optimum, slots are respected exactly, and the rankfile and
machine file describe the same placement."""

import json
import os
import re
import subprocess
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
        self.fails("this needs pnmpi's mapping library and cannot load it", "reorder",
                   self.path("some.json"), "--nodes", "2x2",
                   env={"PNMPI_MAPPING_LIBRARY": os.path.join(self.dir, "libpnmpi_mapping.so")})

    def test_order_file_and_conf_lines(self):
        # Heavy partners i <-> i+4 launched round-robin on 2 nodes (--map-by node): rank r
        # runs on node r % 2, so every heavy pair is split; the order file puts them back.
        n = 8
        c, b = F.zeros(n), F.zeros(n)
        for i in range(n):
            c[i][(i + 4) % n], b[i][(i + 4) % n] = 10, 1000
            c[i][(i + 1) % n], b[i][(i + 1) % n] = 1, 10
        F.write_json_v1(self.path("run.json"), n, {"p2p": (c, b)})
        out, _ = self.ok("reorder", self.path("run.json"), "--nodes", "2x4", "--map-by", "node",
                         "--json", "-o", self.path("p"))
        r = json.loads(out)
        # Pairs (i, i+4) have the same parity: round-robin keeps them together already and
        # only the light ring crosses; the best placement also halves the ring's crossings.
        self.assertEqual(r["natural_between"], 10 * 8)
        self.assertEqual(r["reordered_between"], optimum(b, n, 2, 4))
        self.assertEqual(r["reordered_between"], 40)
        self.assertEqual(F.read_text(self.path("p.order")), r["order"] + "\n")
        # Partners i <-> i+1 (odd distance) are split by round-robin.
        c, b = F.zeros(n), F.zeros(n)
        for i in range(0, n, 2):
            c[i][i + 1], b[i][i + 1] = 10, 5000
            c[i + 1][i], b[i + 1][i] = 10, 5000
        F.write_json_v1(self.path("pairs.json"), n, {"p2p": (c, b)})
        out, _ = self.ok("reorder", self.path("pairs.json"), "--nodes", "2x4", "--map-by",
                         "node", "--json", "-o", self.path("q"))
        r = json.loads(out)
        self.assertEqual(r["natural_between"], 8 * 5000)
        self.assertEqual(r["reordered_between"], 0)
        order = r["rank_of_slot"]
        self.assertEqual(sorted(order), list(range(n)))
        for p in range(n):  # slot p is on node p % 2: each pair's ranks share a node
            partner = order[p] ^ 1
            self.assertEqual(order.index(partner) % 2, p % 2)
        text = F.read_text(self.path("q.order"))
        expanded = []
        for item in text.strip().split(","):
            lo, _, hi = item.partition("-")
            expanded += list(range(int(lo), int(hi or lo) + 1))
        self.assertEqual(expanded, order)
        self.assertEqual(r["conf"], [["module place", "argument order " + self.path("q.order")],
                                     ["module place", "argument from " + self.path("pairs.json")]])
        out, _ = self.ok("reorder", self.path("pairs.json"), "--nodes", "2x4", "--map-by",
                         "node", "-o", self.path("q"))
        self.assertIn("apply it to the unchanged program with pnmpi's module place:\n"
                      "  in .pnmpi-conf, the order written here (the job launched as assumed):\n"
                      "    module place\n"
                      "    argument order %s\n"
                      "  in .pnmpi-conf, computed at start-up from this run, on whatever hosts "
                      "the job gets:\n"
                      "    module place\n"
                      "    argument from %s\n" % (self.path("q.order"), self.path("pairs.json")),
                      out)
        self.assertIn("and %s.order (module place, or Cray's MPICH_RANK_ORDER)" % self.path("q"),
                      out)

    def test_same_answer_as_the_library_from_c(self):
        # pnmpi-map (C, the library reading the run itself, as module place does) and
        # pnmpi-report (Python reading the run, the library through ctypes) agree exactly, on
        # the JSON and on the .prof files of the same run, for uneven and round-robin slots.
        tool = os.environ.get("PNMPI_TEST_MAP")
        self.assertTrue(tool, "PNMPI_TEST_MAP (the pnmpi-map program) is not set")
        n = 12
        c, b = F.zeros(n), F.zeros(n)
        lines = {r: [] for r in range(n)}
        for i in range(n):
            for j in range(n):
                v = ((i * 7 + j * 13) % 11) * 100 if (i + j) % 3 == 0 and i != j else 0
                if v:
                    c[i][j], b[i][j] = 1, v
                    lines[i].append(("E", j, v, 1, None))
        F.write_json_v1(self.path("run.json"), n, {"p2p": (c, b)})
        F.write_prof(self.path("run"), n, lines)
        F.write_text(self.path("hosts"), "a:5\nb:4\nc:3\n")
        for map_by, slots in (("slot", "0,0,0,0,0,1,1,1,1,2,2,2"),
                              ("node", "0,1,2,0,1,2,0,1,2,0,1,0")):
            for run in (self.path("run.json"), self.path("run")):
                out, _ = self.ok("reorder", run, "--hostfile", self.path("hosts"), "--map-by",
                                 map_by, "--json")
                r = json.loads(out)
                p = subprocess.run([tool, run, slots], capture_output=True, text=True,
                                   timeout=120)
                self.assertEqual(p.returncode, 0, p.stderr)
                fields = dict(line.split(": ", 1) for line in p.stdout.strip().split("\n"))
                self.assertEqual([int(v) for v in fields["rank_of_slot"].split(",")],
                                 r["rank_of_slot"], (map_by, run))
                self.assertEqual(int(fields["placed_crossing"]), r["reordered_between"])
                self.assertEqual(int(fields["launch_order_crossing"]), r["natural_between"])
                self.assertEqual(fields["method"], r["method"])

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
