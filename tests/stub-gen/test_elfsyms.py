# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The ELF reader against `nm -D --defined-only`, and its errors on bad input."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import support
import elfsyms


def nm_exported_functions(path):
    """Defined dynamic functions per nm, without hidden versions (`foo@VER`)."""
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in ("T", "W", "i"):
            name = fields[2]
            if "@" in name and "@@" not in name:
                continue
            names.add(name.split("@@")[0])
    return names


class AgainstNm(unittest.TestCase):
    def check(self, mpi):
        support.require_mpi(self, mpi)
        if not shutil.which("nm"):
            self.skipTest("nm (binutils) not installed")
        lib = support.library(mpi)
        ours = elfsyms.exported_functions(lib)
        self.assertEqual(ours, nm_exported_functions(lib))
        self.assertIn("PMPI_Send", ours)

    def test_openmpi(self):
        self.check("openmpi")

    def test_mpich(self):
        self.check("mpich")

    def test_imports_are_not_exports(self):
        support.require_mpi(self, "openmpi")
        symbols = elfsyms.dynamic_symbols(support.library("openmpi"))
        undefined = {s["name"] for s in symbols if not s["defined"]}
        self.assertIn("malloc", undefined)
        self.assertNotIn("malloc", elfsyms.exported_functions(support.library("openmpi")))


class BadInput(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, data):
        path = os.path.join(self.dir.name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def assertElfError(self, path, message):
        with self.assertRaises(elfsyms.ElfError) as caught:
            elfsyms.exported_functions(path)
        self.assertEqual(str(caught.exception), message)

    def test_text_file(self):
        path = self.write("libmpi.so", b"/* GNU ld script */\nGROUP ( libmpi.so.40 )\n")
        self.assertElfError(path, "%s: not an ELF file (a text file: a linker script?)" % path)

    def test_binary_non_elf(self):
        path = self.write("lib.so", b"\x00\x01\x02\x03" * 16)
        self.assertElfError(path, "%s: not an ELF file" % path)

    def test_truncated(self):
        support.require_mpi(self, "mpich")
        with open(support.library("mpich"), "rb") as f:
            head = f.read(64)
        path = self.write("cut.so", head)
        with self.assertRaises(elfsyms.ElfError) as caught:
            elfsyms.exported_functions(path)
        self.assertRegex(str(caught.exception), r"^%s: truncated ELF file \(section header 0 "
                         r"at offset \d+ is past the end\)$" % path)

    def test_missing(self):
        path = os.path.join(self.dir.name, "nope.so")
        self.assertElfError(path, "%s: cannot read: No such file or directory" % path)

    def test_cli(self):
        path = self.write("x.so", b"hello\n")
        script = os.path.join(support.STUBGEN_DIR, "elfsyms.py")
        proc = subprocess.run([sys.executable, "-B", script, path], capture_output=True,
                              text=True)
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stderr, "elfsyms: %s: not an ELF file (a text file: a linker "
                         "script?)\n" % path)


if __name__ == "__main__":
    unittest.main()
