# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The functions a shared library exports, read from its ELF dynamic symbol table.

Standard library only (no `nm`): the generator must run wherever CMake runs Python.
A function counts as exported when its .dynsym entry is defined (section index not
SHN_UNDEF), of type FUNC or GNU_IFUNC, bound GLOBAL or WEAK, with default or protected
visibility, and not a hidden (non-default) symbol version such as `foo@OLD`: an
unversioned reference, which is what code compiled against mpi.h makes, cannot bind
to that.
"""

import struct
import sys

from model import StubGenError

SHT_DYNSYM = 11
SHT_GNU_VERSYM = 0x6FFFFFFF
SHN_UNDEF = 0
STT_FUNC = 2
STT_GNU_IFUNC = 10
STB_GLOBAL = 1
STB_WEAK = 2
STV_DEFAULT = 0
STV_PROTECTED = 3
VERSYM_HIDDEN = 0x8000


class ElfError(StubGenError):
    pass


class _Reader:
    def __init__(self, path, data):
        self.path = path
        self.data = data
        if len(data) < 16 or data[:4] != b"\x7fELF":
            text = all(32 <= b < 127 or b in b"\t\n\r" for b in data[:256])
            hint = " (a text file: a linker script?)" if data and text else ""
            raise ElfError("%s: not an ELF file%s" % (path, hint))
        ei_class, ei_data = data[4], data[5]
        if ei_class not in (1, 2) or ei_data not in (1, 2):
            raise ElfError("%s: unsupported ELF class %d / data encoding %d"
                           % (path, ei_class, ei_data))
        self.is64 = ei_class == 2
        self.end = "<" if ei_data == 1 else ">"

    def unpack(self, fmt, offset, what):
        fmt = self.end + fmt
        size = struct.calcsize(fmt)
        if offset < 0 or offset + size > len(self.data):
            raise ElfError("%s: truncated ELF file (%s at offset %d is past the end)"
                           % (self.path, what, offset))
        return struct.unpack_from(fmt, self.data, offset)

    def sections(self):
        if self.is64:
            shoff, = self.unpack("Q", 0x28, "e_shoff")
            shentsize, shnum = self.unpack("HH", 0x3A, "e_shentsize")
            fmt = "IIQQQQIIQQ"
        else:
            shoff, = self.unpack("I", 0x20, "e_shoff")
            shentsize, shnum = self.unpack("HH", 0x2E, "e_shentsize")
            fmt = "IIIIIIIIII"
        if shoff == 0 or shnum == 0:
            raise ElfError("%s: no section headers" % self.path)
        out = []
        for k in range(shnum):
            (name, stype, flags, addr, offset, size, link, info, align,
             entsize) = self.unpack(fmt, shoff + k * shentsize, "section header %d" % k)
            out.append({"type": stype, "offset": offset, "size": size, "link": link,
                        "entsize": entsize})
        return out

    def string(self, table, index):
        start = table["offset"] + index
        if index >= table["size"] or start >= len(self.data):
            raise ElfError("%s: symbol name offset %d outside the string table"
                           % (self.path, index))
        end = self.data.find(b"\0", start, table["offset"] + table["size"])
        if end < 0:
            raise ElfError("%s: unterminated symbol name" % self.path)
        return self.data[start:end].decode("utf-8", "replace")


def dynamic_symbols(path):
    """Every .dynsym entry as a dict: name, type, bind, visibility, defined, hidden_version."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ElfError("%s: cannot read: %s" % (path, e.strerror))
    r = _Reader(path, data)
    sections = r.sections()
    dynsym = next((s for s in sections if s["type"] == SHT_DYNSYM), None)
    if dynsym is None:
        raise ElfError("%s: no dynamic symbol table (.dynsym): not a shared library?" % path)
    if dynsym["link"] >= len(sections):
        raise ElfError("%s: .dynsym links to a missing string table" % path)
    strtab = sections[dynsym["link"]]
    versym = next((s for s in sections if s["type"] == SHT_GNU_VERSYM), None)
    entsize = dynsym["entsize"] or (24 if r.is64 else 16)
    count = dynsym["size"] // entsize
    symbols = []
    for k in range(count):
        at = dynsym["offset"] + k * entsize
        if r.is64:
            name, info, other, shndx, _, _ = r.unpack("IBBHQQ", at, "symbol %d" % k)
        else:
            name, _, _, info, other, shndx = r.unpack("IIIBBH", at, "symbol %d" % k)
        hidden = False
        if versym is not None:
            ver, = r.unpack("H", versym["offset"] + 2 * k, "version of symbol %d" % k)
            hidden = bool(ver & VERSYM_HIDDEN)
        symbols.append({"name": r.string(strtab, name), "type": info & 0xF, "bind": info >> 4,
                        "visibility": other & 3, "defined": shndx != SHN_UNDEF,
                        "hidden_version": hidden})
    return symbols


def exported_functions(path):
    """Names of the functions `path` exports to code linked against it."""
    return {s["name"] for s in dynamic_symbols(path)
            if s["defined"] and s["name"] and not s["hidden_version"]
            and s["type"] in (STT_FUNC, STT_GNU_IFUNC)
            and s["bind"] in (STB_GLOBAL, STB_WEAK)
            and s["visibility"] in (STV_DEFAULT, STV_PROTECTED)}


def main(argv):
    """`python3 elfsyms.py LIB`: prints the exported functions, one per line."""
    if len(argv) != 2:
        print("usage: elfsyms.py LIBRARY", file=sys.stderr)
        return 2
    try:
        for name in sorted(exported_functions(argv[1])):
            print(name)
    except StubGenError as e:
        print("elfsyms: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
