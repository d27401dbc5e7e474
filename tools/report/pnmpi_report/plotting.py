# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""matplotlib as every picture uses it: no display, and text drawn as written.

Names from the input (hosts, categories, routines, directories) go into titles and tick
labels; with math text on, a `$` in one starts a TeX formula that fails to parse at save
time ("$\\foo$", a lone "$x"). No label of ours is a formula, so math text is off."""


def matplotlib_agg():
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["text.parse_math"] = False
    matplotlib.rcParams["text.usetex"] = False
    return matplotlib
