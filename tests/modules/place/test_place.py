# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""The place module in real jobs (mpirun, 2 to 4 ranks), with exact expectations for a known
permutation that is not its own inverse, so that a world numbered the wrong way round fails.

Usage: test_place.py CONFIG.json [PlaceTest.test_NAME]   (run with /usr/bin/python3)"""

import json
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import mpi_launch  # noqa: E402

CONFIG = {}


def ranks_and_order():
    """(ranks, order): order[p] is the application rank of launch slot p. MPICH busy-polls,
    so its jobs stay at 3 ranks on this 2-core machine."""
    if CONFIG["flavor"] == "openmpi":
        return 4, [2, 0, 3, 1]
    return 3, [1, 2, 0]


def inverse(order):
    slot_of = [0] * len(order)
    for p, r in enumerate(order):
        slot_of[r] = p
    return slot_of


def scratch(name):
    path = os.path.join(CONFIG["scratch"], name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    os.chmod(path, 0o755)
    return path


def write(path, text, mode=0o644):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def order_text(order):
    """The order in Cray's format, with a comment, a range where one fits and two lines."""
    items = [str(r) for r in order]
    if order[:2] == [order[0], order[0] + 1] and len(order) > 2:
        items[:2] = ["%d-%d" % (order[0], order[1])]
    half = (len(items) + 1) // 2
    return "# placement for the test\n%s\n%s\n" % (",".join(items[:half]), ",".join(items[half:]))


def run_job(ranks, conf_text, program, workdir, extra_env=None, timeout=120):
    conf = write(os.path.join(workdir, "pnmpi.conf"), conf_text)
    env = dict(os.environ)
    env.update({"PNMPI_CONF": conf, "PNMPI_LIB_PATH": ":".join(CONFIG["module_dirs"]),
                "PNMPI_BE_SILENT": "1"})
    env.pop("PNMPI_DEBUG", None)
    argv = [CONFIG["mpiexec"]]
    if CONFIG["flavor"] == "openmpi":
        env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                    "OMPI_MCA_rmaps_base_oversubscribe": "1"})
        argv += ["--oversubscribe"]
    argv += ["-np", str(ranks)] + program
    env.update(extra_env or {})
    return mpi_launch.run_job(argv, CONFIG["flavor"], env=env, cwd=workdir,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=timeout)


def describe(proc):
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"


def place_conf(order_file):
    return "module place\nargument order %s\n" % order_file


class PlaceTest(unittest.TestCase):
    def setUp(self):
        self.ranks, self.order = ranks_and_order()
        self.slot_of = inverse(self.order)
        self.dir = scratch(self.id().split(".")[-1])
        write(os.path.join(self.dir, "order.txt"), order_text(self.order))

    def order_arg(self):
        return ",".join(str(r) for r in self.order)

    # ---- every observable item, from C and from Fortran -----------------------------------

    ITEMS = ["rank", "status_source", "message_reaches_the_process", "wait_status_source",
             "bcast_root", "allgather_order", "exscan", "group_rank", "compare_ident", "dup",
             "name", "fortran_handle", "split", "split_type", "cart", "dist_graph", "intercomm",
             "window", "file", "errhandler", "free_world", "errhandler_function",
             "user_attribute"]

    def items_of(self, out, prefix=""):
        return [line for line in out.splitlines() if re.match(prefix + r"\w+: ", line)]

    def test_items(self):
        program = [CONFIG["place_app"], self.order_arg(), os.path.join(self.dir, "io.dat")]
        r = run_job(self.ranks, place_conf("order.txt"), program, self.dir)
        self.assertEqual(r.returncode, 0, describe(r))
        self.assertEqual(self.items_of(r.stdout), ["%s: ok" % i for i in self.ITEMS], describe(r))
        # Without the module the same program sees the launcher's numbering: the items that
        # depend on it fail, so the checks above can fail.
        os.unlink(os.path.join(self.dir, "io.dat"))
        r = run_job(self.ranks, "", program, self.dir)
        self.assertEqual(r.returncode, 0, describe(r))
        failed = [line.split(":")[0] for line in self.items_of(r.stdout)
                  if line.endswith("FAILED")]
        self.assertEqual(failed, ["rank", "status_source", "message_reaches_the_process",
                                  "wait_status_source", "bcast_root", "allgather_order",
                                  "exscan", "group_rank", "dup", "split", "split_type", "cart",
                                  "dist_graph", "intercomm", "window", "file"], describe(r))

    def test_attributes(self):
        """The predefined attributes of the world are the physical world's, MPI_HOST and
        MPI_IO renumbered when they are ranks."""
        program = [CONFIG["place_app"], self.order_arg()]
        base = run_job(self.ranks, "", program, self.dir)
        placed = run_job(self.ranks, place_conf("order.txt"), program, self.dir)
        self.assertEqual(base.returncode, 0, describe(base))
        self.assertEqual(placed.returncode, 0, describe(placed))

        def attrs(out):
            return [line.split() for line in out.splitlines() if line.startswith("attr ")]

        expected = []
        for words in attrs(base.stdout):
            if words[1] in ("MPI_HOST", "MPI_IO") and words[2] == "1" and \
                    0 <= int(words[3]) < self.ranks:
                words = words[:3] + [str(self.order[int(words[3])])]
            expected.append(words)
        self.assertEqual(len(expected), 7, describe(base))
        self.assertEqual(["attr", "MPI_TAG_UB", "1"], expected[0][:3])
        self.assertEqual(attrs(placed.stdout), expected, describe(placed))

    def test_abort(self):
        """MPI_Abort(MPI_COMM_WORLD) by application rank 1 ends every process with its code."""
        r = run_job(self.ranks, place_conf("order.txt"),
                    [CONFIG["place_app"], self.order_arg(), "abort"], self.dir)
        self.assertEqual(r.returncode, 7, describe(r))
        self.assertIn("rank: ok", r.stdout)
        # mpirun names the process it launched: the launch slot of application rank 1.
        # (MPICH's own line comes from the aborting rank, and Hydra may end the job before
        # passing it on.)
        # Open MPI 4.1's launcher sometimes loses its own help message ("ORTE_ERROR_LOG: Data
        # unpack had inadequate space ... show_help.c"): the rank is checked where it says it.
        said = re.findall(r"MPI_ABORT was invoked on rank (\d+) in communicator MPI_COMM_WORLD",
                          r.stderr)
        if CONFIG["flavor"] == "openmpi" and said:
            self.assertEqual(said, [str(self.slot_of[1])], describe(r))

    def test_fortran(self):
        variants = {k: v for k, v in CONFIG["fortran"].items() if k}
        if not variants:
            self.skipTest("no Fortran compiler")
        ranks = self.ranks
        reverse = list(range(ranks - 1, -1, -1))  # what place_f.F90 expects
        write(os.path.join(self.dir, "reverse.txt"), "%d-0\n" % (ranks - 1))
        items = ["rank", "status_source", "allgather_order", "compare_ident", "compare_dup",
                 "split", "group_rank", "name"]
        for name, program in sorted(variants.items()):
            r = run_job(ranks, place_conf("reverse.txt"), [program], self.dir)
            self.assertEqual(r.returncode, 0, name + "\n" + describe(r))
            self.assertEqual(self.items_of(r.stdout, "F "), ["F %s: ok" % i for i in items],
                             name + "\n" + describe(r))
        self.assertEqual(len(variants), 3)
        self.assertNotEqual(reverse, list(range(ranks)))

    def test_init_thread(self):
        """MPI started by MPI_Init_thread gets the renumbered world too."""
        r = run_job(self.ranks, place_conf("order.txt"), [CONFIG["ring_app"], "thread"],
                    self.dir)
        self.assertEqual(r.returncode, 0, describe(r))
        lines = sorted(tuple(int(w) for w in line.split()[1:])
                       for line in r.stdout.splitlines() if line.startswith("ring "))
        n = self.ranks
        self.assertEqual(lines, [(a, self.slot_of[a], 100 * ((a - 1) % n + 1), (a - 1) % n,
                                  100 + self.slot_of[(a - 1) % n]) for a in range(n)],
                         describe(r))

    # ---- tools below see the physical world, tools above the application's ----------------

    def ring_expectations(self):
        """(application-rank entries, physical entries) [sender, receiver, count, bytes] of
        ring_app's traffic, sorted."""
        n = self.ranks
        app = sorted([r, (r + 1) % n, 1, 100 * (r + 1)] for r in range(n))
        phys = sorted([self.slot_of[r], self.slot_of[(r + 1) % n], 1, 100 * (r + 1)]
                      for r in range(n))
        return app, phys

    def test_monitor(self):
        app, phys = self.ring_expectations()
        for where, conf, expected in (
                ("below", place_conf("order.txt") + "module monitor\nargument output mon\n", phys),
                ("above", "module monitor\nargument output mon\n" + place_conf("order.txt"), app)):
            r = run_job(self.ranks, conf, [CONFIG["ring_app"]], self.dir)
            self.assertEqual(r.returncode, 0, where + "\n" + describe(r))
            with open(os.path.join(self.dir, "mon.json")) as f:
                matrix = json.load(f)
            self.assertEqual(sorted(matrix["categories"]["p2p"]["entries"]), expected, where)
            os.unlink(os.path.join(self.dir, "mon.json"))
        self.assertNotEqual(app, phys)

    def test_trace(self):
        if CONFIG["have_trace"] != "ON":
            self.skipTest("module trace is not built")
        import otf2
        from otf2 import events as ev
        n = self.ranks
        for where in ("above", "below"):
            trace = "module trace\nargument output tr\nargument trace p2p\n"
            conf = trace + place_conf("order.txt") if where == "above" else \
                place_conf("order.txt") + trace
            shutil.rmtree(os.path.join(self.dir, "tr"), ignore_errors=True)
            r = run_job(self.ranks, conf, [CONFIG["ring_app"]], self.dir)
            self.assertEqual(r.returncode, 0, where + "\n" + describe(r))
            sends = set()
            with otf2.reader.open(os.path.join(self.dir, "tr", "traces.otf2")) as reader:
                for location, e in reader.events:
                    if isinstance(e, ev.MpiSend):
                        members = [int(m.group.name.split()[-1])
                                   for m in e.communicator.group.members]
                        rank = int(location.group.name.split()[-1])
                        sends.add((rank, members[e.receiver], e.msg_tag, e.msg_length))
            # ring_app's tag is 100 + the sender's launch slot.
            if where == "above":
                expected = {(r, (r + 1) % n, 100 + self.slot_of[r], 100 * (r + 1))
                            for r in range(n)}
            else:
                expected = {(p, self.slot_of[(self.order[p] + 1) % n], 100 + p,
                             100 * (self.order[p] + 1)) for p in range(n)}
            self.assertEqual(sends, expected, where)

    def test_ompitrace(self):
        if not CONFIG["ompitrace"]:
            self.skipTest("libompitrace.so is Open MPI's tracing tool (Open MPI builds only)")
        r = run_job(self.ranks, "module ompitrace\n" + place_conf("order.txt"),
                    [CONFIG["ring_app"]], self.dir)
        self.assertEqual(r.returncode, 0, describe(r))
        sends = set(re.findall(r"MPI_SEND\[(\d+)\]: .* dest (\d+) tag (\d+)", r.stderr))
        n = self.ranks
        self.assertEqual(sends, {(str(r), str((r + 1) % n), str(100 + self.slot_of[r]))
                                 for r in range(n)}, describe(r))

    def test_debug(self):
        r = run_job(self.ranks, place_conf("order.txt"), [CONFIG["ring_app"]], self.dir,
                    {"PNMPI_DEBUG": "1"})
        self.assertEqual(r.returncode, 0, describe(r))
        moved = sum(1 for p, a in enumerate(self.order) if p != a)
        lines = re.findall(r"pnmpi\[debug\]: module 'place': order order.txt applied: (\d+) "
                           r"ranks, (\d+) renumbered; start-up [0-9.]+ ms", r.stderr)
        self.assertEqual(lines, [(str(self.ranks), str(moved))], describe(r))

    # ---- argument from RUN ---------------------------------------------------------------

    def test_from_run(self):
        """A monitor run mapped onto this job's one host: nothing crosses hosts, so the
        mapping keeps the launch order, and says so with PNMPI_DEBUG=1. (tests/cluster maps
        one onto several hosts.)"""
        r = run_job(self.ranks, "module monitor\nargument output run1\n", [CONFIG["ring_app"]],
                    self.dir)
        self.assertEqual(r.returncode, 0, describe(r))
        r = run_job(self.ranks, "module place\nargument from run1\n", [CONFIG["ring_app"]],
                    self.dir, {"PNMPI_DEBUG": "1"})
        self.assertEqual(r.returncode, 0, describe(r))
        self.assertEqual(re.findall(
            r"pnmpi\[debug\]: module 'place': run run1 mapped onto 1 host\(s\): (\d+) ranks, 0 "
            r"renumbered; bytes crossing hosts: 0 predicted, 0 as launched; [^;]+; start-up "
            r"[0-9.]+ ms \(hosts [0-9.]+ ms, reading and mapping the run [0-9.]+ ms, new world "
            r"[0-9.]+ ms\)", r.stderr),
            [str(self.ranks)], describe(r))
        self.assertEqual(len(re.findall(r"^ring (\d+) \1 ", r.stdout, re.M)), self.ranks,
                         describe(r))

    def test_bad_from(self):
        at = os.path.join(self.dir, "pnmpi.conf") + ":2: module 'place': argument 'from'"
        n = self.ranks
        r = run_job(n - 1, "module monitor\nargument output small\n", [CONFIG["ring_app"]],
                    self.dir)
        self.assertEqual(r.returncode, 0, describe(r))
        self.expect_stop("module place\nargument from small\n", at + ": the run small had %d "
                         "ranks, this job has %d: a placement maps every rank of the run onto a "
                         "launch slot; run the job with %d ranks, or give a run of %d ranks"
                         % (n - 1, n, n - 1, n))
        self.expect_stop("module place\nargument from nothere\n", at + ": nothere: no such "
                         "file, directory or output prefix (looked for nothere.json and "
                         "nothere.<rank>.prof); name a run the monitor wrote (PREFIX, "
                         "PREFIX.json or a directory)")
        self.expect_stop("module place\nargument from foreign.json\n", at + ": foreign.json: "
                         "not the monitor's JSON (format \"x\", expected "
                         "\"pnmpi-monitor-matrices\"); name a run the monitor wrote (PREFIX, "
                         "PREFIX.json or a directory)", {"foreign.json": '{"format": "x"}\n'})

    # ---- bad inputs ----------------------------------------------------------------------

    def expect_stop(self, conf, message, files=None):
        for name, text in (files or {}).items():
            write(os.path.join(self.dir, name), text)
        r = run_job(self.ranks, conf, [CONFIG["ring_app"]], self.dir)
        self.assertNotEqual(r.returncode, 0, describe(r))
        self.assertEqual(r.stdout.count("ring "), 0, describe(r))
        self.assertEqual(r.stderr.count("pnmpi: " + message + "\n"), 1, describe(r))
        return r

    def test_bad_order(self):
        n = self.ranks
        conf = place_conf("bad.txt")
        at = os.path.join(self.dir, "pnmpi.conf") + ":2: module 'place': argument 'order'"
        self.expect_stop(conf, "bad.txt:2: module 'place': rank 0 is listed twice (first on "
                         "line 1): list each rank once", {"bad.txt": "0-%d\n0\n" % (n - 1)})
        self.expect_stop(conf, "bad.txt:1: module 'place': rank %d is out of range: this job has "
                         "%d ranks (0 to %d); the order is for another number of ranks: write "
                         "one for %d ranks, or run the job with as many ranks as the order lists"
                         % (n, n, n - 1, n), {"bad.txt": "0-%d\n" % n})
        self.expect_stop(conf, "bad.txt:3: module 'place': 'two' is not a rank or a range of "
                         "ranks: write ranks as 5 or 0-3, separated by commas",
                         {"bad.txt": "# comment\n0\ntwo\n"})
        self.expect_stop(conf, at + ": bad.txt lists %d of this job's %d ranks (rank 0 is "
                         "missing): list every rank from 0 to %d once, or run the job with as "
                         "many ranks as the order lists" % (n - 1, n, n - 1),
                         {"bad.txt": "1-%d\n" % (n - 1)})
        self.expect_stop(conf, at + ": bad.txt lists no rank: list this job's %d ranks (0 to "
                         "%d) in the order of the launch slots, separated by commas"
                         % (n, n - 1), {"bad.txt": "# empty\n"})
        os.unlink(os.path.join(self.dir, "bad.txt"))
        self.expect_stop(conf, at + ": cannot read bad.txt: No such file or directory")

    def test_bad_arguments(self):
        conf = os.path.join(self.dir, "pnmpi.conf")
        r = run_job(self.ranks, "module place\n", [CONFIG["ring_app"]], self.dir)
        self.assertNotEqual(r.returncode, 0, describe(r))
        self.assertIn("pnmpi: %s:1: module 'place': needs the placement to apply: add 'argument "
                      "order FILE' (ranks in the order of the launch slots, docs/place.md) or "
                      "'argument from RUN' (a monitor run to map onto this job's hosts) below "
                      "this line\n" % conf, r.stderr, describe(r))
        r = run_job(self.ranks, "module place\nargument order order.txt\nargument from run\n",
                    [CONFIG["ring_app"]], self.dir)
        self.assertNotEqual(r.returncode, 0, describe(r))
        self.assertIn("pnmpi: %s:3: module 'place': argument 'from': cannot be given with "
                      "'argument order': the module applies one placement; remove one of the "
                      "two\n" % conf, r.stderr, describe(r))

    def test_untrusted(self):
        """An order file another user can change is refused, as a configuration would be."""
        write(os.path.join(self.dir, "open.txt"), order_text(self.order), 0o666)
        at = os.path.join(self.dir, "pnmpi.conf") + ":2: module 'place': argument 'order'"
        self.expect_stop(place_conf("open.txt"), at + ": open.txt: not trusted: it is writable "
                         "by its group and others (mode 0666), so they decide what pnmpi loads; run 'chmod "
                         "go-w open.txt', or set PNMPI_ALLOW_UNSAFE=1 to accept it")


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        CONFIG.update(json.load(f))
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:], verbosity=2)
