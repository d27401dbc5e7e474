# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Names from input files on their way out: escaped for a terminal, validated for the files
other programs read (a rankfile, a machine file), plain text for matplotlib."""

import re

from .errors import ReportError

# What mpirun's rankfile and Hydra's machine file parsers take as one host name: letters,
# digits, '-', '.', '_' (RFC 1123 names, with the '_' some sites use). Anything else (a
# newline, '=', ':', a space) would change what the file means to them.
_HOST_NAME = re.compile(r"\A[A-Za-z0-9_](?:[A-Za-z0-9._-]{0,252})\Z")


# The longest a word of a message may be (bytes), as the core's messages (core/src/log.cpp):
# a path of thousands of characters is shown as its start and its end.
SHOWN_LENGTH = 200
_WORD = re.compile(r"\S{%d,}" % (SHOWN_LENGTH + 1))


def shown(word):
    """`word` cut in the middle to SHOWN_LENGTH bytes of UTF-8 when longer, as the core does:
    'start...(N bytes)...end' (where it is, and which file). Showing it again changes
    nothing; no character is cut in two."""
    data = word.encode("utf-8", "surrogateescape")
    if len(data) <= SHOWN_LENGTH:
        return word
    marker = "...(%d bytes)..." % len(data)
    head = (SHOWN_LENGTH - len(marker)) // 2
    tail = SHOWN_LENGTH - len(marker) - head
    while head > 0 and data[head] & 0xC0 == 0x80:
        head -= 1
    while tail > 0 and data[len(data) - tail] & 0xC0 == 0x80:
        tail -= 1
    return (data[:head].decode("utf-8", "surrogateescape") + marker +
            data[len(data) - tail:].decode("utf-8", "surrogateescape"))


def message(value):
    """`value` as one line of a message: printable, every over-long word shortened."""
    return _WORD.sub(lambda m: shown(m.group(0)), printable(value))


def printable(value):
    """`value` as one line a terminal shows as is: control and format characters (escape
    sequences, newlines that would forge table rows, bidi overrides) become \\xNN, \\uNNNN."""
    s = str(value)
    if s.isprintable():
        return s
    out = []
    for c in s:
        if c.isprintable():
            out.append(c)
        elif ord(c) < 0x100:
            out.append("\\x%02x" % ord(c))
        elif ord(c) < 0x10000:
            out.append("\\u%04x" % ord(c))
        else:
            out.append("\\U%08x" % ord(c))
    return "".join(out)


def is_host_name(name):
    return isinstance(name, str) and _HOST_NAME.match(name) is not None


def check_host_name(name, where, line=None,
                    problem="cannot go into a rankfile or machine file"):
    """Raises a ReportError naming `where` unless `name` is one host name to mpirun."""
    if not is_host_name(name):
        raise ReportError("host name %s %s: a host name is letters, digits, '-', '.' and "
                          "'_' (at most 253)" % (_quoted(name), problem), where, line)


def _quoted(name):
    return "'%s'" % printable(name)[:80]
