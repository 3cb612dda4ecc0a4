"""Summary of the searches bench/gpu/run.sh made: per run its wall time, states, fingerprint calls and
μGraphs, and whether its μGraph hashes equal those of its reference: the same strategy's CPU run where
there is one, else the program's first CPU run without function dedup (whose result set differs); a run the time limit stopped is marked partial. Standard library only: the GPU machine's python has no project packages."""
import json
import os
import sys
from collections import defaultdict


def main(folder):
    runs = defaultdict(dict)
    for f in sorted(os.listdir(folder)):
        if f.endswith(".json"):
            program, rest = f[:-5].split(".", 1)  # program.strategy.backend[.rep]
            with open(os.path.join(folder, f)) as fh:
                runs[program][rest] = json.load(fh)
    print(f"{'program':22} {'run':20} {'wall s':>8} {'states':>9} {'fp evals':>9} {'expand s':>8} {'fp s':>7} {'verify s':>8} {'found':>5}  same hashes")
    for program, by_run in runs.items():
        first_cpu = next((r for r in by_run if r.endswith(".cpu") and "function" not in r), next(iter(by_run)))
        for name, d in by_run.items():
            ref_name = name.split(".")[0] + ".cpu"
            if ref_name not in by_run:
                ref_name = first_cpu
            ref = [m["hash"] for m in by_run[ref_name]["mugraphs"]]
            s = d["stats"]
            got = [m["hash"] for m in d["mugraphs"]]
            same = "reference" if name == ref_name else ("yes" if got == ref else "NO")
            if d["run"].get("partial") or by_run[ref_name]["run"].get("partial"):
                same += " (partial: time limit)"
            ph = s.get("phase_s", {})
            print(f"{program:22} {name:20} {s['wall_s']:8.2f} {s['states_expanded']:9} {s['fingerprint_evals']:9} "
                  f"{ph.get('expand', 0):8.2f} {ph.get('fingerprint', 0):7.2f} {ph.get('verify', 0):8.2f} {len(got):5}  {same}")


if __name__ == "__main__":
    main(sys.argv[1])
