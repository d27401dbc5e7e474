# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""What placement would gain, and the `.pnmpi-conf` lines that apply it with `module
place`: shared by reorder, summary and html."""

import os
import re

import numpy as np

from . import mapping
from .errors import ReportError
from .readers import prof

# A .pnmpi-conf value is the rest of the line with words joined by one space, and `#` at
# the start of a word begins a comment: a path is written only when it survives that.
_CONF_SAFE = re.compile(r"\A[^\s#\x00-\x1f\x7f]+\Z")


def conf_path(path):
    """path made absolute, or None if a .pnmpi-conf line cannot hold it."""
    p = os.path.abspath(path)
    return p if _CONF_SAFE.match(p) else None


def place_from_run(specs):
    """The RUN that `argument from` names for these inputs (what libpnmpi_mapping reads: a
    monitor prefix, its JSON, its .prof files or a directory), or None."""
    specs = list(specs) if isinstance(specs, (list, tuple)) else [specs]
    if all(prof.rank_of(s) for s in specs):
        prefixes = {prof.rank_of(s)[0] for s in specs}
        return prefixes.pop() if len(prefixes) == 1 else None
    if len(specs) != 1:
        return None
    s = specs[0]
    if s.endswith(".mat") or "_counts." in os.path.basename(s) or \
            "_sizes." in os.path.basename(s):
        return None  # ompi_monitoring_prof / MPI_M_rootflush files: not read by the module
    return s


def conf_lines(run_specs=None, order_file=None):
    """The .pnmpi-conf lines that apply a placement, one block per way, as printable text
    (indented two spaces), and notes on what could not be written."""
    blocks, notes = [], []
    if order_file is not None:
        p = conf_path(order_file)
        if p:
            blocks.append(("the order written here (the job launched as assumed)",
                           ["module place", "argument order %s" % p]))
        else:
            notes.append("the order file's path holds white space, '#' or a control "
                         "character: move it to a plain path to name it in .pnmpi-conf")
    if run_specs is not None:
        run = place_from_run(run_specs)
        p = conf_path(run) if run else None
        if p:
            blocks.append(("computed at start-up from this run, on whatever hosts the job "
                           "gets", ["module place", "argument from %s" % p]))
        elif run:
            notes.append("the run's path holds white space, '#' or a control character: "
                         "move it to a plain path to name it in .pnmpi-conf")
        else:
            notes.append("module place reads the monitor's output (PREFIX, PREFIX.json or "
                         "the .prof files), not these files: `argument from` needs a run "
                         "of the monitor")
    return blocks, notes


def format_conf(blocks, notes, indent="  "):
    out = []
    for title, lines in blocks:
        out.append("%sin .pnmpi-conf, %s:" % (indent, title))
        out += ["%s  %s" % (indent, line) for line in lines]
    out += ["%snote: %s" % (indent, n) for n in notes]
    return "\n".join(out)


def crossing_now_and_placed(run, slots=None, map_by="slot", category="app"):
    """For a run whose hosts are known (or given by `slots` as NxC lists): a dict with the
    total application bytes, the bytes crossing hosts as run (or as launched), after the
    library's placement on the same slots, the method, and the host count; None without
    hosts."""
    matrix = run.matrix(category, "bytes")
    if slots is None:
        if run.hosts is None:
            return None
        groups, names = run.host_groups()
        slot_host = groups
    else:
        slot_host = mapping.launch_slots(slots, run.world_size, map_by)
        names = None
    total = matrix.total()
    slot_host = np.asarray(slot_host, dtype=np.int64)
    cross = slot_host[matrix.src] != slot_host[matrix.dst]
    now = int(matrix.val[cross].sum())
    placed = mapping.place(matrix, slot_host)
    host_of = placed.host_of_rank(slot_host)
    cross2 = host_of[matrix.src] != host_of[matrix.dst]
    after = int(matrix.val[cross2].sum())
    return {"total": total, "now": now, "after": after, "method": placed.method,
            "hosts": int(slot_host.max()) + 1 if slot_host.size else 0,
            "host_names": names, "rank_of_slot": placed.rank_of_slot}


def placement_advice(run, run_specs, category="app"):
    """For summary and html: None when the hosts are unknown; else a dict with the bytes
    between nodes now and after the library's placement on the same hosts (each host
    keeping its number of ranks), the method, and the .pnmpi-conf lines; or, when the
    mapping cannot be computed here, {"error": why}."""
    if run.hosts is None:
        return None
    try:
        numbers = crossing_now_and_placed(run, category=category)
    except ReportError as e:
        return {"error": str(e)}
    blocks, notes = conf_lines(run_specs)
    return {"total": numbers["total"], "between_now": numbers["now"],
            "between_after": numbers["after"], "method": numbers["method"],
            "hosts": numbers["hosts"], "assumed": bool(getattr(run, "hosts_assumed", False)),
            "conf": [{"how": title, "lines": lines} for title, lines in blocks],
            "conf_notes": notes}


def _pct(v, total):
    return "%.1f%%" % (100.0 * v / total) if total else "no traffic"


def render_text(p):
    """The summary's Placement section."""
    t = "\nPlacement (pnmpi's mapping library: the same hosts, each keeping its ranks)\n"
    if p is None:
        return t + "hosts unknown: --nodes NxC or --hostfile FILE assume a placement\n"
    if "error" in p:
        return t + "not computed: %s\n" % p["error"]
    total = p["total"]
    t += "application bytes between nodes now %d (%s), after placement %d (%s)%s\n" % (
        p["between_now"], _pct(p["between_now"], total), p["between_after"],
        _pct(p["between_after"], total),
        ": %d fewer" % (p["between_now"] - p["between_after"])
        if p["between_after"] < p["between_now"] else ": the run's placement is kept")
    t += "method: %s\n" % p["method"]
    if p["between_after"] < p["between_now"] and (p["conf"] or p["conf_notes"]):
        t += "apply it to the unchanged program with pnmpi's module place:\n"
        t += format_conf([(b["how"], b["lines"]) for b in p["conf"]], p["conf_notes"]) + "\n"
    return t


def render_html(p):
    """The html report's Placement section (before its Totals)."""
    import html as _html
    esc = _html.escape
    t = "<h2>Placement</h2>\n"
    if p is None:
        return t + "<p>Hosts unknown: <code>--nodes NxC</code> or <code>--hostfile FILE</code> " \
                   "assume a placement.</p>\n"
    if "error" in p:
        return t + '<p class="note">Not computed: %s</p>\n' % esc(p["error"])
    total = p["total"]
    t += ("<p>Application bytes between nodes now <b>%d</b> (%s), after placement by pnmpi's "
          "mapping library on the same hosts, each keeping its ranks: <b>%d</b> (%s).</p>\n"
          % (p["between_now"], esc(_pct(p["between_now"], total)), p["between_after"],
             esc(_pct(p["between_after"], total))))
    t += '<p class="small">Method: %s</p>\n' % esc(p["method"])
    if p["between_after"] < p["between_now"]:
        for b in p["conf"]:
            t += "<p>In <code>.pnmpi-conf</code>, %s:</p>\n<pre>%s</pre>\n" % (
                esc(b["how"]), esc("\n".join(b["lines"])))
        for n in p["conf_notes"]:
            t += '<p class="note">%s</p>\n' % esc(n)
    return t


def insert_html(page, section):
    """page with section placed before its Totals (or at the end of its body)."""
    for mark in ("<h2>Totals</h2>", "</body>"):
        k = page.find(mark)
        if k >= 0:
            return page[:k] + section + page[k:]
    return page + section
