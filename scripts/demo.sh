#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# The demo: builds pnmpi against Open MPI, then runs one unchanged MPI program (examples/ring)
# twice: alone, and under a stack of three tools chosen in a config file: pnmpi's
# communication monitor, Open MPI's own tracing library (a binary PMPI tool, converted into a
# module with pnmpi-patch: no source, no recompile), and a delay layer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh

build=build-demo
# The Open MPI to demonstrate with (its libompitrace.so is the third-party tool): Debian's,
# or another one's compiler wrapper in PNMPI_MPICC. Its launcher is the one CMake found.
mpicc=${PNMPI_MPICC:-mpicc.openmpi}
echo "== building pnmpi (Open MPI: ${mpicc}) in ${build}/"
cmake -S . -B "${build}" -DMPI_C_COMPILER="${mpicc}" -DPNMPI_BUILD_TESTS=OFF \
  -DPNMPI_BUILD_BENCH=OFF >/dev/null
cmake --build "${build}" -j"$(nproc)" >/dev/null
launcher=$(sed -n 's/^PNMPI_MPIEXEC:FILEPATH=//p' "${build}/CMakeCache.txt")

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=("${launcher}" --oversubscribe -np 3)
repo="${build}/demo-modules"
mkdir -p "${repo}"

echo
echo "== converting a third-party binary tool: Open MPI's libompitrace.so"
"${build}/patcher/pnmpi-patch" "$("${mpicc}" --showme:libdirs)/libompitrace.so" \
  "${repo}/ompitrace.so"

conf="${build}/demo.pnmpi-conf"
mkdir -p "${build}/demo-monitor"
cat >"${conf}" <<CONF
# The tracer prints every call and forwards it; the monitor below it counts who sent what
# to whom, and still files the traffic as the application's; the delay layer at the bottom
# holds each send for 2 ms.
module ompitrace
module monitor
argument output ${build}/demo-monitor/ring
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
echo "== 3. what the monitor wrote: rank 0's file in Open MPI's monitoring format, and the"
echo "      gathered matrix of point-to-point message counts (row = sender)"
sed -n '1,3p' "${build}/demo-monitor/ring.0.prof" | cut -c1-60
python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["categories"]["p2p"]["counts"]; [print("     ", row) for row in m]' \
  "${build}/demo-monitor/ring.json"

echo
echo "== 4. how pnmpi chained them (PNMPI_DEBUG=3, one rank): the link stack per routine"
PNMPI_CONF="${conf}" PNMPI_LIB_PATH="${repo}:${build}/lib/pnmpi/modules" PNMPI_DEBUG=3 \
  "${launcher}" -np 1 "${build}/examples/ring" 1 2>&1 |
  grep -E '^pnmpi\[debug\]: (MPI_(Send|Recv|Allreduce|Init|Finalize):|layer )' || true
if [ -x "${build}/examples/ring_f08" ]; then
  echo
  echo "== 5. the same ring in Fortran (use mpi_f08), an unchanged binary with libpnmpi preloaded,"
  echo "      under the same stack: the MPI's Fortran bindings enter the chain"
  PNMPI_CONF="${conf}" PNMPI_LIB_PATH="${repo}:${build}/lib/pnmpi/modules" \
    "${mpirun[@]}" -x PNMPI_CONF -x PNMPI_LIB_PATH -x LD_PRELOAD="${build}/lib/libpnmpi.so" \
    "${build}/examples/ring_f08" 2 2>&1 | grep -E '^(ring_f08|MPI_SEND|pnmpi monitor: 3 ranks)'
fi
echo
echo "== 6. a picture of who talked to whom: the monitor alone on 8 ranks of the ring, drawn"
echo "      by pnmpi-report (the README shows it: docs/generated/demo-heatmap.png)"
conf8="${build}/demo-monitor-only.pnmpi-conf"
printf 'module monitor\nargument output %s\nargument summary off\n' \
  "${build}/demo-monitor/ring8" >"${conf8}"
PNMPI_CONF="${conf8}" PNMPI_LIB_PATH="${build}/lib/pnmpi/modules" \
  "${launcher}" --oversubscribe -np 8 -x PNMPI_CONF -x PNMPI_LIB_PATH "${build}/examples/ring" 3 \
  >/dev/null
report=tools/report/pnmpi-report
# The placement advice in the summary and the page comes from pnmpi's mapping library.
export PNMPI_MAPPING_LIBRARY="${PWD}/${build}/lib/libpnmpi_mapping.so"
mkdir -p docs/generated
"${report}" heatmap "${build}/demo-monitor/ring8" -o docs/generated/demo-heatmap.png
"${report}" html "${build}/demo-monitor/ring8" -o "${build}/demo-monitor/ring8.html"
"${report}" summary "${build}/demo-monitor/ring8" | sed -n '1,12p'
echo "     full report: ${build}/demo-monitor/ring8.html"

echo
echo "The trace lines come from the converted tracer, once per call. It forwards each call"
echo "with an ordinary call, yet the monitor below it files the ring's traffic as the"
echo "application's and none as the modules' above it. The monitor's summary and files"
echo "describe the same traffic; the ring takes 2 ms longer per send because of the delay"
echo "layer; the program's result is unchanged."
