#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
#
# Installs the Debian packages pnmpi builds and tests with, if any is missing.
set -euo pipefail

packages=(cmake make g++ gcc gfortran python3 pkg-config
          quantum-espresso quantum-espresso-data
          libgtest-dev googletest
          libopenmpi-dev openmpi-bin libmpich-dev mpich
          patchelf elfutils
          clang clang-format libclang-rt-14-dev
          libopen-trace-format2-dev otf2-tools python3-otf2
          python3-numpy python3-matplotlib python3-pil
          libscotch-dev scotch chromium iproute2 zlib1g-dev
          slurm-wlm munge
          lmod tcl8.6)
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Environment Modules (Tcl), for package.envmodules: Debian's package conflicts with lmod's,
# so it is unpacked, not installed, where that test looks for it; tclsh runs its
# modulecmd.tcl as the package's own `module` function does.
envmod_dir=/var/lib/pnmpi-tests/environment-modules
if ! find "$envmod_dir" -name modulecmd.tcl 2>/dev/null | grep -q .; then
  echo "deps: unpacking environment-modules into $envmod_dir"
  tmp=$(mktemp -d)
  chmod 755 "$tmp" # apt-get download writes as the _apt user where it can
  if ! (cd "$tmp" && apt-get download -qq environment-modules 2>/dev/null); then
    $SUDO apt-get update -qq
    (cd "$tmp" && apt-get download -qq environment-modules)
  fi
  $SUDO mkdir -p "$envmod_dir"
  $SUDO dpkg-deb -x "$tmp"/environment-modules_*.deb "$envmod_dir"
  rm -rf "$tmp"
fi
