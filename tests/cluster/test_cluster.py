# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""pnmpi across hosts: Open MPI (and MPICH) jobs on a cluster of network namespaces.

Run by ctest (label `cluster`) with the paths in the environment:
  PNMPI_CLUSTER_FLAVOR   openmpi | mpich
  PNMPI_CLUSTER_LAUNCHER the MPI's mpirun/mpiexec
  PNMPI_CLUSTER_APP      tests/cluster/apps/pairs, linked with libpnmpi
  PNMPI_CLUSTER_CLOCK_APP tests/cluster/apps/clock_pingpong, linked with libpnmpi
  PNMPI_CLUSTER_HAVE_TRACE 1 if module trace is built (the clock test needs it)
  PNMPI_CLUSTER_MODULES  the build's module repository (holds monitor.so)
  PNMPI_CLUSTER_REPORT   pnmpi-report
Exits 77 (skipped) when the machine cannot make namespaces (not root, no iproute2).
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import mpi_launch  # noqa: E402
import netns_cluster  # noqa: E402

FLAVOR = os.environ.get("PNMPI_CLUSTER_FLAVOR", "openmpi")
LAUNCHER = os.environ.get("PNMPI_CLUSTER_LAUNCHER", "")
APP = os.environ.get("PNMPI_CLUSTER_APP", "")
CLOCK_APP = os.environ.get("PNMPI_CLUSTER_CLOCK_APP", "")
HAVE_TRACE = os.environ.get("PNMPI_CLUSTER_HAVE_TRACE", "0") == "1"
MODULES = os.environ.get("PNMPI_CLUSTER_MODULES", "")
REPORT = os.environ.get("PNMPI_CLUSTER_REPORT", "")

HEAVY = 1 << 20
LIGHT = 1000
TIMEOUT = 120


def inter_node_bytes(gathered, hosts):
    """Application point-to-point bytes between ranks on different hosts, and inside."""
    p2p = gathered["categories"]["p2p"]
    pairs = p2p.get("entries")
    if pairs is None:  # version 1: dense only
        pairs = [[i, j, 0, b] for i, row in enumerate(p2p["bytes"]) for j, b in enumerate(row)
                 if b]
    inside = between = 0
    for i, j, _, b in pairs:
        if hosts[i] == hosts[j]:
            inside += b
        else:
            between += b
    return inside, between


# The clock test: each host's CLOCK_MONOTONIC ahead of the machine's by these offsets
# (seconds; node1, rank 0's host, first): node2 1000 s ahead of node1, node3 500 s behind
# it (and none behind the machine's clock, which may have run for less than 500 s). Then
# the ranks per host and the bounds the aligned trace must meet.
CLOCK_OFFSETS = [500, 1500, 0]
CLOCK_SLOTS = [2, 1, 1]          # ranks 0, 1 on node1 (same clock), 2 on node2, 3 on node3
CLOCK_ROUNDS = 20
# No bound here depends on how fast the machine is (a loaded 2-core machine delays single
# messages by tens of milliseconds): a clock the alignment got wrong is off by hundreds of
# seconds (the offsets above), so a message latency, the fastest message of a rank pair
# (direction counts: a clock error makes one direction faster, the other slower) and the
# trace's own bound on an offset must each stay below GROSS_ERROR, a tenth of the smallest
# injected difference. The alignment's precision is checked by the messages in both
# directions: none may arrive before it was sent, within the bounds the trace reports.
GROSS_ERROR = 50.0               # s
LATENCY_BOUND = GROSS_ERROR
FASTEST_BOUND = GROSS_ERROR
# The trace reports how far each offset can be off (bound-init, bound-finalize): the
# injected offset must lie within it.
MAX_OFFSET_BOUND = GROSS_ERROR


def trace_reader():
    """pnmpi-report's OTF2 reader (tools/report/pnmpi_report/trace_reader.py)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(REPORT)))
    from pnmpi_report import trace_reader as reader
    return reader


def misordered(trace, bounds):
    """What in `trace` no single clock allows: a receive that completes before its send
    began, a message latency (from the later of its send and its receive call to the
    receive's completion) not in (0, LATENCY_BOUND], a pair of ranks whose fastest message
    in one direction took more than FASTEST_BOUND, a barrier some rank left before another
    entered it. `bounds`: rank -> how far its aligned times can be off (s); two ranks' times
    are compared within the sum of theirs, or exactly if they share a host (and so a clock
    and an offset). A list of lines, empty if the times are consistent."""
    def slack(a, b):
        return 0.0 if trace.hosts[a] == trace.hosts[b] else bounds[a] + bounds[b]

    problems = []
    fastest = {}
    for m in trace.messages:
        if m.recv_time is None:
            problems.append(f"unmatched message {m}")
            continue
        tolerance = slack(m.sender, m.receiver)
        if m.recv_time <= m.send_start - tolerance:
            problems.append(f"rank {m.receiver} received from rank {m.sender} (tag {m.tag}) "
                            f"{(m.send_start - m.recv_time) * 1e3:.3f} ms before the send began "
                            f"(the clocks may be {tolerance * 1e3:.3f} ms apart)")
        latency = m.recv_time - max(m.send_start, m.recv_start)
        if not -tolerance < latency <= LATENCY_BOUND:
            problems.append(f"message rank {m.sender} -> {m.receiver} (tag {m.tag}): latency "
                            f"{latency * 1e3:.3f} ms")
        pair = (m.sender, m.receiver)
        fastest[pair] = min(fastest.get(pair, latency), latency)
    for (sender, receiver), latency in sorted(fastest.items()):
        if latency > FASTEST_BOUND + slack(sender, receiver):
            problems.append(f"messages rank {sender} -> {receiver}: the fastest took "
                            f"{latency * 1e3:.3f} ms")
    barriers = {}
    for c in trace.collectives:
        if c.routine == "MPI_Barrier":
            barriers.setdefault(c.rank, []).append(c)
    counts = {len(b) for b in barriers.values()}
    if len(barriers) != trace.ranks or len(counts) != 1:
        per_rank = sorted((r, len(b)) for r, b in barriers.items())
        return problems + [f"barriers per rank (rank, count) differ: {per_rank}"]
    for k in range(counts.pop()):
        calls = [barriers[r][k] for r in sorted(barriers)]
        last_in = max(calls, key=lambda c: c.start)
        first_out = min(calls, key=lambda c: c.end)
        if first_out.end < last_in.start - slack(first_out.rank, last_in.rank):
            problems.append(f"barrier {k}: rank {first_out.rank} left it "
                            f"{(last_in.start - first_out.end) * 1e3:.3f} ms before rank "
                            f"{last_in.rank} entered it")
    return problems


class ClusterRun(unittest.TestCase):
    cluster = None

    @classmethod
    def setUpClass(cls):
        for name, value in (("PNMPI_CLUSTER_LAUNCHER", LAUNCHER), ("PNMPI_CLUSTER_APP", APP),
                            ("PNMPI_CLUSTER_MODULES", MODULES)):
            if not value:
                raise RuntimeError(f"{name} is not set")
        cls.work = tempfile.mkdtemp(prefix="pnmpi-cluster-work-")

    def launch(self, cluster, ranks, slots, extra_env, args, rankfile=None, machinefile=None,
               app=None, hostfile=None):
        """Runs APP (or `app`) on the cluster; returns (completed process, world rank ->
        host). `slots`: ranks per host, unless a `hostfile` (Open MPI) or `machinefile` (MPICH)
        replaces the cluster's."""
        env = dict(os.environ)
        env.update(extra_env)
        if FLAVOR == "openmpi":
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            argv = [LAUNCHER, "-n", str(ranks)] + cluster.openmpi_options()
            argv += ["--hostfile", hostfile or cluster.hostfile(slots)]
            if rankfile:
                argv += ["--rankfile", rankfile]
            # What a remote shell would carry: only what the launcher forwards.
            for name in extra_env:
                argv += ["-x", name]
        else:
            argv = [LAUNCHER, "-launcher", "ssh", "-launcher-exec", cluster.agent, "-iface",
                    cluster.bridge, "-n", str(ranks)]
            if machinefile is None:
                machinefile = os.path.join(cluster.dir, f"machines.{slots}")
                with open(machinefile, "w") as f:
                    f.writelines(f"{a}:{slots}\n" for a in cluster.addresses)
            argv += ["-f", machinefile]
            for name in extra_env:
                argv += ["-genv", name, extra_env[name]]
        argv += [app or APP] + [str(a) for a in args]
        run = mpi_launch.run_job(argv, FLAVOR, env=env, capture_output=True, text=True,
                                 timeout=TIMEOUT)
        self.assertEqual(run.returncode, 0, f"{' '.join(argv)}\n{run.stdout}\n{run.stderr}")
        placed = {}
        for line in run.stdout.splitlines():
            m = re.match(r"rank (\d+) on (\S+)", line.strip())
            if m:
                placed[int(m.group(1))] = m.group(2)
        self.assertEqual(sorted(placed), list(range(ranks)), run.stdout)
        return run, [placed[r] for r in range(ranks)]

    def monitored(self, name, hosts=3):
        prefix = os.path.join(self.work, name)
        conf = prefix + ".pnmpi-conf"
        with open(conf, "w") as f:
            f.write(f"module monitor\nargument output {prefix}\n")
        return prefix, {"PNMPI_CONF": conf, "PNMPI_LIB_PATH": MODULES}

    def test_every_host_runs_the_configured_stack(self):
        """Each host's ranks read the config and the module repository; the monitor's
        matrix and host list span the hosts; the node view splits the bytes right."""
        with netns_cluster.Cluster(3) as cluster:
            prefix, env = self.monitored("spread")
            run, placed = self.launch(cluster, 6, 2, env, [HEAVY, LIGHT])
        self.assertEqual(placed, ["node1", "node1", "node2", "node2", "node3", "node3"])
        for rank in range(6):  # every rank, on every host, loaded and ran the monitor
            with open(f"{prefix}.{rank}.prof") as f:
                self.assertIn("# POINT TO POINT", f.read())
        with open(prefix + ".json") as f:
            gathered = json.load(f)
        self.assertEqual(gathered["world_size"], 6)
        self.assertEqual(gathered["hosts"], placed)
        # Partners (i, i+3) are always on different hosts; ring neighbours 1->2, 3->4 and
        # 5->0 cross a node boundary, 0->1, 2->3, 4->5 do not.
        inside, between = inter_node_bytes(gathered, gathered["hosts"])
        self.assertEqual(between, 6 * HEAVY + 3 * LIGHT)
        self.assertEqual(inside, 3 * LIGHT)
        self.assertRegex(run.stderr, rf"inside nodes {inside}, between nodes {between}"
                         r" \(3 hosts\)")

    def test_reorder_cuts_what_crosses_the_network(self):
        """A placement from pnmpi-report reorder, applied, cuts the measured inter-node
        bytes to what reorder predicted."""
        if not REPORT:
            self.fail("PNMPI_CLUSTER_REPORT is not set")
        with netns_cluster.Cluster(2) as cluster:
            prefix, env = self.monitored("natural")
            _, natural = self.launch(cluster, 8, 4, env, [HEAVY, LIGHT])
            with open(prefix + ".json") as f:
                first = json.load(f)
            _, crossing_before = inter_node_bytes(first, first["hosts"])
            self.assertEqual(crossing_before, 8 * HEAVY + 2 * LIGHT)

            placement = os.path.join(self.work, "placement")
            hostfile = cluster.hostfile(4)
            report = subprocess.run(
                [REPORT, "reorder", prefix + ".json", "--hostfile", hostfile, "-o", placement,
                 "--json"], capture_output=True, text=True, timeout=TIMEOUT)
            self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
            prediction = json.loads(report.stdout)
            before, after = prediction["natural_between"], prediction["reordered_between"]
            self.assertEqual(prediction["as_run_between"], before, report.stdout)
            self.assertEqual(before, crossing_before, report.stdout)
            self.assertLess(after, before)

            prefix2, env2 = self.monitored("reordered")
            if FLAVOR == "openmpi":
                # A rankfile's slot is a processor of the host, and these hosts share this
                # machine's processors (often 2, fewer than 4 ranks per host); Open MPI
                # exits with status 1 and no message for a slot the host lacks.
                cpus = os.cpu_count() or 1
                with open(placement) as f:
                    lines = f.read().splitlines()
                with open(placement, "w") as f:
                    for line in lines:
                        head, slot = line.rsplit("slot=", 1)
                        f.write(f"{head}slot={int(slot) % cpus}\n")
                _, reordered = self.launch(cluster, 8, 4, env2, [HEAVY, LIGHT],
                                           rankfile=placement)
            else:
                _, reordered = self.launch(cluster, 8, 4, env2, [HEAVY, LIGHT],
                                           machinefile=placement + ".mpich")
            with open(prefix2 + ".json") as f:
                second = json.load(f)
            self.assertEqual(second["hosts"], reordered)
            _, crossing_after = inter_node_bytes(second, second["hosts"])
            self.assertEqual(crossing_after, after)
            # Every partner pair now shares a node: only ring traffic crosses.
            for r in range(8):
                self.assertEqual(reordered[r], reordered[(r + 4) % 8], reordered)
            self.assertEqual(sorted(reordered.count(h) for h in set(reordered)), [4, 4])

    def test_place_from_run_applies_the_mapping(self):
        """`module place` with `argument from` a run with a bad placement: the second run's
        bytes between hosts, as the monitor below place records them (physical ranks), equal
        what the mapping predicted; every partner pair shares a host."""
        with netns_cluster.Cluster(2) as cluster:
            prefix, env = self.monitored("place-natural")
            self.launch(cluster, 8, 4, env, [HEAVY, LIGHT])
            with open(prefix + ".json") as f:
                first = json.load(f)
            _, before = inter_node_bytes(first, first["hosts"])
            self.assertEqual(before, 8 * HEAVY + 2 * LIGHT)

            prefix2 = os.path.join(self.work, "place-applied")
            conf = prefix2 + ".pnmpi-conf"
            with open(conf, "w") as f:
                f.write(f"module place\nargument from {prefix}\n"
                        f"module monitor\nargument output {prefix2}\n")
            run, placed = self.launch(cluster, 8, 4, {"PNMPI_CONF": conf,
                                                      "PNMPI_LIB_PATH": MODULES,
                                                      "PNMPI_DEBUG": "1"}, [HEAVY, LIGHT])
        m = re.search(r"module 'place': run \S+ mapped onto 2 host\(s\): 8 ranks, \d+ "
                      r"renumbered; bytes crossing hosts: (\d+) predicted, (\d+) as launched",
                      run.stderr)
        self.assertIsNotNone(m, run.stderr)
        print("\n" + run.stderr[m.start():].splitlines()[0], file=sys.stderr)
        predicted, as_launched = int(m.group(1)), int(m.group(2))
        self.assertEqual(as_launched, before)
        self.assertLess(predicted, before)
        with open(prefix2 + ".json") as f:
            second = json.load(f)
        _, after = inter_node_bytes(second, second["hosts"])
        self.assertEqual(after, predicted)
        for r in range(8):  # application ranks: partners r and r+4 now share a host
            self.assertEqual(placed[r], placed[(r + 4) % 8], placed)
        self.assertEqual(sorted(placed.count(h) for h in set(placed)), [4, 4])

    def test_trace_aligns_clocks_across_hosts(self):
        """Hosts with their own CLOCK_MONOTONIC (time namespaces: node2 1000 s ahead of
        node1, node3 500 s behind): the trace measures the offsets (rank 1 shares rank 0's
        clock: exactly 0) and its aligned archive orders every message and barrier as one
        clock would. The same job traced with 'argument clock local' (each rank's own
        clock) fails those checks: they can fail."""
        if not HAVE_TRACE:
            self.skipTest("module trace is not built (no OTF2): nothing to align")
        if not CLOCK_APP or not REPORT:
            self.fail("PNMPI_CLUSTER_CLOCK_APP and PNMPI_CLUSTER_REPORT must be set")
        why = netns_cluster.time_namespaces_unavailable()
        if why:
            self.fail(f"this test gives each host its own clock with a time namespace: {why}")
        reader = trace_reader()
        ranks = sum(CLOCK_SLOTS)
        with netns_cluster.Cluster(3, monotonic_offsets=CLOCK_OFFSETS) as cluster:
            hostfile = os.path.join(cluster.dir, "hosts.clock")
            machinefile = os.path.join(cluster.dir, "machines.clock")
            with open(hostfile, "w") as f:
                f.writelines(f"{a} slots={n}\n" for a, n in zip(cluster.addresses, CLOCK_SLOTS))
            with open(machinefile, "w") as f:
                f.writelines(f"{a}:{n}\n" for a, n in zip(cluster.addresses, CLOCK_SLOTS))
            traces = {}
            for mode in ("aligned", "local"):
                out = os.path.join(self.work, f"clock-{mode}")
                conf = out + ".pnmpi-conf"
                with open(conf, "w") as f:
                    f.write(f"module trace\nargument output {out}\nargument clock {mode}\n")
                run, placed = self.launch(
                    cluster, ranks, None, {"PNMPI_CONF": conf, "PNMPI_LIB_PATH": MODULES},
                    [CLOCK_ROUNDS], machinefile=machinefile, app=CLOCK_APP, hostfile=hostfile)
                self.assertEqual(placed, ["node1", "node1", "node2", "node3"])
                traces[mode] = (out, run)
            injected = [CLOCK_OFFSETS[cluster.hosts.index(h)] for h in placed]

        # The hosts' clocks really differ: each rank's CLOCK_MONOTONIC just after the last
        # barrier, against rank 0's, is the injected offset (to within the barrier's exit).
        out, run = traces["aligned"]
        monotonic = {int(m.group(1)): float(m.group(2))
                     for m in re.finditer(r"rank (\d+) on \S+ monotonic (\S+)", run.stdout)}
        for r in range(ranks):
            self.assertAlmostEqual(monotonic[r] - monotonic[0], injected[r] - injected[0],
                                   delta=GROSS_ERROR, msg=f"rank {r}'s clock\n{run.stdout}")

        # The offsets the trace measured: what to add to a rank's clock to read rank 0's, and
        # how far each can be off.
        bounds = {}
        for mode, (out, run) in traces.items():
            with open(os.path.join(out, "summary.txt")) as f:
                summary = f.read()
            self.assertIn(f"\nclock {mode}\n", summary)
            reported = {}
            for m in re.finditer(r"^clock rank (\d+) host (\S+) offset-init (-?\d+) "
                                 r"offset-finalize (-?\d+) bound-init (\d+) "
                                 r"bound-finalize (\d+)$", summary, re.M):
                reported[int(m.group(1))] = (m.group(2),) + tuple(map(int, m.groups()[2:]))
            self.assertEqual(sorted(reported), list(range(ranks)), summary)
            for r in range(ranks):
                host, at_init, at_finalize, bound_init, bound_finalize = reported[r]
                self.assertEqual(host, placed[r], summary)
                expected = (injected[0] - injected[r]) * 1e9
                if placed[r] == placed[0]:
                    self.assertEqual(reported[r][1:], (0, 0, 0, 0), summary)
                for value, bound in ((at_init, bound_init), (at_finalize, bound_finalize)):
                    self.assertLessEqual(bound, MAX_OFFSET_BOUND * 1e9, f"{mode}\n{summary}")
                    # The summary rounds the offset to 1 ns and the bound up.
                    self.assertAlmostEqual(value, expected, delta=bound + 1,
                                           msg=f"{mode}: rank {r}\n{summary}")
                if mode == "aligned":
                    bounds[r] = max(bound_init, bound_finalize) / 1e9
            # The same in the archive's properties (the Python bindings do not read them).
            info = subprocess.run(["otf2-print", "-I", os.path.join(out, "traces.otf2")],
                                  capture_output=True, text=True, timeout=TIMEOUT)
            self.assertEqual(info.returncode, 0, info.stderr)
            properties = dict(re.findall(r"Property name +(\S+)\nProperty value +(.*)",
                                         info.stdout))
            self.assertTrue(properties.get("PNMPI::CLOCK_ALIGNMENT", "").startswith(
                "applied" if mode == "aligned" else "none"), info.stdout)
            self.assertEqual(properties.get("PNMPI::CLOCK_OFFSETS"), "; ".join(
                f"rank {r} host {reported[r][0]} offset-init {reported[r][1]} "
                f"offset-finalize {reported[r][2]} bound-init {reported[r][3]} "
                f"bound-finalize {reported[r][4]}" for r in range(ranks)), info.stdout)

        # Aligned: every message and barrier in order, as on one clock.
        trace = reader.read(traces["aligned"][0])
        self.assertEqual(trace.unmatched_sends, 0)
        self.assertEqual(trace.unmatched_receives, 0)
        pairs = ranks * (ranks - 1) // 2
        self.assertEqual(len(trace.messages), 2 * pairs * CLOCK_ROUNDS)
        self.assertEqual(misordered(trace, bounds), [])
        # Each rank's own clock: the messages between hosts and the barriers are out of
        # order by hundreds of seconds; those inside node1 are not.
        local = misordered(reader.read(traces["local"][0]), bounds)
        crossing = [p for p in local if "before the send began" in p]
        self.assertTrue(crossing, local)
        self.assertTrue(any(p.startswith("barrier ") for p in local), local)
        for p in local:
            self.assertNotRegex(p, r"^rank [01] received from rank [01] ", local)


if __name__ == "__main__":
    why = netns_cluster.unavailable()
    if why:
        print(f"cluster tests skipped: {why}")
        sys.exit(netns_cluster.SKIP)
    unittest.main()
