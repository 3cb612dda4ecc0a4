"""Loading ugsearch results files and grouping them; the plots and the report read nothing else.

A results path is one results file, a directory of them, or the runner's output directory (its
cells/ folder is read; index.json and logs are not needed).
"""
import gzip
import json
import math
import os
import statistics
import sys
from dataclasses import dataclass


# (cache on, structural stage on) -> the variant's name; "" is the plain search.
VARIANTS = {(True, True): "", (False, True): "no-cache", (True, False): "no-structural", (False, False): "z3-only"}


@dataclass
class Result:
    path: str
    doc: dict

    @property
    def run(self):
        return self.doc["run"]

    @property
    def stats(self):
        return self.doc.get("stats", {})

    @property
    def program(self):
        return self.doc.get("program", {}).get("name") or os.path.basename(self.path).split("__")[0]

    @property
    def strategy(self):
        return self.run.get("strategy", "?")

    @property
    def threads(self):
        return int(self.run.get("threads", 1))

    @property
    def ranks(self):
        return int(self.run.get("ranks", 1))

    @property
    def workers(self):
        return self.threads * self.ranks

    @property
    def backend(self):
        return self.run.get("backend", "?")

    @property
    def field(self):
        return self.run.get("field", "?")

    @property
    def space(self):
        """The search space (run.space: preset, open or mirage); None in results from before spaces."""
        return self.run.get("space")

    @property
    def seed(self):
        return self.run.get("seed", 0)

    @property
    def partial(self):
        return bool(self.run.get("partial"))

    @property
    def wall_s(self):
        return float(self.stats.get("wall_s", 0.0))

    @property
    def states(self):
        return int(self.stats.get("states_expanded", 0))

    def seconds(self, key):
        """A time statistic such as time_to_first_s; None when absent or null (no μGraph found)."""
        value = self.stats.get(key)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    @property
    def best_cost(self):
        graphs = self.doc.get("mugraphs") or []
        return graphs[0].get("cost") if graphs else None

    @property
    def found(self):
        """[(seconds into the run, estimated µs)] of its μGraphs in the order found; results files from
        before μGraphs were dated (no found_s) give []."""
        dated = [(g["found_s"], g["cost"]["estimated_us"]) for g in self.doc.get("mugraphs") or []
                 if isinstance(g.get("found_s"), (int, float)) and isinstance(g.get("cost"), dict)
                 and isinstance(g["cost"].get("estimated_us"), (int, float))]
        return sorted(dated)

    @property
    def variant(self):
        """Which of the oracle's stages the run turned off to measure them (config keys expr_cache and
        oracle_structural, named as the matrices label such cells): "" for a plain run."""
        config = self.doc.get("config") or {}
        cache = config.get("expr_cache", 1) != 0
        structural = config.get("oracle_structural", 1) != 0
        return VARIANTS[cache, structural]


def result_files(path):
    if os.path.isfile(path):
        return [path]
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{path}: no such results file or directory")
    folder = os.path.join(path, "cells") if os.path.isdir(os.path.join(path, "cells")) else path
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith((".json", ".json.gz")))


def load(path):
    """The results under path; files that are not results files are named on stderr and left out."""
    results = []
    for file in result_files(path):
        try:
            # Committed results may be gzipped: a run that lists thousands of μGraphs writes tens of MB.
            opener = gzip.open if file.endswith(".gz") else open
            with opener(file, "rt", encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"note: {file}: left out, not readable JSON ({e})", file=sys.stderr)
            continue
        if isinstance(doc, dict) and isinstance(doc.get("run"), dict) and isinstance(doc.get("stats"), dict):
            results.append(Result(file, doc))
        elif os.path.basename(file) != "index.json":
            print(f"note: {file}: left out, not a ugsearch results file", file=sys.stderr)
    return results


@dataclass
class Failed:
    """A cell of the runner's index that ended in an error and left no results file."""
    program: str
    strategy: str
    threads: int
    ranks: int
    backend: str
    field: str
    space: str | None
    error: str


def failed_cells(path):
    """The failed cells listed in the runner's index.json under path (a directory); [] without one."""
    try:
        with open(os.path.join(path, "index.json"), encoding="utf-8") as f:
            cells = json.load(f).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return []
    failed = []
    for c in cells:
        if not isinstance(c, dict) or c.get("status") != "error":
            continue
        program = str(c.get("program", "?"))
        if os.sep in program:  # a program file: named as the runner names its cells
            program = os.path.splitext(os.path.basename(program))[0]
        failed.append(Failed(program, str(c.get("strategy", "?")), int(c.get("threads", 1)),
                             int(c.get("ranks", 1)), str(c.get("backend", "?")), str(c.get("field", "?")),
                             c.get("space"), str(c.get("error") or "failed")))
    return failed


def group(results, *keys):
    """{(value of each key, ...): [results]}, keys being Result attribute names, in a stable order."""
    groups = {}
    for r in results:
        groups.setdefault(tuple(getattr(r, k) for k in keys), []).append(r)
    return dict(sorted(groups.items(), key=lambda kv: tuple(map(_sortable, kv[0]))))


def _sortable(value):
    return (0, value, "") if isinstance(value, (int, float)) else (1, 0, str(value))


def mean(values):
    values = list(values)
    return statistics.fmean(values) if values else float("nan")


def geomean(values):
    """The geometric mean of the positive, finite values; NaN without any."""
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def rate(runs, numerator):
    """numerator(run) summed over the runs, per second of their wall time."""
    wall = sum(r.wall_s for r in runs)
    return sum(numerator(r) for r in runs) / wall if wall > 0 else float("nan")


def where(results, **wanted):
    return [r for r in results if all(getattr(r, k) == v for k, v in wanted.items())]


def plain(results):
    """The runs with every oracle stage on (no variant)."""
    return [r for r in results if not r.variant]


SPACE_PREFERENCE = ["mirage", "preset", "open"]  # a tie in main_space goes to the earlier


def main_space(results):
    """The space (run.space) with the most plain runs; None when no run records one."""
    counts = group([r for r in plain(results) if r.space], "space")
    rank = lambda k: (len(counts[k]), -SPACE_PREFERENCE.index(k[0]) if k[0] in SPACE_PREFERENCE else -99)  # noqa: E731
    return max(counts, key=rank)[0] if counts else None


def main_runs(results):
    """What the strategy comparisons are drawn from: the plain runs of the main space (all plain runs
    when none records its space), so that no figure mixes two spaces or a variant with the search."""
    space = main_space(results)
    return [r for r in plain(results) if space is None or r.space == space]


def main_setting(results):
    """The (backend, field) with the most single-rank runs: figures that compare strategies use it."""
    counts = group(where(results, ranks=1), "backend", "field")
    if not counts:
        return None
    return max(counts, key=lambda k: len(counts[k]))


def stat(result, dotted):
    """A statistic by its path, e.g. "expr.z3_calls" or "phase_s.expand"; 0 when absent."""
    value = result.stats
    for part in dotted.split("."):
        value = value.get(part, 0) if isinstance(value, dict) else 0
    return value
