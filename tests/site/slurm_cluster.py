# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""A one-node Slurm of Debian's slurm-wlm for the tests, started as root in a scratch
directory and stopped by its pid files, always (docs/site.md, NOTES "Slurm on one
machine"): its own munged on its own socket, slurmctld and slurmd on free ports, a
slurm.conf of its own (SLURM_CONF for the commands). No state outside the directory.

    with SlurmCluster(scratch) as slurm:      # SkipTest with the reason when it cannot
        job = slurm.sbatch(script_text)
        slurm.wait(job)
"""

import os
import shutil
import signal
import socket
import subprocess
import time
import unittest


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SlurmCluster:
    START_TIMEOUT = 60

    def __init__(self, scratch, cpus=2):
        self.dir = scratch
        self.cpus = cpus
        self.conf = os.path.join(scratch, "slurm.conf")
        self.host = socket.gethostname()
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.pid_files = []

    # -- starting and stopping ---------------------------------------------------------
    def __enter__(self):
        if os.geteuid() != 0:
            raise unittest.SkipTest("not root: the Slurm tests start munged, slurmctld and "
                                    "slurmd as root")
        missing = [c for c in ("munged", "slurmctld", "slurmd", "sbatch", "srun", "scancel",
                               "sinfo", "squeue", "scontrol") if shutil.which(c) is None]
        if missing:
            raise unittest.SkipTest("Slurm or munge is not installed (no %s): apt-get install "
                                    "slurm-wlm munge" % ", ".join(missing))
        if not os.path.exists("/etc/munge/munge.key"):
            raise unittest.SkipTest("no /etc/munge/munge.key (the munge package makes it)")
        shutil.rmtree(self.dir, ignore_errors=True)
        for d in ("state", "spool", "log", "run"):
            os.makedirs(os.path.join(self.dir, d))
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def _path(self, *parts):
        return os.path.join(self.dir, *parts)

    def _start(self):
        sock = self._path("run", "munge.socket")
        pid = self._path("run", "munged.pid")
        self.pid_files.append(pid)
        self._daemon(["munged", "--force", "--socket=" + sock, "--pid-file=" + pid,
                      "--log-file=" + self._path("log", "munged.log"),
                      "--seed-file=" + self._path("run", "munged.seed")], pid)
        with open(self.conf, "w") as f:
            f.write(self.slurm_conf(sock))
        pid = self._path("run", "slurmctld.pid")
        self.pid_files.append(pid)
        self._daemon(["slurmctld", "-c", "-f", self.conf], pid)
        pid = self._path("run", "slurmd.pid")
        self.pid_files.append(pid)
        self._daemon(["slurmd", "-f", self.conf], pid)
        deadline = time.time() + self.START_TIMEOUT
        state = ""
        while time.time() < deadline:
            p = subprocess.run(["sinfo", "-h", "-n", self.host, "-o", "%T"], env=self.env,
                               capture_output=True, text=True)
            state = p.stdout.strip()
            if state == "idle":
                return
            time.sleep(0.5)
        raise unittest.SkipTest("the Slurm node did not become idle in %d s (state '%s'): "
                                "%s" % (self.START_TIMEOUT, state, self._logs()))

    def slurm_conf(self, munge_socket):
        p = self._path
        return "\n".join([
            "ClusterName=pnmpitest",
            "SlurmctldHost=%s" % self.host,
            "SlurmctldPort=%d" % _free_port(),
            "SlurmdPort=%d" % _free_port(),
            "AuthType=auth/munge",
            "CredType=cred/munge",
            "AuthInfo=socket=%s" % munge_socket,
            "SlurmUser=root",
            "SlurmdUser=root",
            "StateSaveLocation=%s" % p("state"),
            "SlurmdSpoolDir=%s" % p("spool"),
            "SlurmctldLogFile=%s" % p("log", "slurmctld.log"),
            "SlurmdLogFile=%s" % p("log", "slurmd.log"),
            "SlurmctldPidFile=%s" % p("run", "slurmctld.pid"),
            "SlurmdPidFile=%s" % p("run", "slurmd.pid"),
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SchedulerType=sched/builtin",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "MpiDefault=none",
            "ReturnToService=2",
            "KillWait=5",
            "NodeName=%s CPUs=%d State=UNKNOWN" % (self.host, self.cpus),
            "PartitionName=debug Nodes=%s Default=YES MaxTime=INFINITE State=UP "
            "OverSubscribe=FORCE:4" % self.host,
            ""])

    def _daemon(self, argv, pid_file):
        p = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise unittest.SkipTest("%s did not start (status %d): %s %s" % (
                argv[0], p.returncode, p.stderr.strip(), self._logs()))
        deadline = time.time() + 30
        while time.time() < deadline and not os.path.exists(pid_file):
            time.sleep(0.1)
        if not os.path.exists(pid_file):
            raise unittest.SkipTest("%s wrote no pid file %s: %s" % (argv[0], pid_file,
                                                                      self._logs()))

    def _logs(self):
        out = []
        for name in ("munged.log", "slurmctld.log", "slurmd.log"):
            try:
                with open(self._path("log", name)) as f:
                    out.append("%s: %s" % (name, " | ".join(f.read().splitlines()[-5:])))
            except OSError:
                pass
        return "; ".join(out)

    def stop(self):
        """Ends every job still there (a failed test may leave one), then stops every
        daemon started, newest first, by its pid file: SIGTERM, then SIGKILL after 10 s."""
        if len(self.pid_files) == 3 and os.path.exists(self.conf):
            try:
                jobs = self.run(["squeue", "-h", "-o", "%i"], timeout=20).stdout.split()
                for job in jobs:
                    self.run(["scancel", "--full", "--signal=KILL", job], timeout=20)
                deadline = time.time() + 15
                while jobs and time.time() < deadline:
                    jobs = self.run(["squeue", "-h", "-o", "%i"], timeout=20).stdout.split()
                    time.sleep(0.2)
            except (OSError, subprocess.SubprocessError):
                pass
        for pid_file in reversed(self.pid_files):
            try:
                with open(pid_file) as f:
                    pid = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            deadline = time.time() + 10
            while time.time() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.pid_files = []

    # -- jobs --------------------------------------------------------------------------
    def run(self, argv, timeout=120, **kw):
        return subprocess.run(argv, env=kw.pop("env", self.env), capture_output=True,
                              text=True, timeout=timeout, **kw)

    def sbatch(self, script, args=(), env=None):
        """Submits `script` (text); returns the job id. Its output goes to out(job)."""
        self.jobs = getattr(self, "jobs", 0) + 1
        path = self._path("job-%d.sh" % self.jobs)
        with open(path, "w") as f:
            f.write(script)
        p = self.run(["sbatch", "--parsable", "-o", path + ".out", "-e", path + ".err"] +
                     list(args) + [path], env=env or self.env, cwd=self.dir)
        if p.returncode != 0:
            raise AssertionError("sbatch failed: %s" % p.stderr)
        job = p.stdout.strip().split(";")[0]
        self.scripts = getattr(self, "scripts", {})
        self.scripts[job] = path
        return job

    def out(self, job, stream="out"):
        """The job's stdout ("out") or stderr ("err")."""
        try:
            with open(self.scripts[job] + "." + stream) as f:
                return f.read()
        except OSError:
            return ""

    def state(self, job):
        p = self.run(["scontrol", "-o", "show", "job", job])
        for word in p.stdout.split():
            if word.startswith("JobState="):
                return word.split("=", 1)[1]
        return ""

    def wait(self, job, timeout=120, states=("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT",
                                             "NODE_FAIL", "OUT_OF_MEMORY")):
        deadline = time.time() + timeout
        s = ""
        while time.time() < deadline:
            s = self.state(job)
            if s in states:
                return s
            time.sleep(0.2)
        raise AssertionError("job %s still %s after %d s: %s" % (job, s, timeout, self._logs()))
