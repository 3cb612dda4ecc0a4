"""Drawing helpers shared by the figures: panels, bar charts (grouped or stacked), and saving."""
import math
import os
import textwrap

import matplotlib

matplotlib.use("Agg")  # files only; no display is needed or wanted
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402
import numpy as np  # noqa: E402

# A fixed salt for the SVGs' clip-path ids, and no date in them (save): the same results draw the same
# files, so a rebuilt report changes only where its figures do.
plt.rcParams.update({"font.size": 9, "axes.titlesize": 10, "figure.titlesize": 12,
                     "svg.fonttype": "none", "svg.hashsalt": "ugsearch", "axes.grid": True, "grid.alpha": 0.3})


LOG_FLOOR = 0.5  # bottom of log-scale bar axes, so that a count of 1 still shows


class NoData(Exception):
    """A figure has nothing to draw; the message says what it lacks."""


def panels(n, title, ncols=3, width=4.6, height=3.4):
    """A figure of n panels, at most ncols a row; returns the figure and the n axes."""
    ncols = max(1, min(ncols, n))
    nrows = math.ceil(n / ncols)
    # The title wrapped to the figure's width (about ten characters an inch at its size), so that a
    # one-panel figure does not cut it off at both edges.
    lines = textwrap.wrap(title, width=max(20, int(width * ncols * 10)))
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows + 0.35 + 0.25 * len(lines)),
                             squeeze=False)
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.set_visible(False)
    fig.suptitle("\n".join(lines))
    return fig, flat[:n]


def bars(ax, categories, series, *, stacked=False, log=False, labels=None, legend=True):
    """Bars of series {name: [value per category]}, grouped side by side or stacked; labels
    {name: [text per category]} are written above the bars (for counts too small to see)."""
    x = np.arange(len(categories))
    width = 0.8 if stacked else 0.8 / max(1, len(series))
    bottom = np.zeros(len(categories))
    for i, (name, values) in enumerate(series.items()):
        values = np.asarray(values, dtype=float)
        offset = 0 if stacked else (i - (len(series) - 1) / 2) * width
        ax.bar(x + offset, values, width, bottom=bottom if stacked else None, label=name)
        if stacked:
            bottom = bottom + values
        for xi, top, text in zip(x + offset, bottom if stacked else values, (labels or {}).get(name, [])):
            # A zero bar has no top on a log axis, and a missing value (NaN) no bar: their labels sit
            # on the axis floor.
            floor = LOG_FLOOR if log else 0
            y = floor if math.isnan(top) or (log and top <= 0) else top
            ax.annotate(text, (xi, y), xytext=(0, 2), textcoords="offset points", ha="center", va="bottom", fontsize=6,
                        rotation=0 if stacked else 90)
    rotate = len(categories) > 3
    ax.set_xticks(x, categories, rotation=30 if rotate else 0, ha="right" if rotate else "center")
    if log:
        ax.set_yscale("log")
        ax.set_ylim(LOG_FLOOR, ax.get_ylim()[1] * (30 if labels else 1))
    else:
        # Set by hand: a zero-height bar on top of a stack pins autoscaling to the stack's top.
        top = max(bottom) if stacked else max((float(np.nanmax(v)) if not np.all(np.isnan(v)) else 0.0)
                                              for v in (np.asarray(v, dtype=float) for v in series.values()))
        ax.set_ylim(0, top * (1.2 if labels else 1.05) if top > 0 else 1)
    if legend and len(series) > 1:
        ax.legend(fontsize=7)


def log2_axes(ax, xticks):
    """Both axes in powers of two, labelled with plain numbers (1, 2, 4, not 2^0, 2^1, 2^2)."""
    plain = ticker.FuncFormatter(lambda v, _: f"{v:g}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(sorted(xticks))
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(ticker.NullFormatter())


def save(fig, out_dir, name):
    """Writes NAME.png and NAME.svg under out_dir; returns their paths."""
    os.makedirs(out_dir, exist_ok=True)
    fig.tight_layout()
    paths = [os.path.join(out_dir, f"{name}.{ext}") for ext in ("png", "svg")]
    for path in paths:
        fig.savefig(path, dpi=150, metadata={"Date": None} if path.endswith(".svg") else None)
    plt.close(fig)
    return paths


def setting_label(setting, one_rank=True):
    backend, field = setting
    return f"{backend} backend, {field} field" + (", 1 rank" if one_rank else "")
