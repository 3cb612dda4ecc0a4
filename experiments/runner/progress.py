"""The progress line: cells done of total, elapsed time, and an estimate of the time left."""
import sys
import time


def duration(seconds):
    seconds = int(round(seconds))
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"


class Progress:
    def __init__(self, total, already_done, stream=sys.stderr):
        self.total, self.done, self.stream = total, already_done, stream
        self.start = time.monotonic()
        self.ran = 0              # cells run by this invocation: the basis of the estimate
        self.tty = stream.isatty()

    def starting(self, cell):
        if self.tty:  # a log file gets one line per cell, when it ends
            self._show(f"running {cell.id}")

    def finished(self, cell, outcome):
        self.done += 1
        self.ran += 1
        what = f"{outcome.status} {cell.id} ({outcome.wall_s:.1f} s)"
        # An error stays on screen, with its reason, when the line is redrawn in place.
        self._show(what + f": {outcome.error}" if outcome.error else what, keep=bool(outcome.error))

    def elapsed(self):
        return time.monotonic() - self.start

    def close(self):
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def _show(self, what, keep=False):
        elapsed = self.elapsed()
        left = (self.total - self.done) * elapsed / self.ran if self.ran else None
        text = (f"[{self.done}/{self.total}] elapsed {duration(elapsed)}, "
                f"left {'~' + duration(left) if left is not None else 'unknown'}: {what}")
        if self.tty:
            self.stream.write("\r\033[K" + text + ("\n" if keep else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
