# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the pnmpi authors
"""Bar charts for the HTML report: bytes sent per rank, message-size histograms."""

import io

import numpy as np

from .plotting import matplotlib_agg


def _figure(size):
    matplotlib_agg()
    from matplotlib.figure import Figure
    fig = Figure(figsize=(size[0] / 100.0, size[1] / 100.0), dpi=100)
    fig.patch.set_facecolor("white")
    return fig


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, facecolor="white", bbox_inches="tight")
    return buf.getvalue()


def per_rank(values, title, ylabel, size=(900, 320)):
    fig = _figure(size)
    from matplotlib.ticker import MaxNLocator
    ax = fig.add_subplot(111)
    x = np.arange(len(values))
    if len(values) <= 256:
        ax.bar(x, values, width=0.8, color="#3b528b")
    else:
        ax.fill_between(x, values, step="mid", color="#3b528b")
    mean = float(np.mean(values)) if len(values) else 0.0
    ax.axhline(mean, color="#d62728", linewidth=1, label="mean")
    ax.set_xlabel("rank")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # no rank 0.5
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper right", fontsize=8)
    ax.set_xlim(-0.5, max(len(values), 1) - 0.5)
    return _png(fig)


def histogram(bins, title, size=(900, 320)):
    """bins: [{'label', 'messages'}] of the non-empty bins, in size order."""
    fig = _figure(size)
    ax = fig.add_subplot(111)
    x = np.arange(len(bins))
    ax.bar(x, [b["messages"] for b in bins], color="#21918c")
    ax.set_xticks(x)
    ax.set_xticklabels([b["label"] for b in bins], rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("messages")
    ax.set_title(title, fontsize=10)
    return _png(fig)
