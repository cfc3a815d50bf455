"""make bench's table: every row the sections write prints with its notes (speed itself is never tested)."""

from __future__ import annotations

import json

import pytest

from compendium.build import bench

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


# --- the scale section (compendium.build.bench_scale) -----------------------------------------------------------

from compendium.build import bench_scale  # noqa: E402

#: What LME4_SCRIPT prints (lme4 1.1-31, R 4.2.2, on the 10^5 study of REML_SCALE).
LME4_OUTPUT = """versions 1.1.31 4.2.2
seconds 38.455
variance item:rater 0.228126098710729
variance item:system 0.0712405542620823
variance item 0.142292108784907
variance system:rater 0.037322106636043
variance rater 0.529338441042426
variance Residual 0.487750575233858
deviance 248529.276965116
"""


def test_the_lme4_peers_output_is_read_with_this_packages_component_names():
    peer = bench_scale.parse_lme4(LME4_OUTPUT)
    assert peer["seconds"] == 38.455 and (peer["lme4"], peer["R"]) == ("1.1.31", "4.2.2")
    assert set(peer["variances"]) == {"item", "annotator", "item:system", "item:annotator", "system:annotator",
                                      "residual"}
    assert peer["variances"]["annotator"] == 0.529338441042426 and peer["deviance"] == 248529.276965116
    with pytest.raises(ValueError, match="no result"):
        bench_scale.parse_lme4("Error in library(lme4)")


def test_reml_rows_report_each_size_and_the_scaling_ratio(capsys):
    rows = []
    largest = bench_scale.reml_rows(rows, designs=((20, 3, 4, 0.3), (60, 3, 4, 0.3)), runs=1)
    assert [r["judgements"] for r in rows[:2]] == [rows[0]["judgements"], largest["judgements"]]
    assert rows[1]["judgements"] > 2.5 * rows[0]["judgements"] and rows[1]["peak_rss_mb"] > 0
    ratio = rows[2]
    assert ratio["judgements_ratio"] == round(rows[1]["judgements"] / rows[0]["judgements"], 2)
    assert ratio["time_ratio"] == round(rows[1]["seconds"] / rows[0]["seconds"], 2)
    assert set(largest["variances"]) >= {"item", "annotator", "residual"}
    bench._print_table(rows)
    assert "x the judgements" in capsys.readouterr().out


def test_a_probe_that_overruns_its_limit_is_reported_not_waited_for():
    result = bench_scale.probe("reml_probe(20, 3, 4, 0.3)", seconds=0.05)
    assert result == {"failed": "not done after 0 s"}


def test_without_r_the_peer_row_says_why(monkeypatch, capsys):
    monkeypatch.setattr(bench_scale.shutil, "which", lambda name: None)
    rows = []
    bench_scale.lme4_row(rows, design=(20, 3, 4, 0.3), ours=None, runs=1)
    assert rows == [{"stage": "lme4 lmer, the same 20-item study", "section": "scale", "seconds": None,
                     "note": "skipped: Rscript is not installed"}]
    bench._print_table(rows)
    assert "skipped: Rscript is not installed" in capsys.readouterr().out


def test_the_median_run_keeps_every_runs_seconds():
    runs = [{"seconds": 3.0, "a": 1}, {"seconds": 1.0, "a": 2}, {"seconds": 2.0, "a": 3}]
    assert bench_scale._median(runs) == {"seconds": 2.0, "a": 3, "runs_seconds": [3.0, 1.0, 2.0]}


def test_the_many_raters_row_runs_the_command_and_reads_what_it_sampled(capsys):
    rows = []
    bench_scale.raters_row(rows, design=(3, 2, 8))
    (row,) = rows
    assert row["judgements"] == 48 and row["pairs_total"] == 28 and row["pairs_computed"] == 28
    assert row["peak_rss_mb"] > 0 and "goal 60 s" in row["note"]


@pytest.mark.skipif(bench_scale.lme4_available() is not None, reason="R with lme4 is not installed")
def test_the_lme4_peer_fits_the_same_study_and_agrees():
    """Where R has lme4 (not in CI): the peer's script runs, and on a small study its components are ours."""
    design = (40, 3, 5, 0.3)
    ours = bench_scale.reml_probe(*design)
    rows = []
    bench_scale.lme4_row(rows, design=design, ours=ours, runs=1)
    (row,) = rows
    assert row["max_difference_share"] < 1e-4 and abs(row["deviance_difference"]) < 1e-4, row
    assert row["ratio"] > 0 and row["lme4"].startswith("1.")


def test_the_votes_row_runs_the_pairwise_command_on_exactly_the_votes_asked_for():
    data = bench_scale.votes(500, 40, 4, 6)
    assert len(data) == 500 and set(data["winner"]) == {"a", "b", "tie"}
    assert not (data["system_a"] == data["system_b"]).any()
    rows = []
    bench_scale.votes_row(rows, design=(500, 40, 4, 6))
    (row,) = rows
    assert row["judgements"] == 500 and row["winner"] in {"S0", "S1", "S2", "S3"} and "goal 30 s" in row["note"]
