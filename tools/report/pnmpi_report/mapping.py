# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi's mapping library (libpnmpi_mapping.so, <pnmpi/mapping.h>) through ctypes: the one
placement that `module place`, MPI_M_reorder and pnmpi-report compute, so a matrix and a
job's slots give the same answer everywhere.

The library is looked up in PNMPI_MAPPING_LIBRARY (pnmpi-report of a build tree or an
install sets it to its own lib/ copy), then by the dynamic linker's search."""

import ctypes
import ctypes.util
import os

import numpy as np

from .errors import ReportError

ENV = "PNMPI_MAPPING_LIBRARY"
_lib = None


def _load():
    global _lib
    if _lib is not None:
        return _lib
    explicit = os.environ.get(ENV)
    candidates = [explicit] if explicit else \
        [ctypes.util.find_library("pnmpi_mapping"), "libpnmpi_mapping.so"]
    problems = []
    for c in candidates:
        if not c:
            continue
        try:
            lib = ctypes.CDLL(c)
            break
        except OSError as e:
            problems.append(str(e))
    else:
        raise ReportError("this needs pnmpi's mapping library and cannot load it (%s): run "
                          "the pnmpi-report of a build (BUILD/bin/pnmpi-report) or of an "
                          "install, or name libpnmpi_mapping.so in %s"
                          % ("; ".join(problems) or "libpnmpi_mapping.so not found", ENV))
    p = ctypes.c_void_p
    lib.pnmpi_map_matrix_from_csr.argtypes = [ctypes.c_int64, p, p, p,
                                              ctypes.POINTER(p), ctypes.c_char_p,
                                              ctypes.c_size_t]
    lib.pnmpi_map_matrix_from_csr.restype = ctypes.c_int
    lib.pnmpi_map_matrix_free.argtypes = [p]
    lib.pnmpi_map_matrix_free.restype = None
    lib.pnmpi_map_place.argtypes = [p, ctypes.c_int64, p, p, ctypes.c_char_p, ctypes.c_size_t]
    lib.pnmpi_map_place.restype = ctypes.c_int
    lib.pnmpi_map_crossing_bytes.argtypes = [p, ctypes.c_int64, p, p]
    lib.pnmpi_map_crossing_bytes.restype = ctypes.c_uint64
    lib.pnmpi_map_last_method.argtypes = []
    lib.pnmpi_map_last_method.restype = ctypes.c_char_p
    lib.pnmpi_map_scotch_version.argtypes = []
    lib.pnmpi_map_scotch_version.restype = ctypes.c_char_p
    _lib = lib
    return lib


def scotch_version():
    return _load().pnmpi_map_scotch_version().decode()


def _ptr(a):
    return a.ctypes.data_as(ctypes.c_void_p)


class Placement:
    """rank_of_slot: the application rank to run in each launch slot; method: how it was
    found."""

    def __init__(self, rank_of_slot, method):
        self.rank_of_slot = rank_of_slot
        self.method = method

    def host_of_rank(self, slot_host):
        out = np.empty(self.rank_of_slot.size, dtype=np.int64)
        out[self.rank_of_slot] = np.asarray(slot_host, dtype=np.int64)
        return out


def place(matrix, slot_host):
    """The library's placement of matrix (a model.Sparse of bytes) onto launch slots whose
    hosts are slot_host (one index per slot). Slots beyond the matrix's ranks hold ranks
    without traffic, which the caller leaves out."""
    lib = _load()
    nslots = len(slot_host)
    if matrix.n > nslots:
        raise ReportError("%d ranks do not fit into %d slots" % (matrix.n, nslots))
    counts = np.bincount(matrix.src, minlength=nslots) if matrix.src.size else \
        np.zeros(nslots, dtype=np.int64)
    xadj = np.zeros(nslots + 1, dtype=np.int64)
    np.cumsum(counts, out=xadj[1:])
    adj = np.ascontiguousarray(matrix.dst, dtype=np.int64)
    val = np.ascontiguousarray(matrix.val, dtype=np.uint64)
    err = ctypes.create_string_buffer(1024)
    handle = ctypes.c_void_p()
    if lib.pnmpi_map_matrix_from_csr(nslots, _ptr(xadj), _ptr(adj), _ptr(val),
                                     ctypes.byref(handle), err, len(err)) != 0:
        raise ReportError("the mapping library refused the matrix: %s" % err.value.decode())
    try:
        hosts = np.ascontiguousarray(slot_host, dtype=np.int32)
        order = np.zeros(nslots, dtype=np.int32)
        if lib.pnmpi_map_place(handle, nslots, _ptr(hosts), _ptr(order), err, len(err)) != 0:
            raise ReportError("the mapping failed: %s" % err.value.decode())
        method = lib.pnmpi_map_last_method().decode()
    finally:
        lib.pnmpi_map_matrix_free(handle)
    return Placement(order.astype(np.int64), method)


def order_text(ranks):
    """Cray's MPICH_RANK_ORDER form: the ranks in slot order on one line, runs of
    consecutive ranks as ranges (`0-3,8,5-6`)."""
    items, k = [], 0
    ranks = [int(r) for r in ranks]
    while k < len(ranks):
        j = k
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        items.append(str(ranks[k]) if j == k else "%d-%d" % (ranks[k], ranks[j]))
        k = j + 1
    return ",".join(items) + "\n"


def launch_slots(slots, nranks, map_by="slot"):
    """The host index of each of nranks launch slots on nodes of `slots` slots: filled node
    by node (--map-by slot, MPICH's machine file) or dealt round-robin (--map-by node,
    Hydra given one slot per host), a full node skipped."""
    if nranks > sum(slots):
        raise ReportError("%d ranks do not fit into %d slots" % (nranks, sum(slots)))
    if map_by == "slot":
        return np.repeat(np.arange(len(slots)), slots)[:nranks]
    out, free = [], list(slots)
    while len(out) < nranks:
        for k in range(len(slots)):
            if free[k] > 0 and len(out) < nranks:
                out.append(k)
                free[k] -= 1
    return np.asarray(out, dtype=np.int64)
