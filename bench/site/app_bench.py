#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The site stack's overhead on real applications (docs/site.md): LAMMPS (`lmp`, a
Lennard-Jones melt) and a Fortran application (Quantum ESPRESSO's `pw.x`, an SCF of diamond),
2 ranks of Open MPI (Debian builds both for Open MPI only), each run natively and with the
site stack (libpnmpi preloaded into the ranks, PNMPI_SITE_CONF: records, the monitor and
the profile), alternated, --repeats times. Prints the median wall time of each, the spread,
and the ratio of the medians.

    /usr/bin/python3 bench/site/app_bench.py --build build-openmpi [--repeats 5]
"""

import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

LJ = """units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 10 0 10 0 10
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 3.0 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify every 20 delay 0 check no
fix 1 all nve
thermo 100
run 200
"""

DIAMOND = """&control
  calculation = 'scf', pseudo_dir = '%s', outdir = '%s', prefix = 'c'
/
&system
  ibrav = 2, celldm(1) = 6.74, nat = 2, ntyp = 1, ecutwfc = 30.0,
  occupations = 'smearing', smearing = 'gaussian', degauss = 0.02
/
&electrons
  conv_thr = 1.0d-8
/
ATOMIC_SPECIES
 C 12.011 C_3.98148.UPF
ATOMIC_POSITIONS alat
 C 0.00 0.00 0.00
 C 0.25 0.25 0.25
K_POINTS automatic
 4 4 4 0 0 0
"""
PSEUDO = "/usr/share/doc/quantum-espresso/examples/EPW/diamond/pp/C_3.98148.UPF.gz"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    build = os.path.abspath(a.build)
    scratch = tempfile.mkdtemp(prefix="pnmpi-app-bench-")
    logdir = os.path.join(scratch, "logs")
    subprocess.run([sys.executable, os.path.join(ROOT, "tools", "admin", "pnmpi-admin"),
                    "mkdirs", logdir, "--years", str(time.gmtime().tm_year)], check=True,
                   stdout=subprocess.DEVNULL)
    site = os.path.join(scratch, "site.conf")
    with open(site, "w") as f:
        f.write("records %s\nmodule monitor\nargument files none\nargument summary off\n"
                "module profile\n" % logdir)
    with open(os.path.join(scratch, "in.lj"), "w") as f:
        f.write(LJ)
    pseudo = os.path.join(scratch, "pseudo")
    os.makedirs(pseudo)
    with gzip.open(PSEUDO) as src, open(os.path.join(pseudo, "C_3.98148.UPF"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    with open(os.path.join(scratch, "diamond.in"), "w") as f:
        f.write(DIAMOND % (pseudo, os.path.join(scratch, "out")))
    apps = {"lammps (lmp, LJ melt, 4,000 atoms, 200 steps)":
            ["lmp", "-in", "in.lj", "-log", "none", "-screen", "none"],
            "Fortran: pw.x (diamond SCF)": ["pw.x", "-in", "diamond.in"]}
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1", HOME=scratch)
    env.pop("PNMPI_CONF", None)
    pre = ["mpirun.openmpi", "--oversubscribe", "--bind-to", "none", "-np", "2"]
    site_args = ["-x", "LD_PRELOAD=%s" % os.path.join(build, "lib", "libpnmpi.so"),
                 "-x", "PNMPI_SITE_CONF=%s" % site,
                 "-x", "PNMPI_LIB_PATH=%s" % os.path.join(build, "lib", "pnmpi", "modules")]
    print("load average (1 min) at the start: %.1f" % os.getloadavg()[0])
    for name, argv_app in apps.items():
        times = {"native": [], "site": []}
        for _ in range(a.repeats):
            for kind in ("native", "site"):
                argv = pre + (site_args if kind == "site" else []) + argv_app
                t = time.perf_counter()
                p = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True,
                                   timeout=1200)
                times[kind].append(time.perf_counter() - t)
                if p.returncode != 0:
                    sys.exit("app_bench: %s (%s) failed:\n%s%s" % (name, kind, p.stdout[-2000:],
                                                                   p.stderr[-2000:]))
                if kind == "site" and p.stderr.strip():
                    sys.exit("app_bench: the site stack printed: %s" % p.stderr[-2000:])
        n, s = statistics.median(times["native"]), statistics.median(times["site"])
        print("%-48s native %.2f s (%.2f-%.2f), site stack %.2f s (%.2f-%.2f), ratio %.3f"
              % (name, n, min(times["native"]), max(times["native"]), s, min(times["site"]),
                 max(times["site"]), s / n))
    records = [f for _, _, fs in os.walk(logdir) for f in fs if f.endswith(".record.npz")]
    print("records written: %d (expected %d)" % (len(records), 2 * a.repeats))
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
