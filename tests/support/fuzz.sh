# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# Sourced by the fuzzing scripts (tests/patcher/run_fuzz.sh, tests/core/run_fuzz.sh): one way
# to build a libFuzzer target and to run it bounded.

# fuzz_build BUILD_DIR SOURCE_DIR TARGET [MORE_TARGETS...]: configures BUILD_DIR with clang and
# PNMPI_BUILD_FUZZERS=ON, builds the targets, and prints the fuzzer's path.
fuzz_build() {
  build=$1
  source=$2
  shift 2
  cmake -S "$source" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPNMPI_BUILD_FUZZERS=ON >&2
  cmake --build "$build" --target "$@" -j 2 >&2
  fuzzer=$(find "$build" -type f -name "$1" -perm -u+x | head -n 1)
  if [ -z "$fuzzer" ]; then
    echo "fuzz: $1 was not built" >&2
    return 1
  fi
  echo "$fuzzer"
}

# fuzz_run FUZZER SECONDS ARTIFACT_DIR CORPUS_DIR...: fuzzes for SECONDS; new inputs go to
# the first CORPUS_DIR, crashes to ARTIFACT_DIR. Fails on a crash, a leak or a hang.
fuzz_run() {
  fuzzer=$1
  seconds=$2
  artifacts=$3
  shift 3
  mkdir -p "$artifacts" "$1"
  "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$@"
}
