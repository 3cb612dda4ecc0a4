#!/usr/bin/python3
"""Writes a Markdown report from ugsearch results files: figures, key numbers, the machine, and the
best μGraph found per program.

  /usr/bin/python3 plots/report.py RESULTS [OUT_DIR] [--binary PATH]

OUT_DIR (default report/) receives REPORT.md, figures/ and mugraphs/.
"""
import argparse
import os
import statistics
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ folders in the source tree

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import machine  # noqa: E402
from draw import NoData  # noqa: E402
from fig_scaling import speedups  # noqa: E402
from make_all import draw_all, load_or_exit  # noqa: E402
from mugraph_pictures import PictureError, render  # noqa: E402
from conclusions import conclusions  # noqa: E402
from report_spaces import spaces_section  # noqa: E402
from results import failed_cells, group, main_space, mean, plain, stat, where  # noqa: E402

COLUMNS = ["program", "strategy", "threads", "ranks", "backend", "field", "runs", "wall s", "states",
           "states/s", "μGraphs", "z3 calls", "speedup"]


def table(rows, columns=COLUMNS):
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _extra_keys(results):
    """The optional key columns: space when some result records one, variant when some run turned an
    oracle stage off."""
    return (("space",) if any(r.space for r in results) else ()) + (("variant",) if any(r.variant for r in results) else ())


def key_columns(results):
    """COLUMNS, with the optional key columns (space, variant) after field."""
    return COLUMNS[:6] + list(_extra_keys(results)) + COLUMNS[6:]


def key_numbers(results):
    """A row per program × strategy × threads × ranks × backend × field (× space × variant, when
    results have them), repetitions averaged."""
    ratio = {}
    for backend, field, space in group(plain(results), "backend", "field", "space"):
        try:  # within one space: a space's runs are compared with dfs at 1 thread in that space
            ratio[backend, field, space] = speedups(where(plain(results), space=space), backend, field)
        except NoData:
            pass
    rows = []
    keys = ("program", "strategy", "threads", "ranks", "backend", "field") + _extra_keys(results)
    for key, runs in group(results, *keys).items():
        program, strategy, threads, ranks, backend, field = key[:6]
        key = key[:6] + (tuple(k or "–" for k in key[6:]))
        if runs[0].variant:  # speedups compare the search with all its stages on
            ratio_key = None
        else:
            ratio_key = (backend, field, runs[0].space)
        walls = [r.wall_s for r in runs]
        wall = f"{mean(walls):.2f}" + (f" ± {statistics.stdev(walls):.2f}" if len(walls) > 1 else "")
        of_program = ratio.get(ratio_key, {}).get(program, {})
        s = of_program.get((strategy, ranks), {}).get(threads * ranks)
        rows.append([*key, len(runs), ("≥ " if any(r.partial for r in runs) else "") + wall,
                     f"{mean(r.states for r in runs):.0f}",
                     f"{sum(r.states for r in runs) / max(sum(walls), 1e-9):.0f}",
                     f"{mean(len(r.doc.get('mugraphs', [])) for r in runs):.0f}",
                     f"{mean(stat(r, 'expr.z3_calls') for r in runs):.0f}",
                     f"{s:.2f}" if s is not None else "–"])
    return rows


def best_per_program(results):
    """{program: the result whose first μGraph is the cheapest found for that program}."""
    best = {}
    for (program,), runs in group(results, "program").items():
        found = [r for r in runs if r.best_cost]
        if found:
            best[program] = min(found, key=lambda r: r.best_cost.get("estimated_us", float("inf")))
    return best


def mugraph_section(results, binary, out_dir):
    lines = ["## Best μGraph per program", ""]
    for program, r in best_per_program(results).items():
        cost = r.best_cost
        lines.append(f"### {program}\n\nEstimated {cost.get('estimated_us', 0):.2f} µs, "
                     f"{cost.get('kernels', '?')} kernels, {cost.get('dram_bytes', 0) / 1024:.0f} KiB of "
                     f"device memory; hash `{r.doc['mugraphs'][0].get('hash', '?')}`, from "
                     f"`{os.path.basename(r.path)}`.\n")
        try:
            png, svg = render(binary, r.path, os.path.join(out_dir, "mugraphs"), program)
            lines.append(f"[![{program}]({os.path.relpath(png, out_dir)})]({os.path.relpath(svg, out_dir)})\n")
        except PictureError as e:
            print(f"note: no picture for {program}: {e}", file=sys.stderr)
            lines.append(f"(no picture: {e})\n")
    return lines if len(lines) > 2 else lines + ["No program has a μGraph found.", ""]


def figures_sentence(results):
    """Which runs the figures compare: a figure never draws two spaces, or a variant, as one search."""
    space = main_space(results)
    others = sorted({r.space for r in results if r.space and r.space != space})
    variants = sorted({r.variant for r in results if r.variant})
    text = (f"The strategy comparisons (speedup, load balance, phases, queries, frontier) are drawn from the "
            f"`{space}` space's runs with every oracle stage on." if space else
            "The strategy comparisons are drawn from the runs with every oracle stage on.")
    if others:
        text += f" The anytime figure has a panel per space ({', '.join(f'`{o}`' for o in [space] + others)})."
    if variants:
        text += (f" The oracle figures also draw the runs with a stage turned off ({', '.join(variants)}: config "
                 f"keys `expr_cache` and `oracle_structural`).")
    return text


def write_report(results_path, out_dir, binary):
    results = load_or_exit(results_path)
    figures = draw_all(results, os.path.join(out_dir, "figures"))
    partial = sum(r.partial for r in results)
    md = ["# ugsearch experiments\n",
          f"{len(results)} results files from `{results_path}` ({partial} stopped by their time limit); "
          f"made {time.strftime('%Y-%m-%d %H:%M')}.\n",
          "## Machine\n", "This machine (where the report was made; the runs may have been elsewhere):\n",
          *[f"- {k}: {v}" for k, v in machine.this_machine()], "\nFrom the results' run sections:\n",
          *[f"- {k}: {v}" for k, v in machine.from_results(results)],
          "\n## Key numbers\n",
          "Repetitions averaged (± sample standard deviation); `≥`: a run stopped by its time limit. "
          "Speedup: states per second over dfs at 1 thread, same program, backend and field, where both "
          "completed (–: either was stopped).\n",
          table(key_numbers(results), key_columns(results)), "",
          *spaces_section(plain(results), failed_cells(results_path) if os.path.isdir(results_path) else []),
          *conclusions(results),
          "## Figures\n", figures_sentence(results) + "\n"]
    for name, caption, (png, svg) in figures:
        md.append(f"### {caption}\n\n[![{name}]({os.path.relpath(png, out_dir)})]({os.path.relpath(svg, out_dir)})\n")
    md += mugraph_section(results, binary, out_dir)
    path = os.path.join(out_dir, "REPORT.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    return path


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", help="results file, directory of them, or experiments/run.py's output directory")
    p.add_argument("out_dir", nargs="?", default="report", help="where REPORT.md goes (default report/)")
    p.add_argument("--binary", default=os.path.join(os.path.dirname(HERE), "build", "release", "ugsearch"),
                   help="ugsearch, for the μGraph pictures (default build/release/ugsearch)")
    args = p.parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    print(f"wrote {write_report(args.results, args.out_dir, os.path.abspath(args.binary))}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
