# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report diff A B`: what changed between two runs (or two sessions)."""

import json

import numpy as np

from . import inputs, options, placement
from .model import Sparse, human_bytes
from .text import printable

HELP = "compare two runs: totals per category, the pairs that changed most, node traffic"


def add_arguments(parser):
    parser.add_argument("a", metavar="A", help="the first run (JSON, directory or prefix)")
    parser.add_argument("b", metavar="B", help="the second run")
    parser.add_argument("--top", type=int, default=10, metavar="K",
                        help="pairs listed (default 10)")
    parser.add_argument("--category", default="app", metavar="C",
                        help="the traffic whose pairs are compared (default app)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")


def compare(a, b, selection="app", top=10):
    d = {"a": a.source, "b": b.source, "ranks": [a.world_size, b.world_size],
         "categories": [], "pairs": [], "nodes": None}
    for name in list(a.categories) + [n for n in b.categories if n not in a.categories]:
        ca, cb = a.categories.get(name), b.categories.get(name)
        row = {"name": name}
        for key, c in (("a", ca), ("b", cb)):
            row[key + "_messages"] = c.counts.total() if c else None
            row[key + "_bytes"] = c.bytes.total() if c else None
        d["categories"].append(row)
    if a.world_size == b.world_size:
        ma, mb = a.matrix(selection), b.matrix(selection)
        n = a.world_size
        neg = Sparse.build(n, np.concatenate((ma.src, mb.src)),
                                 np.concatenate((ma.dst, mb.dst)),
                                 np.concatenate((-ma.val, mb.val)))
        order = np.lexsort((neg.dst, neg.src, -np.abs(neg.val)))[:top]
        for i in order:
            s, t = int(neg.src[i]), int(neg.dst[i])
            d["pairs"].append({"from": s, "to": t, "a": ma.get(s, t), "b": mb.get(s, t),
                               "change": int(neg.val[i])})
        d["changed_pairs"] = int(neg.val.size)
    if a.hosts is not None and b.hosts is not None:
        between = []
        for r in (a, b):
            m = r.matrix(selection)
            between.append(placement.inter_node_bytes(m, r.host_groups()[0]))
        d["nodes"] = {"a_between": between[0], "b_between": between[1],
                      "a_hosts": len(set(a.hosts)), "b_hosts": len(set(b.hosts))}
    return d


def run(args):
    options.count(args.top, "--top")
    a = inputs.load_run([args.a])
    b = inputs.load_run([args.b])
    d = compare(a, b, args.category, args.top)
    if args.json:
        print(json.dumps(d, indent=1))
        return 0
    print("A: %s (%d ranks)\nB: %s (%d ranks)" % (printable(a.source), a.world_size,
                                                printable(b.source), b.world_size))
    print("\n%-18s %14s %14s %14s %16s %16s %16s" % ("category", "A messages", "B messages",
                                                     "change", "A bytes", "B bytes", "change"))
    for c in d["categories"]:
        def cell(v):
            return "-" if v is None else str(v)

        def delta(x, y):
            if x is None or y is None:
                return "-"
            return "%+d" % (y - x) + (" (%+.1f%%)" % (100.0 * (y - x) / x) if x else "")
        print("%-18s %14s %14s %14s %16s %16s %16s" % (
            printable(c["name"]), cell(c["a_messages"]), cell(c["b_messages"]),
            delta(c["a_messages"], c["b_messages"]), cell(c["a_bytes"]), cell(c["b_bytes"]),
            delta(c["a_bytes"], c["b_bytes"])))
    if a.world_size != b.world_size:
        print("\nPairs: not compared (%d ranks against %d)" % (a.world_size, b.world_size))
    else:
        print("\nPairs (%s bytes) that changed most: %d pairs changed"
              % (printable(args.category), d["changed_pairs"]))
        if not d["pairs"]:
            print("none listed (--top 0)" if d["changed_pairs"] else
                  "none: the matrices are equal")
        for p in d["pairs"]:
            print("  %d -> %d: %d -> %d bytes (%+d, %s)" % (
                p["from"], p["to"], p["a"], p["b"], p["change"],
                ("+" if p["change"] > 0 else "-") + human_bytes(abs(p["change"]))))
    if d["nodes"]:
        nd = d["nodes"]
        print("\nBytes between nodes (%s): A %d on %d hosts, B %d on %d hosts (%+d)" % (
            printable(args.category), nd["a_between"], nd["a_hosts"], nd["b_between"],
            nd["b_hosts"],
            nd["b_between"] - nd["a_between"]))
    return 0
