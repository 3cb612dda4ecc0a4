"""The report's "Conclusions" section: one paragraph per research question, each with the numbers it
rests on, computed from the results (never written by hand, so that it never goes stale).

The questions: speedup and efficiency against workers; bfs against dfs-omp (where the frontier wins,
where it loses, and why); load balance; z3 contention and the cache; MPI ranks; anytime results; the
frontier. A question without the runs it needs is left out.
"""
from draw import NoData
from fig_oracle import rank_speedups, z3_per_1000_states
from fig_scaling import speedups
from results import geomean, group, main_runs, main_setting, main_space, mean, plain, rate, stat, where


def _complete(runs):
    return [r for r in runs if not r.partial]


def speedup_paragraph(main, setting):
    try:
        per_program = speedups(main, *setting)
    except NoData:
        return None
    by_line = {}
    for lines in per_program.values():
        for (strategy, ranks), points in lines.items():
            for workers, s in points.items():
                if workers > 1:
                    by_line.setdefault((strategy, ranks, workers), []).append(s)
    if not by_line:
        return None
    parts = [f"{strategy}{'' if ranks == 1 else f' ({ranks} ranks)'} {geomean(v):.2f}× at {workers} workers "
             f"({100 * geomean(v) / workers:.0f} % efficiency, {len(v)} programs)"
             for (strategy, ranks, workers), v in sorted(by_line.items())]
    return ("**Speedup and efficiency.** Over dfs at 1 thread (states per second, geometric mean over "
            "programs): " + "; ".join(parts) + ".")


def bfs_paragraph(main):
    """bfs against dfs-omp at the most threads both ran, on the programs both completed."""
    both = {}
    for (program, threads), rs in group(where(main, ranks=1), "program", "threads").items():
        bfs, omp = _complete(where(rs, strategy="bfs")), _complete(where(rs, strategy="dfs-omp"))
        if bfs and omp:
            both.setdefault(threads, {})[program] = (mean(r.wall_s for r in omp) / mean(r.wall_s for r in bfs))
    if not both:
        return None
    threads = max(both)
    ratios = both[threads]
    wins = sorted((p for p, v in ratios.items() if v > 1.05), key=lambda p: -ratios[p])
    losses = sorted((p for p, v in ratios.items() if v < 0.95), key=lambda p: ratios[p])
    text = (f"**bfs against dfs-omp.** At {threads} threads, over the {len(ratios)} programs both completed, bfs "
            f"runs at {geomean(ratios.values()):.2f}× dfs-omp's speed (wall time of dfs-omp / bfs, geometric mean). ")
    if wins:
        text += "bfs wins on " + ", ".join(f"{p} ({ratios[p]:.2f}×)" for p in wins) + ". "
    if losses:
        text += "It loses on " + ", ".join(f"{p} ({ratios[p]:.2f}×)" for p in losses) + ". "
    if len(ratios) > len(wins) + len(losses):
        text += f"The other {len(ratios) - len(wins) - len(losses)} are within 5 %. "
    one = {}
    for (program,), rs in group(where(main, ranks=1, threads=1), "program").items():
        bfs, dfs = _complete(where(rs, strategy="bfs")), _complete(where(rs, strategy="dfs"))
        if bfs and dfs:
            one[program] = mean(r.wall_s for r in dfs) / mean(r.wall_s for r in bfs)
    if one:
        at_one = geomean(one.values())
        text += (f"Why: both expand the same states, so what differs is the cost per state and how it divides "
                 f"among threads. At 1 thread bfs runs at {at_one:.2f}× dfs's speed (geometric mean over {len(one)} "
                 f"programs, {min(one.values()):.2f}× on {min(one, key=one.get)} to {max(one.values()):.2f}× on "
                 f"{max(one, key=one.get)})")
        if at_one < 0.95:
            text += (": a frontier state is encoded, stored and decoded, where dfs keeps it on its stack" +
                     (", and on the CPU backend a bulk test saves no launch" if {r.backend for r in main} == {"cpu"}
                      else "") + ".")
        else:
            text += ("; so the frontier costs little per state here, and the gap at more threads is in how the "
                     "work divides among them (the load-balance paragraph).")
    if wins and ratios[wins[0]] >= 1.5:
        text += _bulk_test_sentence(main, wins[0], threads, ratios[wins[0]])
    return text


def _run_at(run, level):
    """A bfs run's level, in words: program, space, level, backend."""
    space = f", {run.space} space" if run.space else ""
    return f"{run.program}{space}, level {level['level']}, {run.backend} backend"


def _bulk_test_sentence(main, program, threads, ratio):
    """Why bfs wins most where it does, when its completions were fingerprinted in batches: the
    fingerprint thread time per completion, bfs's batches against dfs-omp's one at a time."""
    rs = where(main, ranks=1, threads=threads, program=program)
    bfs, omp = _complete(where(rs, strategy="bfs")), _complete(where(rs, strategy="dfs-omp"))
    levels = [lv for r in bfs for lv in r.stats.get("levels", [])]
    calls, fingerprints = (sum(lv.get(k, 0) for lv in levels) for k in ("fingerprint_calls", "fingerprints"))
    evals = mean(stat(r, "fingerprint_evals") for r in bfs)
    if not (bfs and omp and evals and 0 < calls < fingerprints):
        return ""
    # bfs's feed calls take the run's threads for their wall time (an upper bound on their thread time:
    # the expansion may share the cores meanwhile); dfs-omp's threads each time their own.
    bfs_ms = 1000 * mean(stat(r, "phase_s.fingerprint") * r.threads for r in bfs) / evals
    omp_ms = 1000 * mean(stat(r, "phase_s.fingerprint") for r in omp) / mean(stat(r, "fingerprint_evals") for r in omp)
    most = max(lv["fingerprints"] / lv["fingerprint_calls"] for lv in levels if lv.get("fingerprint_calls"))
    return (f" Where bfs wins most ({program}, {ratio:.2f}×), the bulk test is why: its {evals:,.0f} completions "
            f"took {bfs_ms:.1f} ms of thread time each to fingerprint, in batches of up to {most:.0f}, against "
            f"{omp_ms:.1f} ms each one at a time in dfs-omp.")


def load_paragraph(main, setting):
    runs = where(main, backend=setting[0], field=setting[1], ranks=1)
    shares = {}
    for (strategy,), rs in group(runs, "strategy").items():
        parallel = [r for r in rs if len(r.stats.get("workers", [])) > 1 and r.wall_s > 0]
        if parallel:
            most = max(r.threads for r in parallel)
            shares[strategy] = [min(w["busy_s"] for w in r.stats["workers"]) / r.wall_s
                                for r in parallel if r.threads == most]
    if not shares:
        return None
    return ("**Load balance.** The least busy worker's busy time as a share of the wall time, averaged over "
            "programs at each strategy's most threads: " +
            "; ".join(f"{s} {100 * mean(v):.0f} % (lowest {100 * min(v):.0f} %)" for s, v in sorted(shares.items()))
            + ". dfs-static deals out the states of one depth once, so a thread whose subtrees are small "
            "waits; dfs-omp's tasks and bfs's batches are taken as threads free up.")


def _span(values, fmt="{:.2f}"):
    """"×g (×lo–×hi)" of ratios: their geometric mean and range."""
    values = list(values)
    g, lo, hi = geomean(values), min(values), max(values)
    return f"×{fmt.format(g)}" + (f" (×{fmt.format(lo)} to ×{fmt.format(hi)})" if len(values) > 1 else "")


def oracle_paragraph(results):
    """Per variant, over its programs and strategies: z3 calls and states per second at the most
    threads over the fewest, and how much slower than with every stage on."""
    runs = where(results, ranks=1)
    if not any(r.variant for r in runs):
        return None
    parts = []
    for (variant,), of_variant in group([r for r in runs if r.variant], "variant").items():
        z3_scaling, state_scaling, slowdown, cells = [], [], [], 0
        for (program, strategy), rs in group(of_variant, "program", "strategy").items():
            by_threads = {t: g for (t,), g in group(rs, "threads").items()}
            if len(by_threads) < 2:
                continue
            cells += 1
            low, high = min(by_threads), max(by_threads)
            z3 = [rate(by_threads[t], lambda r: stat(r, "expr.z3_calls")) for t in (low, high)]
            states = [rate(by_threads[t], lambda r: r.states) for t in (low, high)]
            if z3[0] > 0:
                z3_scaling.append(z3[1] / z3[0])
            if states[0] > 0:
                state_scaling.append(states[1] / states[0])
            base = _complete(where(plain(runs), program=program, strategy=strategy, threads=high, space=rs[0].space))
            if base and states[1] > 0:
                slowdown.append(rate(base, lambda r: r.states) / states[1])
        if not cells:
            continue
        text = f"`{variant}` ({cells} program × strategy pairs, 1 → 2 threads): states/s {_span(state_scaling)}"
        if z3_scaling:
            text += f", z3 calls/s {_span(z3_scaling)}"
        if slowdown:
            text += f"; every stage on gives {_span(slowdown, '{:.0f}')} its states/s"
        parts.append(text)
    if not parts:
        return None
    plain_z3 = sum(stat(r, "expr.z3_calls") for r in plain(runs))
    return ("**z3 contention and the cache.** Geometric means, ranges in brackets: " + "; ".join(parts) +
            f". z3 contention would show as z3 calls per second well under ×2 from 1 to 2 threads. With every "
            f"stage on the runs made {plain_z3:.0f} z3 calls in all: the cache and the structural stage answer "
            f"every query, so z3's cost and any contention on it leave the search.")


def ranks_paragraph(results):
    pairs = rank_speedups(where(main_runs(results), threads=1))
    if not pairs:
        return None
    text = ("**MPI ranks.** Wall time at 1 rank over 2 ranks, 1 thread each (geometric mean): " +
            "; ".join(f"{s} {geomean(v.values()):.2f}× over {len(v)} programs" for s, v in sorted(pairs.items()))
            + ".")
    z3 = {}
    for (program, strategy, variant), rs in group([r for r in where(results, threads=1) if r.variant], "program",
                                                  "strategy", "variant").items():
        per = {n: z3_per_1000_states(g) for (n,), g in group(rs, "ranks").items()}
        if len(per) > 1:
            z3[program, f"{strategy} ({variant})"] = per
    if z3:
        text += (" With z3 answering, z3 calls per 1000 states: " + "; ".join(
            f"{s} on {p} " + ", ".join(f"{v:.1f} at {n} rank{'s' if n > 1 else ''}" for n, v in sorted(per.items()))
            for (p, s), per in z3.items()) + " (runs stopped by a time limit: each rate is over the part of the "
            "search it reached).")
    return text


def anytime_paragraph(results):
    runs = where(plain(results), ranks=1)
    lines = []
    for (space,), rs in group(runs, "space").items():
        firsts, counts = {}, {}
        for (program,), g in group(rs, "program").items():
            cells = {s: max(where(g, strategy=s), key=lambda r: r.threads) for s in ("bfs", "dfs-omp")
                     if where(g, strategy=s)}
            if len(cells) < 2 or cells["bfs"].threads != cells["dfs-omp"].threads:
                continue
            first = {s: r.seconds("time_to_first_s") for s, r in cells.items()}
            counts[program] = {s: len(r.doc.get("mugraphs") or []) for s, r in cells.items()}
            firsts[program] = first
        firsts = {p: f for p, f in firsts.items() if any(v is not None for v in f.values())}
        if not firsts:
            continue
        earlier = [p for p, f in firsts.items() if f["bfs"] is not None and (f["dfs-omp"] is None or f["bfs"] < f["dfs-omp"])]
        shown = ", ".join(f"{p} bfs {_s(f['bfs'])} / dfs-omp {_s(f['dfs-omp'])}"
                          f" ({counts[p]['bfs']} / {counts[p]['dfs-omp']} μGraphs)" for p, f in firsts.items())
        lines.append(f"{f'in the `{space}` space' if space else 'in these runs'} bfs found its first μGraph first on {len(earlier)} of {len(firsts)} "
                     f"programs ({shown})")
    if not lines:
        return None
    return "**Anytime.** Time to the first μGraph, bfs against dfs-omp at the same threads: " + "; ".join(lines) + "."


def _s(seconds):
    return "none" if seconds is None else f"{seconds:.2f} s"


def frontier_paragraph(results):
    bfs = [r for r in where(plain(results), strategy="bfs") if r.stats.get("levels")]
    if not bfs:
        return None
    widest = max(bfs, key=lambda r: max(lv.get("frontier", 0) for lv in r.stats["levels"]))
    level = max(widest.stats["levels"], key=lambda lv: lv.get("frontier", 0))
    chunked = [r for r in bfs if stat(r, "chunks") > 0]
    stopped = [r for r in bfs if r.partial]
    where_ = f"{widest.program}, {widest.space} space" if widest.space else widest.program
    text = (f"**The frontier.** The widest level held {level['frontier']:,} states ({where_}, "
            f"level {level['level']}); the largest peak was "
            f"{max(stat(r, 'peak_frontier_mib') for r in bfs):.0f} MiB. {len(chunked)} of {len(bfs)} bfs runs "
            f"passed the memory limit and searched a level in chunks.")
    tested = [(r, lv) for r in bfs for lv in r.stats["levels"] if lv.get("fingerprint_calls", 0) > 0]
    if tested:
        run, lv = max(tested, key=lambda t: t[1]["fingerprints"])
        dense_run, dense = max(tested, key=lambda t: t[1]["fingerprints"] / t[1]["fingerprint_calls"])
        text += (f" The largest bulk test fingerprinted {lv['fingerprints']:,} completions of one level "
                 f"({_run_at(run, lv)}) in {lv['fingerprint_calls']:,} backend calls; the most completions "
                 f"per call, {dense['fingerprints'] / dense['fingerprint_calls']:,.1f}, were on "
                 f"{_run_at(dense_run, dense)}. Where the backend does not ask for batches (the CPU on the "
                 "`_small` programs), each completion is its own call.")
    if stopped:
        deepest = {f"{r.program} ({r.space})": max(lv["level"] for lv in r.stats["levels"]) for r in stopped}
        text += (" Stopped by their time limit, bfs runs had reached level " +
                 ", ".join(f"{lvl} on {p}" for p, lvl in deepest.items()) +
                 ": a level-synchronous search completes μGraphs only once it reaches their depth, which is "
                 "why it finds fewer in a large space under a short limit.")
    return text


def conclusions(results):
    """The section's Markdown lines; [] when no paragraph has its runs."""
    main = main_runs(results)
    setting = main_setting(main)
    paragraphs = [speedup_paragraph(main, setting) if setting else None, bfs_paragraph(main),
                  load_paragraph(main, setting) if setting else None, oracle_paragraph(results),
                  ranks_paragraph(results), anytime_paragraph(results), frontier_paragraph(results)]
    paragraphs = [p for p in paragraphs if p]
    if not paragraphs:
        return []
    space = main_space(results)
    lead = (f"Computed from the results above{f' (comparisons in the `{space}` space)' if space else ''}; "
            "each paragraph answers one question with its numbers.\n")
    return ["## Conclusions\n", lead, *[p + "\n" for p in paragraphs]]
