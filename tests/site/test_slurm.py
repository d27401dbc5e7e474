# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Site records under a real Slurm (docs/site.md; label `slurm`, skipped with the reason
when not root or when the daemons cannot start): jobs submitted with sbatch that run the
MPI's launcher inside their allocation, and srun --mpi=pmix for Open MPI, each leave one
record in the site's record directory carrying the Slurm job id (and step); a job cancelled
with scancel --signal=TERM leaves its record too, marked incomplete with each rank's end."""

import glob
import os
import stat
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
sys.path.insert(0, os.path.join(SOURCE, "tools", "report"))
sys.path.insert(0, HERE)

from slurm_cluster import SlurmCluster  # noqa: E402

from pnmpi_report import record  # noqa: E402

FLAVOR = os.environ.get("PNMPI_TEST_MPI_FLAVOR", "openmpi")
APP = os.environ.get("PNMPI_TEST_APP", "")
MODULES = os.environ.get("PNMPI_TEST_MODULE_DIR", "")
REPORT = os.environ.get("PNMPI_REPORT", os.path.join(SOURCE, "tools", "report", "pnmpi-report"))
ADMIN = os.path.join(SOURCE, "tools", "admin", "pnmpi-admin")
SCRATCH = os.environ.get("PNMPI_TEST_SCRATCH", "/tmp/pnmpi-slurm-tests")

CLUSTER = None


def setUpModule():
    global CLUSTER
    cluster = SlurmCluster(os.path.join(SCRATCH, "slurm"))
    try:
        CLUSTER = cluster.__enter__()
    except unittest.SkipTest as e:
        # CTest reports the test as skipped on this line (SKIP_REGULAR_EXPRESSION).
        sys.stderr.write("pnmpi-slurm-tests skipped: %s\n" % e)
        raise


def tearDownModule():
    if CLUSTER is not None:
        CLUSTER.stop()


class SiteUnderSlurm(unittest.TestCase):

    def setUp(self):
        self.dir = os.path.join(SCRATCH, self.id().split(".")[-1])
        subprocess.run(["rm", "-rf", self.dir], check=True)
        os.makedirs(self.dir)
        self.logdir = os.path.join(self.dir, "logs")
        subprocess.run([sys.executable, ADMIN, "mkdirs", self.logdir, "--years",
                        "%d-%d" % (time.gmtime().tm_year, time.gmtime().tm_year)],
                       check=True, stdout=subprocess.DEVNULL)
        self.site = os.path.join(self.dir, "site.conf")
        with open(self.site, "w") as f:
            f.write("records %s\nmodule profile\n" % self.logdir)

    def script(self, launch):
        """A batch script: the site's environment, then `launch` in the job's directory."""
        env = ["PNMPI_SITE_CONF=%s" % self.site, "PNMPI_LIB_PATH=%s" % MODULES]
        if FLAVOR == "openmpi":
            env += ["OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"]
        return "#!/bin/sh\ncd %s\n%s\n%s\n" % (self.dir, "\n".join("export " + e for e in env),
                                               launch)

    def records(self):
        return sorted(glob.glob(os.path.join(self.logdir, "*", "*", "*", "*.record.npz")))

    def one_record(self, job):
        recs = self.records()
        self.assertEqual(len(recs), 1, recs)
        path = recs[0]
        self.assertIn("_id%s_" % job, os.path.basename(path))
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o640)
        # The job ran in self.dir: a site stack writes nothing into its directory.
        self.assertEqual(sorted(os.listdir(self.dir)), ["logs", "site.conf"])
        return record.read_record(path)

    def run_job(self, launch, args=("-n", "2")):
        job = CLUSTER.sbatch(self.script(launch), args)
        state = CLUSTER.wait(job)
        return job, state

    def test_sbatch_runs_the_launcher_in_its_allocation(self):
        launcher = ("mpirun.openmpi -np 2" if FLAVOR == "openmpi" else "mpiexec.mpich -n 2")
        job, state = self.run_job("%s %s finalize 10" % (launcher, APP))
        self.assertEqual(state, "COMPLETED", CLUSTER.out(job) + CLUSTER.out(job, "err"))
        self.assertEqual(CLUSTER.out(job, "err"), "")  # the site stack says nothing
        r = self.one_record(job)
        self.assertEqual(r.ended, "finalized")
        self.assertEqual(r.ranks, 2)
        self.assertTrue(r.job_id == job or r.job_id.startswith(job + "."), r.job_id)
        self.assertEqual(int(r.calls[:, r.routine_index("MPI_Send")].sum()), 20)

    @unittest.skipUnless(FLAVOR == "openmpi", "srun --mpi=pmix starts Open MPI programs only "
                                              "(MPICH uses mpiexec inside the allocation)")
    def test_srun_pmix_carries_the_step(self):
        job, state = self.run_job("srun --mpi=pmix -n 2 %s finalize 10" % APP)
        self.assertEqual(state, "COMPLETED", CLUSTER.out(job) + CLUSTER.out(job, "err"))
        r = self.one_record(job)
        self.assertEqual(r.job_id, job + ".0")
        self.assertEqual(r.ended, "finalized")

    def test_scancel_term_leaves_an_incomplete_record(self):
        launcher = ("mpirun.openmpi -np 2" if FLAVOR == "openmpi" else "mpiexec.mpich -n 2")
        # As at the time limit: TERM to every process of the job, the launcher (the batch
        # script itself, exec) and the ranks alike.
        job = CLUSTER.sbatch(self.script("exec %s %s hang 10" % (launcher, APP)), ("-n", "2"))
        deadline = time.time() + 60
        while CLUSTER.out(job).count("ready ") < 2 and time.time() < deadline:
            time.sleep(0.2)
        self.assertEqual(CLUSTER.out(job).count("ready "), 2, CLUSTER.out(job, "err"))
        p = CLUSTER.run(["scancel", "--signal=TERM", "--full", job])
        self.assertEqual(p.returncode, 0, p.stderr)
        # Ended (MPICH's mpiexec may exit 0 after forwarding TERM: Slurm then says
        # COMPLETED); how each rank ended is the record's to say.
        CLUSTER.wait(job)
        self.assertEqual(self.records(), [])  # no finalize: parts only, until the report
        p = subprocess.run([REPORT, "site", self.logdir, "--merge-after", "0"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        recs = self.records()
        self.assertEqual(len(recs), 1, p.stdout)
        r = record.read_record(recs[0])
        self.assertEqual(r.ended, "incomplete")
        self.assertTrue(r.job_id == job or r.job_id.startswith(job + "."), r.job_id)
        ends = [r.rank_end(k) for k in range(2)]
        self.assertIn("signal 15", ends)
        self.assertIn(": 1 jobs (1 not finalized)", p.stdout.splitlines()[0])
        self.assertEqual(glob.glob(os.path.join(self.logdir, "*", "*", "*", "*.part")), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
