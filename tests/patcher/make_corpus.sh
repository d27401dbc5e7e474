#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# Regenerates the small ELF files in corpus/: seeds for the fuzzer and the test fixtures for
# the classes and byte orders the host cannot build (ELF32 LE, ELF32 BE, ELF64 BE with 8-byte
# .hash entries). Needs clang, and binutils-powerpc-linux-gnu and binutils-s390x-linux-gnu.
# The files are committed; CI does not run this.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/fixtures
out=$here/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Stripped, no RELRO, no unwind tables, no page padding: about 2 KiB each.
cflags="-fPIC -O2 -fno-asynchronous-unwind-tables -fno-unwind-tables"
ldflags="-shared --hash-style=both -z max-page-size=4096 -z noseparate-code -z norelro
  -z noexecstack --no-warn-rwx-segments -s"

for arch in i386 ppc s390x; do
  case $arch in
  i386) target=i386-linux-gnu ld="ld -m elf_i386" ;;
  ppc) target=powerpc-linux-gnu ld=powerpc-linux-gnu-ld ;;
  s390x) target=s390x-linux-gnu ld=s390x-linux-gnu-ld ;;
  esac
  for variant in tool overlap; do
    define=""
    [ "$variant" = overlap ] && define=-DOVERLAP
    # shellcheck disable=SC2086
    clang --target=$target $cflags $define -c "$src/corpus_tool.c" -o "$tmp/$arch-$variant.o"
    # shellcheck disable=SC2086
    $ld $ldflags -soname "${arch}_$variant.so" -o "$out/${arch}_$variant.so" \
      "$tmp/$arch-$variant.o"
  done
done

# x86-64 with symbol versions: an "MPI library" that defines PMPI_Send@@VER_1 (verdef), and
# a tool whose import is PMPI_Send@VER_1 (verneed).
# shellcheck disable=SC2086
clang $cflags -c "$src/fake_mpi.c" -o "$tmp/mpi.o"
# shellcheck disable=SC2086
ld $ldflags -soname x86_64_mpi.so --version-script "$src/fake_mpi.map" \
  -o "$out/x86_64_mpi.so" "$tmp/mpi.o"
# shellcheck disable=SC2086
clang $cflags -c "$src/corpus_tool.c" -o "$tmp/tool.o"
# shellcheck disable=SC2086
ld $ldflags -soname x86_64_versioned.so -o "$out/x86_64_versioned.so" "$tmp/tool.o" \
  "$out/x86_64_mpi.so"
ls -l "$out"
