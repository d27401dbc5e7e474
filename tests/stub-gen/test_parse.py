# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The declaration parser on inline snippets: the hard cases and the exact errors."""

import unittest

import support  # noqa: F401  (puts stub-gen on sys.path)
import parse
from model import StubGenError

PRELUDE = """\
typedef struct ompi_communicator_t *MPI_Comm;
typedef struct ompi_group_t *MPI_Group;
typedef long MPI_Aint;
typedef int MPI_Fint;
typedef int (MPI_Copy_function)(MPI_Comm, int, void *, void *, void *, int *);
typedef int MPI_Delete_function(MPI_Comm, int, void *, void *);
"""


def parse_snippet(text):
    return parse.parse_header(PRELUDE + text, "mpi.h")


def routine(text, name):
    return parse_snippet(text).routines[name]


def decls(r):
    return [p.decl for p in r.params]


class Declarations(unittest.TestCase):
    def test_attributes_and_deprecation_after_the_parameter_list(self):
        r = routine('__attribute__((visibility("default"))) int PMPI_Attr_get(MPI_Comm comm, '
                    'int keyval, void *attribute_val, int *flag)\n'
                    '  __attribute__((__deprecated__("PMPI_Attr_get was deprecated (in MPI-2.0); '
                    'use PMPI_Comm_get_attr"))) ;', "PMPI_Attr_get")
        self.assertEqual(r.name, "MPI_Attr_get")
        self.assertEqual(r.return_type, "int")
        self.assertEqual(decls(r), ["MPI_Comm comm", "int keyval", "void *attribute_val",
                                    "int *flag"])
        self.assertEqual([p.name for p in r.params], ["comm", "keyval", "attribute_val", "flag"])

    def test_void_parameter_list(self):
        r = routine("double PMPI_Wtime(void);", "PMPI_Wtime")
        self.assertEqual((r.return_type, r.params, r.varargs), ("double", [], False))

    def test_non_int_returns(self):
        h = parse_snippet("MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);\n"
                          "MPI_Comm PMPI_Comm_f2c(MPI_Fint comm);\n"
                          "double PMPI_Wtick(void);\n"
                          "const char *PMPI_Name(int **const *p);\n")
        self.assertEqual(h.routines["PMPI_Aint_add"].return_type, "MPI_Aint")
        self.assertEqual(h.routines["PMPI_Comm_f2c"].return_type, "MPI_Comm")
        self.assertEqual(h.routines["PMPI_Wtick"].return_type, "double")
        self.assertEqual(h.routines["PMPI_Name"].return_type, "const char *")
        self.assertEqual(decls(h.routines["PMPI_Name"]), ["int **const *p"])

    def test_function_pointer_parameters(self):
        r = routine("int PMPI_Keyval_create(MPI_Copy_function *copy_fn, "
                    "MPI_Delete_function *delete_fn, int *keyval, void *extra_state);",
                    "PMPI_Keyval_create")
        self.assertEqual(decls(r)[:2], ["MPI_Copy_function *copy_fn",
                                        "MPI_Delete_function *delete_fn"])
        r = routine("int PMPI_Fp(int (*fn)(int, double), void (*)(void));", "PMPI_Fp")
        self.assertEqual(decls(r), ["int (*fn)(int, double)", "void (*arg1)(void)"])
        self.assertEqual([p.name for p in r.params], ["fn", "arg1"])

    def test_arrays(self):
        r = routine("int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3],"
                    " MPI_Group *newgroup);", "PMPI_Group_range_incl")
        self.assertEqual(decls(r), ["MPI_Group group", "int n", "int ranges[][3]",
                                    "MPI_Group *newgroup"])
        r = routine("int PMPI_Waitall(int count, const int index[], MPI_Comm comms[4]);",
                    "PMPI_Waitall")
        self.assertEqual(decls(r)[1:], ["const int index[]", "MPI_Comm comms[4]"])

    def test_varargs(self):
        r = routine("int PMPI_Pcontrol(const int level, ...);", "PMPI_Pcontrol")
        self.assertTrue(r.varargs)
        self.assertEqual(decls(r), ["const int level"])
        self.assertEqual(r.param_decls(), ["const int level", "..."])
        self.assertEqual(r.arg_names(), ["level"])

    def test_unnamed_parameters_get_names_in_the_right_place(self):
        r = routine("int PMPI_Register_datarep(const char *, int [][3], int (*)(int), MPI_Comm,"
                    " int *const, unsigned long, MPI_Copy_function *, int arg7);",
                    "PMPI_Register_datarep")
        self.assertEqual(decls(r), ["const char *arg0", "int arg1[][3]", "int (*arg2)(int)",
                                    "MPI_Comm arg3", "int *const arg4", "unsigned long arg5",
                                    "MPI_Copy_function *arg6", "int arg7"])
        self.assertTrue(r.params[0].generated_name)
        self.assertFalse(r.params[7].generated_name)

    def test_generated_names_avoid_declared_ones(self):
        r = routine("int PMPI_Clash(int, int arg0);", "PMPI_Clash")
        self.assertEqual([p.name for p in r.params], ["arg0_", "arg0"])

    def test_typedef_name_in_parentheses_is_a_parameter_list(self):
        # As a C compiler reads it: `int (MPI_Fint)` is an unnamed function parameter, while
        # `int (x)` is a parameter named x.
        r = routine("int PMPI_Paren(int (MPI_Fint), int (x));", "PMPI_Paren")
        self.assertEqual(decls(r), ["int arg0(MPI_Fint)", "int (x)"])

    def test_decorations_are_dropped(self):
        r = routine('extern "C" {\n__extension__ extern int PMPI_Send(const void *__restrict buf,'
                    ' int count) __asm__("PMPI_Send_v2") __attribute__((nonnull(1)));\n}',
                    "PMPI_Send")
        self.assertEqual(decls(r), ["const void *buf", "int count"])

    def test_bodies_and_other_declarations_are_skipped(self):
        h = parse_snippet(
            "static __inline int helper(int x) { if (x) { return PMPI_Hidden(1); } ; return 0; }\n"
            "struct s { int a; int (*f)(int); };\n"
            "enum e { A = 1, B = (2 + 3) };\n"
            "typedef struct { int x; } T;\n"
            "static const int table[] = { 1, 2 };\n"
            "int PMPIX_Extension(int a);\n"
            "int MPI_After(T t);\n"
            "int PMPI_After(T t);\n")
        self.assertEqual(list(h.routines), ["PMPI_After"])
        self.assertEqual(decls(h.routines["PMPI_After"]), ["T t"])

    def test_several_declarators_in_one_declaration(self):
        h = parse_snippet("int PMPI_A(int a), *PMPI_B(void), x;")
        self.assertEqual(h.routines["PMPI_A"].return_type, "int")
        self.assertEqual(h.routines["PMPI_B"].return_type, "int *")

    def test_locations_come_from_line_markers(self):
        h = parse.parse_header(
            '# 1 "<stdin>"\n# 1 "/opt/mpi/include/mpi.h" 1\nint a;\n'
            '# 40 "/opt/mpi/include/mpi_proto.h" 1\n\n'
            "int PMPI_Send(const void *buf,\n  int count);\n", "x.i")
        self.assertEqual(h.path, "/opt/mpi/include/mpi.h")
        r = h.routines["PMPI_Send"]
        self.assertEqual((r.header, r.line), ("/opt/mpi/include/mpi_proto.h", 41))

    def test_public_declarations_are_cross_checked(self):
        h = parse_snippet("int MPI_Waitall(int n, MPI_Comm *c);\n"
                          "int PMPI_Waitall(int n, MPI_Comm c[]);\n")
        self.assertEqual(h.notes, ["MPI_Waitall and PMPI_Waitall are declared with different "
                                   "text: 'int(int @, MPI_Comm *@)' vs 'int(int @, MPI_Comm @[])'"])


class Errors(unittest.TestCase):
    """Every error names file, line and routine; nothing is skipped silently."""

    def assertError(self, text, message):
        with self.assertRaises(StubGenError) as caught:
            parse.parse_header(text, "mpi.h")
        self.assertEqual(str(caught.exception), message)

    def test_unexpected_token(self):
        self.assertError("int a;\nint PMPI_Bad(int a b);",
                         "mpi.h:2: routine PMPI_Bad: unexpected 'b' in parameter 1 ('int a b')")

    def test_no_prototype(self):
        self.assertError("int PMPI_Old();", "mpi.h:1: routine PMPI_Old: empty parameter list '()'"
                         " declares no prototype; expected '(void)'")

    def test_varargs_placement(self):
        self.assertError("int PMPI_V(int a, ..., int b);",
                         "mpi.h:1: routine PMPI_V: '...' is not the last parameter")
        self.assertError("int PMPI_V(...);",
                         "mpi.h:1: routine PMPI_V: '...' without a named parameter before it")

    def test_void_with_others(self):
        self.assertError("int PMPI_Vd(void, int);",
                         "mpi.h:1: routine PMPI_Vd: 'void' must be the only parameter")

    def test_implicit_int(self):
        self.assertError("PMPI_Implicit(int a);",
                         "mpi.h:1: routine PMPI_Implicit: no type before 'PMPI_Implicit'")

    def test_unbalanced(self):
        self.assertError("int PMPI_U(int a;\n", "mpi.h:1: routine PMPI_U: unbalanced '('")

    def test_unsupported_declarator(self):
        self.assertError("int (*PMPI_Fp(int a))(int);", "mpi.h:1: routine PMPI_Fp: unsupported "
                         "declarator (name inside parentheses)")

    def test_duplicate_parameter_names(self):
        self.assertError("int PMPI_Twice(int a,\n int a);",
                         "mpi.h:1: routine PMPI_Twice: two parameters are named 'a'")

    def test_trailing_tokens(self):
        self.assertError("int PMPI_T(int a) [3];",
                         "mpi.h:1: routine PMPI_T: unexpected '[' after the parameter list")

    def test_unterminated(self):
        self.assertError("int PMPI_Open(int a)", "mpi.h:1: routine PMPI_Open: declaration not "
                         "terminated by ';'")


class Exceptions(unittest.TestCase):
    def parse(self, text):
        return parse.parse_exceptions(text, "exceptions.txt")

    def assertError(self, text, message):
        with self.assertRaises(StubGenError) as caught:
            self.parse(text)
        self.assertEqual(str(caught.exception), message)

    def test_the_real_file(self):
        with open(support.EXCEPTIONS) as f:
            entries = self.parse(f.read())
        by_name = {e.routine: e for e in entries}
        self.assertEqual(by_name["MPI_Init"].before, ["pnmpi_core_load"])
        self.assertEqual(by_name["MPI_Finalize"].before, ["pnmpi_core_finalize"])
        self.assertTrue(by_name["MPI_Pcontrol"].manual)
        self.assertTrue(all(e.reason for e in entries))

    def test_blocks(self):
        entries = self.parse("# c\nroutine MPI_A\n  before f\n  before g\n  reason r s\n\n"
                             "routine MPI_B\n\tmanual\n\treason t\n")
        self.assertEqual([(e.routine, e.line, e.before, e.manual, e.reason) for e in entries],
                         [("MPI_A", 2, ["f", "g"], False, "r s"), ("MPI_B", 7, [], True, "t")])

    def test_malformed(self):
        cases = [
            ("  manual\n", "exceptions.txt:1: directive 'manual' outside a 'routine' block"),
            ("routine MPI_A\n  reason r\n  befor f\n", "exceptions.txt:3: unknown directive "
             "'befor' (expected one of: before, manual, reason)"),
            ("routine MPI_A\n  manual\n\nroutine MPI_B\n  reason r\n",
             "exceptions.txt:1: routine MPI_A: missing 'reason'"),
            ("routine MPI_A\n  reason r\nroutine MPI_A\n  reason r\n",
             "exceptions.txt:3: routine MPI_A is listed twice"),
            ("routine PMPI_A\n", "exceptions.txt:1: 'routine' needs one MPI_ routine name, "
             "found 'PMPI_A'"),
            ("rutine MPI_A\n", "exceptions.txt:1: expected 'routine MPI_Name', found 'rutine'"),
            ("routine MPI_A\n  manual yes\n", "exceptions.txt:2: 'manual' takes no argument, "
             "found 'yes'"),
            ("routine MPI_A\n  before f()\n", "exceptions.txt:2: 'before' needs one C function "
             "name, found 'f()'"),
            ("routine MPI_A\n  reason\n", "exceptions.txt:2: 'reason' needs a text"),
            ("routine MPI_A\n  reason a\n  reason b\n", "exceptions.txt:3: routine MPI_A has two "
             "'reason' lines"),
            ("routine MPI_A\n  manual\n  before f\n  reason r\n", "exceptions.txt:1: routine "
             "MPI_A: 'before' has no effect on a 'manual' routine (no stub is generated)"),
        ]
        for text, message in cases:
            with self.subTest(text=text):
                self.assertError(text, message)


if __name__ == "__main__":
    unittest.main()
