# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Reads the OTF2 archive of `module trace` into plain Python objects.

The archive's timestamps are already on one clock (the module aligns them); times here are
seconds from the start of the trace. Messages are matched send to receive in order per
(sender, receiver, communicator, tag), which is MPI's non-overtaking rule.
"""

import collections
import contextlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .errors import ReportError

ARCHIVE = "traces.otf2"
INCOMPLETE = "INCOMPLETE"

# Routine classes, as the module's `argument trace` names them.
CLASSES = ("p2p", "request", "coll", "rma", "io", "comm", "env")

_COLLECTIVES = {
    "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
    "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter",
    "Reduce_scatter_block", "Scan", "Exscan",
}
_REQUEST = {"Wait", "Waitall", "Waitany", "Waitsome", "Test", "Testall", "Testany", "Testsome",
            "Cancel", "Request_free"}
_RMA = {"Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op", "Compare_and_swap"}


class TraceError(ReportError):
    """A trace that cannot be read; the message says why and what to do."""


# "[OTF2] src/OTF2_Buffer.c:2218: error: Invalid or inconsistent record data: ..."
_OTF2_MESSAGE = re.compile(r"^\[OTF2\] [^ ]*: (?:error|warning): (.*)$", re.M)


@contextlib.contextmanager
def _otf2_messages():
    """Keeps what the OTF2 library prints on stderr (several lines per problem) off the
    terminal; yields a list that holds its messages once the block is left."""
    import sys
    messages = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as f:
        os.dup2(f.fileno(), 2)
        try:
            yield messages
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            f.seek(0)
            messages.extend(_OTF2_MESSAGE.findall(f.read().decode("utf-8", "replace")))


def _damaged(anchor, error, messages):
    """The TraceError for an archive the OTF2 library refused, with its first message (the
    cause; the later ones are the callers giving up)."""
    cause = messages[0] if messages else str(error)
    return TraceError(f"{anchor}: cannot be read as OTF2 (a file of the archive is damaged, "
                      f"cut or missing): {cause}")


def routine_class(name: str) -> str:
    """The class of routine `name` ("MPI_Send" -> "p2p")."""
    base = name[4:] if name.startswith("MPI_") else name
    if base.startswith("File_"):
        return "io"
    if base in _COLLECTIVES or base.lstrip("I") in _COLLECTIVES:
        return "coll"
    if base in _REQUEST:
        return "request"
    if base in _RMA or (base.startswith("Win_") and base not in
                        ("Win_create", "Win_allocate", "Win_free")):
        return "rma"
    if base.startswith(("Comm_", "Cart_", "Win_", "Group_", "Intercomm_")):
        return "comm"
    if base in ("Init", "Init_thread", "Finalize"):
        return "env"
    return "p2p"


@dataclass
class Region:
    rank: int
    thread: int
    routine: str
    cls: str
    start: float
    end: float
    tool: bool = False  # a module above the trace made this call (call origin)
    view: Optional[dict] = None  # MPI_File_set_view: its MPI-IO::* attributes


@dataclass
class Message:
    sender: int        # world ranks
    receiver: int
    tag: int
    size: int
    comm: str
    send_routine: str
    send_time: float   # when the send was issued (its event)
    send_start: float  # the region that issued it
    send_end: float    # blocking send: its leave; nonblocking: its completion
    blocking: bool
    send_region_end: Optional[float] = None  # the end of the call that issued it
    tool: bool = False  # sent by a module above the trace (call origin), not the application
    recv_routine: str = ""
    recv_time: Optional[float] = None  # when the receive completed
    recv_start: Optional[float] = None  # the region in which it completed


@dataclass
class IoOp:
    rank: int
    routine: str
    file: str
    mode: str          # "read" or "write"
    requested: int
    done: Optional[int]
    offset: Optional[int]
    collective: bool
    nonblocking: bool
    matching_id: int
    begin: float
    complete: Optional[float] = None
    issued: Optional[float] = None


@dataclass
class Collective:
    rank: int
    routine: str
    comm: str
    root: Optional[int]
    sent: int
    received: int
    start: float
    end: float


@dataclass
class Trace:
    path: str
    ranks: int
    hosts: List[str]
    start: float = 0.0
    end: float = 0.0
    regions: List[Region] = field(default_factory=list)
    messages: List[Message] = field(default_factory=list)
    io_ops: List[IoOp] = field(default_factory=list)
    collectives: List[Collective] = field(default_factory=list)
    flushes: List[tuple] = field(default_factory=list)  # (rank, start, end)
    io_handles: Dict[str, int] = field(default_factory=dict)  # file -> handles opened
    events: Dict[int, list] = field(default_factory=dict)  # rank -> [(time, kind, fields)]
    properties: Dict[str, str] = field(default_factory=dict)
    unmatched_sends: int = 0
    unmatched_receives: int = 0


def archive_path(trace_dir: str) -> str:
    """The anchor file of the archive in `trace_dir` (or `trace_dir` itself if it is one);
    raises TraceError, naming the problem, for a missing or incomplete trace."""
    if os.path.isfile(trace_dir) and trace_dir.endswith(".otf2"):
        trace_dir = os.path.dirname(trace_dir) or "."
    if not os.path.isdir(trace_dir):
        raise TraceError(f"{trace_dir}: no such directory; give the directory named by "
                         "'argument output' of module trace")
    marker = os.path.join(trace_dir, INCOMPLETE)
    if os.path.exists(marker):
        raw = os.path.join(trace_dir, "raw")
        chunks = sorted(os.listdir(raw)) if os.path.isdir(raw) else []
        raise TraceError(
            f"{trace_dir}: the trace is incomplete: the job did not reach MPI_Finalize (it was "
            f"killed, failed, or is still running), so no OTF2 archive was written; "
            f"{len(chunks)} raw spill file(s) are in {raw} (see {marker})")
    anchor = os.path.join(trace_dir, ARCHIVE)
    if not os.path.isfile(anchor):
        raise TraceError(f"{trace_dir}: no {ARCHIVE}: not the output directory of module trace")
    return anchor


def _rank_of_location(location) -> int:
    name = location.group.name
    number = name[len("MPI Rank "):] if name.startswith("MPI Rank ") else ""
    if number.isdigit() and len(number) <= 9:
        return int(number)
    raise TraceError(f"location group '{name}' is not an MPI rank of module trace")


def _thread_of_location(location) -> int:
    if location.name == "Master thread":
        return 0
    number = location.name.split()[-1] if location.name.split() else ""
    if number.isdigit() and len(number) <= 9:
        return int(number)
    raise TraceError(f"location '{location.name}' is not a thread of module trace")


def _flags(value) -> int:
    """A bit set as the bindings give it (an int, an enum, or its bytes)."""
    if isinstance(value, (bytes, bytearray)):
        return int.from_bytes(value, "little")
    return int(getattr(value, "value", value))


def read(trace_dir: str) -> Trace:
    """Reads the trace in `trace_dir`."""
    anchor = archive_path(trace_dir)
    try:
        import otf2  # Debian's python3-otf2; /usr/bin/python3
        import otf2.error
        import _otf2.ErrorCodes
    except ImportError as e:
        raise TraceError(f"cannot import the OTF2 Python bindings ({e}): install python3-otf2 "
                         "and run with /usr/bin/python3") from e
    error = None
    with _otf2_messages() as messages:
        try:
            return _read(anchor)
        except TraceError as e:
            error = TraceError(f"{anchor}: {e}")
        except (otf2.error.Error, _otf2.ErrorCodes.Error, ValueError, OSError) as e:
            # Raised by the bindings on a damaged archive (ValueError: a field out of range
            # for its type); raised after the block, once OTF2's messages are in.
            error = e
    if isinstance(error, TraceError):
        raise error
    raise _damaged(anchor, error, messages) from error


def _read(anchor):
    import otf2
    from otf2 import events as ev
    with otf2.reader.open(anchor) as reader:
        defs = reader.definitions
        clock = defs.clock_properties
        resolution = float(clock.timer_resolution)
        offset = clock.global_offset

        def seconds(t):
            return (t - offset) / resolution

        groups = sorted({_rank_of_location(loc) for loc in defs.locations})
        ranks = (max(groups) + 1) if groups else 0
        hosts = [""] * ranks
        for loc in defs.locations:
            hosts[_rank_of_location(loc)] = loc.group.system_tree_parent.name

        def world_of(comm, rank_in_comm):
            members = comm.group.members
            if rank_in_comm is None or rank_in_comm >= len(members):
                return None
            return _rank_of_location(members[rank_in_comm])

        trace = Trace(path=anchor, ranks=ranks, hosts=hosts)
        try:  # the bindings have no reader of the archive's properties but the C API's
            import _otf2
            trace.properties = {name: _otf2.Reader_GetProperty(reader.handle, name)
                                for name in _otf2.Reader_GetPropertyNames(reader.handle)}
        except Exception:
            trace.properties = {}
        stacks = collections.defaultdict(list)        # location -> open regions
        last_region = {}                              # location -> Region just closed
        sends = collections.defaultdict(collections.deque)
        receives = collections.defaultdict(collections.deque)
        isends = {}                                   # (rank, request) -> Message
        io_pending = {}                               # (rank, matching id) -> IoOp
        nbc_pending = {}                              # (rank, request id) -> (routine, start)
        latest = 0.0
        for location, event in reader.events:
            rank = _rank_of_location(location)
            t = seconds(event.time)
            latest = max(latest, t)
            name = type(event).__name__
            trace.events.setdefault(rank, []).append((t, name, event))
            stack = stacks[location]
            if isinstance(event, ev.Enter):
                attrs = {a.name: v for a, v in event.attributes.items()} if event.attributes \
                    else {}
                region = Region(rank, _thread_of_location(location), event.region.name,
                                routine_class(event.region.name), t, t,
                                bool(attrs.get("pnmpi::origin", 0)))
                stack.append(region)
                if event.region.name == "MPI_File_set_view":
                    region.view = attrs
            elif isinstance(event, ev.Leave):
                if stack:
                    region = stack.pop()
                    region.end = t
                    trace.regions.append(region)
                    last_region[location] = region
            elif isinstance(event, (ev.MpiSend, ev.MpiIsend)):
                region = stack[-1] if stack else None
                peer = world_of(event.communicator, event.receiver)
                blocking = isinstance(event, ev.MpiSend)
                m = Message(rank, peer, event.msg_tag, event.msg_length, event.communicator.name,
                            region.routine if region else "", t, region.start if region else t,
                            t, blocking)
                m.tool = bool(region and region.tool)
                m._region = region  # type: ignore[attr-defined]
                if blocking:
                    m.send_end = None  # set at the region's leave, below
                else:
                    isends[(rank, event.request_id)] = m
                sends[(rank, peer, event.communicator.name, event.msg_tag)].append(m)
                trace.messages.append(m)
            elif isinstance(event, ev.MpiIsendComplete):
                m = isends.pop((rank, event.request_id), None)
                if m is not None:
                    m.send_end = t
            elif isinstance(event, (ev.MpiRecv, ev.MpiIrecv)):
                region = stack[-1] if stack else None
                peer = world_of(event.communicator, event.sender)
                receives[(peer, rank, event.communicator.name, event.msg_tag)].append(
                    (t, region.start if region else t, region.routine if region else "",
                     event.msg_length))
            elif isinstance(event, ev.MpiCollectiveEnd):
                region = stack[-1] if stack else None
                root = None
                if event.communicator is not None and event.root is not None and \
                        event.root != 0xFFFFFFFF:
                    root = world_of(event.communicator, event.root)
                trace.collectives.append(Collective(
                    rank, region.routine if region else "",
                    event.communicator.name if event.communicator else "", root,
                    event.size_sent, event.size_received, region.start if region else t, t))
            elif isinstance(event, ev.NonBlockingCollectiveRequest):
                region = stack[-1] if stack else None
                nbc_pending[(rank, event.request_id)] = (
                    region.routine if region else "", region.start if region else t)
            elif isinstance(event, ev.NonBlockingCollectiveComplete):
                # A nonblocking collective spans from its starting call to its completion.
                routine, start = nbc_pending.pop((rank, event.request_id), ("", t))
                root = None
                if event.communicator is not None and event.root is not None and \
                        event.root != 0xFFFFFFFF:
                    root = world_of(event.communicator, event.root)
                trace.collectives.append(Collective(
                    rank, routine, event.communicator.name if event.communicator else "", root,
                    event.size_sent, event.size_received, start, t))
            elif isinstance(event, ev.IoOperationBegin):
                attrs = {a.name: v for a, v in event.attributes.items()} if event.attributes \
                    else {}
                region = stack[-1] if stack else None
                flags = _flags(event.operation_flags)
                op = IoOp(rank, region.routine if region else "", event.handle.file.name,
                          "write" if _flags(event.mode) == 1 else "read", event.bytes_request, None,
                          attrs.get("MPI-IO::offset"), bool(flags & 2), bool(flags & 1),
                          event.matching_id, t)
                io_pending[(rank, event.matching_id)] = op
                trace.io_ops.append(op)
            elif isinstance(event, ev.IoOperationIssued):
                op = io_pending.get((rank, event.matching_id))
                if op is not None:
                    op.issued = t
            elif isinstance(event, ev.IoOperationComplete):
                op = io_pending.pop((rank, event.matching_id), None)
                if op is not None:
                    op.complete = t
                    op.done = event.bytes_result
            elif isinstance(event, ev.IoCreateHandle):
                path = event.handle.file.name
                trace.io_handles[path] = trace.io_handles.get(path, 0) + 1
            elif isinstance(event, ev.BufferFlush):
                trace.flushes.append((rank, t, seconds(event.stop_time)))
        trace.end = latest
    for m in trace.messages:
        region = getattr(m, "_region", None)
        if region is not None:
            m.send_region_end = region.end
            if m.blocking:
                m.send_end = region.end
        if hasattr(m, "_region"):
            del m._region
    for key, queue in sends.items():
        got = receives.get(key, collections.deque())
        for m in queue:
            if not got:
                trace.unmatched_sends += 1
                continue
            m.recv_time, m.recv_start, m.recv_routine, _ = got.popleft()
        trace.unmatched_receives += len(got)
    for key, got in receives.items():
        if key not in sends:
            trace.unmatched_receives += len(got)
    trace.regions.sort(key=lambda r: (r.rank, r.thread, r.start))
    return trace
