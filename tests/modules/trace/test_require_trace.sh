#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
# Configuring without OTF2: a visible CMake warning (not a STATUS line), and with
# -DPNMPI_REQUIRE_TRACE=ON an error. Usage: test_require_trace.sh SOURCE SCRATCH MPICC
set -u
src=$1 scratch=$2 mpicc=$3
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
configure() {
  cmake -S "$src" -B "$scratch/build-$1" -DMPI_C_COMPILER="$mpicc" -DPNMPI_BUILD_FUZZERS=OFF \
    -DPNMPI_OTF2_LIBRARY=PNMPI_OTF2_LIBRARY-NOTFOUND -DPNMPI_REQUIRE_TRACE="$1" \
    > "$scratch/$1.log" 2>&1
}
if configure ON; then
  echo "FAIL: PNMPI_REQUIRE_TRACE=ON configured without OTF2"; exit 1
fi
grep -q "pnmpi: PNMPI_REQUIRE_TRACE: module 'trace' cannot be built: OTF2 not" "$scratch/ON.log" ||
  { echo "FAIL: no error message"; cat "$scratch/ON.log"; exit 1; }
configure OFF || { echo "FAIL: configuring without OTF2 failed"; cat "$scratch/OFF.log"; exit 1; }
grep -q "^CMake Warning" "$scratch/OFF.log" &&
  grep -q "pnmpi: module 'trace' is not built: OTF2 not found" "$scratch/OFF.log" ||
  { echo "FAIL: no warning"; cat "$scratch/OFF.log"; exit 1; }
rm -rf "$scratch"
echo ok
