# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Bad inputs, one table per surface: each row is the files a case writes, the command line
and the exact line pnmpi-report must print on stderr, with exit status 2 and nothing on
stdout. `{d}` stands for the case's scratch directory. The counts per surface are printed
at the end (issue 26 asks for them)."""

import collections
import json
import os
import sys
import unittest

import common

N = 2


def v2(hosts=("a", "b"), entries=((0, 1, 1, 10), (1, 0, 1, 10)), name="p2p", **extra):
    """A small version 2 monitor JSON."""
    doc = {"format": "pnmpi-monitor-matrices", "version": 2, "world_size": len(hosts),
           "hosts": list(hosts),
           "categories": {name: {"origin": "application", "what": "test",
                                 "entries": [list(e) for e in entries]}}}
    doc.update(extra)
    return json.dumps(doc, indent=1) + "\n"


def v2_raw(entries_text, hosts='["a", "b"]'):
    """A version 2 JSON whose p2p entries are the text given, as written."""
    return ('{"format": "pnmpi-monitor-matrices", "version": 2, "world_size": 2,\n'
            ' "hosts": %s,\n "categories": {"p2p": {"origin": "application", "what": "t",\n'
            ' "entries": %s}}}\n' % (hosts, entries_text))


GOOD = v2()
NL_HOST = "a\nrank 0=evil slot=0"

# surface -> [(case name, {file: text}, [args], expected stderr line without "pnmpi-report: ")]
CASES = collections.OrderedDict()

CASES["names (item 2)"] = [
    ("newline in a recorded host, rankfile", {"r.json": v2(hosts=(NL_HOST, "b"))},
     ["reorder", "{d}/r.json", "--nodes", "2x1", "-o", "{d}/rf"],
     "{d}/r.json: host name 'a\\x0arank 0=evil slot=0' cannot go into a rankfile or machine "
     "file: a host name is letters, digits, '-', '.' and '_' (at most 253)"),
    ("newline in a recorded host, printed rankfile", {"r.json": v2(hosts=(NL_HOST, "b"))},
     ["reorder", "{d}/r.json", "--nodes", "2x1"],
     "{d}/r.json: host name 'a\\x0arank 0=evil slot=0' cannot go into a rankfile or machine "
     "file: a host name is letters, digits, '-', '.' and '_' (at most 253)"),
    ("colon in a recorded host (MPICH's separator)", {"r.json": v2(hosts=("a:4", "b"))},
     ["reorder", "{d}/r.json", "--nodes", "2x1"],
     "{d}/r.json: host name 'a:4' cannot go into a rankfile or machine file: a host name is "
     "letters, digits, '-', '.' and '_' (at most 253)"),
    ("escape sequence in a recorded host", {"r.json": v2(hosts=("a\x1b[2J", "b"))},
     ["reorder", "{d}/r.json", "--nodes", "2x1"],
     "{d}/r.json: host name 'a\\x1b[2J' cannot go into a rankfile or machine file: a host "
     "name is letters, digits, '-', '.' and '_' (at most 253)"),
    ("'=' in a hostfile's host", {"r.json": GOOD, "hf": "a slots=1\nb=c slots=1\n"},
     ["reorder", "{d}/r.json", "--hostfile", "{d}/hf"],
     "{d}/hf:2: host name 'b=c' is not one mpirun takes: a host name is letters, digits, "
     "'-', '.' and '_' (at most 253)"),
    ("control character in a hostfile's host", {"r.json": GOOD, "hf": "a\x07 slots=2\n"},
     ["summary", "{d}/r.json", "--hostfile", "{d}/hf"],
     "{d}/hf:1: host name 'a\\x07' is not one mpirun takes: a host name is letters, digits, "
     "'-', '.' and '_' (at most 253)"),
    ("escape sequence in a file name, error line", {},
     ["summary", "{d}/no\x1b[31mne"],
     "{d}/no\\x1b[31mne: no such file, directory or output prefix (looked for "
     "{d}/no\\x1b[31mne.json and {d}/no\\x1b[31mne.<rank>.prof)"),
]


class BadInputs(common.Case):
    counts = collections.Counter()

    def run_case(self, surface, name, files, args, expected):
        d = os.path.join(self.dir, "%s-%s" % (surface.split()[0], name)).replace(" ", "_")
        d = d.replace("'", "").replace(",", "")
        os.makedirs(d, exist_ok=True)
        for fname, text in files.items():
            with open(os.path.join(d, fname), "wb") as f:
                f.write(text.encode("utf-8", "surrogateescape") if isinstance(text, str)
                        else text)
        rc, out, err = common.run(*[a.replace("{d}", d) for a in args])
        self.assertEqual((rc, err), (2, "pnmpi-report: " + expected.replace("{d}", d) + "\n"),
                         "%s: %s\nstdout: %s" % (surface, name, out))
        self.assertEqual(out, "", "%s: %s" % (surface, name))
        BadInputs.counts[surface] += 1

    def test_table(self):
        for surface, cases in CASES.items():
            for name, files, args, expected in cases:
                with self.subTest(surface=surface, case=name):
                    self.run_case(surface, name, files, args, expected)

    @classmethod
    def tearDownClass(cls):
        total = sum(cls.counts.values())
        sys.stderr.write("bad inputs tested: %d\n" % total)
        for surface, n in cls.counts.items():
            sys.stderr.write("  %-28s %d\n" % (surface, n))


class Names(common.Case):
    """Names reach the terminal escaped and the files mpirun reads validated."""

    def test_summary_escapes_names(self):
        path = self.path("r.json")
        common_text = v2(hosts=("a\x1b]0;x\x07", "b\nforged  1  2  3  4"), name="p\x1b[1m2p")
        with open(path, "w") as f:
            f.write(common_text)
        out, _ = self.ok("summary", path)
        self.assertNotIn("\x1b", out)
        self.assertNotIn("\x07", out)
        self.assertIn("a\\x1b]0;x\\x07  ", out)
        self.assertIn("b\\x0aforged  1  2  3  4  ", out)
        self.assertIn("p\\x1b[1m2p", out)
        self.assertNotIn("\nforged", out)

    def test_diff_escapes_names(self):
        path = self.path("r.json")
        with open(path, "w") as f:
            f.write(v2(name="x\x1b[2Jy"))
        out, _ = self.ok("diff", path, path)
        self.assertNotIn("\x1b", out)
        self.assertIn("x\\x1b[2Jy", out)

    def test_reorder_keeps_valid_names(self):
        path = self.path("r.json")
        with open(path, "w") as f:
            f.write(v2(hosts=("node-1.example_a", "n2")))
        self.ok("reorder", path, "--nodes", "2x1", "-o", self.path("rf"))
        with open(self.path("rf")) as f:
            self.assertEqual(f.read(), "rank 0=node-1.example_a slot=0\nrank 1=n2 slot=0\n")
        with open(self.path("rf.mpich")) as f:
            self.assertEqual(f.read(), "node-1.example_a:1\nn2:1\n")


if __name__ == "__main__":
    unittest.main(verbosity=1)
