# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Emitter branches the real MPIs do not exercise: void and pointer returns, parameter
names that collide with the generated code's own names, line wrapping."""

import unittest

import support  # noqa: F401  (puts stub-gen on sys.path)
import emit_common
import emit_core
import emit_stub
from model import ExceptionEntry, Param, Routine


def routine(return_type, name, *decls_and_names):
    params = [Param(d, n) for d, n in decls_and_names]
    return Routine(name=name, return_type=return_type, params=params, varargs=False,
                   header="mpi.h", line=1, id=7)


class Emitters(unittest.TestCase):
    def test_entry_is_noted_before_the_before_calls(self):
        # The modules' hooks that `before` work runs (finalize hooks, say) must run under
        # the routine the application entered through, on both paths.
        r = routine("int", "MPI_Fake")
        r.exception = ExceptionEntry(routine="MPI_Fake", line=1, before=["first", "second"])
        self.assertEqual(emit_stub.emit_routine(r), """\
PNMPI_EXPORT int MPI_Fake(void)
{
  pnmpi_note_entry(PNMPI_ID_MPI_Fake);
  first();
  second();
  if (pnmpi_routine_wrapped(PNMPI_ID_MPI_Fake)) {
    return ((pnmpi_fn_MPI_Fake)pnmpi_head[PNMPI_ID_MPI_Fake])();
  }
  return PMPI_Fake();
}
""")

    def test_the_template_has_every_section_and_no_documentation_in_them(self):
        sections = emit_stub.read_template()
        self.assertEqual(sorted(sections), ["entry", "entry_before", "nested", "pending"])
        for name, lines in sections.items():
            self.assertTrue(lines and lines[0].startswith("{{define "), name)
            self.assertFalse([l for l in lines if l.startswith("//")], name)

    def test_an_unknown_call_in_the_template_is_an_error(self):
        with self.assertRaisesRegex(ValueError, r"unknown call \{\{return elsewhere\}\}"):
            emit_stub.render(["  {{return elsewhere}}"], routine("int", "MPI_Fake"))

    def test_void_return_still_tail_calls(self):
        r = routine("void", "MPI_Fake", ("int stack", "stack"), ("int next", "next"))
        self.assertEqual(emit_stub.emit_routine(r), """\
PNMPI_EXPORT void MPI_Fake(int stack, int next)
{
  if (pnmpi_routine_wrapped(PNMPI_ID_MPI_Fake)) {
    pnmpi_note_entry(PNMPI_ID_MPI_Fake);
    ((pnmpi_fn_MPI_Fake)pnmpi_head[PNMPI_ID_MPI_Fake])(stack, next);
    return;
  }
  PMPI_Fake(stack, next);
  return;
}
""")
        self.assertEqual(emit_core.emit_xmpi_routine(r), """\
PNMPI_EXPORT void XMPI_Fake(int stack, int next)
{
  pnmpi_fn_any pnmpi_next = pnmpi_next_by_caller(PNMPI_ID_MPI_Fake, __builtin_return_address(0));
  ((pnmpi_fn_MPI_Fake)pnmpi_next)(stack, next);
  return;
}

PNMPI_EXPORT void XMPI_Fake_NewStack(int pnmpi_stack, int stack, int next)
{
  pnmpi_fn_any pnmpi_next = pnmpi_stack_head(pnmpi_stack, PNMPI_ID_MPI_Fake);
  ((pnmpi_fn_MPI_Fake)pnmpi_next)(stack, next);
  return;
}
""")

    def test_pointer_return(self):
        r = routine("char *", "MPI_Name")
        self.assertEqual(emit_common.definition("PNMPI_EXPORT ", r, r.name),
                         "PNMPI_EXPORT char *MPI_Name(void)")

    def test_wrap(self):
        items = ["argument_%d" % k for k in range(12)]
        self.assertEqual(emit_common.wrap("  return f(", items, ");", "  "), """\
  return f(argument_0, argument_1, argument_2, argument_3, argument_4, argument_5, argument_6,
           argument_7, argument_8, argument_9, argument_10, argument_11);""")
        head = "  return " + "x" * 60 + "("
        self.assertEqual(emit_common.wrap(head, items[:2], ");", "  "),
                         head + "argument_0, argument_1);")
        self.assertEqual(emit_common.wrap(head, items, ");", "  "), head + """
      argument_0, argument_1, argument_2, argument_3, argument_4, argument_5, argument_6,
      argument_7, argument_8, argument_9, argument_10, argument_11);""")


if __name__ == "__main__":
    unittest.main()
