"""Matrix files: the experiments to run, as groups of parameter lists whose products are the cells.

A matrix is a JSON object. Its top-level keys are defaults for every group; each entry of "groups"
overrides some of them (a matrix without "groups" is one group). Groups exist because not every
product makes sense: dfs is sequential, so it runs at 1 thread only, while dfs-omp sweeps threads.
"""
import itertools
import json
import os
import re
from dataclasses import dataclass

BUILTINS = {name + suffix for suffix in ("", "_small") for name in (
    "rmsnorm_linear", "gated_mlp", "lora", "gqa", "mha", "mqa", "qknorm_gqa", "ntrans")}
CHOICES = {"strategies": {"dfs", "dfs-static", "dfs-omp", "dfs-mpi", "bfs"},
           "backends": {"auto", "cpu", "cuda"}, "fields": {"wide", "mirage"},
           "spaces": {"preset", "open", "mirage"}}
AXES = {"programs": str, "strategies": str, "threads": int, "ranks": int, "backends": str, "fields": str}
DEFAULTS = {"threads": [1], "ranks": [1], "backends": ["cpu"], "fields": ["wide"],
            "repetitions": 1, "seed": 1, "time_limit_s": None, "args": [], "label": None, "config": None}
# Optional axes: absent (None) means the flag is not passed and the cell's name does not mention it,
# so matrices written before the axis existed keep their cells' names.
OPTIONAL_AXES = {"spaces": None}
TOP_ONLY = {"description", "groups"}


class MatrixError(Exception):
    """A matrix file that cannot be used; the message names the file and the fix."""


@dataclass(frozen=True)
class Cell:
    program: str          # a built-in name or an absolute path
    strategy: str
    threads: int
    ranks: int
    backend: str
    field: str
    rep: int
    seed: int
    time_limit_s: float | None
    args: tuple = ()
    space: str | None = None  # --space; None: not passed (ugsearch's default)
    label: str | None = None  # a variant's name in the cell's id (cells that differ in config only)
    config: str | None = None  # search config keys (JSON text) passed with --config; needs a label

    @property
    def program_label(self):
        if self.program in BUILTINS:
            return self.program
        return re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.splitext(os.path.basename(self.program))[0])

    @property
    def id(self):
        space = f"__{self.space}" if self.space else ""
        label = f"__{self.label}" if self.label else ""
        return (f"{self.program_label}__{self.strategy}__t{self.threads}__r{self.ranks}"
                f"__{self.backend}__{self.field}{space}{label}__rep{self.rep}")

    def params(self):
        params = {"program": self.program, "strategy": self.strategy, "threads": self.threads,
                  "ranks": self.ranks, "backend": self.backend, "field": self.field, "rep": self.rep,
                  "seed": self.seed, "time_limit_s": self.time_limit_s, "args": list(self.args)}
        if self.space:  # only then, so that the index of a matrix without spaces is as before
            params["space"] = self.space
        if self.label:
            params["label"] = self.label
        if self.config:
            params["config"] = json.loads(self.config)
        return params


@dataclass
class Matrix:
    name: str
    path: str
    description: str
    cells: list


def resolve_path(name_or_path, matrices_dir):
    """A bare name means experiments/matrices/NAME.json; anything else is a file path."""
    if os.sep not in name_or_path and not name_or_path.endswith(".json"):
        return os.path.join(matrices_dir, name_or_path + ".json")
    return os.path.abspath(name_or_path)


def load(name_or_path, matrices_dir):
    path = resolve_path(name_or_path, matrices_dir)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        known = sorted(n[:-5] for n in os.listdir(matrices_dir) if n.endswith(".json"))
        raise MatrixError(f"{path}: no such matrix file; use one of {', '.join(known)} or a path")
    except (OSError, ValueError) as e:
        raise MatrixError(f"{path}: not valid JSON ({e}); check brackets, commas and quotes")
    if not isinstance(doc, dict):
        raise MatrixError(f"{path}: a matrix is a JSON object with keys such as programs, strategies, groups")
    cells = _cells(doc, path)
    name = os.path.splitext(os.path.basename(path))[0]
    return Matrix(name, path, str(doc.get("description", "")), cells)


def _cells(doc, path):
    defaults = {k: v for k, v in doc.items() if k not in TOP_ONLY}
    groups = doc.get("groups", [{}])
    if not isinstance(groups, list) or not groups or not all(isinstance(g, dict) for g in groups):
        raise MatrixError(f"{path}: \"groups\" must be a non-empty list of objects")
    cells, seen = [], set()
    for i, group in enumerate(groups):
        spec = {**DEFAULTS, **OPTIONAL_AXES, **defaults, **group}
        where = f"{path}: group {i}" if "groups" in doc else path
        for cell in _expand(_checked(spec, where, os.path.dirname(path))):
            if cell.id not in seen:  # groups may overlap; a cell runs once
                seen.add(cell.id)
                cells.append(cell)
    return cells


def _checked(spec, where, base_dir):
    unknown = set(spec) - set(AXES) - set(DEFAULTS) - set(OPTIONAL_AXES) - TOP_ONLY
    if unknown:
        raise MatrixError(f"{where}: unknown key {sorted(unknown)[0]!r}; keys are "
                          f"{', '.join(sorted(set(AXES) | set(DEFAULTS) | set(OPTIONAL_AXES)))}")
    if "programs" not in spec or "strategies" not in spec:
        raise MatrixError(f"{where}: needs \"programs\" and \"strategies\" (lists)")
    for key, kind in AXES.items():
        values = spec[key]
        if not isinstance(values, list) or not values or not all(_is(v, kind) for v in values):
            raise MatrixError(f"{where}: \"{key}\" must be a non-empty list of {kind.__name__}s")
        bad = [v for v in values if key in CHOICES and v not in CHOICES[key]]
        bad += [v for v in values if kind is int and v < 1]
        if bad:
            allowed = f"one of {', '.join(sorted(CHOICES[key]))}" if key in CHOICES else "an integer >= 1"
            raise MatrixError(f"{where}: {key} value {bad[0]!r} is not {allowed}")
    spaces = spec["spaces"]
    if spaces is not None:
        if not isinstance(spaces, list) or not spaces or not all(isinstance(v, str) for v in spaces):
            raise MatrixError(f"{where}: \"spaces\" must be a non-empty list of strings "
                              f"({', '.join(sorted(CHOICES['spaces']))}), or absent")
        bad = [v for v in spaces if v not in CHOICES["spaces"]]
        if bad:
            raise MatrixError(f"{where}: spaces value {bad[0]!r} is not one of "
                              f"{', '.join(sorted(CHOICES['spaces']))}")
    spec["programs"] = [_program(p, where, base_dir) for p in spec["programs"]]
    for key, ok, what in (("repetitions", lambda v: _is(v, int) and v >= 1, "an integer >= 1"),
                          ("seed", lambda v: _is(v, int) and v >= 0, "an integer >= 0"),
                          ("time_limit_s", lambda v: v is None or (_is(v, float) and v > 0), "seconds > 0"),
                          ("args", lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v),
                           "a list of strings (extra ugsearch search flags)"),
                          ("label", lambda v: v is None or (isinstance(v, str) and re.fullmatch(r"[a-z0-9][a-z0-9-]*", v)),
                           "a short name of lowercase letters, digits and hyphens"),
                          ("config", lambda v: v is None or (isinstance(v, dict) and v),
                           "an object of search config keys, e.g. {\"oracle_structural\": 0}")):
        if not ok(spec[key]):
            raise MatrixError(f"{where}: \"{key}\" must be {what}")
    if spec["config"] is not None and spec["label"] is None:
        raise MatrixError(f"{where}: a group with \"config\" needs a \"label\" naming the variant, so that its "
                          f"cells do not share names with the cells without it")
    return spec


def _is(value, kind):
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, kind) and not isinstance(value, bool)


def _program(name, where, base_dir):
    if name in BUILTINS:
        return name
    path = os.path.join(base_dir, name)
    if not os.path.isfile(path):
        raise MatrixError(f"{where}: program {name!r} is neither a built-in (see 'ugsearch programs') "
                          f"nor a file next to the matrix")
    return os.path.abspath(path)


def _expand(spec):
    # Repetition k uses seed + k, so repetitions also sample the fingerprint tests independently;
    # repetitions are the outer loop so that a cut-short run still covers every configuration once.
    for rep in range(spec["repetitions"]):
        for values in itertools.product(*(spec[axis] for axis in AXES)):
            for space in spec["spaces"] or [None]:
                config = json.dumps(spec["config"], sort_keys=True) if spec["config"] else None
                yield Cell(*values, rep=rep, seed=spec["seed"] + rep, time_limit_s=spec["time_limit_s"],
                           args=tuple(spec["args"]), space=space, label=spec["label"], config=config)
