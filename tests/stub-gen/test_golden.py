# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Golden output: what the generator emits for a handful of hard routines per MPI.

Each golden file holds, for one routine, its function type and its blocks in
pnmpi_stub.c, pnmpi_xmpi.c and passthrough.c, cut from a real generator run. After an
intended change (or an MPI upgrade), refresh them and review the diff:

    PNMPI_UPDATE_GOLDEN=1 python3 -m unittest discover -s tests/stub-gen
"""

import os
import re
import unittest

import support

HARD = {
    # routine: why it is hard
    "MPI_Init": "a 'before' call (exceptions.txt)",
    "MPI_Pcontrol": "varargs, 'manual': no stub, no XMPI",
    "MPI_Wtime": "a void parameter list and a double return",
    "MPI_Keyval_create": "function-pointer typedef parameters, deprecated",
    "MPI_Group_range_incl": "int ranges[][3]",
    "MPI_Register_datarep": "unnamed parameters in MPICH's mpio.h",
}
PER_MPI = {
    "openmpi": ["MPI_Attr_get",  # __deprecated__ attribute after the parameter list
                "MPI_Comm_f2c"],  # returns MPI_Comm
    "mpich": ["MPI_Aint_add",  # returns MPI_Aint
              "MPI_Type_create_hindexed_block_c"],  # long names: line wrapping
}
FILES = ["pnmpi_routine_types.h", "pnmpi_stub.c", "pnmpi_xmpi.c", "passthrough.c"]


def cut(path, name):
    """The text `path` generates for routine `name`, or "(none)"."""
    with open(path) as f:
        text = f.read()
    if path.endswith(".h"):
        m = re.search(r"^typedef [^;]*\(\*pnmpi_fn_%s\)\([^;]*;$" % name, text, re.M)
        return m.group(0) if m else "(none)"
    names = (name, "X" + name, "X%s_NewStack" % name, "pnmpi_pending_" + name,
             "pnmpi_nested_" + name)
    pattern = re.compile(r"^(PNMPI_EXPORT|static) .*[ *](%s)\(" % "|".join(names),
                         re.M)
    chunks = [c for c in text.split("\n\n") if pattern.search(c)]
    return "\n\n".join(chunks) if chunks else "(none)"


def render(mpi, name):
    outdir = support.generated(mpi)
    parts = ["# %s as generated for %s (refresh: PNMPI_UPDATE_GOLDEN=1)" % (name, mpi)]
    for f in FILES:
        parts.append("// ---- %s\n%s" % (f, cut(os.path.join(outdir, f), name)))
    return "\n".join(parts) + "\n"


class Golden(unittest.TestCase):
    def check(self, mpi):
        support.require_mpi(self, mpi)
        update = os.environ.get("PNMPI_UPDATE_GOLDEN") == "1"
        for name in list(HARD) + PER_MPI[mpi]:
            with self.subTest(mpi=mpi, routine=name):
                path = os.path.join(support.GOLDEN_DIR, mpi, name + ".txt")
                actual = render(mpi, name)
                if update:
                    with open(path, "w") as f:
                        f.write(actual)
                    continue
                self.assertTrue(os.path.exists(path), "%s missing: run with "
                                "PNMPI_UPDATE_GOLDEN=1 to create it" % path)
                with open(path) as f:
                    self.assertEqual(actual, f.read(), "%s differs (PNMPI_UPDATE_GOLDEN=1 "
                                     "refreshes it)" % path)

    def test_openmpi(self):
        self.check("openmpi")

    def test_mpich(self):
        self.check("mpich")


if __name__ == "__main__":
    unittest.main()
