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
        self.assertIn("<td class=\"name\">p2p</td>", page)
        self.assertIn("<td class=\"name\">a</td><td class=\"n\">4</td>", page)
        self.assertIn("Application bytes inside nodes: 384 (384 B); between nodes: 327808", page)
        self.assertIn("<td class=\"name\">4.0 KiB+</td><td class=\"n\">80</td>", page)
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


# Run in a copy of the page, without its Content-Security-Policy: what sticks out past the
# right margin of a 700-pixel window, and which table boxes need a scroll bar.
MEASURE = """<script>
const width = document.documentElement.clientWidth;
const right = document.body.getBoundingClientRect().right;  // inside the page's margin
const out = [];
for (const e of document.querySelectorAll("body *")) {
  const r = e.getBoundingClientRect();
  if (r.width > 0 && r.right > right + 0.5)
    out.push(e.tagName + "." + e.className + ":" + Math.round(r.right) + ">" + right);
}
const scrolling = [...document.querySelectorAll("div.table")]
  .filter(d => d.scrollWidth > d.clientWidth + 1).map(d => d.scrollWidth);
document.body.setAttribute("data-layout", JSON.stringify({
  width: width, page: document.documentElement.scrollWidth, over: out.slice(0, 10),
  scrolling: scrolling}));
</script>"""


def layout_run(path, n, hosts, collectives_everywhere):
    """A stencil's p2p (+-1, sizes growing with the rank) and, when asked, a collective
    reaching every pair, as the monitor's JSON writes them."""
    p2p = sorted([i, (i + d) % n, 10 + i % 7, (1000 + i) * 64] for i in range(n)
                 for d in (1, -1))
    cats = {"p2p": {"origin": "application", "what": "point-to-point", "entries": p2p}}
    if collectives_everywhere:
        cats["coll"] = {"origin": "application", "what": "collectives as per-peer messages "
                        "(every pair, a rank with itself too)",
                        "entries": [[i, j, 1, 8] for i in range(n) for j in range(n)]}
    F.write_json(path, {"format": "pnmpi-monitor-matrices", "version": 2, "world_size": n,
                        "hosts": hosts, "categories": cats})


class Layout(common.Case):
    """The page at 700 pixels, for 4 ranks on 2 hosts and 1024 ranks on 1024 hosts:
    nothing wider than the window, every column labelled, a host table one can read, the
    point-to-point pattern shown when collectives cover the matrix."""

    def measure(self, page_path):
        with open(page_path) as f:
            page = f.read()
        page = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
        test_page = page_path + ".measure.html"
        with open(test_page, "w") as f:
            f.write(page.replace("</body>", MEASURE + "</body>"))
        profile = tempfile.mkdtemp(prefix="pnmpi-report-chromium-")
        try:
            p = subprocess.run(
                [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--user-data-dir=" + profile, "--window-size=700,2000",
                 "--virtual-time-budget=10000", "--dump-dom", "file://" + test_page],
                capture_output=True, text=True, timeout=300)
        finally:
            shutil.rmtree(profile, ignore_errors=True)
        m = re.search(r'data-layout="([^"]*)"', p.stdout)
        self.assertIsNotNone(m, "no measurement in the DOM: %s" % p.stderr[-2000:])
        import html as html_module
        import json
        return json.loads(html_module.unescape(m.group(1)))

    def check_page(self, n, hosts, host_rows, collectives=True):
        layout_run(self.path("run.json"), n, hosts, collectives)
        self.ok("html", self.path("run.json"), "-o", self.path("r.html"))
        page = F.read_text(self.path("r.html"))
        headers = re.findall(r"<th>(.*?)</th>", page)
        self.assertTrue(headers)
        self.assertNotIn("", headers)
        host_table = page[page.index("<th>host</th>"):]
        host_table = host_table[:host_table.index("</table>")]
        self.assertEqual(host_table.count("<tr>"), host_rows)
        if collectives:
            # The point-to-point heatmap comes first, before the one the collectives fill.
            self.assertLess(page.index("Point-to-point only"), page.index("All application"))
            self.assertLess(page.index('alt="heatmap: %dx' % min(n, 256)),
                            page.index("All application"))
        else:
            self.assertNotIn("Point-to-point only", page)
        got = self.measure(self.path("r.html"))
        self.assertTrue(600 <= got["width"] <= 700, got)  # 700 less a scroll bar
        self.assertEqual(got["over"], [], got)
        self.assertLessEqual(got["page"], got["width"], got)
        self.assertEqual(got["scrolling"], [], got)
        return page

    def test_four_ranks_at_700_pixels(self):
        self.check_page(4, ["nodeA", "nodeA", "nodeB", "nodeB"], 2)

    def test_1024_ranks_on_1024_hosts_at_700_pixels(self):
        # (Collectives on every pair of 1024 ranks are a million cells: the 4-rank page
        # checks those.)
        page = self.check_page(1024, ["cluster-node-%04d" % i for i in range(1024)], 32,
                               collectives=False)
        self.assertIn("The 32 of 1024 hosts that send most bytes out of their node", page)
        # The first rows are the hosts sending most: rank 1023's (the largest messages).
        self.assertIn('<td class="name">cluster-node-1023</td><td class="n">1</td>', page)


class Pictures(common.Case):
    """What the pictures say, read from their SVG text (math text off, so as written)."""

    def svg_texts(self, run, selection="app", by_node=False):
        import matplotlib
        from pnmpi_report import heatmap
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            svg, _ = heatmap.render(run, selection, "bytes", (600, 500), by_node=by_node,
                                    fmt="svg")
        return svg.decode()

    def load(self, n, entries, hosts):
        from pnmpi_report import inputs
        F.write_json(self.path("r.json"), {
            "format": "pnmpi-monitor-matrices", "version": 2, "world_size": n, "hosts": hosts,
            "categories": {"p2p": {"origin": "application", "what": "t",
                                   "entries": sorted(entries)}}})
        return inputs.load_run([self.path("r.json")])

    def test_colour_bar_within_one_decade_labels_both_ends(self):
        run = self.load(4, [[0, 1, 1, 64000], [1, 2, 1, 64200], [2, 3, 1, 64400]], ["a"] * 4)
        svg = self.svg_texts(run)
        for label in (">64k<", ">64.4k<"):
            self.assertIn(label, svg)
        run = self.load(2, [[0, 1, 1, 128096], [1, 0, 1, 128352]], ["a", "b"])
        svg = self.svg_texts(run)
        self.assertIn(">128.1k<", svg)
        self.assertIn(">128.4k<", svg)
        run = self.load(2, [[0, 1, 1, 10], [1, 0, 1, 50]], ["a", "b"])
        svg = self.svg_texts(run)
        for label in (">10<", ">20<", ">50<"):
            self.assertIn(label, svg)

    def test_many_node_names_stand_apart(self):
        hosts = ["cn%03d" % (r // 2) for r in range(64)]
        run = self.load(64, [[r, (r + 1) % 64, 1, 100] for r in range(64)], hosts)
        svg = self.svg_texts(run, by_node=True)
        # 32 names along the top: turned upright (rotate(-90)), not side by side.
        tops = re.findall(r'<text [^>]*transform="translate\([^)]*\) rotate\(-90\)">(cn\d+)<',
                          svg)
        self.assertEqual(tops, ["cn%03d" % k for k in range(32)])

    def test_rank_axis_of_the_load_chart_has_whole_ranks(self):
        import matplotlib
        from pnmpi_report import charts
        # The chart is a PNG; its tick labels come from the same axis code, read back here.
        fig_ticks = []
        original = charts._png

        def keep(fig):
            ax = fig.axes[0]
            fig.canvas.draw()
            lo, hi = ax.get_xlim()
            fig_ticks.extend(t.get_text() for t, v in zip(ax.get_xticklabels(), ax.get_xticks())
                             if lo <= v <= hi)
            return original(fig)
        charts._png = keep
        try:
            with matplotlib.rc_context({}):
                charts.per_rank([5, 6, 7, 8], "t", "bytes")
        finally:
            charts._png = original
        self.assertEqual(fig_ticks, ["0", "1", "2", "3"])


if __name__ == "__main__":
    unittest.main()
