#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# usage: run_fuzz.sh BUILD_DIR SECONDS
#
# Configures BUILD_DIR with clang and PNMPI_BUILD_FUZZERS=ON, builds fuzz_elf_image and the
# modules delay, monitor and passthrough, and fuzzes the core's ELF reader (read_elf_image) for
# SECONDS. The seeds are those modules, stripped (the reader ignores what strip removes), made
# here at run time into BUILD_DIR/fuzz-core-seeds, and the patcher's small ELF files in
# tests/patcher/corpus (read only). New inputs go to BUILD_DIR/fuzz-core-corpus, crashes to
# BUILD_DIR/fuzz-core-artifacts. Exits non-zero if the fuzzer finds a crash, a leak or a
# hang. PNMPI_SOURCE_DIR overrides the source tree.
set -eu
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
build=$1
seconds=$2
here=$(cd "$(dirname "$0")" && pwd)
source_dir=${PNMPI_SOURCE_DIR:-$(cd "$here/../.." && pwd)}

. "$source_dir/tests/support/fuzz.sh"
fuzzer=$(fuzz_build "$build" "$source_dir" fuzz_elf_image delay monitor passthrough)
seeds=$build/fuzz-core-seeds
mkdir -p "$seeds"
for module in delay monitor passthrough; do
  file=$(find "$build" -type f -name "$module.so" -not -path '*/fuzz-*' | head -n 1)
  if [ -z "$file" ]; then
    echo "$0: $module.so was not built" >&2
    exit 1
  fi
  strip --strip-all -o "$seeds/$module.so" "$file"
done
fuzz_run "$fuzzer" "$seconds" "$build/fuzz-core-artifacts" "$build/fuzz-core-corpus" "$seeds" \
  "$source_dir/tests/patcher/corpus"
