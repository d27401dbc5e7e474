# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Time in MPI from the job record (or the part files of a job that never finalized), for
`summary` and `html`: the job, how it ended, % of wall time in MPI per rank, calls and
time per routine, the slowest ranks. IPM's one-page report is the model."""

import base64
import datetime
import glob
import html
import os

import numpy as np

from . import parts, record
from .model import human_bytes


def load_job(specs):
    """The Record named by RUN, or None when RUN is not a record, a part file or a
    directory holding either (then it is the monitor's)."""
    specs = list(specs)
    if len(specs) > 1 and all(os.path.isdir(s) for s in specs):
        # The node-local parts directories of one multi-node job (docs/record.md).
        return parts.read_job(specs)
    if len(specs) != 1:
        return None
    s = specs[0]
    if os.path.isdir(s):
        here = glob.glob(os.path.join(glob.escape(s), "pnmpi-*.record.npz")) + \
            parts.part_files(s)
        return parts.read_job(s) if here else None
    if record.is_record(s) or s.endswith(".part"):
        return parts.read_job(s)
    return None


def has_monitor_output(specs):
    """Whether RUN (a directory) also holds the monitor's files."""
    s = list(specs)[0]
    if len(list(specs)) > 1 or not os.path.isdir(s):
        return False
    return any(glob.glob(os.path.join(glob.escape(s), "*" + ext))
               for ext in (".json", ".prof", ".mat"))


def _stats(v):
    v = np.asarray(v, dtype=np.float64)
    if not len(v):
        return {"min": 0.0, "median": 0.0, "max": 0.0, "mean": 0.0}
    return {"min": float(v.min()), "median": float(np.median(v)), "max": float(v.max()),
            "mean": float(v.mean())}


def summarize(r, top=10):
    """The numbers of the job's page, as one JSON-able dict."""
    frac = r.mpi_fraction()
    calls, time_s = r.calls.sum(axis=0), r.time_s.astype(np.float64).sum(axis=0)
    nbytes = r.bytes.sum(axis=0)
    mpi_total = float(r.mpi_s.astype(np.float64).sum())
    wall_total = float(r.wall_s.astype(np.float64).sum())
    routines = []
    for k in np.argsort(-time_s, kind="stable"):
        if calls[k] == 0:
            continue
        routines.append({
            "routine": r.routines[k], "calls": int(calls[k]), "time_s": float(time_s[k]),
            "percent_mpi": 100.0 * time_s[k] / mpi_total if mpi_total and
            r.routines[k] not in parts.EXCLUDED else None,
            "percent_wall": 100.0 * time_s[k] / wall_total if wall_total and
            r.routines[k] not in parts.EXCLUDED else None,
            "bytes": int(nbytes[k]), "mean_bytes": float(nbytes[k]) / float(calls[k]),
            "min_call_s": float(r.min_s[k]), "max_call_s": float(r.max_s[k]),
            "imbalance": float(r.time_s[:, k].max() / r.time_s[:, k].mean())
            if r.time_s[:, k].mean() > 0 else None})
    tool = []
    tcalls, ttime = r.tool_calls.sum(axis=0), r.tool_time_s.astype(np.float64).sum(axis=0)
    for k in np.nonzero(tcalls)[0]:
        tool.append({"routine": r.routines[k], "calls": int(tcalls[k]),
                     "time_s": float(ttime[k]), "bytes": int(r.tool_bytes[:, k].sum())})

    def rank_row(k):
        return {"rank": int(k), "host": r.hosts[int(r.rank_host[k])], "wall_s": float(r.wall_s[k]),
                "mpi_s": float(r.mpi_s[k]), "percent_mpi": 100.0 * float(frac[k]),
                "ended": r.rank_end(int(k))}
    k = max(0, top)
    split = {}
    for i in range(len(r.split_rank)):
        key = (int(r.split_routine[i]), int(r.split_comm_size[i]), int(r.split_bin[i]))
        v = split.setdefault(key, [0, 0.0, 0])
        v[0] += int(r.split_calls[i])
        v[1] += float(r.split_time_s[i])
        v[2] += int(r.split_bytes[i])
    split_rows = [{"routine": r.routines[f], "comm_size": c, "bytes_bin": _bin_label(b),
                   "calls": v[0], "time_s": v[1], "bytes": v[2]}
                  for (f, c, b), v in sorted(split.items(), key=lambda kv: -kv[1][1])]
    return {
        "split": split_rows[:max(k, 20)],
        "source": r.path, "job_id": r.job_id, "user": r.user, "executable": r.executable,
        "executable_hash": r.executable_hash, "ranks": r.ranks, "hosts": len(r.hosts),
        "modules": r.modules, "pnmpi_version": r.pnmpi_version, "mpi": r.mpi,
        "start": r.start, "end": r.end, "ended": r.ended, "unfinished": r.unfinished(),
        "notes": list(r.notes),
        "wall_s": _stats(r.wall_s), "mpi_s": _stats(r.mpi_s),
        "percent_mpi": {key: 100.0 * v for key, v in _stats(frac).items()},
        "percent_mpi_job": 100.0 * mpi_total / wall_total if wall_total else 0.0,
        "routines": routines, "tool_routines": tool,
        "slowest_ranks": [rank_row(i) for i in np.argsort(-r.wall_s, kind="stable")[:k]],
        "most_mpi_ranks": [rank_row(i) for i in np.argsort(-frac, kind="stable")[:k]],
        "least_mpi_ranks": [rank_row(i) for i in np.argsort(frac, kind="stable")[:k]],
        "percent_mpi_per_rank": [100.0 * float(x) for x in frac],
    }


def _bin_label(b):
    if b == 0:
        return "0 B"
    return "%s-%s" % (human_bytes(1 << (b - 1)), human_bytes((1 << b) - 1))


SPLIT_HEADER = ["routine", "comm size", "message size", "calls", "time s", "bytes"]


def _split_rows(s):
    return [[x["routine"], x["comm_size"] or "-", x["bytes_bin"], x["calls"],
             "%.6f" % x["time_s"], human_bytes(x["bytes"])] for x in s["split"]]


def _when(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M:%S UTC")


def _ended(s):
    if s["ended"] == "finalized":
        return "finalized"
    return "INCOMPLETE: " + "; ".join(
        "%s: rank%s %s" % (how, "s" if len(ranks) > 1 else "", parts._ranges(ranks))
        for how, ranks in sorted(s["unfinished"].items()))


def _table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    return "".join("  ".join(str(x).rjust(w) if i else str(x).ljust(w)
                             for i, (x, w) in enumerate(zip(row, widths))).rstrip() + "\n"
                   for row in [header] + rows)


def _routine_rows(s):
    return [[x["routine"], x["calls"], "%.6f" % x["time_s"],
             "%.1f" % x["percent_mpi"] if x["percent_mpi"] is not None else "-",
             "%.2f" % x["percent_wall"] if x["percent_wall"] is not None else "-",
             human_bytes(x["bytes"]),
             human_bytes(int(x["mean_bytes"])), "%.3g" % x["min_call_s"],
             "%.3g" % x["max_call_s"],
             "%.2f" % x["imbalance"] if x["imbalance"] is not None else "-"]
            for x in s["routines"]]


ROUTINE_HEADER = ["routine", "calls", "time s", "% MPI", "% wall", "bytes", "mean bytes",
                  "min call s", "max call s", "max/mean"]
RANK_HEADER = ["rank", "host", "wall s", "MPI s", "% MPI", "ended"]


def _rank_rows(rows):
    return [[x["rank"], x["host"], "%.4f" % x["wall_s"], "%.4f" % x["mpi_s"],
             "%.1f" % x["percent_mpi"], x["ended"]] for x in rows]


def render_text(s):
    t = "Job %s: %d ranks on %d host(s), user %s\n" % (s["job_id"], s["ranks"], s["hosts"],
                                                     s["user"])
    t += "executable %s (%s)\n" % (s["executable"], s["executable_hash"] or "no hash")
    t += "started %s, ran %.3f s; modules %s; pnmpi %s; %s\n" % (
        _when(s["start"]), s["end"] - s["start"], ", ".join(s["modules"]) or "-",
        s["pnmpi_version"] or "-", s["mpi"] or "-")
    t += "ended: %s\n" % _ended(s)
    for n in s["notes"]:
        t += "note: %s\n" % n
    t += "\nTime in MPI (from the profile; MPI_Init and MPI_Finalize excluded)\n"
    t += _table(["per rank", "min", "median", "max"],
                [["wall s"] + ["%.4f" % s["wall_s"][k] for k in ("min", "median", "max")],
                 ["MPI s"] + ["%.4f" % s["mpi_s"][k] for k in ("min", "median", "max")],
                 ["% MPI"] + ["%.1f" % s["percent_mpi"][k] for k in ("min", "median", "max")]])
    t += "whole job: %.1f%% of wall time in MPI\n" % s["percent_mpi_job"]
    t += "\nRoutines (application calls, all ranks, by time)\n"
    t += _table(ROUTINE_HEADER, _routine_rows(s)) if s["routines"] else "none\n"
    if s["tool_routines"]:
        t += "\nCalls made by modules above the profile (not in the times above)\n"
        t += _table(["routine", "calls", "time s", "bytes"],
                    [[x["routine"], x["calls"], "%.6f" % x["time_s"], human_bytes(x["bytes"])]
                     for x in s["tool_routines"]])
    if s["split"]:
        t += "\nBy communicator size and message size (argument split on; by time)\n"
        t += _table(SPLIT_HEADER, _split_rows(s))
    t += "\nSlowest ranks (longest wall time)\n"
    t += _table(RANK_HEADER, _rank_rows(s["slowest_ranks"]))
    t += "\nRanks with the most time in MPI\n"
    t += _table(RANK_HEADER, _rank_rows(s["most_mpi_ranks"]))
    return t


def _html_table(header, rows):
    t = "<table><tr>%s</tr>\n" % "".join("<th>%s</th>" % html.escape(str(h)) for h in header)
    for row in rows:
        t += "<tr>%s</tr>\n" % "".join(
            '<td%s>%s</td>' % ("" if i == 0 or h in ("host", "ended") else ' class="n"',
                                html.escape(str(v)))
            for i, (v, h) in enumerate(zip(row, header)))
    return t + "</table>\n"


def render_html(s):
    """The job's sections of the HTML report (a fragment of <body>)."""
    from . import charts
    esc = html.escape
    b = "<h2>Job %s</h2>\n" % esc(s["job_id"])
    b += "<p>%d ranks on %d host(s), user %s; %s (%s); started %s, ran %.3f s; modules %s; " \
         "pnmpi %s; %s.</p>\n" % (
             s["ranks"], s["hosts"], esc(s["user"]), esc(s["executable"]),
             esc(s["executable_hash"] or "no hash"), _when(s["start"]), s["end"] - s["start"],
             esc(", ".join(s["modules"]) or "-"), esc(s["pnmpi_version"] or "-"),
             esc(s["mpi"] or "-"))
    cls = "" if s["ended"] == "finalized" else ' class="note"'
    b += "<p%s>Ended: %s</p>\n" % (cls, esc(_ended(s)))
    for n in s["notes"]:
        b += '<p class="note">%s</p>\n' % esc(n)
    b += "<h2>Time in MPI</h2>\n<p>%.1f%% of the job's wall time is spent in MPI " \
         "(MPI_Init and MPI_Finalize excluded).</p>\n" % s["percent_mpi_job"]
    b += _html_table(["per rank", "min", "median", "max"],
                     [["wall s"] + ["%.4f" % s["wall_s"][k] for k in ("min", "median", "max")],
                      ["MPI s"] + ["%.4f" % s["mpi_s"][k] for k in ("min", "median", "max")],
                      ["% MPI"] + ["%.1f" % s["percent_mpi"][k]
                                   for k in ("min", "median", "max")]])
    b += '<img src="data:image/png;base64,%s" alt="percent of wall time in MPI per rank">\n' % (
        base64.b64encode(charts.per_rank(
            s["percent_mpi_per_rank"], "% of wall time in MPI per rank", "% MPI")).decode())
    b += "<h2>Routines</h2>\n"
    b += _html_table(ROUTINE_HEADER, _routine_rows(s)) if s["routines"] else "<p>none</p>\n"
    if s["tool_routines"]:
        b += "<h3>Calls made by modules above the profile</h3>\n"
        b += _html_table(["routine", "calls", "time s", "bytes"],
                         [[x["routine"], x["calls"], "%.6f" % x["time_s"],
                           human_bytes(x["bytes"])] for x in s["tool_routines"]])
    if s["split"]:
        b += "<h3>By communicator size and message size</h3>\n"
        b += _html_table(SPLIT_HEADER, _split_rows(s))
    b += "<h2>Slowest ranks</h2>\n" + _html_table(RANK_HEADER, _rank_rows(s["slowest_ranks"]))
    b += "<h2>Ranks with the most time in MPI</h2>\n"
    b += _html_table(RANK_HEADER, _rank_rows(s["most_mpi_ranks"]))
    return b
