# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The numbers every view shows, computed once from a Run: totals, talkers, nodes, load."""

import numpy as np

from .model import APPLICATION, HISTOGRAM_BINS, bin_label


def sent_matrix(run):
    """Application bytes each rank sent: every application category but data fetched by
    one-sided gets (that flows towards the row's rank)."""
    cats = [c for c in run.select("app") if not c.name.endswith("fetched")]
    out = None
    for c in cats:
        out = c.bytes if out is None else out.plus(c.bytes)
    return out if out is not None else run.matrix("app")


def top_pairs(matrix, counts, k):
    if matrix.val.size == 0 or k <= 0:
        return []
    order = np.lexsort((matrix.dst, matrix.src, -matrix.val))[:k]
    return [{"from": int(matrix.src[i]), "to": int(matrix.dst[i]),
             "bytes": int(matrix.val[i]),
             "messages": counts.get(int(matrix.src[i]), int(matrix.dst[i]))} for i in order]


def summarize(run, top=10):
    s = {"source": run.source, "format": run.format, "world_size": run.world_size,
         "notes": list(run.notes), "categories": [], "origins": {}}
    for c in run.categories.values():
        s["categories"].append({"name": c.name, "origin": c.origin, "what": c.what,
                                "messages": c.counts.total(), "bytes": c.bytes.total(),
                                "pairs": int(max(c.counts.val.size, c.bytes.val.size))})
        o = s["origins"].setdefault(c.origin, {"messages": 0, "bytes": 0})
        o["messages"] += c.counts.total()
        o["bytes"] += c.bytes.total()
    app_bytes = run.matrix("app", "bytes")
    app_counts = run.matrix("app", "counts")
    s["top"] = top
    s["top_talkers"] = top_pairs(app_bytes, app_counts, top)

    sent = sent_matrix(run).row_sums()
    mean = float(sent.mean()) if sent.size else 0.0
    s["load"] = {"max": int(sent.max()), "max_rank": int(sent.argmax()),
                 "min": int(sent.min()), "min_rank": int(sent.argmin()), "mean": mean,
                 "imbalance": (float(sent.max()) / mean) if mean > 0 else None,
                 "per_rank": [int(v) for v in sent]}

    groups = run.host_groups()
    if groups is None:
        s["nodes"] = None
    else:
        g, names = groups
        node_m = app_bytes.grouped(g, len(names))
        inside = node_m.src == node_m.dst
        out_b = node_m.row_sums() - _diag(node_m, len(names))
        in_b = node_m.col_sums() - _diag(node_m, len(names))
        ranks = np.bincount(g, minlength=len(names))
        s["nodes"] = {
            "assumed": run.hosts_assumed,
            "hosts": [{"host": names[i], "ranks": int(ranks[i]),
                       "inside": int(_diag(node_m, len(names))[i]),
                       "sent_out": int(out_b[i]), "received_in": int(in_b[i])}
                      for i in range(len(names))],
            "inside": int(node_m.val[inside].sum()),
            "between": int(node_m.val[~inside].sum()),
        }
    s["histograms"] = {}
    for origin, h in run.histograms.items():
        if int(h.sum()) > 0:
            s["histograms"][origin] = [{"bin": b, "label": bin_label(b), "messages": int(h[b])}
                                       for b in range(HISTOGRAM_BINS) if h[b]]
    return s


def _diag(m, n):
    d = np.zeros(n, dtype=np.int64)
    on = m.src == m.dst
    d[m.src[on]] = m.val[on]
    return d


ORIGIN_LABEL = {APPLICATION: "application", "modules": "modules above the monitor / internal"}
