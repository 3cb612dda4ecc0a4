"""experiments/run.py: statuses, skipping finished cells, resuming after an interruption, bad input."""
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "experiments", "run.py")
SHIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shim_ugsearch.py")
REAL = os.environ.get("UGS_BINARY", os.path.join(ROOT, "build", "release", "ugsearch"))


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ugs_runner_")
        self.addCleanup(shutil.rmtree, self.dir)
        self.out = os.path.join(self.dir, "out")
        self.log = os.path.join(self.dir, "calls.log")
        self.shim = os.path.join(self.dir, "ugsearch")
        with open(self.shim, "w", encoding="utf-8") as f:
            f.write(f"#!{sys.executable}\nimport runpy, sys\nsys.argv[0] = {SHIM!r}\n"
                    f"runpy.run_path({SHIM!r}, run_name='__main__')\n")
        os.chmod(self.shim, 0o755)

    def matrix(self, **spec):
        path = os.path.join(self.dir, "m.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(spec, f)
        return path

    def command(self, matrix, binary=None, *extra):
        return [sys.executable, RUNNER, "--matrix", matrix, "--out", self.out,
                "--binary", binary or self.shim, *extra]

    def run_runner(self, matrix, binary=None, sleep=0.0, *extra):
        env = {**os.environ, "SHIM_LOG": self.log, "SHIM_SLEEP": str(sleep)}
        return subprocess.run(self.command(matrix, binary, *extra), env=env, capture_output=True, text=True,
                              timeout=300)

    def calls(self):
        """{cell's results file name: times the binary was started for it}."""
        if not os.path.exists(self.log):
            return {}
        counts = {}
        with open(self.log, encoding="utf-8") as f:
            lines = f.readlines()
        for line in lines:
            args = line.split()
            name = os.path.basename(args[args.index("--out") + 1])
            counts[name] = counts.get(name, 0) + 1
        return counts

    def index(self):
        with open(os.path.join(self.out, "index.json"), encoding="utf-8") as f:
            return {c["id"]: c for c in json.load(f)["cells"]}

    def cells_on_disk(self):
        return sorted(n for n in os.listdir(os.path.join(self.out, "cells")) if n.endswith(".json"))

    def test_statuses_and_skipping_finished_cells(self):
        m = self.matrix(programs=["rmsnorm_linear_small", "gqa_small", "mha_small"], strategies=["dfs"])
        first = self.run_runner(m)
        self.assertEqual(first.returncode, 1, first.stderr)  # a cell failed
        cells = self.index()
        by_program = {c["program"]: c for c in cells.values()}
        self.assertEqual(by_program["rmsnorm_linear_small"]["status"], "ok")
        self.assertEqual(by_program["mha_small"]["status"], "partial")
        self.assertEqual(by_program["mha_small"]["exit_code"], 3)
        self.assertEqual(by_program["gqa_small"]["status"], "error")
        self.assertEqual(by_program["gqa_small"]["exit_code"], 2)
        self.assertEqual(by_program["gqa_small"]["error"], "gqa_small: scripted failure for the test")
        self.assertIn("gqa_small: scripted failure", first.stderr)
        # Second run: ok and partial cells are finished; only the failed one runs again.
        self.run_runner(m)
        self.assertEqual(sorted(self.calls().values()), [1, 1, 2])
        self.assertEqual(self.calls()["gqa_small__dfs__t1__r1__cpu__wide__rep0.json"], 2)

    def test_resumes_after_an_interruption(self):
        m = self.matrix(programs=["rmsnorm_linear_small", "lora_small", "ntrans_small"],
                        strategies=["dfs", "dfs-omp"])
        env = {**os.environ, "SHIM_LOG": self.log, "SHIM_SLEEP": "0.4"}
        proc = subprocess.Popen(self.command(m), env=env, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while len(self.finished_files()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)  # into the third cell
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("run the same command again to resume", err)
        before = {n: os.stat(os.path.join(self.out, "cells", n)).st_mtime_ns for n in self.cells_on_disk()}
        self.assertGreaterEqual(len(before), 2)
        self.assertLess(len(before), 6)
        statuses = sorted(c["status"] for c in self.index().values())
        self.assertIn("interrupted", statuses)
        # The interrupted cell stopped as ugsearch stops on SIGTERM, writing partial results: they are
        # not a finished cell, so they are gone and the cell runs again.
        cut = [i + ".json" for i, c in self.index().items() if c["status"] == "interrupted"]
        self.assertEqual(len(cut), 1)
        self.assertNotIn(cut[0], before)
        time.sleep(0.6)  # the killed cell must not finish behind the runner's back
        self.assertEqual(sorted(before), self.cells_on_disk())

        again = self.run_runner(m, None, 0.0)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(len(self.cells_on_disk()), 6)
        self.assertEqual(self.calls()[cut[0]], 2)
        for name, mtime in before.items():
            self.assertEqual(self.calls()[name], 1, f"{name} ran again")
            self.assertEqual(os.stat(os.path.join(self.out, "cells", name)).st_mtime_ns, mtime)
        self.assertTrue(all(c["status"] == "ok" for c in self.index().values()))
        calls = sum(self.calls().values())
        third = self.run_runner(m)
        self.assertIn("6 finished, 0 to run", third.stderr)
        self.assertEqual(sum(self.calls().values()), calls)

    def test_a_cell_signalled_from_outside_is_interrupted_not_finished(self):
        sys.path.insert(0, os.path.join(ROOT, "experiments"))
        from runner import cell as cellrun
        for code, name in ((130, "SIGINT"), (143, "SIGTERM")):
            out = os.path.join(self.dir, "cut.json")
            with open(out, "w", encoding="utf-8") as f:
                json.dump({"run": {"partial": True, "stopped_by": name}}, f)
            outcome = cellrun._outcome(None, code, 1.0, "", out, os.path.join(self.dir, "rejected.json"))
            self.assertEqual(outcome.status, "interrupted")
            self.assertIn(name, outcome.error)
            self.assertFalse(os.path.exists(out))

    def finished_files(self):
        cells = os.path.join(self.out, "cells")
        return [n for n in os.listdir(cells) if n.endswith(".json")] if os.path.isdir(cells) else []

    @unittest.skipIf(shutil.which("mpirun") is None, "mpirun is not installed")
    def test_ranks_without_mpi_support_is_a_cell_error(self):
        m = self.matrix(programs=["rmsnorm_linear_small"], strategies=["dfs"], ranks=[2])
        done = self.run_runner(m)
        self.assertEqual(done.returncode, 1, done.stderr)
        (cell,) = self.index().values()
        self.assertEqual(cell["status"], "error")
        self.assertIn("ran without MPI", cell["error"])
        self.assertEqual(cell["command"][:2], ["mpirun", "--oversubscribe"])
        self.assertEqual(self.cells_on_disk(), [])  # not counted as finished

    def test_bad_matrix_is_one_line_and_exit_2(self):
        cases = {"not json": "{", "unknown key": json.dumps({"programs": ["mha"], "strategies": ["dfs"],
                                                              "thread": [2]}),
                 "bad strategy": json.dumps({"programs": ["mha"], "strategies": ["dfx"]}),
                 "bad program": json.dumps({"programs": ["nope"], "strategies": ["dfs"]})}
        path = os.path.join(self.dir, "bad.json")
        for what, text in cases.items():
            with self.subTest(what):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                done = self.run_runner(path)
                self.assertEqual(done.returncode, 2)
                self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
                self.assertIn("bad.json", done.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_spaces_make_named_cells_and_pass_the_flag(self):
        m = self.matrix(programs=["lora_small"], strategies=["bfs", "dfs-omp"], threads=[2],
                        spaces=["preset", "mirage"], time_limit_s=5)
        done = self.run_runner(m)
        self.assertEqual(done.returncode, 0, done.stderr)
        want = {f"lora_small__{s}__t2__r1__cpu__wide__{space}__rep0"
                for s in ("bfs", "dfs-omp") for space in ("preset", "mirage")}
        cells = self.index()
        self.assertEqual(set(cells), want)
        self.assertEqual(self.cells_on_disk(), sorted(w + ".json" for w in want))
        with open(self.log, encoding="utf-8") as f:
            calls = [line.split() for line in f]
        self.assertEqual(len(calls), 4)
        for args in calls:
            out = os.path.basename(args[args.index("--out") + 1])
            space = args[args.index("--space") + 1]
            self.assertEqual(args.count("--space"), 1)
            self.assertTrue(out.endswith(f"__{space}__rep0.json"), (out, space))
        for id_, cell in cells.items():
            self.assertEqual(cell["status"], "ok")
            self.assertEqual(cell["space"], id_.split("__")[-2])
            with open(os.path.join(self.out, cell["results"]), encoding="utf-8") as f:
                self.assertEqual(json.load(f)["run"]["space"], cell["space"])
        again = self.run_runner(m)
        self.assertIn("4 finished, 0 to run", again.stderr)

    def test_without_spaces_names_and_commands_are_as_before(self):
        m = self.matrix(programs=["lora_small"], strategies=["dfs"])
        done = self.run_runner(m)
        self.assertEqual(done.returncode, 0, done.stderr)
        (id_, cell), = self.index().items()
        self.assertEqual(id_, "lora_small__dfs__t1__r1__cpu__wide__rep0")
        self.assertNotIn("space", cell)
        with open(self.log, encoding="utf-8") as f:
            self.assertNotIn("--space", f.read())

    def test_labelled_config_variants_get_their_own_cells_and_config_files(self):
        m = self.matrix(programs=["lora_small"], strategies=["bfs"],
                        groups=[{}, {"label": "no-cache", "config": {"expr_cache": 0}}])
        done = self.run_runner(m)
        self.assertEqual(done.returncode, 0, done.stderr)
        cells = self.index()
        self.assertEqual(set(cells), {"lora_small__bfs__t1__r1__cpu__wide__rep0",
                                      "lora_small__bfs__t1__r1__cpu__wide__no-cache__rep0"})
        self.assertEqual(cells["lora_small__bfs__t1__r1__cpu__wide__no-cache__rep0"]["config"], {"expr_cache": 0})
        with open(self.log, encoding="utf-8") as f:
            calls = {os.path.basename(a[a.index("--out") + 1]): a for a in (line.split() for line in f)}
        self.assertNotIn("--config", calls["lora_small__bfs__t1__r1__cpu__wide__rep0.json"])
        args = calls["lora_small__bfs__t1__r1__cpu__wide__no-cache__rep0.json"]
        with open(args[args.index("--config") + 1], encoding="utf-8") as f:
            self.assertEqual(json.load(f), {"expr_cache": 0})

    def test_bad_labels_and_configs_are_refused(self):
        path = os.path.join(self.dir, "bad.json")
        for what, group in {"config without a label": {"config": {"expr_cache": 0}},
                            "label with a space": {"label": "no cache", "config": {"expr_cache": 0}},
                            "config not an object": {"label": "x", "config": ["expr_cache", 0]}}.items():
            with self.subTest(what):
                with open(path, "w", encoding="utf-8") as f:
                    json.dump({"programs": ["mha"], "strategies": ["dfs"], "groups": [group]}, f)
                done = self.run_runner(path)
                self.assertEqual(done.returncode, 2)
                self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
                self.assertTrue("label" in done.stderr or "config" in done.stderr, done.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_bad_spaces_are_refused(self):
        path = os.path.join(self.dir, "bad.json")
        for what, spaces in {"unknown space": ["presets"], "empty": [], "not a list": "open"}.items():
            with self.subTest(what):
                with open(path, "w", encoding="utf-8") as f:
                    json.dump({"programs": ["mha"], "strategies": ["dfs"], "spaces": spaces}, f)
                done = self.run_runner(path)
                self.assertEqual(done.returncode, 2)
                self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
                self.assertIn("spaces", done.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_spaces_matrix_is_bounded(self):
        sys.path.insert(0, os.path.join(ROOT, "experiments"))
        from runner import matrix as matrices
        m = matrices.load("spaces", os.path.join(ROOT, "experiments", "matrices"))
        self.assertEqual(len(m.cells), 96)
        self.assertEqual({c.space for c in m.cells}, {"preset", "mirage", "open"})
        self.assertEqual({(c.strategy, c.threads, c.backend, c.field) for c in m.cells},
                         {("bfs", 2, "cpu", "wide"), ("dfs-omp", 2, "cpu", "wide")})
        self.assertTrue(all(c.time_limit_s == 60 for c in m.cells))
        self.assertEqual(len({c.program for c in m.cells}), 16)

    def test_paper_matrix_covers_every_strategy_in_the_mirage_space(self):
        sys.path.insert(0, os.path.join(ROOT, "experiments"))
        from runner import matrix as matrices
        m = matrices.load("paper", os.path.join(ROOT, "experiments", "matrices"))
        self.assertEqual(len(m.cells), 194)
        # The committed run of it (the report's): one results file per cell.
        ref = os.path.join(ROOT, "experiments", "reference", "paper", "cells")
        self.assertEqual(sorted(n[:-len(".json.gz")] for n in os.listdir(ref)), sorted(c.id for c in m.cells))
        mirage = [c for c in m.cells if c.space == "mirage" and not c.label]
        self.assertEqual({c.strategy for c in mirage}, {"dfs", "dfs-static", "dfs-omp", "dfs-mpi", "bfs"})
        self.assertEqual({(c.threads, c.ranks) for c in mirage}, {(1, 1), (2, 1), (1, 2)})
        self.assertEqual({c.space for c in m.cells}, {"mirage", "open"})
        # The open space too: every strategy at 1 and 2 threads (2 ranks for the MPI ones).
        open_ = [c for c in m.cells if c.space == "open"]
        self.assertEqual({c.strategy for c in open_}, {"dfs", "dfs-static", "dfs-omp", "dfs-mpi", "bfs"})
        settings = {s: {(c.threads, c.ranks) for c in open_ if c.strategy == s} for s in {c.strategy for c in open_}}
        self.assertEqual(settings, {"dfs": {(1, 1)}, "dfs-static": {(1, 1), (2, 1)}, "dfs-omp": {(1, 1), (2, 1)},
                                    "dfs-mpi": {(1, 2)}, "bfs": {(1, 1), (2, 1), (1, 2)}})
        self.assertEqual({c.label for c in m.cells}, {None, "no-cache", "no-structural", "z3-only"})
        # Where z3 answers, a cell is cut at 20 s: uncached, z3 spends its whole budget on most queries.
        slow = lambda c: c.config and json.loads(c.config).get("oracle_structural") == 0  # noqa: E731
        self.assertTrue(all(c.time_limit_s == (60 if c.space == "open" else 20 if slow(c) else 300)
                            for c in m.cells))

    def test_gpu_matrix_and_its_committed_results_agree(self):
        sys.path.insert(0, os.path.join(ROOT, "experiments"))
        from runner import matrix as matrices
        m = matrices.load("gpu", os.path.join(ROOT, "experiments", "matrices"))
        self.assertEqual(len(m.cells), 59)
        self.assertEqual({c.space for c in m.cells}, {"mirage"})
        self.assertEqual({c.threads for c in m.cells}, {1, 2, 4, 8, 16})
        # The committed run of it: one results file per cell, each from the device the matrix is for.
        ref = os.path.join(ROOT, "experiments", "reference", "gpu", "cells")
        self.assertEqual(sorted(n[:-len(".json.gz")] for n in os.listdir(ref)), sorted(c.id for c in m.cells))
        for cell in m.cells:
            if cell.backend == "cuda":
                with gzip.open(os.path.join(ref, cell.id + ".json.gz"), "rt", encoding="utf-8") as f:
                    self.assertIn("H200", json.load(f)["run"]["device"], cell.id)

    def test_dry_run_prints_commands_and_runs_nothing(self):
        m = self.matrix(programs=["lora_small"], strategies=["dfs-omp"], threads=[1, 2], time_limit_s=5)
        done = self.run_runner(m, None, 0.0, "--dry-run")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.strip().splitlines()
        self.assertEqual(len(lines), 2)
        self.assertIn("--threads 2", lines[1])
        self.assertIn("--time-limit 5", lines[1])
        self.assertEqual(self.calls(), {})
        self.assertFalse(os.path.exists(self.out))

    @unittest.skipUnless(os.access(REAL, os.X_OK), f"no ugsearch binary at {REAL}")
    def test_real_binary_two_cells(self):
        m = self.matrix(programs=["rmsnorm_linear_small"], args=["--max-kernel-ops", "3"],
                        groups=[{"strategies": ["dfs"]}, {"strategies": ["dfs-omp"], "threads": [2]}])
        done = self.run_runner(m, REAL)
        self.assertEqual(done.returncode, 0, done.stderr)
        cells = self.index()
        self.assertEqual(sorted(c["status"] for c in cells.values()), ["ok", "ok"])
        for cell in cells.values():
            with open(os.path.join(self.out, cell["results"]), encoding="utf-8") as f:
                run = json.load(f)["run"]
            self.assertEqual((run["strategy"], run["threads"]), (cell["strategy"], cell["threads"]))
        again = self.run_runner(m, REAL)
        self.assertIn("2 finished, 0 to run", again.stderr)


if __name__ == "__main__":
    unittest.main()
