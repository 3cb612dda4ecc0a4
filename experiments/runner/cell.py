"""Running one cell: the ugsearch command line, the child process, and the outcome."""
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass

from .store import read_results

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
# A cell that ignores its --time-limit is killed after this much more time.
GRACE_S = 120


@dataclass
class Outcome:
    status: str           # ok, partial or error
    exit_code: int | None
    wall_s: float
    error: str | None


def command(cell, binary, out_path, time_limit_s, config_path=None):
    """The cell's command line; config_path holds the cell's config keys (cell.config), if it has any."""
    argv = [binary, "search", cell.program, "--strategy", cell.strategy, "--threads", str(cell.threads),
            "--backend", cell.backend, "--field", cell.field, "--seed", str(cell.seed),
            "--out", out_path, "--quiet", *cell.args]
    if cell.space:
        argv += ["--space", cell.space]
    if config_path:
        argv += ["--config", config_path]
    if time_limit_s:
        argv += ["--time-limit", f"{time_limit_s:g}"]
    if cell.ranks > 1:
        # Without --bind-to none, Open MPI pins each rank to one core and its threads share it.
        argv = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(cell.ranks), *argv]
    return argv


def run(cell, argv, out_path, log_path, rejected_path, time_limit_s):
    """Runs the cell to completion; on an interruption its process group is stopped and the
    exception goes on. ugsearch stopped by SIGTERM still writes its results so far (atomically):
    they are not a finished cell, so they are removed and the cell runs again on resume."""
    if cell.ranks > 1 and shutil.which("mpirun") is None:
        return Outcome("error", None, 0.0, "mpirun not found: install Open MPI to run ranks > 1")
    env = {**os.environ, **(MPI_ENV if cell.ranks > 1 else {})}
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                start_new_session=True)
    except OSError as e:
        return Outcome("error", None, 0.0, f"cannot start {argv[0]}: {e.strerror}")
    try:
        out, err = proc.communicate(timeout=(time_limit_s + GRACE_S) if time_limit_s else None)
    except subprocess.TimeoutExpired:
        _kill(proc, out_path)
        out, err = proc.communicate()
        _write_log(log_path, out, err)
        return Outcome("error", None, time.monotonic() - start,
                       f"killed: still running {GRACE_S} s past its time limit")
    except BaseException:
        _kill(proc, out_path)
        raise
    wall = time.monotonic() - start
    _write_log(log_path, out, err)
    return _outcome(cell, proc.returncode, wall, err.decode(errors="replace"), out_path, rejected_path)


STOP_SIGNALS = {128 + signal.SIGINT: "SIGINT", 128 + signal.SIGTERM: "SIGTERM"}


def _outcome(cell, code, wall, stderr, out_path, rejected_path):
    if code in STOP_SIGNALS:  # signalled from outside the runner: its partial results are no finished cell
        _discard(out_path)
        return Outcome("interrupted", code, wall, f"stopped by {STOP_SIGNALS[code]} from outside the runner")
    if code not in (0, 3):
        return Outcome("error", code, wall, _first_line(stderr) or _no_message(code))
    doc = read_results(out_path)
    if doc is None:
        return Outcome("error", code, wall, f"exit status {code} but no readable results file {out_path}")
    mismatch = _mismatch(cell, doc["run"])
    if mismatch:
        # Moved away so that the cell does not count as finished and runs again once fixed.
        os.replace(out_path, rejected_path)
        return Outcome("error", code, wall, mismatch)
    return Outcome("partial" if code == 3 or doc["run"].get("partial") else "ok", code, wall, None)


def _mismatch(cell, run):
    if cell.ranks > 1 and run.get("ranks") != cell.ranks:
        return (f"ran without MPI: the results say ranks {run.get('ranks')}, not {cell.ranks}; "
                f"build ugsearch with MPI support")
    for key in ("strategy", "threads", "field", "space"):
        wanted = getattr(cell, key)
        if wanted is not None and key in run and run[key] != wanted:
            return f"the results say {key} {run[key]!r}, the cell asked for {wanted!r}"
    return None


def _no_message(code):
    if code is not None and code < 0:  # Popen's way of saying the process died of a signal
        try:
            return f"killed by {signal.Signals(-code).name}, no message"
        except ValueError:
            pass
    return f"exit status {code}, no message"


def _first_line(text):
    # The first line that says something (mpirun frames its messages with rules of dashes).
    return next((line.strip() for line in text.splitlines() if any(c.isalnum() for c in line)), None)


def _kill(proc, out_path):
    """Stops the cell's process group (SIGTERM, then SIGKILL after 5 s) and discards what it wrote
    on the way out."""
    for sig, wait_s in ((signal.SIGTERM, 5), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait_s)
            break
        except subprocess.TimeoutExpired:
            continue
    _discard(out_path)


def _discard(path):
    """Removes a stopped cell's results file, if it wrote one: a cell whose file exists counts as finished."""
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def _write_log(path, out, err):
    if out or err:
        with open(path, "wb") as f:
            f.write(out + (b"\n--- stderr ---\n" if out and err else b"") + err)
    elif os.path.exists(path):
        os.remove(path)  # an earlier attempt's log would mislead
