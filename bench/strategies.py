#!/usr/bin/env python3
"""Search strategies side by side (issues 4 and 5): every `_small` program, each strategy at each
thread count (default 1 and 2), run one after another in this one invocation, so the ratios compare runs on the same machine
in the same state. Prints two tables:

  1. per program and strategy: wall time, states expanded, states/s, verified μGraphs, load imbalance
     (max busy / mean busy over workers);
  2. summed over the programs: bfs at the most threads against dfs at 1 thread and against dfs-omp
     and dfs-static at as many threads; z3 calls against distinct queries and their share of wall time; and
     `--dedup function` against `structural` (states and time saved).

Usage: bench/strategies.py [--binary build/release/ugsearch] [--programs a,b] [--threads 1,2] [--backend cpu]
                          [--space preset|mirage|open] [--objective all|best] [--reps N] [--out DIR]
--space and --objective go to every cell alike (default: each program's preset, every μGraph); the
`open` space of most programs does not finish.
Each cell runs --reps times and the fastest run is reported (the usual defence against a noisy
machine); the reps are rounds over all cells, so a slow spell of the machine hits every strategy
alike rather than one cell's reps. The results files stay in --out for the plots.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

PROGRAMS = ["rmsnorm_linear_small", "gated_mlp_small", "lora_small", "gqa_small", "mha_small", "mqa_small",
            "qknorm_gqa_small", "ntrans_small"]


def cells(threads):
    """dfs at one thread (the reference) and at the most; every other strategy at each count; function
    dedup at the most."""
    top = max(threads)
    r = [("dfs", 1, "structural")] + ([("dfs", top, "structural")] if top > 1 else [])
    for strategy in ["dfs-static", "dfs-omp", "bfs"]:
        r += [(strategy, t, "structural") for t in threads]
    return r + [("bfs", top, "function")]


def run_cell(args, program, strategy, threads, dedup, out_dir, rep):
    path = os.path.join(out_dir, f"{program}__{strategy}__t{threads}__{dedup}__{args.space}__{args.objective}__{rep}.json")
    cmd = [args.binary, "search", program, "--strategy", strategy, "--threads", str(threads), "--backend",
           args.backend, "--space", args.space, "--objective", args.objective, "--quiet", "--out", path]
    if dedup != "structural":
        cmd += ["--dedup", dedup]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bench/strategies.py: {' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()}")
    with open(path) as f:
        return json.load(f)


def imbalance(r):
    busy = [w["busy_s"] for w in r["stats"]["workers"]]
    mean = sum(busy) / len(busy) if busy else 0
    return max(busy) / mean if mean > 0 else float("nan")


def per_program_table(results):
    print(f"{'program':22} {'strategy':10} {'thr':>3} {'dedup':10} {'wall s':>8} {'states':>10} {'states/s':>10}"
          f" {'μGraphs':>7} {'imbal':>6} {'best us':>8}")
    for (program, strategy, threads, dedup), r in results.items():
        s = r["stats"]
        best = r["mugraphs"][0]["cost"]["estimated_us"] if r["mugraphs"] else float("nan")
        print(f"{program:22} {strategy:10} {threads:>3} {dedup:10} {s['wall_s']:8.2f} {s['states_expanded']:10d}"
              f" {s['states_expanded'] / max(s['wall_s'], 1e-9):10.0f} {len(r['mugraphs']):7d}"
              f" {imbalance(r):6.2f} {best:8.3f}")


def summed(results, programs, strategy, threads, dedup="structural"):
    rs = [results[(p, strategy, threads, dedup)] for p in programs]
    return {"wall": sum(r["stats"]["wall_s"] for r in rs), "states": sum(r["stats"]["states_expanded"] for r in rs),
            "z3_calls": sum(r["stats"]["expr"]["z3_calls"] for r in rs),
            "z3_s": sum(r["stats"]["expr"]["z3_s"] for r in rs),
            "distinct": sum(r["stats"]["expr"]["queries"] - r["stats"]["expr"]["cache_hits"] for r in rs),
            "best": [r["mugraphs"][0]["cost"]["estimated_us"] if r["mugraphs"] else None for r in rs]}


def summary_table(results, programs, top):
    bfs = summed(results, programs, "bfs", top)
    print(f"\nsummed over {len(programs)} programs: bfs at {top} threads {bfs['wall']:.2f} s")
    for strategy, threads in [("dfs", 1), ("dfs-omp", top), ("dfs-static", top), ("bfs", 1)]:
        other = summed(results, programs, strategy, threads)
        print(f"  {strategy} at {threads} thread(s): {other['wall']:8.2f} s   bfs x{top} is {other['wall'] / bfs['wall']:.2f}x"
              f" as fast")
    ratios = [results[(p, "dfs-omp", top, "structural")]["stats"]["wall_s"] /
              max(results[(p, "bfs", top, "structural")]["stats"]["wall_s"], 1e-9) for p in programs]
    print(f"  bfs x{top} against dfs-omp x{top}, per program: " +
          ", ".join(f"{p} {r:.2f}x" for p, r in zip(programs, ratios)))
    print(f"  z3 calls (bfs x{top}): {bfs['z3_calls']} for {bfs['distinct']} distinct queries;"
          f" z3 time {bfs['z3_s']:.3f} s = {100 * bfs['z3_s'] / bfs['wall']:.2f}% of wall")
    fn = summed(results, programs, "bfs", top, "function")
    print(f"  --dedup function vs structural (bfs x{top}): states {fn['states']} vs {bfs['states']}"
          f" ({100 * (1 - fn['states'] / bfs['states']):.1f}% fewer), wall {fn['wall']:.2f} s vs {bfs['wall']:.2f} s;"
          f" same best cost on every program: {fn['best'] == bfs['best']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/release/ugsearch")
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--threads", default="1,2", help="thread counts, e.g. 1,2 or 1,4,16")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--space", default="preset", choices=["preset", "mirage", "open"])
    ap.add_argument("--objective", default="all", choices=["all", "best"])
    ap.add_argument("--out", default=None, help="directory for the results files (default: a temporary one)")
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"bench/strategies.py: {args.binary} is not an executable; build first or pass --binary")
    programs = [p for p in args.programs.split(",") if p]
    threads = sorted({int(t) for t in args.threads.split(",")} | {1})
    out_dir = args.out or tempfile.mkdtemp(prefix="ugs_strategies_")
    os.makedirs(out_dir, exist_ok=True)
    results = {}  # per cell, its fastest run
    for rep in range(args.reps):
        for program in programs:
            for strategy, t, dedup in cells(threads):
                r = run_cell(args, program, strategy, t, dedup, out_dir, rep)
                key = (program, strategy, t, dedup)
                if key not in results or r["stats"]["wall_s"] < results[key]["stats"]["wall_s"]:
                    results[key] = r
                print(f"  done {program} {strategy} x{t} {dedup} (round {rep + 1} of {args.reps})", file=sys.stderr,
                      flush=True)
    per_program_table(results)
    summary_table(results, programs, max(threads))
    print(f"\nresults files: {out_dir}")


if __name__ == "__main__":
    main()
