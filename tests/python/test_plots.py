"""plots/: every figure that has data in the committed sample is drawn, as valid PNG and SVG, and the
report embeds them. Needs matplotlib (run under /usr/bin/python3, which has Debian's)."""
import glob
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
ALL_FIGURES = {"speedup", "speedup_per_program", "load_balance", "phases", "expr_queries", "frontier",
               "false_pass", "plan_costs"}

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
    """The figures the sample has data for: frontier sizes exist only once bfs records levels."""
    has_levels = any(r["run"]["strategy"] == "bfs" and r["stats"].get("levels") for r in sample_runs())
    return ALL_FIGURES if has_levels else ALL_FIGURES - {"frontier"}


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
        if not (os.access(BINARY, os.X_OK) and shutil.which("dot")):
            self.skipTest("no ugsearch binary or no Graphviz: μGraph pictures not checked")
        for program in programs:
            assert_png(self, os.path.join(self.out, "mugraphs", program + ".png"))
            assert_svg(self, os.path.join(self.out, "mugraphs", program + ".svg"))
            self.assertIn(f"mugraphs/{program}.png", report)


if __name__ == "__main__":
    unittest.main()
