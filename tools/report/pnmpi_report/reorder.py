# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report reorder RUN --nodes NxC | --hostfile FILE [-o FILE]`: a placement of the
ranks on the nodes that sends fewer bytes between nodes.

The placement is libpnmpi_mapping's (the library `module place` and MPI_M_reorder use, so
the same matrix and slots give the same answer everywhere): the symmetrised matrix mapped
with Scotch onto the nodes weighted by their slots, fitted to the slots exactly, improved by
swaps (an exact search for small jobs), never worse than the launch order. The job's launch
slots are the first N slots of the nodes, filled node by node (--map-by slot, the default)
or dealt round-robin (--map-by node)."""

import json
import time

import numpy as np

from . import advice, inputs, mapping, placement
from .errors import ReportError
from .model import progress
from .output import write_atomic
from .text import check_host_name, printable

HELP = ("place ranks on nodes to cut the bytes between nodes (Scotch, through pnmpi's mapping "
        "library); write an Open MPI rankfile, an MPICH machine file and a rank order for "
        "module place")


def add_arguments(parser):
    inputs.add_run_argument(parser)
    placement.add_node_arguments(parser, required=True, purpose="the nodes to place onto")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the Open MPI rankfile here, the MPICH machine file at "
                             "FILE.mpich and the rank order (Cray's MPICH_RANK_ORDER form, "
                             "for module place's `argument order`) at FILE.order (default: "
                             "print the rankfile)")
    parser.add_argument("--map-by", choices=("slot", "node"), default="slot",
                        help="how the job is launched on the nodes: slot (fill each node in "
                             "turn, the default; MPICH's machine file) or node (round-robin, "
                             "Open MPI's --map-by node; Hydra given one slot per host); the "
                             "rank order is for that launch")
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
    slot_host = mapping.launch_slots(nodes.slots, n, args.map_by)
    start = time.time()
    if n >= 1024:
        progress("mapping %d ranks with Scotch %s" % (n, mapping.scotch_version()))
    placed = mapping.place(matrix, slot_host)
    best = placed.host_of_rank(slot_host)
    before = placement.inter_node_bytes(matrix, slot_host)
    after = placement.inter_node_bytes(matrix, best)
    as_run = None
    if r.hosts is not None:
        as_run = placement.inter_node_bytes(matrix, r.host_groups()[0])
    # A rank's slot on its node: the position of its launch slot among that node's slots.
    slot_pos = np.zeros(n, dtype=np.int64)
    used = np.zeros(len(nodes.slots), dtype=np.int64)
    for p, k in enumerate(slot_host):
        slot_pos[p] = used[k]
        used[k] += 1
    slot_of = np.zeros(n, dtype=np.int64)
    slot_of[placed.rank_of_slot] = slot_pos
    rankfile = "".join("rank %d=%s slot=%d\n" % (rank, nodes.names[best[rank]], slot_of[rank])
                       for rank in range(n))
    machinefile = _machinefile(best, nodes.names)
    order = mapping.order_text(placed.rank_of_slot)
    if args.output:
        write_atomic(args.output, rankfile)
        write_atomic(args.output + ".mpich", machinefile)
        write_atomic(args.output + ".order", order)
    blocks, notes = advice.conf_lines(args.run, args.output + ".order" if args.output else None)
    launch = "ranks fill the nodes in order" if args.map_by == "slot" else \
        "ranks dealt round-robin over the nodes"
    result = {"ranks": n, "nodes": nodes.names, "slots": nodes.slots, "category": args.category,
              "map_by": args.map_by, "total_bytes": total, "natural_between": before,
              "as_run_between": as_run, "reordered_between": after, "method": placed.method,
              "seconds": round(time.time() - start, 3),
              "node_of_rank": [int(v) for v in best],
              "slot_of_rank": [int(v) for v in slot_of],
              "rank_of_slot": [int(v) for v in placed.rank_of_slot],
              "order": order.strip(),
              "conf": [lines for _, lines in blocks]}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0

    def pct(v):
        return "%.1f%%" % (100.0 * v / total) if total else "no traffic"
    print("pnmpi-report reorder: %d ranks onto %d nodes (%s), %d slots; %s bytes: %d in all"
          % (n, len(nodes.slots), printable(nodes.origin), nodes.capacity,
             printable(args.category), total))
    print("natural placement (%s): %d bytes between nodes (%s)" % (launch, before, pct(before)))
    if as_run is not None:
        print("placement of the run (its hosts): %d bytes between nodes (%s)"
              % (as_run, pct(as_run)))
    print("reordered (%s): %d bytes between nodes (%s), %d fewer than natural"
          % (placed.method, after, pct(after), before - after))
    if args.output:
        out = printable(args.output)
        print("wrote %s (Open MPI: mpirun -np %d --rankfile %s), %s.mpich (MPICH: mpiexec -n "
              "%d -f %s.mpich) and %s.order (module place, or Cray's MPICH_RANK_ORDER)"
              % (out, n, out, out, n, out, out))
    else:
        print(rankfile, end="")
    if blocks or notes:
        print("apply it to the unchanged program with pnmpi's module place:")
        print(advice.format_conf(blocks, notes))
    return 0


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
