"""Summary of the searches bench/gpu/run.sh made: per run its wall time, states, fingerprint calls, the
mean busy time of its workers, its dedup and fingerprint phases, bfs's largest waits (stats.idle_s),
and whether its μGraph hashes equal those of its reference. The reference is the same strategy's CPU
run when it ran to its end, else the program's first complete CPU run without function dedup (whose
result set differs), else its first complete run. A run the time limit stopped is marked partial and is
nobody's reference. Standard library only: the GPU machine's python has no project packages."""
import json
import os
import sys
from collections import defaultdict


def complete(d):
    return not d["run"].get("partial")


def reference(name, by_run):
    same_strategy = name.split(".")[0] + ".cpu"
    if same_strategy in by_run and complete(by_run[same_strategy]):
        return same_strategy
    cpu = [r for r in by_run if r.endswith(".cpu") and "function" not in r and complete(by_run[r])]
    whole = [r for r in by_run if complete(by_run[r])]
    return (cpu or whole or [None])[0]


def main(folder):
    runs = defaultdict(dict)
    for f in sorted(os.listdir(folder)):
        if f.endswith(".json"):
            program, rest = f[:-5].split(".", 1)  # program.strategy.backend[.rep]
            with open(os.path.join(folder, f)) as fh:
                runs[program][rest] = json.load(fh)
    print(f"{'program':16} {'run':24} {'wall s':>7} {'states':>10} {'fp evals':>8} {'busy s':>7} {'dedup s':>7} "
          f"{'fp s':>6} {'verify s':>8} {'found':>5} {'bfs idle thread-s':24}  same hashes")
    for program, by_run in runs.items():
        for name, d in by_run.items():
            ref_name = reference(name, by_run)
            got = sorted(m["hash"] for m in d["mugraphs"])
            if ref_name is None:
                same = "no complete run to compare with"
            elif name == ref_name:
                same = "reference"
            else:
                same = "yes" if got == sorted(m["hash"] for m in by_run[ref_name]["mugraphs"]) else "NO"
                same += f" (against {ref_name})"
            if not complete(d):
                same += " (partial: time limit)"
            s = d["stats"]
            ph = s.get("phase_s", {})
            workers = s.get("workers", [])
            busy = sum(w["busy_s"] for w in workers) / len(workers) if workers else 0.0
            idle = s.get("idle_s", {})  # bfs: the largest three entries
            top = sorted(idle.items(), key=lambda kv: -kv[1])[:3] if sum(idle.values()) > 0 else []
            idle_text = " ".join(f"{k} {v:.1f}" for k, v in top) or "-"
            print(f"{program:16} {name:24} {s['wall_s']:7.2f} {s['states_expanded']:10} {s['fingerprint_evals']:8} "
                  f"{busy:7.2f} {ph.get('dedup', 0):7.2f} {ph.get('fingerprint', 0):6.2f} {ph.get('verify', 0):8.2f} "
                  f"{len(got):5} {idle_text:24}  {same}")


if __name__ == "__main__":
    main(sys.argv[1])
