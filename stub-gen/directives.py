# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The reader of stub-gen's directive files (exceptions.txt, place_exceptions.txt,
profile.txt): blocks that each start with `routine MPI_Name` in the first column, followed by
indented `DIRECTIVE [TEXT]` lines. Blank lines and lines starting with `#` are skipped.

Every file's errors read `FILE:LINE: message`, with the same messages for the common faults:
a first-column line that is not `routine MPI_Name`, a routine listed twice, a directive
outside a block or unknown to the file, a `reason` missing, empty or given twice. What each
directive means is the caller's: `apply` stores it, `finish` checks a block once read.
"""

import re

from model import StubGenError

ROUTINE_RE = re.compile(r"^MPI_\w+$")


def read_blocks(text, path, directives, new_entry, apply, finish=None):
    """Reads TEXT (from PATH, for the messages) into a list of entries in file order.

    directives: the directive names the file allows ("reason" is handled here: it stores
    the text in entry.reason). new_entry(routine, line) makes an entry, which must have the
    attributes routine, line and reason. apply(entry, directive, text, fail) stores any other
    directive; fail(message) makes the StubGenError for its line. finish(entry, fail) checks
    a complete block; fail(message) there names the block's `routine` line.
    """
    entries = []
    seen = set()
    cur = None

    def error(line, message):
        return StubGenError("%s:%d: %s" % (path, line, message))

    def close(entry):
        if entry is None:
            return
        if not entry.reason:
            raise error(entry.line, "routine %s: missing 'reason'" % entry.routine)
        if finish is not None:
            finish(entry, lambda message: error(entry.line, message))

    for lineno, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        words = stripped.split(None, 1)
        keyword, rest = words[0], (words[1].strip() if len(words) > 1 else "")
        if not raw[0].isspace():
            if keyword != "routine":
                raise error(lineno, "expected 'routine MPI_Name', found '%s'" % keyword)
            if not ROUTINE_RE.match(rest):
                raise error(lineno, "'routine' needs one MPI_ routine name, found '%s'" % rest)
            close(cur)
            if rest in seen:
                raise error(lineno, "routine %s is listed twice" % rest)
            seen.add(rest)
            cur = new_entry(rest, lineno)
            entries.append(cur)
            continue
        if cur is None:
            raise error(lineno, "directive '%s' outside a 'routine' block" % keyword)
        if keyword not in directives:
            raise error(lineno, "unknown directive '%s' (expected one of: %s)"
                        % (keyword, ", ".join(directives)))
        if keyword == "reason":
            if not rest:
                raise error(lineno, "'reason' needs a text")
            if cur.reason:
                raise error(lineno, "routine %s has two 'reason' lines" % cur.routine)
            cur.reason = rest
        else:
            apply(cur, keyword, rest, lambda message, line=lineno: error(line, message))
    close(cur)
    return entries
