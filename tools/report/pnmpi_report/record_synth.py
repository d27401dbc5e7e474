# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Synthetic job records: a 3-D halo-exchange stencil with allreduces, any rank count.

    from pnmpi_report import record, record_synth
    meta, arrays = record_synth.stencil(1024, seed=1, job_id="4711")
    record.write_record("pnmpi-4711.record.npz", meta, arrays)

Used by bench/record/record_bench.py (sizes, read times) and by tests; the numbers are
made up but shaped like a real job's: six neighbours per rank (fewer on the faces of a
non-periodic grid), one 8-byte allreduce per iteration, per-rank noise on every time."""

import numpy as np

from . import record

ROUTINES = ["MPI_Init", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Isend", "MPI_Irecv",
            "MPI_Waitall", "MPI_Allreduce", "MPI_Barrier", "MPI_Finalize"]


def grid(n):
    """n as px * py * pz, as close to a cube as the factors allow."""
    best = (n, 1, 1)
    for x in range(1, int(round(n ** (1 / 3))) + 2):
        if n % x:
            continue
        for y in range(x, int(n ** 0.5) + 2):
            if (n // x) % y:
                continue
            z = n // x // y
            if z >= y and max(x, y, z) < max(best):
                best = (x, y, z)
    return best


def stencil(ranks, seed=0, job_id="synthetic", iterations=100, halo_bytes=8 * 64 * 64,
            ended="finalized", ranks_per_host=64, user="user", start=1.8e9):
    """(meta, arrays) of a finalized synthetic job (see write_record)."""
    rng = np.random.default_rng(seed)
    px, py, pz = grid(ranks)
    r = np.arange(ranks)
    x, y, z = r % px, (r // px) % py, r // (px * py)
    src, dst = [], []
    for dx, dy, dz in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
        nx, ny, nz = x + dx, y + dy, z + dz
        ok = (nx >= 0) & (nx < px) & (ny >= 0) & (ny < py) & (nz >= 0) & (nz < pz)
        src.append(r[ok])
        dst.append((nx + px * (ny + py * nz))[ok])
    src, dst = np.concatenate(src), np.concatenate(dst)
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    neighbours = np.bincount(src, minlength=ranks)

    a = record.empty_arrays(ranks, ROUTINES)
    F = {n: k for k, n in enumerate(ROUTINES)}
    hosts = max(1, (ranks + ranks_per_host - 1) // ranks_per_host)
    a["rank_host"][:] = r // ranks_per_host
    wall = 60.0 * (1 + 0.01 * rng.random(ranks))
    calls = a["calls"]
    calls[:, F["MPI_Init"]] = calls[:, F["MPI_Finalize"]] = 1
    calls[:, F["MPI_Comm_rank"]] = calls[:, F["MPI_Comm_size"]] = 1
    calls[:, F["MPI_Isend"]] = calls[:, F["MPI_Irecv"]] = neighbours * iterations
    calls[:, F["MPI_Waitall"]] = iterations
    calls[:, F["MPI_Allreduce"]] = iterations
    calls[:, F["MPI_Barrier"]] = 2
    a["bytes"][:, F["MPI_Isend"]] = a["bytes"][:, F["MPI_Irecv"]] = \
        neighbours * iterations * halo_bytes
    a["bytes"][:, F["MPI_Allreduce"]] = iterations * 8
    t = a["time_s"]
    noise = rng.random((ranks, len(ROUTINES)))
    per_call = np.array([0.5, 1e-7, 1e-7, 1e-6, 5e-7, 2e-3, 5e-4, 1e-3, 0.05])
    t[:] = (calls * per_call * (0.5 + noise)).astype(np.float32)
    a["min_s"][:] = per_call * 0.5
    a["max_s"][:] = per_call * 1.5
    a["wall_s"][:] = wall
    skip = [F["MPI_Init"], F["MPI_Finalize"]]
    keep = [k for k in range(len(ROUTINES)) if k not in skip]
    a["mpi_s"][:] = t[:, keep].astype(np.float64).sum(axis=1)
    a["p2p_src"], a["p2p_dst"] = src, dst
    a["p2p_bytes"] = np.full(len(src), iterations * halo_bytes)
    a["p2p_count"] = np.full(len(src), iterations)
    a["comm_offsets"] = np.array([0, ranks], dtype=np.uint64)
    a["comm_members"] = r
    a["comm_bytes"] = np.full(ranks, iterations * 8 + 2 * 0)
    a["comm_count"] = np.full(ranks, iterations + 2)
    meta = {"job_id": job_id, "user": user, "executable": "/home/%s/stencil" % user,
            "executable_hash": "crc32:1234abcd:1048576", "start": start,
            "end": start + float(wall.max()), "ranks": ranks,
            "hosts": ["node%05d" % h for h in range(hosts)], "modules": ["profile", "monitor"],
            "pnmpi_version": "synthetic", "mpi": "synthetic", "ended": ended,
            "routines": ROUTINES, "comm_names": ["MPI_COMM_WORLD"]}
    return meta, a
