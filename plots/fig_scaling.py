"""Scaling figures: speedup against workers per strategy, and per-worker load balance.

Speedup is measured as throughput (states expanded per second) over that of dfs at 1 thread on the
same program, backend and field. Every strategy expands the same states, so for a complete search this
equals the ratio of wall times; it stays meaningful for runs stopped by a time limit.
"""
import math

from draw import NoData, bars, log2_axes, panels, setting_label, shared_legend, strategy_color
from results import geomean, group, rate, where

BASELINE = ("dfs", 1)


def throughput(runs):
    return rate(runs, lambda r: r.states)


def speedups(results, backend, field):
    """{program: {(strategy, ranks): {workers: speedup}}} over dfs at 1 thread, 1 rank, complete runs
    only: runs stopped by a time limit expanded different parts of the space, whose states cost
    differently, so their states per second do not compare."""
    out = {}
    runs = [r for r in where(results, backend=backend, field=field) if not r.partial]
    for (program,), of_program in group(runs, "program").items():
        base = throughput(where(of_program, strategy="dfs", workers=1))
        if math.isnan(base):
            continue
        for (strategy, ranks, workers), cell in group(of_program, "strategy", "ranks", "workers").items():
            out.setdefault(program, {}).setdefault((strategy, ranks), {})[workers] = throughput(cell) / base
    if not out:
        raise NoData(f"no dfs run at 1 thread to compare with ({backend} backend, {field} field)")
    return out


def _line_label(strategy, ranks):
    return strategy if ranks == 1 else f"{strategy}, {ranks} ranks"


def _plot_lines(ax, lines, title):
    """lines: {(strategy, ranks): {workers: speedup}}; with the ideal line y = workers."""
    most = max(w for line in lines.values() for w in line)
    ax.plot([1, most], [1, most], "k--", linewidth=1, label="ideal")
    for (strategy, ranks), points in lines.items():
        xs = sorted(points)
        # Over ranks: the strategy's colour, dotted, square markers.
        ax.plot(xs, [points[x] for x in xs], marker="o" if ranks == 1 else "s", linestyle="-" if ranks == 1 else ":",
                color=strategy_color(strategy), label=_line_label(strategy, ranks))
    log2_axes(ax, {w for line in lines.values() for w in line})
    ax.set_xlabel("workers (threads × ranks)")
    ax.set_ylabel("speedup over dfs, 1 thread (×)")
    ax.set_title(title)
    ax.legend(fontsize=7)


def _geomean_lines(per_program):
    """Across programs: the geometric mean of each line's speedups at each worker count, over the
    programs that have the line at every worker count any program has it at (a program measured at
    fewer counts would move the mean from one point to the next). Returns the lines and the programs
    that entered at least one."""
    counts = {}
    for lines in per_program.values():
        for key, points in lines.items():
            counts.setdefault(key, set()).update(points)
    collected, used = {}, set()
    for program, lines in per_program.items():
        for key, points in lines.items():
            if set(points) != counts[key]:
                continue
            used.add(program)
            for workers, s in points.items():
                collected.setdefault(key, {}).setdefault(workers, []).append(s)
    return ({key: {w: geomean(v) for w, v in points.items()}
             for key, points in collected.items()}, used)


def plural(n, word):
    return f"{n} {word}{'' if n == 1 else 's'}"


def speedup_summary(results):
    settings = sorted(group(where(results, ranks=1), "backend", "field"))
    drawn = [(s, speedups(results, *s)) for s in settings if where(results, backend=s[0], field=s[1],
                                                                       strategy="dfs", workers=1)]
    if not drawn:
        raise NoData("no dfs run at 1 thread to compare with")
    fig, axes = panels(len(drawn), "Speedup against workers (geometric mean over programs)", ncols=2)
    for ax, (setting, per_program) in zip(axes, drawn):
        lines, used = _geomean_lines(per_program)
        _plot_lines(ax, lines, f"{setting_label(setting, one_rank=False)}: {plural(len(used), 'program')}")
    return fig


def speedup_per_program(results, setting):
    per_program = speedups(results, *setting)
    fig, axes = panels(len(per_program), f"Speedup against workers per program ({setting_label(setting)})",
                       ncols=4, width=4.0)
    for ax, (program, lines) in zip(axes, per_program.items()):
        _plot_lines(ax, lines, program)
    shared_legend(fig, axes)
    return fig


def load_balance(results, setting, strategies=("dfs-static", "dfs-omp", "bfs")):
    """Each worker's busy time as a share of the wall time, at each strategy's most threads."""
    runs = where(results, backend=setting[0], field=setting[1], ranks=1)
    chosen = {}
    for s in strategies:
        parallel = [r for r in where(runs, strategy=s) if len(r.stats.get("workers", [])) > 1]
        if parallel:
            most = max(r.threads for r in parallel)
            chosen[s] = {p: rs[0] for (p,), rs in group(where(parallel, threads=most), "program").items()}
    if not chosen:
        raise NoData(f"no run of {', '.join(strategies)} with more than one worker")
    fig, axes = panels(len(chosen), f"Load balance: busy time per worker ({setting_label(setting)})", ncols=3)
    for ax, (strategy, by_program) in zip(axes, chosen.items()):
        programs = list(by_program)
        workers = max(len(r.stats["workers"]) for r in by_program.values())
        series = {f"worker {i}": [_busy_share(by_program[p], i) for p in programs] for i in range(workers)}
        bars(ax, programs, series, legend=workers <= 4)
        ax.axhline(100, color="k", linestyle="--", linewidth=1)
        ax.set_ylim(0, max(ax.get_ylim()[1], 105))
        ax.set_ylabel("busy time / wall time (%)")
        ax.set_title(f"{strategy}, {workers} threads (one bar per worker)")
    return fig


def _busy_share(result, worker):
    ws = sorted(result.stats["workers"], key=lambda w: w["id"])
    return 100 * ws[worker]["busy_s"] / result.wall_s if worker < len(ws) and result.wall_s > 0 else 0
