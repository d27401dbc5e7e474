# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The generated C compiles warning-free under both MPIs, as the build compiles it.

The build compiles the sources for the MPI it is configured with; this compiles them
for both, and checks that the passthrough module exports one MPI_ wrapper per
routine.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import support
import elfsyms

FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-fPIC", "-fvisibility=hidden",
         "-DOMPI_SKIP_MPICXX", "-DMPICH_SKIP_MPICXX"]
INCLUDES = [os.path.join(support.SOURCE_DIR, "core", "src"),
            os.path.join(support.SOURCE_DIR, "core", "include")]


class Compiling:
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def compile(self, cc, outdir, args, flags=FLAGS):
        cmd = [cc] + flags + ["-I" + d for d in INCLUDES + [outdir]] + args
        proc = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, "%s\n%s" % (" ".join(cmd), proc.stderr))


class Compile(Compiling, unittest.TestCase):
    def check(self, mpi):
        cc = support.require_mpi(self, mpi)
        outdir = support.generated(mpi)
        for name in ("pnmpi_stub.c", "pnmpi_xmpi.c", "pnmpi_tables.c"):
            with self.subTest(mpi=mpi, file=name):
                self.compile(cc, outdir, ["-c", os.path.join(outdir, name),
                                          "-o", os.path.join(self.dir.name, name + ".o")])
        passthrough = os.path.join(self.dir.name, "libpassthrough.so")
        self.compile(cc, outdir, ["-shared", os.path.join(outdir, "passthrough.c"),
                                  "-o", passthrough])
        with open(os.path.join(outdir, "mpi_api.json")) as f:
            names = {r["name"] for r in json.load(f)["routines"]}
        exported = elfsyms.exported_functions(passthrough)
        self.assertEqual({n for n in exported if n.startswith("MPI_")}, names)
        self.assertFalse([n for n in exported if n.startswith("PMPI_")])

    def check_cplusplus(self, mpi):
        """The generated headers are usable from the (C++) core."""
        cc = support.require_mpi(self, mpi)
        if not shutil.which("g++"):
            self.skipTest("g++ not installed")
        outdir = support.generated(mpi)
        compile_flags = subprocess.run(
            [cc, "--showme:compile"] if mpi == "openmpi" else [cc, "-compile_info"],
            capture_output=True, text=True, check=True).stdout.split()
        compile_flags = [f for f in compile_flags if f.startswith(("-I", "-D"))]
        source = os.path.join(self.dir.name, "use.cpp")
        with open(source, "w") as f:
            f.write('#include "pnmpi_routine_ids.h"\n#include "pnmpi_routine_types.h"\n'
                    '#include "dispatch.h"\n'
                    "static_assert(PNMPI_ID_MPI_Abort == 0, \"ids are in name order\");\n"
                    "int main() { return PNMPI_NUM_ROUTINES > 0 ? 0 : 1; }\n")
        cmd = (["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                "-DOMPI_SKIP_MPICXX", "-DMPICH_SKIP_MPICXX"] + compile_flags
               + ["-I" + d for d in INCLUDES + [outdir]] + [source])
        proc = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, "%s\n%s" % (" ".join(cmd), proc.stderr))

    def test_openmpi(self):
        self.check("openmpi")

    def test_mpich(self):
        self.check("mpich")

    def test_headers_from_cplusplus_openmpi(self):
        self.check_cplusplus("openmpi")

    def test_headers_from_cplusplus_mpich(self):
        self.check_cplusplus("mpich")


FAKE_CORE = """\
/* Just enough core to link the generated sources into a library. */
#include <mpi.h>

#include "dispatch.h"

void pnmpi_core_load(void) {}
void pnmpi_core_pending(unsigned id) { (void)id; }
void pnmpi_core_finalize(void) {}
pnmpi_fn_any pnmpi_next_by_caller(unsigned id, const void *ra) {
  (void)ra;
  return pnmpi_pmpi_table[id];
}
pnmpi_fn_any pnmpi_stack_head(int stack, unsigned id) {
  (void)stack;
  return pnmpi_pmpi_table[id];
}
PNMPI_EXPORT int MPI_Pcontrol(const int level, ...) { return PMPI_Pcontrol(level); }
PNMPI_EXPORT int XMPI_Pcontrol(const int level, ...) { return level; }
PNMPI_EXPORT int XMPI_Pcontrol_NewStack(int stack, const int level, ...) { return stack + level; }
"""


class CheckExports(Compiling, unittest.TestCase):
    """check_exports.py (the stubgen.exports test) on libraries built like libpnmpi."""

    def build(self, sources, extra=""):
        cc = support.require_mpi(self, "mpich")
        outdir = support.generated("mpich")
        core = os.path.join(self.dir.name, "fake_core.c")
        with open(core, "w") as f:
            f.write(FAKE_CORE + extra)
        lib = os.path.join(self.dir.name, "libpnmpi.so")
        self.compile(cc, outdir, ["-shared", "-o", lib, core]
                     + [os.path.join(outdir, n) for n in sources],
                     flags=[f for f in FLAGS if f != "-O2"] + ["-O0"])
        proc = subprocess.run([sys.executable, "-B", os.path.join(support.HERE,
                                                                  "check_exports.py"),
                               "--stub", lib, "--api-json", os.path.join(outdir, "mpi_api.json")],
                              capture_output=True, text=True)
        return proc.returncode, proc.stdout, proc.stderr

    def test_a_complete_library_passes(self):
        code, out, err = self.build(["pnmpi_stub.c", "pnmpi_xmpi.c", "pnmpi_tables.c"])
        self.assertEqual(code, 0, err)
        self.assertRegex(out, r"exports all \d+ routines and defines no PMPI_ symbol")

    def test_missing_and_pmpi_symbols_fail(self):
        code, _, err = self.build(["pnmpi_tables.c"],
                                  "PNMPI_EXPORT int PMPI_Comm_size(MPI_Comm c, int *s) "
                                  "{ (void)c; *s = 1; return 0; }\n")
        self.assertEqual(code, 1)
        self.assertRegex(err, r": \d+ covered routines' MPI_X not exported, e.g. MPI_Abort, ")
        self.assertIn(": 1 PMPI_ symbols defined (must come from the MPI library only), e.g. "
                      "PMPI_Comm_size\n", err)


if __name__ == "__main__":
    unittest.main()
