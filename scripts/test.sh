#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# Builds pnmpi for Open MPI and for MPICH and runs every test: formatting, the unit and
# MPI tests of both builds, the unit tests again under AddressSanitizer and UBSan, and
# bounded fuzzing runs of the patcher's and the core's ELF readers. Installs missing Debian
# packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh

jobs=$(nproc)
passed=0
failed=0
skipped=0
status=0

# Runs ctest with the given arguments and adds its counts to the totals.
run_ctest() {
  local log
  log=$(mktemp)
  if ctest --output-on-failure "$@" 2>&1 | tee "$log"; then :; fi
  local line
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1 || true)
  if [ -z "$line" ]; then
    echo "test.sh: ctest $* printed no summary" >&2
    status=1
  else
    local f t s
    f=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
    t=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")
    # ctest counts a skipped test (GTEST_SKIP) among the passed and lists it as "(Skipped)".
    s=$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Skipped\)$' "$log" || true)
    passed=$((passed + t - f - s))
    failed=$((failed + f))
    skipped=$((skipped + s))
    [ "$f" -eq 0 ] || status=1
  fi
  rm -f "$log"
}

echo "== clang-format"
if ! bash scripts/check-format.sh; then
  status=1
  failed=$((failed + 1))
else
  passed=$((passed + 1))
fi

for mpi in openmpi mpich; do
  echo "== build and test with ${mpi}"
  cmake -S . -B "build-${mpi}" -DMPI_C_COMPILER="mpicc.${mpi}" -DMPI_Fortran_COMPILER="mpif90.${mpi}" \
    -DPNMPI_REQUIRE_FORTRAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPNMPI_BUILD_FUZZERS=OFF >/dev/null
  cmake --build "build-${mpi}" -j"${jobs}"
  run_ctest --test-dir "build-${mpi}" -L unit -j"${jobs}"
  # MPI jobs run one at a time: MPICH busy-polls, and two jobs would share two cores.
  run_ctest --test-dir "build-${mpi}" -L mpi
  # Across hosts: jobs on a cluster of network namespaces the test makes (root only).
  run_ctest --test-dir "build-${mpi}" -L cluster
  # Site records under a real Slurm it starts (root only; skipped, saying why, otherwise).
  run_ctest --test-dir "build-${mpi}" -L slurm
done

echo "== unit tests and MPI jobs under AddressSanitizer and UBSan"
# verify_asan_link_order=0: pnmpi-run's tests preload the instrumented libpnmpi into plain
# programs, which ASan would otherwise refuse before main.
cmake -S . -B build-asan -DMPI_C_COMPILER=mpicc.openmpi -DMPI_Fortran_COMPILER=mpif90.openmpi \
  -DPNMPI_REQUIRE_FORTRAN=ON -DCMAKE_BUILD_TYPE=Debug -DPNMPI_SANITIZE=address,undefined \
  -DPNMPI_BUILD_BENCH=OFF >/dev/null
# Only the tests' targets are built here, so the tests that install the whole tree (package.*)
# run in the two release builds above, not here.
cmake --build build-asan -j"${jobs}" --target test_core test_patcher test_tools test_monitor_unit \
  test_mpit_unit test_integration test_delay test_fortran test_mapping_unit pnmpi_mapping pnmpi-map \
  test_support_lib
ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  run_ctest --test-dir build-asan -L unit -E '^(stubgen|package)' -j"${jobs}"
# Dispatch, loading, copies, hooks, the Fortran bindings' redirection and the start-up checks
# in real mpirun jobs. Leaks are not checked there: the MPI libraries keep memory until exit.
ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  run_ctest --test-dir build-asan -L mpi -R '^(Chaining|Delay|Config|Order|Threads|Errors|Interfaces|Fortran|StartedBehindPnmpi)[./]'


# Bounded fuzzing of both ELF readers: the patcher's (60 s) and the core's (30 s).
for fuzz in "patcher 60" "core 30"; do
  set -- $fuzz
  echo "== bounded fuzzing of the $1's ELF reader"
  if bash "tests/$1/run_fuzz.sh" build-fuzz "$2"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    status=1
  fi
done

echo
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
exit "${status}"
