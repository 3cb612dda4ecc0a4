#!/usr/bin/env python3
"""Symbolic openings against concrete ones, side by side in one invocation: for each program and space,
the same strategy runs twice (config `symbolic` 0 and 1) and the table shows states expanded, the
symbolic states and instantiations among them, μGraphs found, whether both runs found the same set,
the best cost, wall time and peak RSS, and the ratios of states and of wall time.

Usage: bench/symbolic.py [--binary build/release/ugsearch] [--cases program:space,...] [--strategy bfs]
                         [--threads 2] [--time-limit S] [--reps N] [--out DIR]
A case may add `:max_block_ops` (e.g. gqa_small:mirage:6) to bound the space. Each run is repeated --reps
times, in rounds over all runs, and the fastest is reported. A run stopped by --time-limit is marked
partial; its set is then not compared.
"""
import argparse
import os
import tempfile

from search_run import search

CASES = ["rmsnorm_linear_small:preset", "gated_mlp_small:preset", "ntrans_small:preset", "lora_small:preset",
         "rmsnorm_linear:mirage", "gated_mlp_small:mirage", "ntrans_small:mirage", "mqa_small:mirage",
         "lora_small:mirage", "ntrans:mirage", "lora:mirage", "gqa_small:mirage:6", "gqa_small:mirage:7"]


def run(args, case, symbolic, rep):
    parts = case.split(":")
    program, space = parts[0], parts[1]
    path = os.path.join(args.out, f"{case.replace(':', '_')}__{symbolic}__{rep}.json")
    flags = ["--space", space, "--strategy", args.strategy, "--threads", str(args.threads)]
    if len(parts) > 2:
        flags += ["--max-block-ops", parts[2]]
    if symbolic:
        flags.append("--symbolic")
    if args.time_limit:
        flags += ["--time-limit", str(args.time_limit)]
    return search(args.binary, program, flags, path, "bench/symbolic.py")


def summary(r):
    s = r["stats"]
    return {"states": s["states_expanded"], "symbolic": s["symbolic"]["states"],
            "inst": s["symbolic"]["instantiations"], "found": {m["hash"] for m in r["mugraphs"]},
            "best": r["mugraphs"][0]["cost"]["estimated_us"] if r["mugraphs"] else None, "wall": s["wall_s"],
            "rss": s["peak_rss_mib"], "partial": r["run"]["partial"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="build/release/ugsearch")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--strategy", default="bfs")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=0)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    args.out = args.out or tempfile.mkdtemp(prefix="ugs_symbolic_")
    os.makedirs(args.out, exist_ok=True)
    cases = args.cases.split(",")
    best = {}
    for rep in range(args.reps):
        for case in cases:
            for symbolic in (0, 1):
                got = summary(run(args, case, symbolic, rep))
                key = (case, symbolic)
                if key not in best or got["wall"] < best[key]["wall"]:
                    best[key] = got
    print(f"{args.strategy}, {args.threads} threads" + (f", {args.time_limit:g} s limit" if args.time_limit else ""))
    print("| case | states (concrete) | states (symbolic) | of them symbolic | instantiations | ratio |"
          " μGraphs | same | best µs | wall s (concrete / symbolic) | RSS MiB (concrete / symbolic) |")
    print("|" + " --- |" * 11)
    for case in cases:
        c, s = best[(case, 0)], best[(case, 1)]
        partial = c["partial"] or s["partial"]
        same = "partial" if partial else ("yes" if c["found"] == s["found"] else "NO")
        best_us = "-" if c["best"] is None else f"{c['best']:.2f}" + ("" if c["best"] == s["best"] else f" / {s['best']:.2f}")
        print(f"| {case} | {c['states']:,} | {s['states']:,} | {s['symbolic']:,} | {s['inst']:,} |"
              f" {c['states'] / max(1, s['states']):.2f}× | {len(c['found'])} / {len(s['found'])} | {same} | {best_us} |"
              f" {c['wall']:.2f} / {s['wall']:.2f} | {c['rss']:.0f} / {s['rss']:.0f} |")
    print(f"results files in {args.out}")


if __name__ == "__main__":
    main()
