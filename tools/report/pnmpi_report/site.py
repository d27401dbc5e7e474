# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""`pnmpi-report site LOGDIR`: every job record of a site's record directory (docs/site.md)
in one table, an HTML page, CSV and JSON.

The records are indexed in SQLite (Python's standard library): a daily run reads only the
records it has not seen. A day directory whose modification time has not changed since the
last run is not even listed again, so a run costs the number of new records, not of all.
"""

import csv
import datetime
import fnmatch
import html
import io
import json
import multiprocessing
import os
import re
import sqlite3
import time

import numpy as np

from . import mapping
from . import parts as parts_module
from . import record as record_module
from .model import Sparse, TotalTooLarge
from .errors import ReportError
from .model import human_bytes
from .output import write_atomic

HELP = ("the site's job records (LOGDIR/YYYY/M/D): jobs, core-hours, time in MPI, bytes "
        "between nodes, the jobs placement would help most; an SQLite index makes it "
        "incremental")

SCHEMA_VERSION = "1"
_YEAR, _NUMBER = re.compile(r"[0-9]{4}\Z"), re.compile(r"[0-9]{1,2}\Z")

COLUMNS = ["path", "job_id", "user", "executable", "app", "start", "end", "ranks", "hosts",
           "ended", "unfinished_ranks", "core_hours", "wall_s", "mpi_s", "mpi_percent",
           "p2p_bytes", "internode_bytes", "internode_share", "collective_bytes",
           "placement_bound_core_hours"]


def add_arguments(parser):
    parser.add_argument("logdir", metavar="LOGDIR",
                        help="the record directory (`records LOGDIR` of the site configuration)")
    parser.add_argument("--since", metavar="YYYY-MM-DD",
                        help="only jobs that started on this day (UTC) or later")
    parser.add_argument("--user", action="append", metavar="USER",
                        help="only this user's jobs (repeat for several)")
    parser.add_argument("--app", action="append", metavar="NAME",
                        help="only jobs of this executable: its file name or a glob on it, "
                             "as in 'lmp*' (repeat for several)")
    parser.add_argument("--index", metavar="FILE",
                        help="the SQLite index (default LOGDIR/pnmpi-index.sqlite)")
    parser.add_argument("--top", type=int, default=20, metavar="K",
                        help="jobs listed as placement candidates (default 20)")
    parser.add_argument("--html", metavar="FILE", help="write the HTML page here")
    parser.add_argument("--csv", metavar="FILE", help="write every selected job as CSV here")
    parser.add_argument("--json", metavar="FILE", help="write the totals and jobs as JSON here")
    parser.add_argument("--jobs", type=int, default=2, metavar="N",
                        help="processes reading new records (default 2)")
    parser.add_argument("--merge-after", type=float, default=24.0, metavar="HOURS",
                        help="part files of a job that never finalized become its record "
                             "(marked incomplete) once every rank has marked how it ended, or "
                             "after HOURS without a change (default 24)")


def _since_epoch(text):
    if text is None:
        return None
    try:
        day = datetime.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        raise ReportError("--since takes a day as YYYY-MM-DD, as in 2026-11-01, not '%s'" % text)
    return day.timestamp()


def metrics(rec):
    """The index row of one record (COLUMNS after `path`)."""
    wall = max(0.0, rec.end - rec.start)
    ranks = int(rec.ranks)
    hosts = np.asarray(rec.rank_host)
    p2p = int(np.asarray(rec.p2p_bytes, dtype=np.uint64).sum()) if len(rec.p2p_bytes) else 0
    crossing = 0
    if len(rec.p2p_src):
        src = np.asarray(rec.p2p_src, dtype=np.int64)
        dst = np.asarray(rec.p2p_dst, dtype=np.int64)
        cross = hosts[src] != hosts[dst]
        crossing = int(np.asarray(rec.p2p_bytes, dtype=np.uint64)[cross].sum())
    wall_s = float(np.asarray(rec.wall_s, dtype=np.float64).sum())
    mpi_s = float(np.asarray(rec.mpi_s, dtype=np.float64).sum())
    mpi_fraction = mpi_s / wall_s if wall_s > 0 else 0.0
    share = crossing / p2p if p2p else 0.0
    core_hours = ranks * wall / 3600.0
    unfinished = int((np.asarray(rec.rank_state) != record_module.FINALIZED).sum())
    return (str(rec.job_id), str(rec.user), str(rec.executable),
            os.path.basename(str(rec.executable)), float(rec.start), float(rec.end), ranks,
            len(rec.hosts), str(rec.ended), unfinished, core_hours, wall_s, mpi_s,
            100.0 * mpi_fraction, p2p, crossing, share,
            int(np.asarray(rec.comm_bytes, dtype=np.uint64).sum()) if len(rec.comm_bytes)
            else 0,
            core_hours * mpi_fraction * share)


def _read_one(item):
    path, size, mtime = item
    try:
        return path, size, mtime, None, metrics(record_module.read_record(path))
    except ReportError as e:
        return path, size, mtime, str(e), None
    except MemoryError:
        return path, size, mtime, "%s: too large to read" % path, None


def _open_index(path):
    try:
        db = sqlite3.connect(path, timeout=60)
        db.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)")
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is not None and row[0] != SCHEMA_VERSION:
            raise ReportError("an index of another version (%s, this pnmpi-report writes %s): "
                              "remove it, the next run rebuilds it" % (row[0], SCHEMA_VERSION),
                              path)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        db.execute("CREATE TABLE IF NOT EXISTS dirs(path TEXT PRIMARY KEY, mtime_ns INTEGER, "
                   "parts INTEGER)")
        db.execute("CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, size INTEGER, "
                   "mtime_ns INTEGER, error TEXT)")
        db.execute("CREATE TABLE IF NOT EXISTS jobs(%s, PRIMARY KEY(path))" % ", ".join(
            c + (" TEXT" if c in ("path", "job_id", "user", "executable", "app", "ended")
                 else " REAL") for c in COLUMNS))
        db.execute("CREATE INDEX IF NOT EXISTS jobs_start ON jobs(start)")
        # The site policy's notes for the admin (USER_EXE_idJOB_..._UNIQUE.warnings).
        db.execute("CREATE TABLE IF NOT EXISTS notes(path TEXT PRIMARY KEY, mtime_ns INTEGER, "
                   "text TEXT)")
        db.commit()
        return db
    except sqlite3.DatabaseError as e:
        raise ReportError("cannot use the index: %s (remove it, the next run rebuilds it)" % e,
                          path)


def _day_dirs(logdir, since):
    """(path, mtime_ns) of every LOGDIR/YYYY/M/D, no links followed, from `since` on."""
    since_day = (datetime.datetime.fromtimestamp(since, datetime.timezone.utc).date()
                 if since is not None else None)
    out = []

    def entries(path, pattern):
        try:
            with os.scandir(path) as it:
                return sorted((e.name, e.path) for e in it
                              if pattern.match(e.name) and e.is_dir(follow_symlinks=False))
        except OSError:
            return []

    for y, ypath in entries(logdir, _YEAR):
        for m, mpath in entries(ypath, _NUMBER):
            for d, dpath in entries(mpath, _NUMBER):
                try:
                    day = datetime.date(int(y), int(m), int(d))
                except ValueError:
                    continue
                if since_day is not None and day < since_day:
                    continue
                try:
                    out.append((dpath, os.stat(dpath, follow_symlinks=False).st_mtime_ns))
                except OSError:
                    continue
    return out


def _name_part(text):
    """As the core names records (core/src/site.cpp, name_part)."""
    out = re.sub(r"[^A-Za-z0-9.+-]", "-", text[:64])
    return out if out and out not in (".", "..") else "unknown"


def merge_unfinished(day, merge_after_s, now=None):
    """Turns the part files in `day` of every job that never finalized into its record
    (ended 'incomplete', each rank's end said), once every rank has marked how it ended or
    nothing changed for `merge_after_s`; removes the parts it merged. Returns the records
    written."""
    now = time.time() if now is None else now
    by_job = {}
    for path in parts_module.part_files(day):
        try:
            p = parts_module.Part(path)
        except ReportError:
            continue
        by_job.setdefault(p.job_id, []).append(p)
    written = []
    for job, ps in sorted(by_job.items()):
        marked = all(p.state != record_module.RUNNING for p in ps)
        quiet = now - max(p.mtime_ns for p in ps) / 1e9 >= merge_after_s
        if not (marked or quiet):
            continue
        try:
            rec, meta, arrays = parts_module.merge_parts(day, job)
        except ReportError:
            continue
        start = datetime.datetime.fromtimestamp(rec.start, datetime.timezone.utc)
        name = "%s_%s_id%s_%d-%d-%d-parts.record.npz" % (
            _name_part(rec.user), _name_part(os.path.basename(rec.executable)),
            _name_part(rec.job_id), start.month, start.day,
            start.hour * 3600 + start.minute * 60 + start.second)
        path = os.path.join(day, name)
        if not os.path.lexists(path):
            old = os.umask(0o027)  # the admins' group reads it, as every record
            try:
                record_module.write_record(path, meta, arrays)
            finally:
                os.umask(old)
            written.append(path)
        for p in ps:
            try:
                os.unlink(p.path)
            except OSError:
                pass
    return written


def update_index(logdir, index_path, since=None, jobs=2, merge_after_s=86400.0):
    """Indexes the records not indexed yet; returns (new records, unreadable ones)."""
    if not os.path.isdir(logdir):
        raise ReportError("not a directory (the record directory of `records LOGDIR`)", logdir)
    db = _open_index(index_path)
    # A day directory is listed again when its time changed (a record or part file was
    # added or removed) or when part files of unfinished jobs waited there last time.
    known_dirs = {p: (t, w) for p, t, w in db.execute("SELECT path, mtime_ns, parts FROM dirs")}
    todo, changed, gone = [], [], []
    for dpath, mtime in _day_dirs(logdir, since):
        last = known_dirs.get(dpath)
        if last is not None and last[0] == mtime and not last[1]:
            continue
        if merge_unfinished(dpath, merge_after_s):
            mtime = os.stat(dpath, follow_symlinks=False).st_mtime_ns
        known = {p: (s, t) for p, s, t in db.execute(
            "SELECT path, size, mtime_ns FROM files WHERE path >= ? AND path < ?",
            (dpath + "/", dpath + "0"))}
        seen, parts, notes = set(), False, []
        try:
            with os.scandir(dpath) as it:
                for e in it:
                    if e.name.endswith(".part") and e.name.startswith("pnmpi-"):
                        parts = True
                    if e.name.endswith(".warnings") and not e.name.startswith("."):
                        notes.append(e.path)
                    if not record_module.is_record(e.name) or e.name.startswith("."):
                        continue
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if not e.is_file(follow_symlinks=False):
                        continue
                    seen.add(e.path)
                    if known.get(e.path) != (st.st_size, st.st_mtime_ns):
                        todo.append((e.path, st.st_size, st.st_mtime_ns))
        except OSError:
            continue
        changed.append((dpath, mtime, int(parts)))
        for path in notes:
            try:
                with open(path, "rb") as f:
                    text = f.read(1 << 16).decode("utf-8", "replace")
                mt = os.stat(path).st_mtime_ns
            except OSError:
                continue
            db.execute("INSERT OR REPLACE INTO notes VALUES (?, ?, ?)", (path, mt, text))
        # A record removed by the admin leaves the index.
        gone += [p for p in known if p not in seen]
    bad = 0
    if todo:
        todo.sort()
        if jobs > 1 and len(todo) > 16:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                results = list(pool.imap_unordered(_read_one, todo, chunksize=32))
        else:
            results = [_read_one(t) for t in todo]
        for path, size, mtime, error, row in results:
            db.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)",
                       (path, size, mtime, error))
            db.execute("DELETE FROM jobs WHERE path = ?", (path,))
            if error is None:
                db.execute("INSERT INTO jobs VALUES (%s)" % ", ".join("?" * len(COLUMNS)),
                           (path,) + row)
            else:
                bad += 1
    for path in gone:
        db.execute("DELETE FROM files WHERE path = ?", (path,))
        db.execute("DELETE FROM jobs WHERE path = ?", (path,))
    db.executemany("INSERT OR REPLACE INTO dirs VALUES (?, ?, ?)", changed)
    db.commit()
    db.close()
    return len(todo), bad


def select_jobs(index_path, since=None, users=None, apps=None):
    db = _open_index(index_path)
    sql, params = "SELECT %s FROM jobs WHERE 1" % ", ".join(COLUMNS), []
    if since is not None:
        sql += " AND start >= ?"
        params.append(since)
    if users:
        sql += " AND user IN (%s)" % ", ".join("?" * len(users))
        params += users
    rows = [dict(zip(COLUMNS, r)) for r in db.execute(sql + " ORDER BY start, path", params)]
    unreadable = [r for (r,) in db.execute("SELECT error FROM files WHERE error IS NOT NULL "
                                           "ORDER BY path")]
    notes = [(p, line) for p, text in db.execute("SELECT path, text FROM notes ORDER BY path")
             for line in text.splitlines() if line]
    db.close()
    if apps:
        rows = [r for r in rows if any(fnmatch.fnmatchcase(r["app"], a) for a in apps)]
    return rows, unreadable, notes


def summarize(rows, top):
    core_hours = sum(r["core_hours"] for r in rows)
    wall = sum(r["wall_s"] for r in rows)
    mpi = sum(r["mpi_s"] for r in rows)
    totals = {"jobs": len(rows), "core_hours": core_hours,
              "mpi_percent": 100.0 * mpi / wall if wall > 0 else 0.0,
              "p2p_bytes": sum(int(r["p2p_bytes"]) for r in rows),
              "internode_bytes": sum(int(r["internode_bytes"]) for r in rows),
              "incomplete_jobs": sum(1 for r in rows if r["ended"] != "finalized")}
    apps = {}
    for r in rows:
        a = apps.setdefault(r["app"], {"app": r["app"], "jobs": 0, "core_hours": 0.0,
                                       "wall_s": 0.0, "mpi_s": 0.0, "internode_bytes": 0})
        a["jobs"] += 1
        a["core_hours"] += r["core_hours"]
        a["wall_s"] += r["wall_s"]
        a["mpi_s"] += r["mpi_s"]
        a["internode_bytes"] += int(r["internode_bytes"])
    by_app = sorted(apps.values(), key=lambda a: (-a["core_hours"], a["app"]))
    for a in by_app:
        a["mpi_percent"] = 100.0 * a["mpi_s"] / a["wall_s"] if a["wall_s"] > 0 else 0.0
    # The bound ranks every job at once from the index; the mapping library's prediction, which
    # reads the record again and maps it, is made for the few jobs the bound puts first (the
    # saving never exceeds the bound), and they are listed by the saving it predicts.
    bounded = sorted((r for r in rows if r["placement_bound_core_hours"] > 0),
                     key=lambda r: (-r["placement_bound_core_hours"], r["path"]))
    candidates = [predict_placement(dict(r)) for r in bounded[:4 * top]]
    candidates.sort(key=lambda r: (-r["placement_saving_core_hours"], r["path"]))
    return totals, by_app, candidates[:top]


def predict_placement(row):
    """Adds to an index row what pnmpi's mapping library predicts for the job's record:
    its point-to-point bytes between nodes after placement on the same hosts, and the
    core-hours in MPI that the cut would save at the job's share of bytes between nodes
    (`placement_saving_core_hours`; the bound when no prediction could be made, said in
    `placement_prediction`)."""
    row["placement_internode_bytes"] = None
    row["placement_saving_core_hours"] = row["placement_bound_core_hours"]
    try:
        rec = record_module.read_record(row["path"])
        n = int(rec.ranks)
        hosts = np.asarray(rec.rank_host, dtype=np.int64)
        matrix = Sparse.build(n, rec.p2p_src, rec.p2p_dst,
                              np.asarray(rec.p2p_bytes, dtype=np.int64))
        placed = mapping.place(matrix, hosts)
    except (ReportError, TotalTooLarge) as e:
        row["placement_prediction"] = "none (%s): the bound is used" % e
        return row
    host_of_rank = placed.host_of_rank(hosts)
    after = int(matrix.val[host_of_rank[matrix.src] != host_of_rank[matrix.dst]].sum())
    p2p = int(row["p2p_bytes"])
    saved = max(0, int(row["internode_bytes"]) - after)
    row["placement_internode_bytes"] = after
    row["placement_saving_core_hours"] = (row["core_hours"] * row["mpi_percent"] / 100.0 *
                                          saved / p2p if p2p else 0.0)
    row["placement_prediction"] = placed.method
    return row


def _when(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")


def _table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    out = []
    for row in [header] + rows:
        out.append("  ".join(str(x).rjust(w) if i else str(x).ljust(w)
                             for i, (x, w) in enumerate(zip(row, widths))).rstrip())
    return "\n".join(out) + "\n"


def _candidate_rows(candidates):
    return [[c["job_id"], c["user"], c["app"], _when(c["start"]), int(c["ranks"]),
             int(c["hosts"]), "%.1f" % c["core_hours"], "%.1f" % c["mpi_percent"],
             human_bytes(int(c["internode_bytes"])), "%.0f%%" % (100 * c["internode_share"]),
             "%.2f" % c["placement_bound_core_hours"],
             "-" if c["placement_internode_bytes"] is None else
             human_bytes(int(c["placement_internode_bytes"])),
             "%.2f" % c["placement_saving_core_hours"], c["ended"]] for c in candidates]


CANDIDATE_HEADER = ["job", "user", "app", "start (UTC)", "ranks", "hosts", "core-h", "% MPI",
                    "between nodes", "share", "bound core-h", "after placement",
                    "saving core-h", "ended"]
APP_HEADER = ["app", "jobs", "core-h", "% MPI", "between nodes"]


def render_text(totals, by_app, candidates, unreadable, new, logdir):
    t = ("%s: %d jobs (%d not finalized), %.1f core-hours, %.1f%% of the time in MPI, %s "
         "point-to-point, %s of it between nodes\n"
         % (logdir, totals["jobs"], totals["incomplete_jobs"], totals["core_hours"],
            totals["mpi_percent"], human_bytes(totals["p2p_bytes"]),
            human_bytes(totals["internode_bytes"])))
    t += "index: %d record(s) read this run, %d unreadable in all\n" % (new, len(unreadable))
    t += "\nBy application\n"
    t += _table(APP_HEADER, [[a["app"], a["jobs"], "%.1f" % a["core_hours"],
                              "%.1f" % a["mpi_percent"], human_bytes(a["internode_bytes"])]
                             for a in by_app])
    t += ("\nJobs placement would help most (saving: core-hours in MPI times the share of "
          "point-to-point bytes that the mapping library's placement keeps inside nodes; "
          "bound: the same with every byte between nodes saved)\n")
    t += "".join("note: job %s: placement prediction %s\n" % (c["job_id"],
                                                               c["placement_prediction"])
                 for c in candidates if c["placement_internode_bytes"] is None)
    t += _table(CANDIDATE_HEADER, _candidate_rows(candidates)) if candidates else "none\n"
    return t


def render_html(totals, by_app, candidates, unreadable, logdir, notes=()):
    def table(header, rows):
        h = "<tr>" + "".join("<th>%s</th>" % html.escape(str(x)) for x in header) + "</tr>"
        b = "".join("<tr>" + "".join("<td>%s</td>" % html.escape(str(x)) for x in row) +
                    "</tr>" for row in rows)
        return "<table>%s%s</table>\n" % (h, b)

    page = ["<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>pnmpi: %s</title>"
            "<style>body{font-family:sans-serif}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
            "td:first-child,th:first-child{text-align:left}</style></head><body>\n"
            % html.escape(logdir)]
    page.append("<h1>Jobs in %s</h1>\n" % html.escape(logdir))
    page.append(table(["jobs", "not finalized", "core-hours", "% time in MPI",
                       "point-to-point", "between nodes"],
                      [[totals["jobs"], totals["incomplete_jobs"],
                        "%.1f" % totals["core_hours"], "%.1f" % totals["mpi_percent"],
                        human_bytes(totals["p2p_bytes"]),
                        human_bytes(totals["internode_bytes"])]]))
    page.append("<h2>By application</h2>\n")
    page.append(table(APP_HEADER, [[a["app"], a["jobs"], "%.1f" % a["core_hours"],
                                    "%.1f" % a["mpi_percent"],
                                    human_bytes(a["internode_bytes"])] for a in by_app]))
    page.append("<h2>Jobs placement would help most</h2>\n<p>Saving: the core-hours spent "
                "in MPI times the share of point-to-point bytes that the mapping library's "
                "placement on the same hosts keeps inside nodes (pnmpi-report reorder and "
                "module place compute the same placement). Bound: the same if every byte "
                "between nodes were saved.</p>\n")
    page.append(table(CANDIDATE_HEADER, _candidate_rows(candidates)))
    if unreadable:
        page.append("<h2>Unreadable records</h2>\n<ul>%s</ul>\n" % "".join(
            "<li>%s</li>" % html.escape(u) for u in unreadable))
    if notes:
        page.append("<h2>Site modules disabled in jobs</h2>\n<ul>%s</ul>\n" % "".join(
            "<li>%s: %s</li>" % (html.escape(os.path.basename(p)), html.escape(line))
            for p, line in notes))
    page.append("</body></html>\n")
    return "".join(page)


def render_csv(rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow([r[c] for c in COLUMNS])
    return out.getvalue()


def run(args):
    since = _since_epoch(args.since)
    logdir = os.path.abspath(args.logdir)
    index = args.index or os.path.join(logdir, "pnmpi-index.sqlite")
    new, _ = update_index(logdir, index, since, max(1, args.jobs), args.merge_after * 3600.0)
    rows, unreadable, notes = select_jobs(index, since, args.user, args.app)
    totals, by_app, candidates = summarize(rows, max(0, args.top))
    text = render_text(totals, by_app, candidates, unreadable, new, logdir)
    if notes:
        text += "\nSite modules disabled in jobs (the site policy's notes)\n" + "".join(
            "%s: %s\n" % (os.path.basename(p), line) for p, line in notes)
    print(text, end="")
    if args.html:
        write_atomic(args.html, render_html(totals, by_app, candidates, unreadable, logdir,
                                            notes))
    if args.csv:
        write_atomic(args.csv, render_csv(rows))
    if args.json:
        write_atomic(args.json, json.dumps({"logdir": logdir, "totals": totals, "by_app": by_app,
                                            "placement_candidates": candidates, "jobs": rows,
                                            "unreadable": unreadable,
                                            "site_notes": [{"file": p, "line": line}
                                                           for p, line in notes]}, indent=1,
                                           sort_keys=True) + "\n")
    return 0
