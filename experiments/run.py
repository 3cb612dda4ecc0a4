#!/usr/bin/env python3
"""Runs a matrix of `ugsearch search` cells, one results file each, resumably.

  experiments/run.py --matrix quick [--out DIR] [--binary PATH] [--time-limit S] [--only REGEX] [--dry-run]

Cells whose results file exists and parses are skipped, so an interrupted run resumes where it
stopped when the same command is run again. Cells that failed run again too. See
experiments/matrices/README.md for the matrix format.
"""
import argparse
import os
import re
import shlex
import signal
import sys

sys.dont_write_bytecode = True  # no __pycache__ folders in the source tree

from runner import cell as cellrun
from runner import matrix as matrices
from runner.progress import Progress, duration
from runner.store import Store

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matrix", required=True, help="a name in experiments/matrices/ or a matrix file")
    p.add_argument("--out", help="output directory (default build/experiments/MATRIX)")
    p.add_argument("--binary", default=os.path.join(ROOT, "build", "release", "ugsearch"),
                   help="the ugsearch binary (default build/release/ugsearch)")
    p.add_argument("--time-limit", type=float, metavar="S", help="per-cell time limit, over the matrix's")
    p.add_argument("--only", metavar="REGEX", help="run only the cells whose id matches")
    p.add_argument("--dry-run", action="store_true", help="print the commands of the cells left to run")
    return p.parse_args(argv)


def fail(message):
    print(f"run.py: {message}", file=sys.stderr)
    sys.exit(2)


def select(matrix, only):
    if not only:
        return matrix.cells
    try:
        pattern = re.compile(only)
    except re.error as e:
        fail(f"--only {only!r}: not a regular expression ({e})")
    cells = [c for c in matrix.cells if pattern.search(c.id)]
    if not cells:
        fail(f"--only {only!r} matches no cell of {matrix.path}; cells are named like {matrix.cells[0].id}")
    return cells


def main(argv):
    args = parse_args(argv)
    if args.time_limit is not None and args.time_limit <= 0:
        fail(f"--time-limit {args.time_limit:g}: must be a positive number of seconds")
    try:
        matrix = matrices.load(args.matrix, os.path.join(HERE, "matrices"))
    except matrices.MatrixError as e:
        fail(str(e))
    binary = os.path.abspath(args.binary)
    if not args.dry_run and not os.access(binary, os.X_OK):
        fail(f"{binary}: no executable ugsearch there; build it (cmake --preset release && "
             f"cmake --build build/release) or pass --binary PATH")
    store = Store(os.path.abspath(args.out or os.path.join(ROOT, "build", "experiments", matrix.name)))
    cells = select(matrix, args.only)
    finished = {c.id for c in store.scan(matrix.cells)}
    todo = [c for c in cells if c.id not in finished]
    print(f"{matrix.name}: {len(cells)} cells, {len(cells) - len(todo)} finished, {len(todo)} to run; "
          f"results in {store.out}", file=sys.stderr)
    if args.dry_run:
        for c in todo:
            print(shlex.join(cellrun.command(c, binary, store.results_path(c), limit(c, args),
                                             store.config_path(c))))
        return 0
    store.create()
    store.save(matrix, binary, matrix.cells)
    return run_cells(todo, len(cells), store, matrix, binary, args)


def limit(cell, args):
    return args.time_limit if args.time_limit is not None else cell.time_limit_s


def run_cells(todo, total, store, matrix, binary, args):
    progress = Progress(total, total - len(todo))
    running = None
    try:
        for cell in todo:
            running = cell
            progress.starting(cell)
            argv = cellrun.command(cell, binary, store.results_path(cell), limit(cell, args),
                                   store.write_config(cell))
            outcome = cellrun.run(cell, argv, store.results_path(cell), store.log_path(cell),
                                  store.rejected_path(cell), limit(cell, args))
            store.record(cell, outcome.status, outcome.exit_code, round(outcome.wall_s, 3), outcome.error, argv)
            running = None
            store.save(matrix, binary, matrix.cells)
            progress.finished(cell, outcome)
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the index short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        progress.close()
        if running is not None:
            store.record(running, "interrupted", None, None, "interrupted by a signal", None)
        store.save(matrix, binary, matrix.cells)
        print(f"interrupted{f' during {running.id}' if running else ''}: run the same command again to resume",
              file=sys.stderr)
        return 130
    progress.close()
    return summarize(store, matrix, todo, progress)


def summarize(store, matrix, todo, progress):
    counts = {}
    for c in todo:
        status = store.entries[c.id]["status"]
        counts[status] = counts.get(status, 0) + 1
    told = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "nothing to run"
    print(f"{matrix.name}: {told} in {duration(progress.elapsed())}; index {store.index_path}",
          file=sys.stderr)
    return 1 if counts.get("error") else 0


def on_sigterm(signum, frame):
    raise KeyboardInterrupt  # the same clean stop as Ctrl-C: kill the cell, save the index


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, on_sigterm)
    sys.exit(main(sys.argv[1:]))
