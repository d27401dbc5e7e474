# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The trace on a full file system, for real: a small tmpfs that the test mounts (root only;
without root the test exits 77, which ctest shows as skipped, with the reason).

A write that fails at MPI_Finalize is said by the rank that saw it, INCOMPLETE stays and
says what failed, the job exits non-zero, and an earlier run's archive is left byte for byte.
Events lost because spill files could not be written during the run are said, and the job
exits non-zero.

Usage: test_trace_disk.py CONFIG.json [TraceDiskTest.test_NAME]   (run with /usr/bin/python3)"""

import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_trace as base  # noqa: E402  (run_job, scratch, describe; shares its CONFIG)

CONFIG = base.CONFIG
SKIPPED = 77


def unavailable():
    """Why this machine cannot mount a tmpfs for the test, or None."""
    if os.geteuid() != 0:
        return "mounting a small tmpfs needs root"
    return None


def mount_tmpfs(test, path, size):
    os.makedirs(path, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path], check=True)
    test.addCleanup(subprocess.run, ["umount", "-l", path], check=False)


def fill(path, leave):
    """Fills the file system of directory `path` with the file `path`/filler, leaving about
    `leave` bytes free (tmpfs counts whole pages)."""
    filler = os.path.join(path, "filler")
    with open(filler, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass
    with open(filler, "r+b") as f:
        size = os.path.getsize(filler)
        f.truncate(max(0, size - leave))
    return filler


def snapshot(out):
    """Every file of the archive in `out`: relative path -> bytes."""
    files = {}
    for name in ("traces.otf2", "traces.def", "summary.txt"):
        with open(os.path.join(out, name), "rb") as f:
            files[name] = f.read()
    for name in os.listdir(os.path.join(out, "traces")):
        with open(os.path.join(out, "traces", name), "rb") as f:
            files["traces/" + name] = f.read()
    return files


class TraceDiskTest(unittest.TestCase):
    def test_full_at_finalize(self):
        """The disk fills while the archive is written: the rank that failed names the file,
        INCOMPLETE says what failed, exit non-zero, the earlier archive is untouched; with
        room again the next run replaces it."""
        work = base.scratch("disk-finalize")
        fs = os.path.join(work, "fs")
        mount_tmpfs(self, fs, "1m")
        out = os.path.join(fs, "trace")
        conf = f"module trace\nargument output {out}\n"

        proc = base.run_job(2, conf, [CONFIG["known_app"], "1"], work)
        self.assertEqual(proc.returncode, 0, base.describe(proc))
        before = snapshot(out)
        self.assertTrue(all(before[n] for n in ("traces.otf2", "traces.def", "traces/0.evt")))
        events, _ = base.event_tuples(out)
        self.assertEqual(events[0], base.expected_known(0, 2, 1))

        filler = fill(fs, 16384)
        proc = base.run_job(2, conf, [CONFIG["known_app"], "400"], work)
        self.assertNotEqual(proc.returncode, 0, base.describe(proc))
        staging = os.path.join(out, ".pnmpi-trace-new")
        failed = re.findall(r"^pnmpi: module 'trace': (rank [01]: cannot write '" +
                            re.escape(staging) + r"/[^']+': No space left on device)$",
                            proc.stderr, re.M)
        self.assertTrue(failed, base.describe(proc))
        self.assertIn(f"pnmpi: module 'trace': the archive in '{out}' was not written (see "
                      f"{out}/INCOMPLETE); the earlier run's archive there is left as it was\n",
                      proc.stderr)
        self.assertNotIn("[OTF2]", proc.stderr)  # said once, as pnmpi's
        with open(os.path.join(out, "INCOMPLETE")) as f:
            marker = f.read()
        self.assertTrue(marker.startswith("This trace is incomplete: the job reached "
                                          "MPI_Finalize, but writing its archive failed:\n"),
                        marker)
        for line in failed:
            self.assertIn("  " + line + "\n", marker)
        self.assertIn("is an\nearlier run's, left as it was.", marker)
        self.assertEqual(snapshot(out), before)
        self.assertFalse(os.path.exists(staging))

        os.remove(filler)
        proc = base.run_job(2, conf, [CONFIG["known_app"], "3"], work)
        self.assertEqual(proc.returncode, 0, base.describe(proc))
        # The spill directory goes once its files are in the archive (issue 26 item 15).
        self.assertEqual(sorted(os.listdir(out)),
                         ["summary.txt", "traces", "traces.def", "traces.otf2"])
        events, _ = base.event_tuples(out)
        for rank in (0, 1):
            self.assertEqual(events[rank], base.expected_known(rank, 2, 3))

    def test_full_spills(self):
        """Spill files cannot be written during the run (raw/ is on a full file system): the
        first loss is said at once, every loss at MPI_Finalize, the archive says how many
        events it lacks, and the job exits non-zero."""
        work = base.scratch("disk-spills")
        out = os.path.join(work, "trace")
        raw = os.path.join(out, "raw")
        mount_tmpfs(self, raw, "64k")
        fill(raw, 0)
        conf = f"module trace\nargument output {out}\nargument buffer 4K\n"
        proc = base.run_job(2, conf, [CONFIG["known_app"], "60"], work)
        self.assertNotEqual(proc.returncode, 0, base.describe(proc))
        lost = {}
        for rank in (0, 1):
            spill = os.path.join(raw, f"rank{rank}.thread0.raw")
            self.assertIn(f"pnmpi: module 'trace': rank {rank}: cannot write spill file "
                          f"'{spill}': No space left on device; 64 events of this buffer are "
                          "lost (later losses are counted, and said at MPI_Finalize)\n",
                          proc.stderr)
            m = re.search(rf"^pnmpi: module 'trace': rank {rank}: (\d+) events are missing from "
                          rf"the archive: 1 thread\(s\) could not write their spill files in "
                          rf"'{re.escape(raw)}' \(No space left on device\)$", proc.stderr, re.M)
            self.assertIsNotNone(m, base.describe(proc))
            lost[rank] = int(m.group(1))
            self.assertEqual(lost[rank] % 64, 0)
            self.assertGreater(lost[rank], 0)
        self.assertFalse(os.path.exists(os.path.join(out, "INCOMPLETE")))
        with open(os.path.join(out, "summary.txt")) as f:
            summary = f.read()
        self.assertIn(f"\ndropped {lost[0] + lost[1]}\n", summary)
        events, _ = base.event_tuples(out)  # the archive reads, without the lost events
        self.assertEqual(sorted(events), [0, 1])


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        CONFIG.update(json.load(f))
    reason = unavailable()
    if reason is not None:
        print(f"skipped: {reason}")
        sys.exit(SKIPPED)
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
