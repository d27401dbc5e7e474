# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""What the benchmark scripts share: the environment and launcher of a small MPI job, running
it (any failure ends the script with the command and its output), alternated rounds, and the
median with its spread.

The scripts import it from bench/ (each puts that directory on sys.path first).
"""

import os
import statistics
import subprocess
import sys
import time


def job_env(cfg, scratch, conf_text=None, unset=(), **settings):
    """The environment of a benchmark job: this one without PNMPI_CONF (and the names in
    UNSET), HOME in SCRATCH (no stray ~/.pnmpi-conf), PNMPI_LIB_PATH from cfg["module_dirs"],
    SETTINGS, and CONF_TEXT (if any) written to SCRATCH/bench.conf as PNMPI_CONF."""
    env = dict(os.environ)
    for name in ("PNMPI_CONF",) + tuple(unset):
        env.pop(name, None)
    env["HOME"] = scratch
    if "module_dirs" in cfg:
        env["PNMPI_LIB_PATH"] = ":".join(cfg["module_dirs"])
    env.update(settings)
    if conf_text is not None:
        path = os.path.join(scratch, "bench.conf")
        with open(path, "w") as f:
            f.write(conf_text)
        env["PNMPI_CONF"] = path
    return env


def launcher(mpiexec, flavor, env):
    """The start of an mpirun command line; for Open MPI it also lets root run and
    oversubscribes without binding (the benchmarks share 2 cores)."""
    argv = [mpiexec]
    if flavor == "openmpi":
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        argv += ["--oversubscribe", "--bind-to", "none"]
    return argv


def run(who, argv, env, cwd=None, timeout=600, pattern=None):
    """Runs ARGV; exits with WHO's message, the command and its output when it fails or, with
    PATTERN, when its standard output does not match. Returns (process, match)."""
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)
    m = pattern.search(proc.stdout) if pattern is not None else None
    if proc.returncode != 0 or (pattern is not None and not m):
        sys.exit("%s: %s failed (exit %d)\n%s\n%s"
                 % (who, " ".join(argv), proc.returncode, proc.stdout, proc.stderr))
    return proc, m


def alternated(repeats, cases, once):
    """{case: [once(case) of each round]}: REPEATS rounds, each running every case in turn, so
    that the drifts of a shared machine hit all cases alike."""
    results = {case: [] for case in cases}
    for _ in range(repeats):
        for case in cases:
            results[case].append(once(case))
    return results


def spread(values, fmt="%.3f"):
    """'median [min, max]' of VALUES, each number in FMT."""
    return ("%s [%s, %s]" % (fmt, fmt, fmt)) % (statistics.median(values), min(values),
                                                 max(values))


def timed(fn, repeats):
    """(median, min, max) of the wall seconds of REPEATS calls of FN."""
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), min(ts), max(ts)
