# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report html RUN -o report.html`: one self-contained page.

Pictures are PNG data: URIs; there is no script and nothing is fetched (a
Content-Security-Policy says so to the browser), so the file can be mailed, archived or
opened on a machine without network."""

import base64
import html

from . import advice, analysis, charts, heatmap, inputs, jobview, options, placement
from .errors import ReportError
from .model import human_bytes
from .output import write_atomic
from .text import printable

HELP = "write one self-contained HTML page: heatmaps, node matrix, tables, histograms"

_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; max-width: 1100px; }
h1 { font-size: 1.5em; overflow-wrap: anywhere; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; }
p { overflow-wrap: anywhere; }
div.table { max-width: 100%; overflow-x: auto; margin: 0.5em 0 1em 0; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 2px 8px; }
th { background: #eee; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.name { white-space: nowrap; }
img { max-width: 100%; height: auto; } .note { color: #8a4b00; }
.small { font-size: 0.9em; color: #555; }
"""
# Rows of the host table: past this many hosts, those sending most between nodes.
MAX_HOST_ROWS = 32
# The column beside an exact byte count: the same number, rounded to KiB, MiB, ...
ROUNDED = "bytes, rounded"


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
    options.count(args.top, "--top")
    heatmap.check_max_cells(args.max_cells)
    placement.check_node_arguments(args)
    job = jobview.load_job(args.run)
    extra = jobview.render_html(jobview.summarize(job, args.top)) if job else ""
    if job is not None and not jobview.has_monitor_output(args.run):
        page = _page(job.path, "<h1>Job report: %s</h1>\n%s" % (html.escape(job.path), extra))
    else:
        r = inputs.load_run(args.run)
        placement.apply_assumed_hosts(r, args)
        page = render(r, args.top, args.max_cells, extra)
        page = advice.insert_html(page, advice.render_html(advice.placement_advice(r, args.run)))
    write_atomic(args.output, page)
    print("pnmpi-report: wrote %s (%d KiB)" % (printable(args.output), len(page.encode()) // 1024))
    return 0


def _img(png, alt):
    return '<img src="data:image/png;base64,%s" alt="%s">\n' % (
        base64.b64encode(png).decode("ascii"), html.escape(alt))


def _table(header, rows, text_columns=(0,)):
    """Columns other than text_columns hold numbers: right-aligned, never wrapped; text
    columns keep names whole. Every column has a header. A table wider than the page
    scrolls inside its box, never the page."""
    assert all(str(h) for h in header), "a column without a header"
    t = '<div class="table"><table><tr>%s</tr>\n' % "".join(
        "<th>%s</th>" % html.escape(str(h)) for h in header)
    for row in rows:
        t += "<tr>%s</tr>\n" % "".join(
            '<td%s>%s</td>' % (' class="name"' if i in text_columns else ' class="n"',
                               html.escape(str(v)))
            for i, v in enumerate(row))
    return t + "</table></div>\n"


def _host_rows(hosts):
    """The host table's rows and a line saying which they are, at most MAX_HOST_ROWS: a
    table of 1024 hosts is read by nobody; those sending most between nodes are the ones
    to look at."""
    rows = [[h["host"], h["ranks"], h["inside"], h["sent_out"], h["received_in"]]
            for h in hosts]
    if len(rows) <= MAX_HOST_ROWS:
        return rows, ""
    rows.sort(key=lambda r: (-r[3], r[0]))
    return rows[:MAX_HOST_ROWS], (
        '<p class="small">The %d of %d hosts that send most bytes out of their node; '
        "<code>pnmpi-report summary RUN --json</code> lists every host.</p>\n"
        % (MAX_HOST_ROWS, len(hosts)))


def _collectives_hide_p2p(run):
    """Whether the collectives reach so many pairs that the application's heatmap shows
    their square and hides the point-to-point pattern under it."""
    p2p, coll = run.categories.get("p2p"), run.categories.get("coll")
    if p2p is None or coll is None or p2p.bytes.val.size == 0:
        return False
    n = run.world_size
    return coll.bytes.val.size >= max(2 * p2p.bytes.val.size, n * n // 2)


def render(run, top=20, max_cells=heatmap.DEFAULT_MAX_CELLS, extra=""):
    """The page; `extra`: more sections (HTML) at its end (the job's, jobview.py)."""
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
    if _collectives_hide_p2p(run):
        body += ('<p>Point-to-point only: the collectives reach almost every pair of ranks, '
                 'so the heatmaps of all application traffic below are their square.</p>\n')
        png, info = heatmap.render(run, "p2p", "bytes", (1000, 860), max_cells)
        body += _img(png, "heatmap: " + info)
        body += "<p>All application traffic:</p>\n"
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
            body += ('<p class="note">Hosts assumed (--nodes or --hostfile, ranks filling the '
                     'nodes in order), not the ones recorded.</p>\n')
        png, info = heatmap.render(run, "app", "bytes", (900, 780), max_cells, by_node=True)
        body += _img(png, "node matrix: " + info)
        rows, which = _host_rows(nodes["hosts"])
        body += which
        body += _table(["host", "ranks", "bytes inside", "bytes sent out", "bytes received in"],
                       rows)

    body += "<h2>Totals</h2>\n"
    body += _table(["origin", "messages", "bytes", ROUNDED],
                   [[o, v["messages"], v["bytes"], human_bytes(v["bytes"])]
                    for o, v in sorted(s["origins"].items())])
    # What each category is: under its heading in Categories, below (prose in a column
    # would push the table past a narrow window).
    body += _table(["category", "origin", "messages", "bytes", ROUNDED, "pairs"],
                   [[c["name"], c["origin"], c["messages"], c["bytes"], human_bytes(c["bytes"]),
                     c["pairs"]] for c in s["categories"]], text_columns=(0, 1))

    body += "<h2>Top talkers</h2>\n"
    if s["top"] == 0:
        body += "<p>None listed (--top 0).</p>\n"
    elif s["top_talkers"]:
        body += _table(["from", "to", "bytes", ROUNDED, "messages"],
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

    return _page(run.source, body + extra)


def _page(title, body):
    esc = html.escape
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "img-src data:; style-src 'unsafe-inline'\">\n"
            "<title>pnmpi report: %s</title>\n<style>%s</style></head>\n<body>\n%s"
            "<p class=\"small\">Written by pnmpi-report.</p>\n</body></html>\n"
            % (esc(title), _STYLE, body))
