"""plots/: every figure that has data in the committed sample is drawn, as valid PNG and SVG, and the
report embeds them. Needs matplotlib (run under /usr/bin/python3, which has Debian's)."""
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(ROOT, "tests", "data", "results_sample")
BINARY = os.environ.get("UGS_BINARY", os.path.join(ROOT, "build", "release", "ugsearch"))
ALL_FIGURES = {"speedup", "speedup_per_program", "load_balance", "ranks", "oracle_stages", "anytime", "phases",
               "expr_queries", "frontier", "false_pass", "plan_costs"}

try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False


def sample_runs():
    runs = []
    for path in glob.glob(os.path.join(SAMPLE, "cells", "*.json")):
        with open(path, encoding="utf-8") as f:
            runs.append(json.load(f))
    return runs


def expected_figures():
    """The figures the sample has data for: all of them (test_sample_is_what_the_test_expects)."""
    return ALL_FIGURES


TEMPLATE = os.path.join(SAMPLE, "cells", "rmsnorm_linear_small__dfs-omp__t2__r1__cpu__wide__rep0.json")
MIRAGE_FIGURE = "Mirage (OSDI'25, Table 5): 11–28 s with 16 threads and a GPU, 58–183 s on one thread"


def spaced_results(out):
    """Synthetic results of a spaces matrix under out/ (cells/ and index.json), made from a sample
    file: rmsnorm_linear and gqa, small and full size, dfs-omp and bfs in the preset, mirage and open
    spaces. The open space stops at its 60 s limit at full size, finding nothing; full-size gqa's
    mirage cell under bfs failed (the index says so, and no results file exists)."""
    with open(TEMPLATE, encoding="utf-8") as f:
        template = json.load(f)
    os.makedirs(os.path.join(out, "cells"))
    index = []
    for program in ("rmsnorm_linear_small", "rmsnorm_linear", "gqa_small", "gqa"):
        for strategy in ("dfs-omp", "bfs"):
            for i, space in enumerate(("preset", "mirage", "open")):
                name = f"{program}__{strategy}__t2__r1__cpu__wide__{space}__rep0"
                entry = {"id": name, "program": program, "strategy": strategy, "threads": 2, "ranks": 1,
                         "backend": "cpu", "field": "wide", "space": space, "status": "ok", "error": None}
                index.append(entry)
                if program == "gqa" and strategy == "bfs" and space == "mirage":
                    entry.update(status="error", error="killed by SIGSEGV, no message")
                    continue
                doc = json.loads(json.dumps(template))
                stopped = space == "open" and not program.endswith("_small")
                doc["program"]["name"] = program
                doc["run"].update(strategy=strategy, threads=2, space=space, partial=stopped,
                                  stopped_by="time_limit" if stopped else None, time_limit_s=60.0)
                doc["stats"].update(states_expanded=1000 * (i + 1), candidates=12345 * (i + 1),
                                    fingerprint_evals=7 + i, wall_s=60.04 if stopped else 1.5 + i,
                                    time_to_first_s=None if stopped else 0.25,
                                    time_to_best_s=None if stopped else 0.75)
                if stopped:
                    doc["mugraphs"] = []
                    entry["status"] = "partial"
                with open(os.path.join(out, "cells", name + ".json"), "w", encoding="utf-8") as f:
                    json.dump(doc, f)
    with open(os.path.join(out, "index.json"), "w", encoding="utf-8") as f:
        json.dump({"matrix": "spaces", "cells": index}, f)
    return out


def table_rows(section, heading):
    """The rows of the table under `### heading` as lists of cells."""
    block = section.split(f"### {heading}\n", 1)[1].strip("\n").split("\n\n", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in block.splitlines()[2:]]


def assert_png(test, path):
    with open(path, "rb") as f:
        test.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", path)


def assert_svg(test, path):
    root = ET.parse(path).getroot()
    test.assertEqual(root.tag.rsplit("}", 1)[-1], "svg", path)


@unittest.skipUnless(HAVE_MATPLOTLIB, f"{sys.executable} has no matplotlib; run under /usr/bin/python3")
class PlotsTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="ugs_plots_")
        self.addCleanup(shutil.rmtree, self.out)

    def script(self, name, *args):
        return subprocess.run([sys.executable, os.path.join(ROOT, "plots", name), *args],
                              capture_output=True, text=True, timeout=600)

    def test_sample_is_what_the_test_expects(self):
        runs = sample_runs()
        self.assertGreaterEqual(len(runs), 6)
        self.assertGreaterEqual(len({r["run"]["strategy"] for r in runs}), 2)
        self.assertLessEqual({1, 2}, {r["run"]["threads"] for r in runs})
        self.assertIn("mirage", {r["run"]["field"] for r in runs})
        self.assertTrue(any(r["run"]["strategy"] == "bfs" and r["stats"].get("levels") for r in runs))  # frontier
        self.assertTrue(any(r["run"]["ranks"] == 2 for r in runs))  # ranks
        self.assertTrue(any(r["config"].get("oracle_structural") == 0 for r in runs))  # oracle_stages
        self.assertTrue(any(g.get("found_s") is not None for r in runs for g in r["mugraphs"]))  # anytime

    def test_make_all_draws_every_figure_with_data(self):
        done = self.script("make_all.py", SAMPLE, self.out)
        self.assertEqual(done.returncode, 0, done.stderr)
        drawn = {os.path.splitext(n)[0] for n in os.listdir(self.out)}
        self.assertEqual(drawn, expected_figures())
        for name in drawn:
            assert_png(self, os.path.join(self.out, name + ".png"))
            assert_svg(self, os.path.join(self.out, name + ".svg"))
        for skipped in ALL_FIGURES - drawn:  # one line each, naming the figure
            self.assertIn(f"figure {skipped} skipped", done.stderr)

    def test_one_results_file_is_enough(self):
        one = sorted(glob.glob(os.path.join(SAMPLE, "cells", "*__dfs__t1__*wide*.json")))[0]
        done = self.script("make_all.py", one, self.out)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.out, "plan_costs.png")))
        self.assertIn("load_balance skipped", done.stderr)  # one worker: nothing to balance

    def test_no_results_is_one_line(self):
        empty = os.path.join(self.out, "empty")
        os.mkdir(empty)
        done = self.script("make_all.py", empty, os.path.join(self.out, "figs"))
        self.assertNotEqual(done.returncode, 0)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn("no ugsearch results files", done.stderr)

    def test_report_embeds_figures_table_and_mugraphs(self):
        done = self.script("report.py", SAMPLE, self.out, "--binary", BINARY)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(self.out, "REPORT.md"), encoding="utf-8") as f:
            report = f.read()
        for name in expected_figures():
            self.assertIn(f"figures/{name}.png", report)
            assert_png(self, os.path.join(self.out, "figures", name + ".png"))
        programs = {r["program"]["name"] for r in sample_runs()}
        for program in programs:
            self.assertIn(f"| {program} | dfs | 1 | 1 | cpu | wide |", report)
        self.assertIn("| speedup |", report)
        self.assertIn("- CPU:", report)
        # Its runs record their space (preset) and one turned the structural stage off.
        self.assertIn("| field | space | variant | runs |", report)
        self.assertIn("| rmsnorm_linear_small | dfs-omp | 2 | 1 | cpu | wide | preset | no-structural | 1 | ≥ ", report)
        self.assertIn("## Conclusions", report)
        self.assertIn("**z3 contention and the cache.**", report)
        if not (os.access(BINARY, os.X_OK) and shutil.which("dot")):
            self.skipTest("no ugsearch binary or no Graphviz: μGraph pictures not checked")
        for program in programs:
            assert_png(self, os.path.join(self.out, "mugraphs", program + ".png"))
            assert_svg(self, os.path.join(self.out, "mugraphs", program + ".svg"))
            self.assertIn(f"mugraphs/{program}.png", report)

    def test_gzipped_results_read_as_plain_ones(self):
        """Committed results may be gzipped (a run listing thousands of μGraphs writes tens of MB)."""
        packed = os.path.join(self.out, "packed", "cells")
        os.makedirs(packed)
        for path in glob.glob(os.path.join(SAMPLE, "cells", "*.json")):
            with open(path, "rb") as plain, gzip.open(os.path.join(packed, os.path.basename(path) + ".gz"), "wb") as gz:
                shutil.copyfileobj(plain, gz)
        done = self.script("report.py", os.path.dirname(packed), os.path.join(self.out, "report"), "--binary", BINARY)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(self.out, "report", "REPORT.md"), encoding="utf-8") as f:
            report = f.read()
        for program in {r["program"]["name"] for r in sample_runs()}:
            self.assertIn(f"| {program} | dfs | 1 | 1 | cpu | wide |", report)
            if os.access(BINARY, os.X_OK) and shutil.which("dot"):
                self.assertIn(f"mugraphs/{program}.png", report)

    def test_report_has_a_spaces_section_with_spaces(self):
        results = spaced_results(os.path.join(self.out, "results"))
        done = self.script("report.py", results, os.path.join(self.out, "report"), "--binary", "/nonexistent")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(os.path.join(self.out, "report", "REPORT.md"), encoding="utf-8") as f:
            report = f.read()
        self.assertIn("## Search spaces", report)
        section = report.split("## Search spaces", 1)[1].split("\n## ", 1)[0]
        self.assertLess(report.index("## Key numbers"), report.index("## Search spaces"))
        self.assertLess(report.index("## Search spaces"), report.index("## Figures"))
        # Key numbers keep the spaces apart.
        self.assertIn("| rmsnorm_linear | bfs | 2 | 1 | cpu | wide | open | 1 | ≥ 60.04 |", report)
        self.assertIn("| rmsnorm_linear | bfs | 2 | 1 | cpu | wide | mirage | 1 | 2.50 |", report)
        self.assertIn("Every run: 2 threads, 1 rank, cpu fingerprints, wide field.", section)
        self.assertIn("**preset**: 8 of 8 runs completed, 0 stopped, 8 found a μGraph", section)
        self.assertIn("**mirage**: 7 of 8 runs completed, 0 stopped, 1 failed without results, 7 found", section)
        self.assertIn("**open**: 4 of 8 runs completed, 4 stopped at the time limit (60 s), 4 found", section)
        rows = {tuple(r[:3]): r for r in table_rows(section, "rmsnorm_linear")}
        self.assertEqual(list(rows)[:3], [("small", "bfs", "preset"), ("small", "bfs", "mirage"),
                                          ("small", "bfs", "open")])  # the spaces side by side
        self.assertEqual(len(rows), 12)
        self.assertEqual(rows["full", "dfs-omp", "mirage"][3:],
                         ["2,000", "24,690", "8", "13", "2.35", "0.25", "0.75", "2.50", "completed", MIRAGE_FIGURE])
        self.assertEqual(rows["full", "bfs", "open"][3:],
                         ["3,000", "37,035", "9", "0", "–", "–", "–", "60.0", "stopped at 60 s", ""])
        for key, row in rows.items():  # the published figure only beside full-size mirage rows
            self.assertEqual(row[-1] == MIRAGE_FIGURE, key[0] == "full" and key[2] == "mirage", key)
        gqa = {tuple(r[:3]): r for r in table_rows(section, "gqa")}
        self.assertEqual(len(gqa["full", "dfs-omp", "open"]), 12)  # no published column there
        self.assertEqual(gqa["full", "bfs", "mirage"][3:], ["–"] * 8 + ["failed: killed by SIGSEGV, no message"])
        self.assertEqual(gqa["full", "bfs", "open"][-1], "stopped at 60 s")
        self.assertLess(section.index("### rmsnorm_linear"), section.index("### gqa"))
        # Figures compare strategies within one space (the one with the most runs; a tie goes to
        # mirage, then preset), and the report says so; the anytime figure has a panel per space.
        self.assertIn("drawn from the `preset` space's runs", report)
        self.assertIn("a panel per space (`preset`, `mirage`, `open`)", report)
        self.assertTrue(os.path.exists(os.path.join(self.out, "report", "figures", "speedup_per_program.png"))
                        or "figure speedup_per_program skipped" in done.stderr)


def made_result(results_module, **changes):
    """A Result made from the sample template: run keys, stats keys and config keys as given."""
    with open(TEMPLATE, encoding="utf-8") as f:
        doc = json.load(f)
    doc["run"].update(changes.get("run", {}))
    doc["stats"].update(changes.get("stats", {}))
    doc["config"].update(changes.get("config", {}))
    if "program" in changes:
        doc["program"]["name"] = changes["program"]
    if "mugraphs" in changes:
        doc["mugraphs"] = changes["mugraphs"]
    return results_module.Result(f"{changes.get('program', 'p')}.json", doc)


@unittest.skipUnless(HAVE_MATPLOTLIB, f"{sys.executable} has no matplotlib; run under /usr/bin/python3")
class ConclusionsTest(unittest.TestCase):
    """plots/conclusions.py and the pieces the new figures rest on, on made-up results."""

    def setUp(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        import conclusions
        import fig_anytime
        import results
        self.conclusions, self.anytime, self.results = conclusions, fig_anytime, results

    def run_of(self, program, strategy, threads, wall, ranks=1, states=1000, config=None, partial=False, z3=0):
        return made_result(self.results, program=program, config=config or {},
                           run={"strategy": strategy, "threads": threads, "ranks": ranks, "space": "mirage",
                                "partial": partial},
                           stats={"wall_s": wall, "states_expanded": states,
                                  "expr": {"z3_calls": z3, "queries": z3, "cache_hits": 0, "structural": 0}})

    def test_the_best_so_far_steps_down_only(self):
        steps = self.anytime.best_so_far([(0.1, 5.0), (0.2, 7.0), (0.3, 3.0), (0.4, 3.0), (0.5, 2.5)])
        self.assertEqual(steps, [(0.1, 5.0), (0.3, 3.0), (0.5, 2.5)])

    def test_variants_are_named_from_the_config(self):
        names = {(c, s): self.run_of("p", "bfs", 1, 1.0, config={"expr_cache": c, "oracle_structural": s}).variant
                 for c in (0, 1) for s in (0, 1)}
        self.assertEqual(names, {(1, 1): "", (0, 1): "no-cache", (1, 0): "no-structural", (0, 0): "z3-only"})

    def test_paragraphs_carry_the_numbers_of_the_runs(self):
        runs = [self.run_of("a", "dfs", 1, 4.0), self.run_of("a", "bfs", 1, 5.0), self.run_of("a", "bfs", 2, 1.0),
                self.run_of("a", "dfs-omp", 2, 2.0), self.run_of("a", "dfs-mpi", 1, 4.0),
                self.run_of("a", "dfs-mpi", 1, 2.5, ranks=2),
                # z3 answering: 100 calls in 10 s at 1 thread, 150 in 10 s at 2; plain runs make no call
                self.run_of("a", "bfs", 1, 10.0, states=50, config={"oracle_structural": 0}, partial=True, z3=100),
                self.run_of("a", "bfs", 2, 10.0, states=60, config={"oracle_structural": 0}, partial=True, z3=150)]
        text = "\n".join(self.conclusions.conclusions(runs))
        self.assertIn("bfs 4.00× at 2 workers (200 % efficiency, 1 programs)", text)
        self.assertIn("bfs runs at 2.00× dfs-omp's speed", text)
        self.assertIn("bfs wins on a (2.00×)", text)
        self.assertIn("At 1 thread bfs runs at 0.80× dfs's speed", text)
        self.assertIn("`no-structural` (1 program × strategy pairs, 1 → 2 threads): states/s ×1.20, z3 calls/s "
                      "×1.50; every stage on gives ×167 its states/s", text)
        self.assertIn("made 0 z3 calls in all", text)
        self.assertIn("dfs-mpi 1.60× over 1 programs", text)
        self.assertNotIn("variant", text)  # the plain comparisons leave the variant runs out
        self.assertNotIn("the bulk test is why", text)  # no bfs run fingerprinted in batches

    def test_a_win_by_the_bulk_test_says_so(self):
        def with_fingerprints(run, seconds, calls):
            run.stats.update({"fingerprint_evals": 100, "phase_s": {"fingerprint": seconds}})
            if run.strategy == "bfs":
                run.stats["levels"] = [{"level": d, "frontier": 10, "fingerprints": n, "fingerprint_calls": calls or n}
                                       for d, n in ((3, 40), (4, 60))]
            return run

        for calls, said in ((4, True), (None, False)):  # batches of up to 15, or one completion a call
            runs = [self.run_of("a", "dfs", 1, 8.0), with_fingerprints(self.run_of("a", "bfs", 2, 1.0), 1.0, calls),
                    with_fingerprints(self.run_of("a", "dfs-omp", 2, 2.0), 4.0, 100)]
            text = "\n".join(self.conclusions.conclusions(runs))
            # bfs: 1 s of feed calls on 2 threads over 100 completions; dfs-omp: 4 thread-seconds over 100
            sentence = ("Where bfs wins most (a, 2.00×), the bulk test is why: its 100 completions took 20.0 ms of "
                        "thread time each to fingerprint, in batches of up to 15, against 40.0 ms each one at a "
                        "time in dfs-omp.")
            self.assertEqual(sentence in text, said, text)
            self.assertEqual("the bulk test is why" in text, said)


class SpacesSectionTest(unittest.TestCase):
    """plots/report_spaces.py on its own (no matplotlib needed)."""

    def setUp(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        import report_spaces
        import results
        self.section, self.results = report_spaces.spaces_section, results
        self.out = tempfile.mkdtemp(prefix="ugs_spaces_")
        self.addCleanup(shutil.rmtree, self.out)

    def test_absent_without_spaces(self):
        runs = self.results.load(SAMPLE)
        for r in runs:  # as results from before spaces were
            r.doc["run"].pop("space", None)
        self.assertEqual(self.section(runs), [])

    def test_several_settings_and_repetitions(self):
        spaced = self.results.load(spaced_results(os.path.join(self.out, "r")))
        again = [self.results.Result(r.path, json.loads(json.dumps(r.doc))) for r in spaced]
        for r in again:
            r.doc["run"]["threads"] = 1
        twice = [self.results.Result(r.path, json.loads(json.dumps(r.doc))) for r in spaced]
        text = "\n".join(self.section(spaced + again + twice))
        self.assertIn("| size | strategy | setting | space |", text)
        self.assertIn("Repetitions averaged", text)
        self.assertIn("| full | bfs | t2 r1 cpu wide | open | 3,000 |", text)
        self.assertIn("| full | bfs | t1 r1 cpu wide | open | 3,000 |", text)

    def test_a_mix_of_stopped_and_completed_runs(self):
        spaced = [r for r in self.results.load(spaced_results(os.path.join(self.out, "r")))
                  if r.program == "gqa" and r.strategy == "bfs" and r.space == "open"]
        done = self.results.Result(spaced[0].path, json.loads(json.dumps(spaced[0].doc)))
        done.doc["run"]["partial"] = False
        text = "\n".join(self.section(spaced + [done]))
        self.assertIn("| 1 of 2 stopped at 60 s |", text)


@unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib not installed (run under /usr/bin/python3)")
class GeometricMeanTest(unittest.TestCase):
    def test_a_program_measured_at_fewer_worker_counts_stays_out_of_the_mean(self):
        sys.path.insert(0, os.path.join(ROOT, "plots"))
        from fig_scaling import _geomean_lines
        per_program = {"a": {("bfs", 1): {1: 1.0, 16: 8.0}, ("dfs", 1): {1: 1.0}},
                       "b": {("bfs", 1): {1: 4.0, 16: 32.0}, ("dfs", 1): {1: 1.0}},
                       "c": {("bfs", 1): {16: 2.0}, ("dfs", 1): {1: 1.0}}}
        lines, used = _geomean_lines(per_program)
        bfs = lines[("bfs", 1)]
        self.assertEqual(set(bfs), {1, 16})
        self.assertAlmostEqual(bfs[1], 2.0)
        self.assertAlmostEqual(bfs[16], 16.0)  # c's bfs at 16 alone would pull it to 8
        self.assertEqual(lines[("dfs", 1)], {1: 1.0})
        self.assertEqual(used, {"a", "b", "c"})  # c enters through its dfs line

if __name__ == "__main__":
    unittest.main()
