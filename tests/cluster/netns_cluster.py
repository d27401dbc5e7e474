# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""A cluster of 2 to 4 hosts on one machine, made of Linux network namespaces.

Each host is a network namespace with its own address on a private bridge, and every
process started on it also gets its own UTS namespace carrying the host's name, so that
MPI_Get_processor_name and gethostname see that name. The launcher's remote-shell agent
(`agent HOST COMMAND...`, what Open MPI's rsh launcher and MPICH's hydra call instead of
ssh) runs the command inside the host's namespaces. The file system is the machine's: every
host reads the same configuration and module repositories, as on a cluster with a shared
file system.

Needs root and iproute2. Everything made is removed on exit, on an exception and on
SIGTERM/SIGINT; names carry the process id, so two runs never collide.

A host may also be given its own clock: `Cluster(3, monotonic_offsets=[0, 1000, -500])`
starts every process of host i in a Linux time namespace whose CLOCK_MONOTONIC and
CLOCK_BOOTTIME run offsets[i] seconds ahead of the machine's (behind, if negative), as on
hosts booted at different times. Clocks still run at one rate: a namespace shifts a clock,
it cannot make it drift. Every process a launcher starts on one host through the agent
gets the same offset, so the host's processes share one clock, as on a real host.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile

# The exit status ctest reads as "skipped" (SKIP_RETURN_CODE).
SKIP = 77

AGENT = r"""#!/bin/sh
# Remote-shell agent of a network-namespace cluster: AGENT [ssh options] HOST COMMAND...
# Runs COMMAND (joined, through sh, as ssh would) inside HOST's network namespace, in a new
# UTS namespace named after the host (and, if the host has a clock offset, a new time
# namespace: unshare forks, since only a child enters it; --kill-child, so the launcher's
# signal to this process ends the command too).
while [ $# -gt 0 ]; do
  case "$1" in
    -x|-X|-T|-t|-n|-q) shift ;;
    -o|-l|-p) shift 2 ;;
    *) break ;;
  esac
done
host="$1"; shift
case "$host" in
@CASES@
  *) echo "netns agent: unknown host '$host' (known: @KNOWN@)" >&2; exit 255 ;;
esac
# A remote shell starts with a clean environment: only what the launcher forwards arrives.
set -- sh -c 'hostname "$1"; shift; exec sh -c "$*"' sh "$name" "$@"
if [ -n "$clock" ]; then
  set -- --time --fork --kill-child --monotonic "$clock" --boottime "$clock" -- "$@"
fi
exec env -i PATH="$PATH" HOME="${HOME:-/}" ip netns exec "$ns" unshare --uts "$@"
"""


def _run(*argv):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def unavailable():
    """Why this machine cannot make a namespace cluster, or None if it can."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None or shutil.which("unshare") is None:
        return "iproute2's ip and util-linux's unshare are needed"
    probe = f"pnmpi-probe-{os.getpid()}"
    try:
        _run("ip", "netns", "add", probe)
    except subprocess.CalledProcessError as e:
        return "cannot create a network namespace: " + e.stderr.decode().strip()
    finally:
        subprocess.run(["ip", "netns", "del", probe], stderr=subprocess.DEVNULL)
    return None


def time_namespaces_unavailable():
    """Why hosts cannot be given their own clocks (Linux time namespaces, kernel 5.6 or
    later with CONFIG_TIME_NS, and util-linux's unshare --time), or None if they can."""
    try:
        probe = subprocess.run(["unshare", "--time", "--fork", "--monotonic", "100", "cat",
                                "/proc/self/timens_offsets"], capture_output=True, text=True,
                               timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"cannot run unshare --time: {e}"
    if probe.returncode != 0:
        return "unshare --time failed: " + probe.stderr.strip()
    if "monotonic" not in probe.stdout or " 100 " not in probe.stdout:
        return f"the time namespace did not take the offset: {probe.stdout.strip()!r}"
    return None


class Cluster:
    """`with Cluster(3) as c:` gives c.hosts (names), c.addresses, c.agent (path) and
    c.hostfile(slots) for the launcher."""

    def __init__(self, count, subnet_octet=None, monotonic_offsets=None):
        if not 2 <= count <= 4:
            raise ValueError("a namespace cluster has 2 to 4 hosts")
        offsets = list(monotonic_offsets) if monotonic_offsets is not None else [0] * count
        if len(offsets) != count or not all(isinstance(o, int) for o in offsets):
            raise ValueError(f"monotonic_offsets: one whole number of seconds per host "
                             f"({count}), not {monotonic_offsets!r}")
        # The kernel refuses an offset that would put a clock before zero.
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        if min(offsets) < 0 and -min(offsets) >= uptime - 60:
            raise ValueError(f"monotonic offset {min(offsets)} s: this machine has been up "
                             f"{uptime:.0f} s only; a clock cannot go below zero")
        self.monotonic_offsets = offsets
        self.count = count
        self.tag = f"{os.getpid() % 100000}"
        octet = subnet_octet if subnet_octet is not None else 100 + os.getpid() % 150
        self.prefix = f"10.213.{octet}"
        self.bridge = f"pnbr{self.tag}"
        self.hosts = [f"node{i + 1}" for i in range(count)]
        self.namespaces = [f"pnmpi-{self.tag}-{h}" for h in self.hosts]
        self.addresses = [f"{self.prefix}.{11 + i}" for i in range(count)]
        self.subnet = f"{self.prefix}.0/24"
        self.dir = None
        self.agent = None
        self._made = []

    # The launchers are given addresses, not names: the machine's /etc/hosts is not ours to
    # change. The agent maps either to the namespace.
    def hostfile(self, slots, path=None):
        path = path or os.path.join(self.dir, f"hosts.{slots}")
        with open(path, "w") as f:
            for a in self.addresses:
                f.write(f"{a} slots={slots}\n")
        return path

    def host_of_address(self, address):
        return self.hosts[self.addresses.index(address)]

    def __enter__(self):
        self._old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
        for s in self._old:
            signal.signal(s, self._on_signal)
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _on_signal(self, signum, frame):
        self.close()
        sys.exit(128 + signum)

    def _build(self):
        self.dir = tempfile.mkdtemp(prefix="pnmpi-cluster-")
        _run("ip", "link", "add", self.bridge, "type", "bridge")
        self._made.append(("link", self.bridge))
        _run("ip", "addr", "add", f"{self.prefix}.1/24", "dev", self.bridge)
        _run("ip", "link", "set", self.bridge, "up")
        for i, ns in enumerate(self.namespaces):
            _run("ip", "netns", "add", ns)
            self._made.append(("netns", ns))
            outside, inside = f"pnv{self.tag}h{i}", f"pnv{self.tag}n{i}"
            _run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside)
            self._made.append(("link", outside))
            _run("ip", "link", "set", outside, "master", self.bridge)
            _run("ip", "link", "set", outside, "up")
            _run("ip", "link", "set", inside, "netns", ns)
            _run("ip", "-n", ns, "link", "set", "lo", "up")
            _run("ip", "-n", ns, "addr", "add", f"{self.addresses[i]}/24", "dev", inside)
            _run("ip", "-n", ns, "link", "set", inside, "up")
        cases = []
        for h, a, ns, off in zip(self.hosts, self.addresses, self.namespaces,
                                 self.monotonic_offsets):
            clock = str(off) if off else ""
            cases.append(f'  {h}|{a}) ns={ns}; name={h}; clock={clock} ;;')
        text = AGENT.replace("@CASES@", "\n".join(cases)).replace(
            "@KNOWN@", " ".join(self.hosts + self.addresses))
        self.agent = os.path.join(self.dir, "netns-agent")
        with open(self.agent, "w") as f:
            f.write(text)
        os.chmod(self.agent, 0o755)

    def close(self):
        for kind, name in reversed(self._made):
            if kind == "netns":
                # Processes a failed job left inside would keep the namespace alive.
                pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True,
                                      text=True).stdout.split()
                for pid in pids:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except (ProcessLookupError, ValueError):
                        pass
                subprocess.run(["ip", "netns", "del", name], stderr=subprocess.DEVNULL)
            else:
                subprocess.run(["ip", "link", "del", name], stderr=subprocess.DEVNULL)
        self._made = []
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        for s, h in getattr(self, "_old", {}).items():
            signal.signal(s, h)
        self._old = {}

    # The options that make Open MPI start its daemons through the agent and keep all of its
    # traffic on the cluster's network.
    def openmpi_options(self):
        return ["--mca", "plm_rsh_agent", self.agent,
                "--mca", "oob_tcp_if_include", self.subnet,
                "--mca", "btl_tcp_if_include", self.subnet,
                "--mca", "btl", "tcp,self"]
