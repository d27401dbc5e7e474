# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The job record (docs/record.md): reading, writing and checking it.

A record is a numpy `.npz` archive (a zip of `.npy` arrays, written by the profile module
from C++ with zlib, or by write_record() here) holding one job: who ran what, where, how it
ended, time and calls per MPI routine per rank, the sparse point-to-point matrix and the
collectives per communicator. read_record(path) returns a Record; every problem with the
file is one ReportError naming the file and what is wrong.

    from pnmpi_report.record import read_record
    r = read_record("out/pnmpi-1234.record.npz")
    r.job_id, r.ranks, r.ended                 # '1234', 1024, 'finalized'
    r.time_s[:, r.routine_index("MPI_Allreduce")]   # seconds per rank
    r.mpi_fraction()                           # time in MPI / wall time, per rank
"""

import io
import json
import re
import zipfile

import numpy as np

from . import npy
from .errors import ReportError

FORMAT = "pnmpi-record"
VERSION = 1
# Upper bounds that keep a corrupt or hostile file from asking for gigabytes.
MAX_RANKS = 1 << 22
MAX_ROUTINES = 4096
MAX_META_BYTES = 64 << 20

# How a rank ended (rank_state). The part file's state word uses the same numbers.
RUNNING = 0        # no mark: the rank was killed (SIGKILL, a crash that ran no handler)
FINALIZED = 1
SIGNALED = 2       # rank_signal says which signal
ABORTED = 3        # MPI_Abort (rank_code holds its error code)
EXITED = 4         # exit() without MPI_Finalize
STATE_NAMES = {RUNNING: "killed (no mark)", FINALIZED: "finalized", SIGNALED: "signal",
               ABORTED: "MPI_Abort", EXITED: "exit without finalize"}

# Names taken from inputs: routine names are C identifiers; hosts, job ids, users and
# module names printable text without control characters, bounded in length.
_ROUTINE = re.compile(r"MPI_[A-Za-z0-9_]{1,60}\Z")
_TEXT = re.compile(r"[^\x00-\x1f\x7f]{0,4096}\Z")

# The arrays a Record holds: name -> shape in terms of R ranks, F routines, E edges,
# C1 communicators + 1, M members. All are what the reader returns; on disk the
# point-to-point matrix is stored by rows (p2p_offsets, R + 1, and p2p_delta = dst - src)
# and communicator members as differences (comm_delta), which zlib compresses to little.
ARRAYS = {
    "rank_host": ("R",), "rank_state": ("R",), "rank_signal": ("R",), "rank_code": ("R",),
    "wall_s": ("R",), "mpi_s": ("R",), "calls": ("R", "F"), "time_s": ("R", "F"),
    "bytes": ("R", "F"), "tool_calls": ("R", "F"), "tool_time_s": ("R", "F"),
    "tool_bytes": ("R", "F"), "min_s": ("F",), "max_s": ("F",), "p2p_src": ("E",),
    "p2p_dst": ("E",), "p2p_bytes": ("E",), "p2p_count": ("E",), "comm_offsets": ("C1",),
    "comm_members": ("M",), "comm_bytes": ("M",), "comm_count": ("M",),
    # argument split on: the application's calls per (rank, routine, communicator size,
    # message-size bin: 0 for 0 bytes, else floor(log2(bytes)) + 1). Absent: empty.
    "split_rank": ("S",), "split_routine": ("S",), "split_comm_size": ("S",),
    "split_bin": ("S",), "split_calls": ("S",), "split_time_s": ("S",), "split_bytes": ("S",),
}
OPTIONAL = ("split_rank", "split_routine", "split_comm_size", "split_bin", "split_calls",
            "split_time_s", "split_bytes")

_DTYPES = {
    "rank_host": np.uint32, "rank_state": np.uint8, "rank_signal": np.uint8,
    "rank_code": np.int32, "wall_s": np.float32, "mpi_s": np.float32, "calls": np.uint64,
    "time_s": np.float32, "bytes": np.uint64, "tool_calls": np.uint64,
    "tool_time_s": np.float32, "tool_bytes": np.uint64, "min_s": np.float32,
    "max_s": np.float32, "p2p_src": np.uint32, "p2p_dst": np.uint32, "p2p_bytes": np.uint64,
    "p2p_count": np.uint64, "comm_offsets": np.uint64, "comm_members": np.uint32,
    "comm_bytes": np.uint64, "comm_count": np.uint64,
    "split_rank": np.uint32, "split_routine": np.uint32, "split_comm_size": np.uint32,
    "split_bin": np.uint8, "split_calls": np.uint64, "split_time_s": np.float32,
    "split_bytes": np.uint64,
    # on disk only
    "p2p_offsets": np.uint64, "p2p_delta": np.int32, "comm_delta": np.int32,
}
_DERIVED = ("p2p_src", "p2p_dst", "comm_members")
STORED = [k for k in ARRAYS if k not in _DERIVED] + ["p2p_offsets", "p2p_delta",
                                                     "comm_delta"]
# Times are float32 with the mantissa rounded to this many bits (relative error below
# 2**-(bits+1)): the noise below that costs most of a record's size and means nothing.
TIME_BITS = 12
WALL_BITS = 16

META_KEYS = {
    "format": str, "version": int, "job_id": str, "user": str, "executable": str,
    "executable_hash": str, "start": (int, float), "end": (int, float), "ranks": int,
    "hosts": list, "modules": list, "pnmpi_version": str, "mpi": str, "ended": str,
    "routines": list, "comm_names": list,
}


class Record:
    """One job. Per-rank arrays have `ranks` rows; per-routine columns follow `routines`.

    Attributes (all set by read_record):
      path, version, job_id, user, executable, executable_hash ('crc32:HEX:SIZE'),
      start, end (Unix seconds), ranks, hosts (list), rank_host (index into hosts),
      modules (the config's module lines), pnmpi_version, mpi (library version string),
      ended ('finalized' or 'incomplete'), rank_state/rank_signal/rank_code (per rank,
      STATE_* above), wall_s (MPI_Init to MPI_Finalize, or to the end mark),
      mpi_s (seconds in MPI routines other than init/finalize), routines (names),
      calls/time_s/bytes [rank, routine] of the application, tool_calls/tool_time_s/
      tool_bytes of the modules above the profile, min_s/max_s per routine (one call,
      any rank), p2p_src/p2p_dst/p2p_bytes/p2p_count (the sparse point-to-point matrix,
      world ranks, sender first), comm_offsets/comm_members/comm_bytes/comm_count
      (communicator c has the world ranks comm_members[comm_offsets[c]:comm_offsets[c+1]],
      each with the bytes and calls of its collectives there), comm_names.
    """

    def routine_index(self, name):
        try:
            return self.routines.index(name)
        except ValueError:
            return None

    def mpi_fraction(self):
        """Time in MPI over wall time, per rank (0 where the wall time is 0)."""
        w = np.where(self.wall_s > 0, self.wall_s, 1.0)
        return np.where(self.wall_s > 0, self.mpi_s / w, 0.0)

    def communicators(self):
        """[(name, members, bytes, count)] per communicator."""
        out = []
        for c in range(len(self.comm_offsets) - 1):
            a, b = int(self.comm_offsets[c]), int(self.comm_offsets[c + 1])
            out.append((self.comm_names[c], self.comm_members[a:b], self.comm_bytes[a:b],
                        self.comm_count[a:b]))
        return out

    def rank_end(self, r):
        """How rank r ended, in words: 'finalized', 'signal 15', 'MPI_Abort (code 3)'..."""
        s = int(self.rank_state[r])
        if s == SIGNALED:
            return "signal %d" % int(self.rank_signal[r])
        if s == ABORTED:
            return "MPI_Abort (code %d)" % int(self.rank_code[r])
        return STATE_NAMES.get(s, "unknown state %d" % s)

    def unfinished(self):
        """{how it ended: [ranks]} for every rank that did not finalize."""
        out = {}
        for r in np.nonzero(self.rank_state != FINALIZED)[0]:
            out.setdefault(self.rank_end(int(r)), []).append(int(r))
        return out


def record_name(job_id):
    """The file name of a job's record: pnmpi-JOB.record.npz, JOB escaped."""
    return "pnmpi-%s.record.npz" % safe_name(job_id)


def safe_name(text):
    """text with every character outside [A-Za-z0-9._-] replaced by '_' (as the C writer
    does, pnmpi_support_file_name)."""
    out = re.sub(r"[^A-Za-z0-9._-]", "_", text)[:128]
    return out if out and out not in (".", "..") else "_"


def is_record(path):
    return path.endswith(".record.npz")


def read_record(path):
    """The Record in `path`; a ReportError on anything else."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ReportError("cannot read: %s" % e.strerror, path)
    return record_from_bytes(data, path)


def record_from_bytes(data, path):
    """The Record in `data` (the bytes of a record file named `path`)."""
    if len(data) == 0:
        raise ReportError("empty file: not a pnmpi job record", path)
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise ReportError("not a pnmpi job record (not an .npz archive, or truncated)", path)
    with z:
        names = set(z.namelist())
        if "meta.npy" not in names:
            raise ReportError("not a pnmpi job record (no meta.npy in the archive)", path)
        meta = _meta(_array(z, "meta", path, np.uint8), path)
        rec = Record()
        rec.path = path
        for k in META_KEYS:
            setattr(rec, k, meta[k])
        rec.start, rec.end = float(rec.start), float(rec.end)
        rec.notes = [str(n) for n in meta.get("notes", []) if isinstance(n, str)]
        stored = {}
        for k in STORED:
            if k + ".npy" not in names:
                if k in OPTIONAL:
                    stored[k] = np.zeros(0, dtype=_DTYPES[k])
                    continue
                raise ReportError("damaged record: array %s is missing" % k, path)
            stored[k] = _array(z, k, path, _DTYPES[k])
    for k in STORED:
        if k not in ("p2p_offsets", "p2p_delta", "comm_delta"):
            setattr(rec, k, stored[k])
    _decode(rec, stored, path)
    _check_shapes(rec, path)
    return rec


def _decode(rec, stored, path):
    off, delta = stored["p2p_offsets"], stored["p2p_delta"]
    steps = np.diff(off.astype(np.int64))
    if off.shape != (rec.ranks + 1,) or off[0] != 0 or np.any(steps < 0) \
            or int(off[-1]) != len(delta):
        raise ReportError("damaged record: p2p_offsets do not describe p2p_delta", path)
    src = np.repeat(np.arange(rec.ranks, dtype=np.int64), steps)
    dst = src + delta.astype(np.int64)
    if len(dst) and (dst.min() < 0 or dst.max() >= rec.ranks):
        raise ReportError("damaged record: the point-to-point matrix names a rank outside "
                          "0..%d" % (rec.ranks - 1), path)
    rec.p2p_src, rec.p2p_dst = src.astype(np.uint32), dst.astype(np.uint32)
    members = np.cumsum(stored["comm_delta"].astype(np.int64))
    if len(members) and (members.min() < 0 or members.max() >= rec.ranks):
        raise ReportError("damaged record: a communicator names a rank outside 0..%d"
                          % (rec.ranks - 1), path)
    rec.comm_members = members.astype(np.uint32)


def _array(z, name, path, dtype):
    try:
        with z.open(name + ".npy") as f:
            a = npy.read_array(f.read())
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        raise ReportError("damaged record: array %s cannot be read (%s)" % (name, e), path)
    except Exception as e:  # zlib.error and friends from a corrupt member
        raise ReportError("damaged record: array %s cannot be read (%s)" % (name, e), path)
    if a.dtype != np.dtype(dtype):
        raise ReportError("damaged record: array %s has type %s, expected %s"
                          % (name, a.dtype, np.dtype(dtype)), path)
    return a


def _meta(raw, path):
    if raw.ndim != 1 or raw.size > MAX_META_BYTES:
        raise ReportError("damaged record: meta is not a byte string", path)
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ReportError("damaged record: meta is not JSON (%s)" % e, path)
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ReportError("not a pnmpi job record (meta names format %r)"
                          % (meta.get("format") if isinstance(meta, dict) else None), path)
    v = meta.get("version")
    if v != VERSION:
        raise ReportError("record version %r is not supported (this pnmpi-report reads "
                          "version %d)" % (v, VERSION), path)
    for k, t in META_KEYS.items():
        if k not in meta:
            raise ReportError("damaged record: meta has no %r" % k, path)
        if not isinstance(meta[k], t) or isinstance(meta[k], bool):
            raise ReportError("damaged record: meta %r has the wrong type" % k, path)
    for k in ("job_id", "user", "executable", "executable_hash", "pnmpi_version", "mpi",
              "ended"):
        _text(meta[k], k, path)
    for k in ("hosts", "modules", "comm_names"):
        for s in meta[k]:
            _text(s, k, path)
    for s in meta["routines"]:
        if not isinstance(s, str) or not _ROUTINE.match(s):
            raise ReportError("damaged record: routine name %r is not an MPI routine name"
                              % (s,), path)
    if meta["ended"] not in ("finalized", "incomplete"):
        raise ReportError("damaged record: ended is %r" % meta["ended"], path)
    if not 0 < meta["ranks"] <= MAX_RANKS or len(meta["routines"]) > MAX_ROUTINES:
        raise ReportError("damaged record: %d ranks, %d routines"
                          % (meta["ranks"], len(meta["routines"])), path)
    return meta


def _text(s, key, path):
    if not isinstance(s, str) or not _TEXT.match(s):
        raise ReportError("damaged record: %s %r contains control characters or is too "
                          "long" % (key, s if not isinstance(s, str) else s[:80]), path)


def _check_shapes(rec, path):
    dims = {"R": rec.ranks, "F": len(rec.routines), "E": len(rec.p2p_src),
            "S": len(rec.split_rank),
            "C1": len(rec.comm_names) + 1, "M": int(rec.comm_offsets[-1])
            if len(rec.comm_offsets) else 0}
    for k, shape in ARRAYS.items():
        want = tuple(dims[d] for d in shape)
        got = getattr(rec, k).shape
        if got != want:
            raise ReportError("damaged record: array %s has shape %s, expected %s"
                              % (k, got, want), path)
    if len(rec.hosts) == 0 or (rec.ranks and int(rec.rank_host.max()) >= len(rec.hosts)):
        raise ReportError("damaged record: rank_host names a host that is not listed", path)
    if len(rec.p2p_src) and max(int(rec.p2p_src.max()), int(rec.p2p_dst.max())) >= rec.ranks:
        raise ReportError("damaged record: the point-to-point matrix names a rank >= %d"
                          % rec.ranks, path)
    if len(rec.comm_members) and int(rec.comm_members.max()) >= rec.ranks:
        raise ReportError("damaged record: a communicator names a rank >= %d" % rec.ranks,
                          path)
    if np.any(np.diff(rec.comm_offsets.astype(np.int64)) < 0) or (
            len(rec.comm_offsets) and rec.comm_offsets[0] != 0):
        raise ReportError("damaged record: communicator offsets are not ascending", path)
    if len(rec.split_rank) and (int(rec.split_rank.max()) >= rec.ranks or
                                int(rec.split_routine.max()) >= len(rec.routines)):
        raise ReportError("damaged record: the split names a rank or routine out of range",
                          path)
    if int(rec.rank_state.max(initial=0)) > EXITED:
        raise ReportError("damaged record: unknown rank state %d"
                          % int(rec.rank_state.max()), path)


def empty_arrays(ranks, routines):
    """The arrays of a record with nothing counted, for writers to fill."""
    R, F = ranks, len(routines)
    a = {k: np.zeros((R, F) if shape == ("R", "F") else (R,) if shape == ("R",) else
                     (F,) if shape == ("F",) else (0,), dtype=_DTYPES[k])
         for k, shape in ARRAYS.items()}
    a["comm_offsets"] = np.zeros(1, dtype=np.uint64)
    a["rank_state"][:] = FINALIZED
    return a


def write_record(path, meta, arrays):
    """Writes a record atomically (temporary file + rename), as the C++ writer does.

    meta: the META_KEYS (format and version are filled in; an optional "notes" list of
    strings is kept); arrays: every name of ARRAYS (start from empty_arrays()). Values are
    converted to the record's types."""
    from .output import write_atomic
    write_atomic(path, record_bytes(meta, arrays))


def record_bytes(meta, arrays):
    """The bytes of the record write_record() writes."""
    m = dict(meta)
    m["format"], m["version"] = FORMAT, VERSION
    buf = io.BytesIO()
    payload = {"meta": np.frombuffer(json.dumps(m, sort_keys=True).encode("utf-8"),
                                     dtype=np.uint8)}
    R = int(m["ranks"])
    for k in ARRAYS:
        if k in _DERIVED:
            continue
        v = np.asarray(arrays.get(k, np.zeros(0)), dtype=_DTYPES[k])
        if k in ("time_s", "tool_time_s", "min_s", "max_s", "split_time_s"):
            v = round_mantissa(v, TIME_BITS)
        elif k in ("wall_s", "mpi_s"):
            v = round_mantissa(v, WALL_BITS)
        # [rank, routine] tables column by column: one routine's values side by side.
        payload[k] = np.asfortranarray(v) if v.ndim == 2 else v
    src = np.asarray(arrays["p2p_src"], dtype=np.int64)
    dst = np.asarray(arrays["p2p_dst"], dtype=np.int64)
    if len(src) and np.any(np.diff(src) < 0):
        raise ValueError("write_record: p2p_src must be sorted")
    payload["p2p_offsets"] = np.searchsorted(src, np.arange(R + 1)).astype(np.uint64)
    payload["p2p_delta"] = (dst - src).astype(np.int32)
    members = np.asarray(arrays["comm_members"], dtype=np.int64)
    payload["comm_delta"] = np.diff(members, prepend=0).astype(np.int32)
    np.savez_compressed(buf, **payload)
    return buf.getvalue()


def round_mantissa(v, bits):
    """float32 values with their mantissa rounded to `bits` bits (the writer's rule)."""
    v = np.ascontiguousarray(v, dtype=np.float32)
    u = v.view(np.uint32)
    drop = 23 - bits
    q = ((u + np.uint32(1 << (drop - 1))) & np.uint32(~((1 << drop) - 1) & 0xFFFFFFFF))
    q = np.where(np.isfinite(v), q, u).astype(np.uint32)
    return q.view(np.float32).reshape(v.shape)
