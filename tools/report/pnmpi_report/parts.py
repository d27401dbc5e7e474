# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The per-process part files of a job (docs/record.md) merged into a job record.

The profile and the monitor keep their counters in DIR/pnmpi-JOB.HOST.PID.part from
MPI_Init on (support/include/pnmpi/support.h: pnmpi_part_header_t;
modules/profile/record_writer.h: the "profile" region; modules/monitor/part_region.h: the
"monitor" region, the point-to-point row and the collectives per communicator). A finalized job removes them; a job that never finalized leaves
them, and merge_parts() turns them into a Record marked incomplete, saying per rank how
it ended."""

import glob
import os

import numpy as np

from . import record
from .errors import ReportError

HEADER = np.dtype([
    ("magic", "S8"), ("version", "<u4"), ("header_bytes", "<u4"), ("rank", "<i4"),
    ("size", "<i4"), ("pid", "<u4"), ("state", "<u4"), ("detail", "<i4"),
    ("region_count", "<u4"), ("file_bytes", "<u8"), ("init_real_ns", "<u8"),
    ("init_mono_ns", "<u8"), ("init_tick", "<u8"), ("end_real_ns", "<u8"),
    ("end_mono_ns", "<u8"), ("end_tick", "<u8"), ("ticks_per_ns", "<f8"), ("host", "S64"),
    ("job_id", "S128"), ("user", "S64"), ("executable", "S1024"),
    ("regions", [("name", "S32"), ("offset", "<u8"), ("bytes", "<u8"), ("version", "<u4"),
                 ("reserved", "<u4"), ("reserved2", "<u8")], (16,))])
REGION = np.dtype([("routines", "<u4"), ("max_threads", "<u4"), ("threads", "<u4"),
                   ("name_bytes", "<u4"), ("lost_calls", "<u8"), ("names_offset", "<u8"),
                   ("cells_offset", "<u8"), ("reserved", "<u8", (3,))])
CELL = np.dtype([("calls", "<u8"), ("ticks", "<u8"), ("min", "<u8"), ("max", "<u8"),
                 ("bytes", "<u8")])
MAGIC = b"PNMPIPRT"
PART_VERSION = 1
REGION_VERSION = 1
SPLIT = np.dtype([("slots", "<u4"), ("max_threads", "<u4"), ("slot_bytes", "<u4"),
                  ("pad", "<u4"), ("lost_calls", "<u8"), ("slots_offset", "<u8"),
                  ("reserved", "<u8", (4,))])
SLOT = np.dtype([("routine_plus1", "<u4"), ("comm_size", "<u4"), ("bin", "<u4"),
                 ("app", "<u4"), ("calls", "<u8"), ("ticks", "<u8"), ("bytes", "<u8")])
MONITOR = np.dtype([
    ("magic", "S8"), ("version", "<u4"), ("world_size", "<u4"), ("world_rank", "<i4"),
    ("hist_bins", "<u4"), ("peer_stride", "<u4"), ("peer_count_at", "<u4"),
    ("peer_bytes_at", "<u4"), ("comm_slots", "<u4"), ("comm_used", "<u4"),
    ("comm_lost", "<u4"), ("member_capacity", "<u4"), ("members_used", "<u4"),
    ("coll_stride", "<u4"), ("coll_count_at", "<u4"), ("coll_bytes_at", "<u4"),
    ("coll_classes", "<u4"), ("peers_at", "<u8"), ("hist_at", "<u8"),
    ("comm_meta_at", "<u8"), ("comms_at", "<u8"), ("members_at", "<u8"),
    ("reserved", "<u8", (4,))])
# Version 2 appends the slots of the per-thread point-to-point counters (ThreadPeer) of
# senders under MPI_THREAD_MULTIPLE; version 1 (64 communicator slots, no thread slots) is
# still read.
MONITOR_V2 = np.dtype(MONITOR.descr + [
    ("thread_slots", "<u4"), ("thread_used", "<u4"), ("thread_lost", "<u4"),
    ("thread_stride", "<u4"), ("thread_key_at", "<u4"), ("thread_bins_at", "<u4"),
    ("thread_bytes_at", "<u4"), ("thread_bins", "<u4"), ("threads_at", "<u8"),
    ("reserved2", "<u8", (3,))])
COMM_META = np.dtype([("size", "<u4"), ("rank", "<i4"), ("first_member", "<u4"),
                      ("reserved", "<u4")])
MONITOR_VERSIONS = (1, 2)
MONITOR_VERSION = MONITOR_VERSIONS[-1]
EXCLUDED = ("MPI_Init", "MPI_Init_thread", "MPI_Finalize")


HOSTS = np.dtype([("ranks", "<u4"), ("hosts", "<u4"), ("name_bytes", "<u4"),
                  ("reserved", "<u4")])


def part_files(directory):
    """The part files in `directory`, or in each of a list of directories (the node-local
    directories of a multi-node job), each file once."""
    if not isinstance(directory, str):
        seen, out = set(), []
        for d in directory:
            for f in part_files(d):
                if os.path.realpath(f) not in seen:
                    seen.add(os.path.realpath(f))
                    out.append(f)
        return out
    return sorted(glob.glob(os.path.join(glob.escape(directory), "pnmpi-*.part")))


def _text(b):
    return b.split(b"\0", 1)[0].decode("utf-8", "replace")


class Part:
    """One process's part file, read."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                data = f.read()
            self.mtime_ns = os.stat(path).st_mtime_ns
        except OSError as e:
            raise ReportError("cannot read: %s" % e.strerror, path)
        if len(data) < HEADER.itemsize or data[:8] != MAGIC:
            raise ReportError("not a pnmpi part file (no PNMPIPRT header, or truncated)", path)
        h = np.frombuffer(data, HEADER, 1)[0]
        if int(h["version"]) != PART_VERSION:
            raise ReportError("part file version %d is not supported (this pnmpi-report "
                              "reads version %d)" % (int(h["version"]), PART_VERSION), path)
        self.h = h
        self.rank, self.size = int(h["rank"]), int(h["size"])
        self.state, self.detail = int(h["state"]), int(h["detail"])
        self.host, self.job_id = _text(h["host"]), _text(h["job_id"])
        self.user, self.executable = _text(h["user"]), _text(h["executable"])
        if self.state > record.EXITED:
            raise ReportError("damaged part file: state %d" % self.state, path)
        self.names, self.app, self.tool, self.lost, self.split = [], None, None, 0, None
        self.p2p, self.comms, self.comms_lost, self.comm_slots = None, [], 0, 0
        self.threads_lost, self.thread_slots, self.monitor = 0, 0, None
        for k in range(min(int(h["region_count"]), 16)):
            reg = h["regions"][k]
            if _text(reg["name"]) == "profile" and int(reg["version"]) == REGION_VERSION:
                self._profile(data, int(reg["offset"]), int(reg["bytes"]))
            elif _text(reg["name"]) == "monitor":
                if int(reg["version"]) not in MONITOR_VERSIONS:
                    raise ReportError("monitor region version %d is not supported (this "
                                      "pnmpi-report reads versions 1 to %d)"
                                      % (int(reg["version"]), MONITOR_VERSION), path)
                self._monitor(data, int(reg["offset"]), int(reg["bytes"]), int(reg["version"]))
        for k in range(min(int(h["region_count"]), 16)):
            reg = h["regions"][k]
            if _text(reg["name"]) == "profile_split" and self.app is not None:
                self._split(data, int(reg["offset"]))
        self.rank_hosts = None
        for k in range(min(int(h["region_count"]), 16)):
            reg = h["regions"][k]
            if _text(reg["name"]) == "hosts" and int(reg["version"]) == 1:
                self._hosts(data, int(reg["offset"]))

    def _hosts(self, data, offset):
        """The host of every rank, as the profile noted them at MPI_Init (a list of names,
        by world rank), or None when the table is not whole yet."""
        if offset + HOSTS.itemsize > len(data):
            raise ReportError("truncated part file: the hosts region ends after the file",
                              self.path)
        t = np.frombuffer(data, HOSTS, 1, offset)[0]
        ranks, hosts, nb = int(t["ranks"]), int(t["hosts"]), int(t["name_bytes"])
        if ranks == 0:
            return
        at = offset + HOSTS.itemsize
        if nb != 64 or hosts > ranks or ranks > record.MAX_RANKS or \
                at + hosts * nb + 4 * ranks > len(data):
            raise ReportError("damaged part file: the hosts region does not fit", self.path)
        names = [_text(data[at + k * nb:at + (k + 1) * nb]) for k in range(hosts)]
        index = np.frombuffer(data, "<u4", ranks, at + hosts * nb)
        if len(index) and int(index.max()) >= hosts:
            raise ReportError("damaged part file: the hosts region does not fit", self.path)
        self.rank_hosts = [names[int(i)] for i in index]

    def _split(self, data, offset):
        if offset + SPLIT.itemsize > len(data):
            raise ReportError("truncated part file: the split region ends after the file",
                              self.path)
        s = np.frombuffer(data, SPLIT, 1, offset)[0]
        n, at = int(s["slots"]), offset + int(s["slots_offset"])
        threads = len(self.app)
        if int(s["slot_bytes"]) != SLOT.itemsize or at + threads * n * SLOT.itemsize > len(data):
            raise ReportError("damaged part file: the split region does not fit", self.path)
        slots = np.frombuffer(data, SLOT, threads * n, at)
        self.split = slots[(slots["routine_plus1"] > 0) & (slots["app"] == 1)]

    def _profile(self, data, offset, size):
        if offset + REGION.itemsize > len(data) or offset + size > len(data):
            raise ReportError("truncated part file: the profile region ends after the file",
                              self.path)
        r = np.frombuffer(data, REGION, 1, offset)[0]
        n, threads = int(r["routines"]), min(int(r["threads"]), int(r["max_threads"]))
        nb = int(r["name_bytes"])
        names_at, cells_at = offset + int(r["names_offset"]), offset + int(r["cells_offset"])
        need = cells_at + threads * 2 * n * CELL.itemsize
        if n > record.MAX_ROUTINES or nb > 256 or need > len(data) or \
                names_at + n * nb > len(data):
            raise ReportError("damaged part file: the profile region does not fit", self.path)
        self.names = [_text(data[names_at + k * nb:names_at + (k + 1) * nb]) for k in range(n)]
        cells = np.frombuffer(data, CELL, threads * 2 * n, cells_at).reshape(threads, 2, n)
        self.app, self.tool = cells[:, 0, :], cells[:, 1, :]
        self.lost = int(r["lost_calls"])

    def _monitor(self, data, offset, size, version):
        """The monitor's application traffic: self.p2p (peers, counts, bytes) and
        self.comms [(members, count, bytes)], counted up to the process's end."""
        layout = MONITOR_V2 if version >= 2 else MONITOR
        if offset + layout.itemsize > len(data) or offset + size > len(data):
            raise ReportError("truncated part file: the monitor region ends after the file",
                              self.path)
        m = np.frombuffer(data, layout, 1, offset)[0]
        self.monitor = m
        world, bins = int(m["world_size"]), int(m["hist_bins"])
        stride, cstride = int(m["peer_stride"]), int(m["coll_stride"])
        slots, used = int(m["comm_slots"]), min(int(m["comm_used"]), int(m["comm_slots"]))
        classes, capacity = int(m["coll_classes"]), int(m["member_capacity"])
        ends = (int(m["peers_at"]) + world * stride, int(m["hist_at"]) + world * 2 * bins * 8,
                int(m["comm_meta_at"]) + slots * COMM_META.itemsize,
                int(m["comms_at"]) + slots * cstride, int(m["members_at"]) + capacity * 4)
        if m["magic"] != b"PNMPIMON" or world > record.MAX_RANKS or bins > 66 or \
                classes > 8 or stride < 8 or max(ends) > size or \
                max(int(m["peer_count_at"]), int(m["peer_bytes_at"])) + 8 > stride or \
                max(int(m["coll_count_at"]), int(m["coll_bytes_at"])) + 8 * classes > cstride:
            raise ReportError("damaged part file: the monitor region does not fit", self.path)
        raw = np.frombuffer(data, np.uint8, world * stride, offset + int(m["peers_at"]))
        peers = raw.reshape(world, stride) if world else raw.reshape(0, max(stride, 1))

        def column(at):
            return peers[:, at:at + 8].copy().view("<u8").reshape(world)
        count = column(int(m["peer_count_at"]))
        nbytes = column(int(m["peer_bytes_at"]))
        if bins:
            hist = np.frombuffer(data, "<u8", world * 2 * bins,
                                 offset + int(m["hist_at"])).reshape(world, 2, bins)
            count = count + hist[:, 0, :].sum(axis=1)
        if version >= 2:
            count, nbytes = self._threads(data, offset, size, m, count, nbytes)
        has = np.nonzero((count > 0) | (nbytes > 0))[0]
        self.p2p = (has.astype(np.int64), count[has], nbytes[has])
        metas = np.frombuffer(data, COMM_META, slots, offset + int(m["comm_meta_at"]))
        members = np.frombuffer(data, "<i4", capacity, offset + int(m["members_at"]))
        for k in range(used):
            meta = metas[k]
            first, n = int(meta["first_member"]), int(meta["size"])
            if first + n > capacity:
                raise ReportError("damaged part file: communicator %d's members do not fit" % k,
                                  self.path)
            at = offset + int(m["comms_at"]) + k * cstride
            c = np.frombuffer(data, "<u8", classes, at + int(m["coll_count_at"]))
            b = np.frombuffer(data, "<u8", classes, at + int(m["coll_bytes_at"]))
            ranks = members[first:first + n].astype(np.int64)
            if n and (ranks.min() < 0 or ranks.max() >= world):
                raise ReportError("damaged part file: communicator %d has ranks outside the "
                                  "world" % k, self.path)
            self.comms.append((tuple(int(x) for x in ranks), int(c.sum()), int(b.sum())))
        self.comms_lost, self.comm_slots = int(m["comm_lost"]), slots

    def _threads(self, data, offset, size, m, count, nbytes):
        """Adds the per-thread counters of a version 2 region (each slot: its peer's world
        rank + 1, messages by size bin, bytes) to the peers' rows `count` and `nbytes`."""
        world, slots = int(m["world_size"]), int(m["thread_slots"])
        used, stride = min(int(m["thread_used"]), slots), int(m["thread_stride"])
        bins, key_at = int(m["thread_bins"]), int(m["thread_key_at"])
        bins_at, bytes_at = int(m["thread_bins_at"]), int(m["thread_bytes_at"])
        if bins > 66 or stride < 24 or int(m["threads_at"]) + slots * stride > size or \
                max(key_at, bytes_at) + 8 > stride or bins_at + 8 * bins > stride:
            raise ReportError("damaged part file: the monitor region does not fit", self.path)
        self.threads_lost, self.thread_slots = int(m["thread_lost"]), slots
        if used == 0:
            return count, nbytes
        raw = np.frombuffer(data, np.uint8, used * stride, offset + int(m["threads_at"]))
        rows = raw.reshape(used, stride)

        def column(at, n=1):
            return rows[:, at:at + 8 * n].copy().view("<u8").reshape(used, n)
        peer = column(key_at)[:, 0].astype(np.int64) - 1
        if peer.min() < 0 or peer.max() >= world:
            raise ReportError("damaged part file: a thread's counters name a rank outside "
                              "the world", self.path)
        count, nbytes = count.copy(), nbytes.copy()
        np.add.at(count, peer, column(bins_at, bins).sum(axis=1))
        np.add.at(nbytes, peer, column(bytes_at)[:, 0])
        return count, nbytes

    def ticks_per_ns(self):
        h = self.h
        span = int(h["end_mono_ns"]) - int(h["init_mono_ns"])
        if self.state != record.RUNNING and span > 1e6 and int(h["end_tick"]) > int(h["init_tick"]):
            return (int(h["end_tick"]) - int(h["init_tick"])) / span
        t = float(h["ticks_per_ns"])
        return t if t > 0 else 1.0

    def wall_s(self, job_end_s):
        """MPI_Init to the mark; for a rank killed without one, to `job_end_s`."""
        h = self.h
        if self.state != record.RUNNING:
            return max(0, int(h["end_mono_ns"]) - int(h["init_mono_ns"])) / 1e9
        return max(0.0, job_end_s - int(h["init_real_ns"]) / 1e9)

    def end_real_s(self):
        """The mark's time, or None for a rank killed without one."""
        return int(self.h["end_real_ns"]) / 1e9 if self.state != record.RUNNING else None


def merge_parts(directory, job=None):
    """A Record (ended 'incomplete' unless every rank finalized) from the part files in
    `directory`, or in a list of directories (one per node of a multi-node job); `job`
    picks one job when they hold parts of several."""
    files = part_files(directory)
    if not isinstance(directory, str):
        # Errors name the first directory that holds parts; the record is named there.
        directory = os.path.dirname(files[0]) if files else " ".join(directory)
    if not files:
        raise ReportError("no job record (pnmpi-*.record.npz) and no part files "
                          "(pnmpi-*.part) here", directory)
    parts = [Part(p) for p in files]
    jobs = sorted({p.job_id for p in parts})
    if job is not None:
        parts = [p for p in parts if p.job_id == job]
        if not parts:
            raise ReportError("no part file of job %r (jobs here: %s)" % (job, ", ".join(jobs)),
                              directory)
    elif len(jobs) > 1:
        raise ReportError("part files of %d jobs here (%s): give one job's directory"
                          % (len(jobs), ", ".join(jobs)), directory)
    notes = []
    started = [p for p in parts if p.rank >= 0]
    for p in parts:
        if p.rank < 0:
            notes.append("%s: the process never finished MPI_Init" % os.path.basename(p.path))
    if not started:
        raise ReportError("no part file got past MPI_Init", directory)
    size = max(p.size for p in started)
    if size <= 0 or size > record.MAX_RANKS or any(p.rank >= size for p in started):
        raise ReportError("damaged part files: world sizes and ranks disagree", directory)
    by_rank = {}
    for p in started:
        if p.rank in by_rank:
            raise ReportError("two part files of rank %d: %s and %s"
                              % (p.rank, by_rank[p.rank].path, p.path), directory)
        by_rank[p.rank] = p
    missing = [r for r in range(size) if r not in by_rank]
    notes += _missing_notes(missing, started, size)
    names = []
    for p in started:
        if p.names:
            names = p.names
            break
    used = np.zeros(len(names), dtype=bool)
    for p in started:
        if p.app is not None and len(p.names) == len(names):
            used |= (p.app["calls"].sum(axis=0) > 0) | (p.tool["calls"].sum(axis=0) > 0)
    cols = np.nonzero(used)[0]
    routines = [names[c] for c in cols]
    a = record.empty_arrays(size, routines)
    a["rank_state"][:] = record.RUNNING
    hosts = []
    first = min(started, key=lambda p: p.rank)
    starts = []
    ends = [p.end_real_s() for p in started if p.end_real_s() is not None]
    # A rank killed without a mark ended before the last mark of another rank (the
    # launcher kills the others when one dies), else at its part file's last change.
    job_end = max(ends) if ends else max(p.mtime_ns for p in started) / 1e9
    if any(p.state == record.RUNNING for p in started):
        notes.append("ranks without a mark: wall time taken up to %s" %
                     ("the last mark of another rank (an upper bound)" if ends else
                      "their part file's last change"))
    mins = np.full(len(cols), np.inf)
    maxs = np.zeros(len(cols))
    keep = np.array([routines[k] not in EXCLUDED for k in range(len(cols))], dtype=bool)
    for r, p in by_rank.items():
        if p.host not in hosts:
            hosts.append(p.host)
        a["rank_host"][r] = hosts.index(p.host)
        a["rank_state"][r] = p.state
        if p.state == record.SIGNALED:
            a["rank_signal"][r] = p.detail
        elif p.state == record.ABORTED:
            a["rank_code"][r] = p.detail
        a["wall_s"][r] = p.wall_s(job_end)
        starts.append(int(p.h["init_real_ns"]) / 1e9)
        if p.app is None or len(p.names) != len(names):
            continue
        s = 1e-9 / p.ticks_per_ns()
        app, tool = p.app[:, cols], p.tool[:, cols]
        a["calls"][r] = app["calls"].sum(axis=0)
        a["bytes"][r] = app["bytes"].sum(axis=0)
        a["time_s"][r] = app["ticks"].sum(axis=0) * s
        a["tool_calls"][r] = tool["calls"].sum(axis=0)
        a["tool_bytes"][r] = tool["bytes"].sum(axis=0)
        a["tool_time_s"][r] = tool["ticks"].sum(axis=0) * s
        a["mpi_s"][r] = float((app["ticks"].sum(axis=0) * s)[keep].sum())
        a["wall_s"][r] = max(float(a["wall_s"][r]), float(a["mpi_s"][r]))
        has = app["calls"] > 0
        lo = np.where(has, app["min"], np.iinfo(np.uint64).max).min(axis=0) * s
        mins = np.minimum(mins, np.where(has.any(axis=0), lo, np.inf))
        maxs = np.maximum(maxs, app["max"].max(axis=0) * s)
        if p.lost:
            notes.append("rank %d: %d calls of threads beyond the profile's %d were not "
                         "counted" % (r, p.lost, len(p.app)))
    split = {}
    col_of = {int(c): k for k, c in enumerate(cols)}
    for r, p in by_rank.items():
        if p.split is None or len(p.names) != len(names):
            continue
        s = 1e-9 / p.ticks_per_ns()
        for x in p.split:
            c = col_of.get(int(x["routine_plus1"]) - 1)
            if c is None:
                continue
            key = (r, c, int(x["comm_size"]), int(x["bin"]))
            v = split.setdefault(key, [0, 0.0, 0])
            v[0] += int(x["calls"])
            v[1] += int(x["ticks"]) * s
            v[2] += int(x["bytes"])
    keys = sorted(split)
    for k, name in enumerate(("split_rank", "split_routine", "split_comm_size", "split_bin")):
        a[name] = np.array([key[k] for key in keys], dtype=np.int64)
    a["split_calls"] = np.array([split[key][0] for key in keys], dtype=np.uint64)
    a["split_time_s"] = np.array([split[key][1] for key in keys], dtype=np.float64)
    a["split_bytes"] = np.array([split[key][2] for key in keys], dtype=np.uint64)
    _traffic(a, by_rank, size, notes)
    comm_names = a.pop("comm_names")
    a["min_s"] = np.where(np.isfinite(mins), mins, 0)
    a["max_s"] = maxs
    if not hosts:
        hosts = ["unknown"]
    complete = not missing and all(p.state == record.FINALIZED for p in by_rank.values())
    meta = {"job_id": first.job_id, "user": first.user, "executable": first.executable,
            "executable_hash": "", "start": min(starts), "end": job_end, "ranks": size,
            "hosts": hosts, "modules": [], "pnmpi_version": "", "mpi": "",
            "ended": "finalized" if complete else "incomplete", "routines": routines,
            "comm_names": comm_names, "notes": notes}
    path = os.path.join(directory, record.record_name(first.job_id))
    return record.record_from_bytes(record.record_bytes(meta, a), path), meta, a


def _traffic(a, by_rank, size, notes):
    """The monitor's regions into the record's matrix and communicators, as the module's
    record writer builds them (modules/profile/record_writer.cpp): one entry per
    (sender, receiver); communicators with the same members are one, named as there."""
    src, dst, nbytes, count = [], [], [], []
    comm_of, members, names, volume = {}, [], [], {}
    for r in sorted(by_rank):
        p = by_rank[r]
        if p.p2p is None:
            continue
        peers, c, b = p.p2p
        keep = (peers >= 0) & (peers < size)
        src += [r] * int(keep.sum())
        dst += list(peers[keep])
        count += list(c[keep])
        nbytes += list(b[keep])
        for group, cc, bb in p.comms:
            if cc == 0 and bb == 0:
                continue
            if group not in comm_of:
                comm_of[group] = len(names)
                world = group == tuple(range(size))
                names.append("MPI_COMM_WORLD" if world else
                             "group %d (%d ranks)" % (len(names), len(group)))
                members.append(group)
            v = volume.setdefault((comm_of[group], r), [0, 0])
            v[0] += cc
            v[1] += bb
        if p.comms_lost:
            notes.append("rank %d: %d communicators not kept (the monitor's part file keeps "
                         "%d): their collectives are missing" % (r, p.comms_lost, p.comm_slots))
        if p.threads_lost:
            notes.append("rank %d: %d per-thread send counters not kept (the monitor's part "
                         "file keeps %d): those threads' messages to those peers are missing"
                         % (r, p.threads_lost, p.thread_slots))
    a["p2p_src"] = np.array(src, dtype=np.uint32)
    a["p2p_dst"] = np.array(dst, dtype=np.uint32)
    a["p2p_bytes"] = np.array(nbytes, dtype=np.uint64)
    a["p2p_count"] = np.array(count, dtype=np.uint64)
    offsets, flat, cb, cc = [0], [], [], []
    for k, group in enumerate(members):
        for w in group:
            v = volume.get((k, w), [0, 0])
            flat.append(w)
            cc.append(v[0])
            cb.append(v[1])
        offsets.append(len(flat))
    a["comm_offsets"] = np.array(offsets, dtype=np.uint64)
    a["comm_members"] = np.array(flat, dtype=np.uint32)
    a["comm_bytes"] = np.array(cb, dtype=np.uint64)
    a["comm_count"] = np.array(cc, dtype=np.uint64)
    a["comm_names"] = names


def _ranges(ranks):
    out, start = [], None
    for k, r in enumerate(ranks):
        if start is None:
            start = r
        if k + 1 == len(ranks) or ranks[k + 1] != r + 1:
            out.append(str(start) if start == r else "%d-%d" % (start, r))
            start = None
    return ", ".join(out)


def _missing_notes(missing, started, size):
    """What the record says of ranks without a part file: by the host each was expected on
    (the hosts every part notes at MPI_Init), or, without that table, in one note."""
    if not missing:
        return []
    table = next((p.rank_hosts for p in started
                  if p.rank_hosts is not None and len(p.rank_hosts) == size), None)
    if table is None:
        return ["no part file of rank(s) %s (killed before MPI_Init finished, or their "
                "part files are on another node)" % _ranges(missing)]
    by_host = {}
    for r in missing:
        by_host.setdefault(table[r], []).append(r)
    return ["rank%s %s missing (host %s): no part file of %s in the directories given "
            "(the host's node-local parts directory not gathered, or killed before "
            "MPI_Init finished)" % ("s" if len(ranks) > 1 else "", _ranges(ranks), host,
                                    "them" if len(ranks) > 1 else "it")
            for host, ranks in sorted(by_host.items(), key=lambda kv: kv[1][0])]


def read_job(path, job=None):
    """A record file, or a directory: its record if there is one, else its parts merged;
    or a list of directories holding the parts of one job, merged."""
    if not isinstance(path, str):
        return merge_parts(list(path), job)[0]
    if os.path.isdir(path):
        recs = sorted(glob.glob(os.path.join(glob.escape(path), "pnmpi-*.record.npz")))
        if job is not None:
            recs = [r for r in recs if os.path.basename(r) == record.record_name(job)]
        if len(recs) == 1:
            return record.read_record(recs[0])
        if len(recs) > 1:
            raise ReportError("%d job records here: give one file" % len(recs), path)
        return merge_parts(path, job)[0]
    if path.endswith(".part"):
        return merge_parts(os.path.dirname(path) or ".", job)[0]
    return record.read_record(path)
