# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""An unchanged application launched round-robin over namespace hosts (--map-by node;
Hydra: a machine file of one slot per host, gone round): run 1 under the monitor; run 2 with `module place` + `argument from` run 1
above the monitor. The bytes between hosts the monitor records in run 2 (physical ranks)
equal exactly what libpnmpi_mapping predicted (pnmpi-map on run 1 and run 2's slots, and
place's own PNMPI_DEBUG line); the same when run 2's host list is in another order.

The application is Debian's LAMMPS (`lmp`, built for Open MPI) on Open MPI builds that have
it, else tests/cluster/apps/pairs on 6 ranks (partners r <-> r + 3: round-robin splits every
pair). Environment: PNMPI_CLUSTER_FLAVOR, PNMPI_CLUSTER_LAUNCHER, PNMPI_CLUSTER_APP (pairs),
PNMPI_CLUSTER_MODULES, PNMPI_TEST_MAP (pnmpi-map), PNMPI_TEST_LIBPNMPI (preloaded into lmp). Exits 77 (skipped) without namespaces."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "cluster"))
import netns_cluster  # noqa: E402

FLAVOR = os.environ.get("PNMPI_CLUSTER_FLAVOR", "openmpi")
LAUNCHER = os.environ.get("PNMPI_CLUSTER_LAUNCHER", "")
PAIRS = os.environ.get("PNMPI_CLUSTER_APP", "")
MODULES = os.environ.get("PNMPI_CLUSTER_MODULES", "")
MAP = os.environ.get("PNMPI_TEST_MAP", "")
LIBPNMPI = os.environ.get("PNMPI_TEST_LIBPNMPI", "")
LAMMPS = shutil.which("lmp") if FLAVOR == "openmpi" else None


def application():
    """(argv, ranks, name)."""
    if LAMMPS:
        return [LAMMPS, "-in", os.path.join(HERE, "in.lj"), "-log", "none"], 4, "LAMMPS"
    return [PAIRS, str(1 << 20), "1000"], 6, "pairs"


def between_hosts(doc):
    """Application bytes (every application category) between ranks on different hosts."""
    hosts = doc["hosts"]
    total = 0
    for cat in doc["categories"].values():
        if cat["origin"] != "application":
            continue
        for i, j, _, b in cat["entries"]:
            if hosts[i] != hosts[j]:
                total += b
    return total


def slot_hosts(doc):
    """Host index of each physical rank, in order of first appearance (as place numbers)."""
    index = {}
    return [index.setdefault(h, len(index)) for h in doc["hosts"]]


class PlaceAcrossHosts(unittest.TestCase):
    def setUp(self):
        for name, value in (("PNMPI_CLUSTER_LAUNCHER", LAUNCHER), ("PNMPI_CLUSTER_APP", PAIRS),
                            ("PNMPI_CLUSTER_MODULES", MODULES), ("PNMPI_TEST_MAP", MAP),
                            ("PNMPI_TEST_LIBPNMPI", LIBPNMPI)):
            if not value:
                self.fail(f"{name} is not set")
        self.work = tempfile.mkdtemp(prefix="pnmpi-place-cluster-")

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def launch(self, cluster, ranks, conf, hosts_order, extra_env=None):
        env = dict(os.environ)
        forward = {"PNMPI_CONF": conf, "PNMPI_LIB_PATH": MODULES, "PNMPI_DEBUG": "1"}
        forward.update(extra_env or {})
        env.update(forward)
        slots = ranks // len(hosts_order)
        argv, _, _ = application()
        if FLAVOR == "openmpi":
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            hostfile = os.path.join(self.work, "hosts")
            with open(hostfile, "w") as f:
                f.writelines(f"{a} slots={slots}\n" for a in hosts_order)
            options = ["self,vader,tcp" if o == "tcp,self" else o
                       for o in cluster.openmpi_options()]
            cmd = [LAUNCHER, "-n", str(ranks)] + options + ["--hostfile", hostfile,
                                                           "--map-by", "node"]
            for name in forward:
                cmd += ["-x", name]
            if LAMMPS:  # an unchanged binary: libpnmpi preloaded in the ranks only
                cmd += ["-x", "LD_PRELOAD=" + LIBPNMPI]
        else:
            # Hydra 4.0 has no -rr: a machine file of one slot per host, which Hydra goes
            # round more than once, deals the ranks round-robin.
            machinefile = os.path.join(self.work, "machines")
            with open(machinefile, "w") as f:
                f.writelines(f"{a}:1\n" for a in hosts_order)
            cmd = [LAUNCHER, "-launcher", "ssh", "-launcher-exec", cluster.agent, "-iface",
                   cluster.bridge, "-n", str(ranks), "-f", machinefile]
            for name, value in forward.items():
                cmd += ["-genv", name, value]
        run = subprocess.run(cmd + argv, env=env, capture_output=True, text=True, timeout=600,
                             cwd=self.work)
        self.assertEqual(run.returncode, 0, f"{' '.join(cmd + argv)}\n{run.stdout}\n{run.stderr}")
        return run

    def monitored(self, name, above=""):
        prefix = os.path.join(self.work, name)
        conf = prefix + ".pnmpi-conf"
        with open(conf, "w") as f:
            f.write(f"{above}module monitor\nargument output {prefix}\nargument summary off\n")
        return prefix, conf

    def test_from_run_on_round_robin_hosts(self):
        argv, ranks, name = application()
        with netns_cluster.Cluster(2) as cluster:
            first, conf = self.monitored("run1")
            self.launch(cluster, ranks, conf, cluster.addresses)
            with open(first + ".json") as f:
                run1 = json.load(f)
            as_launched = between_hosts(run1)
            for label, order in (("same hosts", cluster.addresses),
                                 ("hosts in another order", cluster.addresses[::-1])):
                second, conf = self.monitored("run2-" + ("same" if order == cluster.addresses
                                                         else "reversed"),
                                              f"module place\nargument from {first}\n")
                run = self.launch(cluster, ranks, conf, order)
                with open(second + ".json") as f:
                    run2 = json.load(f)
                measured = between_hosts(run2)
                hosts = ",".join(str(h) for h in slot_hosts(run2))
                p = subprocess.run([MAP, first, hosts], capture_output=True, text=True,
                                   timeout=120)
                self.assertEqual(p.returncode, 0, p.stderr)
                fields = dict(line.split(": ", 1) for line in p.stdout.strip().split("\n"))
                predicted = int(fields["placed_crossing"])
                m = re.search(r"bytes crossing hosts: (\d+) predicted, (\d+) as launched",
                              run.stderr)
                self.assertIsNotNone(m, run.stderr)
                print(f"{name} {label}: run 1 {as_launched} bytes between hosts, run 2 "
                      f"predicted {predicted}, measured {measured} ({fields['method']})",
                      file=sys.stderr)
                self.assertEqual(int(m.group(1)), predicted, run.stderr)
                self.assertEqual(measured, predicted)
                self.assertLess(predicted, as_launched)


if __name__ == "__main__":
    why = netns_cluster.unavailable()
    if why:
        print(f"skipped: {why}")
        sys.exit(netns_cluster.SKIP)
    unittest.main()
