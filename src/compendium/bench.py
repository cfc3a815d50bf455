"""``make bench``: wall-clock timings of the pipeline's stages.

Speed is measured here, never asserted in a test. Each stage runs in this
process (chapters in their own kernels) into a temporary directory, so the
book is not touched. Results go to ``_build/bench.json`` and a table.

The ``audit`` section times :func:`compendium.audit.audit` on synthetic,
seeded crossed studies of 10^4, 10^5 and 10^6 judgements (50, 500 and 5,000
items x 8 systems x 25 raters, 1-5 scale, with one length per output), each
in a fresh Python process so that its peak resident memory (``ru_maxrss``)
is its own; then the whole ``compendium audit`` command (CSV -> validation
-> notebook -> HTML and JSON) on the 10^6 study.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from . import pipeline


def _timed(label: str, action: Callable[[], object], rows: list[dict]) -> None:
    start = time.perf_counter()
    action()
    rows.append({"stage": label, "seconds": round(time.perf_counter() - start, 3)})
    print(f"{label:<62} {rows[-1]['seconds']:>9.2f} s", flush=True)


#: Designs of the audit benchmark: items x systems x raters (10^4, 10^5, 10^6 judgements).
AUDIT_DESIGNS = ((50, 8, 25), (500, 8, 25), (5000, 8, 25))


def _synthetic_study(n_items: int, n_systems: int, n_raters: int, seed: int):
    """A crossed 1-5 rating study and one length (1-5) per output, seeded."""
    import numpy as np

    from . import reliability

    data = reliability.simulate_crossed(n_items, n_systems, n_raters, seed=seed, scale=(1, 5))
    outputs = data[[reliability.ITEM, reliability.SYSTEM]].drop_duplicates()
    lengths = outputs.assign(length=np.random.default_rng(seed).integers(1, 6, len(outputs)))
    return data, lengths


def _rss_mb(who: int) -> float:
    import resource

    return resource.getrusage(who).ru_maxrss / 1024  # kilobytes on Linux


def audit_probe(n_items: int, n_systems: int, n_raters: int, *, seed: int = 0, n_boot: int = 2000) -> dict:
    """Time one :func:`compendium.audit.audit` call in this process.

    Returns the number of judgements, the seconds, and the peak resident
    memory of the process before the call (interpreter, libraries, data)
    and after it (MB). Meant to run in a fresh process (:func:`_audit_rows`).
    """
    import resource

    from . import audit

    data, lengths = _synthetic_study(n_items, n_systems, n_raters, seed)
    before = _rss_mb(resource.RUSAGE_SELF)
    start = time.perf_counter()
    audit.audit(data, lengths, seed=seed, n_boot=n_boot)
    seconds = time.perf_counter() - start
    return {"judgements": len(data), "seconds": round(seconds, 3), "rss_before_mb": round(before, 1),
            "peak_rss_mb": round(_rss_mb(resource.RUSAGE_SELF), 1)}


def _cli_probe(n_items: int, n_systems: int, n_raters: int, scratch: str, seed: int = 0) -> dict:
    """Time the ``compendium audit`` command end to end on a CSV of the synthetic study."""
    import resource

    from . import reliability

    data, lengths = _synthetic_study(n_items, n_systems, n_raters, seed)
    ratings_csv, lengths_csv = Path(scratch) / "ratings.csv", Path(scratch) / "lengths.csv"
    data.to_csv(ratings_csv, index=False)
    lengths.to_csv(lengths_csv, index=False)
    del data, lengths
    command = [sys.executable, "-m", "compendium.cli", "audit", str(ratings_csv), "--lengths", str(lengths_csv),
               "--rater", reliability.RATER, "--out", str(Path(scratch) / "report")]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return {"judgements": n_items * n_systems * n_raters, "seconds": round(time.perf_counter() - start, 3),
            "peak_rss_mb": round(_rss_mb(resource.RUSAGE_CHILDREN), 1)}


def _probe(call: str) -> dict:
    """Run ``compendium.bench.<call>`` in a fresh interpreter and return its JSON."""
    code = f"import json, compendium.bench as b; print(json.dumps(b.{call}))"
    env = {**os.environ, **pipeline.KERNEL_ENVIRONMENT}
    completed = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env)
    return json.loads(completed.stdout.strip().splitlines()[-1])


def _audit_rows(rows: list[dict], designs: Sequence[tuple[int, int, int]] = AUDIT_DESIGNS, cli: bool = True) -> None:
    """The audit section: audit() at each size, then the command at the largest."""
    for design in designs:
        result = _probe(f"audit_probe{tuple(design)}")
        label = f"audit() {result['judgements']:,} judgements"
        rows.append({"stage": label, "section": "audit", "design": list(design), **result})
        print(f"{label:<62} {result['seconds']:>9.2f} s   peak RSS {result['peak_rss_mb']:>7,.0f} MB "
              f"(before the call {result['rss_before_mb']:,.0f} MB)", flush=True)
    if cli and designs:
        with tempfile.TemporaryDirectory(prefix="compendium-bench-audit-") as scratch:
            design = tuple(designs[-1])
            result = _probe(f"_cli_probe{design + (scratch,)!r}")
        label = f"compendium audit, {result['judgements']:,} judgements"
        rows.append({"stage": label, "section": "audit", "design": list(design), **result})
        print(f"{label:<62} {result['seconds']:>9.2f} s   peak RSS {result['peak_rss_mb']:>7,.0f} MB "
              "(largest process: CLI or kernel)", flush=True)


def run_benchmarks(
    out: Path = pipeline.BUILD_DIR / "bench.json", sections: Sequence[str] = ("kernels", "pipeline", "audit")
) -> list[dict]:
    """Time the heavy kernels against plain baselines (``kernels``), the simulator, the loader and
    each chapter (``pipeline``) and the audit (``audit``); write ``out``."""
    rows: list[dict] = []
    if "kernels" in sections:
        _kernel_rows(rows)
    if "pipeline" in sections:
        _pipeline_rows(rows)
    if "audit" in sections:
        _audit_rows(rows)
    return _write(out, rows)


def _kernel_rows(rows: list[dict]) -> None:
    """The 2,000-replicate alpha bootstrap on the shipped ratings, fast path against a plain loop."""
    from . import reliability
    from .data import load_benchmark

    ratings = load_benchmark(embeddings=False).ratings
    unit = ["sentence_id", "system"]
    _timed("alpha bootstrap, 2,000 replicates (fast)",
           lambda: reliability.alpha_bootstrap_ci(ratings, unit=unit, n_boot=2000, seed=0), rows)
    _timed("alpha bootstrap, 2,000 replicates (plain loop over krippendorff)",
           lambda: reliability.alpha_bootstrap_ci_reference(ratings, unit=unit, n_boot=2000, seed=0), rows)
    fast, plain = rows[-2]["seconds"], rows[-1]["seconds"]
    rows[-2]["speedup_vs_plain_loop"] = round(plain / fast, 1) if fast else None
    print(f"{'alpha bootstrap speed-up':<62} {rows[-2]['speedup_vs_plain_loop']:>9}x", flush=True)


def _pipeline_rows(rows: list[dict]) -> None:
    from . import simulate
    from .data import load_benchmark

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


def _write(out: Path, rows: list[dict]) -> list[dict]:
    report = {"machine": {"python": platform.python_version(), "processor": platform.machine(),
                          "cpus": os.cpu_count()}, "timings": rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"written to {out}")
    return rows
