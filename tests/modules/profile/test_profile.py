# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The profile module under real mpirun jobs: exact calls and bytes per routine (C,
threads, Fortran, stacked with the monitor), times in order, and the part files of jobs
that end without MPI_Finalize (MPI_Abort, exit, SIGTERM of the job, SIGKILL of a rank)
merged into a record that says what happened. Apps: apps/profile_app.c, .f90."""

import glob
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "tools", "report"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "support"))
import mpi_launch  # noqa: E402
from pnmpi_report import parts, record  # noqa: E402

FLAVOR = os.environ.get("PNMPI_TEST_MPI_FLAVOR", "openmpi")
APP = os.environ.get("PNMPI_TEST_APP")
APP_F90 = os.environ.get("PNMPI_TEST_APP_F90")
THREAD_APP = os.environ.get("PNMPI_TEST_THREAD_APP")
SCRATCH = os.environ.get("PNMPI_TEST_SCRATCH", "/tmp/pnmpi-profile-tests")
ITER = 10
# Rounding of record times (record.TIME_BITS): relative error below 2**-12.
SLACK = 1 + 2.0 ** -11


def launcher(np_=2):
    cmd = [os.environ["PNMPI_TEST_MPIEXEC"]]
    env = dict(os.environ)
    if FLAVOR == "openmpi":
        env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
        cmd += ["--oversubscribe"]
    return cmd + ["-np", str(np_)], env


def ready_pids(test, p, ranks=2):
    """The pids of a `hang` job's ranks, from their "ready RANK PID" lines."""
    pids = {}
    while len(pids) < ranks:
        line = p.stdout.readline()
        test.assertTrue(line, "the job ended before every rank was ready")
        if line.startswith("ready "):
            _, rank, pid = line.split()
            pids[int(rank)] = int(pid)
    return pids


def finish(p):
    """Waits for a job that was signalled (SIGTERM to its launcher if it hangs on)."""
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=60)
    p.stdout.close()


class Profile(unittest.TestCase):
    # The wall time of a rank killed without a mark is known (above 0) when the profile
    # ran: its counters change the part file after MPI_Init (see UnfinishedMonitorAlone).
    KILLED_WALL = True
    def setUp(self):
        self.dir = os.path.join(SCRATCH, self.id().split(".")[-1])
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.out = os.path.join(self.dir, "out")

    def conf(self, above="", below=""):
        path = os.path.join(self.dir, "conf")
        with open(path, "w") as f:
            f.write("%smodule profile\nargument output %s\n%s" % (above, self.out, below))
        os.chmod(path, 0o600)
        return path

    def job(self, argv, conf, preload=False, ranks=2):
        cmd, env = launcher(ranks)
        if preload:
            argv = [os.environ["PNMPI_TEST_RUN"], "-c", conf, "-L",
                    os.environ["PNMPI_TEST_MODULE_DIR"]] + argv
        else:
            env.update({"PNMPI_CONF": conf, "PNMPI_LIB_PATH": os.environ["PNMPI_TEST_MODULE_DIR"]})
        return cmd, env, argv

    def run_job(self, argv, conf, preload=False, status=0):
        cmd, env, argv = self.job(argv, conf, preload)
        p = mpi_launch.run_job(cmd + argv, FLAVOR, capture_output=True, text=True, env=env,
                               cwd=self.dir, timeout=300)
        if status is not None:
            self.assertEqual(p.returncode, status, p.stdout + p.stderr)
        return p

    def finalized_record(self):
        files = glob.glob(os.path.join(self.out, "pnmpi-*.record.npz"))
        self.assertEqual(len(files), 1, os.listdir(self.out))
        self.assertEqual(parts.part_files(self.out), [], "part files stay after finalize")
        r = record.read_record(files[0])
        self.assertEqual(r.ended, "finalized")
        self.assertTrue(np.all(r.rank_state == record.FINALIZED))
        return r

    def col(self, r, name, what="calls"):
        k = r.routine_index(name)
        self.assertIsNotNone(k, "%s not in %s" % (name, r.routines))
        return getattr(r, what)[:, k]

    def expect(self, r, calls, nbytes, ranks=(0, 1)):
        for name, n in calls.items():
            self.assertEqual(list(self.col(r, name)[list(ranks)]), [n] * len(ranks), name)
        for name, n in nbytes.items():
            self.assertEqual(list(self.col(r, name, "bytes")[list(ranks)]), [n] * len(ranks),
                             name)

    def check_times(self, r, threads=1):
        """Times in order and summing inside the wall time (of each thread that calls MPI:
        their times add up); never against fixed bounds."""
        self.assertTrue(np.all(r.time_s >= 0) and np.all(r.min_s <= r.max_s))
        called = r.calls > 0
        lo = r.calls * r.min_s[None, :] / SLACK
        hi = r.calls * r.max_s[None, :] * SLACK
        self.assertTrue(np.all(~called | ((r.time_s >= lo) & (r.time_s <= hi))))
        keep = [k for k, n in enumerate(r.routines) if n not in parts.EXCLUDED]
        total = r.time_s[:, keep].astype(np.float64).sum(axis=1)
        self.assertTrue(np.allclose(total, r.mpi_s, rtol=1e-3, atol=1e-6), (total, r.mpi_s))
        self.assertTrue(np.all(r.mpi_s <= r.wall_s * threads * SLACK), (r.mpi_s, r.wall_s))
        self.assertTrue(np.all(r.wall_s > 0))
        self.assertLessEqual(r.start, r.end)

    # ---- finalized jobs ------------------------------------------------------------------

    def test_c_counts(self):
        self.run_job([APP, "finalize", str(ITER)], self.conf())
        r = self.finalized_record()
        self.assertEqual(r.ranks, 2)
        self.assertEqual(r.modules, ["profile"])
        self.assertEqual(r.executable, os.path.realpath(APP))
        self.assertTrue(r.executable_hash.startswith("crc32:"))
        self.expect(r, {"MPI_Send": ITER, "MPI_Irecv": ITER, "MPI_Wait": ITER,
                        "MPI_Allreduce": ITER, "MPI_Barrier": 1, "MPI_Init": 1,
                        "MPI_Comm_rank": 1, "MPI_Comm_size": 1},
                    {"MPI_Send": ITER * 400, "MPI_Irecv": ITER * 400, "MPI_Allreduce": ITER * 24,
                     "MPI_Barrier": 0, "MPI_Wait": 0})
        self.assertEqual(int(r.tool_calls.sum()), 0)
        self.assertEqual((len(r.p2p_src), r.comm_names), (0, []))  # no monitor, no traffic
        self.check_times(r)
        out = self.report("summary", self.out)
        self.assertIn("ended: finalized\n", out)
        self.assertRegex(out, r"\nMPI_Send +20 ")
        page = os.path.join(self.dir, "job.html")
        self.report("html", self.out, "-o", page)
        with open(page) as f:
            self.assertIn("<h2>Time in MPI</h2>", f.read())

    def test_split(self):
        """argument split on: per (routine, communicator size, message-size bin), adding up
        to the routine's calls and bytes on every rank."""
        self.run_job([APP, "finalize", str(ITER)], self.conf_split())
        r = self.finalized_record()
        rows = {}
        for i in range(len(r.split_rank)):
            key = (int(r.split_rank[i]), r.routines[int(r.split_routine[i])],
                   int(r.split_comm_size[i]), int(r.split_bin[i]))
            rows[key] = (int(r.split_calls[i]), int(r.split_bytes[i]))
        for rank in (0, 1):
            # 400 bytes: floor(log2(400)) + 1 = 9; 24 bytes: 5; no bytes: 0.
            self.assertEqual(rows[(rank, "MPI_Send", 2, 9)], (ITER, ITER * 400))
            self.assertEqual(rows[(rank, "MPI_Irecv", 2, 9)], (ITER, ITER * 400))
            self.assertEqual(rows[(rank, "MPI_Allreduce", 2, 5)], (ITER, ITER * 24))
            self.assertEqual(rows[(rank, "MPI_Barrier", 2, 0)], (1, 0))
            self.assertEqual(rows[(rank, "MPI_Wait", 0, 0)], (ITER, 0))
            for name in r.routines:
                calls = sum(v[0] for k, v in rows.items() if k[0] == rank and k[1] == name)
                self.assertEqual(calls, int(self.col(r, name)[rank]), name)
        out = self.report("summary", self.out)
        self.assertRegex(out, r"\nMPI_Send +2 +256 B-511 B +20 ")

    def conf_split(self):
        path = self.conf()
        with open(path, "a") as f:
            f.write("argument split on\n")
        return path

    def report(self, *args):
        p = subprocess.run([os.environ.get("PNMPI_REPORT", os.path.join(
            SOURCE, "tools", "report", "pnmpi-report"))] + list(args), capture_output=True,
                           text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return p.stdout

    def test_threads(self):
        threads = 4
        self.run_job([APP, "threads", str(ITER), str(threads)], self.conf())
        r = self.finalized_record()
        self.expect(r, {"MPI_Allreduce": ITER + threads * ITER, "MPI_Init_thread": 1,
                        "MPI_Comm_dup": threads, "MPI_Comm_free": threads, "MPI_Send": ITER},
                    {"MPI_Allreduce": ITER * 24 + threads * ITER * 4})
        self.check_times(r, threads + 1)

    @unittest.skipUnless(APP_F90, "no Fortran compiler")
    def test_fortran(self):
        self.run_job([APP_F90], self.conf(), preload=True)
        r = self.finalized_record()
        self.expect(r, {"MPI_Send": ITER, "MPI_Recv": ITER, "MPI_Allreduce": ITER,
                        "MPI_Barrier": 1},
                    {"MPI_Send": ITER * 400, "MPI_Recv": ITER * 400, "MPI_Allreduce": ITER * 24})
        self.check_times(r)

    def test_stacked_with_monitor(self):
        """The monitor above: its finalize traffic is the modules', the application's counts
        are unchanged; below: nothing changes."""
        mon = os.path.join(self.dir, "mon")
        for above, below in (("module monitor\nargument output %s\n" % mon, ""),
                             ("", "module monitor\nargument output %s\n" % mon)):
            shutil.rmtree(self.out, ignore_errors=True)
            self.run_job([APP, "finalize", str(ITER)], self.conf(above, below))
            r = self.finalized_record()
            self.expect(r, {"MPI_Send": ITER, "MPI_Allreduce": ITER, "MPI_Barrier": 1},
                        {"MPI_Send": ITER * 400})
            # The monitor's application traffic in the record: the ring, and WORLD's
            # collectives (10 allreduces of 24 bytes to the one peer, one barrier).
            self.assertEqual((list(r.p2p_src), list(r.p2p_dst), list(r.p2p_bytes),
                              list(r.p2p_count)), ([0, 1], [1, 0], [4000] * 2, [ITER] * 2))
            self.assertEqual(r.comm_names, ["MPI_COMM_WORLD"])
            [(name, members, nbytes, count)] = r.communicators()
            self.assertEqual((list(members), list(nbytes), list(count)),
                             ([0, 1], [ITER * 24] * 2, [ITER + 1] * 2))
            if above:
                self.assertGreater(int(r.tool_calls.sum()), 0)
            else:
                self.assertEqual(int(r.tool_calls.sum()), 0)
            self.assertTrue(os.path.exists(mon + ".json"), os.listdir(self.dir))

    # ---- jobs that never finalize ------------------------------------------------------

    def merged(self):
        self.assertEqual(glob.glob(os.path.join(self.out, "*.record.npz")), [])
        r = parts.read_job(self.out)
        self.assertEqual(r.ended, "incomplete")
        self.assertEqual(r.ranks, 2)
        return r

    def counted_until_the_end(self, r, ranks=(0, 1)):
        self.expect(r, {"MPI_Send": ITER, "MPI_Irecv": ITER, "MPI_Allreduce": ITER},
                    {"MPI_Send": ITER * 400}, ranks)
        self.assertTrue(np.all(r.time_s >= 0))

    def test_abort(self):
        self.run_job([APP, "abort", str(ITER)], self.conf(), status=None)
        r = self.merged()
        self.assertEqual(r.rank_end(1), "MPI_Abort (code 7)")
        self.assertIn(r.rank_end(0), ("signal 15", "killed (no mark)"))
        self.counted_until_the_end(r)
        self.assertIn("MPI_Abort (code 7): rank 1", self.report("summary", self.out))

    def test_exit_without_finalize(self):
        self.run_job([APP, "exit", str(ITER)], self.conf(), status=None)
        r = self.merged()
        self.assertEqual(r.rank_end(1), "exit without finalize")
        self.assertIn(r.rank_end(0), ("signal 15", "killed (no mark)", "exit without finalize"))
        self.counted_until_the_end(r)

    def hang(self):
        cmd, env, argv = self.job([APP, "hang", str(ITER)], self.conf())
        p = subprocess.Popen(cmd + argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, env=env, cwd=self.dir)
        return p, ready_pids(self, p)

    def finish(self, p):
        finish(p)

    def test_sigterm_of_the_job(self):
        """As a scheduler does at the time limit: SIGTERM to the launcher, which forwards
        it. A rank the launcher SIGKILLs before it ran its handler shows no mark."""
        p, _ = self.hang()
        p.send_signal(signal.SIGTERM)
        self.finish(p)
        r = self.merged()
        ends = [r.rank_end(k) for k in range(2)]
        for e in ends:
            self.assertIn(e, ("signal 15", "killed (no mark)"))
        self.assertIn("signal 15", ends)
        self.counted_until_the_end(r)

    def test_sigkill_of_one_rank(self):
        p, pids = self.hang()
        os.kill(pids[1], signal.SIGKILL)
        self.finish(p)
        r = self.merged()
        self.assertEqual(r.rank_end(1), "killed (no mark)")
        self.assertIn(r.rank_end(0), ("signal 15", "killed (no mark)"))
        self.counted_until_the_end(r)
        if self.KILLED_WALL:
            self.assertGreater(r.wall_s[1], 0)


class UnfinishedWithMonitor(Profile):
    """The kill tests again, with the monitor below the profile: the merged record also
    holds the monitor's matrix and WORLD's collectives, counted up to the end (its region
    of the part file, modules/monitor/part_region.h)."""
    test_c_counts = test_split = test_threads = test_fortran = None
    test_stacked_with_monitor = None
    PROFILE = True

    def conf(self, above="", below=""):
        path = os.path.join(self.dir, "conf")
        with open(path, "w") as f:
            if self.PROFILE:
                f.write("module profile\nargument output %s\n" % self.out)
            f.write("module monitor\nargument output %s/mon\nargument parts %s\n"
                    % (self.dir, self.out))
        os.chmod(path, 0o600)
        return path

    def counted_until_the_end(self, r, ranks=(0, 1)):
        if self.PROFILE:
            super().counted_until_the_end(r, ranks)
        self.matrix_until_the_end(r, ranks)

    @unittest.skipUnless(APP_F90, "no Fortran compiler")
    def test_fortran_abort(self):
        self.run_job([APP_F90, "abort"], self.conf(), preload=True, status=None)
        r = self.merged()
        self.assertEqual(r.rank_end(1), "MPI_Abort (code 7)")
        self.matrix_until_the_end(r)

    def matrix_until_the_end(self, r, ranks=(0, 1)):
        # The ring: every rank sent ITER messages of 400 bytes to the next, all done
        # before the end; nothing more was started.
        self.assertEqual((list(r.p2p_src), list(r.p2p_dst), list(r.p2p_bytes),
                          list(r.p2p_count)), ([0, 1], [1, 0], [ITER * 400] * 2, [ITER] * 2))
        self.assertEqual(r.comm_names, ["MPI_COMM_WORLD"])
        [(_, members, nbytes, count)] = r.communicators()
        self.assertEqual((list(members), list(nbytes)), ([0, 1], [ITER * 24] * 2))
        # ITER allreduces and a barrier done; a rank that waits in a second barrier when
        # its peer aborts or exits has started one more.
        for k in ranks:
            self.assertIn(int(count[k]), (ITER + 1, ITER + 2), count)

    def test_finalized_job_leaves_no_part_file(self):
        self.run_job([APP, "finalize", str(ITER)], self.conf())
        self.assertEqual(parts.part_files(self.out), [])
        self.assertTrue(os.path.exists(os.path.join(self.dir, "mon.json")))


    def test_communicators_beyond_the_slots(self):
        """1030 duplicates of WORLD with an allreduce each: WORLD and the first 1023 are
        kept in the region's 1024 slots, 7 are not (said); same members, one entry."""
        cmd, env, argv = self.job([APP, "comms", str(ITER), "1030"], self.conf())
        p = subprocess.Popen(cmd + argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, env=env, cwd=self.dir)
        ready_pids(self, p)
        p.send_signal(signal.SIGTERM)
        finish(p)
        r = self.merged()
        [(_, members, nbytes, count)] = r.communicators()
        self.assertEqual((list(members), list(nbytes), list(count)),
                         ([0, 1], [ITER * 24 + 1023 * 4] * 2, [ITER + 1 + 1023] * 2))
        for rank in (0, 1):
            self.assertIn("rank %d: 7 communicators not kept (the monitor's part file keeps "
                          "1024): their collectives are missing" % rank, r.notes)

    def kill_all(self, argv, ranks=2):
        """Runs a job that says "ready RANK PID" when done, SIGKILLs every rank, and
        returns the record merged from the part files."""
        cmd, env, argv = self.job(argv, self.conf(), ranks=ranks)
        p = subprocess.Popen(cmd + argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True, env=env, cwd=self.dir)
        for pid in ready_pids(self, p, ranks).values():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                # The launcher ended this rank when an earlier one died, before this test
                # came to it (a loaded machine's scheduling): its end is checked below.
                pass
        finish(p)
        self.assertEqual(glob.glob(os.path.join(self.out, "*.record.npz")), [])
        r = parts.read_job(self.out)
        self.assertEqual((r.ended, r.ranks), ("incomplete", ranks))
        # A rank the launcher ends (SIGTERM) after another one died, before its SIGKILL came,
        # marks its part: which happens first depends on scheduling.
        for k in range(ranks):
            self.assertIn(r.rank_end(k), ("killed (no mark)", "signal 15"), k)
        return r

    def test_more_communicators_than_64(self):
        """100 duplicates of WORLD with an allreduce each, every rank SIGKILLed: all in the
        region (1024 slots), sharing WORLD's member list."""
        r = self.kill_all([APP, "comms", str(ITER), "100"])
        [(_, members, nbytes, count)] = r.communicators()
        self.assertEqual((list(members), list(nbytes), list(count)),
                         ([0, 1], [ITER * 24 + 100 * 4] * 2, [ITER + 1 + 100] * 2))
        self.assertEqual([n for n in r.notes if "not kept" in n], [])
        for f in parts.part_files(self.out):
            m = parts.Part(f).monitor
            self.assertEqual((int(m["comm_used"]), int(m["members_used"])), (101, 2), f)

    def test_threads_killed(self):
        """Sends from 3 threads per rank under MPI_THREAD_MULTIPLE (to itself and to other
        ranks), every rank SIGKILLed after them: the merged matrix has every thread's
        messages and bytes (the monitor's per-thread counters in its part file)."""
        ranks, threads = (4 if FLAVOR == "openmpi" else 2), 3
        r = self.kill_all([THREAD_APP, str(threads)], ranks)
        expected = {}
        for rank in range(ranks):
            for t in range(threads):  # thread_sends.c
                v = expected.setdefault((rank, (rank + t) % ranks), [0, 0])
                v[0] += 4 + 3 * t
                v[1] += (4 + 3 * t) * (1 + 10 * t) * 8
        got = sorted(zip(map(int, r.p2p_src), map(int, r.p2p_dst), map(int, r.p2p_count),
                         map(int, r.p2p_bytes)))
        self.assertEqual(got, sorted((s, d, c, b) for (s, d), (c, b) in expected.items()))
        [(_, members, nbytes, count)] = r.communicators()  # the one barrier
        self.assertEqual((list(members), list(nbytes), list(count)),
                         (list(range(ranks)), [0] * ranks, [1] * ranks))
        self.assertEqual([n for n in r.notes if "not kept" in n], [])


class UnfinishedMonitorAlone(UnfinishedWithMonitor):
    """The monitor without the profile: it makes the part file, marks it and starts it
    (rank, size, times); the merged record has no routines, but the matrix and the ends.
    When no rank has a mark (MPICH SIGKILLs the others), a killed rank's wall time ends at
    its part file's last change, which the kernel stamps with a coarse clock: the monitor's
    first stores can be stamped before MPI_Init's end, and the wall time is then 0."""
    PROFILE = False
    KILLED_WALL = False

    def test_no_routines(self):
        p, _ = self.hang()
        p.send_signal(signal.SIGTERM)
        self.finish(p)
        r = self.merged()
        self.assertEqual(r.routines, [])
        self.counted_until_the_end(r)


class SiteMonitor(unittest.TestCase):
    """The monitor and the profile as site modules (docs/site.md): silent, nothing in the
    job's directory, the matrix in the record in the site's day directory; files only
    where the site's configuration asks; a failure is one warning and changes nothing."""

    def setUp(self):
        self.dir = os.path.join(SCRATCH, "site_" + self.id().split(".")[-1])
        shutil.rmtree(self.dir, ignore_errors=True)
        self.cwd = os.path.join(self.dir, "cwd")
        os.makedirs(self.cwd)
        self.logdir = os.path.join(self.dir, "logs")
        year = time.gmtime().tm_year
        subprocess.run([sys.executable, os.path.join(SOURCE, "tools", "admin", "pnmpi-admin"),
                        "mkdirs", self.logdir, "--years", "%d-%d" % (year, year + 1)],
                       check=True, stdout=subprocess.DEVNULL)

    def site_job(self, site):
        """The launcher and environment of a job with the site configuration `site` (after
        its `records` line; None: no site configuration) and no user configuration."""
        cmd, env = launcher()
        env["HOME"] = self.cwd  # no ~/.pnmpi-conf
        env.pop("PNMPI_CONF", None)
        env["PNMPI_LIB_PATH"] = os.environ["PNMPI_TEST_MODULE_DIR"]
        env.pop("PNMPI_SITE_CONF", None)
        if site is not None:
            path = os.path.join(self.dir, "site.conf")
            with open(path, "w") as f:
                f.write("records %s\n%s" % (self.logdir, site))
            os.chmod(path, 0o644)
            env["PNMPI_SITE_CONF"] = path
        return cmd, env

    def run_site(self, site, mode="finalize"):
        cmd, env = self.site_job(site)
        return mpi_launch.run_job(cmd + [APP, mode, str(ITER)], FLAVOR, capture_output=True,
                                  text=True, env=env, cwd=self.cwd, timeout=300)

    def records(self):
        return sorted(glob.glob(os.path.join(self.logdir, "*", "*", "*", "*.record.npz")))

    def test_silent_and_the_record_has_the_matrix(self):
        native = self.run_site(None)
        self.assertEqual(native.returncode, 0, native.stderr)
        site = self.run_site("module monitor\nmodule profile\n")
        self.assertEqual((site.returncode, site.stdout, site.stderr),
                         (native.returncode, native.stdout, native.stderr))
        self.assertEqual(os.listdir(self.cwd), [])
        [path] = self.records()
        r = record.read_record(path)
        self.assertEqual(r.ended, "finalized")
        self.assertEqual((list(r.p2p_src), list(r.p2p_dst), list(r.p2p_bytes),
                          list(r.p2p_count)), ([0, 1], [1, 0], [ITER * 400] * 2, [ITER] * 2))
        self.assertEqual(r.comm_names, ["MPI_COMM_WORLD"])
        self.assertEqual(glob.glob(os.path.join(self.logdir, "*", "*", "*", "*.part")), [])

    def test_killed_site_job_keeps_the_matrix(self):
        cmd, env = self.site_job("module monitor\nmodule profile\n")
        p = subprocess.Popen(cmd + [APP, "hang", str(ITER)], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, env=env, cwd=self.cwd)
        os.kill(ready_pids(self, p)[1], signal.SIGKILL)
        finish(p)
        self.assertEqual(os.listdir(self.cwd), [])
        self.assertEqual(self.records(), [])
        rep = subprocess.run([os.environ.get("PNMPI_REPORT", os.path.join(
            SOURCE, "tools", "report", "pnmpi-report")), "site", self.logdir, "--merge-after",
            "0"], capture_output=True, text=True, timeout=300)
        self.assertEqual(rep.returncode, 0, rep.stderr)
        [path] = self.records()
        r = record.read_record(path)
        self.assertEqual(r.ended, "incomplete")
        self.assertEqual(r.rank_end(1), "killed (no mark)")
        self.assertEqual((list(r.p2p_src), list(r.p2p_dst), list(r.p2p_count)),
                         ([0, 1], [1, 0], [ITER] * 2))

    def test_site_may_ask_for_files(self):
        out = os.path.join(self.dir, "mon")
        site = self.run_site("module monitor\nargument files gathered\nargument output %s\n"
                             "module profile\n" % out)
        self.assertEqual(site.returncode, 0, site.stderr)
        self.assertTrue(os.path.exists(out + ".json"))
        self.assertFalse(os.path.exists(out + ".0.prof"))
        self.assertEqual(site.stderr, "")  # files asked for, not the summary
        self.assertEqual(os.listdir(self.cwd), [])

    def test_failure_is_one_warning(self):
        native = self.run_site(None)
        out = os.path.join(self.dir, "missing", "mon")
        site = self.run_site("module monitor\nargument files gathered\nargument output %s\n"
                             "module profile\n" % out)
        self.assertEqual((site.returncode, site.stdout), (native.returncode, native.stdout))
        warnings = [x for x in site.stderr.splitlines() if x.startswith("pnmpi: warning: ")]
        self.assertEqual(len(warnings), 1, site.stderr)
        self.assertIn("module 'monitor': the output directory '%s'" % os.path.dirname(out),
                      warnings[0])
        self.assertTrue(warnings[0].endswith("[a module of the site configuration: it is "
                                             "disabled, the job goes on]"), warnings[0])
        self.assertEqual(os.listdir(self.cwd), [])
        [path] = self.records()  # the profile goes on
        self.assertEqual(record.read_record(path).ended, "finalized")


if __name__ == "__main__":
    unittest.main(verbosity=2)
