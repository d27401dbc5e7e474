# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report html RUN -o report.html`: one self-contained page.

Pictures are PNG data: URIs; there is no script and nothing is fetched (a
Content-Security-Policy says so to the browser), so the file can be mailed, archived or
opened on a machine without network."""

import base64
import html

from . import advice, analysis, charts, heatmap, inputs, placement
from .errors import ReportError
from .model import human_bytes
from .output import write_atomic

HELP = "write one self-contained HTML page: heatmaps, node matrix, tables, histograms"

_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1100px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0 1em 0; }
th, td { border: 1px solid #ccc; padding: 2px 8px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th { background: #eee; } img { max-width: 100%; } .note { color: #8a4b00; }
.small { font-size: 0.9em; color: #555; }
"""


def add_arguments(parser):
    inputs.add_run_argument(parser)
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the HTML file to write")
    parser.add_argument("--top", type=int, default=20, metavar="K",
                        help="talkers listed (default 20)")
    parser.add_argument("--max-cells", type=int, default=heatmap.DEFAULT_MAX_CELLS,
                        metavar="K", help="aggregate heatmaps past K ranks a side")
    placement.add_node_arguments(parser)


def run(args):
    if not args.output.lower().endswith((".html", ".htm")):
        raise ReportError("the report's name must end in .html", args.output)
    r = inputs.load_run(args.run)
    placement.apply_assumed_hosts(r, args)
    page = render(r, max(0, args.top), args.max_cells)
    page = advice.insert_html(page, advice.render_html(advice.placement_advice(r, args.run)))
    write_atomic(args.output, page)
    print("pnmpi-report: wrote %s (%d KiB)" % (args.output, len(page.encode()) // 1024))
    return 0


def _img(png, alt):
    return '<img src="data:image/png;base64,%s" alt="%s">\n' % (
        base64.b64encode(png).decode("ascii"), html.escape(alt))


def _table(header, rows, text_columns=(0,)):
    """Columns other than text_columns hold numbers: right-aligned, never wrapped."""
    t = "<table><tr>%s</tr>\n" % "".join("<th>%s</th>" % html.escape(str(h)) for h in header)
    for row in rows:
        t += "<tr>%s</tr>\n" % "".join(
            '<td%s>%s</td>' % ("" if i in text_columns else ' class="n"', html.escape(str(v)))
            for i, v in enumerate(row))
    return t + "</table>\n"


def render(run, top=20, max_cells=heatmap.DEFAULT_MAX_CELLS):
    s = analysis.summarize(run, top)
    esc = html.escape
    body = "<h1>Communication report: %s</h1>\n" % esc(run.source)
    body += '<p class="small">%s, %d ranks%s.</p>\n' % (
        esc(run.format), run.world_size,
        ", %d hosts%s" % (len(s["nodes"]["hosts"]), " (assumed)" if s["nodes"]["assumed"]
                          else "") if s["nodes"] else ", hosts unknown")
    for n in s["notes"]:
        body += '<p class="note">Note: %s</p>\n' % esc(n)

    body += "<h2>Who talks to whom</h2>\n"
    body += ('<p class="small">Row = sender, column = receiver. Colour: bytes per pair on a '
             'logarithmic scale (dark = few, yellow = most); white = nothing sent.</p>\n')
    png, info = heatmap.render(run, "app", "bytes", (1000, 860), max_cells)
    body += _img(png, "heatmap: " + info)
    png, info = heatmap.render(run, "app", "counts", (1000, 860), max_cells)
    body += _img(png, "heatmap: " + info)

    if s["nodes"] is not None:
        nodes = s["nodes"]
        total = nodes["inside"] + nodes["between"]
        body += "<h2>Nodes</h2>\n"
        body += "<p>Application bytes inside nodes: %d (%s); between nodes: %d (%s)%s.</p>\n" % (
            nodes["inside"], esc(human_bytes(nodes["inside"])), nodes["between"],
            esc(human_bytes(nodes["between"])),
            ", %.1f%% of the traffic crosses the network" % (100.0 * nodes["between"] / total)
            if total else "")
        if nodes["assumed"]:
            body += '<p class="note">Hosts assumed (natural placement), not recorded.</p>\n'
        png, info = heatmap.render(run, "app", "bytes", (900, 780), max_cells, by_node=True)
        body += _img(png, "node matrix: " + info)
        body += _table(["host", "ranks", "bytes inside", "bytes sent out", "bytes received in"],
                       [[h["host"], h["ranks"], h["inside"], h["sent_out"], h["received_in"]]
                        for h in nodes["hosts"]])

    body += "<h2>Totals</h2>\n"
    body += _table(["origin", "messages", "bytes", ""],
                   [[o, v["messages"], v["bytes"], human_bytes(v["bytes"])]
                    for o, v in sorted(s["origins"].items())])
    body += _table(["category", "origin", "messages", "bytes", "", "pairs", "what"],
                   [[c["name"], c["origin"], c["messages"], c["bytes"], human_bytes(c["bytes"]),
                     c["pairs"], c["what"]] for c in s["categories"]], text_columns=(0, 1, 6))

    body += "<h2>Top talkers</h2>\n"
    if s["top_talkers"]:
        body += _table(["from", "to", "bytes", "", "messages"],
                       [[p["from"], p["to"], p["bytes"], human_bytes(p["bytes"]),
                         p["messages"]] for p in s["top_talkers"]], text_columns=())
    else:
        body += "<p>No application traffic.</p>\n"

    load = s["load"]
    body += "<h2>Load</h2>\n"
    body += ("<p>Application bytes sent per rank (one-sided fetches excluded): max %d "
             "(rank %d), mean %.1f, min %d (rank %d); imbalance max/mean %s.</p>\n" % (
                 load["max"], load["max_rank"], load["mean"], load["min"], load["min_rank"],
                 "%.3f" % load["imbalance"] if load["imbalance"] is not None else "n/a"))
    body += _img(charts.per_rank(load["per_rank"], "bytes sent per rank", "bytes"),
                 "bytes sent per rank")

    body += "<h2>Categories</h2>\n"
    for c in run.categories.values():
        if c.bytes.total() == 0 and c.counts.total() == 0:
            continue
        body += "<h3>%s (%s)</h3>\n<p class=\"small\">%s</p>\n" % (
            esc(c.name), esc(c.origin), esc(c.what))
        png, info = heatmap.render(run, c.name, "bytes", (800, 690), max_cells)
        body += _img(png, "heatmap: " + info)

    body += "<h2>Message sizes</h2>\n"
    if not s["histograms"]:
        body += ("<p>No histograms: they come from the monitor's .prof files "
                 "(histograms on).</p>\n")
    for origin, bins in sorted(s["histograms"].items()):
        body += _img(charts.histogram(bins, "point-to-point messages by size (%s)" % origin),
                     "histogram " + origin)
        body += _table(["size", "messages"], [[b["label"], b["messages"]] for b in bins])

    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "img-src data:; style-src 'unsafe-inline'\">\n"
            "<title>pnmpi report: %s</title>\n<style>%s</style></head>\n<body>\n%s"
            "<p class=\"small\">Written by pnmpi-report.</p>\n</body></html>\n"
            % (esc(run.source), _STYLE, body))
