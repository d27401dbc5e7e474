# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Shared by the stub-gen tests: both installed MPIs, preprocessed and generated once.

Both MPIs are required: a missing one fails with a message saying what to install,
unless PNMPI_TEST_ALLOW_MISSING_MPI=1, which turns that into a skip.
"""

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.dirname(os.path.dirname(HERE))
STUBGEN_DIR = os.path.join(SOURCE_DIR, "stub-gen")
EXCEPTIONS = os.path.join(STUBGEN_DIR, "exceptions.txt")
GOLDEN_DIR = os.path.join(HERE, "golden")

if STUBGEN_DIR not in sys.path:
    sys.path.insert(0, STUBGEN_DIR)

import elfsyms  # noqa: E402

# name -> (compiler wrapper, its option printing the link line, Debian packages)
MPIS = {
    "openmpi": ("mpicc.openmpi", ["--showme:link"], "libopenmpi-dev openmpi-bin"),
    "mpich": ("mpicc.mpich", ["-link_info"], "libmpich-dev mpich"),
}
SYSTEM_LIB_DIRS = ["/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64",
                   "/usr/lib", "/lib"]


def require_mpi(testcase, mpi):
    """The wrapper compiler of `mpi`, or a failure (a skip if missing MPIs are allowed)."""
    cc, _, packages = MPIS[mpi]
    if shutil.which(cc):
        return cc
    message = ("%s not found: the stub-gen tests need both MPIs (Debian: apt-get install %s); "
               "set PNMPI_TEST_ALLOW_MISSING_MPI=1 to skip instead" % (cc, packages))
    if os.environ.get("PNMPI_TEST_ALLOW_MISSING_MPI") == "1":
        raise unittest.SkipTest(message)
    testcase.fail(message)


@functools.lru_cache(maxsize=None)
def preprocessed(mpi):
    """Path of `#include <mpi.h>` preprocessed by the MPI's wrapper (once per process)."""
    cc = MPIS[mpi][0]
    path = os.path.join(_tmpdir(), "%s.i" % mpi)
    with open(path, "w") as out:
        subprocess.run([cc, "-E", "-x", "c", "-"], input="#include <mpi.h>\n", text=True,
                       stdout=out, check=True)
    return path


@functools.lru_cache(maxsize=None)
def library(mpi):
    """The MPI library file the wrapper links: the -l entry that exports PMPI_Init."""
    cc, link_option, _ = MPIS[mpi]
    words = subprocess.run([cc] + link_option, capture_output=True, text=True,
                           check=True).stdout.split()
    dirs = [w[2:] for w in words if w.startswith("-L")] + SYSTEM_LIB_DIRS
    for name in (w[2:] for w in words if w.startswith("-l")):
        for d in dirs:
            candidate = os.path.join(d, "lib%s.so" % name)
            if os.path.exists(candidate) and \
                    "PMPI_Init" in elfsyms.exported_functions(candidate):
                return candidate
    raise AssertionError("no library exporting PMPI_Init in the link line of %s: %s"
                         % (cc, " ".join(words)))


def run_generator(args):
    """Runs the CLI as a process: (exit code, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-B", os.path.join(STUBGEN_DIR, "pnmpi_stubgen.py")]
                          + args, capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


@functools.lru_cache(maxsize=None)
def generated(mpi):
    """Output directory of one generator run on `mpi` (once per process)."""
    outdir = os.path.join(_tmpdir(), "out-%s" % mpi)
    code, out, err = run_generator(["--preprocessed", preprocessed(mpi), "--library",
                                    library(mpi), "--exceptions", EXCEPTIONS,
                                    "--outdir", outdir])
    if code != 0:
        raise AssertionError("generator failed on %s: %s%s" % (mpi, out, err))
    return outdir


@functools.lru_cache(maxsize=None)
def _tmpdir():
    d = tempfile.TemporaryDirectory(prefix="pnmpi-stubgen-test-")
    _keep.append(d)  # removed when the interpreter exits
    return d.name


_keep = []
