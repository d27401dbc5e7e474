#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# The demo: builds pnmpi against Open MPI, then runs one unchanged MPI program (examples/ring)
# twice: alone, and under a stack of tools chosen in a config file. One of those tools is
# Open MPI's own tracing library, a binary PMPI tool, converted into a module with
# pnmpi-patch: no source, no recompile.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh

build=build-demo
echo "== building pnmpi (Open MPI) in ${build}/"
cmake -S . -B "${build}" -DMPI_C_COMPILER=mpicc.openmpi -DPNMPI_BUILD_TESTS=OFF \
  -DPNMPI_BUILD_BENCH=OFF >/dev/null
cmake --build "${build}" -j"$(nproc)" >/dev/null

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun.openmpi --oversubscribe -np 3)
repo="${build}/demo-modules"
mkdir -p "${repo}"

echo
echo "== converting a third-party binary tool: Open MPI's libompitrace.so"
"${build}/patcher/pnmpi-patch" "$(mpicc.openmpi --showme:libdirs)/libompitrace.so" \
  "${repo}/ompitrace.so"

conf="${build}/demo.pnmpi-conf"
cat >"${conf}" <<'CONF'
# The tracer sees every call first; the delay layer below it holds each send for 2 ms.
module ompitrace
module delay
argument delay-us 2000
CONF

echo
echo "== 1. the program alone (linked with -lpnmpi, no config: nothing loaded)"
"${mpirun[@]}" "${build}/examples/ring" 2

echo
echo "== 2. the same binary under ${conf}:"
sed 's/^/     /' "${conf}"
PNMPI_CONF="${conf}" PNMPI_LIB_PATH="${repo}:${build}/lib/pnmpi/modules" PNMPI_DEBUG=1 \
  "${mpirun[@]}" "${build}/examples/ring" 2 2>&1 | grep -v '^pnmpi\[debug\]: configuration'

echo
echo "== 3. how pnmpi chained them (PNMPI_DEBUG=3, one rank): the link stack per routine"
PNMPI_CONF="${conf}" PNMPI_LIB_PATH="${repo}:${build}/lib/pnmpi/modules" PNMPI_DEBUG=3 \
  mpirun.openmpi -np 1 "${build}/examples/ring" 1 2>&1 |
  grep -E '^pnmpi\[debug\]: (MPI_(Send|Recv|Allreduce|Init|Finalize):|layer )' || true
echo
echo "The trace lines come from the converted tracer, once per call; the ring takes"
echo "2 ms longer per send because of the delay layer; the program's result is unchanged."
