"""A stand-in for `ugsearch search` in the runner's tests: fast, and scripted per program.

It appends its arguments to $SHIM_LOG when it starts, sleeps $SHIM_SLEEP seconds, then behaves by
program: gqa_small fails (exit 2, one line on stderr), mha_small is stopped by its time limit (exit 3,
partial results), anything else succeeds. Like ugsearch it records its space (--space, default
preset) as run.space, and null stats.time_to_first_s and time_to_best_s (it finds no μGraph).
Results are written atomically, as ugsearch does. SIGTERM or SIGINT while it sleeps stops it as
they stop ugsearch: partial results, exit 128 + the signal.
"""
import json
import os
import signal
import sys
import time


class Stopped(Exception):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def on_signal(signum, frame):
    raise Stopped(signum)


def main(args):
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    with open(os.environ["SHIM_LOG"], "a", encoding="utf-8") as f:
        f.write(" ".join(args) + "\n")
    opt = {args[i]: args[i + 1] for i in range(2, len(args) - 1) if args[i].startswith("--")}
    program = args[1]
    stopped_by = None
    try:
        time.sleep(float(os.environ.get("SHIM_SLEEP", "0")))
    except Stopped as s:
        stopped_by = signal.Signals(s.signum).name
    if program == "gqa_small" and not stopped_by:
        print("gqa_small: scripted failure for the test", file=sys.stderr)
        return 2
    if not stopped_by and program == "mha_small":
        stopped_by = "time_limit"
    run = {"strategy": opt["--strategy"], "threads": int(opt["--threads"]), "ranks": 1,
           "backend": opt["--backend"], "field": opt["--field"], "seed": int(opt["--seed"]),
           "partial": stopped_by is not None, "stopped_by": stopped_by, "space": opt.get("--space", "preset")}
    doc = {"run": run, "program": {"name": program}, "config": {}, "mugraphs": [],
           "stats": {"states_expanded": 1, "wall_s": 0.1, "time_to_first_s": None, "time_to_best_s": None}}
    tmp = f"{opt['--out']}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.replace(tmp, opt["--out"])
    if stopped_by is None:
        return 0
    return 3 if stopped_by == "time_limit" else 128 + int(signal.Signals[stopped_by])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
