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

cmake -S "$source_dir" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPNMPI_BUILD_FUZZERS=ON
cmake --build "$build" --target fuzz_elf_rename -j 2

fuzzer=$(find "$build" -type f -name fuzz_elf_rename -perm -u+x | head -n 1)
if [ -z "$fuzzer" ]; then
  echo "$0: fuzz_elf_rename was not built" >&2
  exit 1
fi
mkdir -p "$build/fuzz-corpus" "$build/fuzz-artifacts"
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$build/fuzz-artifacts/" "$build/fuzz-corpus" "$here/corpus"
