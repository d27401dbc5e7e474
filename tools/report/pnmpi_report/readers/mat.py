# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`ompi_monitoring_prof`'s matrices: `monitoring_{pml,coll,osc,all}_{msg,size,avg}.mat`,
written by rank 0 in the working directory, one row per line, numbers separated by spaces.

That tool symmetrises every pair, cell (i, j) = cell (j, i) = (a_ij + a_ji) / 2 in integer
arithmetic (one-sided: sent and fetched together), so a row is not what the rank sent; the
totals are about half of the traffic, rounded down. The `avg` files are derived and not
read; `all` is read only when none of pml, coll and osc is given."""

import os
import re

import numpy as np

from ..errors import ReportError
from .square import read_square_matrix
from ..model import APPLICATION, Category, Run, Sparse

NAME = re.compile(r"\Amonitoring_(pml|coll|osc|all)_(msg|size|avg)\.mat\Z")
_CATEGORY = {"pml": ("p2p", "point-to-point (monitoring_pml_*.mat)"),
             "coll": ("coll", "collectives (monitoring_coll_*.mat)"),
             "osc": ("osc", "one-sided, sent and fetched (monitoring_osc_*.mat)"),
             "all": ("all", "everything (monitoring_all_*.mat)")}


def is_mat(path):
    return NAME.match(os.path.basename(path)) is not None


def read(paths, source):
    found = {}
    for p in paths:
        m = NAME.match(os.path.basename(p))
        if m is None:
            raise ReportError("not one of ompi_monitoring_prof's files "
                              "(monitoring_{pml,coll,osc,all}_{msg,size,avg}.mat)", p)
        if m.group(2) != "avg":
            found[(m.group(1), m.group(2))] = p
    kinds = [k for k in ("pml", "coll", "osc") if (k, "msg") in found or (k, "size") in found]
    if not kinds:
        kinds = ["all"] if ("all", "msg") in found or ("all", "size") in found else []
    if not kinds:
        raise ReportError("no monitoring_*_msg.mat or monitoring_*_size.mat among the files "
                          "given (the avg files alone cannot be read)", source)
    n, run = None, None
    for k in kinds:
        for metric in ("msg", "size"):
            if (k, metric) not in found:
                other = found[(k, "size" if metric == "msg" else "msg")]
                raise ReportError("monitoring_%s_%s.mat is missing beside it: give both "
                                  "the msg and size files" % (k, metric), other)
        mats = {}
        for metric in ("msg", "size"):
            p = found[(k, metric)]
            d = read_square_matrix(p, "a .mat file")
            if n is None:
                n, first = d.shape[0], p
                run = Run(source, "ompi_monitoring_prof .mat files", n)
                run.notes.append("ompi_monitoring_prof symmetrises every pair: cell (i, j) "
                                 "holds (sent i->j + sent j->i) / 2, so totals are half the "
                                 "traffic and rows are not what a rank sent")
            elif d.shape[0] != n:
                raise ReportError("a %d x %d matrix, but %s is %d x %d: files of different "
                                  "runs?" % (d.shape[0], d.shape[0], first, n, n), p)
            src, dst = np.nonzero(d)
            mats[metric] = Sparse(n, src, dst, d[src, dst])
        name, what = _CATEGORY[k]
        run.add(Category(name, APPLICATION, what, mats["msg"], mats["size"]))
    return run
