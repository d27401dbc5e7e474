# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report heatmap`: the pictures decode, have the asked size, and their cells'
colours order as the matrix values do."""

import os
import unittest

import numpy as np
from PIL import Image

import common
import fixtures as F
from pnmpi_report.heatmap import AXES_RECT

N = 5
# Distinct byte values spanning four decades; counts ordered the other way round.
VALUES = {(0, 1): 10, (1, 2): 100, (2, 3): 1000, (3, 4): 10000, (4, 0): 100000,
          (0, 2): 316, (2, 4): 31600}


def matrices():
    c, b = F.zeros(N), F.zeros(N)
    for k, ((i, j), v) in enumerate(sorted(VALUES.items(), key=lambda kv: kv[1])):
        b[i][j] = v
        c[i][j] = len(VALUES) - k  # the smallest byte count has the most messages
    return {"p2p": (c, b)}


def cell_colour(img, g, i, j):
    """The median colour of the middle of cell (i, j) of a g x g heatmap."""
    w, h = img.size
    left, right = AXES_RECT[0] * w, (AXES_RECT[0] + AXES_RECT[2]) * w
    top, bottom = h - (AXES_RECT[1] + AXES_RECT[3]) * h, h - AXES_RECT[1] * h
    cx = left + (j + 0.5) * (right - left) / g
    cy = top + (i + 0.5) * (bottom - top) / g
    r = max(1, int(0.2 * (right - left) / g))
    patch = np.asarray(img.convert("RGB"))[int(cy) - r:int(cy) + r + 1,
                                           int(cx) - r:int(cx) + r + 1]
    return np.median(patch.reshape(-1, 3), axis=0)


class Heatmap(common.Case):
    def setUp(self):
        super().setUp()
        self.lut = common.viridis_lut()

    def positions(self, img, g, cells):
        out = {}
        for (i, j) in cells:
            k, dist = common.colour_scalar(cell_colour(img, g, i, j), self.lut)
            self.assertLess(dist, 12, "cell (%d, %d) is not a viridis colour" % (i, j))
            out[(i, j)] = k
        return out

    def test_cells_order_as_values(self):
        F.write_json_v1(self.path("run.json"), N, matrices())
        out, _ = self.ok("heatmap", self.path("run.json"), "-o", self.path("h.png"),
                         "--category", "p2p")
        self.assertIn("5x5 cells (one per rank)", out)
        img = Image.open(self.path("h.png"))
        img.load()
        self.assertEqual(img.size, (1000, 860))
        pos = self.positions(img, N, VALUES)
        by_value = sorted(VALUES, key=VALUES.get)
        self.assertEqual(sorted(VALUES, key=pos.get), by_value, pos)
        # Log scale: the smallest is at the bottom of the map, the largest at the top, and
        # 316 (half a decade above 100 on a log scale) halfway between 100 and 1000.
        self.assertLess(pos[(0, 1)], 5)
        self.assertGreater(pos[(4, 0)], 250)
        self.assertAlmostEqual(pos[(0, 2)], (pos[(1, 2)] + pos[(2, 3)]) / 2.0, delta=6)
        for i in range(N):  # zero cells are white
            for j in range(N):
                if (i, j) not in VALUES:
                    self.assertTrue(np.all(cell_colour(img, N, i, j) > 250), (i, j))
        self.assertEqual([f for f in os.listdir(self.dir) if f.endswith(".tmp")], [])

    def test_counts_and_size(self):
        F.write_json_v1(self.path("run.json"), N, matrices())
        self.ok("heatmap", self.path("run.json"), "-o", self.path("c.png"), "--counts",
                "--size", "640x480")
        img = Image.open(self.path("c.png"))
        img.load()
        self.assertEqual(img.size, (640, 480))
        pos = self.positions(img, N, VALUES)
        self.assertEqual(sorted(VALUES, key=pos.get), sorted(VALUES, key=VALUES.get)[::-1])

    def red_pixels(self, path):
        a = np.asarray(Image.open(path).convert("RGB")).astype(int)
        return (a[:, :, 0] > 200) & (a[:, :, 1] < 60) & (a[:, :, 2] < 60)

    def test_node_boundaries(self):
        F.write_json_v2(self.path("run.json"), N, matrices(), ["a", "a", "b", "b", "b"])
        self.ok("heatmap", self.path("run.json"), "-o", self.path("n.png"))
        red = self.red_pixels(self.path("n.png"))
        # The boundary between ranks 1 and 2: a vertical red line at 2/5 of the axes.
        x = int((AXES_RECT[0] + AXES_RECT[2] * 2 / 5.0) * 1000)
        self.assertGreater(red[:, x - 2:x + 3].sum(), 400)
        F.write_json_v1(self.path("v1.json"), N, matrices())
        self.ok("heatmap", self.path("v1.json"), "-o", self.path("v1.png"))
        self.assertEqual(self.red_pixels(self.path("v1.png")).sum(), 0)

    def test_aggregation_to_nodes_and_blocks(self):
        n, per = 600, 100
        c, b = F.zeros(n), F.zeros(n)
        for i in range(n):
            c[i][(i + 1) % n], b[i][(i + 1) % n] = 1, 10  # mostly inside a node
            c[i][(i + per) % n], b[i][(i + per) % n] = 1, 1  # to the next node
        hosts = ["node%d" % (i // per) for i in range(n)]
        F.write_json_v2(self.path("big.json"), n, {"p2p": (c, b)}, hosts, dense=False)
        out, _ = self.ok("heatmap", self.path("big.json"), "-o", self.path("big.png"))
        self.assertIn("6x6 cells (one per node)", out)
        img = Image.open(self.path("big.png"))
        pos = self.positions(img, 6, [(k, k) for k in range(6)] +
                             [(k, (k + 1) % 6) for k in range(6)])
        for k in range(6):  # inside: 99 * 10 + 0; to the next node: 100 * 1 + 1 * 10
            self.assertGreater(pos[(k, k)], pos[(k, (k + 1) % 6)])
        out, _ = self.ok("heatmap", self.path("big.json"), "-o", self.path("ranks.png"),
                         "--max-cells", "1000")
        self.assertIn("600x600 cells (one per rank)", out)
        # Without hosts: blocks of consecutive ranks.
        F.write_json_v1(self.path("v1.json"), n, {"p2p": (c, b)})
        out, _ = self.ok("heatmap", self.path("v1.json"), "-o", self.path("blocks.png"),
                         "--max-cells", "200")
        self.assertIn("200x200 cells (one per block of 3 ranks)", out)

    def test_svg_and_errors(self):
        F.write_json_v1(self.path("run.json"), N, matrices())
        self.ok("heatmap", self.path("run.json"), "-o", self.path("h.svg"))
        text = F.read_text(self.path("h.svg"))
        self.assertTrue(text.startswith("<?xml"))
        self.assertIn("<svg", text)
        self.assertIn("<image", text)  # the matrix, embedded
        self.fails("must end in .png or .svg", "heatmap", self.path("run.json"), "-o",
                   self.path("h.jpg"))
        self.fails("does not exist", "heatmap", self.path("run.json"), "-o",
                   self.path("no/such/dir/h.png"))
        self.fails("has no category 'p3p'", "heatmap", self.path("run.json"), "-o",
                   self.path("h.png"), "--category", "p3p")
        self.fails("--by-node needs the hosts", "heatmap", self.path("run.json"), "-o",
                   self.path("h.png"), "--by-node")


if __name__ == "__main__":
    unittest.main()
