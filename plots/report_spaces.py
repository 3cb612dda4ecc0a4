"""The report's "Search spaces" section: the same programs searched in each space (`--space`, recorded
as run.space), side by side, with one table per program and the spaces of a strategy on adjacent rows.

Only results with run.space take part; without any, the section is empty and the report leaves it out.
Cells that failed (the runner's index says error, and no results file exists) get a row that says so.
"""
from results import Failed, group, mean

# The built-in programs in the order of docs/programs; other programs follow alphabetically.
PROGRAM_ORDER = ["rmsnorm_linear", "gated_mlp", "lora", "gqa", "mha", "mqa", "qknorm_gqa", "ntrans"]
SPACE_ORDER = ["preset", "mirage", "open"]
SMALL = "_small"
# Published search times, put beside the rows of a full-size program in a space.
PUBLISHED = {("rmsnorm_linear", "mirage"):
             "Mirage (OSDI'25, Table 5): 11–28 s with 16 threads and a GPU, 58–183 s on one thread"}
COLUMNS = ["size", "strategy", "space", "states", "candidates", "fingerprints", "μGraphs", "best µs",
           "first s", "best s", "total s", "outcome"]


def spaces_section(results, failed=()):
    """The section's Markdown lines; [] when no result records its space. failed: results.Failed
    cells (from the runner's index); those with a space and no results of their own get a row."""
    spaced = [r for r in results if r.space]
    if not spaced:
        return []
    have = {_key(r) for r in spaced}
    failed = [f for f in failed if f.space and _key(f) not in have]
    settings = group(spaced + failed, "threads", "ranks", "backend", "field")
    runs_per_row = max(len(runs) for runs in group(spaced, "program", "strategy", "threads", "ranks",
                                                    "backend", "field", "space").values())
    lines = ["## Search spaces\n",
             "Each program searched from each space (`--space`; docs/search.md, \"Spaces\"): one table per "
             "program, the spaces of a size and strategy on adjacent rows. "
             + _setting_sentence(settings, runs_per_row)
             + " Columns: states expanded, candidate steps, fingerprint evaluations, μGraphs found, the best "
             "one's estimated time (µs, on the cost model's GPU), when the first and the best μGraph were "
             "confirmed and the run's wall time (s), and whether the search completed or was stopped "
             "(its numbers are then how far it got). –: no μGraph found.\n",
             _outcome_paragraph(spaced, failed) + "\n"]
    by_family = {}
    for r in spaced + failed:
        by_family.setdefault(_family(r.program), []).append(r)
    for family in sorted(by_family, key=_program_key):
        lines += [f"### {family}\n", _table(by_family[family], family, len(settings) > 1), ""]
    return lines


KEYS = ("program", "strategy", "threads", "ranks", "backend", "field", "space")


def _key(r):
    return tuple(getattr(r, k) for k in KEYS)


def _family(program):
    return program[:-len(SMALL)] if program.endswith(SMALL) else program


def _program_key(name):
    return (PROGRAM_ORDER.index(name), "") if name in PROGRAM_ORDER else (len(PROGRAM_ORDER), name)


def _space_key(space):
    return (SPACE_ORDER.index(space), "") if space in SPACE_ORDER else (len(SPACE_ORDER), space)


def _setting(r):
    return f"t{r.threads} r{r.ranks} {r.backend} {r.field}"


def _setting_sentence(settings, runs_per_row):
    if len(settings) == 1:
        (threads, ranks, backend, field), = settings
        text = (f"Every run: {threads} thread{'s' * (threads != 1)}, {ranks} rank{'s' * (ranks != 1)}, "
                f"{backend} fingerprints, {field} field.")
    else:
        text = "The setting column gives threads (t), ranks (r), fingerprint backend and field."
    if runs_per_row > 1:
        text += (" Repetitions averaged; the best cost is the lowest found, and the first and best times "
                 "average the runs that found a μGraph.")
    return text


def _outcome_paragraph(spaced, failed):
    """Per space, the runs that completed, were stopped and failed, and how many found a μGraph."""
    parts = []
    for (space,), runs in sorted(group(spaced + failed, "space").items(), key=lambda kv: _space_key(kv[0][0])):
        ran = [r for r in runs if not isinstance(r, Failed)]
        stopped = [r for r in ran if r.partial]
        limits = sorted({round(float(r.run.get("time_limit_s") or 0)) for r in stopped
                         if r.run.get("stopped_by") == "time_limit"} - {0})
        text = (f"**{space}**: {len(ran) - len(stopped)} of {len(runs)} runs completed, {len(stopped)} stopped"
                + (f" at the time limit ({', '.join(f'{s} s' for s in limits)})" if limits else ""))
        if len(runs) > len(ran):
            text += f", {len(runs) - len(ran)} failed without results"
        found = sum(bool(r.doc.get("mugraphs")) for r in ran)
        parts.append(f"{text}, {found} found a μGraph")
    return "Per space: " + "; ".join(parts) + "."


def _table(runs, family, with_setting):
    rows = []
    for key, cell in group(runs, *KEYS).items():
        program, strategy, *_, space = key
        size = "small" if program.endswith(SMALL) else "full"
        published = PUBLISHED.get((family, space)) if size == "full" else None
        order = (size != "small", strategy, _setting(cell[0]), _space_key(space))
        numbers = _numbers(cell) if not isinstance(cell[0], Failed) else ["–"] * 8 + [_failure(cell)]
        row = [size, strategy] + ([_setting(cell[0])] if with_setting else []) + [space, *numbers]
        rows.append((order, row, published))
    rows.sort(key=lambda t: t[0])
    columns = COLUMNS[:2] + (["setting"] if with_setting else []) + COLUMNS[2:]
    if any(published for *_, published in rows):
        columns = columns + ["published"]
        rows = [(o, row + [published or ""], published) for o, row, published in rows]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row) + " |" for _, row, _ in rows]
    return "\n".join(lines)


def _numbers(runs):
    """states, candidates, fingerprints, μGraphs, best µs, first s, best s, total s, outcome."""
    costs = [r.best_cost.get("estimated_us") for r in runs if r.best_cost]
    costs = [c for c in costs if isinstance(c, (int, float))]
    firsts = [t for t in (r.seconds("time_to_first_s") for r in runs) if t is not None]
    bests = [t for t in (r.seconds("time_to_best_s") for r in runs) if t is not None]
    return [_count(mean(r.states for r in runs)),
            _count(mean(r.stats.get("candidates", 0) for r in runs)),
            _count(mean(r.stats.get("fingerprint_evals", 0) for r in runs)),
            _count(mean(len(r.doc.get("mugraphs") or []) for r in runs)),
            f"{min(costs):.2f}" if costs else "–",
            _seconds(mean(firsts)) if firsts else "–",
            _seconds(mean(bests)) if bests else "–",
            _seconds(mean(r.wall_s for r in runs)),
            _outcome(runs)]


def _failure(failed):
    reasons = sorted({f.error.replace("|", "/") for f in failed})
    return "failed: " + "; ".join(reasons)


def _outcome(runs):
    stopped = [r for r in runs if r.partial]
    if not stopped:
        return "completed"
    at = f"{max(r.wall_s for r in stopped):.0f} s"
    by = {r.run.get("stopped_by") for r in stopped} - {None, "time_limit"}
    how = f"stopped ({', '.join(sorted(by))}) at {at}" if by else f"stopped at {at}"
    return how if len(stopped) == len(runs) else f"{len(stopped)} of {len(runs)} {how}"


def _count(value):
    return f"{value:,.0f}"


def _seconds(value):
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"
