# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Scotch's graph mapping through ctypes (Debian's libscotch, `libscotch-dev`/`scotch`).

Only the documented library API is used: a graph built from CSR arrays, a complete graph
architecture of the nodes weighted by their slots, a mapping strategy built for balance,
and SCOTCH_graphMap. Scotch's errors go through libscotcherr (printed, then returned as a
non-zero status), never libscotcherrexit, which would end this process."""

import ctypes
import ctypes.util
import os

import numpy as np

from .errors import ReportError

# SCOTCH_STRATQUALITY | SCOTCH_STRATBALANCE (scotch.h)
_STRAT_FLAGS = 0x00001 | 0x00004


class Scotch:
    def __init__(self):
        self.lib, self.where = _load()
        lib = self.lib
        size = lib.SCOTCH_numSizeof()
        if size not in (4, 8):
            raise ReportError("libscotch (%s): SCOTCH_Num of %d bytes is not supported"
                              % (self.where, size))
        self.num = ctypes.c_int32 if size == 4 else ctypes.c_int64
        self.dtype = np.int32 if size == 4 else np.int64
        self.max = (1 << (8 * size - 1)) - 1
        for name in ("SCOTCH_graphAlloc", "SCOTCH_archAlloc", "SCOTCH_stratAlloc"):
            getattr(lib, name).restype = ctypes.c_void_p
        for name in ("SCOTCH_graphInit", "SCOTCH_archInit", "SCOTCH_stratInit",
                     "SCOTCH_graphExit", "SCOTCH_archExit", "SCOTCH_stratExit",
                     "SCOTCH_memFree", "SCOTCH_graphCheck"):
            getattr(lib, name).argtypes = [ctypes.c_void_p]
        lib.SCOTCH_stratGraphMapBuild.argtypes = [ctypes.c_void_p, self.num, self.num,
                                                  ctypes.c_double]
        lib.SCOTCH_randomSeed.argtypes = [self.num]
        lib.SCOTCH_graphBuild.argtypes = [ctypes.c_void_p, self.num, self.num] + \
            [ctypes.c_void_p] * 4 + [self.num] + [ctypes.c_void_p] * 2

    def version(self):
        v = [ctypes.c_int(), ctypes.c_int(), ctypes.c_int()]
        self.lib.SCOTCH_version(*[ctypes.byref(x) for x in v])
        return "%d.%d.%d" % tuple(x.value for x in v)

    def map(self, xadj, adjncy, weights, slots):
        """Parts (one per vertex, 0..len(slots)-1) of the graph given in CSR form with
        symmetric edge weights, onto a complete graph of nodes weighted by their slots."""
        lib, num = self.lib, self.num
        n = len(xadj) - 1
        verttab = np.ascontiguousarray(xadj, dtype=self.dtype)
        edgetab = np.ascontiguousarray(adjncy, dtype=self.dtype)
        edlotab = np.ascontiguousarray(weights, dtype=self.dtype)
        loads = np.ascontiguousarray(slots, dtype=self.dtype)
        parttab = np.zeros(n, dtype=self.dtype)
        ptr = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
        graph = lib.SCOTCH_graphAlloc()
        arch = lib.SCOTCH_archAlloc()
        strat = lib.SCOTCH_stratAlloc()
        if not (graph and arch and strat):
            raise ReportError("libscotch: out of memory")
        inited = []
        try:
            for what, obj, init in (("graph", graph, lib.SCOTCH_graphInit),
                                    ("architecture", arch, lib.SCOTCH_archInit),
                                    ("strategy", strat, lib.SCOTCH_stratInit)):
                if init(obj) != 0:
                    raise ReportError("libscotch: cannot initialise a %s" % what)
                inited.append(obj)
            lib.SCOTCH_randomSeed(num(1))
            lib.SCOTCH_randomReset()
            rc = lib.SCOTCH_graphBuild(graph, num(0), num(n), ptr(verttab),
                                       None, None, None, num(int(edgetab.size)), ptr(edgetab),
                                       ptr(edlotab))
            if rc != 0 or lib.SCOTCH_graphCheck(graph) != 0:
                raise ReportError("libscotch refused the communication graph (see its message "
                                  "above)")
            if len(set(slots)) == 1:
                lib.SCOTCH_archCmplt.argtypes = [ctypes.c_void_p, num]
                rc = lib.SCOTCH_archCmplt(arch, num(len(slots)))
            else:
                lib.SCOTCH_archCmpltw.argtypes = [ctypes.c_void_p, num, ctypes.c_void_p]
                rc = lib.SCOTCH_archCmpltw(arch, num(len(slots)), ptr(loads))
            if rc != 0:
                raise ReportError("libscotch refused the nodes' architecture")
            if lib.SCOTCH_stratGraphMapBuild(strat, num(_STRAT_FLAGS), num(len(slots)),
                                             ctypes.c_double(0.0)) != 0:
                raise ReportError("libscotch cannot build a mapping strategy")
            lib.SCOTCH_graphMap.argtypes = [ctypes.c_void_p] * 4
            if lib.SCOTCH_graphMap(graph, arch, strat, ptr(parttab)) != 0:
                raise ReportError("libscotch's graph mapping failed (see its message above)")
        finally:
            exits = {graph: lib.SCOTCH_graphExit, arch: lib.SCOTCH_archExit,
                     strat: lib.SCOTCH_stratExit}
            for obj in inited:
                exits[obj](obj)
            for obj in (graph, arch, strat):
                if obj:
                    lib.SCOTCH_memFree(obj)
        return parttab.astype(np.int64)


def _load():
    """libscotch, and libscotcherr before it (libscotch leaves SCOTCH_errorPrint to it)."""
    explicit = os.environ.get("PNMPI_SCOTCH_LIBRARY")
    candidates = [explicit] if explicit else \
        [ctypes.util.find_library("scotch"), "libscotch.so", "libscotch-7.0.so"]
    err_candidates = [os.path.join(os.path.dirname(explicit), "libscotcherr.so")] \
        if explicit else [ctypes.util.find_library("scotcherr"), "libscotcherr.so"]
    for e in err_candidates:
        if e:
            try:
                ctypes.CDLL(e, mode=ctypes.RTLD_GLOBAL)
                break
            except OSError:
                continue
    problems = []
    for c in candidates:
        if not c:
            continue
        try:
            return ctypes.CDLL(c), c
        except OSError as e:
            problems.append(str(e))
    raise ReportError("reorder needs Scotch's library and cannot load it (%s): install "
                      "Debian's libscotch-dev (or scotch), or name the library in "
                      "PNMPI_SCOTCH_LIBRARY" % ("; ".join(problems) or "libscotch not found"))
