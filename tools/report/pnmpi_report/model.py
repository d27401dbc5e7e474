# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""What every reader produces: a run's sparse matrices per category, and its hosts.

Matrices stay sparse (coordinate lists in numpy arrays) from reading to drawing: a run of
4096 ranks has 16.7 million cells per matrix, almost all of them zero in real codes, and
several categories of them. Values are int64: exact up to 9.2e18 bytes per pair."""

import sys

import numpy as np

# The monitor's categories in its own order; readers of other formats add their own names.
MONITOR_CATEGORIES = ["p2p", "coll", "osc_sent", "osc_fetched",
                      "p2p_tool", "coll_tool", "osc_sent_tool", "osc_fetched_tool"]
APPLICATION = "application"
# Per-rank arrays are dense (bytes sent per rank, host of each rank): a bound keeps a
# corrupt world size from asking for gigabytes.
MAX_RANKS = 1 << 22
MODULES = "modules"

# Totals are int64 sums: every sum pnmpi-report makes (a category, all of them, a row, a
# node, both directions of a pair when reorder symmetrises) stays below this bound when the
# grand total does, and the values are not negative.
TOTAL_LIMIT = 1 << 62
OVERFLOW_HINT = ("more than 2^62: pnmpi-report counts exactly below that only (files of "
                 "different runs added, or not the monitor's numbers?)")


class TotalTooLarge(ArithmeticError):
    """Cells that add up to TOTAL_LIMIT or more: int64 sums would wrap without a word."""

    def __init__(self, total):
        super().__init__("numbers that add up to %.4g, %s" % (total, OVERFLOW_HINT))


# Histogram bins, as the monitor and Open MPI count them: bin 0 holds empty messages,
# bin k + 1 the sizes with floor(log2(size)) == k.
HISTOGRAM_BINS = 66


def bin_label(b):
    """A short label of histogram bin b."""
    if b == 0:
        return "0 B"
    lo = 1 << (b - 1)
    return human_bytes(lo) + "+"


def human_bytes(v):
    """1536 -> '1.5 KiB'; exact below 1 KiB."""
    v = int(v)
    if v < 1024:
        return "%d B" % v
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        v /= 1024.0
        if v < 1024 or unit == "EiB":
            return "%.1f %s" % (v, unit)
    return "%d B" % v


class Sparse:
    """A square matrix as coordinate lists: value[k] at (src[k], dst[k]), row = sender.

    Pairs are unique and sorted by (src, dst); zero cells are not stored."""

    def __init__(self, n, src, dst, val):
        self.n = int(n)
        self.src = np.asarray(src, dtype=np.int64)
        self.dst = np.asarray(dst, dtype=np.int64)
        self.val = np.asarray(val, dtype=np.int64)

    @staticmethod
    def build(n, src, dst, val):
        """Sums duplicate pairs, drops zeros, sorts: the one place cells are combined."""
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        val = np.asarray(val, dtype=np.int64)
        if val.size and float(np.abs(val).sum(dtype=np.float64)) >= TOTAL_LIMIT:
            raise TotalTooLarge(float(np.abs(val).sum(dtype=np.float64)))
        if src.size == 0:
            return Sparse(n, src, dst, val)
        key = src * n + dst
        order = np.argsort(key, kind="stable")
        key, val = key[order], val[order]
        starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
        key, val = key[starts], np.add.reduceat(val, starts)
        keep = val != 0
        key, val = key[keep], val[keep]
        return Sparse(n, key // n, key % n, val)

    @staticmethod
    def empty(n):
        return Sparse(n, [], [], [])

    def total(self):
        return int(self.val.sum()) if self.val.size else 0

    def row_sums(self):
        return _int_bincount(self.src, self.val, self.n)

    def col_sums(self):
        return _int_bincount(self.dst, self.val, self.n)

    def plus(self, other):
        return Sparse.build(self.n, np.concatenate((self.src, other.src)),
                            np.concatenate((self.dst, other.dst)),
                            np.concatenate((self.val, other.val)))

    def symmetrised(self):
        """w(i, j) = m(i, j) + m(j, i) for i != j, both triangles stored."""
        off = self.src != self.dst
        return Sparse.build(self.n, np.concatenate((self.src[off], self.dst[off])),
                            np.concatenate((self.dst[off], self.src[off])),
                            np.concatenate((self.val[off], self.val[off])))

    def grouped(self, groups, ngroups):
        """The matrix of groups: cell (a, b) sums the cells of ranks in group a to group b."""
        groups = np.asarray(groups, dtype=np.int64)
        return Sparse.build(ngroups, groups[self.src], groups[self.dst], self.val)

    def dense(self):
        d = np.zeros((self.n, self.n), dtype=np.int64)
        d[self.src, self.dst] = self.val
        return d

    def get(self, i, j):
        key = self.src * self.n + self.dst
        k = np.searchsorted(key, i * self.n + j)
        return int(self.val[k]) if k < key.size and key[k] == i * self.n + j else 0


def _int_bincount(index, val, n):
    """Exact integer sums of val per index (np.bincount would go through float64)."""
    out = np.zeros(n, dtype=np.int64)
    np.add.at(out, index, val)
    return out


class Category:
    """One category of traffic: message counts and bytes per (sender, receiver)."""

    def __init__(self, name, origin, what, counts, bytes_):
        self.name = name
        self.origin = origin
        self.what = what
        self.counts = counts
        self.bytes = bytes_

    def metric(self, name):
        return self.bytes if name == "bytes" else self.counts


class Run:
    """One monitored run (or session) as read from any of the supported formats."""

    def __init__(self, source, fmt, world_size):
        self.source = source          # what the user named
        self.format = fmt             # a short description of the format read
        self.world_size = int(world_size)
        self.hosts = None             # hosts[r]: the host of world rank r, when known
        self.hosts_assumed = False    # True when --nodes/--hostfile gave them, not the data
        self.categories = {}          # name -> Category, in reading order
        self.histograms = {}          # origin -> np.int64[66], p2p messages by size
        self.notes = []               # what the reader wants the reader of the report to know

    def add(self, category):
        self.categories[category.name] = category

    def select(self, selection):
        """The categories a selection names: 'app' (every application category, the
        default), 'tool' (those of modules above the monitor), 'everything', or a name."""
        cats = list(self.categories.values())
        if selection == "app":
            return [c for c in cats if c.origin == APPLICATION]
        if selection == "tool":
            return [c for c in cats if c.origin != APPLICATION]
        if selection == "everything":
            return cats
        if selection in self.categories:
            return [self.categories[selection]]
        from .errors import ReportError
        raise ReportError("%s has no category '%s' (it has: %s; or app, tool, everything)"
                          % (self.source, selection, ", ".join(self.categories) or "none"))

    def matrix(self, selection="app", metric="bytes"):
        out = Sparse.empty(self.world_size)
        for c in self.select(selection):
            out = out.plus(c.metric(metric))
        return out

    def host_groups(self):
        """(group of each rank, host names in order of first appearance) or None."""
        if self.hosts is None:
            return None
        names, index, groups = [], {}, np.empty(self.world_size, dtype=np.int64)
        for r, h in enumerate(self.hosts):
            if h not in index:
                index[h] = len(names)
                names.append(h)
            groups[r] = index[h]
        return groups, names


def check_totals(run):
    """Refuses a run whose numbers would overflow a sum: int64 arithmetic would wrap to
    negative or small totals without a word."""
    from .errors import ReportError
    sums = {"messages": 0.0, "bytes": 0.0}
    for c in run.categories.values():
        for what, m in (("messages", c.counts), ("bytes", c.bytes)):
            if m.val.size and int(m.val.min()) < 0:
                raise ReportError("category '%s' has a negative number of %s (%d)"
                                  % (c.name, what, int(m.val.min())), run.source)
            sums[what] += float(m.val.sum(dtype=np.float64))
    for origin, h in run.histograms.items():
        sums["messages in the histograms of %s" % origin] = float(h.sum(dtype=np.float64))
    for what, total in sums.items():
        if total >= TOTAL_LIMIT:
            raise ReportError("the %s of all categories add up to %.4g, %s"
                              % (what, total, OVERFLOW_HINT), run.source)


def progress(message):
    """Progress on stderr, for inputs large enough to take seconds."""
    sys.stderr.write("pnmpi-report: %s\n" % message)
    sys.stderr.flush()
