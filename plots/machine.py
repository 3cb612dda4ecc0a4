"""A description of the machine: this one (where the report is made) and what the results say."""
import os
import shutil
import subprocess

# Run keys that differ from cell to cell; the rest describe the setup the results came from.
PER_CELL = {"strategy", "threads", "ranks", "field", "seed", "partial"}


def _first(path, key):
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                name, _, value = line.partition(":")
                if name.strip() == key:
                    return value.strip()
    except OSError:
        pass
    return None


def _gpus():
    if shutil.which("nvidia-smi") is None:
        return "none found (no nvidia-smi)"
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "nvidia-smi failed"
    return "; ".join(out.splitlines()) or "none"


def this_machine():
    """[(what, value)] for the machine this runs on."""
    mem_kib = _first("/proc/meminfo", "MemTotal")
    memory = f"{int(mem_kib.split()[0]) / 2**20:.1f} GiB" if mem_kib else "unknown"
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return [("CPU", _first("/proc/cpuinfo", "model name") or "unknown"),
            ("cores (nproc)", f"{usable} usable of {os.cpu_count()}"),
            ("memory", memory), ("GPUs", _gpus())]


def from_results(results):
    """[(run key, its distinct values)] for the run keys that describe the setup, not the cell."""
    values = {}
    for r in results:
        for key, value in r.run.items():
            if key not in PER_CELL:
                values.setdefault(key, set()).add(str(value))
    return [(key, ", ".join(sorted(v))) for key, v in sorted(values.items())]
