# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The job record (record.py) as a Run: its point-to-point matrix, for the subcommands
that draw who talks to whom (heatmap, reorder, diff, html)."""

import numpy as np

from ..model import APPLICATION, Category, Run, Sparse


def read(rec):
    """A Run of the Record `rec` (from record.read_record or parts.merge_parts)."""
    n = rec.ranks
    run = Run(rec.path, "pnmpi job record version %d" % rec.version, n)
    run.hosts = [rec.hosts[int(h)] for h in rec.rank_host]
    src, dst = rec.p2p_src.astype(np.int64), rec.p2p_dst.astype(np.int64)
    run.add(Category("p2p", APPLICATION, "point-to-point (the monitor's, in the job record)",
                     Sparse.build(n, src, dst, rec.p2p_count.astype(np.int64)),
                     Sparse.build(n, src, dst, rec.p2p_bytes.astype(np.int64))))
    if len(rec.comm_names):
        run.notes.append("the record keeps collectives per communicator (members and volume "
                         "per member), not per pair: they are not in the matrices")
    if rec.ended != "finalized":
        run.notes.append("the job did not finalize: %s" % "; ".join(
            "%s: %d rank(s)" % (k, len(v)) for k, v in sorted(rec.unfinished().items())))
    if len(src) == 0:
        run.notes.append("the record has no point-to-point matrix (it comes from the monitor: "
                         "add 'module monitor' to the configuration)")
    return run
