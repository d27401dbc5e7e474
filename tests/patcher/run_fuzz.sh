#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# usage: run_fuzz.sh BUILD_DIR SECONDS
#
# Configures BUILD_DIR with clang and PNMPI_BUILD_FUZZERS=ON, builds only fuzz_elf_rename and
# fuzzes the ELF reader for SECONDS, starting from the seeds in tests/patcher/corpus (read
# only; new inputs go to BUILD_DIR/fuzz-corpus, crashes to BUILD_DIR/fuzz-artifacts).
# Exits non-zero if the fuzzer finds a crash. PNMPI_SOURCE_DIR overrides the source tree.
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
fuzzer=$(fuzz_build "$build" "$source_dir" fuzz_elf_rename)
fuzz_run "$fuzzer" "$seconds" "$build/fuzz-artifacts" "$build/fuzz-corpus" "$here/corpus"
