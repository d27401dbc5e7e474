# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi-report check's wait states and root causes on real jobs (mpirun, 3 or 4 ranks):
one rank made late, by `module delay` below the trace or by the program itself; check must
name that rank as the cause and no other, and no rank when none is late.

The injected lateness (0.3 s per step) is large against a loaded machine's scheduling noise
(milliseconds to a few tens), and the tests assert which ranks are named, never times:
a rank is named when it caused at least MIN_WAIT seconds and MIN_SHARE of the waiting charged
to ranks (not to the startup).

Usage: test_waitstates.py CONFIG.json [WaitStatesTest.test_NAME]   (run with /usr/bin/python3)"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import test_trace  # noqa: E402
from test_trace import CONFIG, describe, report, run_job, scratch  # noqa: E402

DELAY_US = 300000
STEPS = 4
MIN_WAIT = "0.5"
MIN_SHARE = "0.2"


def ranks():
    """4 ranks on Open MPI (oversubscribed, it yields when idle); 3 on MPICH, which polls."""
    return 4 if CONFIG["flavor"] == "openmpi" else 3


class WaitStatesTest(unittest.TestCase):
    maxDiff = None

    def traced(self, name, n, program, delayed=None, delay_us=DELAY_US):
        """Runs `program` on n ranks under the trace (and the delay layer below it, slowing
        the ranks `delayed`); returns the trace directory."""
        work = scratch(f"waits-{name}")
        out = os.path.join(work, "trace")
        conf = f"module trace\nargument output {out}\n"
        if delayed is not None:
            conf += f"module delay\nargument delay-us {delay_us}\nargument ranks {delayed}\n"
        proc = run_job(n, conf, program, work)
        self.assertEqual(proc.returncode, 0, describe(proc))
        return out

    def check(self, out):
        """check --json on `out`: (its wait states, the CompletedProcess of the text run)."""
        args = ["check", out, "--min-wait", MIN_WAIT, "--min-share", MIN_SHARE]
        r = report(*args, "--json")
        self.assertIn(r.returncode, (0, 1), r.stdout + r.stderr)
        data = json.loads(r.stdout)
        self.assertEqual(r.returncode, data["status"])
        text = report(*args)
        self.assertEqual(text.returncode, r.returncode, text.stdout + text.stderr)
        return data["waits"], text

    def assert_named(self, out, expected, categories):
        waits, text = self.check(out)
        named = [c["rank"] for c in waits["causes"]]
        self.assertEqual(sorted(named), expected, text.stdout)
        for category in categories:
            self.assertGreater(waits["categories"][category]["calls"], 0, text.stdout)
        lines = [l for l in text.stdout.splitlines() if l.startswith("cause: ")]
        if expected:
            self.assertEqual(sorted(int(l.split()[2].rstrip(":")) for l in lines), expected,
                             text.stdout)
            self.assertEqual(text.returncode, 1)
        else:
            self.assertEqual(len(lines), 1, text.stdout)
            self.assertEqual(lines[0], "cause: none (no rank caused at least 500.000 ms and "
                                       "20% of the waiting charged to ranks)", text.stdout)
        # Per rank, the JSON's waiting adds up to the total, and so does what was charged.
        self.assertAlmostEqual(sum(r["waited"] for r in waits["ranks"]), waits["total"],
                               delta=1e-9)
        self.assertAlmostEqual(sum(r["caused"] for r in waits["ranks"]) + waits["startup"],
                               waits["total"], delta=1e-6)
        return waits

    def test_ring(self):
        """The coupled pattern: a ring of MPI_Sendrecv and a barrier per step, one rank's
        Sendrecv delayed below the trace. Every rank waits (the delayed rank's successor in
        its Sendrecv, the others at the barrier), but only the delayed rank is named; with no
        rank delayed, none is."""
        n = ranks()
        for late in range(n):
            with self.subTest(delayed=late):
                out = self.traced(f"ring{late}", n, [CONFIG["waits_app"], "ring", str(STEPS)],
                                  delayed=late)
                waits = self.assert_named(out, [late], ["late sender", "wait at barrier"])
                # The successor waited for it in its Sendrecv.
                successor = waits["ranks"][(late + 1) % n]
                self.assertGreater(successor["waited_by_category"]["late sender"], 0)
        out = self.traced("ring-none", n, [CONFIG["waits_app"], "ring", str(STEPS)])
        self.assert_named(out, [], [])

    def test_slow_app(self):
        """The pattern test_trace's slowdown test uses: a ring of blocking sends and
        receives on 4 ranks, ranks 1 and 3's sends delayed below the trace: both named."""
        out = self.traced("slow", 4, [CONFIG["slow_app"], "3"], delayed="1,3", delay_us=300000)
        self.assert_named(out, [1, 3], ["late sender"])

    def test_late_sender(self):
        """The late rank sleeps before sending to every other rank, which wait in MPI_Recv."""
        n = ranks()
        late = n - 1
        out = self.traced("late-sender", n, [CONFIG["waits_app"], "late-sender", str(STEPS),
                                            str(late), str(DELAY_US // 1000)])
        waits = self.assert_named(out, [late], ["late sender"])
        for rank in range(n - 1):
            self.assertGreater(waits["ranks"][rank]["waited_by_category"]["late sender"], 0)

    def test_late_receiver(self):
        """The late rank sleeps before receiving from every other rank, which wait in
        MPI_Ssend."""
        n = ranks()
        out = self.traced("late-receiver", n, [CONFIG["waits_app"], "late-receiver",
                                              str(STEPS), "0", str(DELAY_US // 1000)])
        waits = self.assert_named(out, [0], ["late receiver"])
        for rank in range(1, n):
            self.assertGreater(waits["ranks"][rank]["waited_by_category"]["late receiver"], 0)

    def test_collectives(self):
        """The late rank sleeps before each MPI_Barrier and MPI_Allreduce."""
        n = ranks()
        out = self.traced("collectives", n, [CONFIG["waits_app"], "collectives", str(STEPS),
                                            "1", str(DELAY_US // 1000)])
        waits = self.assert_named(out, [1], ["wait at barrier", "wait at N x N"])
        for rank in (0, 2):
            self.assertGreater(waits["ranks"][rank]["waited_by_category"]["wait at barrier"], 0)
            self.assertGreater(waits["ranks"][rank]["waited_by_category"]["wait at N x N"], 0)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        CONFIG.update(json.load(f))
    test_trace.CONFIG.update(CONFIG)
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
