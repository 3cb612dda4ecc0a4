#!/usr/bin/env python3
"""Checks that the parts of ugsearch include each other only downward (docs/layers.md).

Reads every `#include "..."` line of include/, src/ and cuda/ (and of tests/ and bench/, which sit
above every part), resolves each include as the compiler does (the including file's folder, then
include/, src/, cuda/), maps the file and the header to a part and enforces the layers and the rules
below. Prints one line per offending include and exits 1, or a one-line summary and exits 0.

  scripts/check_layers.py                  check the tree
  scripts/check_layers.py --draw FILE.svg  also draw the parts and their include edges (Graphviz dot)
  scripts/check_layers.py --self-test      check the checker on small synthetic trees

Python 3 standard library only.
"""
import argparse
import collections
import fnmatch
import os
import posixpath
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = "docs/layers.md"

# The parts, lowest layer first. A part may include its own part and any part on a lower layer;
# never a part on its own layer (ir and field, expr and eval are independent) or above.
LAYERS = [
    ["util"],
    ["ir", "field"],
    ["expr", "eval"],
    ["cost"],
    ["cuda"],  # cuda/, src/cuda_stub/, include/ugs/cuda/: implements eval's Backend
    ["search"],
    ["io"],
    ["cli"],
]
# Inside search, lowest first; "search" is its top: search.cpp, found.*, monitor.h and the public
# include/ugs/search/search.h and engine.h.
SEARCH_LAYERS = [
    ["search/generator"],
    ["search/distributed"],
    ["search/bfs", "search/dfs"],
    ["search"],
]
# Above every part: they may include anything, and the CUDA rule does not apply to them.
TEST_PARTS = ["tests", "bench"]

# Who may include the CUDA layer's headers at all (the CUDA rule); tests/ and bench/ are exempt.
CUDA_PUBLIC = "include/ugs/cuda/*"
CUDA_PRIVATE = "cuda/*"
CUDA_PUBLIC_USERS = ["cuda/*", "src/cuda_stub/*", "include/ugs/cuda/*", "src/eval/backend.cpp"]
CUDA_PRIVATE_USERS = ["cuda/*"]

DRIVERS = ["search/bfs", "search/dfs", "search/distributed"]
# Includes the layers would refuse but that are allowed: (who: files (globs) or parts, headers
# (globs), why). Keep this short; each entry is listed in docs/layers.md.
EXCEPTIONS = [
    (["src/eval/backend.cpp"], ["include/ugs/cuda/*"],
     "the one backend factory: it picks the CPU or CUDA backend at run time, so nothing above eval "
     "names CUDA"),
    (["search/distributed"], ["src/search/bfs/state_codec.h"],
     "the compact state encoding that state_wire sends between ranks (dfs-mpi, bfs, checkpoints)"),
    (DRIVERS, ["include/ugs/search/search.h", "include/ugs/search/engine.h"],
     "the search's public types (config, results, Engine, Worker) that every driver fills and runs"),
    (DRIVERS, ["src/search/monitor.h", "src/search/found.h"],
     "the top's two shared helpers: the watchdog/progress monitor (bfs) and the found-list pricing "
     "that merging the ranks' results reuses (distributed)"),
]

SCANNED = ["include", "src", "cuda", "tests", "bench"]
INCLUDE_ROOTS = ["include", "src", "cuda"]
SOURCE_EXT = (".h", ".hh", ".hpp", ".inc", ".ipp", ".def", ".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')

PARTS = [p for layer in LAYERS for p in layer]
SEARCH_PARTS = [p for layer in SEARCH_LAYERS for p in layer]
LAYER_OF = {p: i for i, layer in enumerate(LAYERS) for p in layer}
LAYER_OF.update({p: len(LAYERS) for p in TEST_PARTS})
SEARCH_LAYER_OF = {p: i for i, layer in enumerate(SEARCH_LAYERS) for p in layer}


def part_of(path):
    """The part (a search sub-part is "search/<sub>") a repository path belongs to, or None."""
    p = path.split("/")
    if p[0] in TEST_PARTS:
        return p[0]
    if p[0] == "cuda":
        return "cuda"
    if p[0] == "include" and len(p) > 3 and p[1] == "ugs":
        part, rest = p[2], p[3:]
    elif p[0] == "src" and len(p) > 2:
        part, rest = p[1], p[2:]
    else:
        return None
    if part == "cuda_stub":
        part = "cuda"
    if part == "search" and len(rest) > 1:
        sub = "search/" + rest[0]
        return sub if sub in SEARCH_PARTS else None
    return part if part in PARTS else None


def top_part(part):
    return part.split("/")[0]


def matches(path, patterns):
    return any(fnmatch.fnmatchcase(path, pat) for pat in patterns)


def exception_for(src, src_part, target):
    for who, headers, why in EXCEPTIONS:
        if (src_part in who or matches(src, who)) and matches(target, headers):
            return why
    return None


def resolve(src, name, paths):
    """The repository path `#include "name"` in file `src` reaches, or None."""
    for base in [posixpath.dirname(src)] + INCLUDE_ROOTS:
        cand = posixpath.normpath(posixpath.join(base, name))
        if cand in paths:
            return cand
    return None


def layer_allows(src_part, dst_part):
    """Whether the layers alone let src_part include dst_part."""
    if src_part == dst_part or src_part in TEST_PARTS:
        return True
    s, d = top_part(src_part), top_part(dst_part)
    if s == d:  # inside search
        return SEARCH_LAYER_OF[dst_part] < SEARCH_LAYER_OF[src_part]
    return LAYER_OF[d] < LAYER_OF[s]


def cuda_rule_allows(src, src_part, dst):
    if src_part in TEST_PARTS:
        return True
    if matches(dst, [CUDA_PRIVATE]) and not matches(src, CUDA_PRIVATE_USERS):
        return False
    if matches(dst, [CUDA_PUBLIC]) and not matches(src, CUDA_PUBLIC_USERS):
        return False
    return True


def label(path, part, included=False):
    """A part as messages name it: the stub and cuda/'s private headers are told apart."""
    if path.startswith("src/cuda_stub/"):
        return "cuda (stub)"
    if included and matches(path, [CUDA_PRIVATE]):
        return "cuda/ (private)"
    return part


def includes_of(text):
    for n, line in enumerate(text.splitlines(), 1):
        m = INCLUDE_RE.match(line)
        if m:
            yield n, m.group(1)


def check(files):
    """files: {repository path: text}. Returns (violations, edges, stats).

    violations: lines to print; edges: {(from part, to part): [count, kind]} with kind "ok",
    "exception" or "violation"; stats: counts for the summary."""
    paths = set(files)
    violations = []
    edges = {}
    stats = collections.Counter()
    for src in sorted(files):
        src_part = part_of(src)
        stats["files"] += 1
        if src_part is None:
            violations.append("%s:1: is in no part: add its folder to LAYERS in scripts/check_layers.py "
                              "and to %s" % (src, DOC))
            continue
        for line, name in includes_of(files[src]):
            stats["includes"] += 1
            where = "%s:%d: includes %s: " % (src, line, name)
            dst = resolve(src, name, paths)
            if dst is None:
                violations.append(where + "found in neither %s/ nor %s (layers: %s)"
                                  % (posixpath.dirname(src), ", ".join(r + "/" for r in INCLUDE_ROOTS), DOC))
                continue
            dst_part = part_of(dst)
            if dst_part is None:
                violations.append(where + "%s is in no part (layers: %s)" % (dst, DOC))
                continue
            kind = "ok"
            if not cuda_rule_allows(src, src_part, dst) or not layer_allows(src_part, dst_part):
                if exception_for(src, src_part, dst) is None:
                    violations.append(where + "%s may not use %s (layers: %s)"
                                      % (label(src, src_part), label(dst, dst_part, True), DOC))
                    kind = "violation"
                else:
                    kind = "exception"
                    stats["exceptions"] += 1
            if src_part != dst_part:
                e = edges.setdefault((src_part, dst_part), [0, "ok"])
                e[0] += 1
                if kind == "violation" or (kind == "exception" and e[1] == "ok"):
                    e[1] = kind
    return violations, edges, stats


def load_tree(root):
    files = {}
    for top in SCANNED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for f in filenames:
                if f.endswith(SOURCE_EXT):
                    full = os.path.join(dirpath, f)
                    rel = os.path.relpath(full, root).replace(os.sep, "/")
                    with open(full, encoding="utf-8", errors="replace") as fh:
                        files[rel] = fh.read()
    return files


# ---- the picture ----

NODE_LABEL = {
    "cuda": "cuda\\n(cuda/, src/cuda_stub)",
    "search": "top\\nsearch.cpp, found, monitor,\\nsearch.h, engine.h",
    "search/generator": "generator",
    "search/distributed": "distributed",
    "search/bfs": "bfs",
    "search/dfs": "dfs",
}


def node_id(part):
    return '"%s"' % part


def to_dot(edges):
    """The DOT text of the picture: one node per part, the search sub-parts in a cluster, layered top
    (cli) to bottom (util). Includes from any search sub-part into a lower part are drawn as one edge
    from the cluster; upward exceptions are dashed and do not move the layers; violations are red."""
    merged = collections.OrderedDict()
    for (a, b), (count, kind) in sorted(edges.items()):
        if a in TEST_PARTS or b in TEST_PARTS:
            continue
        if top_part(a) == "search" and top_part(b) != "search" and kind != "violation":
            a = "cluster_search"
        e = merged.setdefault((a, b), [0, kind])
        e[0] += count
        if kind != "ok":
            e[1] = kind
    out = [
        "digraph parts {",
        '  graph [rankdir=TB, newrank=true, compound=true, ranksep=0.4, nodesep=0.3,'
        ' fontname="Helvetica", fontsize=10, labelloc=b,',
        '         label="A -> B: A includes B (number of #include lines).  Dashed: an allowed exception.'
        '  Layers and rules: %s"];' % DOC,
        '  node [shape=box, style="rounded,filled", fillcolor="#eef3fb", color="#5b7db1",'
        ' fontname="Helvetica", fontsize=12, height=0.35];',
        '  edge [color="#9a9a9a", fontname="Helvetica", fontsize=9, fontcolor="#666666", arrowsize=0.6];',
    ]
    ranks = []  # node lists, top rank first
    for layer in reversed(LAYERS):
        if layer == ["search"]:
            out.append("  subgraph cluster_search {")
            out.append('    label="search"; labeljust=l; fontsize=12; style=rounded; color="#c08a2b";')
            for sub in reversed(SEARCH_LAYERS):
                for p in sub:
                    out.append('    %s [label="%s", fillcolor="#fdf3e1", color="#c08a2b"];'
                               % (node_id(p), NODE_LABEL.get(p, p)))
                ranks.append(sub)
            out.append("  }")
        else:
            for p in layer:
                out.append('  %s [label="%s"];' % (node_id(p), NODE_LABEL.get(p, p)))
            ranks.append(layer)
    for r in ranks:
        if len(r) > 1:
            out.append("  { rank=same; %s }" % "; ".join(node_id(p) for p in r))
    # Invisible edges stack the ranks where no include does (cuda under search, cost under cuda).
    for upper, lower in zip(ranks, ranks[1:]):
        out.append("  %s -> %s [style=invis];" % (node_id(upper[0]), node_id(lower[0])))
    bottom_of_search = node_id(SEARCH_LAYERS[0][0])
    for (a, b), (count, kind) in merged.items():
        attrs = ['label=" %d"' % count]
        if a == "cluster_search":
            a_id = bottom_of_search
            attrs.append("ltail=cluster_search")
        else:
            a_id = node_id(a)
        if kind == "exception":
            attrs += ["style=dashed", 'color="#d07a00"', 'fontcolor="#d07a00"', "constraint=false"]
        elif kind == "violation":
            attrs += ['color="#d00000"', 'fontcolor="#d00000"', "penwidth=2", "constraint=false"]
        out.append("  %s -> %s [%s];" % (a_id, node_id(b), ", ".join(attrs)))
    out.append("}")
    return "\n".join(out) + "\n"


def draw(edges, svg_path):
    dot = shutil.which("dot")
    if dot is None:
        sys.exit("check_layers: --draw needs Graphviz's dot (apt-get install graphviz)")
    res = subprocess.run([dot, "-Tsvg", "-o", svg_path], input=to_dot(edges).encode(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if res.returncode != 0:
        sys.exit("check_layers: dot failed: " + res.stderr.decode(errors="replace"))


# ---- the self-test ----

# A small tree that obeys every rule: {path: [included names]}.
GOOD_TREE = {
    "include/ugs/util/hash.h": [],
    "include/ugs/ir/graph.h": ["ugs/util/hash.h"],
    "include/ugs/field/field.h": ["ugs/util/hash.h"],
    "include/ugs/expr/expr.h": ["ugs/ir/graph.h"],
    "src/expr/algebra.h": ["ugs/expr/expr.h"],
    "src/expr/algebra.cpp": ["algebra.h"],
    "include/ugs/eval/backend.h": ["ugs/ir/graph.h", "ugs/field/field.h"],
    "src/eval/verify.cpp": ["ugs/eval/backend.h"],
    "src/eval/backend.cpp": ["ugs/eval/backend.h", "ugs/cuda/backend.h"],
    "include/ugs/cost/cost.h": ["ugs/ir/graph.h"],
    "src/cost/estimate.cpp": ["ugs/cost/cost.h", "ugs/eval/backend.h"],
    "include/ugs/cuda/backend.h": ["ugs/eval/backend.h"],
    "cuda/plan.h": ["ugs/cuda/backend.h", "ugs/field/field.h"],
    "cuda/plan.cpp": ["plan.h", "ugs/cost/cost.h"],
    "src/cuda_stub/device_stub.cpp": ["ugs/cuda/backend.h"],
    "include/ugs/search/generator/generator.h": ["ugs/expr/expr.h", "ugs/eval/backend.h"],
    "src/search/generator/reach.h": ["ugs/search/generator/generator.h"],
    "src/search/generator/generator.cpp": ["search/generator/reach.h"],
    "include/ugs/search/engine.h": ["ugs/search/generator/generator.h"],
    "include/ugs/search/search.h": ["ugs/search/engine.h", "ugs/cost/cost.h"],
    "src/search/monitor.h": ["ugs/search/engine.h"],
    "src/search/found.h": ["ugs/search/search.h"],
    "src/search/progress.h": [],
    "include/ugs/search/distributed/comm.h": [],
    "src/search/distributed/wire.h": [],
    "src/search/distributed/state_wire.h": ["search/bfs/state_codec.h", "search/distributed/wire.h"],
    "src/search/distributed/rank_merge.cpp": ["search/found.h", "ugs/search/search.h",
                                              "ugs/search/distributed/comm.h"],
    "src/search/bfs/state_codec.h": ["ugs/search/generator/generator.h"],
    "src/search/bfs/bfs.h": ["search/monitor.h", "ugs/search/search.h", "search/distributed/state_wire.h"],
    "include/ugs/search/bfs/checkpoint.h": ["ugs/search/engine.h", "ugs/search/search.h"],
    "src/search/dfs/drivers.h": ["ugs/search/engine.h", "ugs/search/distributed/comm.h"],
    "src/search/search.cpp": ["search/bfs/bfs.h", "search/dfs/drivers.h", "search/found.h",
                              "search/monitor.h", "search/progress.h", "ugs/eval/backend.h"],
    "include/ugs/io/results_file.h": ["ugs/search/search.h", "ugs/search/bfs/checkpoint.h"],
    "src/io/results_file.cpp": ["ugs/io/results_file.h", "ugs/cost/cost.h"],
    "src/cli/verbs.h": [],
    "src/cli/main.cpp": ["verbs.h", "ugs/io/results_file.h", "ugs/search/distributed/comm.h",
                         "ugs/eval/backend.h", "ugs/util/hash.h"],
    "tests/test_util.h": [],
    "tests/test_cuda_plan.cpp": ["test_util.h", "plan.h", "ugs/cuda/backend.h", "search/bfs/state_codec.h"],
    "bench/plan_build.cpp": ["plan.h", "ugs/cuda/backend.h"],
}

# (what it shows, file, added include, the expected complaint or None when it must pass)
SELF_CASES = [
    # the layers
    ("util uses ir", "include/ugs/util/hash.h", "ugs/ir/graph.h", "util may not use ir"),
    ("ir and field are one layer", "include/ugs/ir/graph.h", "ugs/field/field.h", "ir may not use field"),
    ("expr and eval are one layer", "src/expr/algebra.cpp", "ugs/eval/backend.h", "expr may not use eval"),
    ("eval is below cost", "src/eval/verify.cpp", "ugs/cost/cost.h", "eval may not use cost"),
    ("cost is below cuda", "src/cost/estimate.cpp", "ugs/cuda/backend.h", "cost may not use cuda"),
    ("cuda is below search", "cuda/plan.cpp", "ugs/search/search.h", "cuda may not use search"),
    ("search uses io", "src/search/bfs/bfs.h", "ugs/io/results_file.h", "search/bfs may not use io"),
    ("search's header uses io", "include/ugs/search/search.h", "ugs/io/results_file.h",
     "search may not use io"),
    ("search uses cli", "src/search/search.cpp", "cli/verbs.h", "search may not use cli"),
    ("io uses cli", "src/io/results_file.cpp", "cli/verbs.h", "io may not use cli"),
    ("a part uses a test helper", "src/cli/main.cpp", "../../tests/test_util.h", "cli may not use tests"),
    ("io uses search", "src/io/results_file.cpp", "search/found.h", None),
    ("cli uses every layer", "src/cli/main.cpp", "search/progress.h", None),
    ("cuda uses a lower part", "cuda/plan.cpp", "ugs/eval/backend.h", None),
    # the CUDA rule
    ("search uses cuda's header", "src/search/search.cpp", "ugs/cuda/backend.h", "search may not use cuda"),
    ("search's public header uses cuda", "include/ugs/search/engine.h", "ugs/cuda/backend.h",
     "search may not use cuda"),
    ("eval besides the factory uses cuda", "src/eval/verify.cpp", "ugs/cuda/backend.h",
     "eval may not use cuda"),
    ("the factory uses cuda/'s own header", "src/eval/backend.cpp", "../../cuda/plan.h",
     "eval may not use cuda/ (private)"),
    ("cli uses cuda's header", "src/cli/main.cpp", "ugs/cuda/backend.h", "cli may not use cuda"),
    ("cli uses cuda/'s own header", "src/cli/main.cpp", "plan.h", "cli may not use cuda/ (private)"),
    ("the stub uses cuda/'s own header", "src/cuda_stub/device_stub.cpp", "plan.h",
     "cuda (stub) may not use cuda/ (private)"),
    ("cuda's public header uses cuda/'s own", "include/ugs/cuda/backend.h", "../../../cuda/plan.h",
     "cuda may not use cuda/ (private)"),
    ("a test includes what does not exist", "tests/test_util.h", "missing.h", "found in neither"),
    ("tests use cuda/'s own header", "tests/test_util.h", "plan.h", None),
    ("bench uses cuda's header", "bench/plan_build.cpp", "ugs/cuda/backend.h", None),
    # inside search
    ("generator uses the top's header", "src/search/generator/generator.cpp", "ugs/search/engine.h",
     "search/generator may not use search"),
    ("generator uses bfs", "src/search/generator/generator.cpp", "search/bfs/state_codec.h",
     "search/generator may not use search/bfs"),
    ("generator uses distributed", "src/search/generator/reach.h", "search/distributed/wire.h",
     "search/generator may not use search/distributed"),
    ("distributed uses bfs beyond state_codec.h", "src/search/distributed/state_wire.h", "search/bfs/bfs.h",
     "search/distributed may not use search/bfs"),
    ("distributed uses dfs", "src/search/distributed/rank_merge.cpp", "search/dfs/drivers.h",
     "search/distributed may not use search/dfs"),
    ("bfs uses dfs", "src/search/bfs/bfs.h", "search/dfs/drivers.h", "search/bfs may not use search/dfs"),
    ("dfs uses bfs", "src/search/dfs/drivers.h", "search/bfs/state_codec.h",
     "search/dfs may not use search/bfs"),
    ("a driver uses another top file", "src/search/bfs/bfs.h", "search/progress.h",
     "search/bfs may not use search"),
    ("dfs uses found.h", "src/search/dfs/drivers.h", "search/found.h", None),
    ("dfs uses distributed", "src/search/dfs/drivers.h", "search/distributed/state_wire.h", None),
    ("bfs's public header uses generator", "include/ugs/search/bfs/checkpoint.h",
     "ugs/search/generator/generator.h", None),
    # files the check cannot place
    ("an include that does not resolve", "src/cli/main.cpp", "nowhere.h", "found in neither"),
    ("a file in no part", "src/newpart/x.cpp", "ugs/util/hash.h", "is in no part"),
]


def self_test():
    def tree(extra=None):
        t = {p: "".join('#include "%s"\n' % n for n in names) for p, names in GOOD_TREE.items()}
        if extra:
            path, name = extra
            t[path] = t.get(path, "// a new file\n") + '  #  include "%s"  // added\n' % name
        return t

    failures = []
    v, edges, stats = check(tree())
    if v:
        failures.append("the good tree fails: " + "; ".join(v))
    if stats["exceptions"] != 9:
        failures.append("the good tree uses %d exceptions, expected 9" % stats["exceptions"])
    if edges.get(("search/distributed", "search/bfs"), [0, ""])[1] != "exception":
        failures.append("distributed -> bfs is not drawn as an exception")
    if "cluster_search" not in to_dot(edges):
        failures.append("the picture has no search cluster")
    for what, path, name, expect in SELF_CASES:
        t = tree((path, name))
        v, _, _ = check(t)
        line = t[path].count("\n")
        if expect is None:
            if v:
                failures.append("%s: should pass, got: %s" % (what, "; ".join(v)))
        elif len(v) != 1 or not v[0].startswith("%s:%d" % (path, 1 if "no part" in expect else line)) \
                or expect not in v[0]:
            failures.append("%s: expected one complaint '%s' at %s:%d, got: %s"
                            % (what, expect, path, line, "; ".join(v) or "none"))
    for f in failures:
        print("check_layers self-test: FAIL: " + f)
    if failures:
        return 1
    print("check_layers self-test: ok: %d cases (%d rejected, %d accepted) on a %d-file synthetic tree"
          % (len(SELF_CASES), sum(c[3] is not None for c in SELF_CASES),
             sum(c[3] is None for c in SELF_CASES), len(GOOD_TREE)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draw", metavar="FILE.svg", help="also draw the parts and their include edges")
    ap.add_argument("--self-test", action="store_true", help="check the checker on synthetic trees")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    files = load_tree(ROOT)
    violations, edges, stats = check(files)
    if args.draw:
        draw(edges, args.draw)
    for v in violations:
        print(v)
    if violations:
        return 1
    print("check_layers: ok: %d includes in %d files of %s; %d parts on %d layers, search in %d sub-layers; "
          "%d includes by the %d allowed exceptions (%s)"
          % (stats["includes"], stats["files"], ", ".join(d + "/" for d in SCANNED), len(PARTS), len(LAYERS),
             len(SEARCH_LAYERS), stats["exceptions"], len(EXCEPTIONS), DOC))
    return 0


if __name__ == "__main__":
    sys.exit(main())
