# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Nodes and slots: `--nodes NxC`, `--hostfile FILE`, the natural placement, and the
bytes a placement sends across nodes."""

import re

import numpy as np

from .errors import ReportError
from .model import MAX_RANKS
from .text import check_host_name

_NODES = re.compile(r"\A([0-9]{1,40})x([0-9]{1,40})\Z")
# Bounds checked before anything is allocated for a placement: more nodes than the largest
# machines have (Fugaku: 158,976), more slots on a node than ranks in a run pnmpi-report
# reads.
MAX_NODES = 1 << 18
MAX_SLOTS = MAX_RANKS
_OMPI_LINE = re.compile(r"\A(\S+)((?:\s+\S+=\S+)*)\Z")
_MPICH_LINE = re.compile(r"\A([^\s:]+):([0-9]{1,40})\Z")


class Nodes:
    """Named nodes with a number of slots each."""

    def __init__(self, names, slots, origin):
        self.names = list(names)
        self.slots = [int(s) for s in slots]
        self.origin = origin  # how they were given, for messages

    @property
    def capacity(self):
        return sum(self.slots)


def add_node_arguments(parser, required=False, purpose="assume this placement when the "
                       "input does not name hosts"):
    g = parser.add_mutually_exclusive_group(required=required)
    g.add_argument("--nodes", metavar="NxC",
                   help="N nodes of C slots each, e.g. 4x8 (%s)" % purpose)
    g.add_argument("--hostfile", metavar="FILE",
                   help="an Open MPI hostfile (`host slots=C`) or MPICH machine file "
                        "(`host:C`) (%s)" % purpose)


def parse_nodes(text):
    """--nodes NxC -> (N, C), checked against MAX_NODES and MAX_SLOTS."""
    m = _NODES.match(text)
    if not m:
        raise ReportError("--nodes must be NxC with positive N and C, such as 4x8, not %r"
                          % text)
    n, c = int(m.group(1)), int(m.group(2))
    if not (1 <= n <= MAX_NODES and 1 <= c <= MAX_SLOTS):
        raise ReportError("--nodes NxC: N must be 1 to %d nodes and C 1 to %d slots, not %r"
                          % (MAX_NODES, MAX_SLOTS, text))
    return n, c


def check_node_arguments(args):
    """The option's value, before the input is read and anything is allocated for it."""
    if getattr(args, "nodes", None):
        parse_nodes(args.nodes)


def nodes_from_args(args, default_names=None):
    if getattr(args, "nodes", None):
        n, c = parse_nodes(args.nodes)
        names = default_names if default_names and len(default_names) == n else \
            ["node%d" % i for i in range(n)]
        return Nodes(names, [c] * n, "--nodes %s" % args.nodes)
    if getattr(args, "hostfile", None):
        return read_hostfile(args.hostfile)
    return None


def read_hostfile(path):
    """Open MPI (`host [slots=N] [max_slots=M]`, a repeated host adds a slot per line when it
    names no slots) and MPICH (`host:N`) forms; `#` starts a comment."""
    try:
        with open(path, encoding="utf-8", newline="\n") as f:
            return _read_hostfile(f, path)
    except OSError as e:
        raise ReportError("cannot read the hostfile: %s" % e.strerror, path)
    except UnicodeDecodeError:
        raise ReportError("the hostfile is not UTF-8 text", path)


def _read_hostfile(f, path):
    names, slots, index = [], [], {}
    for ln, raw in enumerate(f, 1):
        raw = raw.rstrip("\n")
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = _MPICH_LINE.match(line)
        if m:
            host, n = m.group(1), int(m.group(2))
        else:
            m = _OMPI_LINE.match(line)
            if not m:
                raise ReportError("not a hostfile line (`host slots=N` or `host:N`): %r"
                                  % raw, path, ln)
            host, n = m.group(1), 1
            for kv in m.group(2).split():
                k, v = kv.split("=", 1)
                if k == "slots":
                    if not re.fullmatch(r"[0-9]{1,40}", v):
                        raise ReportError("slots must be a whole number, not %r" % v, path, ln)
                    n = int(v)
                elif k not in ("max_slots", "max-slots"):
                    raise ReportError("unknown field %r (slots= and max_slots= are "
                                      "understood)" % k, path, ln)
        if n < 1:
            raise ReportError("a host with no slots", path, ln)
        if n > MAX_SLOTS:
            raise ReportError("%d slots on one host: at most %d" % (n, MAX_SLOTS), path, ln)
        check_host_name(host, path, ln, "is not one mpirun takes")
        if host in index:
            slots[index[host]] = min(slots[index[host]] + n, MAX_SLOTS)
        else:
            if len(names) == MAX_NODES:
                raise ReportError("more than %d hosts" % MAX_NODES, path, ln)
            index[host] = len(names)
            names.append(host)
            slots.append(n)
    if not names:
        raise ReportError("the hostfile names no host", path)
    return Nodes(names, slots, "hostfile %s" % path)


def natural_placement(nodes, nranks):
    """Ranks fill the nodes in order, each to its slots: what mpirun does with this
    hostfile by default (Open MPI's --map-by slot, MPICH's machine file)."""
    if nranks > nodes.capacity:
        raise ReportError("%d ranks do not fit into %d slots (%s)"
                          % (nranks, nodes.capacity, nodes.origin))
    return natural_node_of(nodes.slots, nranks)


def natural_node_of(slots, nranks):
    """The node of each of nranks ranks filling the slots in order (without an array of
    all the slots: a hostfile may offer far more than the run has ranks)."""
    ends = np.cumsum(np.asarray(slots, dtype=np.int64))
    return np.searchsorted(ends, np.arange(nranks, dtype=np.int64), side="right")


def inter_node_bytes(matrix, node_of):
    """Bytes of the matrix whose sender and receiver are on different nodes."""
    node_of = np.asarray(node_of)
    cross = node_of[matrix.src] != node_of[matrix.dst]
    return int(matrix.val[cross].sum())


def apply_assumed_hosts(run, args):
    """With --nodes/--hostfile, the run is given the natural placement on those nodes: for
    inputs without host names, and over recorded ones ("what would this run send between
    nodes on 16 nodes?"), labelled as assumed either way."""
    nodes = nodes_from_args(args)
    if nodes is None:
        return
    node_of = natural_placement(nodes, run.world_size)
    if run.hosts is not None:
        run.notes.append("hosts assumed (%s, ranks filling the nodes in order) in place of "
                         "the %d hosts the run recorded" % (nodes.origin, len(set(run.hosts))))
    run.hosts = [nodes.names[k] for k in node_of]
    run.hosts_assumed = True
