# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""mpi_launch.run_job with launchers that fail as Hydra and Open MPI's mpirun do on a loaded
machine: run once more for that launcher's own defect only, and never for any other failure."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_launch  # noqa: E402

# A launcher that ends as told by its first argument's file, one line per start: "pipe" (killed
# by SIGPIPE), "fail" (exit 1), "lost" (Open MPI's report of a rank it lost track of) or "ok";
# it counts its starts in the second argument's file.
LAUNCHER = """#!/bin/sh
echo start >>"$2"
n=$(wc -l <"$2")
what=$(sed -n "${n}p" "$1")
case "$what" in
  pipe) kill -PIPE $$ ;;
  fail) echo "failed" >&2; exit 1 ;;
  lost) printf 'process rank 1 with PID 0 on\nnode vm exiting improperly\n' >&2; exit 1 ;;
  *) echo "job output"; exit 0 ;;
esac
"""


class RunJob(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="pnmpi-mpi-launch-")
        self.addCleanup(shutil.rmtree, self.dir)
        self.launcher = os.path.join(self.dir, "launcher")
        with open(self.launcher, "w") as f:
            f.write(LAUNCHER)
        os.chmod(self.launcher, 0o755)
        self.plan = os.path.join(self.dir, "plan")
        self.starts = os.path.join(self.dir, "starts")

    def job(self, flavor, *plan):
        with open(self.plan, "w") as f:
            f.write("".join(p + "\n" for p in plan))
        if os.path.exists(self.starts):
            os.unlink(self.starts)
        proc = mpi_launch.run_job([self.launcher, self.plan, self.starts], flavor,
                                  capture_output=True, text=True, timeout=60)
        with open(self.starts) as f:
            return proc, len(f.readlines())

    def test_mpich_killed_by_sigpipe_runs_once_more(self):
        proc, starts = self.job("mpich", "pipe", "ok")
        self.assertEqual((proc.returncode, proc.stdout, starts), (0, "job output\n", 2))

    def test_only_once_more(self):
        proc, starts = self.job("mpich", "pipe", "pipe", "ok")
        self.assertEqual((proc.returncode, starts), (-signal.SIGPIPE, 2))

    def test_open_mpi_killed_by_sigpipe_is_its_result(self):
        proc, starts = self.job("openmpi", "pipe", "ok")
        self.assertEqual((proc.returncode, starts), (-signal.SIGPIPE, 1))

    def test_a_failed_job_is_not_run_again(self):
        proc, starts = self.job("mpich", "fail", "ok")
        self.assertEqual((proc.returncode, proc.stderr, starts), (1, "failed\n", 1))

    def test_open_mpi_lost_a_finished_rank_runs_once_more(self):
        proc, starts = self.job("openmpi", "lost", "ok")
        self.assertEqual((proc.returncode, proc.stdout, starts), (0, "job output\n", 2))
        proc, starts = self.job("mpich", "lost", "ok")
        self.assertEqual((proc.returncode, starts), (1, 1))

    def test_a_shell_that_reports_sigpipe(self):
        self.assertTrue(mpi_launch.hydra_died_of_sigpipe("mpich", 141))
        self.assertFalse(mpi_launch.hydra_died_of_sigpipe("mpich", 1))


if __name__ == "__main__":
    unittest.main()
