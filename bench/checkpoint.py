#!/usr/bin/env python3
"""What `--checkpoint` costs bfs (issue 39): each case runs without checkpoints, with them at the
default `--checkpoint-share`, and with a checkpoint at every level (share 1), one after another in
this one invocation, so the ratios compare runs on the same machine in the same state. Prints per
case and mode: the process's wall seconds (the final checkpoint included), peak RSS, states expanded
(a time-limited case reaches fewer when checkpoints take its time), checkpoints written and skipped
and their seconds, and the wall and RSS against the run without checkpoints.

The cases: gqa_small (its preset, complete in seconds) and an `open`-space run under a time limit,
the kind a researcher stops and resumes.

Usage: bench/checkpoint.py [--binary build/release/ugsearch] [--threads 2] [--reps N] [--limit S]
Each cell runs --reps times in rounds over all cells and the fastest is reported.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CASES = [("gqa_small", []), ("gated_mlp_small", ["--space", "open"])]
MODES = [("none", None), ("default", []), ("every level", ["--checkpoint-share", "1"])]


def run(binary, program, extra, mode, threads, limit, work):
    out = os.path.join(work, "r.json")
    ck = os.path.join(work, "ck")
    shutil.rmtree(ck, ignore_errors=True)
    cmd = [binary, "search", program, "--strategy", "bfs", "--threads", str(threads), "--quiet", "--out", out] + extra
    if limit:
        cmd += ["--time-limit", str(limit)]
    if mode is not None:
        cmd += ["--checkpoint", ck] + mode
    start = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if proc.returncode not in (0, 3):
        sys.exit(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.strip()}")
    with open(out) as f:
        stats = json.load(f)["stats"]
    shutil.rmtree(ck, ignore_errors=True)
    return {"wall": wall, "rss": stats["peak_rss_mib"], "states": stats["states_expanded"],
            "checkpoints": stats["checkpoints"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/release/ugsearch")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--limit", type=float, default=30, help="seconds for the open-space case")
    args = ap.parse_args()
    best = {}
    with tempfile.TemporaryDirectory() as work:
        for _ in range(args.reps):
            for program, extra in CASES:
                limit = args.limit if "open" in extra else 0
                for name, mode in MODES:
                    r = run(args.binary, program, extra, mode, args.threads, limit, work)
                    key = (program, name)
                    if key not in best or r["wall"] < best[key]["wall"]:
                        best[key] = r
    print(f"bfs, {args.threads} threads; the fastest of {args.reps} rep(s)")
    print(f"{'case':<28} {'checkpoints':<12} {'wall s':>8} {'RSS MiB':>8} {'states':>11} "
          f"{'written':>7} {'skipped':>7} {'ck s':>6} {'wall ×':>7} {'RSS ×':>6}")
    for program, extra in CASES:
        case = program + (" open " + f"{args.limit:g} s" if "open" in extra else "")
        base = best[(program, "none")]
        for name, _ in MODES:
            r = best[(program, name)]
            ck = r["checkpoints"]
            print(f"{case:<28} {name:<12} {r['wall']:8.2f} {r['rss']:8.0f} {r['states']:11d} "
                  f"{ck['written']:7d} {ck['skipped']:7d} {ck['s']:6.2f} {r['wall'] / base['wall']:7.2f} "
                  f"{r['rss'] / base['rss']:6.2f}")


if __name__ == "__main__":
    main()
