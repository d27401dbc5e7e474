/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the pnmpi authors
 *
 * The shape of every routine in libpnmpi's pnmpi_stub.c: the whole per-call fast path of
 * pnmpi, before any module. stub-gen/emit_stub.py fills it in once per MPI routine.
 *
 * How to read it: each `@@ NAME` line starts a section; the text up to the next one is
 * emitted per routine with these filled in:
 *   {{id}}                   the routine's id, PNMPI_ID_MPI_Send (pnmpi_routine_ids.h)
 *   {{define PREFIX NAME}}   the definition's first line(s): PREFIX, the return type, NAME
 *                            and the routine's parameters ({{name}} in NAME is MPI_Send)
 *   {{return head}}          `return` the first layer's wrapper called with the arguments:
 *                            ((pnmpi_fn_MPI_Send)pnmpi_head[PNMPI_ID_MPI_Send])(buf, ...)
 *   {{return pmpi}}          `return PMPI_Send(buf, ...)`, MPI's own
 *   {{before}}               the routine's `before` calls (stub-gen/exceptions.txt: the
 *                            core's load at MPI_Init, ...); nothing for most routines
 * Lines before the first section (this comment) and lines that start with // are not
 * emitted.
 *
 * The dispatch state (dispatch.h): pnmpi_mask has one bit per routine, set when some layer
 * wraps it; pnmpi_head holds the first layer's wrapper. A call costs one bit test and a tail
 * call: with the bit clear it goes straight to MPI, and no frame of the stub stays on the
 * stack either way, so tools' call-site attribution is unchanged.
 */

@@ pending
// Until the core is loaded every bit is set and every head is this: it asks the core whether
// MPI was started behind pnmpi's back (a direct PMPI_Init), which would mean a silent run
// without the configured modules, before passing the call to MPI.
{{define static pnmpi_pending_{{name}}}}
{
  pnmpi_core_pending({{id}});
  {{return pmpi}}
}

@@ nested
// A module that calls a routine by its public name (MPI_Wtime inside its MPI_Send wrapper)
// is bound here: the chain from the top, without noting the entry, so that call origin
// (pnmpi_entry_origin) stays what the application entered.
{{define static pnmpi_nested_{{name}}}}
{
  {{before}}
  if (pnmpi_routine_wrapped({{id}})) {
    {{return head}}
  }
  {{return pmpi}}
}

@@ entry
// The application's entry point. On the wrapped path it first notes the routine as the one
// the application entered through: one store to initial-exec TLS.
{{define PNMPI_EXPORT {{name}}}}
{
  if (pnmpi_routine_wrapped({{id}})) {
    pnmpi_note_entry({{id}});
    {{return head}}
  }
  {{return pmpi}}
}

@@ entry_before
// The entry point of a routine with `before` work (loading at MPI_Init, finalizing): the
// entry is noted first, on both paths, so that the modules' hooks run under it.
{{define PNMPI_EXPORT {{name}}}}
{
  pnmpi_note_entry({{id}});
  {{before}}
  if (pnmpi_routine_wrapped({{id}})) {
    {{return head}}
  }
  {{return pmpi}}
}
