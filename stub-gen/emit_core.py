# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The core's generated half: routine ids, function types, tables and XMPI_X.

pnmpi-patch renames a module's imported PMPI_X to XMPI_X; the core defines XMPI_X here.
XMPI_X finds the layer below its caller from the caller's return address (the slow path
for calls the loader did not bind directly); XMPI_X_NewStack enters another stack.
The names table stands alone (no mpi.h, no PMPI_ symbol) so that tools without MPI, such
as pnmpi-info, can use it; pnmpi_newstack.h and pnmpi_xmpi.h declare XMPI_X_NewStack and
XMPI_X for modules (installed as <pnmpi/newstack.h> and <pnmpi/xmpi.h>, PnMPI's names).
"""

import emit_common as c


def emit_ids(api):
    n = len(api.routines)
    lines = [c.c_banner(api, "pnmpi_routine_ids.h: one id per MPI routine (C and C++)."),
             "#ifndef PNMPI_ROUTINE_IDS_H\n#define PNMPI_ROUTINE_IDS_H\n\n",
             "/* Ids are positions in name order: they change when the MPI does. */\n",
             "#define PNMPI_NUM_ROUTINES %d\n\n" % n,
             "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
             "enum pnmpi_routine_id {\n"]
    lines += ["  %s = %d,\n" % (r.id_name, r.id) for r in api.routines]
    lines += ["};\n\n",
              "/** The MPI name of every routine, indexed by enum pnmpi_routine_id. */\n",
              "extern const char *const pnmpi_routine_names[PNMPI_NUM_ROUTINES];\n\n",
              "#ifdef __cplusplus\n}\n#endif\n\n#endif /* PNMPI_ROUTINE_IDS_H */\n"]
    return "".join(lines)


def emit_types(api):
    lines = [c.c_banner(api, "pnmpi_routine_types.h: the function type of every MPI routine."),
             "#ifndef PNMPI_ROUTINE_TYPES_H\n#define PNMPI_ROUTINE_TYPES_H\n\n",
             "#include <mpi.h>\n\n",
             "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"]
    for r in api.routines:
        head = "typedef %s(*%s)(" % (c.declarator(r.return_type, ""), r.fn_type)
        lines.append(c.wrap(head, r.param_decls() or ["void"], ");") + "\n")
    lines.append("\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* PNMPI_ROUTINE_TYPES_H */\n")
    return "".join(lines)


def emit_names(api):
    lines = [c.c_banner(api, "pnmpi_routine_names.c: the MPI name of every routine id."),
             "\n#include \"pnmpi_routine_ids.h\"\n\n",
             "const char *const pnmpi_routine_names[PNMPI_NUM_ROUTINES] = {\n"]
    lines += ["  [%s] = \"%s\",\n" % (r.id_name, r.name) for r in api.routines]
    lines.append("};\n")
    return "".join(lines)


def emit_tables(api):
    lines = [c.c_banner(api, "pnmpi_tables.c: PMPI_X and MPI_X for every routine id."),
             "\n", c.DEPRECATED_PRAGMA, "\n",
             "#include <mpi.h>\n\n#include \"dispatch.h\"\n\n",
             "const pnmpi_fn_any pnmpi_pmpi_table[PNMPI_NUM_ROUTINES] = {\n"]
    lines += ["  [%s] = (pnmpi_fn_any)&%s,\n" % (r.id_name, r.pmpi_name) for r in api.routines]
    lines.append("};\n\nconst pnmpi_fn_any pnmpi_entry_table[PNMPI_NUM_ROUTINES] = {\n")
    lines += ["  [%s] = (pnmpi_fn_any)&%s,\n" % (r.id_name, r.name) for r in api.routines]
    lines.append("};\n")
    return "".join(lines)


def emit_xmpi_routine(r):
    stack, nxt = r.unused_name("stack"), r.unused_name("next")
    by_caller = [c.wrap("  pnmpi_fn_any %s = pnmpi_next_by_caller(" % nxt,
                        [r.id_name, "__builtin_return_address(0)"], ");", "  ")]
    in_stack = ["  pnmpi_fn_any %s = pnmpi_stack_head(%s, %s);" % (nxt, stack, r.id_name)]
    call = c.returning_call(r, c.cast_call(r, nxt), r.arg_names())
    return (c.function("PNMPI_EXPORT ", r, r.xmpi_name, by_caller + call)
            + "\n"
            + c.function("PNMPI_EXPORT ", r, r.xmpi_name + "_NewStack", in_stack + call,
                         extra_first="int " + stack))


def emit_xmpi(api):
    # The module headers are included so that the compiler checks every definition here
    # against the declaration modules are built with.
    lines = [c.c_banner(api, "pnmpi_xmpi.c: XMPI_X, what a patched module's PMPI_X calls reach."),
             "\n", c.DEPRECATED_PRAGMA, "\n",
             "#include <mpi.h>\n\n#include \"dispatch.h\"\n#include \"pnmpi_newstack.h\"\n",
             "#include \"pnmpi_routine_types.h\"\n#include \"pnmpi_xmpi.h\"\n"]
    for r in api.routines:
        if not r.manual:
            lines += ["\n", emit_xmpi_routine(r)]
    return "".join(lines)


MODULE_HEADER_HEAD = """\
#ifndef %(guard)s
#define %(guard)s

#include <mpi.h>
#include <pnmpi/pnmpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Deprecated routines are declared like all others; using one still warns at its call. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

"""

MODULE_HEADER_TAIL = """
#pragma GCC diagnostic pop

#ifdef __cplusplus
}
#endif

#endif /* %(guard)s */
"""


def emit_module_header(api, about, explanation, guard, name_of, extra_first):
    """A header for modules declaring one function per routine (manual ones included: the
    core defines those by hand with the same signature)."""
    lines = [c.c_banner(api, about), explanation, MODULE_HEADER_HEAD % {"guard": guard}]
    for r in api.routines:
        head = "%s(" % c.declarator(r.return_type, name_of(r))
        first = extra_first(r) if extra_first else None
        lines.append(c.wrap(head, r.param_decls(first) or ["void"], ");") + "\n")
    lines.append(MODULE_HEADER_TAIL % {"guard": guard})
    return "".join(lines)


NEWSTACK_EXPLANATION = """
/* XMPI_X_NewStack(stack, ...) calls routine X at the first layer of another stack, the one
 * a `stack NAME` line of the configuration starts (get its handle with
 * PNMPI_Service_GetStackByName), instead of the next layer of the caller's own stack. A
 * module uses it inside its MPI_X wrapper to route a call: the layers of that stack run,
 * then MPI, and the result comes back to the caller. Installed as <pnmpi/newstack.h>. */
"""

XMPI_EXPLANATION = """
/* XMPI_X is what a patched module's PMPI_X becomes: the next layer of routine X. A module
 * may also call XMPI_X by this name directly (as PnMPI modules do); it is bound to the next
 * layer the same way. Installed as <pnmpi/xmpi.h>. */
"""


def emit(api):
    return {"pnmpi_routine_ids.h": emit_ids(api),
            "pnmpi_routine_types.h": emit_types(api),
            "pnmpi_routine_names.c": emit_names(api),
            "pnmpi_tables.c": emit_tables(api),
            "pnmpi_xmpi.c": emit_xmpi(api),
            "pnmpi_newstack.h": emit_module_header(
                api, "pnmpi_newstack.h: XMPI_X_NewStack, to send a call into another stack.",
                NEWSTACK_EXPLANATION, "PNMPI_NEWSTACK_H", lambda r: r.xmpi_name + "_NewStack",
                lambda r: "PNMPI_modHandle_t " + r.unused_name("stack")),
            "pnmpi_xmpi.h": emit_module_header(
                api, "pnmpi_xmpi.h: XMPI_X, the next layer of every routine.",
                XMPI_EXPLANATION, "PNMPI_XMPI_H", lambda r: r.xmpi_name, None)}
