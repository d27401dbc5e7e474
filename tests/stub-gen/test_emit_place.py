# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The place module's generated wrappers (emit_place.py): which routines, what they pass on,
the exceptions file's errors, and the output for both installed MPIs, compiled with the
module's hand-written half and linked into one module."""

import json
import os
import subprocess
import tempfile
import unittest

import support
import elfsyms
import emit_place
from model import Api, Param, Routine, StubGenError
from test_compile import FLAGS, INCLUDES

PLACE_EXCEPTIONS = os.path.join(support.STUBGEN_DIR, "place_exceptions.txt")
PLACE_DIR = os.path.join(support.SOURCE_DIR, "modules", "place")


def routine(name, *decls_and_names):
    params = [Param(d, n) for d, n in decls_and_names]
    return Routine(name=name, return_type="int", params=params, varargs=False, header="mpi.h",
                   line=3, id=1)


def api(*routines):
    return Api(header="mpi.h", libraries=["libmpi.so"], routines=list(routines), skipped=[],
               exceptions=[], exceptions_file="exceptions.txt")


class Emit(unittest.TestCase):
    def test_each_communicator_by_value_is_replaced(self):
        r = routine("MPI_Intercomm_create", ("MPI_Comm local_comm", "local_comm"),
                    ("int local_leader", "local_leader"), ("MPI_Comm peer_comm", "peer_comm"),
                    ("int remote_leader", "remote_leader"), ("int tag", "tag"),
                    ("MPI_Comm *newintercomm", "newintercomm"))
        self.assertEqual(emit_place.emit_routine(r), """\
PNMPI_EXPORT int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                      int remote_leader, int tag, MPI_Comm *newintercomm)
{
  return PMPI_Intercomm_create(place_app_comm(local_comm), local_leader, place_app_comm(peer_comm),
                               remote_leader, tag, newintercomm);
}
""")

    def test_routines_without_a_communicator_are_not_wrapped(self):
        out = emit_place.emit(api(routine("MPI_Type_size", ("MPI_Datatype t", "t"),
                                          ("int *size", "size")),
                                  routine("MPI_Comm_free", ("MPI_Comm *comm", "comm")),
                                  routine("MPI_Barrier", ("MPI_Comm comm", "comm"))),
                              [], "place.txt")[emit_place.OUTPUT]
        self.assertIn("int MPI_Barrier(MPI_Comm comm)", out)
        self.assertNotIn("MPI_Type_size", out)
        self.assertNotIn("MPI_Comm_free", out)
        self.assertIn("(1 routines with a communicator parameter; 0 more", out)

    def test_listed_routines_are_not_generated(self):
        entries = emit_place.parse_place_exceptions(
            "routine MPI_Barrier\n  hand\n  reason written by hand\n", "place.txt")
        out = emit_place.emit(api(routine("MPI_Barrier", ("MPI_Comm comm", "comm"))), entries,
                              "place.txt")[emit_place.OUTPUT]
        self.assertNotIn("PNMPI_EXPORT int MPI_Barrier", out)
        self.assertIn(" *   MPI_Barrier: hand\n", out)

    def test_a_listed_routine_without_a_communicator_is_an_error(self):
        entries = emit_place.parse_place_exceptions(
            "routine MPI_Type_size\n  physical\n  reason none\n", "place.txt")
        with self.assertRaisesRegex(StubGenError, r"^place.txt:1: routine MPI_Type_size takes "
                                    r"no communicator by value: remove it$"):
            emit_place.emit(api(routine("MPI_Type_size", ("MPI_Datatype t", "t"))), entries,
                            "place.txt")

    def test_exceptions_file_errors(self):
        for text, message in (
                ("routine MPI_X\n  reason r\n", "place.txt:1: routine MPI_X: needs 'hand' or "
                 "'physical'"),
                ("routine MPI_X\n  hand\n", "place.txt:1: routine MPI_X: missing 'reason'"),
                ("routine MPI_X\n  hand\n  physical\n", "place.txt:3: routine MPI_X is already "
                 "'hand'"),
                ("routine MPI_X\n  manual\n", "place.txt:2: unknown directive 'manual' "
                 "(expected one of: hand, physical, reason)"),
                ("  hand\n", "place.txt:1: directive 'hand' outside a 'routine' block"),
                ("routine X\n", "place.txt:1: 'routine' needs one MPI_ routine name, found "
                 "'X'"),
                ("routine MPI_X\n  hand\n  reason a\nroutine MPI_X\n",
                 "place.txt:4: routine MPI_X is listed twice")):
            with self.subTest(text=text):
                with self.assertRaises(StubGenError) as e:
                    emit_place.parse_place_exceptions(text, "place.txt")
                self.assertEqual(str(e.exception), message)


class RealMpis(unittest.TestCase):
    """For both MPIs: every routine with a communicator by value is wrapped or listed, and
    the generated file compiles with place.c into a module exporting exactly those."""

    def check(self, mpi, wrapped):
        cc = support.require_mpi(self, mpi)
        with tempfile.TemporaryDirectory() as outdir:
            code, out, err = support.run_generator(
                ["--preprocessed", support.preprocessed(mpi), "--library", support.library(mpi),
                 "--exceptions", support.EXCEPTIONS, "--place-exceptions", PLACE_EXCEPTIONS,
                 "--outdir", outdir])
            self.assertEqual(code, 0, out + err)
            with open(os.path.join(outdir, "mpi_api.json")) as f:
                routines = json.load(f)["routines"]
            with_comm = {r["name"] for r in routines
                         if any(p["decl"].replace(p["name"], "").strip() == "MPI_Comm"
                                for p in r["params"])}
            module = os.path.join(outdir, "place.so")
            cmd = [cc] + FLAGS + ["-I" + d for d in INCLUDES + [PLACE_DIR, outdir]] + [
                "-shared", os.path.join(outdir, "place_wrappers.c"),
                os.path.join(PLACE_DIR, "place.c"), os.path.join(PLACE_DIR, "order_file.c"),
                "-I" + os.path.join(support.SOURCE_DIR, "mapping", "include"), "-o", module,
                "-Wl,--unresolved-symbols=ignore-all"]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, " ".join(cmd) + "\n" + proc.stderr)
            exported = {n for n in elfsyms.exported_functions(module) if n.startswith("MPI_")}
        hand = {"MPI_Comm_get_attr", "MPI_Attr_get", "MPI_Comm_set_errhandler"}
        physical = {"MPI_Comm_c2f", "MPI_Abort"} & with_comm
        by_hand = {"MPI_Init", "MPI_Init_thread", "MPI_Comm_create_errhandler"}
        self.assertEqual(exported, (with_comm - physical) | by_hand)
        self.assertEqual(len(with_comm - hand - physical), wrapped)

    def test_openmpi(self):
        self.check("openmpi", 122)

    def test_mpich(self):
        self.check("mpich", 239)


if __name__ == "__main__":
    unittest.main()
