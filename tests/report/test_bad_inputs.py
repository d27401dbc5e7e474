# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Bad inputs, one table per surface: each row is the files a case writes, the command line
and the exact line pnmpi-report must print on stderr, with exit status 2 and nothing on
stdout. `{d}` stands for the case's scratch directory. The counts per surface are printed
at the end (issue 26 asks for them)."""

import collections
import json
import os
import re
import resource
import subprocess
import sys
import unittest

import common

N = 2


def v2(hosts=("a", "b"), entries=((0, 1, 1, 10), (1, 0, 1, 10)), name="p2p", **extra):
    """A small version 2 monitor JSON."""
    doc = {"format": "pnmpi-monitor-matrices", "version": 2, "world_size": len(hosts),
           "hosts": list(hosts),
           "categories": {name: {"origin": "application", "what": "test",
                                 "entries": [list(e) for e in entries]}}}
    doc.update(extra)
    return json.dumps(doc, indent=1) + "\n"


def v2_raw(entries_text, hosts='["a", "b"]'):
    """A version 2 JSON whose p2p entries are the text given, as written."""
    return ('{"format": "pnmpi-monitor-matrices", "version": 2, "world_size": 2,\n'
            ' "hosts": %s,\n "categories": {"p2p": {"origin": "application", "what": "t",\n'
            ' "entries": %s}}}\n' % (hosts, entries_text))


def in_process(args):
    """(status, stdout, stderr) of pnmpi-report's main() called here: what the command
    prints, without starting Python and numpy for each of the many cases."""
    import contextlib
    import io
    from pnmpi_report import cli
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(args)
    return status, out.getvalue(), err.getvalue()


def run_limited(args, opts):
    """(status, stdout, stderr) of pnmpi-report ARGS; opts: 'fsize' (RLIMIT_FSIZE in bytes,
    a disk that fills: Python ignores SIGXFSZ, so a write fails with EFBIG), 'stdout' (a
    file to write stdout to, such as /dev/full), 'archive' (an OTF2 archive is read)."""
    if not opts.get("fsize") and not opts.get("stdout") and "archive" not in opts:
        return in_process(args)  # OTF2 keeps state between archives: traces run apart

    def limit():
        if opts.get("fsize"):
            resource.setrlimit(resource.RLIMIT_FSIZE, (opts["fsize"], opts["fsize"]))
    env = dict(os.environ)
    env.pop("PNMPI_REPORT_DEBUG", None)
    stdout = open(opts["stdout"], "w") if opts.get("stdout") else subprocess.PIPE
    try:
        p = subprocess.run([common.REPORT] + args, stdout=stdout, stderr=subprocess.PIPE,
                           text=True, env=env, preexec_fn=limit, timeout=600)
    finally:
        if stdout is not subprocess.PIPE:
            stdout.close()
    return p.returncode, p.stdout or "", p.stderr


GOOD = v2()
NL_HOST = "a\nrank 0=evil slot=0"

# surface -> [(case name, {file: text}, [args], expected stderr line without "pnmpi-report: ")]
CASES = collections.OrderedDict()

CASES["names (item 2)"] = [
    ("newline in a recorded host, rankfile", {"r.json": v2(hosts=(NL_HOST, "b"))},
     ["reorder", "{d}/r.json", "--nodes", "2x1", "-o", "{d}/rf"],
     "{d}/r.json: host name 'a\\x0arank 0=evil slot=0' cannot go into a rankfile or machine "
     "file: a host name is letters, digits, '-', '.' and '_' (at most 253)"),
    ("newline in a recorded host, printed rankfile", {"r.json": v2(hosts=(NL_HOST, "b"))},
     ["reorder", "{d}/r.json", "--nodes", "2x1"],
     "{d}/r.json: host name 'a\\x0arank 0=evil slot=0' cannot go into a rankfile or machine "
     "file: a host name is letters, digits, '-', '.' and '_' (at most 253)"),
    ("colon in a recorded host (MPICH's separator)", {"r.json": v2(hosts=("a:4", "b"))},
     ["reorder", "{d}/r.json", "--nodes", "2x1"],
     "{d}/r.json: host name 'a:4' cannot go into a rankfile or machine file: a host name is "
     "letters, digits, '-', '.' and '_' (at most 253)"),
    ("escape sequence in a recorded host", {"r.json": v2(hosts=("a\x1b[2J", "b"))},
     ["reorder", "{d}/r.json", "--nodes", "2x1"],
     "{d}/r.json: host name 'a\\x1b[2J' cannot go into a rankfile or machine file: a host "
     "name is letters, digits, '-', '.' and '_' (at most 253)"),
    ("'=' in a hostfile's host", {"r.json": GOOD, "hf": "a slots=1\nb=c slots=1\n"},
     ["reorder", "{d}/r.json", "--hostfile", "{d}/hf"],
     "{d}/hf:2: host name 'b=c' is not one mpirun takes: a host name is letters, digits, "
     "'-', '.' and '_' (at most 253)"),
    ("control character in a hostfile's host", {"r.json": GOOD, "hf": "a\x07 slots=2\n"},
     ["summary", "{d}/r.json", "--hostfile", "{d}/hf"],
     "{d}/hf:1: host name 'a\\x07' is not one mpirun takes: a host name is letters, digits, "
     "'-', '.' and '_' (at most 253)"),
    ("escape sequence in a file name, error line", {},
     ["summary", "{d}/no\x1b[31mne"],
     "{d}/no\\x1b[31mne: no such file, directory or output prefix (looked for "
     "{d}/no\\x1b[31mne.json and {d}/no\\x1b[31mne.<rank>.prof)"),
]

NAMES_MSG = "a host name is letters, digits, '-', '.' and '_' (at most 253)"


def otf2_archive(d, broken=None, how="cut"):
    """A one-rank OTF2 archive as module trace lays it out, written with the bindings; then
    `broken` (a file of it) cut in half, emptied or removed."""
    import otf2
    with otf2.writer.open(d, "traces", timer_resolution=1000000000) as trace:
        node = trace.definitions.system_tree_node("host0", parent=trace.definitions
                                                  .system_tree_node("machine"))
        group = trace.definitions.location_group("MPI Rank 0", system_tree_parent=node)
        loc = trace.definitions.location("Master thread", group=group)
        region = trace.definitions.region("MPI_Send")
        w = trace.event_writer_from_location(loc)
        w.enter(1000, region)
        w.leave(2000, region)
    if broken:
        path = os.path.join(d, broken)
        if how == "remove":
            os.unlink(path)
        else:
            with open(path, "rb") as f:
                data = f.read()
            with open(path, "wb") as f:
                f.write(data[:len(data) // 2] if how == "cut" else b"")


def deep(n):
    return ('{"format": "pnmpi-monitor-matrices", "x": ' + '{"a": ' * n + "1" + "}" * n +
            "}\n")


OTF2_DAMAGED = ("{d}/traces.otf2: cannot be read as OTF2 (a file of the archive is damaged, "
                "cut or missing): ")
CHUNK = "Invalid or inconsistent record data: This is no chunk header!"
TOO_LARGE = "File too large"

CASES["internal errors (item 5)"] = [
    ("objects nested 100000 deep", {"r.json": deep(100000)}, ["summary", "{d}/r.json"],
     "{d}/r.json: objects or arrays nested too deeply (the monitor's JSON nests 5 levels): "
     "not the monitor's JSON"),
    ("objects nested 2000 deep", {"r.json": deep(2000)}, ["summary", "{d}/r.json"],
     "{d}/r.json: objects or arrays nested too deeply (the monitor's JSON nests 5 levels): "
     "not the monitor's JSON"),
    ("world_size of 5000 digits",
     {"r.json": '{"format": "pnmpi-monitor-matrices", "version": 2, "world_size": %s}'
      % ("9" * 5000)}, ["summary", "{d}/r.json"],
     "{d}/r.json: world_size must be an integer from 1 to 4194304, not "
     "<a number of 5000 digits>"),
    ("version of 5000 digits",
     {"r.json": '{"format": "pnmpi-monitor-matrices", "version": %s}' % ("1" * 5000)},
     ["summary", "{d}/r.json"],
     "{d}/r.json: version <a number of 5000 digits> of the monitor's JSON is not known to "
     "this pnmpi-report (it reads 1 and 2): use the pnmpi-report of the pnmpi that wrote it"),
    ("NaN", {"r.json": '{"format": "pnmpi-monitor-matrices", "version": NaN}'},
     ["summary", "{d}/r.json"],
     "{d}/r.json: NaN is not a number the monitor writes: not the monitor's JSON"),
    ("a cell of 2^64 in the JSON", {"r.json": v2_raw("[[0, 1, 1, 18446744073709551616]]")},
     ["summary", "{d}/r.json"],
     "{d}/r.json:4: a number of 2^63 or more: more bytes or messages than pnmpi-report "
     "counts (at most 9223372036854775807 per cell)"),
    ("a byte count of 2^64 in a .prof",
     {"a.0.prof": "E\t0\t0\t18446744073709551616 bytes\t1 msgs sent\n"},
     ["summary", "{d}/a.0.prof"],
     "{d}/a.0.prof:1: a number of 2^63 or more (18446744073709551616...): more bytes or "
     "messages than pnmpi-report counts"),
    ("a message count of 5000 digits in a .prof",
     {"a.0.prof": "E\t0\t0\t1 bytes\t%s msgs sent\n" % ("7" * 5000)},
     ["summary", "{d}/a.0.prof"],
     "{d}/a.0.prof:1: a number of 2^63 or more (77777777777777777777...): more bytes or "
     "messages than pnmpi-report counts"),
    ("a histogram bin of 2^64 in a .prof",
     {"a.0.prof": "E\t0\t0\t1 bytes\t1 msgs sent\t%s\n"
      % ",".join(["0"] * 65 + ["18446744073709551616"])},
     ["summary", "{d}/a.0.prof"],
     "{d}/a.0.prof:1: a number of 2^63 or more (18446744073709551616...): more bytes or "
     "messages than pnmpi-report counts"),
    ("a rank of 5000 digits in a .prof",
     {"a.0.prof": "E\t0\t%s\t1 bytes\t1 msgs sent\n" % ("1" * 5000)},
     ["summary", "{d}/a.0.prof"],
     "{d}/a.0.prof:1: not a line of a .prof file: 'E\\t0\\t%s'" % ("1" * 76)),
] + [
    ("%s: %s %s" % (cmd, how, broken), otf2_archive, [cmd, "{d}"] + extra, OTF2_DAMAGED + cause,
     {"archive": (broken, how)})
    for cmd, extra in (("timeline", ["-o", "{d}/t.png"]), ("check", []))
    for broken, how, cause in (
        ("traces.def", "cut", CHUNK), ("traces.def", "empty", CHUNK),
        ("traces/0.def", "cut", CHUNK), ("traces/0.evt", "cut", CHUNK),
        ("traces/0.evt", "remove", "File or directory does not exist: POSIX: "
         "'{d}/traces/0.evt'"),
        ("traces.otf2", "cut", "Invalid or inconsistent record data: Could not read record. "
         "Not enough memory left in buffer."))
] + [
    ("full disk: heatmap", {"r.json": GOOD}, ["heatmap", "{d}/r.json", "-o", "{d}/h.png"],
     "{d}/h.png: cannot write: " + TOO_LARGE, {"fsize": 4096}),
    ("full disk: html", {"r.json": GOOD}, ["html", "{d}/r.json", "-o", "{d}/h.html"],
     "{d}/h.html: cannot write: " + TOO_LARGE, {"fsize": 4096}),
    ("full disk: reorder", {"r.json": v2(hosts=["a"] * 40, entries=[(0, 1, 1, 1)])},
     ["reorder", "{d}/r.json", "--nodes", "2x20", "-o", "{d}/rf"],
     "{d}/rf: cannot write: " + TOO_LARGE, {"fsize": 256}),
    ("full disk: timeline", otf2_archive, ["timeline", "{d}", "-o", "{d}/t.png"],
     "{d}/t.png: cannot write: " + TOO_LARGE, {"fsize": 4096, "archive": (None, None)}),
    ("full disk: summary on stdout", {"r.json": GOOD}, ["summary", "{d}/r.json"],
     "standard output: cannot write: No space left on device", {"stdout": "/dev/full"}),
]

BIG = 1 << 61  # four of these add up past 2^62
MAT = "monitoring_pml_msg.mat"
MAT_SIZE = {"monitoring_pml_size.mat": "0 1\n1 0\n"}


def mat(cell):
    return dict(MAT_SIZE, **{MAT: "0 %s\n1 0\n" % cell})


def cell_msg(line, token, kind="a .mat file", name=MAT):
    return ("{d}/%s:%d: '%s' is not a cell of %s: cells are whole numbers of 0 or more "
            "(decimal digits only)" % (name, line, token, kind))


def overflow(what):
    return ("the %s of all categories add up to 9.223e+18, more than 2^62: pnmpi-report "
            "counts exactly below that only (files of different runs added, or not the "
            "monitor's numbers?)" % what)


def top_msg(v):
    return "--top must be a whole number from 0 to 1000000000, not %d" % v


CASES["wrong numbers (item 6)"] = [
    ("bytes adding up past 2^62 (JSON)",
     {"r.json": v2(entries=[(0, 0, 1, BIG), (0, 1, 1, BIG), (1, 0, 1, BIG), (1, 1, 1, BIG)])},
     ["summary", "{d}/r.json"],
     "{d}/r.json: numbers that add up to 9.223e+18, more than 2^62: pnmpi-report counts "
     "exactly below that only (files of different runs added, or not the monitor's "
     "numbers?)"),
    ("messages adding up past 2^62 over categories (JSON)",
     {"r.json": json.dumps({"format": "pnmpi-monitor-matrices", "version": 2,
                            "world_size": 1, "hosts": ["a"], "categories": {
                                c: {"origin": "application", "what": "t",
                                    "entries": [[0, 0, BIG, 1]]}
                                for c in ("p2p", "coll", "osc_sent", "osc_fetched")}})},
     ["heatmap", "{d}/r.json", "-o", "{d}/h.png"], "{d}/r.json: " + overflow("messages")),
    ("bytes adding up past 2^62 (.prof)",
     {"a.0.prof": "E\t0\t0\t%d bytes\t1 msgs sent\nC\t0\t0\t%d bytes\t1 msgs sent\n"
      "S\t0\t0\t%d bytes\t1 msgs sent\nR\t0\t0\t%d bytes\t1 msgs sent\n"
      % (BIG, BIG, BIG, BIG)}, ["summary", "{d}/a.0.prof"], "{d}/a.0.prof: " + overflow("bytes")),
    ("the same pair four times in a .prof",
     {"a.0.prof": "E\t0\t0\t%d bytes\t1 msgs sent\n" % BIG * 4},
     ["reorder", "{d}/a.0.prof", "--nodes", "1x1"],
     "{d}/a.0.prof: numbers that add up to 9.223e+18, more than 2^62: pnmpi-report counts "
     "exactly below that only (files of different runs added, or not the monitor's "
     "numbers?)"),
    ("histograms adding up past 2^62 (.prof)",
     {"a.0.prof": "E\t0\t0\t1 bytes\t1 msgs sent\t%s\n"
      % ",".join(["0"] * 62 + [str(BIG)] * 4)}, ["summary", "{d}/a.0.prof"],
     "{d}/a.0.prof: the messages in the histograms of application of all categories add up to "
     "9.223e+18, more than 2^62: pnmpi-report counts exactly below that only (files of "
     "different runs added, or not the monitor's numbers?)"),
    ("bytes adding up past 2^62 (.mat)",
     dict(MAT_SIZE, **{MAT: "%d %d\n%d %d\n" % (BIG, BIG, BIG, BIG)}),
     ["summary", "{d}/" + MAT], "{d}/" + MAT + ": " + overflow("messages")),
    ("negative cell in a .mat", mat("-3"), ["summary", "{d}/" + MAT], cell_msg(1, "-3")),
    ("hex cell in a .mat", mat("0x10"), ["summary", "{d}/" + MAT], cell_msg(1, "0x10")),
    ("fractional cell in a .mat", mat("1.5"), ["summary", "{d}/" + MAT], cell_msg(1, "1.5")),
    ("exponent in a .mat", mat("1e3"), ["summary", "{d}/" + MAT], cell_msg(1, "1e3")),
    ("plus sign in a .mat", mat("+3"), ["summary", "{d}/" + MAT], cell_msg(1, "+3")),
    ("tab between cells of a .mat", dict(MAT_SIZE, **{MAT: "0 1\n1\t0\n"}),
     ["summary", "{d}/" + MAT], cell_msg(2, "1\\t0")),
    ("a cell of 2^63 in a .mat", mat("9223372036854775808"), ["summary", "{d}/" + MAT],
     "{d}/%s:1: a number of 2^63 or more: more bytes or messages than pnmpi-report counts"
     % MAT),
    ("negative cell in an MPI_M_rootflush file",
     {"s_counts.0.prof": "0 -1\n1 0\n", "s_sizes.0.prof": "0 1\n1 0\n"},
     ["summary", "{d}/s_counts.0.prof"],
     cell_msg(1, "-1", "an MPI_M_rootflush file", "s_counts.0.prof")),
    ("fractional cell in an MPI_M_rootflush file",
     {"s_counts.0.prof": "0 1\n1 0\n", "s_sizes.0.prof": "0 2.5\n1 0\n"},
     ["summary", "{d}/s_counts.0.prof"],
     cell_msg(1, "2.5", "an MPI_M_rootflush file", "s_sizes.0.prof")),
    ("leading zero in JSON entries", {"r.json": v2_raw("[[0, 1, 1, 010]]")},
     ["summary", "{d}/r.json"], "{d}/r.json:4: Expecting ',' delimiter (column 25): not "
     "valid JSON"),
    ("leading zeros in a JSON row", {"r.json": v2_raw("[[0, 1, 1, 10], [1, 0, 00, 5]]")},
     ["summary", "{d}/r.json"], "{d}/r.json:4: Expecting ',' delimiter (column 37): not "
     "valid JSON"),
    ("two numbers without a comma in JSON", {"r.json": v2_raw("[[0, 1, 1 2, 10]]")},
     ["summary", "{d}/r.json"], "{d}/r.json:4: Expecting ',' delimiter (column 23): not "
     "valid JSON"),
    ("version true", {"r.json": GOOD.replace('"version": 2', '"version": true')},
     ["summary", "{d}/r.json"],
     "{d}/r.json: version True of the monitor's JSON is not known to this pnmpi-report (it "
     "reads 1 and 2): use the pnmpi-report of the pnmpi that wrote it"),
    ("summary --top -1", {"r.json": GOOD}, ["summary", "{d}/r.json", "--top", "-1"],
     top_msg(-1)),
    ("html --top -1", {"r.json": GOOD}, ["html", "{d}/r.json", "-o", "{d}/h.html", "--top",
                                          "-1"], top_msg(-1)),
    ("diff --top -5", {"r.json": GOOD}, ["diff", "{d}/r.json", "{d}/r.json", "--top", "-5"],
     top_msg(-5)),
    ("summary --top 10^10", {"r.json": GOOD}, ["summary", "{d}/r.json", "--top",
                                                "10000000000"], top_msg(10 ** 10)),
]

NODES_MSG = ("--nodes NxC: N must be 1 to 262144 nodes and C 1 to 4194304 slots, not '%s'")
NESTED = ("{d}/r.json: objects or arrays nested too deeply (the monitor's JSON nests 5 "
          "levels): not the monitor's JSON")
KB200 = 200 * 1024


def brackets(body):
    return '{"format": "pnmpi-monitor-matrices", "version": 2, "x": %s}\n' % body


CASES["sizes and options (item 7)"] = [
    ("--nodes 99999999999x99999999999", {"r.json": GOOD},
     ["summary", "{d}/r.json", "--nodes", "99999999999x99999999999"],
     NODES_MSG % "99999999999x99999999999"),
    ("--nodes with 5000 digits", {"r.json": GOOD},
     ["heatmap", "{d}/r.json", "-o", "{d}/h.png", "--nodes", "9" * 5000 + "x1"],
     # A word over 200 bytes is cut in the middle, as the core's messages do (item 11).
     "--nodes must be NxC with positive N and C, such as 4x8, not '%s...(5004 bytes)...%sx1'"
     % ("9" * 90, "9" * 88)),
    ("--nodes 300000x1", {"r.json": GOOD},
     ["html", "{d}/r.json", "-o", "{d}/h.html", "--nodes", "300000x1"],
     NODES_MSG % "300000x1"),
    ("--nodes 0x4", {"r.json": GOOD}, ["reorder", "{d}/r.json", "--nodes", "0x4"],
     NODES_MSG % "0x4"),
    ("--nodes 2x8x2", {"r.json": GOOD}, ["reorder", "{d}/r.json", "--nodes", "2x8x2"],
     "--nodes must be NxC with positive N and C, such as 4x8, not '2x8x2'"),
    ("--nodes in full-width digits", {"r.json": GOOD},
     ["summary", "{d}/r.json", "--nodes", "\uff12x\uff18"],
     "--nodes must be NxC with positive N and C, such as 4x8, not '\uff12x\uff18'"),
    ("--nodes checked before the input is read", {},
     ["summary", "{d}/missing.json", "--nodes", "1x99999999"], NODES_MSG % "1x99999999"),
    ("hostfile slots=99999999999999", {"r.json": GOOD, "hf": "a slots=99999999999999\n"},
     ["reorder", "{d}/r.json", "--hostfile", "{d}/hf"],
     "{d}/hf:1: 99999999999999 slots on one host: at most 4194304"),
    ("hostfile host:99999999999999", {"r.json": GOOD, "hf": "a:99999999999999\n"},
     ["summary", "{d}/r.json", "--hostfile", "{d}/hf"],
     "{d}/hf:1: 99999999999999 slots on one host: at most 4194304"),
    ("hostfile slots=superscript two", {"r.json": GOOD, "hf": "a slots=\u00b2\n"},
     ["summary", "{d}/r.json", "--hostfile", "{d}/hf"],
     "{d}/hf:1: slots must be a whole number, not '\u00b2'"),
    ("heatmap --size 99999999999x100", {"r.json": GOOD},
     ["heatmap", "{d}/r.json", "-o", "{d}/h.png", "--size", "99999999999x100"],
     "--size: each side must be 100 to 10000 pixels, not '99999999999x100'"),
    ("heatmap --max-cells 10^12, before the input is read", {},
     ["heatmap", "{d}/missing.json", "-o", "{d}/h.png", "--max-cells", "1000000000000"],
     "--max-cells must be 2 to 4096, not 1000000000000"),
    ("html --max-cells 1", {"r.json": GOOD},
     ["html", "{d}/r.json", "-o", "{d}/h.html", "--max-cells", "1"],
     "--max-cells must be 2 to 4096, not 1"),
    ("check --factor nan", otf2_archive, ["check", "{d}", "--factor", "nan"],
     "--factor must be a number more than 1, not nan", {"archive": (None, None)}),
    ("check --factor inf", otf2_archive, ["check", "{d}", "--factor", "inf"],
     "--factor must be a number more than 1, not inf", {"archive": (None, None)}),
    ("check --min-excess -1", otf2_archive, ["check", "{d}", "--min-excess", "-1"],
     "--min-excess must be a number of seconds, 0 or more, not -1", {"archive": (None, None)}),
    ("200 KB of opening brackets", {"r.json": brackets("[" * KB200)},
     ["summary", "{d}/r.json"], NESTED),
    ("200 KB of nested one-element arrays",
     {"r.json": brackets("[1," * (KB200 // 3) + "1" + "]" * (KB200 // 3))},
     ["summary", "{d}/r.json"], NESTED),
    ("200 KB of unclosed rows", {"r.json": brackets("[[1]," * (KB200 // 5))},
     ["summary", "{d}/r.json"], NESTED),
    ("200 KB of brackets closing first", {"r.json": brackets("]" * KB200)},
     ["summary", "{d}/r.json"], "{d}/r.json:1: Expecting value (column 57): not valid JSON"),
    ("200 KB of three-deep arrays as entries",
     {"r.json": v2_raw("[" + ",".join(["[[0, 1, 1, 1]]"] * (KB200 // 16)) + "]")},
     ["summary", "{d}/r.json"],
     "{d}/r.json: category 'p2p': entries must be a list of [sender, receiver, count, bytes]"),
]

EMPTY_PROF = ("empty file: every .prof file has at least a header line (the monitor's, Open "
              "MPI's and MPI_M_flush's): was the run killed while writing it?")
FLUSH_HEADER = "# MPI_M_flush: session rank %d of 2\n"

CASES["empty per-rank files (item 8)"] = [
    ("the one .prof file given is empty", {"a.0.prof": ""}, ["summary", "{d}/a.0.prof"],
     "{d}/a.0.prof: " + EMPTY_PROF),
    ("rank 1's .prof file of two is empty",
     {"a.0.prof": FLUSH_HEADER % 0 + "E\t0\t1\t8 bytes\t1 msgs sent\n", "a.1.prof": ""},
     ["heatmap", "{d}/a", "-o", "{d}/h.png"], "{d}/a.1.prof: " + EMPTY_PROF),
    ("an empty .prof file in a directory", {"a.0.prof": FLUSH_HEADER % 0, "a.1.prof": ""},
     ["html", "{d}", "-o", "{d}/h.html"], "{d}/a.1.prof: " + EMPTY_PROF),
]

ARCHIVE = {"archive": (None, None)}
CASES["timeline window and ranks (item 15)"] = [
    ("--from -1", otf2_archive, ["timeline", "{d}", "-o", "{d}/t.png", "--from", "-1"],
     "--from must be a time in seconds, 0 or more, not -1", ARCHIVE),
    ("--to nan", otf2_archive, ["timeline", "{d}", "-o", "{d}/t.png", "--to", "nan"],
     "--to must be a time in seconds, 0 or more, not nan", ARCHIVE),
    ("--from after --to", otf2_archive,
     ["timeline", "{d}", "-o", "{d}/t.png", "--from", "2", "--to", "1"],
     "--from (2 s) must be before --to (1 s)", ARCHIVE),
    ("--from past the end", otf2_archive, ["timeline", "{d}", "-o", "{d}/t.png", "--from", "5"],
     "{d}: --from 5 s is past the end of the trace (0.000001 s)", ARCHIVE),
    ("--ranks of another trace", otf2_archive,
     ["timeline", "{d}", "-o", "{d}/t.png", "--ranks", "0-3"],
     "--ranks: rank 3 is not in the trace (ranks 0 to 0)", ARCHIVE),
    ("--ranks not a list", otf2_archive,
     ["timeline", "{d}", "-o", "{d}/t.png", "--ranks", "0-x"],
     "--ranks must be ranks and ranges such as 0-3,8, not '0-x'", ARCHIVE),
    ("--ranks backwards", otf2_archive,
     ["timeline", "{d}", "-o", "{d}/t.png", "--ranks", "3-1"],
     "--ranks: the range 3-1 runs backwards", ARCHIVE),
    ("--ranks of 10^11 ranks", otf2_archive,
     ["timeline", "{d}", "-o", "{d}/t.png", "--ranks", "0-99999999999"],
     "--ranks must be ranks and ranges such as 0-3,8, not '0-99999999999'", ARCHIVE),
]


class BadInputs(common.Case):
    counts = collections.Counter()

    def run_case(self, surface, name, files, args, expected, opts=None):
        opts = opts or {}
        d = os.path.join(self.dir, "%s-%s" % (surface.split()[0], name))
        d = re.sub(r"[^A-Za-z0-9_./-]", "_", d)
        os.makedirs(d, exist_ok=True)
        if callable(files):
            files(d, *opts["archive"])
            files = {}
        for fname, text in files.items():
            with open(os.path.join(d, fname), "wb") as f:
                f.write(text.encode("utf-8", "surrogateescape") if isinstance(text, str)
                        else text)
        rc, out, err = run_limited([a.replace("{d}", d) for a in args], opts)
        self.assertEqual((rc, err), (2, "pnmpi-report: " + expected.replace("{d}", d) + "\n"),
                         "%s: %s\nstdout: %s" % (surface, name, out))
        self.assertEqual(out, "", "%s: %s" % (surface, name))
        BadInputs.counts[surface] += 1

    def test_table(self):
        for surface, cases in CASES.items():
            for case in cases:
                with self.subTest(surface=surface, case=case[0]):
                    self.run_case(surface, *case)

    @classmethod
    def tearDownClass(cls):
        total = sum(cls.counts.values())
        sys.stderr.write("bad inputs tested: %d\n" % total)
        for surface, n in cls.counts.items():
            sys.stderr.write("  %-28s %d\n" % (surface, n))


class Names(common.Case):
    """Names reach the terminal escaped and the files mpirun reads validated."""

    def test_summary_escapes_names(self):
        path = self.path("r.json")
        common_text = v2(hosts=("a\x1b]0;x\x07", "b\nforged  1  2  3  4"), name="p\x1b[1m2p")
        with open(path, "w") as f:
            f.write(common_text)
        out, _ = self.ok("summary", path)
        self.assertNotIn("\x1b", out)
        self.assertNotIn("\x07", out)
        self.assertIn("a\\x1b]0;x\\x07  ", out)
        self.assertIn("b\\x0aforged  1  2  3  4  ", out)
        self.assertIn("p\\x1b[1m2p", out)
        self.assertNotIn("\nforged", out)

    def test_diff_escapes_names(self):
        path = self.path("r.json")
        with open(path, "w") as f:
            f.write(v2(name="x\x1b[2Jy"))
        out, _ = self.ok("diff", path, path)
        self.assertNotIn("\x1b", out)
        self.assertIn("x\\x1b[2Jy", out)

    def test_reorder_keeps_valid_names(self):
        path = self.path("r.json")
        with open(path, "w") as f:
            f.write(v2(hosts=("node-1.example_a", "n2")))
        self.ok("reorder", path, "--nodes", "2x1", "-o", self.path("rf"))
        with open(self.path("rf")) as f:
            self.assertEqual(f.read(), "rank 0=node-1.example_a slot=0\nrank 1=n2 slot=0\n")
        with open(self.path("rf.mpich")) as f:
            self.assertEqual(f.read(), "node-1.example_a:1\nn2:1\n")


class LongNames(common.Case):
    """A path of thousands of characters is shown by its start and its end (issue 26 item
    11), as the core's messages show it; cutting never splits a character."""

    def test_a_long_path_is_cut_in_the_middle(self):
        long = self.path("d" * 200 + "/" + "\u00e9" * 1800 + "/r.json")
        status, _, err = common.run("summary", long)
        self.assertEqual(status, 2, err)
        line = err.strip()
        self.assertTrue(line.startswith("pnmpi-report: " + long[:60]), line)
        # The word cut is the path and the colon after it.
        self.assertIn("...(%d bytes)..." % (len(long.encode()) + 1), line)
        self.assertIn("\u00e9" * 10 + "/r.json: no such file", line)
        self.assertLess(len(line.encode()), 1000, line)

    def test_shortening_twice_changes_nothing(self):
        from pnmpi_report import text
        for word in ("x" * 5000, "\u00e9" * 3000, "a" * 201, "b" * 200):
            once = text.shown(word)
            self.assertLessEqual(len(once.encode()), text.SHOWN_LENGTH)
            self.assertEqual(text.shown(once), once)
            once.encode("utf-8")  # whole characters only


class TopZero(common.Case):
    def test_top_zero_lists_none_and_says_so(self):
        path = self.path("r.json")
        with open(path, "w") as f:
            f.write(GOOD)
        out, _ = self.ok("summary", path, "--top", "0")
        self.assertIn("Top talkers (application bytes, all categories)\nnone listed "
                      "(--top 0)\n", out)
        out, _ = self.ok("summary", path, "--top", "1")
        self.assertIn("from  to  bytes  rounded  messages\n0      1     10     10 B         1\n"
                      "\nNodes", out)
        other = self.path("o.json")
        with open(other, "w") as f:
            f.write(v2(entries=[(0, 1, 1, 11)]))
        out, _ = self.ok("diff", path, other, "--top", "0")
        self.assertIn("that changed most: 2 pairs changed\nnone listed (--top 0)\n", out)
        self.ok("html", path, "-o", self.path("h.html"), "--top", "0")
        with open(self.path("h.html")) as f:
            self.assertIn("<p>None listed (--top 0).</p>", f.read())


class LinearParsing(common.Case):
    """The JSON pre-parser looks at each byte a bounded number of times, whatever the
    brackets: measured as the bytes it hands to its array parser (no clock involved)."""

    SHAPES = {
        "nested": lambda k: "[1," * k + "1" + "]" * k,
        "unclosed": lambda k: "[" * (3 * k),
        "unclosed rows": lambda k: "[[1]," * k,
        "three deep": lambda k: "[" + ",".join(["[[1]]"] * k) + "]",
        "rows then garbage": lambda k: "[" + ",".join(["[1,2]"] * k) + ",x]",
    }

    def measure(self, text):
        from pnmpi_report.errors import ReportError
        from pnmpi_report.readers import monitor_json
        seen = []
        original = monitor_json._parse_int_array

        def counting(seg):
            seen.append(len(seg))
            return original(seg)
        monitor_json._parse_int_array = counting
        try:
            path = self.path("r.json")
            with open(path, "w") as f:
                f.write(brackets(text))
            with self.assertRaises(ReportError):
                monitor_json.read(path)
        finally:
            monitor_json._parse_int_array = original
        return sum(seen), len(text)

    def test_bytes_parsed_stay_within_the_file_size(self):
        for shape, make in self.SHAPES.items():
            for k in (2000, 8000):
                with self.subTest(shape=shape, k=k):
                    parsed, size = self.measure(make(k))
                    self.assertLessEqual(parsed, 2 * size, "%s: %d bytes parsed for a %d-byte "
                                         "array" % (shape, parsed, size))


class FlushFiles(common.Case):
    def test_a_flush_without_traffic_is_read_as_no_traffic(self):
        # What MPI_M_flush writes for a session with no traffic of the kinds asked for.
        for r in range(2):
            with open(self.path("quiet.%d.prof" % r), "w") as f:
                f.write(FLUSH_HEADER % r)
        out, _ = self.ok("summary", self.path("quiet"))
        self.assertIn("Top talkers (application bytes, all categories)\nnone: no application "
                      "traffic\n", out)
        self.assertIn(", 2 ranks\n", out)


class MathText(common.Case):
    """Names matplotlib would take for TeX ($...$) are drawn as written."""

    NAMES = ("$\\foo$", "$\\bar{$", "a$b", "$x^2$")

    def test_heatmap_draws_names_as_written(self):
        import matplotlib
        from pnmpi_report import heatmap, inputs
        path = self.path("r.json")
        with open(path, "w") as f:
            f.write(v2(hosts=self.NAMES[:2] + ("a", "b"), name=self.NAMES[2],
                       entries=[(0, 1, 1, 10), (2, 3, 1, 10)]))
        run = inputs.load_run([path])
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            svg, _ = heatmap.render(run, "app", "bytes", (600, 500), by_node=True, fmt="svg")
        svg = svg.decode()
        for name in self.NAMES[:3]:
            self.assertIn(">%s<" % name, svg.replace(">bytes of ", ">").replace(", 4 ranks", "<"))
        self.assertNotIn("mathdefault", svg)
        for cmd in (["heatmap", path, "-o", self.path("h.png"), "--by-node"],
                    ["html", path, "-o", self.path("h.html")]):
            self.ok(*cmd)

    def test_timeline_of_a_directory_named_like_tex(self):
        d = self.path("$\\foo{$")
        os.makedirs(d)
        otf2_archive(d)
        out, _ = self.ok("timeline", d, "-o", self.path("t.png"))
        self.assertEqual(out, "%s: 1 ranks, 1 calls, 0 messages, 0.000001 s\n"
                         % self.path("t.png"))


if __name__ == "__main__":
    unittest.main(verbosity=1)
