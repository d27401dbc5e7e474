#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# The package test (ctest package.external_module): installs the build tree into a scratch
# prefix, checks the layout, builds a module out of tree with find_package(pnmpi), and runs
# an unchanged MPI program through the installed pnmpi-run with that module and an
# installed one (found in the install's module directory). Then, from the install alone
# (CMAKE_PREFIX_PATH): builds and runs the installed worked example
# (share/pnmpi/examples/tool) and a copy of the installed template (share/pnmpi/template),
# and checks the environment-module files. Also pnmpi-info and pkg-config from the
# install. Any mismatch prints what was expected and what came, and fails.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=package_lib.sh
source "$(dirname "$0")/package_lib.sh"
parse_options run_package_test.sh "$@"

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
  "$libdir/pnmpi/modules/empty.so" "$libdir/pnmpi/modules/passthrough.so" \
  "$libdir/pnmpi/modules/delay.so" "$libdir/pnmpi/modules/monitor.so" \
  "$libdir/libmpi_monitoring.so" include/MPI_Monitoring.h share/pnmpi/template/empty.c \
  share/pnmpi/examples/tool/CMakeLists.txt share/pnmpi/examples/tool/README.md \
  share/doc/pnmpi/README.md share/doc/pnmpi/docs/install.md share/doc/pnmpi/docs/monitor.md \
  share/doc/pnmpi/docs/tool-writers-guide.md \
  "share/pnmpi/modulefiles/pnmpi/$version-$flavor" \
  "share/pnmpi/modulefiles/pnmpi/$version-$flavor.lua"; do
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

set_launch

conf="$work/hello.conf"
cat >"$conf" <<'EOF'
module hello
argument greeting bonjour
module passthrough
EOF

step "mpirun pnmpi-run: the external module (-L) and an installed one (module directory)"
mpi_job "${launch[@]}" "$prefix/bin/pnmpi-run" -c "$conf" -L "$work/build/modules" \
  "$work/build/plain_app" >"$work/run1.out" 2>"$work/run1.err" ||
  { cat "$work/run1.err" >&2; fail "the pnmpi-run job failed"; }
expect_line "$work/run1.out" "plain_app: token=2"
expect_text "$work/run1.out" "hello[0]: bonjour from layer 0, 1 send(s)"
expect_text "$work/run1.out" "hello[1]: bonjour from layer 0, 1 send(s)"

step "the module installed into the install's module directory, no -L"
cp "$work/build/modules/hello.so" "$prefix/$libdir/pnmpi/modules/"
mpi_job "${launch[@]}" "$prefix/bin/pnmpi-run" -c "$conf" -d 2 "$work/build/plain_app" \
  >"$work/run2.out" 2>"$work/run2.err" ||
  { cat "$work/run2.err" >&2; fail "the job without -L failed"; }
expect_text "$work/run2.out" "hello[0]: bonjour from layer 0, 1 send(s)"
expect_line "$work/run2.err" \
  "pnmpi[debug]: layer 0: module 'hello' from $prefix/$libdir/pnmpi/modules/hello.so (1 wrappers, copy 1)" 2

step "the program linked with pnmpi::pnmpi, PNMPI_CONF"
PNMPI_CONF="$conf" mpi_job "${launch[@]}" "$work/build/linked_app" \
  >"$work/run3.out" 2>"$work/run3.err" ||
  { cat "$work/run3.err" >&2; fail "the linked job failed"; }
expect_text "$work/run3.out" "hello[1]: bonjour from layer 0, 1 send(s)"

step "pnmpi-info from the install"
"$prefix/bin/pnmpi-info" -c "$conf" -r MPI_Send >"$work/info.out" 2>&1 ||
  { cat "$work/info.out" >&2; fail "pnmpi-info failed"; }
expect_line "$work/info.out" "  $prefix/$libdir/pnmpi/modules (the install's module directory)"
expect_line "$work/info.out" "    MPI_Send                     hello[0] -> passthrough[1] -> MPI"
"$prefix/bin/pnmpi-info" --check -c "$conf" >"$work/check.out" 2>&1 || fail "pnmpi-info --check"
# hello (a third-party module) exports no pnmpi_module_check: its values are the job's to check.
expect_line "$work/check.out" "pnmpi-info: $conf: ok (2 module(s), 1 stack(s)); the argument values of 'hello' are not checked here (no pnmpi_module_check): the job checks them when it starts"

step "the installed worked example, built from the install alone (CMAKE_PREFIX_PATH)"
example="$prefix/share/pnmpi/examples/tool"
"$cmake" -S "$example" -B "$work/example" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/example-configure.log" 2>&1 ||
  { cat "$work/example-configure.log" >&2; fail "configuring the example failed"; exit 1; }
"$cmake" --build "$work/example" -j2 >"$work/example-build.log" 2>&1 ||
  { cat "$work/example-build.log" >&2; fail "building the example failed"; exit 1; }
if grep -q "warning" "$work/example-build.log"; then
  fail "the example builds with a warning (log: $work/example-build.log)"
fi
(cd "$work/example" && mpi_job "${launch[@]}" "$prefix/bin/pnmpi-run" -c "$example/example.conf" \
  -L modules ./app) >"$work/example.out" 2>"$work/example.err" ||
  { cat "$work/example.err" >&2; fail "the example's job failed"; }
expect_line "$work/example.out" "app: 2 ranks done"
expect_line "$work/example.out" "report: 2 send(s) of 1 byte(s)"
for range in "8 to 15" "64 to 127" "512 to 1023"; do
  expect_line "$work/example.out" "report: 2 send(s) of $range bytes"
done
printf 'module report\nargument format csv\nmodule sizes\nargument bins 8\n' >"$work/csv.conf"
mpi_job "${launch[@]}" "$prefix/bin/pnmpi-run" -c "$work/csv.conf" -L "$work/example/modules" \
  "$work/example/app" >"$work/csv.out" 2>"$work/csv.err" ||
  { cat "$work/csv.err" >&2; fail "the example's csv job failed"; }
expect_line "$work/csv.out" "1,1,2"
expect_line "$work/csv.out" "64,-1,4" # 8 bins: 100 and 1000 bytes share the last one
printf 'module report\nmodule sizes\nargument bins 99\n' >"$work/bad.conf"
if mpi_job "${launch[@]}" "$prefix/bin/pnmpi-run" -c "$work/bad.conf" -L "$work/example/modules" \
  "$work/example/app" >"$work/bad.out" 2>"$work/bad.err"; then
  fail "the example accepted 'argument bins 99'"
fi
expect_line "$work/bad.err" "pnmpi: $work/bad.conf:3: module 'sizes': argument 'bins' must be a \
whole number from 2 to 64, not '99'" 2

step "the installed template, copied into a project of its own"
mkdir -p "$work/mytool"
cp "$prefix/share/pnmpi/template/empty.c" "$work/mytool/mytool.c"
printf '%s\n' 'cmake_minimum_required(VERSION 3.20)' 'project(mytool LANGUAGES C)' \
  'find_package(pnmpi REQUIRED)' 'pnmpi_add_module(mytool mytool.c)' >"$work/mytool/CMakeLists.txt"
{ "$cmake" -S "$work/mytool" -B "$work/mytool/build" -DCMAKE_PREFIX_PATH="$prefix" &&
  "$cmake" --build "$work/mytool/build"; } >"$work/mytool.log" 2>&1 ||
  { cat "$work/mytool.log" >&2; fail "building the copied template failed"; }
printf 'module mytool\n' >"$work/mytool.conf"
mpi_job "${launch[@]}" "$prefix/bin/pnmpi-run" -c "$work/mytool.conf" \
  -L "$work/mytool/build/modules" "$work/build/plain_app" >"$work/mytool.out" 2>"$work/mytool.err" ||
  { cat "$work/mytool.err" >&2; fail "the copied template's job failed"; }
expect_line "$work/mytool.out" "empty[0]: layer 0: 1 send(s), 1 from the application"

step "the environment-module files set this prefix's paths"
modfile="$prefix/share/pnmpi/modulefiles/pnmpi/$version-$flavor"
# name|value below the prefix ("" for the prefix itself), each prepended.
settings=("PATH|/bin" "CMAKE_PREFIX_PATH|" "PKG_CONFIG_PATH|/$libdir/pkgconfig"
  "CPATH|/include" "LIBRARY_PATH|/$libdir" "LD_LIBRARY_PATH|/$libdir")
want_tcl="conflict pnmpi
setenv PNMPI_ROOT $prefix"
for s in "${settings[@]}"; do
  want_tcl+=$'\n'"prepend-path ${s%%|*} $prefix${s#*|}"
done
# Tcl: the file runs with the module commands defined to print what they would do.
# shellcheck disable=SC2016 # Tcl source: its $ are Tcl's
printf '%s\n' 'proc setenv {var value} { puts "setenv $var $value" }' \
  'proc prepend-path {var value} { puts "prepend-path $var $value" }' \
  'proc append-path {var value} { puts "append-path $var $value" }' \
  'proc conflict {name} { puts "conflict $name" }' 'proc module-whatis {text} {}' \
  'source [lindex $argv 0]' >"$work/modulecmd.tcl"
if command -v tclsh >/dev/null; then
  got=$(tclsh "$work/modulecmd.tcl" "$modfile" 2>&1) || fail "tclsh cannot read $modfile: $got"
  [ "$got" = "$want_tcl" ] || fail "$modfile does:
$got
instead of:
$want_tcl"
else
  echo "(no tclsh: the Tcl module file is not run)"
fi
# Lua (Lmod): the same settings, checked line by line; Lmod reads it too when installed.
expect_line "$modfile.lua" "local prefix = \"$prefix\""
expect_line "$modfile.lua" "setenv(\"PNMPI_ROOT\", prefix)"
expect_line "$modfile.lua" "prepend_path(\"CMAKE_PREFIX_PATH\", prefix)"
for s in "${settings[@]}"; do
  [ -n "${s#*|}" ] && expect_line "$modfile.lua" "prepend_path(\"${s%%|*}\", prefix .. \"${s#*|}\")"
done
# The core searches the install's module directory itself: the files leave PNMPI_LIB_PATH.
if grep -qE "(path|setenv)[ (\"]+PNMPI_LIB_PATH" "$modfile" "$modfile.lua"; then
  fail "a module file sets PNMPI_LIB_PATH: the install's module directory would be searched twice"
fi
for f in "$modfile" "$modfile.lua"; do
  if grep -q '@PNMPI_' "$f"; then fail "$f holds an unreplaced @PNMPI_ variable"; fi
done
if [ -n "${LMOD_CMD:-}" ]; then
  "$LMOD_CMD" bash show "$modfile.lua" >/dev/null 2>"$work/lmod.err" ||
    { cat "$work/lmod.err" >&2; fail "Lmod cannot read $modfile.lua"; }
fi

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

finish "package test"
