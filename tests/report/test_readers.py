# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The readers on files of known content, one per format, and on broken files."""

import os
import unittest

import common
import fixtures as F
from pnmpi_report import inputs
from pnmpi_report.errors import ReportError

N = 4


def ring(n=N, scale=100):
    """p2p: i -> i+1 with (i+1) messages of scale bytes each; coll: 0 -> every other."""
    c, b = F.zeros(n), F.zeros(n)
    for i in range(n):
        c[i][(i + 1) % n] = i + 1
        b[i][(i + 1) % n] = (i + 1) * scale
    cc, cb = F.zeros(n), F.zeros(n)
    for j in range(1, n):
        cc[0][j], cb[0][j] = 1, 8
    tool_c, tool_b = F.zeros(n), F.zeros(n)
    tool_c[1][0], tool_b[1][0] = 2, 16
    return {"p2p": (c, b), "coll": (cc, cb), "p2p_tool": (tool_c, tool_b)}


class Readers(common.Case):
    def check_ring(self, run, n=N):
        self.assertEqual(run.world_size, n)
        p2p = run.categories["p2p"]
        for i in range(n):
            self.assertEqual(p2p.counts.get(i, (i + 1) % n), i + 1)
            self.assertEqual(p2p.bytes.get(i, (i + 1) % n), (i + 1) * 100)
        self.assertEqual(p2p.bytes.val.size, n)
        self.assertEqual(run.categories["coll"].bytes.total(), 8 * (n - 1))
        self.assertEqual(run.categories["p2p_tool"].origin, "modules")
        self.assertEqual(run.categories["p2p_tool"].bytes.get(1, 0), 16)

    def test_json_v1(self):
        F.write_json_v1(self.path("run.json"), N, ring())
        run = inputs.load_run([self.path("run.json")])
        self.check_ring(run)
        self.assertIsNone(run.hosts)
        self.assertEqual(list(run.categories), [c for c, _ in F.CATS])

    def test_json_v2_sparse_and_dense(self):
        hosts = ["a", "a", "b", "b"]
        for dense in (True, False):
            F.write_json_v2(self.path("run.json"), N, ring(), hosts, dense=dense)
            run = inputs.load_run([self.path("run.json")])
            self.check_ring(run)
            self.assertEqual(run.hosts, hosts)

    def test_json_v2_dense_disagreeing_with_entries(self):
        F.write_json_v2(self.path("run.json"), N, ring(), ["a"] * N)
        doc = F.read_json(self.path("run.json"))
        doc["categories"]["p2p"]["bytes"][0][1] = 7
        F.write_json(self.path("run.json"), doc)
        line = self.fails("category 'p2p': the dense bytes and the entries disagree",
                          "summary", self.path("run.json"))
        self.assertRegex(line, r"run\.json:\d+: ")

    def test_json_v2_unsorted_entries_and_bad_hosts(self):
        F.write_json_v2(self.path("run.json"), N, ring(), ["a"] * N, dense=False)
        doc = F.read_json(self.path("run.json"))
        doc["categories"]["p2p"]["entries"].reverse()
        F.write_json(self.path("unsorted.json"), doc)
        self.fails("not sorted by sender then receiver", "summary", self.path("unsorted.json"))
        doc = F.read_json(self.path("run.json"))
        doc["hosts"] = ["a"]
        F.write_json(self.path("hosts.json"), doc)
        self.fails("'hosts' must list one host name per rank (4)", "summary",
                   self.path("hosts.json"))
        doc = F.read_json(self.path("run.json"))
        doc["categories"]["p2p"]["entries"][0][1] = 9
        F.write_json(self.path("rank.json"), doc)
        self.fails("names a rank >= world_size 4", "summary", self.path("rank.json"))

    def test_json_brackets_in_strings(self):
        F.write_json_v1(self.path("run.json"), N, ring())
        text = F.read_text(self.path("run.json")).replace(
            '"what": "test"', '"what": "rows [1,2] and \\"[3]\\" [[4]]"', 1)
        F.write_text(self.path("run.json"), text)
        run = inputs.load_run([self.path("run.json")])
        self.check_ring(run)
        self.assertEqual(run.categories["p2p"].what, 'rows [1,2] and "[3]" [[4]]')

    def test_json_broken(self):
        F.write_json_v1(self.path("run.json"), N, ring())
        text = F.read_text(self.path("run.json"))
        F.write_text(self.path("cut.json"), text[:len(text) // 2])
        self.fails("truncated", "summary", self.path("cut.json"))
        F.write_text(self.path("empty.json"), "")
        self.fails("empty file", "summary", self.path("empty.json"))
        F.write_text(self.path("other.json"), '{"format": "something", "version": 1}\n')
        self.fails("not the monitor's JSON (format 'something'", "summary",
                   self.path("other.json"))
        F.write_text(self.path("v9.json"), text.replace('"version": 1', '"version": 9'))
        self.fails("version 9 of the monitor's JSON is not known", "summary",
                   self.path("v9.json"))
        F.write_text(self.path("rows.json"), text.replace("[0,1,0,0]", "[0,1,0]", 1))
        line = self.fails("category 'p2p': counts is not 4 x 4", "summary",
                          self.path("rows.json"))
        self.assertIn("rows.json:10:", line)
        self.fails("no such file, directory or output prefix", "summary", self.path("none"))

    def test_json_large_dense_is_read_in_one_pass(self):
        # 600 ranks: 16 matrices of 360000 numbers, read by numpy, not as Python objects.
        n = 600
        c, b = F.zeros(n), F.zeros(n)
        for i in range(n):
            c[i][(i + 7) % n], b[i][(i + 7) % n] = 3, 3000 + i
        F.write_json_v1(self.path("big.json"), n, {"p2p": (c, b)})
        run = inputs.load_run([self.path("big.json")])
        self.assertEqual(run.categories["p2p"].bytes.total(), sum(3000 + i for i in range(n)))
        self.assertEqual(run.categories["p2p"].bytes.get(599, 6), 3599)

    def write_prof_ring(self, prefix, n=N, hist=True):
        lines = {}
        for i in range(n):
            sizes = [100] * (i + 1)
            lines[i] = [("E", (i + 1) % n, (i + 1) * 100, i + 1,
                         F.histogram(sizes) if hist else None)]
            if i == 0:
                lines[i] += [("C", j, 8, 1, None) for j in range(1, n)]
            if i == 1:
                lines[i].append(("I", 0, 16, 2, F.histogram([8, 8]) if hist else None))
        return F.write_prof(prefix, n, lines)

    def test_prof_files(self):
        paths = self.write_prof_ring(self.path("mon"))
        for spec in (paths, [self.path("mon")], [self.dir], [paths[2]]):
            run = inputs.load_run(spec)
            self.check_ring(run)
            self.assertEqual(int(run.histograms["application"][7]), 1 + 2 + 3 + 4)  # 64..127
            self.assertEqual(int(run.histograms["modules"][4]), 2)  # 8..15

    def test_prof_errors(self):
        paths = self.write_prof_ring(self.path("mon"))
        self.fails("rank 2's file is missing", "summary", paths[0], paths[1], paths[3])
        text = F.read_text(paths[1])
        F.write_text(paths[1], text[:-5])
        line = self.fails("the last line has no end: the file is truncated", "summary",
                          self.path("mon"))
        self.assertIn("mon.1.prof:%d:" % (text[:-5].count("\n") + 1), line)
        F.write_text(paths[1], text.replace("E\t1\t2\t", "E\t1\t2 \t"))
        self.fails("mon.1.prof:2: not a line of a .prof file", "summary", self.path("mon"))
        F.write_text(paths[1], text.replace("E\t1\t2\t", "E\t1\t7\t"))
        self.fails("mon.1.prof:2: peer 7, but 4 files were given", "summary", self.path("mon"))
        F.write_text(paths[1], text.replace("procs: 0,1,2,3", "procs: 0,1,2,3,4,5,6,7"))
        self.fails("MPI_COMM_WORLD has 8 processes, but 4 files were given", "summary",
                   self.path("mon"))
        F.write_text(paths[1], text.replace("E\t1\t2\t", "E\t0\t2\t"))
        self.fails("a line of rank 0 in rank 1's file", "summary", self.path("mon"))
        F.write_text(paths[1], text)
        other = self.write_prof_ring(self.path("other"))
        self.fails("is not of the same run", "summary", paths[0], paths[1], other[2], paths[3])

    def test_open_mpi_prof_layout(self):
        # As Open MPI 4.1.4 writes them (pml_monitoring_enable_output 3): a peer's histogram
        # on its first line, E or I; a block per communicator, MPI_COMM_SELF included.
        hist = ",".join(["0"] * 4 + ["4", "1"] + ["0"] * 60)
        for r in range(2):
            with open(self.path("ompi.%d.prof" % r), "w") as f:
                f.write("# POINT TO POINT\n"
                        "E\t%d\t%d\t24 bytes\t3 msgs sent\t%s\n"
                        "I\t%d\t%d\t24 bytes\t2 msgs sent\n"
                        "# OSC\n# COLLECTIVES\n"
                        "C\t%d\t%d\t752 bytes\t9 msgs sent\n"
                        "D\tMPI_COMM_WORLD\tprocs: 0,1\n"
                        "O2A\t%d\t0 bytes\t0 msgs sent\nA2O\t%d\t2184 bytes\t7 msgs sent\n"
                        "A2A\t%d\t72 bytes\t2 msgs sent\n"
                        "D\tMPI_COMM_SELF\tprocs: %d\n"
                        "O2A\t%d\t0 bytes\t0 msgs sent\nA2O\t%d\t0 bytes\t0 msgs sent\n"
                        "A2A\t%d\t0 bytes\t0 msgs sent\n"
                        % ((r, 1 - r, hist, r, 1 - r, r, 1 - r) + (r,) * 7))
        run = inputs.load_run([self.path("ompi")])
        self.assertEqual(run.categories["p2p"].bytes.total(), 48)
        self.assertEqual(run.categories["p2p_tool"].counts.total(), 4)
        self.assertEqual(run.categories["coll"].bytes.get(1, 0), 752)
        self.assertEqual(int(run.histograms["application"].sum()), 10)

    def test_session_flush_files(self):
        # MPI_M_flush: E, C, S, R lines in session ranks, no histograms, no D blocks.
        lines = {0: [("E", 1, 40, 2, None), ("S", 1, 12, 1, None)],
                 1: [("E", 0, 80, 4, None), ("R", 0, 4, 1, None)]}
        F.write_prof(self.path("sess"), 2, lines, world=False)
        run = inputs.load_run([self.path("sess")])
        self.assertEqual(run.categories["p2p"].bytes.get(1, 0), 80)
        self.assertEqual(run.categories["osc_sent"].bytes.total(), 12)
        self.assertEqual(run.categories["osc_fetched"].counts.total(), 1)
        self.assertEqual(run.histograms, {})

    def test_rootflush_files(self):
        F.write_text(self.path("it_counts.0.prof"), "0 2 1\n3 0 0\n0 0 0\n")
        F.write_text(self.path("it_sizes.0.prof"), "0 20 10\n300 0 0\n0 0 0\n")
        for spec in ([self.path("it_counts.0.prof")], [self.dir],
                     [self.path("it_counts.0.prof"), self.path("it_sizes.0.prof")]):
            run = inputs.load_run(spec)
            self.assertEqual(run.world_size, 3)
            self.assertEqual(run.categories["session"].bytes.get(1, 0), 300)
            self.assertEqual(run.categories["session"].counts.total(), 6)
        os.remove(self.path("it_sizes.0.prof"))
        self.fails("it_sizes.0.prof is missing beside it", "summary",
                   self.path("it_counts.0.prof"))
        F.write_text(self.path("it_sizes.0.prof"), "0 20 10\n300 0\n0 0 0\n")
        self.fails("it_sizes.0.prof:2: this row is not 3 integers", "summary",
                   self.path("it_counts.0.prof"))

    def test_mat_files(self):
        pml_msg = [[0, 3, 1], [3, 0, 0], [1, 0, 0]]
        pml_size = [[0, 300, 10], [300, 0, 0], [10, 0, 0]]
        coll = [[0, 1, 1], [1, 0, 1], [1, 1, 0]]
        F.write_mat(self.dir, "pml_msg", pml_msg)
        F.write_mat(self.dir, "pml_size", pml_size)
        F.write_mat(self.dir, "coll_msg", coll)
        F.write_mat(self.dir, "coll_size", [[8 * v for v in row] for row in coll])
        F.write_mat(self.dir, "pml_avg", [[0] * 3] * 3)
        run = inputs.load_run([self.dir])
        self.assertEqual(run.world_size, 3)
        self.assertEqual(run.categories["p2p"].bytes.get(1, 0), 300)
        self.assertEqual(run.categories["coll"].bytes.total(), 48)
        self.assertIn("symmetrises", run.notes[0])
        single = inputs.load_run([self.path("monitoring_pml_msg.mat"),
                                  self.path("monitoring_pml_size.mat")])
        self.assertEqual(list(single.categories), ["p2p"])
        F.write_mat(self.dir, "coll_size", [[0, 1], [1, 0]])
        self.fails("a 2 x 2 matrix, but", "summary", self.dir)
        F.write_text(self.path("monitoring_coll_size.mat"), "0 1 1 \n1 0 1 \n1 1 \n")
        self.fails("monitoring_coll_size.mat:3: this row is not 3 integers", "summary",
                   self.dir)
        os.remove(self.path("monitoring_coll_size.mat"))
        self.fails("monitoring_coll_size.mat is missing beside it", "summary", self.dir)

    def test_prefix_json_takes_histograms_from_prof(self):
        F.write_json_v2(self.path("mon.json"), N, ring(), ["h"] * N)
        self.write_prof_ring(self.path("mon"))
        for spec in (self.path("mon"), self.path("mon.json"), self.dir):
            run = inputs.load_run([spec])
            self.assertEqual(run.hosts, ["h"] * N)
            self.assertEqual(int(run.histograms["application"].sum()), 10)

    def test_directory_ambiguities(self):
        self.write_prof_ring(self.path("a"))
        self.write_prof_ring(self.path("b"))
        self.fails("holds .prof files of 2 prefixes (a, b)", "summary", self.dir)
        empty = self.path("empty")
        os.mkdir(empty)
        self.fails("holds no monitor output", "summary", empty)
        with self.assertRaises(ReportError):
            inputs.load_run([self.path("a.0.prof"), self.path("x.json")])


if __name__ == "__main__":
    unittest.main()
