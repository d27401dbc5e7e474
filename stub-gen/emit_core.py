# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The core's generated half: routine ids, function types, tables and XMPI_X.

pnmpi-patch renames a module's imported PMPI_X to XMPI_X; the core defines XMPI_X here.
XMPI_X finds the layer below its caller from the caller's return address (the slow path
for calls the loader did not bind directly); XMPI_X_NewStack enters another stack.
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


def emit_tables(api):
    lines = [c.c_banner(api, "pnmpi_tables.c: routine names and the MPI library's PMPI_X."),
             "\n", c.DEPRECATED_PRAGMA, "\n",
             "#include <mpi.h>\n\n#include \"dispatch.h\"\n\n",
             "const char *const pnmpi_routine_names[PNMPI_NUM_ROUTINES] = {\n"]
    lines += ["  [%s] = \"%s\",\n" % (r.id_name, r.name) for r in api.routines]
    lines += ["};\n\n", "const pnmpi_fn_any pnmpi_pmpi_table[PNMPI_NUM_ROUTINES] = {\n"]
    lines += ["  [%s] = (pnmpi_fn_any)&%s,\n" % (r.id_name, r.pmpi_name) for r in api.routines]
    lines.append("};\n")
    return "".join(lines)


def emit_xmpi_routine(r):
    stack, nxt = r.unused_name("stack"), r.unused_name("next")
    by_caller = [c.wrap("  pnmpi_fn_any %s = pnmpi_next_by_caller(" % nxt,
                        [r.id_name, "__builtin_return_address(0)"], ");", "  ")]
    in_stack = ["  pnmpi_fn_any %s = pnmpi_stack_head(%s, %s);" % (nxt, stack, r.id_name)]
    call = c.returning_call(r, c.cast_call(r, nxt), r.arg_names())
    return (c.function("PNMPI_API ", r, r.xmpi_name, by_caller + call)
            + "\n"
            + c.function("PNMPI_API ", r, r.xmpi_name + "_NewStack", in_stack + call,
                         extra_first="int " + stack))


def emit_xmpi(api):
    lines = [c.c_banner(api, "pnmpi_xmpi.c: XMPI_X, what a patched module's PMPI_X calls reach."),
             "\n", c.DEPRECATED_PRAGMA, "\n",
             "#include <mpi.h>\n\n#include \"dispatch.h\"\n#include \"pnmpi_routine_types.h\"\n"]
    for r in api.routines:
        if not r.manual:
            lines += ["\n", emit_xmpi_routine(r)]
    return "".join(lines)


def emit(api):
    return {"pnmpi_routine_ids.h": emit_ids(api),
            "pnmpi_routine_types.h": emit_types(api),
            "pnmpi_tables.c": emit_tables(api),
            "pnmpi_xmpi.c": emit_xmpi(api)}
