# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The parser and the coverage rule on the real mpi.h and library of both MPIs."""

import json
import os
import re
import unittest

import support
import parse


class RealHeaders:
    """Mixed into one TestCase per MPI (MPI names the MPI)."""
    MPI = None

    @classmethod
    def setUpClass(cls):
        cls.header = None

    def setUp(self):
        support.require_mpi(self, self.MPI)
        if type(self).header is None:
            with open(support.preprocessed(self.MPI)) as f:
                type(self).header = parse.parse_header(f.read(), "mpi.i")

    def r(self, name):
        self.assertTrue(name in self.header.routines, "%s not declared" % name)
        return self.header.routines[name]

    def test_header_is_the_real_mpi_h(self):
        self.assertEqual(os.path.basename(self.header.path), "mpi.h")
        self.assertTrue(os.path.isfile(self.header.path))

    def test_every_parameter_is_named_once(self):
        for name, r in self.header.routines.items():
            names = [p.name for p in r.params]
            self.assertEqual(len(names), len(set(names)), name)
            for p in r.params:
                self.assertRegex(p.name, r"^[A-Za-z_]\w*$", name)
                self.assertRegex(p.decl, r"\b%s\b" % re.escape(p.name), name)

    def test_locations_are_original_lines(self):
        for name in ("PMPI_Send", "PMPI_Wtime", "PMPI_Group_range_incl"):
            r = self.r(name)
            with open(r.header) as f:
                line = f.read().split("\n")[r.line - 1]
            self.assertIn(name, line)

    def test_void_parameter_lists_and_non_int_returns(self):
        for name in ("PMPI_Wtime", "PMPI_Wtick"):
            self.assertEqual((self.r(name).return_type, self.r(name).params), ("double", []))
        for name, return_type in self.NON_INT_RETURNS.items():
            self.assertEqual(self.r(name).return_type, return_type, name)

    def test_varargs(self):
        r = self.r("PMPI_Pcontrol")
        self.assertTrue(r.varargs)
        self.assertEqual([p.decl for p in r.params], ["const int level"])

    def test_arrays_and_function_pointers(self):
        self.assertEqual(self.r("PMPI_Group_range_incl").params[2].decl, "int ranges[][3]")
        self.assertEqual([p.decl for p in self.r("PMPI_Keyval_create").params],
                         ["MPI_Copy_function *copy_fn", "MPI_Delete_function *delete_fn",
                          "int *keyval", "void *extra_state"])
        self.assertRegex(self.r("PMPI_Comm_create_errhandler").params[0].decl,
                         r"^MPI_Comm_errhandler_function \*\w+$")

    def test_coverage_against_the_library(self):
        outdir = support.generated(self.MPI)
        with open(os.path.join(outdir, "mpi_api.json")) as f:
            api = json.load(f)
        lo, hi = self.COVERED
        self.assertTrue(lo <= len(api["routines"]) <= hi, len(api["routines"]))
        self.assertEqual([r["id"] for r in api["routines"]], list(range(len(api["routines"]))))
        self.assertEqual([r["name"] for r in api["routines"]],
                         sorted(r["name"] for r in api["routines"]))
        skipped = {s["name"]: s["reason"] for s in api["skipped"]}
        for name, reason in self.SKIPPED.items():
            self.assertIn(reason, skipped.get(name, "(not skipped)"))
        self.assertFalse(any(r["name"].startswith("MPIX_") for r in api["routines"]))


class OpenMPI(RealHeaders, unittest.TestCase):
    MPI = "openmpi"
    COVERED = (400, 440)
    NON_INT_RETURNS = {"PMPI_Comm_f2c": "MPI_Comm", "PMPI_Type_f2c": "MPI_Datatype"}
    # Removed MPI-1 routines: still in libmpi, omitted from 4.1's mpi.h.
    SKIPPED = {"PMPI_Address": "not declared", "PMPI_Type_struct": "not declared"}

    def test_deprecated_routines_with_attributes(self):
        # Declared with __attribute__((__deprecated__("..."))) after the parameter list.
        self.assertEqual([p.decl for p in self.r("PMPI_Attr_get").params],
                         ["MPI_Comm comm", "int keyval", "void *attribute_val", "int *flag"])

    def test_aint_add_is_a_macro(self):
        # A quirk of Open MPI 4.1: MPI_Aint_add/diff are macros, nothing to intercept.
        self.assertNotIn("PMPI_Aint_add", self.header.routines)

    def test_waitall_quirk_is_noted(self):
        self.assertTrue(any(n.startswith("MPI_Waitall and PMPI_Waitall")
                            for n in self.header.notes))


class MPICH(RealHeaders, unittest.TestCase):
    MPI = "mpich"
    COVERED = (560, 640)
    # MPICH makes MPI_Comm_f2c & co. macros; mpio.h's MPI_File_f2c is a function.
    NON_INT_RETURNS = {"PMPI_Aint_add": "MPI_Aint", "PMPI_File_f2c": "MPI_File"}
    # Declared in mpi_proto.h but not in libmpich.so 4.0.2.
    SKIPPED = {"PMPI_Status_f082c": "not exported", "PMPI_Status_f2f08": "not exported",
               "PMPI_Status_f082f": "not exported"}

    def test_unnamed_parameters(self):
        # mpio.h declares PMPI_Register_datarep without parameter names.
        r = self.r("PMPI_Register_datarep")
        self.assertEqual([p.decl for p in r.params],
                         ["const char *arg0", "MPI_Datarep_conversion_function *arg1",
                          "MPI_Datarep_conversion_function *arg2",
                          "MPI_Datarep_extent_function *arg3", "void *arg4"])
        self.assertEqual(os.path.basename(r.header), "mpio.h")

    def test_large_count_routines(self):
        self.assertEqual(self.r("PMPI_Send_c").params[1].decl, "MPI_Count count")


if __name__ == "__main__":
    unittest.main()
