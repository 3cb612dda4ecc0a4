"""A stand-in for `ugsearch search` in the runner's tests: fast, and scripted per program.

It appends its arguments to $SHIM_LOG when it starts, sleeps $SHIM_SLEEP seconds, then behaves by
program: gqa_small fails (exit 2, one line on stderr), mha_small is stopped by its time limit (exit 3,
partial results), anything else succeeds. Results are written atomically, as ugsearch does.
"""
import json
import os
import sys
import time


def main(args):
    with open(os.environ["SHIM_LOG"], "a", encoding="utf-8") as f:
        f.write(" ".join(args) + "\n")
    time.sleep(float(os.environ.get("SHIM_SLEEP", "0")))
    opt = {args[i]: args[i + 1] for i in range(2, len(args) - 1) if args[i].startswith("--")}
    program = args[1]
    if program == "gqa_small":
        print("gqa_small: scripted failure for the test", file=sys.stderr)
        return 2
    partial = program == "mha_small"
    run = {"strategy": opt["--strategy"], "threads": int(opt["--threads"]), "ranks": 1,
           "backend": opt["--backend"], "field": opt["--field"], "seed": int(opt["--seed"]), "partial": partial}
    doc = {"run": run, "program": {"name": program}, "config": {}, "mugraphs": [],
           "stats": {"states_expanded": 1, "wall_s": 0.1}}
    tmp = f"{opt['--out']}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.replace(tmp, opt["--out"])
    return 3 if partial else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
