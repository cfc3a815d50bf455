"""Progress of long loops, for the terminal of ``compendium run``, never for the book.

A chapter runs in a Jupyter kernel, whose printed output would end up in the executed notebook. So the
bootstrap loops report through a side channel instead: when ``COMPENDIUM_PROGRESS`` names a file,
:class:`Tracker` appends one JSON line per update to it (at most one per :data:`INTERVAL` seconds, and the
last); ``compendium run`` sets the variable for its kernels and prints the lines as they come
(:func:`follow`), with replicates done and the time left at the pace so far. Without the variable (the
book's build, a test, a library user) a tracker does nothing.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

__all__ = ["ENV", "INTERVAL", "Tracker", "describe", "follow"]

#: The environment variable naming the file progress is written to.
ENV = "COMPENDIUM_PROGRESS"
#: Seconds between two updates of one tracker.
INTERVAL = 1.0


class Tracker:
    """Reports ``done`` of ``total`` replicates of a loop named ``label`` (see the module's documentation).

    >>> tracker = Tracker("alpha bootstrap", 2000)   # without COMPENDIUM_PROGRESS: silent
    >>> tracker.update(500)
    """

    def __init__(self, label: str, total: int, unit: str = "replicates"):
        self.path = os.environ.get(ENV)
        self.label, self.total, self.unit = label, int(total), unit
        self.start = time.monotonic()
        self.last = self.start  # the first update comes after INTERVAL: a loop shorter than that says only its end

    def update(self, done: int) -> None:
        if not self.path:
            return
        now = time.monotonic()
        if done < self.total and now - self.last < INTERVAL:
            return
        self.last = now
        line = {"label": self.label, "done": int(done), "total": self.total, "unit": self.unit,
                "elapsed": now - self.start}
        try:
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(line) + "\n")
        except OSError:  # progress is a courtesy: it never stops a computation
            self.path = None


def describe(line: dict) -> str:
    """``"alpha bootstrap: 1,200 of 2,000 replicates, 6 s, about 4 s left"``."""
    done, total, elapsed = line["done"], line["total"], line["elapsed"]
    text = f"{line['label']}: {done:,} of {total:,} {line['unit']}, {elapsed:.0f} s"
    if 0 < done < total:
        text += f", about {elapsed / done * (total - done):.0f} s left"
    return text


def follow(path: str | os.PathLike, stop: threading.Event, stream=None, poll: float = 0.5) -> threading.Thread:
    """Print the progress lines appended to ``path`` to ``stream`` (stderr) until ``stop`` is set; a thread.

    Only loops long enough to report twice are shown: a loop that ends within one :data:`INTERVAL` says
    nothing, so short runs stay quiet.
    """
    stream = stream or sys.stderr
    path = Path(path)

    def run():
        offset = 0
        while True:
            finished = stop.is_set()
            if path.exists():
                with open(path, encoding="utf-8") as handle:
                    handle.seek(offset)
                    chunk = handle.read()
                    offset = handle.tell()
                for raw in chunk.splitlines():
                    try:
                        line = json.loads(raw)
                    except ValueError:
                        continue
                    if line["done"] < line["total"] or line["elapsed"] >= INTERVAL:
                        print(f"  progress: {describe(line)}", file=stream, flush=True)
            if finished:
                return
            stop.wait(poll)

    thread = threading.Thread(target=run, name="compendium-progress", daemon=True)
    thread.start()
    return thread
