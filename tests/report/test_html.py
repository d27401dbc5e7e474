# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report html`: one self-contained page, rendered by headless Chromium to a
screenshot that shows the heatmap."""

import base64
import io
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import numpy as np
from PIL import Image

import common
import fixtures as F

CHROMIUM = os.environ.get("PNMPI_TEST_CHROMIUM", "/usr/bin/chromium")
N = 8


def traffic():
    c, b = F.zeros(N), F.zeros(N)
    for i in range(N):
        c[i][(i + 4) % N], b[i][(i + 4) % N] = 10, 40960
        c[i][(i + 1) % N], b[i][(i + 1) % N] = 1, 64
    return {"p2p": (c, b)}


class Html(common.Case):
    def write_report(self):
        F.write_json_v2(self.path("run.json"), N, traffic(), ["a"] * 4 + ["b"] * 4)
        lines = {r: [("E", (r + 4) % N, 40960, 10, F.histogram([4096] * 10)),
                     ("E", (r + 1) % N, 64, 1, F.histogram([64]))] for r in range(N)}
        F.write_prof(self.path("run"), N, lines)
        out, _ = self.ok("html", self.path("run"), "-o", self.path("report.html"))
        self.assertIn("wrote", out)
        return F.read_text(self.path("report.html"))

    def test_self_contained(self):
        page = self.write_report()
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "DATA", page)
        self.assertNotIn("<script", text.lower())
        self.assertIsNone(re.search(r"(?i)(https?:|ftp:|//[a-z])", text),
                          "a network address in the report")
        srcs = re.findall(r'(?:src|href)="([^"]*)"', page)
        self.assertTrue(srcs)
        self.assertTrue(all(s.startswith("data:image/png;base64,") for s in srcs), srcs[:3])
        for s in srcs:  # every picture decodes
            Image.open(io.BytesIO(base64.b64decode(s.split(",", 1)[1]))).load()
        self.assertIn("default-src 'none'", page)
        # Tables: totals, node traffic, top talkers, histogram.
        page = text
        self.assertIn("<td>p2p</td>", page)
        self.assertIn("<td>a</td><td class=\"n\">4</td>", page)
        self.assertIn("Application bytes inside nodes: 384 (384 B); between nodes: 327808", page)
        self.assertIn("<td>4.0 KiB+</td><td class=\"n\">80</td>", page)
        self.assertGreaterEqual(len(srcs), 6)  # 2 heatmaps, node matrix, load, p2p, histogram

    def test_chromium_renders_the_heatmap(self):
        self.write_report()
        shot = self.path("shot.png")
        profile = tempfile.mkdtemp(prefix="pnmpi-report-chromium-")
        try:
            p = subprocess.run(
                [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--user-data-dir=" + profile, "--screenshot=" + shot,
                 "--window-size=1200,1400", "file://" + self.path("report.html")],
                capture_output=True, text=True, timeout=120)
        finally:
            shutil.rmtree(profile, ignore_errors=True)
        self.assertTrue(os.path.exists(shot), "no screenshot: %s\n%s" % (p.stdout, p.stderr))
        img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
        self.assertEqual(img.shape[:2], (1400, 1200))
        self.assertGreater(img.std(), 20, "a blank screenshot")
        # The heatmap's cells: viridis colours (neither grey text nor white page), in
        # quantity, both the darkest (light ring) and the brightest (heavy partners).
        lut = common.viridis_lut()
        flat = img.reshape(-1, 3)
        coloured = flat[(flat.max(axis=1) - flat.min(axis=1)) > 60]
        self.assertGreater(len(coloured), 20000)
        sample = coloured[::max(1, len(coloured) // 4000)]
        near = [common.colour_scalar(c, lut) for c in sample]
        on_map = [k for k, d in near if d < 15]
        self.assertGreater(len(on_map), 0.8 * len(sample))
        self.assertLess(min(on_map), 20)
        self.assertGreater(max(on_map), 235)


if __name__ == "__main__":
    unittest.main()
