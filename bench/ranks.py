#!/usr/bin/env python3
"""dfs-mpi against bfs over MPI ranks (issue 7): each program at 1, 2 and 3 ranks (default) under
mpirun, one run after another in this invocation. Prints, per program, strategy and rank count: wall
time (the run's, and mpirun's including MPI start-up), balance (max busy / mean busy over the worker
threads of all ranks; dfs-mpi's rank 0 collects the middle states on its main thread besides them,
which stats.ranks counts in its busy_s), z3 calls summed over the ranks, and bytes the ranks sent each other (in
all; and for bfs per level). The `z3:` case narrows gated_mlp_small and turns the structural stage off,
so that every uncached query goes to z3 and the sharing of answers between ranks shows.

Usage: bench/ranks.py [--binary build/release/ugsearch] [--programs a,b] [--ranks 1,2,3] [--threads 1]
                      [--reps N] [--out DIR]
The fastest of --reps runs is reported. Ranks are started with --oversubscribe --bind-to none, so more
ranks than cores share them: on a small machine the times show overheads more than speed-ups.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

PROGRAMS = ["lora_small", "gated_mlp_small", "qknorm_gqa_small", "z3:gated_mlp_small"]
Z3_CONFIG = {"oracle_structural": 0, "max_kernel_ops": 4, "max_block_ops": 6}


def run_cell(args, program, strategy, ranks, rep):
    name = program.replace(":", "_")
    path = os.path.join(args.out, f"{name}__{strategy}__r{ranks}__{rep}.json")
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks), args.binary, "search",
           program.split(":")[-1], "--strategy", strategy, "--threads", str(args.threads), "--quiet", "--out", path]
    if program.startswith("z3:"):
        cfg = os.path.join(args.out, "z3_config.json")
        with open(cfg, "w") as f:
            json.dump(Z3_CONFIG, f)
        cmd += ["--config", cfg]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    t0 = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.monotonic() - t0
    if done.returncode != 0:
        sys.exit(f"bench/ranks.py: {' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()}")
    with open(path) as f:
        r = json.load(f)
    r["mpirun_s"] = wall
    return r


def balance(r):
    busy = [x["busy_s"] for x in r["stats"]["workers"]]
    mean = sum(busy) / len(busy) if busy else 0
    return max(busy) / mean if mean > 0 else float("nan")


def kib(n):
    return f"{n / 1024:.0f}"


def row(program, strategy, ranks, r):
    s = r["stats"]
    sent = sum(x["bytes_sent"] for x in s["ranks"])
    levels = " ".join(kib(l["bytes"]) for l in s["levels"]) if strategy == "bfs" and ranks > 1 else ""
    print(f"{program:22} {strategy:8} {ranks:>5} {s['wall_s']:8.2f} {r['mpirun_s']:8.2f} {balance(r):6.2f}"
          f" {s['expr']['z3_calls']:7d} {kib(sent):>9} {len(r['mugraphs']):7d}  {levels}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/release/ugsearch")
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--ranks", default="1,2,3")
    ap.add_argument("--threads", type=int, default=1, help="threads per rank")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--out", default=None, help="directory for the results files (default: a temporary one)")
    args = ap.parse_args()
    args.out = args.out or tempfile.mkdtemp(prefix="ugs_bench_ranks_")
    os.makedirs(args.out, exist_ok=True)
    print(f"{os.cpu_count()} cores; {args.threads} thread(s) per rank; results in {args.out}")
    print(f"{'program':22} {'strategy':8} {'ranks':>5} {'wall s':>8} {'mpirun s':>8} {'balance':>6} {'z3':>7}"
          f" {'sent KiB':>9} {'μGraphs':>7}  bfs KiB sent per level")
    for program in args.programs.split(","):
        for strategy in ["dfs-mpi", "bfs"]:
            for ranks in [int(x) for x in args.ranks.split(",")]:
                runs = [run_cell(args, program, strategy, ranks, rep) for rep in range(args.reps)]
                row(program, strategy, ranks, min(runs, key=lambda r: r["stats"]["wall_s"]))


if __name__ == "__main__":
    main()
