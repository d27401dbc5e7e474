# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The profile, the trace and the monitor stacked in several orders (issue 24: "stackable
with the monitor and the trace in any order"), on one known program (apps/known_app.c, 2
ranks): each module's output is exactly what it is alone. The profile's calls and bytes per
routine (the application's) and the trace's events (the application's, per rank, in order)
are those of the module alone; the traffic of the modules above (their MPI_Init and
MPI_Finalize work) is kept apart in the one below: the profile counts it in tool_calls, the
trace marks it pnmpi::origin. With the monitor, the record's matrix is the same in every
order.

Usage: test_trace_stacked.py CONFIG.json [StackedTest.test_NAME]   (/usr/bin/python3)"""

import glob
import json
import os
import sys
import unittest

import test_trace as tt

PROFILE = "module profile\nargument output {work}/profile\n"
TRACE = "module trace\nargument output {work}/trace\n"
MONITOR = "module monitor\nargument output {work}/mon\n"
RANKS = 2


class StackedTest(unittest.TestCase):
    maxDiff = None

    def job(self, name, *modules):
        """Runs the known program under `modules` (config texts, top first); its work
        directory."""
        # Each test its own directories (the baseline's too): CTest runs them in parallel.
        work = tt.scratch(f"stacked/{self._testMethodName}/{name}")
        conf = "".join(m.format(work=work) for m in modules)
        proc = tt.run_job(RANKS, conf, [tt.CONFIG["known_app"]], work)
        self.assertEqual(proc.returncode, 0, tt.describe(proc))
        # Nothing on stderr but the monitor's summary, when it is in the stack.
        others = [l for l in proc.stderr.splitlines() if not l.startswith("pnmpi monitor: ")]
        self.assertEqual(others, [], name)
        self.assertEqual(MONITOR in modules, "pnmpi monitor: wrote " in proc.stderr, name)
        return work

    def record(self, work):
        sys.path.insert(0, os.path.join(tt.CONFIG["source"], "tools", "report"))
        from pnmpi_report import record
        [path] = glob.glob(os.path.join(work, "profile", "pnmpi-*.record.npz"))
        return record.read_record(path)

    def app_counts(self, r):
        """routine -> (calls per rank, bytes per rank) of the application's calls."""
        return {name: (list(r.calls[:, k]), list(r.bytes[:, k]))
                for k, name in enumerate(r.routines) if r.calls[:, k].any()}

    def events(self, work, include_tools=False):
        events, _ = tt.event_tuples(os.path.join(work, "trace"), include_tools)
        return {rank: tt.without_flushes(e) for rank, e in events.items()}

    @classmethod
    def setUpClass(cls):
        cls.alone = {}

    def baseline(self):
        if not self.alone:
            self.alone["profile"] = self.app_counts(self.record(self.job("profile", PROFILE)))
            self.alone["trace"] = self.events(self.job("trace", TRACE))
            # The trace alone has no tool's events; the profile alone counts no tool call.
            self.assertEqual(self.events(self.job("trace2", TRACE), True), self.alone["trace"])
        return self.alone

    def check(self, work, profile_above_trace, monitor=False):
        alone = self.baseline()
        r = self.record(work)
        self.assertEqual(self.app_counts(r), alone["profile"])
        self.assertEqual(r.ended, "finalized")
        app = self.events(work)
        self.assertEqual(app, alone["trace"])
        self.assertEqual(app, {k: tt.expected_known(k, RANKS) for k in range(RANKS)})
        with_tools = self.events(work, True)
        tool_calls = {k: [e[1] for e in with_tools[k] if e[0] == "Enter" and e[-1] == "tool"]
                      for k in with_tools}
        if profile_above_trace:
            # The profile's own traffic (the job id and the hosts' two gathers at MPI_Init,
            # the record's gather at MPI_Finalize) is in the trace, marked as a tool's; the
            # profile sees none of the trace's.
            for k in range(RANKS):
                for name in ("MPI_Bcast", "MPI_Gather", "MPI_Gatherv"):
                    self.assertIn(name, tool_calls[k], (k, name))
                self.assertGreaterEqual(tool_calls[k].count("MPI_Gather"), 3, k)
            if not monitor:
                self.assertEqual(int(r.tool_calls.sum()), 0)
        else:
            # The trace's own traffic (its communicator, the hosts, the clock offsets, the
            # archive's definitions) is in the profile's tool counts, not the application's;
            # the trace sees no tool's call.
            for name in ("MPI_Comm_dup", "MPI_Allgather", "MPI_Gatherv", "MPI_Allreduce"):
                k = r.routine_index(name)
                self.assertIsNotNone(k, name)
                self.assertTrue((r.tool_calls[:, k] > 0).all(), name)
            if not monitor:
                self.assertEqual(tool_calls, {k: [] for k in range(RANKS)})
        return r

    def test_profile_above_trace(self):
        self.check(self.job("profile_trace", PROFILE, TRACE), True)

    def test_trace_above_profile(self):
        self.check(self.job("trace_profile", TRACE, PROFILE), False)

    def test_with_the_monitor(self):
        """The monitor on top, in the middle and at the bottom: the record's matrix (the
        monitor's application traffic) is the same in every order."""
        matrices = []
        for name, modules, above in (("mtp", (MONITOR, TRACE, PROFILE), False),
                                     ("pmt", (PROFILE, MONITOR, TRACE), True),
                                     ("tpm", (TRACE, PROFILE, MONITOR), False)):
            r = self.check(self.job(name, *modules), above, monitor=True)
            matrices.append((list(r.p2p_src), list(r.p2p_dst), list(r.p2p_bytes),
                             list(r.p2p_count), r.comm_names))
        self.assertEqual(matrices[1], matrices[0])
        self.assertEqual(matrices[2], matrices[0])
        self.assertTrue(matrices[0][0], "the monitor's matrix is in the record")


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        tt.CONFIG.update(json.load(f))
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
