# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi-report check and timeline on hand-made traces (no MPI job, no OTF2 archive): the
model fit, which operations are listed and how, the picture's layout and colours, and the
reader's refusals. Run with /usr/bin/python3 (numpy, matplotlib, Pillow)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tools", "report"))

from pnmpi_report import check, timeline, trace_reader  # noqa: E402
from pnmpi_report.trace_reader import IoOp, Message, Region, Trace  # noqa: E402

LATENCY = 2e-6
PER_BYTE = 1e-9  # 1 GB/s


def message(sender, receiver, size, start, slow=0.0):
    took = LATENCY + PER_BYTE * size + slow
    return Message(sender, receiver, 0, size, "MPI_COMM_WORLD", "MPI_Send", start, start,
                   start + took, True, send_region_end=start + took, recv_routine="MPI_Recv",
                   recv_time=start + took, recv_start=start)


def synthetic():
    """Four ranks, two hosts; rank 2's three sends of 1 KiB to rank 3 at t=0.5.. take 10 ms
    more, and one 64 KiB send of rank 0 to rank 1 takes 5 ms more."""
    t = Trace(path="/x/traces.otf2", ranks=4, hosts=["a", "a", "b", "b"], start=0.0, end=1.0)
    at = 0.01
    for i in range(10):
        for size in (8, 1024, 65536):
            for s, r in ((0, 1), (1, 0), (2, 3), (3, 2), (1, 2), (2, 1)):
                t.messages.append(message(s, r, size, at))
                at += 0.001
    t.messages.append(message(0, 1, 65536, 0.4, slow=5e-3))
    for k in range(3):
        t.messages.append(message(2, 3, 1024, 0.5 + 0.01 * k, slow=10e-3))
    for k in range(20):
        t.io_ops.append(IoOp(1, "MPI_File_write_at", "/d", "write", 4096, 4096, k * 4096, False,
                             False, k, 0.6 + k * 0.001, 0.6 + k * 0.001 + 1e-5 + 4096e-9))
    t.io_ops.append(IoOp(1, "MPI_File_write_at", "/d", "write", 4096, 4096, 99, False, False,
                         99, 0.7, 0.75))
    return t


class Check(unittest.TestCase):
    def test_fit_recovers_a_line(self):
        points = [(s, LATENCY + PER_BYTE * s) for s in (0, 100, 1000, 10000) for _ in range(3)]
        latency, per_byte = check.fit(points)
        self.assertAlmostEqual(latency, LATENCY, delta=1e-12)
        self.assertAlmostEqual(per_byte, PER_BYTE, delta=1e-15)

    def test_fit_ignores_a_slow_minority(self):
        points = [(1000, LATENCY + PER_BYTE * 1000)] * 6 + [(1000, 1.0)] * 2
        latency, per_byte = check.fit(points)
        self.assertAlmostEqual(latency, LATENCY + PER_BYTE * 1000, delta=1e-12)
        self.assertEqual(per_byte, 0.0)

    def test_lists_exactly_the_slow_operations(self):
        models, lines = check.check(synthetic(), factor=3, min_excess=0)
        self.assertEqual([m.split(":")[0] for m in models],
                         ["model p2p other host", "model p2p same host", "model I/O write /d"])
        self.assertEqual(len(lines), 3, "\n".join(lines))
        self.assertTrue(lines[0].startswith("rank 0: MPI_Send to rank 1, 65536 bytes: observed "
                                            "5.0"), lines[0])
        self.assertIn("at 0.400000 s (40% of the run)", lines[0])
        self.assertTrue(lines[1].startswith("rank 1: MPI_File_write_at file /d at offset 99, 4096 "
                                            "bytes: observed 50.000 ms"), lines[1])
        self.assertTrue(lines[2].startswith("rank 2: MPI_Send x3 to rank 3, 1024 bytes: observed "
                                            "10.0"), lines[2])
        self.assertIn("each (median), expected 3.024 us", lines[2])
        self.assertIn("from 0.500000 s to 0.520000 s (50%-52% of the run)", lines[2])

    def test_min_excess_keeps_small_excesses_out(self):
        _, lines = check.check(synthetic(), factor=3, min_excess=0.008)
        self.assertEqual([l.split(":")[0] for l in lines], ["rank 1", "rank 2"])


class Timeline(unittest.TestCase):
    def test_colours_where_the_calls_are(self):
        from PIL import Image
        t = Trace(path="/x/traces.otf2", ranks=2, hosts=["a", "a"], start=0.0, end=1.0)
        spans = {"p2p": (0.1, 0.2), "coll": (0.3, 0.4), "io": (0.5, 0.6), "rma": (0.7, 0.8),
                 "request": (0.82, 0.86), "comm": (0.88, 0.9)}
        for rank in (0, 1):
            for cls, (a, b) in spans.items():
                t.regions.append(Region(rank, 0, "MPI_X", cls, a, b))
        t.messages.append(message(0, 1, 8, 0.25))
        with tempfile.TemporaryDirectory() as d:
            png = os.path.join(d, "t.png")
            timeline.draw(t, png, whole=True)
            image = Image.open(png).convert("RGB")
            w, h = timeline.figure_size(2)
            self.assertEqual(image.size, (int(w * timeline.DPI), int(h * timeline.DPI)))
            for rank in (0, 1):
                for cls, (a, b) in spans.items():
                    x, y = timeline.pixel_of((a + b) / 2, rank, 2, 0.0, 1.0)
                    hexcolour = timeline.COLOURS[cls]
                    want = tuple(int(hexcolour[i:i + 2], 16) for i in (1, 3, 5))
                    self.assertEqual(image.getpixel((x, y)), want, (cls, rank))
                # Between calls: background.
                x, y = timeline.pixel_of(0.65, rank, 2, 0.0, 1.0)
                self.assertEqual(image.getpixel((x, y)), (255, 255, 255))


    def test_default_window_starts_at_the_first_call_after_the_last_init(self):
        t = Trace(path="/x/traces.otf2", ranks=2, hosts=["a", "a"], start=0.0, end=1.0)
        t.regions += [Region(0, 0, "MPI_Init", "env", 0.0, 0.1),
                      Region(1, 0, "MPI_Init", "env", 0.0, 0.2),
                      Region(0, 0, "MPI_Send", "p2p", 0.12, 0.13),  # rank 1 still in Init
                      Region(1, 0, "MPI_Barrier", "coll", 0.3, 0.35),
                      Region(0, 0, "MPI_Barrier", "coll", 0.31, 0.35),
                      Region(0, 0, "MPI_Finalize", "env", 0.9, 1.0),
                      Region(1, 0, "MPI_Finalize", "env", 0.8, 1.0)]
        start, end = timeline.time_range(t)
        self.assertAlmostEqual(start, 0.3 - 0.006)  # 1% of (0.9 - 0.3) each side
        self.assertAlmostEqual(end, 0.9 + 0.006)
        start, end = timeline.time_range(t, window=(0.5, 0.6))
        self.assertAlmostEqual(start, 0.5 - 0.001)
        self.assertAlmostEqual(end, 0.6 + 0.001)
        start, end = timeline.time_range(t, window=(None, 0.4))
        self.assertAlmostEqual(start, 0.3 - 0.001)
        self.assertEqual(timeline.time_range(t, whole=True), (-0.01, 1.01))

    def test_a_rank_subset_gets_one_row_each(self):
        from PIL import Image
        t = Trace(path="/x/traces.otf2", ranks=4, hosts=["a"] * 4, start=0.0, end=1.0)
        for rank, cls in enumerate(("p2p", "coll", "io", "rma")):
            t.regions.append(Region(rank, 0, "MPI_X", cls, 0.2, 0.8))
        t.messages += [message(1, 3, 8, 0.1), message(0, 1, 8, 0.1)]
        with tempfile.TemporaryDirectory() as d:
            png = os.path.join(d, "t.png")
            timeline.draw(t, png, whole=True, only=[1, 3])
            image = Image.open(png).convert("RGB")
            w, h = timeline.figure_size(2)
            self.assertEqual(image.size, (int(w * timeline.DPI), int(h * timeline.DPI)))
            for row, cls in ((0, "coll"), (1, "rma")):
                x, y = timeline.pixel_of(0.5, row, 2, -0.01, 1.01)
                want = tuple(int(timeline.COLOURS[cls][i:i + 2], 16) for i in (1, 3, 5))
                self.assertEqual(image.getpixel((x, y)), want, (row, cls))
            left, bottom, bw, bh = timeline.axes_box(2)  # the plot, not the legend
            box = (int(left * image.size[0]) + 2, int((1 - bottom - bh) * image.size[1]) + 2,
                   int((left + bw) * image.size[0]) - 2, int((1 - bottom) * image.size[1]) - 2)
            colours = {c for _, c in image.crop(box).getcolors(1 << 20)}
            self.assertIn((0, 0, 0), colours)  # the message from rank 1 to rank 3
            for cls in ("p2p", "io"):  # ranks 0 and 2 are not drawn
                self.assertNotIn(tuple(int(timeline.COLOURS[cls][i:i + 2], 16)
                                       for i in (1, 3, 5)), colours, cls)
        self.assertEqual(timeline.parse_ranks("0-2, 3", 4), [0, 1, 2, 3])
        self.assertEqual(timeline.parse_ranks("3,1", 4), [1, 3])


class Reader(unittest.TestCase):
    def test_refusals_name_the_problem(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(trace_reader.TraceError, "no traces.otf2"):
                trace_reader.archive_path(d)
            with self.assertRaisesRegex(trace_reader.TraceError, "no such directory"):
                trace_reader.archive_path(os.path.join(d, "missing"))
            open(os.path.join(d, "INCOMPLETE"), "w").close()
            os.mkdir(os.path.join(d, "raw"))
            open(os.path.join(d, "raw", "rank0.thread0.raw"), "w").close()
            with self.assertRaisesRegex(trace_reader.TraceError,
                                        "incomplete.*1 raw spill file"):
                trace_reader.archive_path(d)

    def test_routine_classes(self):
        self.assertEqual([trace_reader.routine_class(n) for n in (
            "MPI_Send", "MPI_Waitall", "MPI_Allreduce", "MPI_Put", "MPI_Win_fence",
            "MPI_Win_create", "MPI_File_read_at", "MPI_Comm_split", "MPI_Init")],
            ["p2p", "request", "coll", "rma", "rma", "comm", "io", "comm", "env"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
