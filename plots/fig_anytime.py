"""Anytime curves: the best estimated cost found so far against time, per program and strategy.

A run dates each μGraph (found_s in its results file). Its curve steps down at every μGraph that
beats the best so far and ends at the run's wall time: a cross when a time limit stopped it, a bar
when it completed. One curve per strategy, at the most threads that strategy ran the program with on
one rank, from plain runs (every oracle stage on); a program searched in several spaces gets a panel
per space.
"""
from draw import NoData, log_time_axis, panels, shared_legend, strategy_color
from results import group, plain, where


def best_so_far(found):
    """[(time, best cost so far)] at each μGraph that improved on the best: the curve's steps."""
    steps, best = [], float("inf")
    for seconds, cost in found:
        if cost < best:
            best = cost
            steps.append((seconds, cost))
    return steps


def _curves(results):
    """{(program, space): {strategy: run}}, the run at the strategy's most threads, for the programs
    where some run found a dated μGraph."""
    runs = where(plain(results), ranks=1)
    out = {}
    for (program, space, strategy), rs in group(runs, "program", "space", "strategy").items():
        out.setdefault((program, space), {})[strategy] = max(rs, key=lambda r: (r.threads, -r.seed))
    return {key: by_strategy for key, by_strategy in out.items() if any(r.found for r in by_strategy.values())}


def anytime(results):
    curves = _curves(results)
    if not curves:
        raise NoData("no run lists dated μGraphs (mugraphs[].found_s)")
    several_spaces = len({space for _, space in curves}) > 1
    fig, axes = panels(len(curves), "Best estimated cost found against time (× stopped by its time limit, "
                       "| completed)", ncols=4, width=4.0)
    for ax, ((program, space), by_strategy) in zip(axes, curves.items()):
        none = []
        for strategy, run in by_strategy.items():
            steps = best_so_far(run.found)
            label = f"{strategy} ({run.threads})"
            if not steps:
                none.append(label)
                continue
            xs = [t for t, _ in steps] + [max(run.wall_s, steps[-1][0])]
            ys = [c for _, c in steps] + [steps[-1][1]]
            color = strategy_color(strategy)
            ax.step(xs, ys, where="post", label=label, color=color)
            ax.plot(xs[-1], ys[-1], "x" if run.partial else "|", color=color, markersize=8)
        if none:  # the shared legend names the strategies; the panel says which found nothing
            ax.text(0.98, 0.98, "no μGraph: " + ", ".join(none), transform=ax.transAxes, ha="right", va="top",
                    fontsize=7)
        log_time_axis(ax)
        ax.set_xlabel("time into the run (s, log scale)")
        ax.set_ylabel("best estimated time (µs)")
        ax.set_title(f"{program} ({space} space)" if several_spaces and space else program)
    shared_legend(fig, axes, title="strategy (threads)")
    return fig
