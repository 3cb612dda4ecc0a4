"""The abstract-expression oracle under parallelism: its stages turned off against threads (z3
contention), and MPI ranks (wall time, and the z3 calls the ranks share).

The variants (results.Result.variant) come from config keys: `no-cache` (expr_cache 0),
`no-structural` (oracle_structural 0: every uncached query goes to z3), `z3-only` (both). Where z3
answers, a search of the mirage space takes hours, so those runs stop at a time limit: the figures
use rates (states and z3 calls per second), which a stopped run measures as well as a complete one.
"""
import math

from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter

from draw import NoData, bars, panels, short_number, top_legend
from results import VARIANTS, group, main_runs, rate, stat, where

VARIANT_ORDER = [VARIANTS[k] for k in ((True, True), (False, True), (True, False), (False, False))]
STYLE = {"bfs": "-", "dfs-omp": "--", "dfs-static": ":", "dfs": "-.", "dfs-mpi": ":"}


def z3_per_1000_states(runs):
    return 1000 * sum(stat(r, "expr.z3_calls") for r in runs) / max(1, sum(r.states for r in runs))


def _variant_name(variant):
    return variant or "all stages"


def stages_against_threads(results):
    """Per program with variants: states per second and z3 calls per second against threads, a line
    per strategy and variant."""
    runs = where(results, ranks=1)
    programs = [p for (p,), rs in group(runs, "program").items() if len({r.variant for r in rs}) > 1]
    if not programs:
        raise NoData("no program ran with an oracle stage turned off (config expr_cache or oracle_structural 0)")
    fig, axes = panels(2 * len(programs), "The oracle's stages against threads: does z3 contend, and does "
                       "the cache remove it? (all stages = cache, structure, then z3)", ncols=2, width=5.2)
    for i, program in enumerate(programs):
        mine = [r for r in where(runs, program=program) if r.space == _space_with_variants(runs, program)]
        # The strategies that ran a variant, each line over 2 or more thread counts.
        strategies = {r.strategy for r in mine if r.variant}
        by_line = {k: rs for k, rs in group(mine, "strategy", "variant").items()
                   if k[0] in strategies and len({r.threads for r in rs}) > 1}
        for ax, what, numerator in ((axes[2 * i], "states expanded per second", lambda r: r.states),
                                    (axes[2 * i + 1], "z3 calls per second", lambda r: stat(r, "expr.z3_calls"))):
            threads = set()
            for (strategy, variant), rs in sorted(by_line.items(), key=lambda kv: VARIANT_ORDER.index(kv[0][1])):
                points = {t: rate(g, numerator) for (t,), g in group(rs, "threads").items()}
                if not any(points.values()):
                    continue  # no z3 call at all: the structural stage answered every miss
                threads |= set(points)
                xs = sorted(points)
                ax.plot(xs, [points[x] for x in xs], STYLE.get(strategy, "-"), marker="o",
                        color=f"C{VARIANT_ORDER.index(variant)}", label=f"{strategy}, {_variant_name(variant)}")
            ax.set_yscale("log")
            ax.xaxis.set_major_locator(FixedLocator(sorted(threads)))
            ax.xaxis.set_major_formatter(ScalarFormatter())
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("threads")
            ax.set_ylabel(f"{what} (log scale)")
            ax.set_title(f"{program}: {what}")
        # One legend per program, in the z3 panel (whose lines leave its upper left free), naming the
        # states panel's lines too: the lines without z3 calls appear only there.
        axes[2 * i + 1].legend(*axes[2 * i].get_legend_handles_labels(), fontsize=6, loc="upper left")
    return fig


def _space_with_variants(runs, program):
    """The space in which the program ran its variants (they are compared with the plain runs there)."""
    return next(r.space for r in where(runs, program=program) if r.variant)


def ranks(results):
    """Left: each program's speedup of 2 ranks over 1, per strategy, plain runs at 1 thread. Right: with
    z3 answering (a variant), z3 calls per thousand states and states per second against ranks."""
    one_thread = where(results, threads=1)
    plain_pairs = rank_speedups(where(main_runs(results), threads=1))
    z3_runs = [r for r in one_thread if r.variant and stat(r, "expr.z3_calls") > 0
               and len({x.ranks for x in where(one_thread, program=r.program, strategy=r.strategy,
                                               variant=r.variant)}) > 1]
    if not plain_pairs and not z3_runs:
        raise NoData("no strategy ran a program at 1 and at several ranks")
    fig, axes = panels(bool(plain_pairs) + 2 * bool(z3_runs), "MPI ranks (1 thread each)", ncols=3, width=4.6)
    axes = list(axes)
    if plain_pairs:
        ax = axes.pop(0)
        programs = sorted({p for per in plain_pairs.values() for p in per})
        series = {s: [per.get(p, math.nan) for p in programs] for s, per in plain_pairs.items()}
        bars(ax, programs, series, labels={s: ["–" if math.isnan(v) else f"{v:.2f}" for v in vs]
                                           for s, vs in series.items()})
        ax.axhline(2, color="k", linestyle="--", linewidth=1, label="ideal (2 ranks)")
        ax.axhline(1, color="grey", linestyle=":", linewidth=1)
        ax.set_ylabel("wall time, 1 rank / 2 ranks (×)")
        ax.set_title("Speedup of 2 ranks over 1")
        top_legend(ax)  # with the ideal line
    if z3_runs:
        keys = group(z3_runs, "program", "strategy", "variant")
        labels = [f"{p}\n{s}, {v}" for p, s, v in keys]
        counts = sorted({r.ranks for r in z3_runs})
        for ax, what, per in ((axes[0], "z3 calls per 1000 states", z3_per_1000_states),
                              (axes[1], "states expanded per second", lambda rs: rate(rs, lambda r: r.states))):
            series = {f"{n} rank{'s' if n > 1 else ''}": [per(where(rs, ranks=n)) if where(rs, ranks=n) else 0
                                                         for rs in keys.values()] for n in counts}
            bars(ax, labels, series, labels={k: [short_number(v) for v in vs] for k, vs in series.items()})
            ax.set_ylabel(what)
            ax.set_title(f"With z3 answering: {what}")
    return fig


def rank_speedups(runs):
    """{strategy: {program: wall at 1 rank / wall at 2 ranks}} over complete runs with both."""
    out = {}
    for (program, strategy), rs in group([r for r in runs if not r.partial], "program", "strategy").items():
        walls = {n: [r.wall_s for r in g] for (n,), g in group(rs, "ranks").items()}
        if 1 in walls and 2 in walls and min(walls[2]) > 0:
            out.setdefault(strategy, {})[program] = (sum(walls[1]) / len(walls[1])) / (sum(walls[2]) / len(walls[2]))
    return out
