#!/usr/bin/env python3
"""Anytime search side by side (issue: what only a frontier can do, item 3): in a space too large to
finish (by default each `_small` program's `open` space), bfs against dfs-omp at the same threads and
dfs at 1 thread, each under one time limit, run one after another in this one invocation. Prints per
program: states, μGraphs, the time to the first μGraph and to the best one, and the best estimated
cost; then how many programs bfs reaches a μGraph no later than dfs-omp on, and with the same or a
better best cost.

Usage: bench/anytime.py [--binary build/release/ugsearch] [--programs a,b] [--space open]
                        [--time-limit 60] [--threads 2] [--memory-limit MIB] [--objective all|best]
                        [--out DIR]
--objective goes to every cell alike (best: each strategy cuts by the best it has found so far).
A cell that finds nothing prints "-" for its times. The results files stay in --out for the plots.
"""
import argparse
import os
import sys
import tempfile

from search_run import search

PROGRAMS = ["rmsnorm_linear_small", "gated_mlp_small", "lora_small", "gqa_small", "mha_small", "mqa_small",
            "qknorm_gqa_small", "ntrans_small"]


def run_cell(args, program, strategy, threads, out_dir):
    path = os.path.join(out_dir, f"{program}__{strategy}__t{threads}__{args.space}__{args.objective}.json")
    flags = ["--space", args.space, "--strategy", strategy, "--threads", str(threads), "--time-limit",
             str(args.time_limit), "--objective", args.objective]
    if strategy == "bfs" and args.memory_limit is not None:
        flags += ["--memory-limit", str(args.memory_limit)]
    return search(args.binary, program, flags, path, "bench/anytime.py")


def best_cost(r):
    return min((m["cost"]["estimated_us"] for m in r["mugraphs"]), default=None)


def seconds(v):
    return f"{v:8.1f}" if v is not None else f"{'-':>8}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/release/ugsearch")
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--space", default="open", choices=["preset", "open", "mirage"])
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--memory-limit", type=int, default=None, help="bfs's --memory-limit (default: its own)")
    ap.add_argument("--objective", default="all", choices=["all", "best"])
    ap.add_argument("--out", default=None, help="directory for the results files (default: a temporary one)")
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"bench/anytime.py: {args.binary} is not an executable; build first or pass --binary")
    programs = [p for p in args.programs.split(",") if p]
    out_dir = args.out or tempfile.mkdtemp(prefix="ugs_anytime_")
    os.makedirs(out_dir, exist_ok=True)
    cells = [("bfs", args.threads), ("dfs-omp", args.threads), ("dfs", 1)]
    results = {}
    for program in programs:
        for strategy, threads in cells:
            results[(program, strategy)] = run_cell(args, program, strategy, threads, out_dir)
            print(f"  done {program} {strategy} x{threads}", file=sys.stderr, flush=True)

    print(f"{args.space} space, objective {args.objective}, {args.time_limit:g} s a run; bfs and dfs-omp at"
          f" {args.threads} threads, dfs at 1")
    print(f"{'program':22} {'strategy':8} {'wall s':>7} {'states':>11} {'μGraphs':>7} {'first s':>8} {'best s':>8}"
          f" {'best us':>8} {'done':>4}")
    no_later = same_cost = 0
    for program in programs:
        for strategy, _ in cells:
            r = results[(program, strategy)]
            s = r["stats"]
            cost = best_cost(r)
            print(f"{program:22} {strategy:8} {s['wall_s']:7.1f} {s['states_expanded']:11d} {len(r['mugraphs']):7d}"
                  f" {seconds(s.get('time_to_first_s'))} {seconds(s.get('time_to_best_s'))}"
                  f" {cost if cost is not None else float('nan'):8.3f} {'no' if r['run'].get('partial') else 'yes':>4}")
        bfs, dfs_omp = results[(program, "bfs")], results[(program, "dfs-omp")]
        first_bfs, first_omp = bfs["stats"].get("time_to_first_s"), dfs_omp["stats"].get("time_to_first_s")
        no_later += first_omp is None or (first_bfs is not None and first_bfs <= first_omp)
        cb, co = best_cost(bfs), best_cost(dfs_omp)
        same_cost += co is None or (cb is not None and cb <= co * (1 + 1e-9))
    print(f"\nbfs's first μGraph no later than dfs-omp's: {no_later} of {len(programs)} programs;"
          f" a best cost as good as dfs-omp's: {same_cost} of {len(programs)}")
    print(f"results files: {out_dir}")


if __name__ == "__main__":
    main()
