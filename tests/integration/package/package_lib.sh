# shellcheck shell=bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# Sourced by the package tests (run_package_test.sh, run_firsthour_test.sh): their options,
# their checks, and the launcher of their 2-rank jobs.

# parse_options SCRIPT ARGS...: the options `--NAME VALUE` of the package tests, each setting
# the variable of that name (--have-trace: have_trace).
# shellcheck disable=SC2034 # the variables are the sourcing script's
parse_options() {
  local script=$1
  shift
  while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "$script: $1 needs a value" >&2; exit 2; }
    case "$1" in
      --part) part=$2 ;;
      --build) build=$2 ;;
      --source) source=$2 ;;
      --work) work=$2 ;;
      --cmake) cmake=$2 ;;
      --mpiexec) mpiexec=$2 ;;
      --flavor) flavor=$2 ;;
      --mpicc) mpicc=$2 ;;
      --libdir) libdir=$2 ;;
      --version) version=$2 ;;
      --have-trace) have_trace=$2 ;;
      *) echo "$script: unknown argument $1" >&2; exit 2 ;;
    esac
    shift 2
  done
}

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# expect_line FILE LINE [COUNT]: FILE holds LINE exactly COUNT times (default 1).
expect_line() {
  local n
  n=$(grep -cxF -- "$2" "$1" || true)
  if [ "$n" != "${3:-1}" ]; then
    fail "expected ${3:-1} line(s) '$2' in $1, found $n; it holds:"
    sed 's/^/    /' "$1" >&2
  fi
}
# expect_text FILE TEXT [N]: TEXT occurs N times (default 1) in FILE, wherever in a line: for
# output that several ranks write to one stream, where the launcher may join one rank's line
# to another's (MPICH's Hydra was seen to).
expect_text() {
  local n
  n=$(grep -oF -- "$2" "$1" | wc -l)
  if [ "$n" != "${3:-1}" ]; then
    fail "expected '$2' ${3:-1} time(s) in $1, found $n; it holds:"
    sed 's/^/    /' "$1" >&2
  fi
}
step() { echo "== $*"; }

# set_launch: the array launch, mpirun of $mpiexec for 2 ranks (Open MPI: as root,
# oversubscribed), and an environment without pnmpi's variables.
set_launch() {
  launch=("$mpiexec")
  if [ "$flavor" = openmpi ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    launch+=(--oversubscribe)
  fi
  launch+=(-np 2)
  unset PNMPI_CONF PNMPI_LIB_PATH PNMPI_DEBUG LD_PRELOAD
}

# mpi_job COMMAND...: runs a job started by "${launch[@]}"; once more, saying so, when MPICH's
# mpiexec (Hydra) was killed by SIGPIPE: on a loaded machine it can write to the socket of a
# rank that ended quickly and die with the job's output lost (tests/support/mpi_launch.py).
mpi_job() {
  local status=0
  "$@" || status=$?
  if [ "$flavor" = mpich ] && [ "$status" -eq 141 ]; then
    echo "mpi_job: MPICH's mpiexec (Hydra) was killed by SIGPIPE with the job's output lost" \
      "(a launcher defect on a loaded machine): the job runs once more" >&2
    status=0
    "$@" || status=$?
  fi
  return "$status"
}

# finish WHAT: the verdict, and the exit status.
finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$1: $failures failure(s) (logs in $work)" >&2
    exit 1
  fi
  echo "$1: ok"
}
