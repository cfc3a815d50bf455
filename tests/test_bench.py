"""make bench's table: every row the sections write prints with its notes (speed itself is never tested)."""

from __future__ import annotations

import json

from compendium.book import bench

#: One row of each kind the bench writes, with the keys its producer gives it.
ROWS = [
    {"stage": "kernel (fast)", "section": "kernels", "seconds": 1.0, "speedup_vs_plain": 12.0,
     "max_abs_difference": 4e-4},
    {"stage": "kernel (estimated limit)", "section": "kernels", "seconds": 0.5, "gradient_ms": 0.2,
     "evaluations_per_fit": 55.0, "lbfgs_iterations": 84.0, "problems": 24},
    {"stage": "kernel (reference)", "section": "kernels", "seconds": 3.0, "max_abs_difference_to_fast": 0.0},
    {"stage": "fresh numpy arrays", "section": "build", "seconds": 0.1, "megabytes": 300},
    {"stage": "cold build", "section": "build", "seconds": 100.0, "executed": ["01_design"]},
    {"stage": "  chapter execution", "section": "build", "seconds": 80.0, "notebooks": 19, "notebook_seconds": 160.0},
    {"stage": "  EAD results", "section": "build", "seconds": 0.0, "count": 65},
    {"stage": "make test", "section": "test", "seconds": 230.0, "returncode": 0, "load_before": [1.0, 1.0, 1.0],
     "summary": "1 passed"},
    {"stage": "audit()", "section": "audit", "seconds": 1.5, "peak_rss_mb": 473.0},
    {"stage": "REML", "section": "audit", "seconds": 7.3, "cpu_seconds": 7.3, "G": 0.9},
    {"stage": "embed NTREX", "section": "encoders", "seconds": 29.6, "sentences_per_second": 202.4,
     "load_seconds": 0.01, "max_abs_difference": 0.0},
]


def test_every_kind_of_row_prints_its_notes(capsys):
    bench._print_table(ROWS)
    printed = capsys.readouterr().out
    for text in ("12.0x the speed", "largest difference 0.0004", "0.2 ms per gradient x 55.0 per fit",
                 "largest difference to the fast result 0", "executed 1 notebook(s)",
                 "19 notebooks, 160 s of execution summed", "65 EAD results computed", "exit 0",
                 "peak RSS 473 MB", "7.3 s of CPU", "300 MB created and filled",
                 "202.4 sentences/s (loaded in 0.01 s)"):
        assert text in printed, text


def test_results_are_written_before_the_table_is_printed(tmp_path, monkeypatch):
    def broken(rows):
        raise KeyError("a note")

    monkeypatch.setattr(bench, "_print_table", broken)
    monkeypatch.setattr(bench, "_audit_rows", lambda rows: rows.append(ROWS[-1]))
    out = tmp_path / "bench.json"
    try:
        bench.run_benchmarks(out, sections=["audit"])
    except KeyError:
        pass
    assert json.loads(out.read_text())["timings"] == [ROWS[-1]]


def test_the_fresh_memory_probe_runs_with_the_advice_it_names():
    """Both rows of the probe measure what their labels say: the setting reaches numpy in the fresh interpreter."""
    for advice, expected in (("1", True), ("0", False)):
        result = bench._probe("touch_probe(2, (4, 4))", {"NUMPY_MADVISE_HUGEPAGE": advice})
        assert result["advice"] is expected
        assert result["megabytes"] == 0 and result["seconds"] >= 0
