"""Where the search spends itself: time per phase, abstract-expression queries, bfs frontier sizes."""
from matplotlib.ticker import MaxNLocator

from draw import NoData, bars, panels, series_color, setting_label, shared_legend, short_number
from results import group, mean, stat, where

PHASES = ("expand", "expr", "fingerprint", "dedup", "verify")
QUERIES = {"cache hits": "expr.cache_hits", "structural": "expr.structural", "z3 calls": "expr.z3_calls"}


def _cells(results, setting):
    """{program: {(strategy, threads): [runs]}} in the given setting, one rank."""
    runs = where(results, backend=setting[0], field=setting[1], ranks=1)
    if not runs:
        raise NoData(f"no run in the {setting_label(setting)} setting")
    return {p: group(rs, "strategy", "threads") for (p,), rs in group(runs, "program").items()}


def phase_wall_s(result, phase):
    """A phase's time on the wall clock's scale. The depth-first drivers sum every phase over their
    threads, and bfs sums verify over its workers (they confirm in parallel): those are divided by the
    threads, what each thread spent on average. bfs records its other phases' wall time as it is."""
    seconds = stat(result, f"phase_s.{phase}")
    summed = result.strategy != "bfs" or phase == "verify"
    return seconds / max(1, result.threads) if summed else seconds


def phases(results, setting):
    cells = _cells(results, setting)
    fig, axes = panels(len(cells), f"Time per phase on the wall clock (a phase summed over threads is divided "
                       f"by the threads) ({setting_label(setting)})", ncols=4, width=4.0)
    for ax, (program, by_cell) in zip(axes, cells.items()):
        labels = [f"{s} ({t})" for s, t in by_cell]
        series = {ph: [mean(phase_wall_s(r, ph) for r in rs) for rs in by_cell.values()] for ph in PHASES}
        bars(ax, labels, series, stacked=True, legend=ax is axes[0])
        ax.set_ylabel("time (s)")
        ax.set_xlabel("strategy (threads)")
        ax.set_title(program)
    return fig


def expr_queries(results, setting):
    """Queries per program, one panel per strategy, each at the fewest threads it ran the program."""
    runs = where(results, backend=setting[0], field=setting[1], ranks=1)
    if not any(stat(r, "expr.queries") for r in runs):
        raise NoData("no abstract-expression queries recorded")
    by_strategy = group(runs, "strategy")
    fig, axes = panels(len(by_strategy), f"Abstract-expression queries by how they were answered "
                       f"({setting_label(setting)})", ncols=2, width=6.0)
    for ax, ((strategy,), rs) in zip(axes, by_strategy.items()):
        fewest = {}
        for (program, threads), g in group(rs, "program", "threads").items():
            fewest.setdefault(program, (threads, g))  # group() sorts threads ascending
        series = {name: [mean(stat(r, key) for r in g) for _, g in fewest.values()]
                  for name, key in QUERIES.items()}
        counts = {name: [short_number(v) for v in values] for name, values in series.items()}
        # Counts span orders of magnitude (z3 is the rare, costly case): a log axis, zeros printed.
        bars(ax, [f"{p} ({t})" for p, (t, _) in fewest.items()], series, log=True, labels=counts)
        ax.set_ylabel("queries (count, log scale)")
        ax.set_xlabel("program (threads)")
        ax.set_title(strategy)
    return fig


def frontier(results):
    """Per level of the bfs runs (from stats.levels), one line per program: the frontier, the share of
    candidates kept, and the bulk test: completions fingerprinted, and how many one backend call took."""
    with_levels = [r for r in where(results, strategy="bfs") if r.stats.get("levels")]
    if not with_levels:
        raise NoData("no bfs run with per-level statistics (stats.levels)")
    fig, axes = panels(4, "bfs per level: frontier, survivors and the bulk fingerprint test", ncols=2, width=5.5)
    by_program = group(with_levels, "program")
    for i, ((program,), rs) in enumerate(by_program.items()):
        levels = sorted(min(rs, key=lambda r: r.workers).stats["levels"], key=lambda lv: lv["level"])
        xs = [lv["level"] for lv in levels]
        style = {"marker": "o", "label": program, "color": series_color(i, len(by_program))}
        axes[0].plot(xs, [lv.get("frontier", 0) for lv in levels], **style)
        axes[1].plot(xs, [100 * lv.get("survivors", 0) / max(lv.get("candidates", 0), 1) for lv in levels], **style)
        # Levels without completions have no bulk test: left out, not drawn as zeros on a log axis.
        tested = [lv for lv in levels if lv.get("fingerprints", 0) > 0 and lv.get("fingerprint_calls", 0) > 0]
        axes[2].plot([lv["level"] for lv in tested], [lv["fingerprints"] for lv in tested], **style)
        axes[3].plot([lv["level"] for lv in tested], [lv["fingerprints"] / lv["fingerprint_calls"] for lv in tested],
                     **style)
    for ax, ylabel, log in ((axes[0], "states in the frontier (log scale)", True),
                            (axes[1], "survivors / candidates (%)", False),
                            (axes[2], "completions fingerprinted (log scale)", True),
                            (axes[3], "completions per backend call (log scale)", True)):
        ax.set_xlabel("level (steps from the inputs)")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel(ylabel)
        ax.set_yscale("log" if log else "linear")
    shared_legend(fig, axes, title="program")
    return fig
