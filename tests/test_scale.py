"""The audit at leaderboard scale (issue 57), on small designs: the vectorised leave-one-rater-out leaderboards
against the loop over panels they replace, and the pairwise statistics sampled, and said to be, above the limit.
How fast these run is measured by ``make bench`` (section ``scale``), never here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from compendium.audit import core as audit
from compendium.simulate.crossed import simulate_crossed
from compendium.stats import pairs, panels


def _loop_leave_one_out(data, *, system="system", rater="annotator", rating="rating", higher_is_better=True):
    """The former implementation: one pandas groupby per panel."""
    raters = np.sort(data[rater].unique())
    frames = []
    for name, sub in [("all", data)] + [(f"without {r}", data[data[rater] != r]) for r in raters]:
        means = sub[rating].groupby(sub[system].to_numpy(), sort=True).mean().dropna()
        board = pd.DataFrame({system: means.index, "mean": means.to_numpy()})
        board["rank"] = board["mean"].rank(ascending=not higher_is_better, method="min").astype(int)
        board = board.sort_values(["rank", system], kind="stable")
        board.insert(0, "panel", name)
        board["winner"] = " / ".join(str(s) for s in board.loc[board["rank"] == 1, system])
        frames.append(board)
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize("higher_is_better", [True, False])
@pytest.mark.parametrize("kind", ["whole numbers", "MQM-like weights", "ties and gaps"])
def test_leave_one_out_leaderboards_are_the_loops(kind, higher_is_better):
    rng = np.random.default_rng(len(kind))
    data = simulate_crossed(6, 4, 7, seed=2, scale=(1, 5))
    if kind == "MQM-like weights":
        data["rating"] = rng.choice([0.0, 0.1, 1.0, 5.0, 25.0], len(data)) + rng.choice([0.0, 0.1], len(data))
    elif kind == "ties and gaps":
        data["rating"] = data["rating"].astype(float)
        data.loc[data["system"] == "S2", "rating"] = data.loc[data["system"] == "S1", "rating"].to_numpy()  # tied
        data.loc[rng.random(len(data)) < 0.2, "rating"] = np.nan
        data.loc[(data["system"] == "S4") & (data["annotator"] != "A3"), "rating"] = np.nan  # S4: A3 alone
    ours = panels.leave_one_annotator_out(data, higher_is_better=higher_is_better)
    theirs = _loop_leave_one_out(data, higher_is_better=higher_is_better)
    assert ours[["panel", "system", "rank", "winner"]].astype(str).equals(theirs[["panel", "system", "rank", "winner"]].astype(str))
    # The means by subtraction and by direct (pandas) sums differ at most in their last bit.
    np.testing.assert_allclose(ours["mean"].to_numpy(), theirs["mean"].to_numpy(), rtol=4e-16, atol=0)


def test_above_the_limit_the_audit_samples_rater_pairs_and_says_so(monkeypatch):
    data = simulate_crossed(4, 3, 30, seed=1, scale=(1, 5))  # 435 pairs of raters
    full = audit.audit(data, None, seed=0, n_boot=50)
    assert full["rater_pairs"]["sampled"] is False and len(full["pearson"]) == 435
    assert "all 435 pairs" in full["rater_pairs"]["note"]
    monkeypatch.setattr(pairs, "MAX_PAIRS", 100)
    sampled = audit.audit(data, None, seed=7, n_boot=50)
    facts = sampled["rater_pairs"]
    assert (facts["pairs"], facts["computed"], facts["sampled"], facts["seed"], facts["max_pairs"]) == (435, 100, True, 7, 100)
    assert "uniform sample of 100 of the 435 pairs of the 30 raters (seed 7)" in facts["note"]
    assert len(sampled["pearson"]) == 100 and len(sampled["loao"]["kendall"]) == 100
    # The sample is a subset of the full table, with the same values.
    full_r = {(p["rater1"], p["rater2"]): p["r"] for p in full["pearson"]}
    for p in sampled["pearson"]:
        assert p["r"] == full_r[(p["rater1"], p["rater2"])]
    again = audit.audit(data, None, seed=7, n_boot=50)
    assert again["pearson"] == sampled["pearson"]
