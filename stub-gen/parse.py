# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Preprocessed mpi.h -> routine declarations, and exceptions.txt -> entries.

The input is the output of `mpicc -E` on `#include <mpi.h>`: plain C plus GCC line
markers. It is tokenized, stripped of compiler decorations that do not change a
routine's type (attributes, asm labels, `extern`, `__restrict`, ...), split into
top-level declarations (function bodies skipped, struct/enum bodies kept balanced),
and every function declarator named PMPI_X is parsed into a Routine. Declarators are
parsed properly (pointers, grouping parentheses, array and function suffixes), so an
unnamed parameter gets its generated name at the right place: `int [][3]` becomes
`int arg1[][3]` and `int (*)(int)` becomes `int (*arg1)(int)`.

Locations are the ORIGINAL header file and line taken from the line markers. Anything
unexpected in a PMPI_ declaration is an error naming file, line and routine: a routine
is never skipped silently.
"""

import os
import re
from dataclasses import dataclass
from typing import Dict, List

from directives import read_blocks
from model import ExceptionEntry, Param, Routine, StubGenError

ROUTINE_RE = re.compile(r"^PMPI_\w+$")
PUBLIC_RE = re.compile(r"^MPI_\w+$")

QUALIFIERS = {"const", "volatile", "restrict", "_Atomic"}
STORAGE = {"typedef", "static", "auto", "register", "_Thread_local", "__thread"}
BASIC_TYPES = {"void", "char", "short", "int", "long", "float", "double", "signed",
               "unsigned", "_Bool", "_Complex", "__int128", "_Float16", "_Float32",
               "_Float64", "_Float128", "_Float32x", "_Float64x", "_Decimal32",
               "_Decimal64", "_Decimal128"}
TAGS = {"struct", "union", "enum"}
TYPEOF = {"typeof", "__typeof", "__typeof__"}
KEYWORDS = (QUALIFIERS | STORAGE | BASIC_TYPES | TAGS | TYPEOF |
            {"break", "case", "continue", "default", "do", "else", "for", "goto",
             "if", "return", "sizeof", "switch", "while", "_Alignof", "_Generic",
             "_Static_assert", "inline"})

# Decorations that never change a routine's type, dropped right after tokenizing.
# GNU spellings of standard keywords are mapped to the standard ones.
DROP_WORDS = {"extern", "__extension__", "__restrict", "__restrict__", "__inline",
              "__inline__", "inline", "_Noreturn", "__noreturn__"}
DROP_WITH_GROUP = {"__attribute__", "__attribute", "__asm__", "__asm", "asm",
                   "__declspec", "_Alignas", "__alignas__"}
ASM_QUALIFIERS = {"volatile", "__volatile__", "__volatile", "goto", "inline"}
SPELLINGS = {"__const": "const", "__const__": "const", "__volatile": "volatile",
             "__volatile__": "volatile", "__signed": "signed", "__signed__": "signed"}

PUNCTUATORS = sorted(
    ["...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&",
     "||", "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "<:", ":>", "<%",
     "%>"] + list("[](){}.&*+-~!/%<>^|?:;=,#"), key=len, reverse=True)
OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {")", "]", "}"}

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NUMBER = re.compile(r"\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*")
_LINE_MARKER = re.compile(
    r'#\s*(?:line\s+)?([0-9]+)(?:\s+"((?:[^"\\]|\\.)*)"((?:\s+[0-9]+)*))?\s*$')


@dataclass(frozen=True)
class Token:
    kind: str  # "id", "num", "str", "punct"
    text: str
    file: str
    line: int

    def where(self):
        return "%s:%d" % (self.file, self.line)


def _error(token, message, routine=None):
    prefix = "routine %s: " % routine if routine else ""
    return StubGenError("%s: %s%s" % (token.where(), prefix, message))


# --------------------------------------------------------------------------- tokens

def tokenize(text, source):
    """C tokens of `text`, each located by the line markers in it.

    Returns (tokens, entered): `entered` lists the files the preprocessor entered
    (line markers with flag 1), in order.
    """
    tokens = []
    entered = []
    file, line = source, 1
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            at_line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "\\" and text.startswith("\n", i + 1):
            line += 1
            i += 2
            continue
        if at_line_start and c == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            marker = _LINE_MARKER.match(text, i, end)
            if marker:
                # The marker names the line that follows it; the "\n" at `end` counts.
                line = int(marker.group(1)) - 1
                if marker.group(2) is not None:
                    file = re.sub(r"\\(.)", r"\1", marker.group(2))
                    if "1" in (marker.group(3) or "").split():
                        entered.append(file)
            # Any other directive left by -E (#pragma, #ident) declares nothing.
            i = end
            continue
        at_line_start = False
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise StubGenError("%s:%d: unterminated comment" % (file, line))
            line += text.count("\n", i, end)
            i = end + 2
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        m = _IDENT.match(text, i)
        if m:
            word = m.group(0)
            if word in ("L", "u", "U", "u8") and m.end() < n and text[m.end()] in "\"'":
                i = m.end()
                c = text[i]
            else:
                tokens.append(Token("id", SPELLINGS.get(word, word), file, line))
                i = m.end()
                continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\n":
                    break
                j += 2 if text[j] == "\\" else 1
            if j >= n or text[j] != c:
                raise StubGenError("%s:%d: unterminated %s literal" %
                                   (file, line, "string" if c == '"' else "character"))
            tokens.append(Token("str", text[i:j + 1], file, line))
            i = j + 1
            continue
        m = _NUMBER.match(text, i)
        if m:
            tokens.append(Token("num", m.group(0), file, line))
            i = m.end()
            continue
        for p in PUNCTUATORS:
            if text.startswith(p, i):
                tokens.append(Token("punct", p, file, line))
                i += len(p)
                break
        else:
            raise StubGenError("%s:%d: unexpected character %r" % (file, line, c))
    return tokens, entered


def _match(tokens, i, routine=None):
    """Index of the closer matching the opener at tokens[i]."""
    stack = [i]
    j = i + 1
    while j < len(tokens):
        t = tokens[j].text
        if tokens[j].kind == "punct":
            if t in OPENERS:
                stack.append(j)
            elif t in CLOSERS:
                opener = tokens[stack.pop()]
                if OPENERS[opener.text] != t:
                    raise _error(tokens[j], "'%s' does not match '%s' opened at line %d"
                                 % (t, opener.text, opener.line), routine)
                if not stack:
                    return j
        j += 1
    raise _error(tokens[stack[-1]], "unbalanced '%s'" % tokens[stack[-1]].text, routine)


def _is(token, text):
    return token is not None and token.kind == "punct" and token.text == text


def strip_decorations(tokens):
    """Drops attributes, asm labels, storage words and `extern "C"` braces."""
    out = []
    linkage_closers = []  # brace depths at which an extern "C" { ... } block ends
    depth = 0
    i, n = 0, len(tokens)
    while i < n:
        t = tokens[i]
        if t.kind == "id" and t.text in DROP_WITH_GROUP:
            j = i + 1
            if t.text in ("__asm__", "__asm", "asm"):
                while j < n and tokens[j].kind == "id" and tokens[j].text in ASM_QUALIFIERS:
                    j += 1
            if j < n and _is(tokens[j], "("):
                i = _match(tokens, j) + 1
            else:
                i = j
            continue
        if t.kind == "id" and t.text == "extern" and i + 1 < n and tokens[i + 1].kind == "str":
            if i + 2 < n and _is(tokens[i + 2], "{"):
                linkage_closers.append(depth)
                i += 3
            else:
                i += 2
            continue
        if t.kind == "id" and t.text in DROP_WORDS:
            i += 1
            continue
        if _is(t, "{"):
            depth += 1
        elif _is(t, "}"):
            if linkage_closers and linkage_closers[-1] == depth:
                linkage_closers.pop()
                i += 1
                continue
            depth -= 1
        out.append(t)
        i += 1
    return out


@dataclass
class Declaration:
    tokens: List[Token]
    has_body: bool


def _routine_hint(tokens):
    for k, t in enumerate(tokens):
        if t.kind == "id" and ROUTINE_RE.match(t.text) and k + 1 < len(tokens) \
                and _is(tokens[k + 1], "("):
            return t.text
    return None


def split_declarations(tokens):
    """Top-level declarations; a function definition's body is dropped."""
    decls = []
    cur = []
    top_level_assign = False
    i, n = 0, len(tokens)
    while i < n:
        t = tokens[i]
        if t.kind == "punct":
            if t.text == ";":
                if cur:
                    decls.append(Declaration(cur, False))
                cur, top_level_assign = [], False
                i += 1
                continue
            if t.text in OPENERS:
                j = _match(tokens, i, _routine_hint(cur + tokens[i:i + 2]))
                if t.text == "{" and cur and _is(cur[-1], ")") and not top_level_assign:
                    decls.append(Declaration(cur, True))
                    cur, top_level_assign = [], False
                else:
                    cur.extend(tokens[i:j + 1])
                i = j + 1
                continue
            if t.text in CLOSERS:
                raise _error(t, "unbalanced '%s'" % t.text, _routine_hint(cur))
            if t.text == "=":
                top_level_assign = True
        cur.append(t)
        i += 1
    if cur:
        raise _error(cur[0], "declaration not terminated by ';'", _routine_hint(cur))
    return decls


def _split_top_level(tokens, sep=","):
    parts, cur, depth = [], [], 0
    for t in tokens:
        if t.kind == "punct":
            if t.text in OPENERS:
                depth += 1
            elif t.text in CLOSERS:
                depth -= 1
            elif t.text == sep and depth == 0:
                parts.append(cur)
                cur = []
                continue
        cur.append(t)
    parts.append(cur)
    return parts


# ------------------------------------------------------------------- declarators

class _Declarators:
    """Specifier and declarator parsing over one flat token list.

    `typedefs` are the typedef names seen so far in the translation unit: they decide
    whether `(` starts a grouping (`int (x)`, `int (*)(int)`) or a parameter list
    (`int (MPI_Comm)`), exactly as a C compiler decides it.
    """

    def __init__(self, tokens, typedefs, routine=None):
        self.toks = tokens
        self.typedefs = typedefs
        self.routine = routine
        self.groupings = set()  # id() of the grouping '(' tokens, for render()

    def tok(self, i):
        return self.toks[i] if 0 <= i < len(self.toks) else None

    def fail(self, i, message):
        t = self.tok(i) or self.tok(len(self.toks) - 1) or self.tok(0)
        return _error(t, message, self.routine)

    def specifiers(self, i, stop=None):
        """Parses declaration specifiers from i; returns (next, specifiers, storage)."""
        spec, storage, seen_type = [], [], False
        while i < len(self.toks) and i != stop:
            t = self.toks[i]
            if t.kind != "id":
                break
            w = t.text
            if w in STORAGE:
                storage.append(w)
                i += 1
            elif w in QUALIFIERS:
                spec.append(t)
                i += 1
            elif w in BASIC_TYPES:
                spec.append(t)
                seen_type = True
                i += 1
            elif w in TAGS:
                spec.append(t)
                i += 1
                nxt = self.tok(i)
                if nxt is not None and nxt.kind == "id" and nxt.text not in KEYWORDS:
                    spec.append(nxt)
                    i += 1
                if _is(self.tok(i), "{"):
                    j = _match(self.toks, i, self.routine)
                    spec.extend(self.toks[i:j + 1])
                    i = j + 1
                seen_type = True
            elif w in TYPEOF and _is(self.tok(i + 1), "("):
                j = _match(self.toks, i + 1, self.routine)
                spec.extend(self.toks[i:j + 1])
                i = j + 1
                seen_type = True
            elif w not in KEYWORDS and not seen_type:
                spec.append(t)  # a typedef name (unknown ones are accepted: tolerant)
                seen_type = True
                i += 1
            else:
                break
        if not seen_type:
            raise self.fail(i, "no type before %s" % self._describe(i))
        return i, spec, storage

    def _describe(self, i):
        t = self.tok(i)
        return "'%s'" % t.text if t is not None else "the end of the declaration"

    def _is_grouping(self, i):
        nxt = self.tok(i + 1)
        if nxt is None:
            return False
        if nxt.kind == "punct":
            return nxt.text in ("*", "(", "[", "^")
        return nxt.kind == "id" and nxt.text not in KEYWORDS and nxt.text not in self.typedefs

    def declarator(self, i):
        """Parses a (possibly abstract) declarator from i.

        Returns (next, name_index, insert_index): exactly one of the two indices is set;
        insert_index is where the name of an abstract declarator belongs.
        """
        while _is(self.tok(i), "*") or _is(self.tok(i), "^"):
            i += 1
            while self.tok(i) is not None and self.tok(i).kind == "id" \
                    and self.tok(i).text in QUALIFIERS:
                i += 1
        name = insert = None
        t = self.tok(i)
        if t is not None and t.kind == "id" and t.text not in KEYWORDS:
            name = i
            i += 1
        elif _is(t, "(") and self._is_grouping(i):
            self.groupings.add(id(t))
            i, name, insert = self.declarator(i + 1)
            if not _is(self.tok(i), ")"):
                raise self.fail(i, "expected ')' in a declarator, found %s" % self._describe(i))
            i += 1
        else:
            insert = i
        while _is(self.tok(i), "[") or _is(self.tok(i), "("):
            i = _match(self.toks, i, self.routine) + 1
        return i, name, insert


# -------------------------------------------------------------------- rendering

def render(tokens, groupings=frozenset()):
    """Tokens as C text in the usual style: `const int *p`, `int (*f)(int)`, `a[][3]`.

    `groupings` holds the id() of grouping parentheses known from parsing; others that
    open with `*` are taken for groupings too, the rest for parameter lists."""
    out = []
    for k, t in enumerate(tokens):
        after = tokens[k + 1] if k + 1 < len(tokens) else None
        if k and _space_between(tokens[k - 1], t, after, id(t) in groupings):
            out.append(" ")
        out.append(t.text)
    return "".join(out)


def _space_between(a, b, after_b, grouping):
    if b.text in (",", ")", "]", ";", "["):
        return False
    if a.text in ("(", "["):
        return False
    if a.text == ",":
        return True
    if a.text == "*":
        return False
    if b.text == "*":
        return True
    if b.text == "(":
        # A grouping parenthesis (`int (*f)`) is spaced, a parameter list is not.
        return a.kind == "id" and (grouping or (after_b is not None
                                                and after_b.text in ("*", "^")))
    if a.text == ")" and b.kind == "id":
        return True
    return a.kind in ("id", "num", "str") and b.kind in ("id", "num", "str")


# ----------------------------------------------------------------------- header

@dataclass
class Header:
    """What a preprocessed mpi.h declares."""
    path: str  # the real mpi.h, from the line markers
    routines: Dict[str, Routine]  # PMPI name -> first declaration
    public_signatures: Dict[str, str]  # MPI_X -> signature text, for a cross-check
    notes: List[str]


def _signature(routine):
    return "%s(%s)" % (routine.return_type, ", ".join(
        p.decl if not p.name else _without_name(p) for p in routine.params)
        + (", ..." if routine.varargs else ""))


def _without_name(param):
    # Replaces the (last) occurrence of the name as a whole word.
    return re.sub(r"\b%s\b(?!.*\b%s\b)" % (param.name, param.name), "@", param.decl)


def _parse_params(p, open_index, close_index, routine):
    """Parameters between the parentheses at open_index/close_index of p.toks."""
    inner = p.toks[open_index + 1:close_index]
    if not inner:
        raise _error(p.toks[open_index], "empty parameter list '()' declares no prototype; "
                     "expected '(void)'", routine)
    parts = _split_top_level(inner)
    varargs = False
    pending = []  # (tokens, name index or None, insert index)
    groupings = set()
    for k, part in enumerate(parts):
        where = part[0] if part else p.toks[open_index]
        if not part:
            raise _error(where, "parameter %d is empty" % (k + 1), routine)
        if len(part) == 1 and _is(part[0], "..."):
            if k != len(parts) - 1:
                raise _error(where, "'...' is not the last parameter", routine)
            if k == 0:
                raise _error(where, "'...' without a named parameter before it", routine)
            varargs = True
            continue
        if len(part) == 1 and part[0].kind == "id" and part[0].text == "void":
            if len(parts) != 1:
                raise _error(where, "'void' must be the only parameter", routine)
            return [], False
        sub = _Declarators(part, p.typedefs, routine)
        i, spec, storage = sub.specifiers(0)
        if set(storage) - {"register"}:
            raise _error(where, "parameter %d has storage class '%s'"
                         % (k + 1, " ".join(storage)), routine)
        end, name, insert = sub.declarator(i)
        groupings |= sub.groupings
        if end != len(part):
            raise _error(part[end], "unexpected '%s' in parameter %d ('%s')"
                         % (part[end].text, k + 1, render(part)), routine)
        # Rebuilt from `spec` so that a `register` (kept out of `spec`) is dropped.
        decl_tokens = spec + part[i:]
        shift = len(spec) - i
        pending.append((decl_tokens, None if name is None else name + shift,
                        None if insert is None else insert + shift))
    taken = {toks[n].text for toks, n, _ in pending if n is not None}
    params = []
    for k, (toks, name, insert) in enumerate(pending):
        if name is not None:
            params.append(Param(render(toks, groupings), toks[name].text))
            continue
        generated = "arg%d" % k
        while generated in taken:
            generated += "_"
        taken.add(generated)
        anchor = toks[min(insert, len(toks) - 1)]
        toks = toks[:insert] + [Token("id", generated, anchor.file, anchor.line)] + toks[insert:]
        params.append(Param(render(toks, groupings), generated, generated_name=True))
    names = [q.name for q in params]
    for q in params:
        if names.count(q.name) > 1:
            raise _error(p.toks[open_index], "two parameters are named '%s'" % q.name, routine)
    return params, varargs


def _parse_routine(p, spec, part, name_pos, name):
    """A Routine from one function declarator `part` (tokens) of a declaration."""
    for t in part[:name_pos]:
        if not (_is(t, "*") or (t.kind == "id" and t.text in QUALIFIERS)):
            raise _error(part[name_pos], "unsupported declarator: '%s' before the name"
                         % t.text, name)
    sub = _Declarators(part, p.typedefs, name)
    close = _match(part, name_pos + 1, name)
    if close != len(part) - 1:
        raise _error(part[close + 1], "unexpected '%s' after the parameter list"
                     % part[close + 1].text, name)
    params, varargs = _parse_params(sub, name_pos + 1, close, name)
    return_type = render(spec + part[:name_pos])
    t = part[name_pos]
    return Routine(name=name[1:] if name.startswith("P") else name, return_type=return_type,
                   params=params, varargs=varargs, header=t.file, line=t.line)


def _function_names(tokens, pattern):
    """(index, depth) of identifiers matching pattern that are followed by '('."""
    found, depth = [], 0
    for k, t in enumerate(tokens):
        if t.kind == "punct":
            if t.text in OPENERS:
                depth += 1
            elif t.text in CLOSERS:
                depth -= 1
        elif t.kind == "id" and pattern.match(t.text) and k + 1 < len(tokens) \
                and _is(tokens[k + 1], "("):
            found.append((k, depth))
    return found


def _collect_typedefs(decl, typedefs):
    """Adds the names a typedef declaration declares (best effort: C headers around
    mpi.h may use constructs this parser has no need to understand)."""
    p = _Declarators(decl.tokens, typedefs)
    try:
        i, _, _ = p.specifiers(0)
        while i < len(decl.tokens):
            i, name, _ = p.declarator(i)
            if name is not None:
                typedefs.add(decl.tokens[name].text)
            if not _is(p.tok(i), ","):
                break
            i += 1
    except StubGenError:
        pass


def parse_header(text, source="<preprocessed>"):
    """Parses preprocessed mpi.h text into a Header."""
    tokens, entered = tokenize(text, source)
    header_path = next((f for f in entered if os.path.basename(f) == "mpi.h"), None)
    if header_path is None:
        header_path = next((f for f in entered if not f.startswith("<")), source)
    tokens = strip_decorations(tokens)
    typedefs = set()
    routines = {}
    public = {}
    notes = []
    for decl in split_declarations(tokens):
        toks = decl.tokens
        if any(t.kind == "id" and t.text == "typedef" for t in toks):
            _collect_typedefs(decl, typedefs)
            continue
        pmpi = _function_names(toks, ROUTINE_RE)
        for k, depth in pmpi:
            if depth > 0:
                raise _error(toks[k], "unsupported declarator (name inside parentheses)",
                             toks[k].text)
        mpi = [(k, d) for k, d in _function_names(toks, PUBLIC_RE) if d == 0]
        if not pmpi and not mpi:
            continue
        first = min(k for k, _ in pmpi + mpi)
        p = _Declarators(toks, typedefs, toks[first].text)
        i, spec, _ = p.specifiers(0, stop=first)
        offset = i
        for part in _split_top_level(toks[i:]):
            names = [(k - offset, d) for k, d in pmpi + mpi if offset <= k < offset + len(part)]
            offset += len(part) + 1
            if not names:
                continue
            pos = names[0][0]
            name = part[pos].text
            if ROUTINE_RE.match(name):
                r = _parse_routine(p, spec, part, pos, name)
                if name not in routines:
                    routines[name] = r
                elif _signature(routines[name]) != _signature(r):
                    notes.append("%s is declared twice with different text (%s:%d and %s:%d); "
                                 "the first is used" % (name, routines[name].header,
                                                        routines[name].line, r.header, r.line))
            else:
                try:
                    public.setdefault(name, _signature(_parse_routine(p, spec, part, pos, name)))
                except StubGenError as e:
                    notes.append("cross-check only: %s" % e)
    for name, r in sorted(routines.items()):
        sig = public.get(r.name)
        if sig is not None and sig != _signature(r):
            notes.append("%s and %s are declared with different text: '%s' vs '%s'"
                         % (r.name, name, sig, _signature(r)))
    return Header(header_path, routines, public, notes)


# ------------------------------------------------------------------- exceptions

_EXC_DIRECTIVES = ("before", "manual", "reason")


def parse_exceptions(text, path):
    """Parses exceptions.txt (format documented at the top of that file)."""

    def apply(entry, keyword, rest, fail):
        if keyword == "before":
            if not re.match(r"^[A-Za-z_]\w*$", rest):
                raise fail("'before' needs one C function name, found '%s'" % rest)
            entry.before.append(rest)
        elif keyword == "manual":
            if rest:
                raise fail("'manual' takes no argument, found '%s'" % rest)
            entry.manual = True

    def finish(entry, fail):
        if entry.manual and entry.before:
            raise fail("routine %s: 'before' has no effect on a 'manual' routine "
                       "(no stub is generated)" % entry.routine)

    return read_blocks(text, path, _EXC_DIRECTIVES,
                       lambda routine, line: ExceptionEntry(routine=routine, line=line),
                       apply, finish)
