# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report heatmap RUN -o FILE.png|.svg`: the matrix as a picture.

Row = sender, column = receiver, rank 0 at the top left; a logarithmic colour scale
(viridis: dark purple = least, yellow = most), white = nothing sent. Past --max-cells
ranks a side, cells are aggregated: to nodes when hosts are known and few enough, else to
equal blocks of consecutive ranks, so 4096 ranks stay readable."""

import io
import math

import numpy as np

from . import inputs, placement
from .errors import ReportError
from .output import write_atomic
from .plotting import matplotlib_agg
from .text import printable

HELP = "draw a category's matrix (log colour scale, node boundaries) as PNG or SVG"

# Where the matrix and the colour bar are drawn, as fractions of the picture (left, bottom,
# width, height): fixed, so that scripts (and the tests) can find cell (i, j) in the pixels.
AXES_RECT = (0.12, 0.10, 0.66, 0.80)
COLORBAR_RECT = (0.82, 0.10, 0.03, 0.80)
COLORMAP = "viridis"
DEFAULT_SIZE = (1000, 860)
DEFAULT_MAX_CELLS = 256  # at the default size, 2.6 pixels a cell: none vanishes


def add_arguments(parser):
    inputs.add_run_argument(parser)
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the picture: FILE.png or FILE.svg")
    add_matrix_arguments(parser)
    parser.add_argument("--size", default="%dx%d" % DEFAULT_SIZE, metavar="WxH",
                        help="picture size in pixels (default %dx%d)" % DEFAULT_SIZE)
    placement.add_node_arguments(parser)


def add_matrix_arguments(parser):
    parser.add_argument("--category", default="app", metavar="C",
                        help="a category (p2p, coll, osc_sent, ...), or app (every "
                             "application category, the default), tool, everything")
    g = parser.add_mutually_exclusive_group()
    g.add_argument("--bytes", dest="metric", action="store_const", const="bytes",
                   help="colour by bytes (the default)")
    g.add_argument("--counts", dest="metric", action="store_const", const="counts",
                   help="colour by message counts")
    parser.set_defaults(metric="bytes")
    parser.add_argument("--max-cells", type=int, default=DEFAULT_MAX_CELLS, metavar="K",
                        help="aggregate past K ranks a side (default %d)" % DEFAULT_MAX_CELLS)
    parser.add_argument("--by-node", action="store_true",
                        help="one cell per pair of nodes (needs hosts)")


def parse_size(text):
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ReportError("--size must be WxH in pixels, such as 1000x860, not %r" % text)
    if not (100 <= w <= 10000 and 100 <= h <= 10000):
        raise ReportError("--size: each side must be 100 to 10000 pixels, not %r" % text)
    return w, h


def run(args):
    out = args.output
    fmt = out.rsplit(".", 1)[-1].lower() if "." in out else ""
    if fmt not in ("png", "svg"):
        raise ReportError("the picture's name must end in .png or .svg", out)
    size = parse_size(args.size)
    check_max_cells(args.max_cells)
    placement.check_node_arguments(args)
    r = inputs.load_run(args.run)
    placement.apply_assumed_hosts(r, args)
    data, info = render(r, args.category, args.metric, size, args.max_cells, args.by_node, fmt)
    write_atomic(out, data)
    print("pnmpi-report: wrote %s (%s)" % (printable(out), printable(info)))
    return 0


def check_max_cells(max_cells):
    if not 2 <= max_cells <= 4096:
        raise ReportError("--max-cells must be 2 to 4096, not %d" % max_cells)


def aggregate(run, matrix, max_cells, by_node):
    """(matrix to draw, axis description, labels or None, boundaries in cell units)."""
    n = run.world_size
    groups = run.host_groups()
    if by_node and groups is None:
        raise ReportError("--by-node needs the hosts of the ranks: %s does not name them "
                          "(give --nodes or --hostfile)" % run.source)
    check_max_cells(max_cells)
    if groups is not None and (by_node or (n > max_cells and len(groups[1]) <= max_cells)):
        g, names = groups
        return matrix.grouped(g, len(names)), "node", names, []
    if n <= max_cells:
        bounds = []
        if groups is not None:
            g = groups[0]
            bounds = [int(i) for i in np.flatnonzero(g[1:] != g[:-1]) + 1]
        return matrix, "rank", None, bounds
    b = int(math.ceil(n / float(max_cells)))
    ng = int(math.ceil(n / float(b)))
    return (matrix.grouped(np.arange(n) // b, ng), "block of %d ranks" % b,
            None, [])


def si_number(v, digits=3):
    """1, 10, 100, 1k, ... 1E: the labels of a logarithmic colour bar."""
    for unit, scale in (("E", 1e18), ("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6),
                        ("k", 1e3)):
        if v >= scale:
            return "%s%s" % (_significant(v / scale, digits), unit)
    return _significant(v, digits)


def _significant(v, digits):
    return ("%.*g" % (digits, v)) if v < 10 ** digits else "%d" % round(v)


def si_labels(ticks):
    """The labels of `ticks`, with the fewest digits (3 to 7) that tell them all apart."""
    for digits in range(3, 8):
        labels = [si_number(v, digits) for v in ticks]
        if len(set(labels)) == len(labels):
            return labels
    return labels


def colour_bar_ticks(vmin, vmax):
    """Labelled values of a logarithmic colour bar from vmin to vmax: both ends, and between
    them the powers of ten, or 1-2-5 steps when the range spans less than two decades (the
    default locator labels none at all inside one decade)."""
    lo, hi = math.floor(math.log10(vmin)), math.ceil(math.log10(vmax))
    steps = (1,) if hi - lo >= 3 else (1, 2, 5)
    inner = [m * 10.0 ** e for e in range(lo, hi + 1) for m in steps
             if vmin < m * 10.0 ** e < vmax]
    if len(inner) > 8:
        inner = inner[::int(math.ceil(len(inner) / 8.0))]
    ticks = [vmin]
    for v in inner + [vmax]:
        # Ends win over the inner values too close to them to be read apart.
        if v / ticks[-1] >= 1.5 or v == vmax:
            if v == vmax and len(ticks) > 1 and vmax / ticks[-1] < 1.5:
                ticks.pop()
            ticks.append(v)
    return ticks


def render(run, selection, metric, size, max_cells=DEFAULT_MAX_CELLS, by_node=False,
           fmt="png", title=None):
    """The picture's bytes and a one-line description."""
    matplotlib = matplotlib_agg()
    from matplotlib.colors import LogNorm
    from matplotlib.figure import Figure
    from matplotlib.ticker import FixedFormatter, FixedLocator, MaxNLocator, NullFormatter

    cats = run.select(selection)
    matrix = run.matrix(selection, metric)
    m, unit, labels, bounds = aggregate(run, matrix, max_cells, by_node)
    g = m.n
    dense = np.zeros((g, g), dtype=np.float64)
    dense[m.src, m.dst] = m.val
    masked = np.ma.masked_equal(dense, 0.0)

    w, h = size
    fig = Figure(figsize=(w / 100.0, h / 100.0), dpi=100)
    fig.patch.set_facecolor("white")
    ax = fig.add_axes(AXES_RECT)
    cax = fig.add_axes(COLORBAR_RECT)
    cmap = matplotlib.colormaps[COLORMAP].with_extremes(bad="white")
    if m.val.size:
        vmax = float(m.val.max())
        vmin = float(m.val.min())
        if vmin == vmax:
            vmin = vmax / 10.0 if vmax > 1 else 0.1
        norm = LogNorm(vmin=vmin, vmax=vmax)
    else:
        norm = LogNorm(vmin=1, vmax=10)
    # Blocks are drawn in rank units, so that the axes read as ranks at any size.
    block = int(unit.split()[2]) if unit.startswith("block") else 1
    lo, hi = (-0.5, g - 0.5) if block == 1 else (0, g * block)
    image = ax.imshow(masked, cmap=cmap, norm=norm, interpolation="nearest", aspect="auto",
                      extent=(lo, hi, hi, lo))
    ax.set_xlim(lo, hi)
    ax.set_ylim(hi, lo)
    bar = fig.colorbar(image, cax=cax)
    # Plain labels: math text is off (plotting.py), so the default 10^k formulas would show
    # as TeX source. The ticks always include the least and the most value drawn.
    ticks = colour_bar_ticks(norm.vmin, norm.vmax)
    bar.ax.yaxis.set_major_locator(FixedLocator(ticks))
    bar.ax.yaxis.set_major_formatter(FixedFormatter(si_labels(ticks)))
    bar.ax.yaxis.set_minor_formatter(NullFormatter())
    bar.set_label("%s per %s pair (log scale)"
                                           % ("bytes" if metric == "bytes" else "messages",
                                              unit.split(" of ")[0]))
    if not m.val.size:
        ax.text(0.5, 0.5, "no traffic", transform=ax.transAxes, ha="center", va="center")
    for b in bounds if len(bounds) <= 256 else []:
        ax.axhline(b - 0.5, color="red", linewidth=0.8)
        ax.axvline(b - 0.5, color="red", linewidth=0.8)
    if labels is not None and g <= 40:
        ax.set_xticks(range(g))
        ax.set_yticks(range(g))
        upright = g * max(len(x) for x in labels) <= 48
        ax.set_xticklabels(labels, rotation=0 if upright else 90, fontsize=8)
        ax.set_yticklabels(labels, fontsize=8)
    elif g <= 32 and unit == "rank":
        ax.set_xticks(range(g))
        ax.set_yticks(range(g))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    axis = "rank; a cell is a %s" % unit if block > 1 else unit
    ax.set_xlabel("receiver (%s)" % axis)
    ax.set_ylabel("sender (%s)" % axis)
    what = "%s of %s" % ("bytes" if metric == "bytes" else "messages",
                         selection if selection in ("app", "tool", "everything") and
                         len(cats) != 1 else ", ".join(c.name for c in cats) or "nothing")
    what = what.replace("of app", "of the application (%s)" % ", ".join(c.name for c in cats))
    # Under the matrix: above it, the receivers' axis and its labels take the room.
    fig.text(0.5, 0.045, title or "%s, %d ranks%s" % (
        what, run.world_size, "" if unit == "rank" else ", one cell per " + unit),
        ha="center", fontsize=11)
    if bounds and len(bounds) <= 256:
        fig.text(0.5, 0.015, "red lines: node boundaries%s" % (
            " (assumed placement)" if run.hosts_assumed else ""), ha="center", fontsize=8)
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=100, facecolor="white")
    info = "%dx%d cells (one per %s), %s" % (g, g, unit, what)
    return buf.getvalue(), info
