# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi-report timeline: ranks against time, MPI regions coloured by routine class,
messages as lines from send to receive, from the OTF2 archive of module trace."""

import dataclasses
import io
import os
import re

from . import trace_reader
from .errors import ReportError
from .output import write_atomic
from .plotting import matplotlib_agg
from .text import printable

HELP = "draw a trace of module trace: ranks against time, MPI calls coloured by class"

# One colour per routine class; the legend lists them. Plain, distinct colours, so that a
# reader (and the tests) can tell them apart in the picture.
COLOURS = {
    "p2p": "#1f5fd0",      # blue
    "request": "#20b0c8",  # cyan
    "coll": "#d02020",     # red
    "rma": "#8040c0",      # purple
    "io": "#20a040",       # green
    "comm": "#f08010",     # orange
    "env": "#909090",      # grey
}
MESSAGE_COLOUR = "#000000"
TOOL_COLOUR = "#f0d000"    # the outline of calls a module above the trace made

# The figure's layout, in inches and figure fractions: fixed, so that a time and a rank map
# to one pixel (pixel_of), which is how the tests check what is drawn where.
WIDTH_IN = 12.0
ROW_IN = 0.6
MARGIN_IN = 1.2
DPI = 100
AXES_LEFT = 0.08
AXES_RIGHT = 0.86
BAR_HEIGHT = 0.6


def figure_size(ranks):
    """(width, height) in inches for `ranks` rows."""
    return WIDTH_IN, ROW_IN * max(ranks, 1) + MARGIN_IN


def axes_box(ranks):
    """(left, bottom, width, height) of the plot area, as fractions of the figure."""
    _, height = figure_size(ranks)
    bottom = 0.7 / height
    return AXES_LEFT, bottom, AXES_RIGHT - AXES_LEFT, (height - MARGIN_IN) / height


def pixel_of(time, rank, ranks, start, end):
    """The pixel (x, y from the top) where `time` on `rank`'s row is drawn."""
    width, height = figure_size(ranks)
    left, bottom, w, h = axes_box(ranks)
    span = end - start if end > start else 1.0
    fx = left + w * (time - start) / span
    # Rank 0 on top: row r is centred at r, the y axis runs from ranks-0.5 down to -0.5.
    fy = bottom + h * (ranks - 0.5 - rank) / ranks
    return int(fx * width * DPI), int((1 - fy) * height * DPI)


def add_arguments(parser):
    parser.add_argument("trace_dir", metavar="TRACE_DIR",
                        help="the directory named by 'argument output' of module trace")
    parser.add_argument("-o", "--output", required=True, metavar="FILE",
                        help="the picture to write: FILE.png or FILE.svg")
    parser.add_argument("--whole", action="store_true",
                        help="draw MPI_Init and MPI_Finalize whole (by default the picture "
                             "runs from the first call after the last MPI_Init to the start "
                             "of MPI_Finalize)")
    parser.add_argument("--from", dest="t_from", type=float, metavar="SECONDS",
                        help="start the picture at this time (seconds from the start of the "
                             "trace, as on its time axis)")
    parser.add_argument("--to", dest="t_to", type=float, metavar="SECONDS",
                        help="end the picture at this time")
    parser.add_argument("--ranks", metavar="LIST",
                        help="draw only these ranks, such as 0-3,8 (messages between two of "
                             "them)")


_INIT = ("MPI_Init", "MPI_Init_thread")


def time_range(trace, whole=False, window=(None, None)):
    """(start, end) of the picture: by default from the first call after the last
    MPI_Init (every rank is in the application then) to the start of MPI_Finalize; all of
    it with `whole`; `window` (from, to) in seconds replaces either end."""
    start, end = trace.start, trace.end
    if not whole:
        inits = [r.end for r in trace.regions if r.routine in _INIT]
        finals = [r.start for r in trace.regions if r.routine == "MPI_Finalize"]
        if inits:
            last_init = max(inits)
            after = [r.start for r in trace.regions
                     if r.routine not in _INIT and r.start >= last_init]
            start = min(after) if after else last_init
        if finals and max(finals) > start:
            end = max(finals)
    if window[0] is not None:
        start = window[0]
    if window[1] is not None:
        end = window[1]
    end = max(end, start + 1e-9)
    # A margin of 1% each side, so that a call at either end is not hidden by the frame.
    margin = (end - start) / 100
    return start - margin, end + margin


def parse_ranks(text, ranks):
    """--ranks LIST ("0-3,8") -> sorted world ranks, each below `ranks`, checked before a
    range is expanded."""
    chosen = set()
    for part in text.split(","):
        m = re.fullmatch(r"([0-9]{1,9})(?:-([0-9]{1,9}))?", part.strip())
        if not m:
            raise ReportError("--ranks must be ranks and ranges such as 0-3,8, not %r" % text)
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if lo > hi:
            raise ReportError("--ranks: the range %s runs backwards" % part.strip())
        if hi >= ranks:
            raise ReportError("--ranks: rank %d is not in the trace (ranks 0 to %d)"
                              % (hi, ranks - 1))
        chosen.update(range(lo, hi + 1))
    return sorted(chosen)


def check_window(t_from, t_to):
    for name, v in (("--from", t_from), ("--to", t_to)):
        if v is not None and not 0 <= v < float("inf"):
            raise ReportError("%s must be a time in seconds, 0 or more, not %g" % (name, v))
    if t_from is not None and t_to is not None and not t_from < t_to:
        raise ReportError("--from (%g s) must be before --to (%g s)" % (t_from, t_to))


def draw(trace, output, whole=False, window=(None, None), only=None):
    """Draws `trace` into `output` (.png or .svg); `only`: the world ranks to draw, one row
    each in this order (all by default)."""
    of_ranks = f"{trace.ranks} ranks"
    if only is not None:
        of_ranks = f"{len(only)} of {trace.ranks} ranks"
        trace = _subset(trace, only)
    matplotlib_agg()
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    ranks = max(trace.ranks, 1)
    start, end = time_range(trace, whole, window)
    width, height = figure_size(ranks)
    fig = plt.figure(figsize=(width, height), dpi=DPI)
    ax = fig.add_axes(axes_box(ranks))
    # A region shorter than a pixel is drawn one pixel wide: a microsecond call in a
    # second-long run must still show.
    # Calls shorter than two pixels are drawn last, over the longer ones, so that they show.
    pixel = (end - start) / (width * DPI * (AXES_RIGHT - AXES_LEFT))
    for short in (False, True):
        for cls, colour in COLOURS.items():
            rows = {}
            for r in trace.regions:
                if r.cls == cls and (r.end - r.start < 2 * pixel) == short:
                    rows.setdefault(r.rank, []).append((r.start, max(r.end - r.start, pixel)))
            for rank, spans in rows.items():
                ax.broken_barh(spans, (rank - BAR_HEIGHT / 2, BAR_HEIGHT), facecolors=colour,
                               linewidth=0, antialiased=False)
    tool_spans = {}
    for r in trace.regions:
        if r.tool and r.end >= start and r.start <= end:
            tool_spans.setdefault(r.rank, []).append((r.start, max(r.end - r.start, pixel)))
    for rank, spans in tool_spans.items():
        ax.broken_barh(spans, (rank - BAR_HEIGHT / 2, BAR_HEIGHT), facecolors="none",
                       edgecolors=TOOL_COLOUR, linewidth=1.0)
    for m in trace.messages:
        if m.recv_time is None or m.receiver is None:
            continue
        ax.plot([m.send_time, m.recv_time], [m.sender, m.receiver], color=MESSAGE_COLOUR,
                linewidth=0.8, antialiased=False)
    ax.set_xlim(start, end)
    ax.set_ylim(ranks - 0.5, -0.5)
    ax.set_yticks(range(ranks))
    ax.set_yticklabels([f"rank {r}" for r in (only if only is not None else range(ranks))])
    ax.set_xlabel("time (s)")
    ax.set_title(f"{os.path.dirname(trace.path)}: {of_ranks}, {len(trace.regions)} calls, "
                 f"{len(trace.messages)} messages", fontsize=9)
    handles = [Patch(facecolor=c, label=k) for k, c in COLOURS.items()]
    handles.append(Patch(facecolor=MESSAGE_COLOUR, label="message"))
    if tool_spans:
        handles.append(Patch(facecolor="none", edgecolor=TOOL_COLOUR, label="tool's call"))
    fig.legend(handles=handles, loc="center right", fontsize=8, frameon=False)
    buf = io.BytesIO()
    fig.savefig(buf, format=os.path.splitext(output)[1][1:].lower(), dpi=DPI)
    plt.close(fig)
    write_atomic(output, buf.getvalue())


def _subset(trace, only):
    """The trace with only the ranks in `only`, renumbered to their rows 0, 1, ..."""
    row = {r: i for i, r in enumerate(only)}
    sub = dataclasses.replace(trace, ranks=len(only), hosts=[trace.hosts[r] for r in only])
    sub.regions = [dataclasses.replace(r, rank=row[r.rank]) for r in trace.regions
                   if r.rank in row]
    sub.messages = [dataclasses.replace(m, sender=row[m.sender], receiver=row[m.receiver])
                    for m in trace.messages if m.sender in row and m.receiver in row]
    return sub


def run(args):
    suffix = os.path.splitext(args.output)[1].lower()
    if suffix not in (".png", ".svg"):
        raise ReportError("the picture's name must end in .png or .svg", args.output)
    check_window(args.t_from, args.t_to)
    trace = trace_reader.read(args.trace_dir)
    only = parse_ranks(args.ranks, trace.ranks) if args.ranks is not None else None
    if args.t_from is not None and args.t_from >= trace.end:
        raise ReportError("--from %g s is past the end of the trace (%.6f s)"
                          % (args.t_from, trace.end), args.trace_dir)
    draw(trace, args.output, args.whole, (args.t_from, args.t_to), only)
    print(f"{printable(args.output)}: {trace.ranks} ranks, {len(trace.regions)} calls, "
          f"{len(trace.messages)} messages, {trace.end - trace.start:.6f} s")
    return 0
