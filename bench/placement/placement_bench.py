#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Placement measured on a cluster of network namespaces (root; tests/cluster/netns_cluster):
hosts talk TCP over veth, ranks on one host shared memory.

  placement_bench.py --build BUILD fig6 [--repeats 5] [--ranks 4] [--hosts 2] [--group 2]
      [--counts 1000,10000,100000] [--iterations 10,100,300]
  placement_bench.py --build BUILD app [--lammps] [--repeats 5] [--ranks 4] [--hosts 2]

app: an unchanged application (LAMMPS' lj melt with --lammps, Open MPI only; else
tests/cluster/apps/pairs) launched round-robin: run 1 under the monitor, run 2 with `module
place` + `argument from` run 1 above the monitor, and run 2 with the hosts listed in
reverse order; wall time, LAMMPS' loop and Comm times, and the application bytes between
hosts the monitor recorded.

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
    """Runs argv across the cluster; argv may start with `-x NAME=VALUE` pairs (Open MPI:
    forwarded to the ranks only)."""
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
        # Hydra 4.0 has no -rr: one slot per host, gone round, deals ranks round-robin.
        machinefile = hostfile or os.path.join(cluster.dir, "machines.%d" % slots)
        if not hostfile:
            with open(machinefile, "w") as f:
                f.writelines("%s:%d\n" % (a, 1 if map_by_node else slots)
                             for a in cluster.addresses)
        cmd = [cfg["mpiexec"], "-launcher", "ssh", "-launcher-exec", cluster.agent, "-iface",
               cluster.bridge, "-n", str(ranks), "-f", machinefile]
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
                        (float(f[3]), float(f[4]), float(f[5]), float(f[6]), f[10:],
                         float(f[7]), float(f[8]), float(f[9])))
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
    print("median parts of t2 in ms: monitored iteration / MPI_M_reorder / new groups")
    for n in iters:
        row = "%10d" % n
        for c in counts:
            v = cells[(c, n)]
            row += "%24s" % ("%.0f / %.0f / %.0f" % tuple(
                1e3 * statistics.median(x[k] for x in v) for k in (5, 6, 7)))
        print(row)
    print()
    print("median t1 and t3 in ms")
    for n in iters:
        for c in counts:
            v = cells[(c, n)]
            print("  ints %7d iterations %5d: t1 %9.2f  t3 %9.2f" % (
                c, n, 1e3 * statistics.median(x[0] for x in v),
                1e3 * statistics.median(x[2] for x in v)))


def app_between(doc):
    hosts, total = doc["hosts"], 0
    for cat in doc["categories"].values():
        if cat["origin"] == "application":
            total += sum(b for i, j, _, b in cat["entries"] if hosts[i] != hosts[j])
    return total


def lammps_times(out):
    """(loop time, Comm avg seconds) from LAMMPS' output, or (None, None)."""
    import re
    loop = re.search(r"Loop time of ([0-9.eE+-]+) on", out)
    comm = re.search(r"^Comm\s*\|\s*([0-9.eE+-]+)\s*\|\s*([0-9.eE+-]+)", out, re.M)
    return (float(loop.group(1)) if loop else None, float(comm.group(2)) if comm else None)


def app(cfg, args, netns):
    """Run 1 under the monitor, run 2 with module place + argument from run 1 (above the
    monitor), both launched round-robin; alternated --repeats times; also run 2 with the
    hosts listed in reverse order."""
    import time
    if cfg["flavor"] != "openmpi" and args.lammps:
        sys.exit("placement_bench: Debian's LAMMPS is built for Open MPI: use an Open MPI build")
    work = args.work
    run1 = os.path.join(work, "app-run1")
    input_file = os.path.join(os.path.dirname(cfg["cluster_dir"]), "mapping", "cluster",
                              "in.lj")
    argv = ["/usr/bin/lmp", "-in", input_file, "-log", "none"] if args.lammps else \
        [cfg["pairs"], str(args.heavy), "1000"]
    results = {"run 1 (as launched)": [], "run 2 (module place)": [],
               "run 2, hosts reversed": []}
    with netns.Cluster(args.hosts) as cluster:
        def go(label, conf_text, order):
            conf = os.path.join(work, "app.pnmpi-conf")
            with open(conf, "w") as f:
                f.write(conf_text)
            env = {"PNMPI_CONF": conf, "PNMPI_LIB_PATH": cfg["module_dir"]}
            hostfile = os.path.join(work, "app-hosts")
            slots = args.ranks // args.hosts
            with open(hostfile, "w") as f:
                if cfg["flavor"] == "openmpi":
                    f.writelines("%s slots=%d\n" % (a, slots) for a in order)
                else:  # one slot per host, gone round: round-robin
                    f.writelines("%s:1\n" % a for a in order)
            if args.lammps:
                env_extra = ["-x", "LD_PRELOAD=" + cfg["libpnmpi"]]
            else:
                env_extra = []
            t0 = time.time()
            out, command = launch(cfg, cluster, args.ranks, slots, env, env_extra + argv,
                                  hostfile=hostfile)
            wall = time.time() - t0
            prefix = conf_text.split("argument output ")[1].split()[0]
            with open(prefix + ".json") as f:
                between = app_between(json.load(f))
            loop, comm = lammps_times(out)
            results[label].append((wall, loop, comm, between))
            return command

        mon = "module monitor\nargument output %s\nargument summary off\n"
        command1 = go("run 1 (as launched)", mon % run1, cluster.addresses)
        for rep in range(args.repeats):
            place = "module place\nargument from %s\n" % run1
            labels = [("run 1 (as launched)", mon % (run1 + "-again"), cluster.addresses),
                      ("run 2 (module place)", place + mon % (run1 + "-placed"),
                       cluster.addresses),
                      ("run 2, hosts reversed", place + mon % (run1 + "-reversed"),
                       cluster.addresses[::-1])]
            if rep % 2:
                labels.reverse()
            for label, text, order in labels:
                command = go(label, text, order)
            print("repeat %d of %d done" % (rep + 1, args.repeats), file=sys.stderr)
    print("app: %s, %s, %d ranks dealt round-robin over %d namespace hosts, %d alternated "
          "repeats (the first run 1 only makes the matrix)" % (
              "LAMMPS lj" if args.lammps else "pairs", cfg["flavor"], args.ranks, args.hosts,
              args.repeats))
    print("command (run 1): %s" % command1)
    print("%-24s %22s %22s %22s %14s" % ("", "wall s", "loop s (LAMMPS)", "comm s (LAMMPS)",
                                         "bytes between"))
    for label, vals in results.items():
        def col(k):
            v = [x[k] for x in vals if x[k] is not None]
            return "%.3f [%.3f..%.3f]" % (statistics.median(v), min(v), max(v)) if v else "-"
        print("%-24s %22s %22s %22s %14s" % (label, col(0), col(1), col(2),
                                             ",".join(sorted({str(x[3]) for x in vals}))))


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
    a = sub.add_parser("app")
    a.add_argument("--repeats", type=int, default=5)
    a.add_argument("--ranks", type=int, default=4)
    a.add_argument("--hosts", type=int, default=2)
    a.add_argument("--lammps", action="store_true", help="LAMMPS (lmp) instead of pairs")
    a.add_argument("--heavy", type=int, default=1 << 22, help="pairs: bytes to the partner")
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
    else:
        app(cfg, args, netns_cluster)


if __name__ == "__main__":
    main()
