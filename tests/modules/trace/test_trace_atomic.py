# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Atomic RMA operations in the archive with their own OTF2 types (not every one a generic
accumulate): 2 ranks, each doing MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op and
MPI_Compare_and_swap on rank 0's window.

Usage: test_trace_atomic.py CONFIG.json   (run with /usr/bin/python3)"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_trace as base  # noqa: E402  (run_job, scratch, describe; shares its CONFIG)

CONFIG = base.CONFIG


class AtomicTest(unittest.TestCase):
    def test_atomics(self):
        import otf2
        from otf2 import events as ev
        work = base.scratch("atomics")
        out = os.path.join(work, "trace")
        proc = base.run_job(2, f"module trace\nargument output {out}\n",
                            [CONFIG["atomic_app"]], work,
                            # Open MPI 4.1's osc/rdma crashes in MPI_Compare_and_swap on one host
                            # (vader's emulated atomics); pt2pt does them in software.
                            extra_env={"OMPI_MCA_osc": "pt2pt"})
        self.assertEqual(proc.returncode, 0, base.describe(proc))
        types = {0: [], 1: []}
        with otf2.reader.open(os.path.join(out, "traces.otf2")) as reader:
            for location, e in reader.events:
                if isinstance(e, ev.RmaAtomic):
                    types[base.rank_of(location)].append(
                        (str(e.type).split(".")[-1], e.remote, e.bytes_sent, e.bytes_received))
        want = [("ACCUMULATE", 0, 8, 0), ("FETCH_AND_ACCUMULATE", 0, 8, 8),
                ("FETCH_AND_ACCUMULATE", 0, 8, 8), ("COMPARE_AND_SWAP", 0, 16, 8)]
        self.assertEqual(types, {0: want, 1: want})


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        CONFIG.update(json.load(f))
    unittest.main(argv=[sys.argv[0]], verbosity=2)
