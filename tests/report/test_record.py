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


class MonitorRegion(common.Case):
    """The monitor's region of a part file (modules/monitor/part_region.h), made here by
    hand: read into the matrix, and refused with one line when it is bad."""

    def part(self, version=1, cut=0, edit=None, layout=1, threads=()):
        """A part file of rank 0 of 2 whose monitor region (layout 1 or 2, named `version`
        in the file's region table) holds 5 messages and 40 bytes to rank 1 and one
        communicator; layout 2 adds `threads`, (key, [count per bin], bytes) slots."""
        world, stride, cstride, slots, capacity = 2, 152, 320, 64, 1040
        dtype = parts.MONITOR_V2 if layout == 2 else parts.MONITOR
        m = np.zeros(1, dtype)
        m["magic"], m["version"], m["world_size"], m["world_rank"] = b"PNMPIMON", layout, world, 0
        m["peer_stride"], m["peer_count_at"], m["peer_bytes_at"] = stride, 8, 72
        m["comm_slots"], m["comm_used"], m["member_capacity"] = slots, 1, capacity
        m["members_used"], m["coll_stride"], m["coll_count_at"] = 2, cstride, 64
        m["coll_bytes_at"], m["coll_classes"] = 112, 3
        m["peers_at"], m["hist_at"] = 256, 256 + world * stride
        m["comm_meta_at"] = m["hist_at"]
        m["comms_at"] = int(m["comm_meta_at"][0]) + slots * parts.COMM_META.itemsize
        m["members_at"] = int(m["comms_at"][0]) + slots * cstride
        end = int(m["members_at"][0]) + capacity * 4
        tstride, tslots = 576, 8
        if layout == 2:
            m["thread_slots"], m["thread_used"], m["thread_stride"] = tslots, len(threads), tstride
            m["thread_key_at"], m["thread_bins_at"], m["thread_bytes_at"] = 0, 24, 552
            m["thread_bins"], m["threads_at"] = 66, end
            end += tslots * tstride
        if edit:
            edit(m)
        region = bytearray(end)
        region[:dtype.itemsize] = m.tobytes()
        for k, (key, bins, nbytes) in enumerate(threads):
            at = end - tslots * tstride + k * tstride
            region[at:at + 8] = np.uint64(key).tobytes()
            region[at + 24:at + 24 + 8 * len(bins)] = np.array(bins, "<u8").tobytes()
            region[at + 552:at + 560] = np.uint64(nbytes).tobytes()
        peer1 = int(m["peers_at"][0]) + stride  # to rank 1: 5 messages, 40 bytes
        region[peer1 + 8:peer1 + 16] = np.uint64(5).tobytes()
        region[peer1 + 72:peer1 + 80] = np.uint64(40).tobytes()
        meta = np.zeros(1, parts.COMM_META)
        meta["size"] = 2
        at = int(m["comm_meta_at"][0])
        region[at:at + meta.itemsize] = meta.tobytes()
        at = int(m["comms_at"][0])
        region[at + 64:at + 72] = np.uint64(3).tobytes()  # 3 calls, 24 bytes
        region[at + 112:at + 120] = np.uint64(24).tobytes()
        at = int(m["members_at"][0])
        region[at:at + 8] = np.array([0, 1], "<i4").tobytes()
        h = np.zeros(1, parts.HEADER)
        h["magic"], h["version"], h["rank"], h["size"] = parts.MAGIC, 1, 0, world
        h["region_count"] = 1
        h["regions"][0, 0]["name"], h["regions"][0, 0]["version"] = b"monitor", version
        h["regions"][0, 0]["offset"], h["regions"][0, 0]["bytes"] = 4096, len(region)
        data = h.tobytes() + bytes(4096 - parts.HEADER.itemsize) + bytes(region)
        with open(self.path("pnmpi-x.h.1.part"), "wb") as f:
            f.write(data[:len(data) - cut])

    def test_read_into_the_matrix(self):
        self.part()
        r = parts.merge_parts(self.dir)[0]
        self.assertEqual((list(r.p2p_src), list(r.p2p_dst), list(r.p2p_count),
                          list(r.p2p_bytes)), ([0], [1], [5], [40]))
        [(name, members, nbytes, count)] = r.communicators()
        self.assertEqual((name, list(members), list(nbytes), list(count)),
                         ("MPI_COMM_WORLD", [0, 1], [24, 0], [3, 0]))

    def test_truncated(self):
        self.part(cut=100)
        self.fails("truncated part file: the monitor region ends after the file", "summary",
                   self.dir)

    def test_wrong_version(self):
        self.part(version=3)
        self.fails("monitor region version 3 is not supported (this pnmpi-report reads "
                   "versions 1 to 2)", "summary", self.dir)

    def test_version_2_threads(self):
        """Two threads' counters to rank 1 and one to rank 0 (itself), added to the rows;
        counters not kept are said."""
        def lost(m):
            m["thread_lost"], m["comm_lost"] = 3, 2
        self.part(version=2, layout=2, edit=lost,
                  threads=((2, [1, 2] + [0] * 63 + [4], 700), (2, [0, 6], 60), (1, [9], 90)))
        r = parts.merge_parts(self.dir)[0]
        self.assertEqual((list(r.p2p_src), list(r.p2p_dst), list(r.p2p_count),
                          list(r.p2p_bytes)), ([0, 0], [0, 1], [9, 5 + 7 + 6], [90, 800]))
        self.assertIn("rank 0: 3 per-thread send counters not kept (the monitor's part file "
                      "keeps 8): those threads' messages to those peers are missing", r.notes)
        self.assertIn("rank 0: 2 communicators not kept (the monitor's part file keeps 64): "
                      "their collectives are missing", r.notes)

    def test_version_2_damaged(self):
        def outside(m):
            m["world_size"] = 1  # a thread slot's key names rank 1
        self.part(version=2, layout=2, threads=((2, [1], 8),), edit=outside)
        self.fails("damaged part file", "summary", self.dir)

        def beyond(m):
            m["thread_slots"] = 100  # slots past the region's end
        self.part(version=2, layout=2, edit=beyond)
        self.fails("damaged part file: the monitor region does not fit", "summary", self.dir)

    def test_damaged(self):
        def stride(m):
            m["peer_count_at"] = 200  # past the end of a peer's block
        self.part(edit=stride)
        self.fails("damaged part file: the monitor region does not fit", "summary", self.dir)

        def members(m):
            m["world_size"] = 1  # member 1 is outside a world of 1
        self.part(edit=members)
        self.fails("damaged part file", "summary", self.dir)


if __name__ == "__main__":
    import unittest
    unittest.main(verbosity=2)
