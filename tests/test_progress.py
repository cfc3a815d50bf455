"""Progress of long loops on the terminal of `compendium run`, never in the book (compendium.stats.progress)."""

from __future__ import annotations

import io
import os
import json
import threading

import numpy as np
import pandas as pd

from compendium.stats import progress
from compendium.stats import agreement


def test_a_tracker_is_silent_without_the_variable_and_writes_lines_with_it(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(progress.ENV, raising=False)
    progress.Tracker("quiet", 10).update(10)
    path = tmp_path / "progress.jsonl"
    monkeypatch.setenv(progress.ENV, str(path))
    monkeypatch.setattr(progress, "INTERVAL", 3600.0)
    tracker = progress.Tracker("alpha bootstrap", 2000)
    for done in (1, 500, 1000, 2000):
        tracker.update(done)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [x["done"] for x in lines] == [2000]  # throttled: within the interval, only the end
    assert capsys.readouterr() == ("", "")  # nothing printed: a kernel's output would end up in the book


def test_the_alpha_bootstrap_reports_its_replicates(tmp_path, monkeypatch):
    path = tmp_path / "progress.jsonl"
    monkeypatch.setenv(progress.ENV, str(path))
    monkeypatch.setattr(progress, "INTERVAL", 0.0)
    monkeypatch.setattr(agreement, "_CHUNK_CELLS", 200)  # 2 units x 100 replicates per chunk
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"unit": np.repeat(np.arange(2), 3), "rater": np.tile(["a", "b", "c"], 2),
                         "rating": rng.integers(1, 5, 6)})
    agreement.alpha_bootstrap_ci(data, unit="unit", rater="rater", rating="rating", level="interval", n_boot=250)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [(x["label"], x["done"], x["total"]) for x in lines] == [
        ("alpha bootstrap", 100, 250), ("alpha bootstrap", 200, 250), ("alpha bootstrap", 250, 250)]


def test_follow_prints_replicates_done_and_the_time_left():
    assert progress.describe({"label": "G parametric bootstrap", "done": 50, "total": 200, "unit": "replicates",
                              "elapsed": 10.0}) == "G parametric bootstrap: 50 of 200 replicates, 10 s, about 30 s left"


def test_follow_tails_the_file_until_stopped(tmp_path):
    path = tmp_path / "progress.jsonl"
    path.write_text(json.dumps({"label": "x", "done": 5, "total": 10, "unit": "replicates", "elapsed": 2.0}) + "\n"
                    + json.dumps({"label": "short", "done": 3, "total": 3, "unit": "replicates", "elapsed": 0.1})
                    + "\n")
    stream, stop = io.StringIO(), threading.Event()
    thread = progress.follow(path, stop, stream=stream, poll=0.01)
    stop.set()
    thread.join(5)
    assert stream.getvalue() == "  progress: x: 5 of 10 replicates, 2 s, about 2 s left\n"  # a loop of 0.1 s: quiet


def test_the_audit_command_shows_the_progress_of_its_long_reml_steps(tmp_path, monkeypatch, capsys):
    """``compendium audit`` follows the trackers as ``compendium run`` does: on an incomplete design the REML
    Hessian and the leave-one-rater-out panels report what is done (every update shown here: INTERVAL 0)."""
    from compendium import cli
    from compendium.simulate.crossed import simulate_incomplete

    monkeypatch.setattr(progress, "INTERVAL", 0.0)
    monkeypatch.delenv(progress.ENV, raising=False)
    simulate_incomplete(20, 3, 5, raters_per_item=3, seed=1, scale=(1, 5)).to_csv(tmp_path / "r.csv", index=False)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["audit", "r.csv", "--format", "json", "--n-boot", "20", "--out", "report"]) == 0
    err = capsys.readouterr().err
    # The Hessian: a column per variance parameter (five components and sigma), each from the analytic gradient.
    assert "progress: REML: the Hessian of the variance parameters" in err and "6 of 6 columns" in err
    assert "progress: leave-one-rater-out leaderboards (one GLS solve each): 6 of 6 panels" in err
    assert progress.ENV not in os.environ  # restored
