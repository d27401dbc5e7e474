# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The MPI API as the emitters see it: routines, parameters, exceptions, skips.

Everything the emitters print is derived from these objects; they never look at
routine names to decide what to do: per-routine behaviour comes from exceptions.txt,
as an ExceptionEntry attached to the Routine.
"""

from dataclasses import dataclass, field
from typing import List, Optional


class StubGenError(Exception):
    """An error the CLI prints as `pnmpi-stubgen: <message>` and exits on."""


@dataclass
class Param:
    """One parameter: `decl` is the full declaration including `name`."""
    decl: str
    name: str
    generated_name: bool = False


@dataclass
class ExceptionEntry:
    """One block of exceptions.txt (see the comment at the top of that file)."""
    routine: str
    line: int
    before: List[str] = field(default_factory=list)
    manual: bool = False
    reason: str = ""


@dataclass
class Routine:
    """An MPI routine that mpi.h declares as PMPI_X and the library exports.

    `name` is the public name (MPI_Send); the declaration parsed is PMPI_Send's.
    """
    name: str
    return_type: str
    params: List[Param]
    varargs: bool
    header: str
    line: int
    id: int = -1
    exception: Optional[ExceptionEntry] = None

    @property
    def pmpi_name(self):
        return "P" + self.name

    @property
    def xmpi_name(self):
        return "X" + self.name

    @property
    def id_name(self):
        return "PNMPI_ID_" + self.name

    @property
    def fn_type(self):
        return "pnmpi_fn_" + self.name

    @property
    def manual(self):
        return self.exception is not None and self.exception.manual

    @property
    def before(self):
        return self.exception.before if self.exception is not None else []

    @property
    def returns_void(self):
        return self.return_type == "void"

    def param_decls(self, extra_first=None):
        """The parameter declarations as a list, `...` last for varargs."""
        decls = [extra_first] if extra_first else []
        decls += [p.decl for p in self.params]
        if self.varargs:
            decls.append("...")
        return decls

    def arg_names(self):
        """The names to forward: every named parameter (never the `...`)."""
        return [p.name for p in self.params]

    def unused_name(self, wanted):
        """`wanted`, or a variant of it that no parameter of this routine uses."""
        names = set(self.arg_names())
        while wanted in names:
            wanted = "pnmpi_" + wanted
        return wanted


@dataclass
class Skipped:
    """A PMPI_ name seen on one side only. kind: "not-exported" (declared by mpi.h, not
    exported by the library) or "not-declared" (exported, not declared)."""
    name: str
    kind: str
    reason: str


@dataclass
class Api:
    """The whole model of one MPI: what mpi_api.json holds."""
    header: str
    libraries: List[str]
    routines: List[Routine]
    skipped: List[Skipped]
    exceptions: List[ExceptionEntry]
    exceptions_file: str
    notes: List[str] = field(default_factory=list)

    def routine(self, name):
        for r in self.routines:
            if r.name == name:
                return r
        return None

    def to_json_dict(self, banner):
        def exc(e):
            if e is None:
                return None
            return {"before": e.before, "manual": e.manual, "reason": e.reason}

        return {
            "_banner": banner,
            "header": self.header,
            "libraries": self.libraries,
            "exceptions_file": self.exceptions_file,
            "routines": [{
                "name": r.name,
                "id": r.id,
                "return_type": r.return_type,
                "params": [{"decl": p.decl, "name": p.name} for p in r.params],
                "varargs": r.varargs,
                "declared_at": "%s:%d" % (r.header, r.line),
                "exception": exc(r.exception),
            } for r in self.routines],
            "skipped": [{"name": s.name, "kind": s.kind, "reason": s.reason}
                        for s in self.skipped],
            "notes": self.notes,
        }
