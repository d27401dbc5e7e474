# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""RUN on the command line -> a Run: which files, which reader.

RUN is the monitor's JSON; or per-rank .prof files (the monitor's, Open MPI's, MPI_M_flush
files); or ompi_monitoring_prof's .mat files; or MPI_M_rootflush's _counts/_sizes files;
or a directory holding one of these; or the prefix the files were written under."""

import glob
import os

from .errors import ReportError
from .model import TotalTooLarge, check_totals, progress
from .readers import mat, monitor_json, prof, rootflush


def add_run_argument(parser, name="run", help_extra=""):
    parser.add_argument(name, nargs="+", metavar="RUN",
                        help="the monitor's PREFIX.json, per-rank .prof files, .mat files, "
                             "a directory or the output prefix; or several directories "
                             "holding the part files of one job (one per node)" + help_extra)


def load_run(specs):
    specs = list(specs)
    try:
        run = _load(specs)
    except TotalTooLarge as e:
        raise ReportError(str(e), " ".join(specs))
    check_totals(run)
    return run


def _load(specs):
    if len(specs) == 1:
        return _load_one(specs[0])
    if all(os.path.isdir(s) for s in specs):
        # The node-local parts directories of one multi-node job (docs/record.md).
        from . import parts
        from .readers import job_record
        return job_record.read(parts.read_job(specs))
    for s in specs:
        if not os.path.isfile(s):
            raise ReportError("no such file" if not os.path.exists(s) else
                              "is not a file (a list of files was given)", s)
    if all(mat.is_mat(s) for s in specs):
        return mat.read(specs, " ".join(specs))
    if all(rootflush.is_rootflush(s) for s in specs):
        return rootflush.read(specs, " ".join(specs))
    if all(prof.rank_of(s) for s in specs):
        return prof.read(specs, " ".join(specs))
    if any(s.endswith(".json") for s in specs):
        raise ReportError("one JSON file describes a whole run: give it alone", specs[0])
    bad = [s for s in specs if not (mat.is_mat(s) or prof.rank_of(s))]
    raise ReportError("cannot tell the format: give .prof files of one run, or .mat files, "
                      "or one JSON file", bad[0] if bad else specs[0])


def _load_one(s):
    if os.path.isdir(s):
        return _load_dir(s)
    if os.path.isfile(s) and (s.endswith(".record.npz") or s.endswith(".part")):
        from . import parts
        from .readers import job_record
        return job_record.read(parts.read_job(s))
    if os.path.isfile(s):
        if mat.is_mat(s):
            return mat.read(_mat_siblings(s), s)
        if rootflush.is_rootflush(s):
            m = rootflush.NAME.match(s)
            return rootflush.read(sorted(glob.glob(glob.escape(m.group("name")) +
                                                   "_*." + m.group("rank") + ".prof")), s)
        pr = prof.rank_of(s)
        if pr is not None:
            return prof.read(_prof_files(pr[0]), s)
        run = monitor_json.read(s)
        if s.endswith(".json"):
            _attach_histograms(run, s[:-len(".json")])
        return run
    if os.path.exists(s):
        raise ReportError("not a regular file or directory", s)
    # A prefix: what the monitor writes under it.
    if os.path.isfile(s + ".json"):
        run = monitor_json.read(s + ".json")
        _attach_histograms(run, s)
        return run
    files = _prof_files(s)
    if files:
        return prof.read(files, s)
    flushes = sorted(glob.glob(glob.escape(s) + "_counts.*.prof"))
    if flushes:
        return _load_one(flushes[0])
    raise ReportError("no such file, directory or output prefix (looked for %s.json and "
                      "%s.<rank>.prof)" % (s, s), s)


def _prof_files(prefix):
    out = []
    for p in glob.glob(glob.escape(prefix) + ".*.prof"):
        pr = prof.rank_of(p)
        if pr is not None and pr[0] == prefix:
            out.append(p)
    return sorted(out, key=lambda p: prof.rank_of(p)[1])


def _mat_siblings(path):
    d = os.path.dirname(path) or "."
    try:
        return sorted(os.path.join(d, f) for f in os.listdir(d) if mat.is_mat(f))
    except OSError as e:
        raise ReportError("cannot list the directory: %s" % e.strerror, d)


def _attach_histograms(run, prefix):
    """The JSON has no histograms; the same run's .prof files beside it do."""
    files = _prof_files(prefix)
    if not files:
        return
    if len(files) != run.world_size:
        run.notes.append("message-size histograms not read: %d .prof files beside the JSON "
                         "of %d ranks" % (len(files), run.world_size))
        return
    if len(files) > 1024:
        progress("reading the histograms of %d .prof files" % len(files))
    try:
        per_rank = prof.read(files, prefix)
    except ReportError as e:
        run.notes.append("message-size histograms not read: %s" % e)
        return
    p2p = run.categories.get("p2p")
    if p2p is not None and per_rank.categories["p2p"].counts.total() != p2p.counts.total():
        run.notes.append("message-size histograms not read: the .prof files beside the JSON "
                         "are of another run (their point-to-point counts differ)")
        return
    run.histograms = per_rank.histograms


def _load_dir(d):
    try:
        entries = sorted(os.listdir(d))
    except OSError as e:
        raise ReportError("cannot list the directory: %s" % e.strerror, d)
    jsons = [os.path.join(d, f) for f in entries
             if f.endswith(".json") and monitor_json.looks_like_monitor_json(os.path.join(d, f))]
    if len(jsons) == 1:
        return _load_one(jsons[0])
    if len(jsons) > 1:
        raise ReportError("holds %d monitor JSON files (%s): name one" % (
            len(jsons), ", ".join(os.path.basename(j) for j in jsons)), d)
    mats = [os.path.join(d, f) for f in entries if mat.is_mat(f)]
    if mats:
        return mat.read(mats, d)
    prefixes = {}
    for f in entries:
        p = os.path.join(d, f)
        pr = prof.rank_of(p)
        if pr is not None and not rootflush.is_rootflush(p):
            prefixes.setdefault(pr[0], []).append(p)
    if len(prefixes) == 1:
        prefix, files = next(iter(prefixes.items()))
        return prof.read(sorted(files, key=lambda p: prof.rank_of(p)[1]), d)
    if len(prefixes) > 1:
        raise ReportError("holds .prof files of %d prefixes (%s): name one prefix" % (
            len(prefixes), ", ".join(sorted(os.path.basename(p) for p in prefixes))), d)
    flushes = [os.path.join(d, f) for f in entries if rootflush.is_rootflush(os.path.join(d, f))]
    if flushes:
        return _load_one(flushes[0])
    if any(f.endswith(".record.npz") or (f.startswith("pnmpi-") and f.endswith(".part"))
           for f in entries):
        from . import parts
        from .readers import job_record
        return job_record.read(parts.read_job(d))
    raise ReportError("holds no monitor output (.json, .prof or .mat files)", d)
