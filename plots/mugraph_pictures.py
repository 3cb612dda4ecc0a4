"""Pictures of μGraphs: `ugsearch show FILE --dot` (a results file means its first μGraph) through
Graphviz's `dot` into SVG and PNG."""
import gzip
import os
import shutil
import subprocess
import tempfile


class PictureError(Exception):
    """Why a picture could not be made, in one line."""


def render(binary, results_file, out_dir, name):
    """Writes NAME.dot, NAME.svg and NAME.png under out_dir; returns the PNG's and SVG's paths."""
    if not os.access(binary, os.X_OK):
        raise PictureError(f"{binary}: no ugsearch binary there (pass --binary)")
    if shutil.which("dot") is None:
        raise PictureError("Graphviz's dot is not installed (apt-get install graphviz)")
    if results_file.endswith(".gz"):  # ugsearch reads plain files: a gzipped one goes through a copy
        with gzip.open(results_file, "rb") as packed, tempfile.NamedTemporaryFile(suffix=".json") as plain:
            shutil.copyfileobj(packed, plain)
            plain.flush()
            shown = subprocess.run([binary, "show", plain.name, "--dot"], capture_output=True, text=True)
    else:
        shown = subprocess.run([binary, "show", results_file, "--dot"], capture_output=True, text=True)
    if shown.returncode != 0:
        reason = (shown.stderr.strip().splitlines() or [f"exit status {shown.returncode}"])[0]
        raise PictureError(f"ugsearch show {results_file}: {reason}")
    os.makedirs(out_dir, exist_ok=True)
    base = os.path.join(out_dir, name)
    with open(base + ".dot", "w", encoding="utf-8") as f:
        f.write(shown.stdout)
    for fmt in ("svg", "png"):
        drawn = subprocess.run(["dot", f"-T{fmt}", base + ".dot", "-o", f"{base}.{fmt}"],
                               capture_output=True, text=True)
        if drawn.returncode != 0:
            raise PictureError(f"dot -T{fmt} {base}.dot: {drawn.stderr.strip()}")
    return base + ".png", base + ".svg"
