#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Placement measured on a cluster of network namespaces (root; tests/cluster/netns_cluster):
hosts talk TCP over veth, ranks on one host shared memory.

  placement_bench.py --build BUILD fig6 [--repeats 5] [--ranks 4] [--hosts 2] [--group 2]
      [--counts 100,1000,10000,100000] [--iterations 10,100,1000]

fig6: the introspection report's Fig. 6 (bench/placement/fig6.c): groups of --group ranks
doing MPI_Allgather, dealt round-robin over the hosts by the launcher; per cell, t1 (N
iterations as launched), t2 (one monitored iteration, MPI_M_reorder, new groups), t3 (N
iterations after), gain = 100 (t1 - (t2 + t3)) / t1. Each repeat is one job running every
cell; repeats alternate the order of the cells. Prints the median gain and its spread
(min..max) per cell, and the median t1/t3 (communication speed-up without the reordering
cost)."""

import argparse
import json
import os
import statistics
import subprocess
import sys


def config(build):
    path = os.path.join(build, "bench", "placement", "bench_placement_config.json")
    with open(path) as f:
        return json.load(f)


def launch(cfg, cluster, ranks, slots, env, argv, map_by_node=True, hostfile=None):
    e = dict(os.environ)
    e.update(env)
    if cfg["flavor"] == "openmpi":
        e.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        # Shared memory inside a host (vader), TCP between hosts.
        options = ["self,vader,tcp" if o == "tcp,self" else o for o in cluster.openmpi_options()]
        cmd = [cfg["mpiexec"], "-n", str(ranks)] + options + \
            ["--hostfile", hostfile or cluster.hostfile(slots), "--oversubscribe"]
        if map_by_node:
            cmd += ["--map-by", "node"]
        for name in env:
            cmd += ["-x", name]
    else:
        machinefile = hostfile or os.path.join(cluster.dir, "machines.%d" % slots)
        if not hostfile:
            with open(machinefile, "w") as f:
                f.writelines("%s:%d\n" % (a, slots) for a in cluster.addresses)
        cmd = [cfg["mpiexec"], "-launcher", "ssh", "-launcher-exec", cluster.agent, "-iface",
               cluster.bridge, "-n", str(ranks), "-f", machinefile]
        if map_by_node:
            cmd += ["-rr"]
        for name, value in env.items():
            cmd += ["-genv", name, value]
    p = subprocess.run(cmd + argv, env=e, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        sys.exit("placement_bench: %s failed (%d):\n%s\n%s" % (" ".join(cmd + argv),
                                                              p.returncode, p.stdout, p.stderr))
    return p.stdout, " ".join(cmd + argv)


def fig6(cfg, args, netns):
    conf = os.path.join(args.work, "fig6.conf")
    with open(conf, "w") as f:
        f.write("module monitor\nargument files none\nargument summary off\n")
    env = {"PNMPI_CONF": conf, "PNMPI_LIB_PATH": cfg["module_dir"], "PNMPI_BE_SILENT": "1"}
    counts = [int(c) for c in args.counts.split(",")]
    iters = [int(i) for i in args.iterations.split(",")]
    cells = {}
    slots = args.ranks // args.hosts
    command = None
    with netns.Cluster(args.hosts) as cluster:
        for rep in range(args.repeats):
            out, command = launch(cfg, cluster, args.ranks, slots, env,
                                  [cfg["fig6"], str(args.group), str(rep % 2), args.counts,
                                   args.iterations])
            for line in out.splitlines():
                f = line.split()
                if f and f[0] == "fig6":
                    key = (int(f[1]), int(f[2]))
                    cells.setdefault(key, []).append(
                        (float(f[3]), float(f[4]), float(f[5]), float(f[6]), f[7:]))
            print("repeat %d of %d done" % (rep + 1, args.repeats), file=sys.stderr)
    print("fig6: %s, %d ranks dealt round-robin over %d namespace hosts, groups of %d, "
          "%d alternated repeats" % (cfg["flavor"], args.ranks, args.hosts, args.group,
                                     args.repeats))
    print("command: %s" % command)
    orders = {" ".join(v[4]) for vals in cells.values() for v in vals}
    print("new rank of each world rank after MPI_M_reorder: %s" % "; ".join(sorted(orders)))
    print()
    print("gain % = 100 (t1 - (t2 + t3)) / t1: median [min..max]")
    print("%10s" % "iter\\ints" + "".join("%24d" % c for c in counts))
    for n in iters:
        row = "%10d" % n
        for c in counts:
            g = [v[3] for v in cells[(c, n)]]
            row += "%24s" % ("%.1f [%.1f..%.1f]" % (statistics.median(g), min(g), max(g)))
        print(row)
    print()
    print("median t1 / t3 (communication speed-up, reordering cost left out); median t2 in ms")
    print("%10s" % "iter\\ints" + "".join("%24d" % c for c in counts))
    for n in iters:
        row = "%10d" % n
        for c in counts:
            v = cells[(c, n)]
            ratio = statistics.median(x[0] / x[2] for x in v)
            row += "%24s" % ("%.2fx  t2 %.1f ms" % (ratio, 1e3 * statistics.median(x[1] for x in v)))
        print(row)
    print()
    print("median t1 and t3 in ms")
    for n in iters:
        for c in counts:
            v = cells[(c, n)]
            print("  ints %7d iterations %5d: t1 %9.2f  t3 %9.2f" % (
                c, n, 1e3 * statistics.median(x[0] for x in v),
                1e3 * statistics.median(x[2] for x in v)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", default="/tmp/pnmpi-placement-bench")
    sub = ap.add_subparsers(dest="what", required=True)
    f = sub.add_parser("fig6")
    f.add_argument("--repeats", type=int, default=5)
    f.add_argument("--ranks", type=int, default=4)
    f.add_argument("--hosts", type=int, default=2)
    f.add_argument("--group", type=int, default=2)
    f.add_argument("--counts", default="100,1000,10000,100000")
    f.add_argument("--iterations", default="10,100,1000")
    args = ap.parse_args()
    cfg = config(args.build)
    sys.path.insert(0, cfg["cluster_dir"])
    import netns_cluster
    why = netns_cluster.unavailable()
    if why:
        sys.exit("placement_bench: %s" % why)
    os.makedirs(args.work, exist_ok=True)
    if args.what == "fig6":
        fig6(cfg, args, netns_cluster)


if __name__ == "__main__":
    main()
