# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report reorder RUN --nodes NxC | --hostfile FILE [-o RANKFILE]`: a placement of
the ranks on the nodes that sends fewer bytes between nodes.

The matrix (application bytes by default) is symmetrised, w(i, j) = b(i, j) + b(j, i),
since a pair costs the network the same whichever way its bytes go, and mapped with
Scotch onto a complete graph of the nodes weighted by their slots. Scotch balances loads
only within a tolerance, so its answer is then made to fit the slots exactly (the cheapest
moves), and improved by moves and swaps between nodes until none helps; the same local
search also runs from the natural placement, and the better placement is kept, so the
result never crosses more bytes than the natural one."""

import json
import time

import numpy as np

from . import inputs, placement
from .errors import ReportError
from .model import progress
from .output import write_atomic
from .text import check_host_name, printable

HELP = ("place ranks on nodes to cut the bytes between nodes (Scotch); write an Open MPI "
        "rankfile and an MPICH machine file")
_REFINE_CELLS = 1 << 22  # ranks x nodes of the connection table the local search keeps


def add_arguments(parser):
    inputs.add_run_argument(parser)
    placement.add_node_arguments(parser, required=True, purpose="the nodes to place onto")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the Open MPI rankfile here and the MPICH machine file at "
                             "FILE.mpich (default: print the rankfile)")
    parser.add_argument("--category", default="app", metavar="C",
                        help="the traffic to keep inside nodes: app (every application "
                             "category, the default), everything, or a category")
    parser.add_argument("--json", action="store_true",
                        help="print the numbers as JSON (with the placement)")


def run(args):
    placement.check_node_arguments(args)
    r = inputs.load_run(args.run)
    host_names = r.host_groups()[1] if r.hosts is not None else None
    nodes = placement.nodes_from_args(args, host_names)
    if args.nodes and host_names is not None and nodes.names == list(host_names):
        # The run's recorded names may name the nodes, and go into the rankfile and the
        # machine file: each must be one host name to mpirun, not a line or field of its own.
        for name in nodes.names:
            check_host_name(name, r.source)
    n = r.world_size
    if n > nodes.capacity:
        raise ReportError("%d ranks do not fit into %d slots (%s)"
                          % (n, nodes.capacity, nodes.origin))
    matrix = r.matrix(args.category, "bytes")
    total = matrix.total()
    natural = placement.natural_placement(nodes, n)
    start = time.time()
    # No node takes more than all the ranks: Scotch's loads stay within its integers.
    best, how = optimise(matrix, [min(s, n) for s in nodes.slots])
    after = placement.inter_node_bytes(matrix, best)
    before = placement.inter_node_bytes(matrix, natural)
    as_run = None
    if r.hosts is not None:
        g = r.host_groups()[0]
        as_run = placement.inter_node_bytes(matrix, g)
    slot_of = _slots(best, len(nodes.slots))
    rankfile = "".join("rank %d=%s slot=%d\n" % (rank, nodes.names[best[rank]], slot_of[rank])
                       for rank in range(n))
    machinefile = _machinefile(best, nodes.names)
    if args.output:
        write_atomic(args.output, rankfile)
        write_atomic(args.output + ".mpich", machinefile)
    result = {"ranks": n, "nodes": nodes.names, "slots": nodes.slots, "category": args.category,
              "total_bytes": total, "natural_between": before, "as_run_between": as_run,
              "reordered_between": after, "method": how, "seconds": round(time.time() - start, 3),
              "node_of_rank": [int(v) for v in best],
              "slot_of_rank": [int(v) for v in slot_of]}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0

    def pct(v):
        return "%.1f%%" % (100.0 * v / total) if total else "no traffic"
    print("pnmpi-report reorder: %d ranks onto %d nodes (%s), %d slots; %s bytes: %d in all"
          % (n, len(nodes.slots), printable(nodes.origin), nodes.capacity,
             printable(args.category), total))
    print("natural placement (ranks fill the nodes in order): %d bytes between nodes (%s)"
          % (before, pct(before)))
    if as_run is not None:
        print("placement of the run (its hosts): %d bytes between nodes (%s)"
              % (as_run, pct(as_run)))
    print("reordered (%s): %d bytes between nodes (%s), %d fewer than natural"
          % (how, after, pct(after), before - after))
    if args.output:
        out = printable(args.output)
        print("wrote %s (Open MPI: mpirun -np %d --rankfile %s) and %s.mpich (MPICH: "
              "mpiexec -n %d -f %s.mpich)" % (out, n, out, out, n, out))
    else:
        print(rankfile, end="")
    return 0


def _slots(node_of, nnodes):
    slot, used = np.zeros(node_of.size, dtype=np.int64), np.zeros(nnodes, dtype=np.int64)
    for rank, k in enumerate(node_of):
        slot[rank] = used[k]
        used[k] += 1
    return slot


def _machinefile(node_of, names):
    """Hydra gives each line's ranks in turn: runs of consecutive ranks on one host."""
    out, k = [], 0
    while k < node_of.size:
        j = k
        while j < node_of.size and node_of[j] == node_of[k]:
            j += 1
        out.append("%s:%d\n" % (names[node_of[k]], j - k))
        k = j
    return "".join(out)


class Graph:
    """The symmetrised matrix in CSR form, with exact int64 weights."""

    def __init__(self, matrix):
        sym = matrix.symmetrised()
        self.n = matrix.n
        self.xadj = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(sym.src, minlength=self.n), out=self.xadj[1:])
        self.adj = sym.dst
        self.w = sym.val


def cut(graph, node_of):
    src = np.repeat(np.arange(graph.n), np.diff(graph.xadj))
    return int(graph.w[node_of[src] != node_of[graph.adj]].sum()) // 2


def optimise(matrix, slots):
    from .scotch import Scotch
    g = Graph(matrix)
    nnodes = len(slots)
    natural = placement.natural_node_of(slots, g.n)
    if g.adj.size == 0 or nnodes == 1:
        return natural, "no traffic between ranks: natural placement" if nnodes > 1 else \
            "one node"
    sc = Scotch()
    # Scotch sums edge loads in SCOTCH_Num: scale them so that all of them fit.
    scale = min(1.0, (sc.max >> 2) / float(g.w.sum()))
    weights = np.maximum(1, np.floor(g.w * scale)).astype(np.int64)
    if g.n >= 1024:
        progress("mapping %d ranks with Scotch %s" % (g.n, sc.version()))
    parts = sc.map(g.xadj, g.adj, weights, slots)
    if parts.min() < 0 or parts.max() >= nnodes:
        raise ReportError("libscotch returned a node outside 0..%d" % (nnodes - 1))
    mapped = _fit(g, parts, slots)
    how = "Scotch %s graph mapping" % sc.version()
    refine = g.n * nnodes <= _REFINE_CELLS
    if refine:
        mapped = _refine(g, mapped, slots)
        from_natural = _refine(g, natural.copy(), slots)
        if cut(g, from_natural) < cut(g, mapped):
            return from_natural, "local search from the natural placement (better than " \
                                 "Scotch %s's here)" % sc.version()
        how += ", then local moves and swaps"
    if cut(g, natural) < cut(g, mapped):
        return natural, "natural placement (Scotch %s found no better)" % sc.version()
    return mapped, how


def _conn(g, v, node_of, nnodes):
    a, b = g.xadj[v], g.xadj[v + 1]
    return np.bincount(node_of[g.adj[a:b]], weights=g.w[a:b].astype(np.float64),
                       minlength=nnodes)


def _fit(g, node_of, slots):
    """Moves the cheapest ranks out of over-full nodes until every node holds at most its
    slots."""
    node_of = node_of.copy()
    nnodes = len(slots)
    free = np.asarray(slots, dtype=np.int64) - np.bincount(node_of, minlength=nnodes)
    while free.min() < 0:
        over = int(np.argmin(free))
        open_nodes = np.flatnonzero(free > 0)
        best = None
        for v in np.flatnonzero(node_of == over):
            c = _conn(g, v, node_of, nnodes)
            t = open_nodes[int(np.argmax(c[open_nodes]))]
            loss = c[over] - c[t]
            if best is None or loss < best[0]:
                best = (loss, v, t)
        _, v, t = best
        node_of[v] = t
        free[over] += 1
        free[t] -= 1
    return node_of


def _refine(g, node_of, slots, max_passes=50):
    """Moves to nodes with a free slot and swaps between nodes, each only when it lowers
    the cut, until a pass changes nothing."""
    nnodes = len(slots)
    n = g.n
    conn = np.zeros((n, nnodes), dtype=np.float64)
    src = np.repeat(np.arange(n), np.diff(g.xadj))
    np.add.at(conn, (src, node_of[g.adj]), g.w.astype(np.float64))
    free = np.asarray(slots, dtype=np.int64) - np.bincount(node_of, minlength=nnodes)
    members = [set(np.flatnonzero(node_of == k).tolist()) for k in range(nnodes)]

    def move(v, t):
        cur = node_of[v]
        a, b = g.xadj[v], g.xadj[v + 1]
        nb, w = g.adj[a:b], g.w[a:b].astype(np.float64)
        np.subtract.at(conn, (nb, np.full(nb.size, cur)), w)
        np.add.at(conn, (nb, np.full(nb.size, t)), w)
        members[cur].discard(v)
        members[t].add(v)
        free[cur] += 1
        free[t] -= 1
        node_of[v] = t

    for npass in range(max_passes):
        if n >= 1024:
            progress("placing %d ranks: local search, pass %d" % (n, npass + 1))
        improved = False
        for v in range(n):
            cur = node_of[v]
            gains = conn[v] - conn[v, cur]
            gains[cur] = -np.inf
            t = int(np.argmax(np.where(free > 0, gains, -np.inf)))
            if free[t] > 0 and gains[t] > 0:
                move(v, t)
                improved = True
                continue
            a, b = g.xadj[v], g.xadj[v + 1]
            wv = dict(zip(g.adj[a:b].tolist(), g.w[a:b].tolist()))
            best = (0.0, None)
            for t in np.argsort(-gains)[:4]:
                t = int(t)
                if t == cur or not members[t]:
                    continue
                us = np.fromiter(members[t], dtype=np.int64)
                swap = gains[t] + conn[us, cur] - conn[us, t] - \
                    2.0 * np.array([wv.get(int(u), 0) for u in us], dtype=np.float64)
                k = int(np.argmax(swap))
                if swap[k] > best[0]:
                    best = (swap[k], (int(us[k]), t))
            if best[1] is not None:
                u, t = best[1]
                move(v, t)
                move(u, cur)
                improved = True
        if not improved:
            break
    return node_of
