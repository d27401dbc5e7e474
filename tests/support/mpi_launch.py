# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Starting an MPI job from a Python test: the one place that knows the launchers' own defects.

Debian's MPICH 4.0.2 `mpiexec` (Hydra) can write to a proxy's socket after a rank that ended
quickly closed it, and die of SIGPIPE with no output at all: 14 of 150 runs of
`mpirun.mpich -np 3 /bin/false` beside `stress-ng --cpu 4` on a 2-core machine, none of 300
on a quiet one. The job's own result is then lost, whatever pnmpi did. Such a job runs once
more, said in the test's output, and the second result is the one the test checks. So does a
job in which Open MPI 4's launcher lost a rank that had finished (a "PID 0 ... exiting
improperly" report, open-mpi/ompi#7833). The C++ harness does the same
(tests/support/run_mpi.cpp).
"""

import signal
import subprocess
import sys


def hydra_died_of_sigpipe(flavor, returncode):
    """Whether an MPICH launcher ended by SIGPIPE: directly (-13) or as a shell says it (141)."""
    return flavor == "mpich" and returncode in (-signal.SIGPIPE, 128 + signal.SIGPIPE)


def open_mpi_lost_a_finished_rank(flavor, proc):
    """Whether Open MPI's launcher reported a rank it had lost track of (PID 0) as failed: its
    daemon saw the rank's output close before waitpid() told it the exit status. A rank that
    really exits early is named with its PID. Needs the launcher's stderr captured."""
    err = proc.stderr
    if isinstance(err, bytes):
        err = err.decode(errors="replace")
    return (flavor == "openmpi" and proc.returncode == 1 and isinstance(err, str)
            and " with PID 0 on\nnode " in err and "exiting improperly" in err)


def run_job(argv, flavor, **kwargs):
    """subprocess.run(argv, **kwargs) of a launcher of `flavor` ("openmpi" or "mpich")."""
    proc = subprocess.run(argv, **kwargs)
    if hydra_died_of_sigpipe(flavor, proc.returncode):
        why = ("MPICH's mpiexec (Hydra) was killed by SIGPIPE with the job's output lost "
               "(a launcher defect on a loaded machine)")
    elif open_mpi_lost_a_finished_rank(flavor, proc):
        why = "Open MPI's launcher lost a finished rank (PID 0, open-mpi/ompi#7833)"
    else:
        return proc
    print(f"mpi_launch: {why}: the job runs once more", file=sys.stderr, flush=True)
    return subprocess.run(argv, **kwargs)
