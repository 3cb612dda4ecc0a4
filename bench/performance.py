#!/usr/bin/env python3
"""Measures ugsearch's searches on this machine's CPU and (re)writes docs/performance.md whole.

Two tables, every search run one after another (never two at once) with `--backend cpu`:
  1. the `_small` presets (all 8): bfs, dfs-omp and dfs-static at 2 threads, dfs at 1; μGraphs,
     states, wall seconds, states/s, peak RSS, and whether the μGraph hashes equal dfs's;
  2. the full-size presets: bfs and dfs-omp at 2 threads (full qknorm_gqa, minutes and 6.5 GiB, only
     with --full-qknorm).

Usage: bench/performance.py [--binary build/release/ugsearch] [--out docs/performance.md]
                            [--time-limit 600] [--full-qknorm] [--quick]
--quick runs only the `_small` presets with bfs and dfs-omp (about a minute: a test of this script,
not a measurement to keep). A search stopped by --time-limit is marked "stopped at S s". Standard
library only.
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

from strategies import PROGRAMS as SMALL_PROGRAMS  # the 8 `_small` presets (bench/strategies.py)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FULL_PROGRAMS = ["rmsnorm_linear", "gated_mlp", "lora", "gqa", "mha", "mqa", "ntrans"]
THREADS = 2
# (strategy, threads): dfs first, the reference of the "same μGraphs" column.
SMALL_CELLS = [("dfs", 1), ("bfs", THREADS), ("dfs-omp", THREADS), ("dfs-static", THREADS)]
QUICK_CELLS = [("bfs", THREADS), ("dfs-omp", THREADS)]
FULL_CELLS = [("bfs", THREADS), ("dfs-omp", THREADS)]
EXIT_TIME_LIMIT = 3


# ---- the machine ---------------------------------------------------------------------------------

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def physical_cores():
    """Distinct (physical id, core id) pairs of /proc/cpuinfo, or None where it does not say."""
    cores, phys = set(), "0"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "physical id":
                    phys = value.strip()
                elif key == "core id":
                    cores.add((phys, value.strip()))
    except OSError:
        return None
    return len(cores) or None


def memory_gib():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    return None


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def git(*args):
    done = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def machine():
    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    changes = git("status", "--porcelain", "--untracked-files=no")
    dirty = "unknown" if changes is None else ("dirty (uncommitted changes)" if changes else "clean")
    logical = os.cpu_count()
    physical = physical_cores()
    mem = memory_gib()
    return {
        "cpu": cpu_model(),
        "cores": f"{logical} logical" + (f", {physical} physical" if physical else ""),
        "memory": f"{mem:.1f} GiB" if mem else "unknown",
        "os": f"{platform.system()} {platform.release()}",
        "commit": commit,
        "tree": dirty,
        "load": load_average(),
    }


# ---- the searches ---------------------------------------------------------------------------------

def run_search(binary, program, strategy, threads, time_limit, folder):
    """One search; returns a record of what the table shows (a failed run has `failed` set)."""
    path = os.path.join(folder, f"{program}__{strategy}__t{threads}.json")
    cmd = [binary, "search", program, "--strategy", strategy, "--threads", str(threads), "--backend", "cpu",
           "--time-limit", str(time_limit), "--quiet", "--out", path]
    rec = {"program": program, "strategy": strategy, "threads": threads, "failed": None, "stopped": False}
    try:
        # The time limit stops the search itself (exit 3, partial results); the timeout is a backstop.
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=time_limit + 120)
    except subprocess.TimeoutExpired:
        rec["failed"] = f"killed after {time_limit + 120:g} s"
        return rec
    if done.returncode not in (0, EXIT_TIME_LIMIT) or not os.path.exists(path):
        err = done.stderr.strip().splitlines()
        why = err[-1][:120].replace("|", "/") if err else ""  # a table cell: no pipes, one short line
        rec["failed"] = f"exit {done.returncode}" + (f": {why}" if why else "")
        return rec
    with open(path) as f:
        r = json.load(f)
    s = r["stats"]
    rec.update(stopped=done.returncode == EXIT_TIME_LIMIT or bool(r.get("run", {}).get("partial")),
               hashes=sorted(m["hash"] for m in r["mugraphs"]), states=s["states_expanded"], wall=s["wall_s"],
               rss=s.get("peak_rss_mib"))
    return rec


def run_all(binary, cells, time_limit, folder):
    """cells: [(program, strategy, threads)], run one at a time; returns {(program, strategy): record}."""
    out = {}
    for i, (program, strategy, threads) in enumerate(cells, 1):
        print(f"[{i}/{len(cells)}] {program} {strategy} x{threads} ...", end=" ", file=sys.stderr, flush=True)
        rec = run_search(binary, program, strategy, threads, time_limit, folder)
        what = rec["failed"] or (f"stopped at {time_limit:g} s" if rec["stopped"] else f"{rec['wall']:.2f} s")
        print(what, file=sys.stderr, flush=True)
        out[(program, strategy)] = rec
    return out


# ---- the markdown ---------------------------------------------------------------------------------

def num(n):
    return f"{n:,}"


def seconds(s):
    return f"{s:.3f}" if s < 0.1 else f"{s:.2f}"


def same_as(rec, ref):
    if ref is None:
        return "–"
    if rec is ref:
        return "reference"
    if rec["failed"] or ref["failed"]:
        return "–"
    if rec["stopped"] or ref["stopped"]:
        return "– (stopped)"
    return "yes" if rec["hashes"] == ref["hashes"] else "**NO**"


def cells_of(rec, time_limit, rate):
    """μGraphs, states, wall s[, states/s], peak RSS MiB of one record."""
    if rec["failed"]:
        return ["–", "–", f"failed ({rec['failed']})"] + (["–"] if rate else []) + ["–"]
    at_least = "≥ " if rec["stopped"] else ""
    wall = f"stopped at {time_limit:g} s" if rec["stopped"] else seconds(rec["wall"])
    row = [at_least + num(len(rec["hashes"])), at_least + num(rec["states"]), wall]
    if rate:
        row.append(num(round(rec["states"] / rec["wall"])) if rec["wall"] > 0 else "–")
    row.append(f"{rec['rss']:.0f}" if rec["rss"] is not None else "–")
    return row


def table(header, align, rows):
    """align: one letter a column, l or r."""
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def search_table(results, programs, cells, time_limit, reference, rate):
    """A row per program and cell; `reference`: the strategy whose μGraph hashes the others are
    compared with; `rate`: with a states/s column."""
    rows = []
    for program in programs:
        ref = results.get((program, reference))
        for strategy, threads in cells:
            rec = results[(program, strategy)]
            rows.append([program, strategy, threads] + cells_of(rec, time_limit, rate=rate) + [same_as(rec, ref)])
    columns = ["program", "strategy", "threads", "μGraphs", "states", "wall s"] + (["states/s"] if rate else [])
    return table(columns + ["peak RSS MiB", f"same μGraphs as {reference}"], "llr" + "r" * (len(columns) - 2) + "l",
                 rows)


def markdown(args, m, started, minutes, small, full, full_programs):
    binary_time = datetime.datetime.fromtimestamp(os.path.getmtime(args.binary_path), datetime.timezone.utc)
    binary_time = binary_time.strftime("%Y-%m-%d %H:%M UTC")
    small_cells = QUICK_CELLS if args.quick else SMALL_CELLS
    made_with = " ".join(["python3", "bench/performance.py"] + [shlex.quote(a) for a in sys.argv[1:]])
    parts = [
        "# Performance on the CPU",
        "",
        "What ugsearch's search strategies take on one machine's CPU (`--backend cpu`): the `_small` presets "
        "under every single-machine strategy, and the full-size presets under bfs and dfs-omp. Every search ran "
        "alone, one after another. This file is generated by `bench/performance.py`; do not edit it by hand, "
        "run the script again. Timings move from run to run (by 10-25% on a shared virtual machine): compare rows "
        "of one file only.",
        "",
    ]
    if args.quick:
        parts += ["**A `--quick` run** (bfs and dfs-omp on the `_small` presets only): a test of the script, not "
                  "the measurement this file is for.", ""]
    parts += [
        "## Machine",
        "",
        f"- CPU: {m['cpu']}; {m['cores']} cores",
        f"- memory: {m['memory']}; {m['os']}",
        f"- date: {started} (the measurement took {minutes:.1f} min; load average at its start: {m['load']})",
        f"- commit: `{m['commit']}`, tree {m['tree']}",
        f"- binary: `{args.binary_shown}` (modified {binary_time})",
        "",
        "## Regenerate",
        "",
        "On a quiet machine, after `cmake --build --preset release`:",
        "",
        "```",
        "python3 bench/performance.py                 # add --full-qknorm for full qknorm_gqa (minutes, 6.5 GiB)",
        "```",
        "",
        f"This file was written by `{made_with}`. Each search is `ugsearch search PROGRAM --strategy S "
        f"--threads T --backend cpu --time-limit {args.time_limit:g}`; a search the limit stopped shows "
        "\"stopped at S s\" and the μGraphs and states it had reached (≥).",
        "",
        "## `_small` presets",
        "",
        ("bfs and dfs-omp at 2 threads (`--quick`: dfs not run, so nothing to compare with)." if args.quick else
         "dfs at 1 thread (the reference), bfs, dfs-omp and dfs-static at 2. \"same μGraphs as dfs\": the set of "
         "μGraph hashes in the results file equals dfs's."),
        "",
        search_table(small, SMALL_PROGRAMS, small_cells, args.time_limit, "dfs", rate=True),
        "",
    ]
    if not args.quick:
        parts += [
            "## Full-size presets",
            "",
            "bfs and dfs-omp at 2 threads." + ("" if args.full_qknorm else
                                                 " Full qknorm_gqa is left out (minutes and 6.5 GiB of bfs "
                                                 "tree): `--full-qknorm` adds it."),
            "",
            search_table(full, full_programs, FULL_CELLS, args.time_limit, "bfs", rate=False),
            "",
        ]
    return "\n".join(parts)


def write_atomically(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".performance.", suffix=".md", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=None, help="ugsearch to run (default: build/release/ugsearch)")
    ap.add_argument("--out", default=None, help="the markdown to write (default: docs/performance.md)")
    ap.add_argument("--time-limit", type=float, default=600, help="seconds a search may take (default 600)")
    ap.add_argument("--full-qknorm", action="store_true", help="also full-size qknorm_gqa (minutes, 6.5 GiB)")
    ap.add_argument("--quick", action="store_true", help="only the _small presets, only bfs and dfs-omp")
    args = ap.parse_args()
    if args.time_limit <= 0:
        ap.error("--time-limit must be positive")
    args.binary_shown = args.binary or "build/release/ugsearch"
    binary = os.path.abspath(args.binary) if args.binary else os.path.join(ROOT, "build", "release", "ugsearch")
    args.binary_path = binary
    out = args.out or os.path.join(ROOT, "docs", "performance.md")
    if not os.access(binary, os.X_OK):
        sys.exit(f"bench/performance.py: {binary} is not an executable; build first or pass --binary")

    m = machine()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    t0 = time.monotonic()
    small_cells = QUICK_CELLS if args.quick else SMALL_CELLS
    full_programs = FULL_PROGRAMS + (["qknorm_gqa"] if args.full_qknorm else [])
    folder = tempfile.mkdtemp(prefix="ugs_performance_")
    try:
        small = run_all(binary, [(p, s, t) for p in SMALL_PROGRAMS for s, t in small_cells], args.time_limit, folder)
        full = {} if args.quick else run_all(
            binary, [(p, s, t) for p in full_programs for s, t in FULL_CELLS], args.time_limit, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    minutes = (time.monotonic() - t0) / 60
    write_atomically(out, markdown(args, m, started, minutes, small, full, full_programs))
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
