# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The trace's request matching and inter-communicators in real jobs, checked exactly from
the OTF2 archive (Debian's python3-otf2): requests issued on one thread and completed on
another (mt_app, MPI_THREAD_MULTIPLE), a full request table, and messages and collectives
on inter-communicators (inter_app).

Usage: test_trace_req.py CONFIG.json [TraceReqTest.test_NAME]   (run with /usr/bin/python3)"""

import collections
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_trace as base  # noqa: E402  (run_job, scratch, describe; shares its CONFIG)

CONFIG = base.CONFIG


def rank_of(location):
    return int(location.group.name.split()[-1])


def world_of(comm, rank_in_comm, me=None):
    """The world rank of `rank_in_comm`, a rank of `comm`'s group. An inter-communicator's
    group is the union of its two groups (docs/trace.md), so it resolves the same way."""
    return [rank_of(x) for x in comm.group.members][rank_in_comm]


def comm_shape(comm):
    """A communicator as (inter or intra, by its name; its group's world ranks)."""
    kind = "inter" if comm.name.startswith("intercomm ") else "intra"
    return (kind, tuple(rank_of(x) for x in comm.group.members))


def read_events(trace_dir):
    """[(rank, location name, event)] in each location's order."""
    import otf2
    out = []
    with otf2.reader.open(os.path.join(trace_dir, "traces.otf2")) as reader:
        for location, e in reader.events:
            out.append((rank_of(location), location.name, e))
    return out


def summary(trace_dir):
    """summary.txt's text, and its totals (the lines of a name and a number)."""
    with open(os.path.join(trace_dir, "summary.txt")) as f:
        text = f.read()
    totals = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 2 and words[1].isdigit():
            totals[words[0]] = int(words[1])
    return text, totals


ROUNDS = 200


def mt_bytes(k, i):
    return 4 * (i % 7 + 1) + k


class TraceReqTest(unittest.TestCase):
    maxDiff = None

    def check_mt(self, out, rounds):
        from otf2 import events as ev
        events = read_events(out)
        for rank in (0, 1):
            peer = 1 - rank
            issued = {}      # request id -> (kind, location, tag, bytes)
            completed = collections.Counter()
            irecv_order = collections.defaultdict(list)  # location -> request ids in order
            sends = collections.defaultdict(list)        # location -> tags in order
            mine = [(loc, e) for r, loc, e in events if r == rank]
            for loc, e in mine:
                if isinstance(e, ev.MpiIsend):
                    self.assertNotIn(e.request_id, issued)
                    self.assertEqual(world_of(e.communicator, e.receiver, rank), peer)
                    issued[e.request_id] = ("send", loc, e.msg_tag, e.msg_length)
                    sends[loc].append(e.msg_tag)
                elif isinstance(e, ev.MpiIrecvRequest):
                    self.assertNotIn(e.request_id, issued)
                    issued[e.request_id] = ("recv", loc, None, None)
                    irecv_order[loc].append(e.request_id)
            # The issuer thread of pair k is the location whose sends have tags 1000 k + i.
            round_of = {}
            self.assertEqual(len(sends), 2, sends.keys())
            for loc, tags in sends.items():
                k = tags[0] // 1000
                self.assertEqual(tags, [1000 * k + i for i in range(rounds)], loc)
                self.assertEqual(len(irecv_order[loc]), rounds, loc)
                for i, rid in enumerate(irecv_order[loc]):
                    round_of[rid] = (k, i)
            for rid, (kind, loc, tag, length) in issued.items():
                if kind == "send":
                    self.assertEqual(length, mt_bytes(*divmod(tag, 1000)), (rank, loc, tag))
            self.assertEqual(len(issued), 4 * rounds)
            for loc, e in mine:
                if isinstance(e, ev.MpiIsendComplete):
                    self.assertIn(e.request_id, issued, (rank, loc))
                    kind, where, _, _ = issued[e.request_id]
                    self.assertEqual(kind, "send")
                    self.assertNotEqual(where, loc, "completed on the issuing thread")
                    completed[e.request_id] += 1
                elif isinstance(e, ev.MpiIrecv):
                    self.assertIn(e.request_id, issued, (rank, loc))
                    kind, where, _, _ = issued[e.request_id]
                    self.assertEqual(kind, "recv")
                    self.assertNotEqual(where, loc, "completed on the issuing thread")
                    k, i = round_of[e.request_id]
                    self.assertEqual((world_of(e.communicator, e.sender, rank), e.msg_tag,
                                      e.msg_length), (peer, 1000 * k + i, mt_bytes(k, i)),
                                     (rank, loc, k, i))
                    completed[e.request_id] += 1
                elif isinstance(e, ev.MpiRequestCancelled):
                    self.fail(f"rank {rank}: a request recorded as cancelled")
            self.assertEqual(set(completed), set(issued), f"rank {rank}: completions")
            self.assertEqual(set(completed.values()), {1}, f"rank {rank}: completed twice")

    def test_threads(self):
        """Issued on one thread, completed on another, four threads per rank at once: every
        IsendComplete and Irecv matches its request's id, peer, tag and bytes, exactly once."""
        work = base.scratch("req_threads")
        out = os.path.join(work, "trace")
        proc = base.run_job(2, f"module trace\nargument output {out}\n",
                            [CONFIG["mt_app"], str(ROUNDS)], work, timeout=240)
        self.assertEqual(proc.returncode, 0, base.describe(proc))
        self.assertIn("mt ok", proc.stdout)
        # The waiters' MPI_Test loops may fill a buffer: its flush is said, nothing else.
        self.assertEqual([l for l in proc.stderr.splitlines()
                          if not l.startswith("pnmpi: module 'trace': wrote ")], [],
                         proc.stderr)
        self.check_mt(out, ROUNDS)
        text, totals = summary(out)
        self.assertEqual(totals["unknown-objects"], 0, text)
        self.assertEqual(totals["untracked-requests"], 0, text)

    def test_table_full(self):
        """A request table of 64 slots with 4 x 200 requests in flight per rank (the waiters
        start once everything is posted): what did not fit is counted and said with the
        argument to raise, and every completion recorded still matches its request."""
        work = base.scratch("req_full")
        out = os.path.join(work, "trace")
        proc = base.run_job(2, f"module trace\nargument output {out}\nargument requests 64\n",
                            [CONFIG["mt_app"], str(ROUNDS), "lag"], work, timeout=240)
        self.assertEqual(proc.returncode, 0, base.describe(proc))
        text, totals = summary(out)
        untracked = totals["untracked-requests"]
        self.assertGreater(untracked, 4 * ROUNDS - 64, text)
        for rank in (0, 1):
            self.assertIn(f"pnmpi: module 'trace': rank {rank}: ", proc.stderr)
        self.assertIn("were not tracked (the request table was full): their completions are "
                      "missing from the archive; raise 'argument requests' (now 64) under "
                      "'module trace'", proc.stderr)
        from otf2 import events as ev
        issued, done = set(), collections.Counter()
        for rank, loc, e in read_events(out):
            if isinstance(e, (ev.MpiIsend, ev.MpiIrecvRequest)):
                issued.add((rank, e.request_id))
            elif isinstance(e, (ev.MpiIsendComplete, ev.MpiIrecv)):
                done[(rank, e.request_id)] += 1
        self.assertLessEqual(set(done), issued)
        self.assertEqual(set(done.values()), {1})
        self.assertEqual(len(issued) - len(done), untracked, text)

    def test_table_small(self):
        """A table of 64 slots holds the known program's few requests in flight over 300
        rounds (some 1200 requests per rank): a completed request's slot is free again at
        once, so none is left untracked, and the trace is exactly the expected one."""
        work = base.scratch("req_small")
        out = os.path.join(work, "trace")
        proc = base.run_job(2, f"module trace\nargument output {out}\nargument requests 64\n",
                            [CONFIG["known_app"], "300"], work)
        self.assertEqual(proc.returncode, 0, base.describe(proc))
        self.assertEqual(proc.stderr, "")
        text, totals = summary(out)
        self.assertEqual(totals["untracked-requests"], 0, text)
        events, _ = base.event_tuples(out)
        for rank in (0, 1):
            self.assertEqual(events[rank], base.expected_known(rank, 2, 300), rank)

    def test_bad_argument(self):
        work = base.scratch("req_bad")
        out = os.path.join(work, "trace")
        proc = base.run_job(2, f"module trace\nargument output {out}\nargument requests 10\n",
                            [CONFIG["known_app"]], work)
        self.assertNotEqual(proc.returncode, 0, base.describe(proc))
        self.assertIn("pnmpi: ", proc.stderr)
        self.assertIn("'requests'", proc.stderr)

        # A buffer too large is not called too small, and the message names its line.
        for value in ("2T", "1K", "12Q"):
            proc = base.run_job(2, f"module trace\nargument output {out}\nargument buffer {value}\n",
                                [CONFIG["known_app"]], work)
            self.assertNotEqual(proc.returncode, 0, base.describe(proc))
            conf = os.path.join(work, "pnmpi.conf")
            self.assertIn(f"pnmpi: {conf}:3: module 'trace': argument 'buffer' must be a size in "
                          f"bytes from 4096 to 1T, with an optional K, M or G (powers of 1024), "
                          f"not '{value}'\n", proc.stderr)

    def test_inter(self):
        """Inter-communicators on 4 ranks: every message and collective on them recorded with
        its peer and root translated from the remote group to the union group the archive
        defines, exactly; unknown-objects 0."""
        from otf2 import events as ev
        work = base.scratch("req_inter")
        out = os.path.join(work, "trace")
        n = 4
        proc = base.run_job(n, f"module trace\nargument output {out}\n", [CONFIG["inter_app"]],
                            work)
        self.assertEqual(proc.returncode, 0, base.describe(proc))
        self.assertIn("inter ok", proc.stdout)
        self.assertEqual(proc.stderr, "")
        text, totals = summary(out)
        self.assertEqual(totals["unknown-objects"], 0, text)
        lower, upper = tuple(range(n // 2)), tuple(range(n // 2, n))
        inter = ("inter", lower + upper)
        merged = ("intra", lower + upper)
        got = collections.defaultdict(list)
        names = collections.defaultdict(set)
        for rank, _, e in read_events(out):
            if isinstance(e, (ev.MpiSend, ev.MpiIsend)):
                got[rank].append((type(e).__name__, comm_shape(e.communicator),
                                  world_of(e.communicator, e.receiver, rank), e.msg_tag,
                                  e.msg_length))
                names[comm_shape(e.communicator)].add(e.communicator.name)
            elif isinstance(e, (ev.MpiRecv, ev.MpiIrecv)):
                got[rank].append((type(e).__name__, comm_shape(e.communicator),
                                  world_of(e.communicator, e.sender, rank), e.msg_tag,
                                  e.msg_length))
                names[comm_shape(e.communicator)].add(e.communicator.name)
            elif isinstance(e, ev.MpiCollectiveEnd):
                root = None if e.root in (None, 0xFFFFFFFF) else \
                    world_of(e.communicator, e.root, rank)
                got[rank].append(("Coll", str(e.collective_op).split(".")[-1],
                                  comm_shape(e.communicator), root))
                names[comm_shape(e.communicator)].add(e.communicator.name)
        for rank in range(n):
            up = rank >= n // 2
            me = rank - n // 2 if up else rank
            other = me if up else me + n // 2
            e = []
            if up:
                e.append(("MpiRecv", inter, other, 1, 40 + 4 * me))
            else:
                e.append(("MpiSend", inter, other, 1, 40 + 4 * me))
            e.append(("MpiIsend", inter, other, 2, 8 + me))
            e.append(("MpiIrecv", inter, other, 2, 8 + me))
            e.append(("Coll", "ALLREDUCE", inter, None))
            # The Bcast's root is the lower half's rank 0: a rank of the remote group for the
            # upper half; MPI_ROOT and MPI_PROC_NULL in the lower half are no rank.
            e.append(("Coll", "BCAST", inter, 0 if up else None))
            e.append(("MpiRecv" if up else "MpiSend", inter, other, 3, 12))
            e.append(("Coll", "ALLREDUCE", merged, None))
            if rank == 0:
                e.append(("MpiSend", merged, n - 1, 4, 20))
            elif rank == n - 1:
                e.append(("MpiRecv", merged, 0, 4, 20))
            self.assertEqual(got[rank], e, f"rank {rank}")
        # The dup of the inter-communicator and the idup of the merged one are communicators
        # of their own, named apart from those they were made from.
        self.assertEqual(len(names[inter]), 2, names)
        self.assertTrue(all(x.startswith("intercomm ") for x in names[inter]), names)
        self.assertEqual(len(names[merged]), 2, names)
        self.assertNotIn("MPI_COMM_WORLD", names[merged])
        # pnmpi-report reads it: every message matched, across the inter-communicators too.
        trace = base.report_module("trace_reader").read(out)
        self.assertEqual(trace.unmatched_sends, 0)
        self.assertEqual(trace.unmatched_receives, 0)
        self.assertEqual(len(trace.messages), 4 * (n // 2) + 1)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        CONFIG.update(json.load(f))
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
