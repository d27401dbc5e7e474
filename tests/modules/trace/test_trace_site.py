# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""A site stack (the monitor and the profile, from PNMPI_SITE_CONF, records in a site
directory) below a user's own stack (minprof, a converted profiler, and the trace) in one
job (issue 25 item 6, docs/site.md): every output exact, as each tool alone gives it.

Usage: test_trace_site.py CONFIG.json   (run with /usr/bin/python3)"""

import datetime
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_trace as base  # noqa: E402  (run_job, scratch, describe; shares its CONFIG)

CONFIG = base.CONFIG

# minprof's report of the known program on 3 ranks (test_trace.py's test_stack).
MINPROF = [(0, "MPI_Send", 2, 416), (1, "MPI_Recv", 1, 400), (2, "MPI_Recv", 1, 16),
           (1, "MPI_Isend", 3, 104), (2, "MPI_Allreduce", 2, 8)]


class SiteStackTest(unittest.TestCase):
    def test_site_below_users_tools(self):
        work = base.scratch("site")
        out = os.path.join(work, "trace")
        logs = os.path.join(work, "logs")
        # The record directory as `pnmpi-admin mkdirs` lays it out: LOGDIR/YYYY/M/D.
        today = datetime.datetime.now(datetime.timezone.utc)
        day = os.path.join(logs, str(today.year), str(today.month), str(today.day))
        os.makedirs(day)
        site = os.path.join(work, "site.conf")
        with open(site, "w") as f:
            f.write(f"records {logs}\n"
                    f"module monitor\nargument output {os.path.join(work, 'mon')}\n"
                    "argument files none\nargument top 0\n"
                    "module profile\n")
        user = f"module minprof\nmodule trace\nargument output {out}\n"
        proc = base.run_job(3, user, [CONFIG["known_app"]], work,
                            extra_env={"PNMPI_SITE_CONF": site})
        self.assertEqual(proc.returncode, 0, base.describe(proc))

        # The user's tools: minprof's report and the trace's events exactly as without the
        # site's modules below them.
        for rank, routine, calls, nbytes in MINPROF:
            self.assertIn(f"minprof: rank {rank}: {routine} {calls} calls {nbytes} bytes\n",
                          proc.stderr)
        self.assertIn("minprof: end of report\n", proc.stderr)
        base.TraceTest.check_known(self, out, 3)
        self.assertFalse(os.path.exists(os.path.join(out, "INCOMPLETE")))

        # The site's record: one, in the day's directory; its profile counts what minprof
        # counts, and its matrix is the application's traffic (test_stack's .prof lines).
        records = [n for n in os.listdir(day) if n.endswith(".record.npz")]
        self.assertEqual(len(records), 1, os.listdir(day))
        rec = base.report_module("record").read_record(os.path.join(day, records[0]))
        self.assertEqual(rec.ended, "finalized")
        self.assertEqual(rec.ranks, 3)
        for rank, routine, calls, nbytes in MINPROF:
            i = rec.routine_index(routine)
            self.assertIsNotNone(i, routine)
            self.assertEqual((int(rec.calls[rank, i]), int(rec.bytes[rank, i])),
                             (calls, nbytes), (rank, routine))
        sent = sorted((int(d), int(b), int(c)) for s, d, b, c in
                      zip(rec.p2p_src, rec.p2p_dst, rec.p2p_bytes, rec.p2p_count) if s == 0)
        self.assertEqual(sent, [(1, 568, 6), (2, 16, 1)])
        # The reduces of minprof's report and of the trace's finalize are the tools' calls
        # for the profile below them, never the application's (which makes none).
        reduce_ = rec.routine_index("MPI_Reduce")
        self.assertIsNotNone(reduce_)
        self.assertEqual([int(rec.calls[r, reduce_]) for r in range(3)], [0, 0, 0])
        self.assertTrue(all(int(rec.tool_calls[r, reduce_]) > 0 for r in range(3)), rec.tool_calls)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        CONFIG.update(json.load(f))
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
