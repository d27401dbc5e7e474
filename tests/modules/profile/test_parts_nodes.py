# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The part files of one job in several directories, as a killed multi-node job leaves them
on its nodes: merged from the directories given, they make the record one directory makes;
a directory left out is named by its ranks and their host; `pnmpi-admin gather-parts`
collects a node's parts. A 4-rank job (apps/profile_app.c, rank 1 calls MPI_Abort) whose
parts are moved by rank into two directories."""

import os
import shutil
import socket
import subprocess
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "tools", "report"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "support"))
import mpi_launch  # noqa: E402
from pnmpi_report import parts, record  # noqa: E402

FLAVOR = os.environ.get("PNMPI_TEST_MPI_FLAVOR", "openmpi")
SCRATCH = os.path.join(os.environ.get("PNMPI_TEST_SCRATCH", "/tmp/pnmpi-profile-tests"),
                       "parts_nodes")
ADMIN = os.path.join(SOURCE, "tools", "admin", "pnmpi-admin")
ARRAYS = ("calls", "bytes", "time_s", "tool_calls", "tool_bytes", "wall_s", "mpi_s",
          "rank_state", "rank_code", "rank_signal")


def report(*args):
    return subprocess.run([sys.executable, os.environ["PNMPI_REPORT"]] + list(args),
                          capture_output=True, text=True, timeout=120)


class PartsOnNodes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(SCRATCH, ignore_errors=True)
        os.makedirs(SCRATCH)
        cls.out = os.path.join(SCRATCH, "out")
        conf = os.path.join(SCRATCH, "conf")
        with open(conf, "w") as f:
            f.write("module profile\nargument output %s\n" % cls.out)
        os.chmod(conf, 0o600)
        cmd = [os.environ["PNMPI_TEST_MPIEXEC"]]
        env = dict(os.environ, PNMPI_CONF=conf, PNMPI_LIB_PATH=os.environ["PNMPI_TEST_MODULE_DIR"])
        if FLAVOR == "openmpi":
            env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
            cmd += ["--oversubscribe"]
        mpi_launch.run_job(cmd + ["-np", "4", os.environ["PNMPI_TEST_APP"], "abort", "10"], FLAVOR,
                           capture_output=True, text=True, env=env, cwd=SCRATCH, timeout=300)
        files = parts.part_files(cls.out)
        assert len(files) == 4, os.listdir(cls.out)
        cls.host = socket.gethostname()
        # By rank, as two nodes' parts directories would hold them.
        cls.low, cls.high = os.path.join(SCRATCH, "low"), os.path.join(SCRATCH, "high")
        for d in (cls.low, cls.high):
            os.makedirs(d)
        for f in files:
            dest = cls.low if parts.Part(f).rank < 2 else cls.high
            shutil.copy(f, dest)

    def test_hosts_noted(self):
        # By the first and the last rank only: nothing that grows with the job on the others.
        noted = {}
        for f in parts.part_files(self.out):
            p = parts.Part(f)
            noted[p.rank] = p.rank_hosts
        self.assertEqual(noted, {0: [self.host] * 4, 1: None, 2: None, 3: [self.host] * 4})

    def test_two_directories_make_the_same_record(self):
        one = parts.read_job(self.out)
        two = parts.read_job([self.low, self.high])
        self.assertEqual((two.ended, two.ranks, two.routines, two.notes),
                         (one.ended, one.ranks, one.routines, one.notes))
        self.assertEqual(one.ended, "incomplete")
        for name in ARRAYS:
            self.assertTrue(np.array_equal(getattr(one, name), getattr(two, name)), name)
        self.assertEqual(list(two.calls[:, two.routine_index("MPI_Send")]), [10] * 4)
        self.assertEqual(two.rank_end(1), "MPI_Abort (code 7)")
        # The command line: the directories as RUN, the same page as the one directory's.
        a, b = report("summary", self.out), report("summary", self.low, self.high)
        self.assertEqual((a.returncode, b.returncode), (0, 0), a.stderr + b.stderr)
        self.assertEqual(a.stdout.replace(self.out, "DIR"), b.stdout.replace(self.low, "DIR"))
        self.assertNotIn("missing", b.stdout)

    def test_directory_left_out(self):
        r = parts.read_job([self.low])
        self.assertEqual((r.ended, r.ranks), ("incomplete", 4))
        self.assertIn("ranks 2-3 missing (host %s): no part file of them in the directories "
                      "given (the host's node-local parts directory not gathered, or killed "
                      "before MPI_Init finished)" % self.host, r.notes)
        self.assertTrue(np.all(r.rank_state[2:] == record.RUNNING))
        self.assertEqual(list(r.calls[:, r.routine_index("MPI_Send")]), [10, 10, 0, 0])
        p = report("summary", self.low)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("\nended: INCOMPLETE: MPI_Abort (code 7): rank 1;", p.stdout)
        self.assertIn("ranks 2-3 missing (host %s)" % self.host, p.stdout)
        r = parts.read_job([self.high])
        self.assertIn("ranks 0-1 missing (host %s): no part file of them in the directories "
                      "given (the host's node-local parts directory not gathered, or killed "
                      "before MPI_Init finished)" % self.host, r.notes)

    def test_gather_parts(self):
        dest = os.path.join(SCRATCH, "gathered")
        job = parts.Part(parts.part_files(self.out)[0]).job_id
        p = subprocess.run([sys.executable, ADMIN, "gather-parts", self.out, dest, "--job", job],
                           capture_output=True, text=True, timeout=60)
        here = os.path.join(dest, parts_name(self.host))
        self.assertEqual((p.returncode, p.stdout, p.stderr),
                         (0, "pnmpi-admin: %s: 4 part files of job %s copied to %s\n"
                          % (parts_name(self.host), job, here), ""))
        self.assertEqual(sorted(os.listdir(here)),
                         sorted(os.path.basename(f) for f in parts.part_files(self.out)))
        self.assertTrue(np.array_equal(parts.read_job([here]).calls,
                                       parts.read_job(self.out).calls))
        # Another job's id copies nothing; a missing PARTS directory is an error.
        p = subprocess.run([sys.executable, ADMIN, "gather-parts", self.out, dest, "--job", "x"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual((p.returncode, p.stdout),
                         (0, "pnmpi-admin: %s: 0 part files of job x copied to %s\n"
                          % (parts_name(self.host), here)))
        p = subprocess.run([sys.executable, ADMIN, "gather-parts", self.out + "-none", dest],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual((p.returncode, p.stderr),
                         (1, "pnmpi-admin: cannot list %s-none: No such file or directory\n"
                          % self.out))


def parts_name(host):
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in host)


if __name__ == "__main__":
    unittest.main(verbosity=2)
