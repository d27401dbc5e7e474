# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Wait states of a trace in Scalasca's categories, and the ranks that caused them.

A wait state is time a rank spends inside an MPI call, blocked until another rank gets
somewhere. Each is an interval on the waiting rank's timeline, from the start of its call to
the moment the other rank (its immediate cause) was ready:

- late sender: a receive (or the Wait, Sendrecv, ... that completes it) started before its
  message was sent; it waits until the send was issued.
- late receiver: a send that cannot complete without its receiver (MPI_Ssend, or a standard
  send the receiver did not have to wait for) started before the receive; it waits until the
  receive started.
- wait at barrier, wait at N x N (Allreduce, Allgather(v), Alltoall(v,w),
  Reduce_scatter(_block)): every member waits until the last one entered.
- late broadcast (Bcast, Scatter(v)): the others wait until the root entered.
- early reduce (Reduce, Gather(v)): the root waits until the first other member entered.

When was a message sent? The trace records a send when its call starts; a layer below the
trace (`module delay`, another tool) can hold the message inside the call for a while after
that. So the send is taken to be issued when the call started, unless the trace proves it
was later: the receiver was ready (its call had already started, and any other message it
took part in shows it was not itself held), yet the message arrived only at its completion.
Then the send is taken to be issued as late as the sender's own evidence allows (the end of
its call, the arrival of its other messages), less the transfer time of the message (the
model check fits). See docs/trace.md.

Root causes. At each instant a rank waits, it waits for its cause; if the cause is itself
waiting at that instant, for the cause's cause, and so on: the chain ends at a rank that is
not waiting (computing, or inside a call for reasons of its own, such as a delay below the
trace). That rank is charged with the instant. Waiting that ends at a rank still in MPI_Init
is charged to the job's startup, not to a rank. This is the idea of Scalasca's propagating
wait states (waits caused by waits are the originator's) with a simpler rule for how far
back to go: the instant itself, rather than the synchronisation interval before the wait.

Clocks. Every comparison of two ranks' times is off by at most their clocks' disagreement:
the bounds the trace measured (PNMPI::CLOCK_OFFSETS; exactly 0 on one host) plus
`clock_error`. A wait is only counted beyond that tolerance, and counted less it, so clock
offsets can shrink a wait but never make one.
"""

import bisect
import collections
import functools
import gc
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

LATE_SENDER = "late sender"
LATE_RECEIVER = "late receiver"
WAIT_BARRIER = "wait at barrier"
WAIT_NXN = "wait at N x N"
LATE_BROADCAST = "late broadcast"
EARLY_REDUCE = "early reduce"
CATEGORIES = (LATE_SENDER, LATE_RECEIVER, WAIT_BARRIER, WAIT_NXN, LATE_BROADCAST, EARLY_REDUCE)

STARTUP = "startup"  # the pseudo-cause of waiting for ranks still in MPI_Init
RANK_LINES = 32      # the text report's lines of ranks: those that waited or caused the most

_NXN = {"Allreduce", "Allgather", "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw",
        "Reduce_scatter", "Reduce_scatter_block"}
_ONE_TO_N = {"Bcast", "Scatter", "Scatterv"}
_N_TO_ONE = {"Reduce", "Gather", "Gatherv"}
# Calls that post the receives they complete (a Wait completes one posted earlier).
_POSTING_RECEIVES = {"Recv", "Sendrecv", "Sendrecv_replace", "Mrecv"}
# Sends that cannot complete before their receive started (MPI_Ssend), and sends that never
# wait for it (buffered, ready).
_SYNCHRONOUS = {"Ssend", "Issend", "Ssend_init"}
_NEVER_WAIT = {"Bsend", "Ibsend", "Bsend_init", "Rsend", "Irsend", "Rsend_init"}
_COMPLETING = re.compile(r"^(Wait|Test)(all|any|some)?$")


@functools.lru_cache(maxsize=None)
def _base(routine: str) -> str:
    """'MPI_Send_c' -> 'Send'."""
    base = routine[4:] if routine.startswith("MPI_") else routine
    return base[:-2] if base.endswith("_c") else base


@dataclass
class Wait:
    rank: int          # the waiting rank
    category: str
    routine: str       # the call it waited in
    start: float       # the interval it waited, on the trace's clock
    end: float
    cause: int         # the rank it waited for

    @property
    def seconds(self) -> float:
        return self.end - self.start


@dataclass
class Analysis:
    ranks: int
    waits: List[Wait] = field(default_factory=list)
    # rank -> seconds it waited, per category
    waited: Dict[int, Dict[str, float]] = field(default_factory=dict)
    # cause (rank or STARTUP) -> seconds of others' waiting charged to it at the end of chains
    caused: Dict[object, float] = field(default_factory=dict)
    # cause -> seconds of waiting it caused directly (it was the immediate cause)
    direct: Dict[object, float] = field(default_factory=dict)
    # cause -> {waiting rank: seconds charged}
    victims: Dict[object, Dict[int, float]] = field(default_factory=dict)
    tolerance: float = 0.0   # the largest clock tolerance used between two ranks
    notes: List[str] = field(default_factory=list)

    def total(self) -> float:
        return sum(w.seconds for w in self.waits)

    def by_category(self) -> Dict[str, Tuple[float, int]]:
        out = {c: [0.0, 0] for c in CATEGORIES}
        for w in self.waits:
            out[w.category][0] += w.seconds
            out[w.category][1] += 1
        return {c: (v[0], v[1]) for c, v in out.items()}

    def charged_to_ranks(self) -> float:
        """The waiting charged to ranks: all of it but the startup's."""
        return sum(s for c, s in self.caused.items() if c != STARTUP)

    def causes(self, min_wait: float, min_share: float) -> List[int]:
        """The ranks named as causes: charged with at least `min_wait` seconds and at least
        `min_share` of the waiting charged to ranks, most first."""
        total = self.charged_to_ranks()
        named = [c for c, s in self.caused.items() if c != STARTUP and s >= min_wait and
                 total > 0 and s >= min_share * total]
        return sorted(named, key=lambda c: (-self.caused[c], c))


# ---- clocks --------------------------------------------------------------------------------

def clock_bounds(properties: Dict[str, str], ranks: int) -> Tuple[Optional[bool], List[float]]:
    """(aligned?, bound in seconds per rank) from the archive's PNMPI::CLOCK_* properties;
    aligned is None when the trace does not say."""
    bounds = [0.0] * ranks
    alignment = properties.get("PNMPI::CLOCK_ALIGNMENT")
    aligned = None if alignment is None else alignment.startswith("applied")
    for item in properties.get("PNMPI::CLOCK_OFFSETS", "").split(";"):
        fields = item.split()
        if len(fields) < 2 or fields[0] != "rank":
            continue
        try:
            rank = int(fields[1])
            values = dict(zip(fields[2::2], fields[3::2]))
            bound = max(abs(float(values.get("bound-init", 0))),
                        abs(float(values.get("bound-finalize", 0)))) * 1e-9
        except ValueError:
            continue
        if 0 <= rank < ranks:
            bounds[rank] = bound
    return aligned, bounds


# ---- finding the wait states ---------------------------------------------------------------

class _Calls:
    """The trace's calls per rank, found by (rank, routine, start) or by a time inside."""

    def __init__(self, trace):
        self.end = {}
        self.by_rank = collections.defaultdict(list)
        self.init_end = {}
        for r in trace.regions:
            self.end[(r.rank, r.routine, r.start)] = r.end
            self.by_rank[r.rank].append(r)
            if r.routine in ("MPI_Init", "MPI_Init_thread"):
                self.init_end[r.rank] = max(self.init_end.get(r.rank, r.end), r.end)
        for regions in self.by_rank.values():
            regions.sort(key=lambda r: r.start)
        self.starts = {rank: [r.start for r in regions] for rank, regions in self.by_rank.items()}

    def containing(self, rank, t):
        """The last call of `rank` that started at or before `t` and ends at or after it."""
        regions = self.by_rank.get(rank, [])
        i = bisect.bisect_right(self.starts.get(rank, []), t) - 1
        for j in range(i, max(i - 16, -1), -1):  # calls nest only a few deep
            if regions[j].end >= t:
                return regions[j]
        return None


def _message_waits(trace, calls, transfer, tol):
    """Late-sender and late-receiver candidates: [(key of the waiting call, Wait)]."""
    messages = [m for m in trace.messages
                if m.receiver is not None and m.recv_time is not None and m.recv_start is not None
                and 0 <= m.sender < trace.ranks and 0 <= m.receiver < trace.ranks]
    # Per call: the messages it sent and those completed in it.
    sent = collections.defaultdict(list)
    received = collections.defaultdict(list)
    for m in messages:
        sent[(m.sender, m.send_routine, m.send_start)].append(m)
        received[(m.receiver, m.recv_routine, m.recv_start)].append(m)

    def arrival(m):
        return m.recv_time - transfer(m)

    def latest_post(key, exclude, posts_receives, with_end):
        """The latest time call `key` can have started communicating, from everything but
        message `exclude`: each message it sent or posted a receive for arrived after it."""
        bound = calls.end.get(key, float("inf")) if with_end else float("inf")
        for m in sent.get(key, ()):
            if m is not exclude:
                bound = min(bound, arrival(m))
        if posts_receives:
            for m in received.get(key, ()):
                if m is not exclude:
                    bound = min(bound, arrival(m))
        return bound

    # When was each message sent? At its call's start, unless the receiver was provably
    # ready before the message arrived: then as late as the sender's evidence allows.
    issued = {}
    posted = {}  # call -> when it issued its sends (a Sendrecv posts its receive with them)
    for m in messages:
        if m.sender == m.receiver:
            continue
        t = tol(m.sender, m.receiver)
        send_key = (m.sender, m.send_routine, m.send_start)
        recv_key = (m.receiver, m.recv_routine, m.recv_start)
        when = m.send_start
        a = arrival(m)
        # A call that posts its receive is ready when it started, unless it took part in
        # other messages: then no later than the earliest of them shows.
        ready = m.recv_start
        if _base(m.recv_routine) in _POSTING_RECEIVES:
            ready = latest_post(recv_key, m, True, False)
            if ready == float("inf"):
                ready = m.recv_start
        if max(ready, m.recv_start) < a - t:
            when = max(m.send_start,
                       min(a, latest_post(send_key, m, _base(m.send_routine) in
                                          _POSTING_RECEIVES, True)))
        issued[id(m)] = when
        posted[send_key] = max(posted.get(send_key, when), when)

    out = []
    for m in messages:
        s, r = m.sender, m.receiver
        if s == r:
            continue
        t = tol(s, r)
        send_key = (s, m.send_routine, m.send_start)
        recv_key = (r, m.recv_routine, m.recv_start)
        # The receiver waits from its call's start, or, for a call that posts its receive
        # with sends it was found to issue late (held below the trace), from then.
        ready = m.recv_start
        if _base(m.recv_routine) in _POSTING_RECEIVES:
            ready = max(ready, posted.get(recv_key, ready))
        recv_end = calls.end.get(recv_key, m.recv_time)
        late = min(issued[id(m)], recv_end) - ready
        if late > t:
            out.append((recv_key, Wait(r, LATE_SENDER, m.recv_routine, m.recv_start,
                                       min(ready + late - t, recv_end), s)))
        # Late receiver: the call that completes the send started before the receive and was
        # still running when it started.
        base = _base(m.send_routine)
        if base in _NEVER_WAIT or base.startswith("Sendrecv") or m.send_end is None:
            continue
        if m.blocking:
            done_key, done_start, done_end = send_key, m.send_start, m.send_end
        else:
            region = calls.containing(s, m.send_end)
            if region is None or not _COMPLETING.match(_base(region.routine)):
                continue
            done_key = (s, region.routine, region.start)
            done_start, done_end = region.start, region.end
        if base not in _SYNCHRONOUS and issued[id(m)] > ready + t:
            continue  # the receiver waited for this send: the sender was not waiting for it
        late = min(ready, done_end) - done_start
        if done_end > ready + t and late > t:
            out.append((done_key, Wait(s, LATE_RECEIVER, done_key[1], done_start,
                                       done_start + late - t, r)))
    return out


def _collective_waits(trace, tol, notes):
    """Waits at blocking collectives: [(key of the waiting call, Wait)]."""
    per_comm = collections.defaultdict(lambda: collections.defaultdict(list))
    for c in trace.collectives:
        if c.comm in ("", "MPI_COMM_SELF") or c.comm.startswith("intercomm") or \
                not 0 <= c.rank < trace.ranks:
            continue
        per_comm[c.comm][c.rank].append(c)
    out = []
    for comm in sorted(per_comm):
        members = per_comm[comm]
        for calls in members.values():
            calls.sort(key=lambda c: c.start)
        counts = {len(calls) for calls in members.values()}
        if len(members) < 2:
            continue
        if len(counts) != 1:
            notes.append(f"collectives on {comm} not analysed: its ranks recorded different "
                         f"numbers of them ({min(counts)} to {max(counts)})")
            continue
        for k in range(counts.pop()):
            instance = [calls[k] for calls in members.values()]
            routines = {_base(c.routine) for c in instance}
            if len(routines) != 1:
                notes.append(f"collectives on {comm} analysed up to the {k + 1}th only: the "
                             "ranks called different routines there")
                break
            base = routines.pop()
            if base == "Barrier" or base in _NXN:
                category = WAIT_BARRIER if base == "Barrier" else WAIT_NXN
                last = max(instance, key=lambda c: (c.start, c.rank))
                pairs = [(c, last) for c in instance if c is not last]
            elif base in _ONE_TO_N:
                root = [c for c in instance if c.rank == c.root]
                if len(root) != 1:
                    continue
                category = LATE_BROADCAST
                pairs = [(c, root[0]) for c in instance if c is not root[0]]
            elif base in _N_TO_ONE:
                root = [c for c in instance if c.rank == c.root]
                others = [c for c in instance if c.rank != c.root]
                if len(root) != 1 or not others:
                    continue
                category = EARLY_REDUCE
                pairs = [(root[0], min(others, key=lambda c: (c.start, c.rank)))]
            else:
                continue  # nonblocking, scans, neighbourhood collectives: not analysed
            for waiter, cause in pairs:
                t = tol(waiter.rank, cause.rank)
                late = min(cause.start, waiter.end) - waiter.start
                if late > t:
                    out.append(((waiter.rank, waiter.routine, waiter.start),
                                Wait(waiter.rank, category, waiter.routine, waiter.start,
                                     waiter.start + late - t, cause.rank)))
    return out


def _mutual(waits):
    """Removes the impossible: two ranks waiting for each other at the same instant (a
    symmetric exchange whose messages both look late). The wait that ended first is dropped
    where they overlap: its rank found its data waiting when it got there."""
    by_pair = collections.defaultdict(list)
    for w in waits:
        by_pair[(w.rank, w.cause)].append(w)
    for (a, b), mine in by_pair.items():
        if a >= b or (b, a) not in by_pair:
            continue
        theirs = sorted(by_pair[(b, a)], key=lambda w: w.start)
        starts = [w.start for w in theirs]
        for w in mine:
            i = max(bisect.bisect_right(starts, w.end) - 1, 0)
            for v in theirs[max(i - 8, 0):i + 1]:
                if v.start >= w.end or w.start >= v.end:
                    continue
                loser = w if w.end < v.end else v
                winner = v if loser is w else w
                # Cut the loser where the winner covers it.
                if loser.start >= winner.start:
                    loser.start = min(max(loser.start, winner.end), loser.end)
                else:
                    loser.end = max(min(loser.end, winner.start), loser.start)
    return [w for w in waits if w.end > w.start]


def find_waits(trace, transfer: Callable = lambda m: 0.0, clock_error: float = 1e-6,
               bounds: Optional[List[float]] = None, notes: Optional[List[str]] = None):
    """(waits, largest tolerance between two ranks, calls): one wait per call (its longest
    candidate), clipped to the call."""
    notes = notes if notes is not None else []
    bounds = bounds or [0.0] * trace.ranks

    def tol(a, b):
        return clock_error + bounds[a] + bounds[b]

    calls = _Calls(trace)
    candidates = _message_waits(trace, calls, transfer, tol) + \
        _collective_waits(trace, tol, notes)
    best = {}
    for key, w in candidates:
        end = calls.end.get(key)
        if end is not None:
            w.end = min(w.end, end)
        if w.end <= w.start:
            continue
        if key not in best or w.end > best[key].end:
            best[key] = w
    waits = sorted(best.values(), key=lambda w: (w.rank, w.start))
    top = sorted(bounds, reverse=True)[:2] + [0.0, 0.0]
    tolerance = clock_error + top[0] + top[1]
    return _mutual(waits), tolerance, calls


# ---- root causes ---------------------------------------------------------------------------

def _union(waits):
    """Per rank, its waits as disjoint intervals in time order (threads of a rank can wait at
    once; the earlier-starting one keeps the overlap)."""
    out = collections.defaultdict(list)
    for w in sorted(waits, key=lambda w: (w.rank, w.start)):
        lst = out[w.rank]
        start = max(w.start, lst[-1][1]) if lst else w.start
        if w.end > start:
            lst.append((start, w.end, w))
    return out


def attribute(waits, ranks, init_end):
    """Charges every wait to the ranks at the ends of its chains: (caused, direct, victims)."""
    union = _union(waits)
    starts = {r: [u[0] for u in lst] for r, lst in union.items()}
    resolved = {}   # id(wait) -> [(a, b, root)]
    busy = set()

    def own(c, a, b, out):
        init = init_end.get(c, float("-inf"))
        if a < init:
            out.append((a, min(b, init), STARTUP))
            a = min(b, init)
        if b > a:
            out.append((a, b, c))

    def resolve(w):
        key = id(w)
        if key in resolved:
            return resolved[key]
        busy.add(key)
        out = []
        c, cursor = w.cause, w.start
        lst = union.get(c, [])
        i = max(bisect.bisect_right(starts.get(c, []), w.start) - 1, 0)
        while i < len(lst) and cursor < w.end:
            a, b, w2 = lst[i]
            i += 1
            if b <= cursor:
                continue
            if a >= w.end:
                break
            if a > cursor:
                own(c, cursor, a, out)
                cursor = a
            hi = min(b, w.end)
            if id(w2) in busy:
                own(c, cursor, hi, out)   # a cycle: the chain stops here
            else:
                for sa, sb, root in resolve(w2):
                    lo2, hi2 = max(sa, cursor), min(sb, hi)
                    if hi2 > lo2:
                        out.append((lo2, hi2, root))
            cursor = hi
        if cursor < w.end:
            own(c, cursor, w.end, out)
        busy.discard(key)
        merged = []
        for seg in out:
            if merged and merged[-1][2] == seg[2] and abs(merged[-1][1] - seg[0]) < 1e-12:
                merged[-1] = (merged[-1][0], seg[1], seg[2])
            else:
                merged.append(seg)
        resolved[key] = merged
        return merged

    import sys
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    caused = collections.defaultdict(float)
    direct = collections.defaultdict(float)
    victims = collections.defaultdict(lambda: collections.defaultdict(float))
    for w in sorted(waits, key=lambda w: w.end):
        direct[w.cause] += w.seconds
        for a, b, root in resolve(w):
            caused[root] += b - a
            victims[root][w.rank] += b - a
    return dict(caused), dict(direct), {c: dict(v) for c, v in victims.items()}


def analyse(trace, transfer: Callable = lambda m: 0.0, clock_error: float = 1e-6) -> Analysis:
    """The wait states of `trace` and their causes."""
    # The analysis makes millions of small objects and no cycles: the cycle collector, run
    # over all of them again and again, would make it quadratic.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _analyse(trace, transfer, clock_error)
    finally:
        if enabled:
            gc.enable()


def _analyse(trace, transfer, clock_error):
    result = Analysis(ranks=trace.ranks)
    aligned, bounds = clock_bounds(getattr(trace, "properties", {}) or {}, trace.ranks)
    if aligned is False and len(set(trace.hosts)) > 1:
        result.notes.append("wait states not analysed: the trace's clocks are each rank's own "
                            "(argument clock local) and its ranks ran on "
                            f"{len(set(trace.hosts))} hosts")
        return result
    waits, result.tolerance, calls = find_waits(trace, transfer, clock_error, bounds,
                                                result.notes)
    result.waits = waits
    for w in waits:
        per = result.waited.setdefault(w.rank, {})
        per[w.category] = per.get(w.category, 0.0) + w.seconds
    result.caused, result.direct, result.victims = attribute(waits, trace.ranks, calls.init_end)
    return result


# ---- the command line and the report -------------------------------------------------------

def add_arguments(parser):
    parser.add_argument("--min-wait", type=float, default=0.01, metavar="SECONDS",
                        help="name a rank as a cause only if it caused at least this much "
                             "waiting in all (default 0.01)")
    parser.add_argument("--min-share", type=float, default=0.1, metavar="FRACTION",
                        help="and at least this fraction of all the waiting (default 0.1)")
    parser.add_argument("--clock-error", type=float, default=1e-6, metavar="SECONDS",
                        help="how far two ranks' clocks may disagree beyond the bounds the "
                             "trace measured; shorter waits are not counted (default 1e-6)")


def check_arguments(args):
    """A message for options out of range, or None."""
    for name, value, low, high in (("--min-wait", args.min_wait, 0.0, float("inf")),
                                   ("--min-share", args.min_share, 0.0, 1.0),
                                   ("--clock-error", args.clock_error, 0.0, 1.0)):
        if not low <= value <= high:  # also false for nan
            more = f" and at most {high:g}" if high != float("inf") else ""
            return f"{name} must be at least {low:g}{more}, not {value:g}"
    return None


def _duration(seconds):
    if seconds == 0:
        return "0 s"
    if round(seconds, 3) >= 1:
        return f"{seconds:.3f} s"
    if round(seconds * 1e3, 3) >= 1:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds * 1e6:.3f} us"


def _who(cause):
    return "startup (ranks still in MPI_Init)" if cause == STARTUP else f"rank {cause}"


def report_lines(a: Analysis, min_wait: float, min_share: float) -> List[str]:
    """The wait-state part of check's report."""
    lines = list(f"note: {n}" for n in a.notes)
    if a.notes and not a.waits and a.notes[0].startswith("wait states not analysed"):
        return lines
    total = a.total()
    lines.append(f"wait states: {_duration(total)} of waiting in MPI calls (waits shorter than "
                 f"the clock tolerance, {_duration(a.tolerance)}, not counted)")
    for category, (seconds, count) in a.by_category().items():
        lines.append(f"  {category}: " + (f"{_duration(seconds)} in {count} call(s)" if count
                                           else "none"))
    if total:
        lines.append("waiting per rank, and the waiting it caused (as the immediate cause, and "
                     "as the root cause at the end of chains of waits):")
    shown = [r for r in range(a.ranks) if r in a.waited or a.caused.get(r) or a.direct.get(r)]
    if len(shown) > RANK_LINES:
        weight = {r: sum(a.waited.get(r, {}).values()) + a.caused.get(r, 0.0) for r in shown}
        shown = sorted(sorted(shown, key=lambda r: (-weight[r], r))[:RANK_LINES])
    for rank in shown:
        waited = a.waited.get(rank, {})
        caused = a.caused.get(rank, 0.0)
        what = ", ".join(f"{c} {_duration(waited[c])}" for c in CATEGORIES if c in waited)
        lines.append(f"  rank {rank}: waited {_duration(sum(waited.values()))}" +
                     (f" ({what})" if what else "") +
                     f"; immediate cause of {_duration(a.direct.get(rank, 0.0))}, root cause "
                     f"of {_duration(caused)}")
    hidden = len([r for r in range(a.ranks) if r in a.waited or a.caused.get(r) or
                  a.direct.get(r)]) - len(shown)
    if hidden:
        lines.append(f"  ... and {hidden} more ranks, each less (--json lists them all)")
    if a.caused.get(STARTUP):
        lines.append(f"  {_who(STARTUP)}: root cause of {_duration(a.caused[STARTUP])}")
    named = a.causes(min_wait, min_share)
    if not named:
        lines.append(f"cause: none (no rank caused at least {_duration(min_wait)} and "
                     f"{100 * min_share:g}% of the waiting charged to ranks)")
    for rank in named:
        victims = sorted(a.victims.get(rank, {}).items(), key=lambda kv: (-kv[1], kv[0]))
        lines.append(f"cause: rank {rank}: {_duration(a.caused[rank])} of waiting "
                     f"({100 * a.caused[rank] / a.charged_to_ranks():.0f}% of the waiting "
                     "charged to ranks), of " +
                     ", ".join(f"rank {r} {_duration(s)}" for r, s in victims))
    return lines


def to_json(a: Analysis, min_wait: float, min_share: float) -> dict:
    """The same as report_lines, as plain data (seconds)."""
    total = a.total()
    ranks = []
    for rank in range(a.ranks):
        waited = a.waited.get(rank, {})
        ranks.append({"rank": rank, "waited": sum(waited.values()),
                      "waited_by_category": {c: waited.get(c, 0.0) for c in CATEGORIES},
                      "caused": a.caused.get(rank, 0.0),
                      "caused_directly": a.direct.get(rank, 0.0)})
    named = a.causes(min_wait, min_share)
    return {
        "total": total,
        "clock_tolerance": a.tolerance,
        "categories": {c: {"seconds": s, "calls": n} for c, (s, n) in a.by_category().items()},
        "ranks": ranks,
        "startup": a.caused.get(STARTUP, 0.0),
        "causes": [{"rank": r, "caused": a.caused[r], "share": a.caused[r] / a.charged_to_ranks(),
                    "victims": {str(v): s for v, s in sorted(a.victims.get(r, {}).items())}}
                   for r in named],
        "min_wait": min_wait,
        "min_share": min_share,
        "notes": list(a.notes),
    }
