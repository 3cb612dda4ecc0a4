"""One `ugsearch search` run for the benchmark scripts: the command, its exit status checked (0, or 3
when a time limit stopped it and partial results were written), and the results file read back."""
import json
import subprocess
import sys


def search(binary, program, flags, path, who):
    """Runs `binary search program *flags --quiet --out path` and returns the results; exits naming
    `who` (the calling script) and the command when the run fails."""
    cmd = [binary, "search", program, *flags, "--quiet", "--out", path]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode not in (0, 3):
        sys.exit(f"{who}: {' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()}")
    with open(path) as f:
        return json.load(f)
