#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""What the fsync that pnmpi_atomic_commit() does before rename(2) costs per output file
(support/src/atomic_file.cpp): a 4 KB file written through a temporary file and renamed,
300 times without fsync and 300 times with it; medians and quartiles.

    python3 bench/support/atomic_fsync.py [DIR]    # DIR: the file system to measure, "."
"""
import os
import statistics
import sys
import time


def one(directory, data, sync):
    tmp, final = os.path.join(directory, ".f.tmp"), os.path.join(directory, "f")
    t = time.perf_counter_ns()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    os.write(fd, data)
    if sync:
        os.fsync(fd)
    os.close(fd)
    os.rename(tmp, final)
    return time.perf_counter_ns() - t


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else "."
    data = b"x" * 4096
    for sync in (False, True):
        xs = [one(directory, data, sync) for _ in range(300)]
        q1, median, q3 = statistics.quantiles(xs, n=4)
        print(f"fsync {'on ' if sync else 'off'}: median {median / 1000:.1f} us "
              f"(quartiles {q1 / 1000:.1f}-{q3 / 1000:.1f} us)")
    os.remove(os.path.join(directory, "f"))


if __name__ == "__main__":
    main()
