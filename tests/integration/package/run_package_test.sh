#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# The package test (ctest package.external_module): installs the build tree into a scratch
# prefix, checks the layout, builds a module out of tree with find_package(pnmpi), and runs
# an unchanged MPI program through the installed pnmpi-run with that module and an
# installed one (found in the install's module directory). Also pnmpi-info and pkg-config
# from the install. Any mismatch prints what was expected and what came, and fails.
set -euo pipefail

while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2 ;;
    --source) source=$2 ;;
    --work) work=$2 ;;
    --cmake) cmake=$2 ;;
    --mpiexec) mpiexec=$2 ;;
    --flavor) flavor=$2 ;;
    --mpicc) mpicc=$2 ;;
    --libdir) libdir=$2 ;;
    --version) version=$2 ;;
    *) echo "run_package_test.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift 2
done

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
step() { echo "== $*"; }

rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"

step "cmake --install into $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log"
for f in bin/pnmpi-patch bin/pnmpi-info bin/pnmpi-run "$libdir/libpnmpi.so" \
  include/pnmpi/pnmpi.h include/pnmpi/service.h include/pnmpi/hooks.h include/pnmpi/newstack.h \
  include/pnmpi/xmpi.h include/pnmpimod.h "$libdir/cmake/pnmpi/pnmpiConfig.cmake" \
  "$libdir/cmake/pnmpi/pnmpiConfigVersion.cmake" "$libdir/cmake/pnmpi/pnmpiTargets.cmake" \
  "$libdir/cmake/pnmpi/PnmpiModule.cmake" "$libdir/pkgconfig/pnmpi.pc" \
  "$libdir/pnmpi/modules/empty.so" "$libdir/pnmpi/modules/delay.so"; do
  [ -e "$prefix/$f" ] || fail "the install has no $f"
done

step "build external_module/ against the installed package"
# No MPI_C_COMPILER here: the package itself must point FindMPI at pnmpi's MPI.
"$cmake" -S "$source" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; fail "configuring external_module failed"; exit 1; }
"$cmake" --build "$work/build" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log" >&2; fail "building external_module failed"; exit 1; }
grep -q "pnmpi-patch: renamed" "$work/build.log" || fail "the module was not patched"

launch=("$mpiexec")
if [ "$flavor" = openmpi ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  launch+=(--oversubscribe)
fi
launch+=(-np 2)
unset PNMPI_CONF PNMPI_LIB_PATH PNMPI_DEBUG LD_PRELOAD

conf="$work/hello.conf"
cat >"$conf" <<'EOF'
module hello
argument greeting bonjour
module empty
EOF

step "mpirun pnmpi-run: the external module (-L) and an installed one (module directory)"
"${launch[@]}" "$prefix/bin/pnmpi-run" -c "$conf" -L "$work/build/modules" \
  "$work/build/plain_app" >"$work/run1.out" 2>"$work/run1.err" ||
  { cat "$work/run1.err" >&2; fail "the pnmpi-run job failed"; }
expect_line "$work/run1.out" "plain_app: token=2"
expect_line "$work/run1.out" "hello[0]: bonjour from layer 0, 1 send(s)"
expect_line "$work/run1.out" "hello[1]: bonjour from layer 0, 1 send(s)"

step "the module installed into the install's module directory, no -L"
cp "$work/build/modules/hello.so" "$prefix/$libdir/pnmpi/modules/"
"${launch[@]}" "$prefix/bin/pnmpi-run" -c "$conf" -d 2 "$work/build/plain_app" \
  >"$work/run2.out" 2>"$work/run2.err" ||
  { cat "$work/run2.err" >&2; fail "the job without -L failed"; }
expect_line "$work/run2.out" "hello[0]: bonjour from layer 0, 1 send(s)"
expect_line "$work/run2.err" \
  "pnmpi[debug]: layer 0: module 'hello' from $prefix/$libdir/pnmpi/modules/hello.so (1 wrappers, copy 1)" 2

step "the program linked with pnmpi::pnmpi, PNMPI_CONF"
PNMPI_CONF="$conf" "${launch[@]}" "$work/build/linked_app" >"$work/run3.out" 2>"$work/run3.err" ||
  { cat "$work/run3.err" >&2; fail "the linked job failed"; }
expect_line "$work/run3.out" "hello[1]: bonjour from layer 0, 1 send(s)"

step "pnmpi-info from the install"
"$prefix/bin/pnmpi-info" -c "$conf" -r MPI_Send >"$work/info.out" 2>&1 ||
  { cat "$work/info.out" >&2; fail "pnmpi-info failed"; }
expect_line "$work/info.out" "  $prefix/$libdir/pnmpi/modules (the install's module directory)"
expect_line "$work/info.out" "    MPI_Send                     hello[0] -> empty[1] -> MPI"
"$prefix/bin/pnmpi-info" --check -c "$conf" >"$work/check.out" 2>&1 || fail "pnmpi-info --check"
expect_line "$work/check.out" "pnmpi-info: $conf: ok (2 module(s), 1 stack(s))"

step "pkg-config"
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
[ "$(pkg-config --modversion pnmpi)" = "$version" ] || fail "pkg-config --modversion"
moduledir=$(pkg-config --variable=moduledir pnmpi)
[ "$(cd "$moduledir" && pwd -P)" = "$(cd "$prefix/$libdir/pnmpi/modules" && pwd -P)" ] ||
  fail "pkg-config moduledir is $moduledir"
echo '#include <pnmpimod.h>
int main(void) { return PNMPI_SUCCESS; }' >"$work/pc.c"
# shellcheck disable=SC2046
"$mpicc" -Werror $(pkg-config --cflags pnmpi) "$work/pc.c" -o "$work/pc" \
  $(pkg-config --libs pnmpi) -Wl,-rpath,"$prefix/$libdir" || fail "compiling with pkg-config"

if [ "$failures" -ne 0 ]; then
  echo "package test: $failures failure(s) (logs in $work)" >&2
  exit 1
fi
echo "package test: ok"
