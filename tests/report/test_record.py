# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The job record (docs/record.md): synthetic round trips from 2 to 16,384 ranks with
their sizes, part files merged, and bad records refused with one clear line."""

import io
import json
import os
import zipfile

import numpy as np

import common
from pnmpi_report import parts, record, record_synth

# docs/record.md: at most 64 KB at 1,024 ranks and 1 MB at 16,384 (3-D stencil).
LIMITS = {1024: 64 * 1024, 16384: 1024 * 1024}


class RoundTrip(common.Case):
    def test_sizes_and_values(self):
        for n in (2, 3, 64, 1000, 1024, 4096, 16384):
            meta, a = record_synth.stencil(n, seed=n, job_id="job%d" % n)
            path = self.path(record.record_name(meta["job_id"]))
            record.write_record(path, meta, a)
            if n in LIMITS:
                self.assertLessEqual(os.path.getsize(path), LIMITS[n], n)
            r = record.read_record(path)
            self.assertEqual((r.ranks, r.job_id, r.routines, r.ended),
                             (n, "job%d" % n, record_synth.ROUTINES, "finalized"))
            for k in ("calls", "bytes", "p2p_src", "p2p_dst", "p2p_bytes", "p2p_count",
                      "comm_offsets", "comm_members", "comm_bytes", "rank_host", "rank_state"):
                self.assertTrue(np.array_equal(getattr(r, k), a[k]), (n, k))
            # Times are kept to 12 mantissa bits.
            rel = np.abs(r.time_s - a["time_s"]) / np.maximum(a["time_s"], 1e-30)
            self.assertLessEqual(float(rel.max()), 2.0 ** -12, n)
            self.assertEqual(len(r.communicators()), 1)
            self.assertEqual(r.unfinished(), {})

    def test_incomplete_and_names(self):
        meta, a = record_synth.stencil(4, ended="incomplete", user="o'brien \u00e9")
        a["rank_state"][1], a["rank_signal"][1] = record.SIGNALED, 15
        a["rank_state"][2], a["rank_code"][2] = record.ABORTED, 7
        a["rank_state"][3] = record.RUNNING
        path = self.path("x.record.npz")
        record.write_record(path, meta, a)
        r = record.read_record(path)
        self.assertEqual(r.user, "o'brien \u00e9")
        self.assertEqual(r.unfinished(), {"signal 15": [1], "MPI_Abort (code 7)": [2],
                                          "killed (no mark)": [3]})


class EverywhereARunIsRead(common.Case):
    def test_matrix_and_subcommands(self):
        from pnmpi_report import inputs
        meta, a = record_synth.stencil(64, seed=2, job_id="7")
        path = self.path(record.record_name("7"))
        record.write_record(path, meta, a)
        for spec in (path, self.dir):
            run = inputs.load_run([spec])
            p2p = run.categories["p2p"].bytes
            self.assertEqual((list(p2p.src), list(p2p.dst), list(p2p.val)),
                             (list(a["p2p_src"]), list(a["p2p_dst"]), list(a["p2p_bytes"])))
            self.assertEqual(run.hosts, ["node00000"] * 64)
        self.ok("heatmap", path, "-o", self.path("h.png"))
        out, _ = self.ok("summary", self.dir)
        self.assertIn("Job 7: 64 ranks on 1 host(s)", out)
        self.assertIn("ended: finalized", out)
        self.ok("html", path, "-o", self.path("r.html"))


class BadRecords(common.Case):
    def write(self, meta=None, arrays=None, edit=None):
        m, a = record_synth.stencil(4)
        m.update(meta or {})
        a.update(arrays or {})
        data = record.record_bytes(m, a)
        if edit:
            data = edit(data)
        path = self.path("bad.record.npz")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def refused(self, path, expected):
        with self.assertRaises(record.ReportError) as cm:
            record.read_record(path)
        self.assertIn(expected, str(cm.exception))
        self.assertTrue(str(cm.exception).startswith(path + ": "), str(cm.exception))
        # The command line says the same in one line, status 2.
        self.fails(expected, "summary", path)

    def test_truncated(self):
        self.refused(self.write(edit=lambda d: d[:len(d) // 2]), "truncated")

    def test_empty(self):
        self.refused(self.write(edit=lambda d: b""), "empty file")

    def test_foreign_zip(self):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("hello.txt", "hi")
        self.refused(self.write(edit=lambda d: buf.getvalue()), "no meta.npy")

    def test_foreign_npz(self):
        buf = io.BytesIO()
        np.savez(buf, meta=np.frombuffer(json.dumps({"format": "other"}).encode(), np.uint8))
        self.refused(self.write(edit=lambda d: buf.getvalue()), "format 'other'")

    def test_wrong_version(self):
        def edit(d):
            out = io.BytesIO()
            with zipfile.ZipFile(io.BytesIO(d)) as zin, zipfile.ZipFile(out, "w") as zout:
                for name in zin.namelist():
                    data = zin.read(name)
                    if name == "meta.npy":
                        meta = json.loads(np.lib.format.read_array(io.BytesIO(data)).tobytes())
                        meta["version"] = 99
                        b = io.BytesIO()
                        np.save(b, np.frombuffer(json.dumps(meta).encode(), np.uint8))
                        data = b.getvalue()
                    zout.writestr(name, data)
            return out.getvalue()
        self.refused(self.write(edit=edit), "record version 99 is not supported")

    def test_hostile_names(self):
        self.refused(self.write({"hosts": ["node\x1b[2J"]}), "control characters")
        self.refused(self.write({"routines": record_synth.ROUTINES[:-1] + ["rm -rf /"]}),
                     "is not an MPI routine name")

    def test_wrong_shapes(self):
        self.refused(self.write(arrays={"rank_state": np.zeros(3, np.uint8)}),
                     "array rank_state has shape (3,), expected (4,)")
        self.refused(self.write(arrays={"p2p_dst": np.full(
            len(record_synth.stencil(4)[1]["p2p_src"]), 9)}), "names a rank outside 0..3")


class Parts(common.Case):
    def test_no_parts(self):
        with self.assertRaises(record.ReportError) as cm:
            parts.merge_parts(self.dir)
        self.assertIn("no job record (pnmpi-*.record.npz) and no part files", str(cm.exception))
        # A directory with nothing in it is the monitor's error on the command line.
        self.fails("holds no monitor output", "summary", self.dir)

    def test_foreign_part(self):
        with open(self.path("pnmpi-x.h.1.part"), "wb") as f:
            f.write(b"NOTAPART" + bytes(5000))
        self.fails("not a pnmpi part file", "summary", self.dir)

    def test_truncated_part(self):
        h = np.zeros(1, parts.HEADER)
        h["magic"], h["version"], h["rank"], h["size"] = parts.MAGIC, 1, 0, 1
        h["region_count"] = 1
        h["regions"][0, 0]["name"], h["regions"][0, 0]["version"] = b"profile", 1
        h["regions"][0, 0]["offset"], h["regions"][0, 0]["bytes"] = 4096, 1 << 20
        with open(self.path("pnmpi-x.h.1.part"), "wb") as f:
            f.write(h.tobytes() + bytes(4096 - parts.HEADER.itemsize) + bytes(100))
        self.fails("truncated part file", "summary", self.dir)


if __name__ == "__main__":
    import unittest
    unittest.main(verbosity=2)
