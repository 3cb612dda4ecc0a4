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
    # A fixed distance from the top (at its default height a tall figure's title sat in the panels),
    # and kept out of the layout by save(): tight_layout leaves a title out, and panel titles ran into it.
    fig.suptitle("\n".join(lines), y=1 - 0.06 / fig.get_figheight(), va="top")
    fig.ugs_top_in = len(lines) * plt.rcParams["figure.titlesize"] * 1.35 / 72 + 0.1
    return fig, flat[:n]


def bars(ax, categories, series, *, stacked=False, log=False, labels=None, legend=True):
    """Bars of series {name: [value per category]}, grouped side by side or stacked; labels
    {name: [text per category]} are written above the bars (for counts too small to see). The
    legend (with legend and more than one series) lies in a band left free above the bars and their
    labels, so that it covers none of them; a caller that adds lines to it calls top_legend again."""
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
    # Tilted more as they crowd: at 30 degrees neighbouring names of a dozen programs overlap.
    tilt = 0 if len(categories) <= 3 else 30 if len(categories) <= 8 else 45
    ax.set_xticks(x, categories, rotation=tilt, ha="right" if tilt else "center")
    # The band above the bars: rotated labels take about 28 points (grouped bars) or 10 (stacked), the
    # legend about 16 points a row.
    with_legend = legend and len(series) > 1
    reserve_pt = (0 if not labels else 10 if stacked else 28) + (16 * legend_rows(ax, len(series)) if with_legend else 0)
    if log:
        ax.set_yscale("log")
        top = ax.get_ylim()[1]
        ax.set_ylim(LOG_FLOOR, LOG_FLOOR * (top / LOG_FLOOR) ** headroom(ax, reserve_pt + 4))
    else:
        # Set by hand: a zero-height bar on top of a stack pins autoscaling to the stack's top.
        top = max(bottom) if stacked else max((float(np.nanmax(v)) if not np.all(np.isnan(v)) else 0.0)
                                              for v in (np.asarray(v, dtype=float) for v in series.values()))
        ax.set_ylim(0, top * headroom(ax, reserve_pt) * 1.03 if top > 0 else 1)
    if with_legend:
        top_legend(ax)


def headroom(ax, reserve_pt):
    """The factor by which an axis' top must exceed the data's top to leave reserve_pt points free above
    it (taken from the axes' height before the layout, which shrinks them a little)."""
    height_pt = ax.get_position().height * ax.figure.get_figheight() * 72 * 0.85
    return 1 / max(0.4, 1 - reserve_pt / height_pt)


def legend_rows(ax, entries):
    return math.ceil(entries / _legend_columns(ax, entries))


def _legend_columns(ax, entries):
    # About 70 points an entry at the legend's size (a handle and a name of some ten characters).
    width_pt = ax.get_position().width * ax.figure.get_figwidth() * 72
    return max(1, min(entries, int(width_pt // 70)))


def top_legend(ax, fontsize=7):
    """The axes' legend in rows along its top, without a frame: bars() leaves the band free."""
    handles, names = ax.get_legend_handles_labels()
    ax.legend(handles, names, fontsize=fontsize, loc="upper left", ncol=_legend_columns(ax, len(names)),
              frameon=False, borderaxespad=0.2, handlelength=1.2, columnspacing=0.8)


def short_number(v):
    """A count for a bar's label: 3 significant digits, thousands and millions as k and M (no e+03)."""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:.3g}{suffix}"
    return f"{v:.3g}"


# One colour per strategy in every figure, so that a strategy reads the same from panel to panel.
STRATEGY_COLORS = {"dfs": "tab:orange", "dfs-static": "tab:purple", "dfs-omp": "tab:red", "dfs-mpi": "tab:green",
                   "bfs": "tab:blue"}


def strategy_color(strategy):
    return STRATEGY_COLORS.get(strategy, "tab:gray")


def series_color(i, n):
    """The colour of series i of n: the ten of the default cycle while they suffice, else twenty
    (with ten, a dozen programs' lines repeated colours)."""
    return plt.get_cmap("tab10" if n <= 10 else "tab20")(i % 20)


def shared_legend(fig, axes, fontsize=7, title=None):
    """One legend for panels that draw the same series: every label once, in the order first met. It
    takes a panel slot the figure left empty (panels() hides them) or, with none, a column to the
    right of the panels (save() makes room for it); the panels' own legends are removed."""
    seen = {}
    for ax in axes:
        for handle, name in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(name, handle)
        if ax.get_legend():
            ax.get_legend().remove()
    if not seen:
        return
    free = [ax for ax in fig.axes if not ax.get_visible()]
    if free:
        slot = free[0]
        slot.set_visible(True)
        slot.axis("off")
        slot.legend(list(seen.values()), list(seen), loc="center", fontsize=fontsize, title=title,
                    title_fontsize=fontsize, frameon=False, ncol=1 if len(seen) <= 12 else 2)
        return
    fig.legend(list(seen.values()), list(seen), loc="center right", fontsize=fontsize, title=title,
               title_fontsize=fontsize, frameon=False)
    # Its width: a handle and the longest name at about 0.55 em a character.
    fig.ugs_right_in = (30 + 0.55 * fontsize * max(len(name) for name in seen)) / 72


def log_time_axis(ax):
    """The x axis in log scale, labelled with plain numbers (0.1, 2, 50, not 2 × 10^1); between the
    powers of ten only 2 and 5 are ticked, and labelled only where the axis spans under two decades
    (matplotlib labels every minor tick of a short log axis, and they ran into each other)."""
    ax.set_xscale("log")
    plain = ticker.FuncFormatter(lambda v, _: f"{v:g}")
    low, high = ax.get_xlim()
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_locator(ticker.LogLocator(subs=(2, 5)))
    short = low > 0 and high / low < 100
    ax.xaxis.set_minor_formatter(plain if short else ticker.NullFormatter())


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
    # The margins panels() and shared_legend() asked for: the title's, and a legend's beside the panels.
    top_in, right_in = getattr(fig, "ugs_top_in", 0), getattr(fig, "ugs_right_in", 0)
    fig.tight_layout(rect=(0, 0, 1 - right_in / fig.get_figwidth(), 1 - top_in / fig.get_figheight()))
    paths = [os.path.join(out_dir, f"{name}.{ext}") for ext in ("png", "svg")]
    for path in paths:
        fig.savefig(path, dpi=150, metadata={"Date": None} if path.endswith(".svg") else None)
    plt.close(fig)
    return paths


def setting_label(setting, one_rank=True):
    backend, field = setting
    return f"{backend} backend, {field} field" + (", 1 rank" if one_rank else "")
