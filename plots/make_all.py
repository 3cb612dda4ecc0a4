#!/usr/bin/python3
"""Draws every report figure from ugsearch results files, as PNG and SVG.

  /usr/bin/python3 plots/make_all.py RESULTS OUT_DIR [--only NAME ...]

RESULTS is a results file, a directory of them, or experiments/run.py's output directory. A figure
whose data is absent (e.g. no bfs run, so no frontier sizes) is skipped with a one-line note.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ folders in the source tree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fig_anytime  # noqa: E402
import fig_oracle  # noqa: E402
import fig_quality  # noqa: E402
import fig_scaling  # noqa: E402
import fig_search  # noqa: E402
from draw import NoData, save  # noqa: E402
from results import load, main_runs, main_setting  # noqa: E402

# name, caption, function, and what it takes: "main" the plain runs of the main space
# (results.main_runs), "setting" those and their main (backend, field) setting, "all" every run (a
# figure that sets spaces or variants apart itself).
FIGURES = [
    ("speedup", "Speedup against workers per strategy, geometric mean over programs",
     fig_scaling.speedup_summary, "main"),
    ("speedup_per_program", "Speedup against workers, per program", fig_scaling.speedup_per_program, "setting"),
    ("load_balance", "Busy time per worker (load balance)", fig_scaling.load_balance, "setting"),
    ("ranks", "MPI ranks: speedup of 2 ranks over 1, and z3 calls against ranks", fig_oracle.ranks, "all"),
    ("oracle_stages", "z3 contention: the oracle's stages turned off, against threads",
     fig_oracle.stages_against_threads, "all"),
    ("anytime", "Anytime: the best estimated cost found against time", fig_anytime.anytime, "all"),
    ("phases", "Time per phase", fig_search.phases, "setting"),
    ("expr_queries", "Abstract-expression queries: cache, structural rules, z3", fig_search.expr_queries, "setting"),
    ("frontier", "bfs per level: frontier, survivors and the bulk fingerprint test", fig_search.frontier, "main"),
    ("false_pass", "Verifier false-pass rate by field", fig_quality.false_pass, "main"),
    ("plan_costs", "Estimated cost of the reference plans and the best μGraph", fig_quality.plan_costs, "main"),
]


def draw_all(results, out_dir, only=None):
    """Draws the figures; returns [(name, caption, [png, svg])] for those drawn, notes the rest."""
    main = main_runs(results)
    setting = main_setting(main)
    drawn = []
    for name, caption, function, takes in FIGURES:
        if only and name not in only:
            continue
        try:
            if takes == "setting" and setting is None:
                raise NoData("no single-rank run")
            fig = function(*{"main": (main,), "setting": (main, setting), "all": (results,)}[takes])
        except NoData as e:
            print(f"note: figure {name} skipped: {e}", file=sys.stderr)
            continue
        drawn.append((name, caption, save(fig, out_dir, name)))
    return drawn


def load_or_exit(path):
    try:
        results = load(path)
    except FileNotFoundError as e:
        sys.exit(f"{os.path.basename(sys.argv[0])}: {e}")
    if not results:
        sys.exit(f"{os.path.basename(sys.argv[0])}: {path}: no ugsearch results files there; "
                 f"run experiments/run.py first")
    return results


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", help="results file, directory of them, or experiments/run.py's output directory")
    p.add_argument("out_dir", help="where the PNG and SVG files go")
    p.add_argument("--only", nargs="+", choices=[f[0] for f in FIGURES], help="draw only these figures")
    args = p.parse_args(argv)
    results = load_or_exit(args.results)
    drawn = draw_all(results, args.out_dir, args.only)
    print(f"{len(drawn)} figures from {len(results)} results files in {args.out_dir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
