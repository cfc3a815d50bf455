"""Data-seed sweeps: a fresh simulated benchmark per seed, the chapters run on each, never over data/."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest

from compendium.analyses.ledger import claims, robustness
from compendium.build import sweep
from compendium.build import runner
from compendium import cli

#: A chapter that records a claim read from the data it is given, so that each data seed shows.
DATA_CHAPTER = '''# %% tags=["parameters"]
seed = 0
data_dir = None

# %%
from pathlib import Path
from compendium.analyses.ledger import claims

header = dict(line[2:].split(": ", 1) for line in Path(data_dir, "MANIFEST").read_text().splitlines())
ledger = claims.Recorder("00_data", data="simulated")
ledger.record("ead.seed_sd_max", 0.001 * int(header["seed"]))
ledger.record("design.n_sentences", 17100)
'''


def fake_simulate(seed, out_dir, parameters=None):
    target = sweep.data_dir_of(seed, out_dir)
    target.mkdir(parents=True, exist_ok=True)
    (target / "MANIFEST").write_text(f"# seed: {seed}\n")
    return target


def test_a_data_sweep_gives_each_seed_its_own_data_and_gathers_the_claims(tmp_path, monkeypatch):
    source = tmp_path / "00_data.py"
    source.write_text(DATA_CHAPTER, encoding="utf-8")
    monkeypatch.setattr(sweep, "simulate_seed", fake_simulate)
    out = tmp_path / "sweep"
    with ThreadPoolExecutor(1) as pool:
        frame = sweep.data_sweep([0, 3], [source], out, executor=pool, kind=sweep.FULL)
    assert list(frame.columns) == list(robustness.SWEEP_COLUMNS)
    values = frame[frame["id"] == "ead.seed_sd_max"].set_index("seed")["value"]
    assert values.to_dict() == {0: 0.0, 3: pytest.approx(0.003)}  # each run read its own seed's data
    assert (out / "data-seed-3" / "00_data.ipynb").exists() and (out / "data-seed-3" / "data" / "MANIFEST").exists()
    assert sweep.read_info(out) == {"kind": "full", "seeds": [0, 3], "chapters": ["00_data"]}
    shares = sweep.data_seed_shares(out)
    assert shares["design.n_sentences"] == 1.0
    band = claims.registry()["ead.seed_sd_max"]
    assert shares["ead.seed_sd_max"] == sum(band.lo <= v <= band.hi for v in (0.0, 0.003)) / 2
    assert robustness.read_sweep(out / sweep.DATA_SWEEP_CLAIMS).equals(sweep.read_data_sweep(out))


def test_a_data_sweep_refuses_to_write_into_data(monkeypatch, tmp_path):
    monkeypatch.setattr(sweep, "data_dir_of", lambda seed, out_dir: runner.ROOT / "data")
    before = (runner.ROOT / "data" / "MANIFEST").read_bytes()
    with pytest.raises(ValueError, match="never writes into data/"):
        sweep.simulate_seed(0, tmp_path)
    assert (runner.ROOT / "data" / "MANIFEST").read_bytes() == before


def test_the_default_build_keeps_a_full_sweep_and_reruns_a_small_one(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(sweep, "data_sweep", lambda *a, **k: calls.append((a, k)))
    sweep.default_data_sweep(out_dir=tmp_path)  # nothing there: the small sweep runs
    assert calls[-1][0][:2] == (sweep.DEFAULT_DATA_SEEDS, sweep.DEFAULT_CHAPTERS) and calls[-1][1]["kind"] == "small"
    (tmp_path / sweep.DATA_SWEEP_CLAIMS).write_text("x\n")
    (tmp_path / sweep.DATA_SWEEP_INFO).write_text(json.dumps(
        {"kind": "full", "seeds": list(range(10)), "chapters": ["01_design", "02_reliability", "03_length"]}))
    sweep.default_data_sweep(out_dir=tmp_path)
    assert len(calls) == 1, "a full sweep covering the default one is kept"
    (tmp_path / sweep.DATA_SWEEP_INFO).write_text(
        json.dumps({"kind": "custom", "seeds": [0, 1], "chapters": ["01_design"]})
    )
    sweep.default_data_sweep(out_dir=tmp_path)
    assert len(calls) == 2, "a sweep that does not cover the default one is replaced"
    assert sweep.default_data_sweep({"data_dir": "/elsewhere"}, out_dir=tmp_path) is None and len(calls) == 2


def test_side_by_side_and_free_claims_over_data_seeds():
    def frame(values, claim="ead.seed_sd_max", lo=0.0, hi=0.005):
        return pd.DataFrame([{"seed": s, "id": claim, "section": "6", "what": "w", "paper": 0.0033, "lo": lo, "hi": hi,
                              "value": v, "status": "x", "notebook": "n", "data": "simulated"}
                             for s, v in enumerate(values)])

    analysis, data = frame([0.003, 0.004]), frame([0.001, 0.004, 0.009, 0.010])
    both = robustness.side_by_side(analysis, data).set_index("id")
    assert both.loc["ead.seed_sd_max", "analysis_in_band"] == 1.0 and both.loc["ead.seed_sd_max", "data_in_band"] == 0.5
    assert both.loc["ead.seed_sd_max", "data_range"] == pytest.approx(0.009)
    only_data = robustness.side_by_side(None, data)
    assert only_data["analysis_sd"].isna().all() and len(only_data) == 1
    assert robustness.side_by_side(None, None).empty
    rows = claims.ledger({"ead.seed_sd_max": {"reproduced": 0.004}},
                         record=pd.DataFrame({"parameter": [], "claim": [], "how": []}))
    free = robustness.free_claims_over_data_seeds(data, rows)
    assert free.loc[0, "id"] == "ead.seed_sd_max" and free.loc[0, "in_band"] == 0.5 and free.loc[0, "book"] == 0.004
    targeted = claims.ledger({"ead.seed_sd_max": {"reproduced": 0.004}})  # the shipped record targets it
    assert robustness.free_claims_over_data_seeds(data, targeted).empty


@pytest.mark.parametrize("argv, message", [
    (["sweep", "--data-seeds", "3-1"], "--data-seeds: '3-1' is not a seed or a range"),
    (["sweep", "--data-seeds", "0-1", "--data-dir", "/x"], "takes no --data-dir"),
])
def test_bad_data_seed_options_get_a_clear_message(argv, message, capsys):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_seeds_and_data_seeds_exclude_each_other(capsys):
    with pytest.raises(SystemExit):
        cli.main(["sweep", "--seeds", "0", "--data-seeds", "0"])
    assert "not allowed with argument" in capsys.readouterr().err


def _manifest_digest(root):
    return hashlib.sha256((root / "data" / "MANIFEST").read_bytes()).hexdigest()


def test_a_data_seed_sweep_works_from_a_fresh_clone(tmp_path):
    """`compendium sweep --data-seeds 1 02_reliability --out DIR` in a fresh clone of the committed tree
    (no data/ files, no _build): it simulates a benchmark under DIR and runs chapter 2 on it. (Chapter 2 reads no
    real data: chapter 1 would spend half the test loading seven tokenizers. One data seed: gathering several is
    test_a_data_sweep_gives_each_seed_its_own_data_and_gathers_the_claims.)"""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(runner.ROOT), str(clone)], check=True)
    if runner.CACHE_DIR.is_dir():
        # The clone shares this checkout's store of computed results, as a second clone on one machine may: it
        # is keyed by the code's and the inputs' content and sealed (compendium.data.cache), so it gives what
        # computing gives. Without it the chapter's verdict box would spend 34 of the test's 45 s recomputing
        # chapter 10's audits of real benchmarks, which have nothing to do with a data seed and which chapter 10's
        # tests compute. What this test is about is done afresh: the clone simulates its benchmark and runs the
        # chapter on it in a new kernel.
        (clone / "_build").mkdir()
        (clone / "_build" / "cache").symlink_to(runner.CACHE_DIR.resolve(), target_is_directory=True)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(clone / "src")}
    root = subprocess.run([sys.executable, "-c", "from compendium.build import runner; print(runner.ROOT)"],
                          capture_output=True, text=True, cwd=clone, env=env, check=True).stdout.strip()
    assert root == str(clone), "the clone's own package must run"
    manifest = _manifest_digest(clone)
    completed = subprocess.run(
        [sys.executable, "-m", "compendium.cli", "sweep", "--data-seeds", "1", "02_reliability", "--out", str(out)],
        capture_output=True, text=True, cwd=clone, env=env)
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert "37 claims over 1 data seed written to" in completed.stdout
    table = robustness.read_sweep(out / sweep.DATA_SWEEP_CLAIMS)
    # The seed's own benchmark gives every claim of the chapter a value; on other data some leave their bands
    # (chapter 2's annotator statistics vary from benchmark to benchmark), which is what a sweep shows.
    assert table["seed"].unique().tolist() == [1] and table["id"].nunique() == len(table) == 37
    assert set(table["status"]) <= {"reproduced", "differs"} and (table["status"] == "reproduced").mean() > 0.8
    assert table["value"].notna().all()
    header = dict(line[2:].split(": ", 1) for line in (out / "data-seed-1" / "data" / "MANIFEST")
                  .read_text().splitlines() if line.startswith("# "))
    assert header["seed"] == "1"
    assert _manifest_digest(clone) == manifest and not (clone / "data" / "ratings.csv").exists()
    # Nothing of the clone's build is written, but for the store of computed results that every run shares
    # (compendium.data.cache).
    assert not (clone / "_build").exists() or sorted(p.name for p in (clone / "_build").iterdir()) == ["cache"]
