# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report site LOGDIR` on records of known content: the totals, the filters, the
incremental index (a second run reads nothing, a new record is read alone), damaged records,
the files it writes, its errors; and the fast .npy reader against numpy's."""

import csv
import io
import json
import os
import sqlite3
import sys
import unittest

import numpy as np

from common import Case, run

from pnmpi_report import mapping, model, npy, record, record_synth

DAY = 1793491200.0  # 2026-11-01 00:00 UTC


class SiteReport(Case):

    def put(self, name, ranks, day, user="alice", app="lmp", per_host=4, ended="finalized"):
        meta, arrays = record_synth.stencil(ranks, seed=ranks, job_id=name, user=user,
                                            ranks_per_host=per_host, ended=ended,
                                            start=DAY + (day - 1) * 86400 + 3600)
        meta["executable"] = "/home/%s/bin/%s" % (user, app)
        meta["end"] = meta["start"] + 1800.0  # half an hour
        d = os.path.join(self.logdir, "2026", "11", str(day))
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "%s_%s_id%s_11-%d-3600-00000000000000%02d.record.npz"
                            % (user, app, name, day, ranks))
        record.write_record(path, meta, arrays)
        r = record.read_record(path)
        crossing = int(sum(b for s, t, b in zip(r.p2p_src, r.p2p_dst, r.p2p_bytes)
                           if r.rank_host[s] != r.rank_host[t]))
        return r, crossing

    def setUp(self):
        super().setUp()
        self.logdir = self.path("logs")
        self.a, self.ca = self.put("101", 8, 2)
        self.b, self.cb = self.put("102", 16, 3, user="bob", app="pw.x", per_host=8)
        self.c, self.cc = self.put("103", 4, 3, app="lmp", per_host=4, ended="incomplete")

    def test_totals_files_and_placement_candidates(self):
        out_csv, out_json, out_html = self.path("j.csv"), self.path("j.json"), self.path("j.html")
        rc, out, err = run("site", self.logdir, "--csv", out_csv, "--json", out_json,
                           "--html", out_html)
        self.assertEqual((rc, err), (0, ""), out)
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith(
            "%s: 3 jobs (1 not finalized), %.1f core-hours, " % (self.logdir, 14.0)), lines[0])
        self.assertEqual(lines[1], "index: 3 record(s) read this run, 0 unreadable in all")
        with open(out_json) as f:
            j = json.load(f)
        self.assertEqual(j["totals"]["jobs"], 3)
        self.assertAlmostEqual(j["totals"]["core_hours"], (8 + 16 + 4) * 0.5)
        self.assertEqual(j["totals"]["internode_bytes"], self.ca + self.cb + self.cc)
        self.assertEqual(j["totals"]["p2p_bytes"], int(self.a.p2p_bytes.sum() +
                                                       self.b.p2p_bytes.sum() +
                                                       self.c.p2p_bytes.sum()))
        wall = sum(float(r.wall_s.astype(np.float64).sum()) for r in (self.a, self.b, self.c))
        mpi = sum(float(r.mpi_s.astype(np.float64).sum()) for r in (self.a, self.b, self.c))
        self.assertAlmostEqual(j["totals"]["mpi_percent"], 100 * mpi / wall, places=6)
        self.assertEqual([a["app"] for a in j["by_app"]], ["pw.x", "lmp"])
        # 16 ranks on two hosts of 8, 8 on two of 4, 4 on one host (nothing crosses): the
        # candidates are the two jobs with bytes between nodes, listed by the saving the
        # mapping library predicts, each at most its bound.
        cands = j["placement_candidates"]
        self.assertEqual(sorted(c["job_id"] for c in cands), ["101", "102"])
        self.assertEqual([c["job_id"] for c in cands],
                         [c["job_id"] for c in sorted(
                             cands, key=lambda c: (-c["placement_saving_core_hours"],
                                                   c["path"]))])
        for c, rec in ((c, {"101": self.a, "102": self.b}[c["job_id"]]) for c in cands):
            matrix = model.Sparse.build(int(rec.ranks), rec.p2p_src, rec.p2p_dst,
                                        rec.p2p_bytes.astype(np.int64))
            hosts = rec.rank_host.astype(np.int64)
            node_of = mapping.place(matrix, hosts).host_of_rank(hosts)
            after = int(matrix.val[node_of[matrix.src] != node_of[matrix.dst]].sum())
            self.assertEqual(c["placement_internode_bytes"], after)
            self.assertLessEqual(after, c["internode_bytes"])
            self.assertAlmostEqual(c["placement_saving_core_hours"],
                                   c["core_hours"] * c["mpi_percent"] / 100 *
                                   (c["internode_bytes"] - after) / c["p2p_bytes"])
            self.assertLessEqual(c["placement_saving_core_hours"],
                                 c["placement_bound_core_hours"] + 1e-12)
        self.assertEqual(self.cc, 0)
        with open(out_csv) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(sorted(r["job_id"] for r in rows), ["101", "102", "103"])
        self.assertEqual([r["ended"] for r in rows if r["job_id"] == "103"], ["incomplete"])
        with open(out_html) as f:
            page = f.read()
        self.assertIn("<h2>Jobs placement would help most</h2>", page)
        self.assertIn("<td>pw.x</td>", page)

    def test_without_the_mapping_library_the_bound_is_said_and_used(self):
        env = dict(os.environ, PNMPI_MAPPING_LIBRARY=self.path("no-such-library.so"))
        rc, out, err = run("site", self.logdir, "--json", self.path("n.json"), env=env)
        self.assertEqual((rc, err), (0, ""), out)
        with open(self.path("n.json")) as f:
            cands = json.load(f)["placement_candidates"]
        self.assertEqual(sorted(c["job_id"] for c in cands), ["101", "102"])
        for c in cands:
            self.assertIsNone(c["placement_internode_bytes"])
            self.assertEqual(c["placement_saving_core_hours"], c["placement_bound_core_hours"])
            self.assertIn("note: job %s: placement prediction none (" % c["job_id"], out)

    def test_filters(self):
        for args, want in ((["--user", "bob"], ["102"]), (["--app", "lm*"], ["101", "103"]),
                           (["--since", "2026-11-03"], ["102", "103"]),
                           (["--user", "alice", "--since", "2026-11-03"], ["103"])):
            rc, out, err = run("site", self.logdir, "--json", self.path("f.json"), *args)
            self.assertEqual((rc, err), (0, ""), args)
            with open(self.path("f.json")) as f:
                self.assertEqual(sorted(x["job_id"] for x in json.load(f)["jobs"]), want, args)

    def test_incremental(self):
        self.assertEqual(run("site", self.logdir)[0], 0)
        rc, out, _ = run("site", self.logdir)
        self.assertIn("index: 0 record(s) read this run", out)
        self.put("104", 8, 3, user="carol")
        rc, out, _ = run("site", self.logdir)
        self.assertIn("index: 1 record(s) read this run", out)
        self.assertIn(": 4 jobs (1 not finalized)", out.splitlines()[0])
        # A record the admin removed leaves the index.
        os.unlink(self.c.path)
        rc, out, _ = run("site", self.logdir)
        self.assertIn(": 3 jobs (0 not finalized)", out.splitlines()[0])

    def test_damaged_record_is_listed_once(self):
        bad = os.path.join(self.logdir, "2026", "11", "2", "x_y_id9_11-2-0-0.record.npz")
        with open(bad, "wb") as f:
            f.write(b"PK\x03\x04 truncated")
        rc, out, err = run("site", self.logdir, "--json", self.path("d.json"))
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("index: 4 record(s) read this run, 1 unreadable in all", out)
        with open(self.path("d.json")) as f:
            self.assertEqual(json.load(f)["unreadable"],
                             [bad + ": not a pnmpi job record (not an .npz archive, or "
                                    "truncated)"])
        rc, out, err = run("site", self.logdir)
        self.assertIn("index: 0 record(s) read this run, 1 unreadable in all", out)

    def test_site_policy_notes_are_listed(self):
        note = os.path.join(self.logdir, "2026", "11", "3", "bob_pw.x_id102_11-3-0-1.warnings")
        line = ("rank 0: /etc/pnmpi/site.conf:2: module 'profile': cannot write the job record "
                "x: No space left on device [a module of the site configuration: it is "
                "disabled, the job goes on]")
        with open(note, "w") as f:
            f.write(line + "\n")
        rc, out, err = run("site", self.logdir, "--json", self.path("n.json"))
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("\nSite modules disabled in jobs (the site policy's notes)\n"
                      "bob_pw.x_id102_11-3-0-1.warnings: " + line + "\n", out)
        with open(self.path("n.json")) as f:
            self.assertEqual(json.load(f)["site_notes"], [{"file": note, "line": line}])

    def test_errors(self):
        rc, out, err = run("site", self.path("nothing"))
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(err, "pnmpi-report: %s: not a directory (the record directory of "
                              "`records LOGDIR`)\n" % self.path("nothing"))
        rc, out, err = run("site", self.logdir, "--since", "yesterday")
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(err, "pnmpi-report: --since takes a day as YYYY-MM-DD, as in "
                              "2026-11-01, not 'yesterday'\n")
        index = self.path("old.sqlite")
        db = sqlite3.connect(index)
        db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
        db.execute("INSERT INTO meta VALUES ('schema', '0')")
        db.commit()
        db.close()
        rc, out, err = run("site", self.logdir, "--index", index)
        self.assertEqual((rc, out), (2, ""))
        self.assertEqual(err, "pnmpi-report: %s: an index of another version (0, this "
                              "pnmpi-report writes 1): remove it, the next run rebuilds it\n"
                         % index)


class FastNpy(unittest.TestCase):

    def test_same_arrays_as_numpy(self):
        for a in (np.arange(10, dtype=np.uint64), np.zeros((3, 4), dtype=np.float32),
                  np.array([], dtype=np.int32), np.frombuffer(b"{}", dtype=np.uint8),
                  np.arange(6, dtype=">i4").reshape(2, 3), np.float64(3.5)):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, a)
            data = buf.getvalue()
            self.assertIsNotNone(npy._fast(data), a)
            got = npy.read_array(data)
            self.assertEqual(got.dtype, a.dtype)
            np.testing.assert_array_equal(got, a)

    def test_damaged_arrays_go_to_numpy(self):
        buf = io.BytesIO()
        np.lib.format.write_array(buf, np.arange(10, dtype=np.uint64))
        data = buf.getvalue()
        self.assertIsNone(npy._fast(data[:-8]))
        with self.assertRaises(ValueError):
            npy.read_array(data[:-8])
        buf = io.BytesIO()
        np.lib.format.write_array(buf, np.asfortranarray(np.zeros((2, 3))))
        self.assertIsNone(npy._fast(buf.getvalue()))  # numpy reads Fortran order itself
        np.testing.assert_array_equal(npy.read_array(buf.getvalue()), np.zeros((2, 3)))


if __name__ == "__main__":
    unittest.main(verbosity=2)
