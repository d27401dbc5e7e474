# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The wrong launcher, for real: a program and pnmpi built for this MPI started by the other
MPI's launcher (2 processes), directly and through pnmpi-run. Each process would be a one-rank
job of its own; pnmpi stops it at MPI_Init with one message naming both MPIs, and the job
fails. With the right launcher the same job runs.

Usage: test_launcher.py CONFIG.json [LauncherTest.test_NAME]   (run with /usr/bin/python3)"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import mpi_launch  # noqa: E402

CONFIG = {}
SKIPPED = 77
FAMILY = {"openmpi": "Open MPI", "mpich": "MPICH"}


def run(launcher, flavor, program, conf):
    env = dict(os.environ)
    env.update({"PNMPI_CONF": conf, "PNMPI_LIB_PATH": CONFIG["module_dir"],
                "PNMPI_BE_SILENT": "1"})
    argv = [launcher]
    if flavor == "openmpi":
        env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
        argv += ["--oversubscribe"]
        for name in ("PNMPI_CONF", "PNMPI_LIB_PATH", "PNMPI_BE_SILENT"):
            argv += ["-x", name]
    argv += ["-np", "2"] + program
    return mpi_launch.run_job(argv, flavor, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=120)


def describe(proc):
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"


class LauncherTest(unittest.TestCase):
    def setUp(self):
        self.conf = os.path.join(tempfile.mkdtemp(prefix="pnmpi-launcher-"), "pnmpi.conf")
        with open(self.conf, "w") as f:
            f.write("module passthrough\n")
        ours, other = CONFIG["flavor"], CONFIG["other_flavor"]
        variable = "OMPI_COMM_WORLD_SIZE" if other == "openmpi" else "PMI_SIZE"
        launcher = ("Open MPI's mpirun" if other == "openmpi"
                    else "MPICH's mpiexec (Hydra) or another PMI launcher")
        ours_launcher = "mpirun.openmpi" if ours == "openmpi" else "mpiexec.mpich"
        self.expected = (
            "pnmpi: this process is alone in its MPI job (MPI_COMM_WORLD has 1 rank), but its "
            f"launcher started 2 processes ({variable}=2, set by {launcher}): each would run as "
            f"its own one-rank job; this pnmpi (and the program with it) is built for "
            f"{CONFIG['soname']} ({FAMILY[ours]}), which cannot join a job of {FAMILY[other]}'s "
            f"launcher. Start it with {FAMILY[ours]}'s launcher ({ours_launcher}), or use a "
            f"pnmpi and a program built for {FAMILY[other]}\n")

    def check_stopped(self, proc):
        self.assertNotEqual(proc.returncode, 0, describe(proc))
        # Once for the job (from the launcher's first process), before the program ran.
        self.assertEqual(proc.stderr.count(self.expected), 1, describe(proc))
        self.assertNotIn("init: [", proc.stdout)

    def test_other_launcher(self):
        proc = run(CONFIG["other_launcher"], CONFIG["other_flavor"], [CONFIG["app"]], self.conf)
        self.check_stopped(proc)

    def test_other_launcher_pnmpi_run(self):
        proc = run(CONFIG["other_launcher"], CONFIG["other_flavor"],
                   [CONFIG["pnmpi_run"], "-c", self.conf, CONFIG["plain_app"]], self.conf)
        self.check_stopped(proc)

    def test_own_launcher(self):
        proc = run(CONFIG["launcher"], CONFIG["flavor"], [CONFIG["app"]], self.conf)
        self.assertEqual(proc.returncode, 0, describe(proc))
        self.assertEqual(proc.stderr, "")
        self.assertIn("init: [", proc.stdout)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        CONFIG.update(json.load(f))
    if not CONFIG["other_launcher"]:
        print(f"skipped: no launcher of {FAMILY[CONFIG['other_flavor']]} installed")
        sys.exit(SKIPPED)
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
