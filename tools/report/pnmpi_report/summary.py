# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report summary RUN`: the run in tables, on stdout."""

import json

from . import advice, analysis, inputs, jobview, options, placement
from .model import human_bytes
from .text import printable

HELP = ("totals per category, application vs tool traffic, top talkers, traffic inside and "
        "between nodes, load imbalance, message sizes")


def add_arguments(parser):
    inputs.add_run_argument(parser)
    parser.add_argument("--top", type=int, default=10, metavar="K",
                        help="talkers listed (default 10)")
    parser.add_argument("--json", action="store_true",
                        help="print the numbers as one JSON object instead of tables")
    placement.add_node_arguments(parser)


def run(args):
    options.count(args.top, "--top")
    placement.check_node_arguments(args)
    job = jobview.load_job(args.run)
    js = jobview.summarize(job, max(0, args.top)) if job is not None else None
    if js is not None and not jobview.has_monitor_output(args.run):
        print(json.dumps(js, indent=1, sort_keys=True) if args.json else
              jobview.render_text(js), end="\n" if args.json else "")
        return 0
    r = inputs.load_run(args.run)
    placement.apply_assumed_hosts(r, args)
    s = analysis.summarize(r, options.count(args.top, "--top"))
    s["placement"] = advice.placement_advice(r, args.run)
    if args.json:
        if js is not None:
            s["job"] = js
        print(json.dumps(s, indent=1, sort_keys=True))
    else:
        print(render_text(s) + advice.render_text(s["placement"]), end="")
        if js is not None:
            print("\n" + jobview.render_text(js), end="")
    return 0


ROUNDED = "rounded"  # the header of the column beside an exact byte count


def _table(header, rows):
    rows = [[printable(x) for x in row] for row in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    out = []
    for row in [header] + rows:
        out.append("  ".join(str(x).rjust(w) if i else str(x).ljust(w)
                             for i, (x, w) in enumerate(zip(row, widths))).rstrip())
    return "\n".join(out) + "\n"


def render_text(s):
    t = "%s: %s, %d ranks\n" % (printable(s["source"]), printable(s["format"]),
                                s["world_size"])
    for n in s["notes"]:
        t += "note: %s\n" % printable(n)
    t += "\nPer category\n"
    t += _table(["category", "origin", "messages", "bytes", ROUNDED, "pairs"],
                [[c["name"], c["origin"], c["messages"], c["bytes"], human_bytes(c["bytes"]),
                  c["pairs"]] for c in s["categories"]])
    t += "\nBy origin\n"
    t += _table(["origin", "messages", "bytes", ROUNDED],
                [[o, v["messages"], v["bytes"], human_bytes(v["bytes"])]
                 for o, v in sorted(s["origins"].items())])
    t += "\nTop talkers (application bytes, all categories)\n"
    if s["top"] == 0:
        t += "none listed (--top 0)\n"
    elif s["top_talkers"]:
        t += _table(["from", "to", "bytes", ROUNDED, "messages"],
                    [[p["from"], p["to"], p["bytes"], human_bytes(p["bytes"]), p["messages"]]
                     for p in s["top_talkers"]])
    else:
        t += "none: no application traffic\n"
    nodes = s["nodes"]
    t += "\nNodes\n"
    if nodes is None:
        t += ("hosts unknown (this input does not name them; the monitor's JSON version 2 "
              "does): --nodes NxC or --hostfile FILE assume a placement\n")
    else:
        total = nodes["inside"] + nodes["between"]
        t += "%d hosts%s; application bytes inside nodes %d, between nodes %d (%s)\n" % (
            len(nodes["hosts"]), " (assumed: natural placement)" if nodes["assumed"] else "",
            nodes["inside"], nodes["between"],
            "%.1f%% between" % (100.0 * nodes["between"] / total) if total else "no traffic")
        t += _table(["host", "ranks", "inside", "sent out", "received in"],
                    [[h["host"], h["ranks"], h["inside"], h["sent_out"], h["received_in"]]
                     for h in nodes["hosts"]])
    load = s["load"]
    t += "\nLoad (application bytes sent per rank, one-sided fetches excluded)\n"
    t += "max %d (rank %d), mean %.1f, min %d (rank %d), imbalance max/mean %s\n" % (
        load["max"], load["max_rank"], load["mean"], load["min"], load["min_rank"],
        "%.3f" % load["imbalance"] if load["imbalance"] is not None else "n/a (no traffic)")
    t += "\nMessage sizes (point-to-point)\n"
    if not s["histograms"]:
        t += "no histograms (they come from the monitor's .prof files with histograms on)\n"
    for origin, bins in sorted(s["histograms"].items()):
        t += "%s:\n" % printable(origin)
        t += _table(["size", "messages"], [[b["label"], b["messages"]] for b in bins])
    return t
