# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi-report check's wait-state analysis on hand-made traces (no MPI job): each category
with its exact waiting time, the root causes through chains of waits, the job's startup,
clock offsets and bounds, and the report's text and JSON. Run with /usr/bin/python3."""

import argparse
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tools", "report"))

from pnmpi_report import waitstates as ws  # noqa: E402
from pnmpi_report.trace_reader import Collective, Message, Region, Trace  # noqa: E402


class Builder:
    """A trace made by hand: calls, the messages between them, collectives. `shift` moves a
    rank's every time (a clock offset)."""

    def __init__(self, ranks, init_end=0.5, shift=None, hosts=None):
        self.trace = Trace(path="/x/traces.otf2", ranks=ranks, hosts=hosts or ["a"] * ranks,
                           start=0.0, end=10.0)
        self.shift = shift or [0.0] * ranks
        for r in range(ranks):
            self.call(r, "MPI_Init", 0.0, init_end)

    def t(self, rank, time):
        return time + self.shift[rank]

    def call(self, rank, routine, start, end):
        region = Region(rank, 0, routine, "p2p", self.t(rank, start), self.t(rank, end))
        self.trace.regions.append(region)
        return region

    def message(self, send, recv, completed, blocking=True, size=8):
        """`send`, `recv`: the Regions that sent it and in which it completed; `completed`:
        when the receive completed (receiver's time)."""
        m = Message(send.rank, recv.rank, 0, size, "MPI_COMM_WORLD", send.routine, send.start,
                    send.start, send.end, blocking, send_region_end=send.end,
                    recv_routine=recv.routine, recv_time=self.t(recv.rank, completed),
                    recv_start=recv.start)
        self.trace.messages.append(m)
        return m

    def collective(self, routine, enters, leave, root=None, comm="MPI_COMM_WORLD"):
        for rank, start in enumerate(enters):
            if start is None:
                continue
            self.call(rank, routine, start, leave)
            self.trace.collectives.append(Collective(rank, routine, comm, root, 0, 0,
                                                     self.t(rank, start),
                                                     self.t(rank, leave)))


def waits_of(analysis):
    """[(rank, category, seconds rounded to 1 ns, cause)] in rank and time order."""
    return [(w.rank, w.category, round(w.seconds, 9), w.cause) for w in analysis.waits]


def rounded(d):
    return {k: round(v, 9) for k, v in d.items()}


def ring(delayed, ranks=3, delay=0.1, shift=None):
    """The coupled pattern, one step: every rank enters an MPI_Sendrecv to the next rank at
    t=1; the delayed rank's is held `delay` seconds below the trace, so its message leaves
    then and it receives only then; its successor receives then; the others are done at
    1.001 and enter the barrier, which the successor enters last, at 1.1005."""
    b = Builder(ranks, shift=shift)
    succ = (delayed + 1) % ranks
    ends = {r: 1.001 for r in range(ranks)}
    ends[delayed] = 1.0 + delay
    ends[succ] = 1.0 + delay
    calls = {r: b.call(r, "MPI_Sendrecv", 1.0, ends[r]) for r in range(ranks)}
    for r in range(ranks):
        nxt = (r + 1) % ranks
        # Received when both were there: the delayed rank's message and everything the
        # delayed rank receives arrive when it is released.
        done = 1.0 + delay if delayed in (r, nxt) else 1.001
        b.message(calls[r], calls[nxt], done)
    enters = [ends[r] for r in range(ranks)]
    enters[succ] = 1.0 + delay + 0.0005
    b.collective("MPI_Barrier", enters, 1.0 + delay + 0.0006)
    return b.trace


class Categories(unittest.TestCase):
    def test_late_sender_entered_late(self):
        """Scalasca's late sender: the receive waits from its start to the send's."""
        b = Builder(2)
        recv = b.call(0, "MPI_Recv", 1.0, 1.5)
        send = b.call(1, "MPI_Send", 1.5, 1.5)
        b.message(send, recv, 1.5)
        a = ws.analyse(b.trace, clock_error=0.0)
        self.assertEqual(waits_of(a), [(0, ws.LATE_SENDER, 0.5, 1)])
        self.assertEqual(rounded(a.caused), {1: 0.5})

    def test_late_sender_held_below_the_trace(self):
        """A send held inside its call (module delay below the trace): the trace has it
        issued at the call's start, but the receiver was there and got it only at the end:
        the wait is the whole hold."""
        b = Builder(2)
        recv = b.call(0, "MPI_Recv", 1.0, 1.3)
        send = b.call(1, "MPI_Send", 1.0, 1.3)
        b.message(send, recv, 1.3)
        a = ws.analyse(b.trace, clock_error=0.0)
        self.assertEqual(waits_of(a), [(0, ws.LATE_SENDER, 0.3, 1)])

    def test_transfer_time_is_not_waiting(self):
        """The model's transfer time is taken off: a 0.2 s transfer of a message sent at once
        to a waiting receiver is communication, not a late sender."""
        b = Builder(2)
        recv = b.call(0, "MPI_Recv", 1.0, 1.2)
        send = b.call(1, "MPI_Send", 1.0, 1.2)
        b.message(send, recv, 1.2, size=1 << 20)
        a = ws.analyse(b.trace, transfer=lambda m: 0.2 if m.size > 1000 else 0.0,
                       clock_error=0.0)
        self.assertEqual(waits_of(a), [])

    def test_late_receiver(self):
        """MPI_Ssend waits from its start to its receive's; a standard send that the receiver
        had to wait for (held below the trace) is a late sender, not a late receiver. Each
        message takes 0.1 ms once both sides are there."""
        b = Builder(3)
        ssend = b.call(1, "MPI_Ssend", 1.0, 1.5001)
        recv = b.call(0, "MPI_Recv", 1.5, 1.5001)
        b.message(ssend, recv, 1.5001)
        held = b.call(2, "MPI_Send", 2.0, 3.0)
        late = b.call(0, "MPI_Recv", 2.5, 3.0001)
        b.message(held, late, 3.0001)
        a = ws.analyse(b.trace, transfer=lambda m: 0.0001, clock_error=0.0)
        self.assertEqual(waits_of(a), [(0, ws.LATE_SENDER, 0.5, 2),
                                       (1, ws.LATE_RECEIVER, 0.5, 0)])

    def test_late_receiver_nonblocking(self):
        """An MPI_Issend completed by an MPI_Wait: the Wait waits for the receive."""
        b = Builder(2)
        isend = b.call(1, "MPI_Issend", 1.0, 1.0001)
        b.call(1, "MPI_Wait", 1.1, 1.6001)
        recv = b.call(0, "MPI_Recv", 1.6, 1.6001)
        m = b.message(isend, recv, 1.6001, blocking=False)
        m.send_end = 1.6001
        a = ws.analyse(b.trace, clock_error=0.0)
        self.assertEqual(waits_of(a), [(1, ws.LATE_RECEIVER, 0.5, 0)])
        self.assertEqual(a.waits[0].routine, "MPI_Wait")

    def test_collectives(self):
        """Barrier and N x N wait for the last to enter, a broadcast's others for its root,
        a reduce's root for the first other member."""
        b = Builder(3)
        b.collective("MPI_Barrier", [1.0, 1.2, 1.5], 1.5001)
        b.collective("MPI_Allreduce", [2.0, 2.4, 2.1], 2.4001)
        b.collective("MPI_Bcast", [3.0, 3.3, 3.1], 3.3001, root=1)
        b.collective("MPI_Reduce", [4.0, 4.2, 4.5], 4.5001, root=0)
        b.collective("MPI_Iallreduce", [5.0, 5.5, 5.9], 5.9001)  # nonblocking: not analysed
        a = ws.analyse(b.trace, clock_error=0.0)
        self.assertEqual(waits_of(a), [
            (0, ws.WAIT_BARRIER, 0.5, 2), (0, ws.WAIT_NXN, 0.4, 1),
            (0, ws.LATE_BROADCAST, 0.3, 1), (0, ws.EARLY_REDUCE, 0.2, 1),
            (1, ws.WAIT_BARRIER, 0.3, 2),
            (2, ws.WAIT_NXN, 0.3, 1), (2, ws.LATE_BROADCAST, 0.2, 1)])
        self.assertEqual({c: round(s, 9) for c, (s, _) in a.by_category().items()},
                         {ws.LATE_SENDER: 0, ws.LATE_RECEIVER: 0, ws.WAIT_BARRIER: 0.8,
                          ws.WAIT_NXN: 0.7, ws.LATE_BROADCAST: 0.5, ws.EARLY_REDUCE: 0.2})

    def test_mismatched_collectives_are_said(self):
        b = Builder(2)
        b.collective("MPI_Barrier", [1.0, 1.5], 1.5001)
        b.collective("MPI_Barrier", [2.0, None], 2.0001)
        a = ws.analyse(b.trace, clock_error=0.0)
        self.assertEqual(waits_of(a), [])
        self.assertEqual(a.notes, ["collectives on MPI_COMM_WORLD not analysed: its ranks "
                                   "recorded different numbers of them (1 to 2)"])

    def test_one_wait_per_call(self):
        """A Waitall completing two late messages waits once, for the later sender."""
        b = Builder(3)
        waitall = b.call(0, "MPI_Waitall", 1.0, 1.5)
        s1 = b.call(1, "MPI_Isend", 1.2, 1.2)
        s2 = b.call(2, "MPI_Isend", 1.5, 1.5)
        b.message(s1, waitall, 1.5, blocking=False)
        b.message(s2, waitall, 1.5, blocking=False)
        a = ws.analyse(b.trace, clock_error=0.0)
        self.assertEqual(waits_of(a), [(0, ws.LATE_SENDER, 0.5, 2)])


class RootCauses(unittest.TestCase):
    def test_coupled_ring_names_the_delayed_rank(self):
        """The coupled pattern: the successor waits in its Sendrecv, the others at the
        barrier, for the successor, which entered it last; the chain leads to the delayed
        rank, whichever it is."""
        for delayed in range(3):
            with self.subTest(delayed=delayed):
                a = ws.analyse(ring(delayed), clock_error=0.0)
                succ, other = (delayed + 1) % 3, (delayed + 2) % 3
                self.assertEqual(sorted(waits_of(a)), sorted([
                    (succ, ws.LATE_SENDER, 0.1, delayed),
                    (other, ws.WAIT_BARRIER, 0.0995, succ),
                    (delayed, ws.WAIT_BARRIER, 0.0005, succ)]))
                self.assertEqual(rounded(a.caused), {delayed: 0.199, succ: 0.001})
                self.assertEqual(rounded(a.direct), {delayed: 0.1, succ: 0.1})
                self.assertEqual({k: rounded(v) for k, v in a.victims.items()},
                                 {delayed: {succ: 0.1, other: 0.099},
                                  succ: {other: 0.0005, delayed: 0.0005}})
                self.assertEqual(a.causes(0.01, 0.1), [delayed])

    def test_held_sendrecv_waits_for_no_one(self):
        """Rank 1's Sendrecv is held 0.1 s below the trace; rank 0 enters its own at 1.05, after
        rank 1's started but before it was released. Rank 1 posted its receive only when
        released (its message to rank 2 shows when), so it did not wait for rank 0; rank 2
        waited the whole hold for rank 1."""
        b = Builder(3)
        c0 = b.call(0, "MPI_Sendrecv", 1.05, 1.1)
        c1 = b.call(1, "MPI_Sendrecv", 1.0, 1.1)
        c2 = b.call(2, "MPI_Sendrecv", 1.0, 1.1)
        b.message(c0, c1, 1.1)
        b.message(c1, c2, 1.1)
        b.message(c2, c0, 1.05)
        a = ws.analyse(b.trace, clock_error=0.0)
        self.assertEqual(waits_of(a), [(2, ws.LATE_SENDER, 0.1, 1)])

    def test_chain_through_startup(self):
        """Rank 2 waits for rank 1, which waits for rank 0, which is still in MPI_Init for
        part of it: that part is the startup's, the rest rank 0's, and rank 1's own."""
        b = Builder(3, init_end=1.0)
        b.trace.regions = [r for r in b.trace.regions if r.rank != 0]
        b.call(0, "MPI_Init", 0.0, 2.3)
        r1 = b.call(1, "MPI_Recv", 2.0, 2.6)
        s0 = b.call(0, "MPI_Send", 2.6, 2.6)
        b.message(s0, r1, 2.6)
        r2 = b.call(2, "MPI_Recv", 2.0, 3.0)
        s1 = b.call(1, "MPI_Send", 3.0, 3.0)
        b.message(s1, r2, 3.0)
        a = ws.analyse(b.trace, clock_error=0.0)
        self.assertEqual(waits_of(a), [(1, ws.LATE_SENDER, 0.6, 0), (2, ws.LATE_SENDER, 1.0, 1)])
        self.assertEqual(rounded(a.caused), {ws.STARTUP: 0.6, 0: 0.6, 1: 0.4})
        self.assertEqual(a.causes(0.01, 0.1), [0, 1])
        self.assertEqual(a.causes(0.01, 0.5), [0])

    def test_mutual_waits_are_cut(self):
        """Two ranks cannot wait for each other at once: where two such waits overlap, the
        one that ended first goes."""
        first = ws.Wait(0, ws.LATE_SENDER, "MPI_Sendrecv", 1.0, 1.1, 1)
        second = ws.Wait(1, ws.LATE_SENDER, "MPI_Sendrecv", 1.0, 1.1002, 0)
        self.assertEqual(ws._mutual([first, second]), [second])
        partial = ws.Wait(0, ws.LATE_SENDER, "MPI_Recv", 0.9, 1.05, 1)
        kept = ws._mutual([partial, ws.Wait(1, ws.LATE_SENDER, "MPI_Recv", 1.0, 1.2, 0)])
        self.assertEqual([(w.rank, round(w.start, 9), round(w.end, 9)) for w in kept],
                         [(0, 0.9, 1.0), (1, 1.0, 1.2)])

    def test_cycle_stops(self):
        """A chain that comes back to a rank already on it stops there (a cycle of waits is
        impossible; only bad clocks make one): every second is charged once, to a rank on it."""
        waits = [ws.Wait(0, ws.WAIT_BARRIER, "MPI_Barrier", 1.0, 2.0, 1),
                 ws.Wait(1, ws.LATE_SENDER, "MPI_Recv", 1.0, 2.0, 2),
                 ws.Wait(2, ws.LATE_SENDER, "MPI_Recv", 1.0, 2.0, 0)]
        caused, _, _ = ws.attribute(waits, 3, {})
        self.assertAlmostEqual(sum(caused.values()), 3.0)
        self.assertLessEqual(set(caused), {0, 1, 2})


class Clocks(unittest.TestCase):
    def test_small_offsets_make_no_waits(self):
        """Ranks whose clocks disagree by under the tolerance: a step in which every rank
        enters at the same instant has no wait, whichever way the clocks are off."""
        for shift in ([0.4e-6, -0.5e-6, 0.0], [-0.5e-6, 0.0, 0.4e-6]):
            b = Builder(3, shift=shift)
            calls = {r: b.call(r, "MPI_Sendrecv", 1.0, 1.0) for r in range(3)}
            for r in range(3):
                b.message(calls[r], calls[(r + 1) % 3], 1.0)
            b.collective("MPI_Barrier", [1.0, 1.0, 1.0], 1.0)
            a = ws.analyse(b.trace, clock_error=1e-6)
            self.assertEqual(waits_of(a), [], shift)

    def test_offsets_shrink_waits_and_keep_the_cause(self):
        for shift in ([0.4e-6, -0.5e-6, 0.0], [0.0, 0.3e-6, -0.2e-6]):
            a = ws.analyse(ring(2, shift=shift), clock_error=1e-6)
            self.assertEqual(a.causes(0.01, 0.1), [2], shift)
            exact = {(w[0], w[1]): w[2] for w in waits_of(ws.analyse(ring(2), clock_error=0))}
            for w in a.waits:
                self.assertLessEqual(w.seconds, exact[(w.rank, w.category)] + 1e-9)
                self.assertGreaterEqual(w.seconds, exact[(w.rank, w.category)] - 2e-6)

    def test_bounds_from_the_archive(self):
        props = {"PNMPI::CLOCK_ALIGNMENT": "applied: rank 0's clock, offsets measured ...",
                 "PNMPI::CLOCK_OFFSETS": "rank 0 host a offset-init 0 offset-finalize 0 "
                                         "bound-init 0 bound-finalize 0; rank 1 host b "
                                         "offset-init -1000 offset-finalize -990 bound-init "
                                         "9212 bound-finalize 8840"}
        aligned, bounds = ws.clock_bounds(props, 2)
        self.assertTrue(aligned)
        self.assertEqual(bounds[0], 0.0)
        self.assertAlmostEqual(bounds[1], 9.212e-6, places=15)
        self.assertEqual(ws.clock_bounds({}, 2), (None, [0.0, 0.0]))
        t = ring(0, ranks=3)
        t.properties = dict(props)
        a = ws.analyse(t, clock_error=1e-6)
        self.assertAlmostEqual(a.tolerance, 1e-6 + 9.212e-6)
        # A wait between ranks 0 and 1 loses both ranks' bounds; ranks 0 and 2 the error only.
        got = {(w.rank, w.category): w.seconds for w in a.waits}
        self.assertAlmostEqual(got[(1, ws.LATE_SENDER)], 0.1 - 1e-6 - 9.212e-6, places=12)
        self.assertAlmostEqual(got[(2, ws.WAIT_BARRIER)], 0.0995 - 1e-6 - 9.212e-6, places=12)

    def test_local_clocks_on_several_hosts_are_not_analysed(self):
        t = ring(0)
        t.hosts = ["a", "b", "b"]
        t.properties = {"PNMPI::CLOCK_ALIGNMENT": "none: each rank's own CLOCK_MONOTONIC"}
        a = ws.analyse(t)
        self.assertEqual(a.waits, [])
        lines = ws.report_lines(a, 0.01, 0.1)
        self.assertEqual(lines, ["note: wait states not analysed: the trace's clocks are each "
                                 "rank's own (argument clock local) and its ranks ran on 2 "
                                 "hosts"])


class Report(unittest.TestCase):
    def test_text(self):
        a = ws.analyse(ring(1), clock_error=0.0)
        self.assertEqual(ws.report_lines(a, 0.01, 0.1), [
            "wait states: 200.000 ms of waiting in MPI calls (waits shorter than the clock "
            "tolerance, 0 s, not counted)",
            "  late sender: 100.000 ms in 1 call(s)",
            "  late receiver: none",
            "  wait at barrier: 100.000 ms in 2 call(s)",
            "  wait at N x N: none",
            "  late broadcast: none",
            "  early reduce: none",
            "waiting per rank, and the waiting it caused (as the immediate cause, and as the "
            "root cause at the end of chains of waits):",
            "  rank 0: waited 99.500 ms (wait at barrier 99.500 ms); immediate cause of 0 s, "
            "root cause of 0 s",
            "  rank 1: waited 500.000 us (wait at barrier 500.000 us); immediate cause of "
            "100.000 ms, root cause of 199.000 ms",
            "  rank 2: waited 100.000 ms (late sender 100.000 ms); immediate cause of "
            "100.000 ms, root cause of 1.000 ms",
            "cause: rank 1: 199.000 ms of waiting (100% of the waiting charged to ranks), of "
            "rank 2 100.000 ms, rank 0 99.000 ms"])
        none = ws.report_lines(a, 1.0, 0.1)
        self.assertEqual(none[-1], "cause: none (no rank caused at least 1.000 s and 10% of "
                                   "the waiting charged to ranks)")

    def test_many_ranks(self):
        """With more than 32 ranks that waited or caused waiting, the 32 that did most are
        listed, in rank order, and how many more."""
        b = Builder(40)
        b.collective("MPI_Barrier", [1.0 + 0.01 * r for r in range(40)], 2.0)
        lines = ws.report_lines(ws.analyse(b.trace, clock_error=0.0), 0.01, 0.1)
        ranks = [l for l in lines if l.startswith("  rank ")]
        self.assertEqual([int(l.split()[1].rstrip(":")) for l in ranks],
                         list(range(31)) + [39])
        self.assertIn("  ... and 8 more ranks, each less (--json lists them all)", lines)

    def test_json(self):
        a = ws.analyse(ring(1), clock_error=0.0)
        j = ws.to_json(a, 0.01, 0.1)
        self.assertEqual([c["rank"] for c in j["causes"]], [1])
        self.assertAlmostEqual(j["causes"][0]["caused"], 0.199)
        self.assertEqual(sorted(j["causes"][0]["victims"]), ["0", "2"])
        self.assertAlmostEqual(j["total"], 0.2)
        self.assertEqual(j["categories"][ws.LATE_SENDER]["calls"], 1)
        self.assertAlmostEqual(j["ranks"][2]["waited_by_category"][ws.LATE_SENDER], 0.1)
        self.assertAlmostEqual(sum(r["caused"] for r in j["ranks"]) + j["startup"], j["total"])

    def test_arguments(self):
        parser = argparse.ArgumentParser()
        ws.add_arguments(parser)
        self.assertIsNone(ws.check_arguments(parser.parse_args([])))
        for argv, message in (
                (["--min-share", "2"], "--min-share must be at least 0 and at most 1, not 2"),
                (["--min-wait", "-1"], "--min-wait must be at least 0, not -1"),
                (["--min-wait", "nan"], "--min-wait must be at least 0, not nan"),
                (["--clock-error", "5"], "--clock-error must be at least 0 and at most 1, "
                                         "not 5")):
            self.assertEqual(ws.check_arguments(parser.parse_args(argv)), message)


if __name__ == "__main__":
    unittest.main(verbosity=2)
