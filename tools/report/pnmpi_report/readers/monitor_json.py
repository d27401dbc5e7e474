# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The monitor's gathered JSON (`PREFIX.json`), versions 1 (dense) and 2 (sparse, hosts).

A version 1 file of 4096 ranks holds 16 dense matrices of 16.7 million numbers: Python's
json module would build 268 million int objects. So the file is memory-mapped, every array
of integers is cut out of it and parsed by numpy in one call, and only the small rest (the
"skeleton", the arrays replaced by placeholders keeping the line count) goes through the
json module, which still reports syntax errors with their line."""

import json
import mmap
import os
import re
import warnings

import numpy as np

from ..errors import ReportError
from ..model import APPLICATION, MAX_RANKS, Category, Run, Sparse, progress

FORMAT_NAME = "pnmpi-monitor-matrices"
_ARRAY_START = re.compile(rb"\[(?=\s*[\[0-9])")
_NOT_IN_INT_ARRAY = re.compile(rb"[^0-9,\s\[\]]")
_STRING_TOKEN = re.compile(rb'\\.|"')
_SPLIT_OR_PADDED_NUMBER = re.compile(rb"[0-9]\s+[0-9]|(?<![0-9])0[0-9]")
_PLACEHOLDER = "@@pnmpi-int-array-%d@@"
_PLACEHOLDER_RE = re.compile(r"\A@@pnmpi-int-array-(\d+)@@\Z")
_BRACKETS_TO_SPACES = bytes.maketrans(b"[]", b"  ")
_BIG_FILE = 32 << 20


class IntArray:
    """An array of non-negative integers cut out of the file: 1-D, or rows of numbers.

    Mostly-zero arrays (the dense matrices) keep only their non-zero cells, so that a
    version 1 file of 4096 ranks never holds its 16 matrices of 16.7 million cells."""

    def __init__(self, flat, row_lengths, line):
        self.size = int(flat.size)
        self.row_lengths = row_lengths  # None for a 1-D array
        self.line = line
        self.nz = np.flatnonzero(flat)
        if self.nz.size * 4 < self.size:
            self.nz_values, self.flat = flat[self.nz], None
        else:
            self.nz_values, self.flat = None, flat

    def values(self):
        if self.flat is not None:
            return self.flat
        out = np.zeros(self.size, dtype=np.int64)
        out[self.nz] = self.nz_values
        return out

    def nonzero(self):
        """(positions, values) of the non-zero numbers."""
        if self.flat is None:
            return self.nz, self.nz_values
        return self.nz, self.flat[self.nz]


class TooLarge:
    """A JSON integer of more digits than an int64 holds: kept as a marker, so that the
    field's own check names it (Python would otherwise refuse 4300 digits or more with a
    ValueError, or take a number pnmpi-report cannot count with exactly)."""

    def __init__(self, text):
        self.digits = len(text.lstrip("-"))

    def __repr__(self):
        return "<a number of %d digits>" % self.digits


def _json_int(text):
    return int(text) if len(text.lstrip("-")) <= 18 else _big_int(text)


def _big_int(text):
    if len(text.lstrip("-")) <= 19 and -(1 << 63) <= int(text) < (1 << 63):
        return int(text)
    return TooLarge(text)


def _json_constant(name):
    raise ReportError("%s is not a number the monitor writes: not the monitor's JSON" % name)


class Saturated(ValueError):
    """An integer array holding a number of 2^63 or more."""


def _parse_int_array(seg):
    """seg: b'[...]' holding only digits, commas, white space, brackets. (values, row
    lengths or None) if it is a clean 1-D or 2-D array of integers, else None (the caller
    then lets the json module judge it and report what is wrong)."""
    if _SPLIT_OR_PADDED_NUMBER.search(seg):
        return None  # "1 2" (numpy would read 12) or "010": the json module says what is wrong
    compact = seg.translate(None, b" \t\n\r")
    if any(bad in compact for bad in (b",,", b",]", b"[,", b"[]")):
        return None
    a = np.frombuffer(compact, dtype=np.uint8)
    opens = np.flatnonzero(a == ord("["))
    closes = np.flatnonzero(a == ord("]"))
    commas = np.flatnonzero(a == ord(","))
    if opens.size != closes.size or opens[0] != 0 or closes[-1] != a.size - 1:
        return None
    with warnings.catch_warnings():
        # A malformed number ends numpy's parse early: the count check below sees it.
        warnings.simplefilter("ignore", DeprecationWarning)
        flat = np.fromstring(compact.translate(_BRACKETS_TO_SPACES), dtype=np.int64, sep=",")
    if flat.size and flat.max() == np.iinfo(np.int64).max:
        raise Saturated()  # numpy saturates a number of 2^63 or more
    if opens.size == 1:
        return (flat, None) if flat.size == commas.size + 1 else None
    inner_o, inner_c = opens[1:], closes[:-1]
    if not (np.all(inner_o < inner_c) and np.all(inner_c[:-1] < inner_o[1:])):
        return None  # deeper than rows of numbers
    # Between rows only a comma may stand: "],[" exactly, nothing before the first row.
    if np.any(inner_o[1:] - inner_c[:-1] != 2) or inner_o[0] != 1 or \
            inner_c[-1] != a.size - 2:
        return None
    lengths = np.searchsorted(commas, inner_c) - np.searchsorted(commas, inner_o) + 1
    if flat.size != int(lengths.sum()):
        return None
    return flat, lengths


class _Region:
    """A run of bytes that may belong to integer arrays (digits, commas, white space,
    brackets), from `start` to `stop`, with its brackets matched once: where each opening
    bracket closes (or -1 when it does not close inside the region)."""

    def __init__(self, buf, start):
        m = _NOT_IN_INT_ARRAY.search(buf, start)
        self.start, self.stop = start, m.start() if m else len(buf)
        a = np.frombuffer(buf, dtype=np.uint8, count=self.stop - start, offset=start)
        where = np.flatnonzero((a == ord("[")) | (a == ord("]")))
        self.closes = {}
        stack = []
        for pos, is_open in zip((where + start).tolist(), (a[where] == ord("[")).tolist()):
            if is_open:
                stack.append(pos)
            elif stack:
                self.closes[stack.pop()] = pos

    def close_of(self, start):
        return self.closes.get(start, -1)


def _split(buf, path, big):
    """(skeleton text, arrays): every integer array of buf replaced by a placeholder.

    Linear in the size of buf: each bracket is matched once (per region), and an array that
    is not a clean one is skipped whole, its inner arrays left to the json module too."""
    pieces, arrays, pos, done = [], [], 0, 0
    counted, line = 0, 1  # buf[:counted] holds line - 1 newlines
    scanned, in_string = 0, False  # whether buf[scanned] is inside a JSON string
    region = None
    while True:
        m = _ARRAY_START.search(buf, pos)
        if m is None:
            break
        start = m.start()
        # Brackets inside a string ("what": "... [1,2] ...") are text, not arrays.
        for q in _STRING_TOKEN.finditer(buf, scanned, start):
            if q.group() == b'"':
                in_string = not in_string
        scanned = start
        if in_string:
            pos = start + 1
            continue
        if region is None or not region.start <= start < region.stop:
            region = _Region(buf, start)
        end = region.close_of(start)
        if end < 0:
            pos = region.stop  # never closed among integers: the json module judges it
            continue
        seg = buf[start:end + 1]
        try:
            parsed = _parse_int_array(seg)
        except Saturated:
            raise ReportError("a number of 2^63 or more: more bytes or messages than "
                              "pnmpi-report counts (at most %d per cell)"
                              % np.iinfo(np.int64).max, path,
                              line + buf[counted:start].count(b"\n"))
        if parsed is None:
            pos = end + 1  # not a clean integer array: the json module reads it whole
            continue
        line += buf[counted:start].count(b"\n")
        counted = start
        pieces.append(buf[done:start].decode("utf-8", errors="strict"))
        pieces.append('"' + _PLACEHOLDER % len(arrays) + '"' + "\n" * seg.count(b"\n"))
        arrays.append(IntArray(parsed[0], parsed[1], line))
        done = pos = scanned = end + 1
        if big and len(arrays) % 4 == 0:
            progress("reading %s: %d%%" % (path, 100 * pos // max(1, len(buf))))
    pieces.append(buf[done:].decode("utf-8", errors="strict"))
    return "".join(pieces), arrays


def _restore(value, arrays):
    if isinstance(value, dict):
        return {k: _restore(v, arrays) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore(v, arrays) for v in value]
    if isinstance(value, str):
        m = _PLACEHOLDER_RE.match(value)
        if m:
            return arrays[int(m.group(1))]
    return value


def looks_like_monitor_json(path):
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    return FORMAT_NAME.encode() in head


def read(path):
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            if size == 0:
                raise ReportError("empty file: not the monitor's JSON (was the run killed "
                                  "before MPI_Finalize?)", path)
            buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as e:
        raise ReportError("cannot read: %s" % e.strerror, path)
    big = size > _BIG_FILE
    if big:
        progress("reading %s (%d MB)" % (path, size >> 20))
    try:
        skeleton, arrays = _split(buf, path, big)
    except UnicodeDecodeError as e:
        raise ReportError("not UTF-8 text (byte %d): not the monitor's JSON" % e.start, path)
    finally:
        buf.close()
    try:
        doc = json.loads(skeleton, parse_int=_json_int, parse_constant=_json_constant)
        doc = _restore(doc, arrays)
    except json.JSONDecodeError as e:
        tail = skeleton[e.pos:].strip() == ""
        raise ReportError("%s (column %d)%s" % (
            e.msg, e.colno, ": the file ends early; it is truncated (was the run killed?)"
            if tail else ": not valid JSON"), path, e.lineno)
    except RecursionError:
        raise ReportError("objects or arrays nested too deeply (the monitor's JSON nests "
                          "5 levels): not the monitor's JSON", path)
    except ReportError as e:
        raise ReportError(str(e), path)
    return _to_run(doc, path)


def _need(cond, message, path, line=None):
    if not cond:
        raise ReportError(message, path, line)


def _matrix(arr, n, path, what):
    _need(isinstance(arr, IntArray) and arr.row_lengths is not None,
          "%s is not a matrix of non-negative integers" % what, path,
          arr.line if isinstance(arr, IntArray) else None)
    _need(arr.row_lengths.size == n and np.all(arr.row_lengths == n),
          "%s is not %d x %d (world_size)" % (what, n, n), path, arr.line)
    nz, values = arr.nonzero()
    return Sparse(n, nz // n, nz % n, values)


def _entries(arr, n, path, what):
    if isinstance(arr, list) and not arr:
        e = np.zeros((0, 4), dtype=np.int64)
        line = None
    else:
        _need(isinstance(arr, IntArray) and arr.row_lengths is not None and
              np.all(arr.row_lengths == 4),
              "%s must be a list of [sender, receiver, count, bytes]" % what, path,
              arr.line if isinstance(arr, IntArray) else None)
        e = arr.values().reshape(-1, 4)
        line = arr.line
    src, dst = e[:, 0], e[:, 1]
    _need(np.all(src < n) and np.all(dst < n),
          "%s names a rank >= world_size %d" % (what, n), path, line)
    key = src * n + dst
    _need(np.all(key[1:] > key[:-1]),
          "%s is not sorted by sender then receiver, or lists a pair twice" % what, path, line)
    return (Sparse.build(n, src, dst, e[:, 2]),
            Sparse.build(n, src, dst, e[:, 3]))


def _to_run(doc, path):
    _need(isinstance(doc, dict), "not the monitor's JSON (not an object)", path)
    fmt = doc.get("format")
    _need(fmt == FORMAT_NAME, "not the monitor's JSON (format %r, expected %r)"
          % (fmt, FORMAT_NAME), path)
    version = doc.get("version")
    _need(type(version) is int and version in (1, 2),
          "version %r of the monitor's JSON is not known to this "
          "pnmpi-report (it reads 1 and 2): use the pnmpi-report of the pnmpi that wrote it"
          % (version,), path)
    n = doc.get("world_size")
    _need(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_RANKS,
          "world_size must be an integer from 1 to %d, not %r" % (MAX_RANKS, n), path)
    cats = doc.get("categories")
    _need(isinstance(cats, dict), "no 'categories' object", path)
    run = Run(path, "pnmpi monitor JSON version %d" % version, n)
    if version >= 2 or "hosts" in doc:
        hosts = doc.get("hosts")
        _need(isinstance(hosts, list) and len(hosts) == n and
              all(isinstance(h, str) for h in hosts),
              "'hosts' must list one host name per rank (%d)" % n, path)
        run.hosts = hosts
    for name, c in cats.items():
        _need(isinstance(c, dict), "category %r is not an object" % name, path)
        origin = c.get("origin")
        _need(origin in (APPLICATION, "modules"), "category %r: origin must be "
              "'application' or 'modules', not %r" % (name, origin), path)
        if "entries" in c:
            counts, bytes_ = _entries(c["entries"], n, path, "category %r: entries" % name)
            if "counts" in c or "bytes" in c:
                for field, sparse in (("counts", counts), ("bytes", bytes_)):
                    _need(field in c, "category %r has entries and a dense matrix, but "
                          "no dense %r" % (name, field), path)
                    dense = _matrix(c[field], n, path, "category %r: %s" % (name, field))
                    _need(np.array_equal(dense.src, sparse.src) and
                          np.array_equal(dense.dst, sparse.dst) and
                          np.array_equal(dense.val, sparse.val),
                          "category %r: the dense %s and the entries disagree"
                          % (name, field), path, c[field].line)
        else:
            _need(version == 1, "category %r has no 'entries' (version 2 lists them "
                  "always)" % name, path)
            _need("counts" in c and "bytes" in c,
                  "category %r has no 'counts' and 'bytes' matrices" % name, path)
            counts = _matrix(c["counts"], n, path, "category %r: counts" % name)
            bytes_ = _matrix(c["bytes"], n, path, "category %r: bytes" % name)
        run.add(Category(name, origin, str(c.get("what", "")), counts, bytes_))
    return run
