#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# The first hour with an installed pnmpi, as docs/install.md and the tool writer's guide tell
# it: each part installs the build tree into its own scratch prefix, then
#   --part install_list  the modules of the install's module directory are exactly those
#                        docs/install.md lists, and every command, library and header installed
#                        is in its table (ctest package.install_list)
#   --part modulefiles   the page's `module use` / `module load` commands, run as written in a
#                        fresh shell with Lmod, then a 2-rank job with the module's environment;
#                        the default version, the swap of two pnmpi builds, the Tcl file under
#                        Lmod and the MPI's module loaded with pnmpi (ctest package.modulefiles)
#   --part envmodules    the Tcl module file under Environment Modules (its modulecmd.tcl,
#                        unpacked by scripts/deps.sh): the default version, the conflict
#                        between two pnmpi builds and `module switch`, the MPI's module as a
#                        prerequisite, and pnmpi-info in the loaded environment
#                        (ctest package.envmodules)
#   --part pnmpi_style   a module written for the original PnMPI (pnmpi_style/), built with
#                        find_package(PnMPI) against the install and run (package.pnmpi_style)
# Any mismatch prints what was expected and what came, and fails.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=package_lib.sh
source "$(dirname "$0")/package_lib.sh"
parse_options run_firsthour_test.sh "$@"

rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
moddir="$prefix/$libdir/pnmpi/modules"
page="$(cd "$source/../../.." && pwd)/docs/install.md"

step "cmake --install into $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log"

set_launch

part_install_list() {
  step "the modules installed are the modules $page lists"
  # The page's row of the module directory names each module as `NAME.so`.
  # shellcheck disable=SC2016 # the backquotes are Markdown's
  grep -F '| `lib/pnmpi/modules/`' "$page" | grep -o '`[A-Za-z0-9_-]*\.so`' | tr -d '`' |
    sort >"$work/listed"
  (cd "$moddir" && ls -- *.so) | sort >"$work/installed"
  [ -s "$work/listed" ] || fail "$page has no row for lib/pnmpi/modules/ naming modules"
  while read -r m; do
    grep -qxF "$m" "$work/listed" ||
      fail "$moddir/$m is installed, but the module directory's row of $page does not name it"
  done <"$work/installed"
  while read -r m; do
    if [ "$m" = trace.so ] && [ "$have_trace" != ON ]; then
      continue # built only with OTF2, as the page says
    fi
    grep -qxF "$m" "$work/installed" || fail "$page lists $m, which the install lacks"
  done <"$work/listed"
  echo "installed: $(tr '\n' ' ' <"$work/installed")"

  step "every command, library and header installed is in the table of $page"
  # The section "What is installed", up to the next heading.
  awk '/^## What is installed/ { on = 1; next } on && /^## / { exit } on' "$page" >"$work/table"
  (cd "$prefix" && find bin -maxdepth 1 ! -type d &&
    find "$libdir" -maxdepth 1 ! -type d \( -name '*.so' -o -name '*.a' \) &&
    find include -maxdepth 2 -type f && find include -mindepth 2 -type d) |
    sed "s|^$libdir/|lib/|" | sort >"$work/files"
  while read -r f; do
    # A directory is listed with its slash; a header under a listed directory is covered.
    [ -d "$prefix/$f" ] && f="$f/"
    grep -qF "\`$f\`" "$work/table" ||
      fail "$prefix/$f is installed, but the table of $page does not name \`$f\`"
  done <"$work/files"
}

# in_lmod_shell SCRIPT: runs SCRIPT in a fresh bash with nothing of this environment but the
# MPI's root switches, after Lmod's own initialization, as a login shell on Debian would.
in_lmod_shell() {
  env -i HOME="$work" PATH=/usr/local/bin:/usr/bin:/bin TERM=dumb LANG=C.UTF-8 \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    bash --noprofile --norc -c "source /usr/share/lmod/lmod/init/bash
set -e
cd '$work'
$1"
}

part_modulefiles() {
  local lmod_init=/usr/share/lmod/lmod/init/bash
  if [ ! -r "$lmod_init" ]; then
    fail "no Lmod ($lmod_init): apt-get install lmod (scripts/deps.sh installs it)"
    return
  fi
  step "the page's module commands, as written, then a 2-rank job"
  # The page's example: the first sh block after the marker, for /opt/pnmpi/openmpi.
  awk '/<!-- tested by package.modulefiles -->/ { on = 1; next }
       on && /^```sh/ { copy = 1; next } copy && /^```/ { exit } copy { print }' "$page" \
    >"$work/page-commands"
  [ -s "$work/page-commands" ] || { fail "$page has no tested module example"; return; }
  cat >"$work/app.c" <<'EOF'
#include <mpi.h>
#include <pnmpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank = 0, size = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("app: rank %d of %d, PNMPI_SUCCESS=%d\n", rank, size, PNMPI_SUCCESS);
  MPI_Finalize();
  return 0;
}
EOF
  printf 'module passthrough\n' >"$work/my.conf"
  # The page's names for this install and this MPI: its prefix, version and commands.
  local mpirun_words
  mpirun_words=$(printf '%q ' "${launch[@]:0:${#launch[@]}-2}")
  sed -e "s|/opt/pnmpi/openmpi|$prefix|g" -e "s|0\.1\.0-openmpi|$version-$flavor|g" \
    -e "s|^mpicc |$mpicc |" -e "s|^mpirun |$mpirun_words|" \
    "$work/page-commands" >"$work/commands"
  sed 's/^/    /' "$work/commands"
  in_lmod_shell "$(cat "$work/commands")
echo \"PNMPI_LIB_PATH=\${PNMPI_LIB_PATH-unset}\"
echo \"pnmpi-run=\$(type -P pnmpi-run)\"
pnmpi-info -c my.conf" >"$work/page.out" 2>"$work/page.err" ||
    { cat "$work/page.err" >&2; fail "the page's module commands failed"; }
  for r in 0 1; do
    expect_text "$work/page.out" "app: rank $r of 2, PNMPI_SUCCESS=0"
  done
  expect_line "$work/page.out" "PNMPI_LIB_PATH=unset"
  expect_line "$work/page.out" "pnmpi-run=$prefix/bin/pnmpi-run"
  # The install's module directory is searched once, by the core itself.
  expect_line "$work/page.out" "  $moddir (the install's module directory)"
  [ "$(awk -v d="  $moddir (" 'index($0, d) == 1' "$work/page.out" | wc -l)" = 1 ] ||
    fail "$moddir is on the module search path more than once: $(cat "$work/page.out")"
  expect_line "$work/page.out" "      file: $moddir/passthrough.so"

  step "module load pnmpi: the .version file makes this install's pnmpi the default"
  expect_line "$prefix/share/pnmpi/modulefiles/pnmpi/.version" \
    "set ModulesVersion \"$version-$flavor\""
  in_lmod_shell "module use $prefix/share/pnmpi/modulefiles
module load pnmpi
module -t list 2>&1
echo \"PNMPI_ROOT=\$PNMPI_ROOT\"" >"$work/default.out" 2>&1 ||
    { cat "$work/default.out" >&2; fail "module load pnmpi failed"; }
  expect_line "$work/default.out" "pnmpi/$version-$flavor"
  expect_line "$work/default.out" "PNMPI_ROOT=$prefix"

  step "a pnmpi for another MPI swaps the loaded one out (Lmod)"
  local other="$work/other-modulefiles"
  mkdir -p "$other/pnmpi"
  sed -e "s|^local prefix = .*|local prefix = \"$work/other-prefix\"|" \
    "$prefix/share/pnmpi/modulefiles/pnmpi/$version-$flavor.lua" \
    >"$other/pnmpi/$version-othermpi.lua"
  in_lmod_shell "module use $prefix/share/pnmpi/modulefiles
module use $other
module load pnmpi/$version-$flavor
module load pnmpi/$version-othermpi
module -t list 2>&1
echo \"PNMPI_ROOT=\$PNMPI_ROOT\"" >"$work/swap.out" 2>&1 ||
    { cat "$work/swap.out" >&2; fail "loading a second pnmpi failed"; }
  expect_line "$work/swap.out" "pnmpi/$version-othermpi"
  expect_line "$work/swap.out" "pnmpi/$version-$flavor" 0
  expect_line "$work/swap.out" "PNMPI_ROOT=$work/other-prefix"
  grep -qF "pnmpi/$version-$flavor => pnmpi/$version-othermpi" "$work/swap.out" ||
    fail "Lmod did not say it swapped the pnmpi builds: $(cat "$work/swap.out")"

  step "the Tcl module file, read by Lmod"
  mkdir -p "$work/tcl-modulefiles/pnmpi"
  cp "$prefix/share/pnmpi/modulefiles/pnmpi/$version-$flavor" "$work/tcl-modulefiles/pnmpi/"
  in_lmod_shell "module use $work/tcl-modulefiles
module load pnmpi/$version-$flavor
echo \"PNMPI_ROOT=\$PNMPI_ROOT\"
echo \"pnmpi-run=\$(type -P pnmpi-run)\"
echo \"PNMPI_LIB_PATH=\${PNMPI_LIB_PATH-unset}\"" >"$work/tcl.out" 2>&1 ||
    { cat "$work/tcl.out" >&2; fail "Lmod cannot load the Tcl module file"; }
  expect_line "$work/tcl.out" "PNMPI_ROOT=$prefix"
  expect_line "$work/tcl.out" "pnmpi-run=$prefix/bin/pnmpi-run"
  expect_line "$work/tcl.out" "PNMPI_LIB_PATH=unset"

  step "an MPI with a module (-DPNMPI_MPI_MODULE): loaded with pnmpi (Lua), required (Tcl)"
  # The files of an install configured with -DPNMPI_MPI_MODULE=fakempi/1.0, and that module.
  local dep="$work/dep-modulefiles"
  mkdir -p "$dep/pnmpi" "$dep/fakempi"
  printf 'setenv("FAKEMPI", "1.0")\n' >"$dep/fakempi/1.0.lua"
  sed 's|^local mpi_module = ""$|local mpi_module = "fakempi/1.0"|' \
    "$prefix/share/pnmpi/modulefiles/pnmpi/$version-$flavor.lua" >"$dep/pnmpi/$version-lua.lua"
  sed 's|^set mpi_module {}$|set mpi_module {fakempi/1.0}|' \
    "$prefix/share/pnmpi/modulefiles/pnmpi/$version-$flavor" >"$dep/pnmpi/$version-tcl"
  grep -q fakempi "$dep/pnmpi/$version-lua.lua" || fail "no mpi_module line in the Lua file"
  grep -q fakempi "$dep/pnmpi/$version-tcl" || fail "no mpi_module line in the Tcl file"
  in_lmod_shell "module use $dep
module load pnmpi/$version-lua
module -t list 2>&1
echo \"FAKEMPI=\${FAKEMPI-unset}\"" >"$work/dep-lua.out" 2>&1 ||
    { cat "$work/dep-lua.out" >&2; fail "loading pnmpi with its MPI's module failed"; }
  expect_line "$work/dep-lua.out" "fakempi/1.0"
  expect_line "$work/dep-lua.out" "FAKEMPI=1.0"
  if in_lmod_shell "module use $dep
module load pnmpi/$version-tcl" >"$work/dep-tcl.out" 2>&1; then
    fail "the Tcl file loaded without its MPI's module"
  fi
  grep -qF "fakempi/1.0" "$work/dep-tcl.out" ||
    fail "Lmod's refusal does not name the MPI's module: $(cat "$work/dep-tcl.out")"
  in_lmod_shell "module use $dep
module load fakempi/1.0 pnmpi/$version-tcl
echo \"PNMPI_ROOT=\$PNMPI_ROOT\"" >"$work/dep-tcl2.out" 2>&1 ||
    { cat "$work/dep-tcl2.out" >&2; fail "the Tcl file with its MPI's module loaded failed"; }
  expect_line "$work/dep-tcl2.out" "PNMPI_ROOT=$prefix"
}

part_envmodules() {
  local envmod=/var/lib/pnmpi-tests/environment-modules cmd
  cmd=$(find "$envmod" -name modulecmd.tcl -type f 2>/dev/null | head -1)
  if [ -z "$cmd" ]; then
    fail "no Environment Modules (modulecmd.tcl under $envmod): bash scripts/deps.sh unpacks it"
    return
  fi
  local tcl="$prefix/share/pnmpi/modulefiles/pnmpi/$version-$flavor"
  # in_envmod_shell SCRIPT: SCRIPT in a fresh bash whose `module` is Environment Modules'.
  in_envmod_shell() {
    env -i HOME="$work" PATH=/usr/bin:/bin bash --noprofile --norc -c \
      "module() { eval \"\$(tclsh $cmd bash \"\$@\")\"; }
$1"
  }
  step "Environment Modules $(tclsh "$cmd" bash --version 2>&1 | head -1): module load pnmpi"
  # Beside a higher version, which would be the default without the install's .version.
  cp -r "$prefix/share/pnmpi/modulefiles" "$work/versions"
  sed "s|$prefix|$work/higher-prefix|g" "$tcl" >"$work/versions/pnmpi/9.9.9-othermpi"
  printf 'module passthrough\n' >"$work/my.conf"
  in_envmod_shell "module use $work/versions
module load pnmpi || exit 1
module -t list 2>&1
echo \"PNMPI_ROOT=\$PNMPI_ROOT\"
echo \"pnmpi-run=\$(type -P pnmpi-run)\"
echo \"PNMPI_LIB_PATH=\${PNMPI_LIB_PATH-unset}\"
cd $work && pnmpi-info -c my.conf" >"$work/load.out" 2>&1 ||
    { cat "$work/load.out" >&2; fail "module load pnmpi failed under Environment Modules"; }
  expect_line "$work/load.out" "pnmpi/$version-$flavor"
  expect_line "$work/load.out" "PNMPI_ROOT=$prefix"
  expect_line "$work/load.out" "pnmpi-run=$prefix/bin/pnmpi-run"
  expect_line "$work/load.out" "PNMPI_LIB_PATH=unset"
  expect_line "$work/load.out" "  $moddir (the install's module directory)"
  expect_line "$work/load.out" "      file: $moddir/passthrough.so"

  step "a second pnmpi build is refused (conflict pnmpi); module switch swaps them"
  local other="$work/other-modulefiles"
  mkdir -p "$other/pnmpi"
  sed "s|$prefix|$work/other-prefix|g" "$tcl" >"$other/pnmpi/$version-othermpi"
  in_envmod_shell "module use $prefix/share/pnmpi/modulefiles
module use $other
module load pnmpi/$version-$flavor
module load pnmpi/$version-othermpi
echo \"second load: \$?\"
module -t list 2>&1
module switch pnmpi/$version-$flavor pnmpi/$version-othermpi
echo \"PNMPI_ROOT=\$PNMPI_ROOT\"" >"$work/conflict.out" 2>&1
  grep -q "conflict" "$work/conflict.out" ||
    fail "Environment Modules loaded a second pnmpi without a conflict: $(cat "$work/conflict.out")"
  expect_line "$work/conflict.out" "second load: 1"
  expect_line "$work/conflict.out" "pnmpi/$version-$flavor"
  expect_line "$work/conflict.out" "PNMPI_ROOT=$work/other-prefix"

  step "an MPI with a module (-DPNMPI_MPI_MODULE): its module is a prerequisite"
  local dep="$work/dep-modulefiles"
  mkdir -p "$dep/pnmpi" "$dep/fakempi"
  printf '#%%Module1.0\nsetenv FAKEMPI 1.0\n' >"$dep/fakempi/1.0"
  sed 's|^set mpi_module {}$|set mpi_module {fakempi/1.0}|' "$tcl" >"$dep/pnmpi/$version-tcl"
  grep -q fakempi "$dep/pnmpi/$version-tcl" || fail "no mpi_module line in the Tcl file"
  # Without automatic handling the load is refused, naming the MPI's module.
  if in_envmod_shell "export MODULES_AUTO_HANDLING=0
module use $dep
module load pnmpi/$version-tcl || exit 1" >"$work/prereq.out" 2>&1; then
    fail "the Tcl file loaded without its MPI's module: $(cat "$work/prereq.out")"
  fi
  grep -qF "fakempi/1.0" "$work/prereq.out" ||
    fail "the refusal does not name the MPI's module: $(cat "$work/prereq.out")"
  # With it (Environment Modules 5's default), the MPI's module is loaded with pnmpi.
  in_envmod_shell "export MODULES_AUTO_HANDLING=1
module use $dep
module load pnmpi/$version-tcl || exit 1
echo \"FAKEMPI=\${FAKEMPI-unset}\"
echo \"PNMPI_ROOT=\$PNMPI_ROOT\"" >"$work/prereq2.out" 2>&1 ||
    { cat "$work/prereq2.out" >&2; fail "loading pnmpi with its MPI's module failed"; }
  expect_line "$work/prereq2.out" "FAKEMPI=1.0"
  expect_line "$work/prereq2.out" "PNMPI_ROOT=$prefix"
}

part_pnmpi_style() {
  step "a PnMPI module's build, unchanged, against the installed package"
  "$cmake" -S "$source/pnmpi_style" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" \
    >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log" >&2; fail "configuring pnmpi_style failed"; return; }
  "$cmake" --build "$work/build" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log" >&2; fail "building pnmpi_style failed"; return; }
  "$cmake" --install "$work/build" >"$work/module-install.log" 2>&1 ||
    { cat "$work/module-install.log" >&2; fail "installing the module failed"; return; }
  [ -f "$moddir/sendcount.so" ] || fail "install(... \${PnMPI_MODULES_DIR}) missed $moddir"
  if grep -qi "warning" "$work/build.log"; then
    fail "pnmpi_style builds with a warning: $(cat "$work/build.log")"
  fi

  step "the module, from the install's module directory, in a 2-rank job"
  printf 'module sendcount\n' >"$work/sendcount.conf"
  mpi_job "${launch[@]}" "$prefix/bin/pnmpi-run" -c "$work/sendcount.conf" "$work/build/sends" \
    >"$work/run.out" 2>"$work/run.err" ||
    { cat "$work/run.err" >&2; fail "the job with the PnMPI-style module failed"; }
  expect_text "$work/run.out" "sends: done"
  expect_text "$work/run.out" "sendcount[0]: 3 send(s)"
  expect_text "$work/run.out" "sendcount[1]: 1 send(s)"
  step "the program linked with \${PnMPI_LIBRARIES}, PNMPI_CONF"
  PNMPI_CONF="$work/sendcount.conf" mpi_job "${launch[@]}" "$work/build/sends_linked" \
    >"$work/linked.out" 2>"$work/linked.err" ||
    { cat "$work/linked.err" >&2; fail "the linked job failed"; }
  expect_text "$work/linked.out" "sendcount[0]: 3 send(s)"
  expect_text "$work/linked.out" "sendcount[1]: 1 send(s)"
  if grep -q "PNMPI_Service_RegisterModule failed" "$work/run.err" "$work/linked.err"; then
    fail "the module's registration failed: $(cat "$work/run.err")"
  fi
}

case "$part" in
  install_list) part_install_list ;;
  modulefiles) part_modulefiles ;;
  envmodules) part_envmodules ;;
  pnmpi_style) part_pnmpi_style ;;
  *) echo "run_firsthour_test.sh: unknown part '$part'" >&2; exit 2 ;;
esac

finish "$part"
