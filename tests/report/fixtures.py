# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Writers of every input format pnmpi-report reads, from matrices the tests choose, in
the layouts the monitor, Open MPI and ompi_monitoring_prof write."""

import json
import os

CATS = [("p2p", "application"), ("coll", "application"), ("osc_sent", "application"),
        ("osc_fetched", "application"), ("p2p_tool", "modules"), ("coll_tool", "modules"),
        ("osc_sent_tool", "modules"), ("osc_fetched_tool", "modules")]
ORIENTATION = ("row = sender, column = receiver, both MPI_COMM_WORLD ranks: matrix[i][j] "
               "is what rank i sent to rank j")


def zeros(n):
    return [[0] * n for _ in range(n)]


def write_json_v1(path, n, data):
    """data: {category: (counts, bytes)} dense lists; missing categories are zero. Laid out
    as the monitor writes it (one row per line)."""
    lines = ['{', '  "format": "pnmpi-monitor-matrices",', '  "version": 1,',
             '  "world_size": %d,' % n, '  "orientation": %s,' % json.dumps(ORIENTATION),
             '  "categories": {']
    for ci, (name, origin) in enumerate(CATS):
        counts, bytes_ = data.get(name, (zeros(n), zeros(n)))
        lines.append('    "%s": {' % name)
        lines.append('      "origin": "%s",' % origin)
        lines.append('      "what": "test",')
        for mi, (metric, m) in enumerate((("counts", counts), ("bytes", bytes_))):
            lines.append('      "%s": [' % metric)
            for r in range(n):
                lines.append('        [' + ",".join(str(v) for v in m[r]) +
                             (']' if r + 1 == n else '],'))
            lines.append('      ]' + (',' if mi == 0 else ''))
        lines.append('    }' + (',' if ci + 1 < len(CATS) else ''))
    lines += ['  }', '}']
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_json_v2(path, n, data, hosts, dense=True):
    doc = {"format": "pnmpi-monitor-matrices", "version": 2, "world_size": n,
           "orientation": ORIENTATION, "hosts": hosts, "categories": {}}
    for name, origin in CATS:
        counts, bytes_ = data.get(name, (zeros(n), zeros(n)))
        entries = [[i, j, counts[i][j], bytes_[i][j]] for i in range(n) for j in range(n)
                   if counts[i][j] or bytes_[i][j]]
        c = {"origin": origin, "what": "test", "entries": entries}
        if dense:
            c["counts"], c["bytes"] = counts, bytes_
        doc["categories"][name] = c
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def write_prof(prefix, n, lines_by_rank, world=True):
    """lines_by_rank[r]: list of (type, peer, bytes, count, histogram or None)."""
    paths = []
    for r in range(n):
        text = "# POINT TO POINT\n"
        for t, peer, b, c, h in lines_by_rank.get(r, []):
            text += "%s\t%d\t%d\t%d bytes\t%d msgs sent" % (t, r, peer, b, c)
            if h is not None:
                text += "\t" + ",".join(str(v) for v in h)
            text += "\n"
        if world:
            text += "# COLLECTIVES\nD\tMPI_COMM_WORLD\tprocs: %s\n" % ",".join(
                str(i) for i in range(n))
            text += "O2A\t%d\t0 bytes\t0 msgs sent\nA2O\t%d\t0 bytes\t0 msgs sent\n" \
                    "A2A\t%d\t0 bytes\t0 msgs sent\n" % (r, r, r)
        path = "%s.%d.prof" % (prefix, r)
        with open(path, "w") as f:
            f.write(text)
        paths.append(path)
    return paths


def histogram(sizes):
    """The 66-bin histogram of the given message sizes."""
    h = [0] * 66
    for s in sizes:
        h[0 if s == 0 else s.bit_length()] += 1
    return h


def write_mat(directory, name, m):
    path = os.path.join(directory, "monitoring_%s.mat" % name)
    with open(path, "w") as f:
        for row in m:
            f.write("".join("%d " % v for v in row) + "\n")
    return path


def write_text(path, text):
    with open(path, "w") as f:
        f.write(text)


def read_text(path):
    with open(path) as f:
        return f.read()


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)


def read_json(path):
    with open(path) as f:
        return json.load(f)
