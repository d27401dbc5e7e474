# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi-report check: fits a latency/bandwidth model to the transfers of a trace and lists
the operations that took much longer than the model predicts.

Point-to-point: one model per path class (both ranks on the same host, or on different
hosts), fitted to every matched message. A message's time is the longer of
  - its send call (blocking or not), and
  - its receive: from the later of the receive region's start and the send's issue, to the
    receive's completion (the time the data took once both sides were there),
so a message is listed once, as its sender's operation, whichever side saw the slowness.
I/O: one model per file and direction (read, write), from begin to completion of each
operation.

The model is time = latency + bytes / bandwidth, fitted to the fast part of the data (the
lower quartile of the times at each size, then least squares over sizes), so that the slow
operations the check is looking for do not drag the model towards themselves.
"""

import json
import statistics

from . import trace_reader, waitstates
from .errors import ReportError
from .text import printable

HELP = ("list MPI transfers and I/O operations much slower than a model fitted to the trace, "
        "the wait states and the ranks that caused them")


def add_arguments(parser):
    parser.add_argument("trace_dir", metavar="TRACE_DIR",
                        help="the directory named by 'argument output' of module trace")
    parser.add_argument("--factor", type=float, default=5.0, metavar="F",
                        help="list operations that took more than F times the predicted time "
                             "(default 5)")
    parser.add_argument("--min-excess", type=float, default=0.0, metavar="SECONDS",
                        help="and at least this many seconds more than predicted (default 0): "
                             "on a busy machine, keeps scheduling noise out of the list")
    waitstates.add_arguments(parser)
    parser.add_argument("--json", action="store_true",
                        help="print the models, the slow operations and the wait states as "
                             "one JSON object")


def _quantile(values, q):
    values = sorted(values)
    if not values:
        return 0.0
    pos = q * (len(values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def fit(points):
    """(latency s, seconds per byte) for [(bytes, seconds)]; both at least 0."""
    by_size = {}
    for size, t in points:
        by_size.setdefault(size, []).append(t)
    base = sorted((size, _quantile(ts, 0.25)) for size, ts in by_size.items())
    if len(base) == 1:
        return base[0][1], 0.0
    xs = [s for s, _ in base]
    ys = [t for _, t in base]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    slope = max(slope, 0.0)
    latency = max(my - slope * mx, 0.0)
    if latency == 0.0:
        latency = min(ys)
    return latency, slope


def _duration(seconds):
    if seconds >= 1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds * 1e6:.3f} us"


def _bandwidth(per_byte):
    if per_byte <= 0:
        return "unbounded bandwidth"
    return f"{1 / per_byte / 1e6:.1f} MB/s"


def p2p_operations(trace):
    """[(class, rank, routine, peer, bytes, observed, start)] for every matched message."""
    ops = []
    for m in trace.messages:
        if m.recv_time is None or m.receiver is None:
            continue
        # A nonblocking send's own time is its issuing call: from then to its completion is
        # the application's choice of when to wait, not the transfer's.
        send = (m.send_end if m.blocking else m.send_region_end) - m.send_start
        recv = m.recv_time - max(m.recv_start, m.send_time)
        cls = "same host" if trace.hosts[m.sender] == trace.hosts[m.receiver] else "other host"
        ops.append((cls, m.sender, m.send_routine, f"to rank {m.receiver}", m.size,
                    max(send, recv), m.send_start))
    return ops


def io_operations(trace):
    ops = []
    for op in trace.io_ops:
        if op.complete is None:
            continue
        size = op.done if op.done is not None else op.requested
        where = f"file {op.file}" + (f" at offset {op.offset}" if op.offset is not None else "")
        ops.append((f"{op.mode} {op.file}", op.rank, op.routine, where, size,
                    op.complete - op.begin, op.begin))
    return ops


def check_data(trace, factor, min_excess):
    """(models, runs) for `trace`: each model a dict (kind, class, latency, seconds per byte,
    operations), each run of like slow operations (same rank, routine, peer, size, in time
    order) a dict."""
    models, slow = [], []
    for kind, ops in (("p2p", p2p_operations(trace)), ("I/O", io_operations(trace))):
        classes = {}
        for op in ops:
            classes.setdefault(op[0], []).append(op)
        for cls in sorted(classes):
            members = classes[cls]
            latency, per_byte = fit([(op[4], op[5]) for op in members])
            models.append({"kind": kind, "class": cls, "latency": latency,
                           "seconds_per_byte": per_byte, "operations": len(members)})
            for op in members:
                expected = latency + per_byte * op[4]
                if op[5] > factor * expected and op[5] - expected > min_excess:
                    slow.append(op + (expected,))
    slow.sort(key=lambda op: (op[1], op[6]))
    runs = []
    i = 0
    while i < len(slow):
        j = i
        while j + 1 < len(slow) and slow[j + 1][1:5] == slow[i][1:5]:
            j += 1
        run = slow[i:j + 1]
        _, rank, routine, peer, size, _, _, expected = run[0]
        runs.append({"rank": rank, "routine": routine, "peer": peer, "bytes": size,
                     "count": len(run), "observed": statistics.median(op[5] for op in run),
                     "expected": expected, "first": run[0][6] - trace.start,
                     "last": run[-1][6] - trace.start})
        i = j + 1
    return models, runs


def check(trace, factor, min_excess):
    """(model lines, slow lines) for `trace`."""
    models, runs = check_data(trace, factor, min_excess)
    run_length = max(trace.end - trace.start, 1e-12)
    model_lines = [f"model {m['kind']} {m['class']}: latency {_duration(m['latency'])}, "
                   f"{_bandwidth(m['seconds_per_byte'])} (from {m['operations']} operations)"
                   for m in models]
    lines = []
    for r in runs:
        observed, expected, first, last = r["observed"], r["expected"], r["first"], r["last"]
        if r["count"] == 1:
            count, when = "", f"at {first:.6f} s ({100 * first / run_length:.0f}% of the run)"
            seen = f"observed {_duration(observed)}"
        else:
            count = f" x{r['count']}"
            when = (f"from {first:.6f} s to {last:.6f} s ({100 * first / run_length:.0f}%-"
                    f"{100 * last / run_length:.0f}% of the run)")
            seen = f"observed {_duration(observed)} each (median)"
        lines.append(f"rank {r['rank']}: {r['routine']}{count} {r['peer']}, {r['bytes']} bytes: "
                     f"{seen}, expected {_duration(expected)} "
                     f"({observed / expected if expected else 0:.0f}x), {when}")
    return model_lines, lines


def transfer_model(trace):
    """The time a message takes once both sides are there, for the wait-state analysis:
    latency + bytes / bandwidth per path class, fitted to the fastest receive of each size,
    from the later of its call's start and the send's to its completion (the send call's own
    time is not used: a Sendrecv's includes its wait for its own receive)."""
    fastest = {}
    for m in trace.messages:
        if m.recv_time is None or m.receiver is None or m.recv_start is None:
            continue
        cls = "same host" if trace.hosts[m.sender] == trace.hosts[m.receiver] else "other host"
        took = max(m.recv_time - max(m.recv_start, m.send_start), 0.0)
        fastest[(cls, m.size)] = min(fastest.get((cls, m.size), took), took)
    fits = {}
    for cls in {c for c, _ in fastest}:
        fits[cls] = fit([(size, t) for (c, size), t in fastest.items() if c == cls])

    def transfer(m):
        cls = "same host" if trace.hosts[m.sender] == trace.hosts[m.receiver] else "other host"
        latency, per_byte = fits.get(cls, (0.0, 0.0))
        return latency + per_byte * m.size
    return transfer


def run(args):
    if not 1 < args.factor < float("inf"):
        raise ReportError(f"--factor must be a number more than 1, not {args.factor:g}")
    if not 0 <= args.min_excess < float("inf"):
        raise ReportError(f"--min-excess must be a number of seconds, 0 or more, not "
                          f"{args.min_excess:g}")
    problem = waitstates.check_arguments(args)
    if problem:
        raise ReportError(problem)
    trace = trace_reader.read(args.trace_dir)
    analysis = waitstates.analyse(trace, transfer_model(trace), args.clock_error)
    named = analysis.causes(args.min_wait, args.min_share)
    status = 1 if named else 0
    if args.json:
        models, runs = check_data(trace, args.factor, args.min_excess)
        status = 1 if runs or named else 0
        print(json.dumps({"models": models, "slow": runs,
                          "waits": waitstates.to_json(analysis, args.min_wait, args.min_share),
                          "status": status}, indent=1, sort_keys=True))
        return status
    models, lines = check(trace, args.factor, args.min_excess)
    for line in models + lines:
        print(printable(line))
    if lines:
        print(f"{len(lines)} line(s) of operations slower than {args.factor:g}x the model")
        status = 1
    else:
        print(f"no operation slower than {args.factor:g}x the model")
    for line in waitstates.report_lines(analysis, args.min_wait, args.min_share):
        print(line)
    return status
