"""``make bench``: wall-clock timings of the pipeline's stages.

Speed is measured here, never asserted in a test. Each stage runs in this
process (chapters in their own kernels) into a temporary directory, so the
book is not touched. Results go to ``_build/bench.json`` and a table.
"""

from __future__ import annotations

import json
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from . import pipeline


def _timed(label: str, action: Callable[[], object], rows: list[dict]) -> None:
    start = time.perf_counter()
    action()
    rows.append({"stage": label, "seconds": round(time.perf_counter() - start, 3)})
    print(f"{label:<40} {rows[-1]['seconds']:>9.2f} s", flush=True)


def run_benchmarks(out: Path = pipeline.BUILD_DIR / "bench.json") -> list[dict]:
    """Time the simulator, the loader and each chapter; write ``out``."""
    from . import simulate
    from .data import load_benchmark

    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="compendium-bench-") as scratch:
        scratch = Path(scratch)
        _timed("simulate the benchmark", lambda: simulate.simulate(scratch / "data"), rows)
        _timed("load and validate the benchmark", lambda: load_benchmark(scratch / "data"), rows)
        for source in pipeline.chapter_sources():
            if source.stem == pipeline.LEDGER_NOTEBOOK:
                continue
            _timed(
                f"execute {source.stem}",
                lambda s=source: pipeline.execute(s, scratch / "book", {"data_dir": str(scratch / "data")}),
                rows,
            )
    report = {"machine": {"python": platform.python_version(), "processor": platform.machine()}, "timings": rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"written to {out}")
    return rows
