"""Each rater against the rest, and system means with a two-way interval (compendium.stats.diagnostics),
against plain pandas and NumPy loops and scipy's Pearson correlation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium.simulate.crossed import simulate_crossed, simulate_incomplete
from compendium.stats import diagnostics

# Compares floats from CPU-dispatched code with outside values (rater-against-rest statistics against scipy
# and plain loops); make test runs this module again under the narrow CPU profile (tests/narrow_cpu.py).
pytestmark = pytest.mark.numerics


def test_rater_vs_rest_agrees_with_a_plain_loop_and_scipy():
    data = simulate_incomplete(30, 4, 5, raters_per_item=3, missing=0.05, seed=3)
    table = diagnostics.rater_vs_rest(data).set_index("annotator")
    wide = data.pivot_table(index=["sentence_id", "system"], columns="annotator", values="rating")
    for name in wide.columns:
        others = wide.drop(columns=name)
        use = wide[name].notna() & others.notna().any(axis=1)
        own, rest = wide.loc[use, name], others[use].mean(axis=1)
        assert table.loc[name, "n_units"] == int(use.sum())
        assert table.loc[name, "r"] == pytest.approx(stats.pearsonr(own, rest).statistic, abs=1e-12)
        assert table.loc[name, "offset"] == pytest.approx(float((own - rest).mean()), abs=1e-12)


def test_a_lenient_rater_has_a_positive_offset():
    data = simulate_crossed(20, 3, 4, seed=1, scale=(1, 9))
    lenient = data["annotator"] == data["annotator"].iloc[0]
    data.loc[lenient, "rating"] = np.minimum(data.loc[lenient, "rating"] + 2, 9)
    table = diagnostics.rater_vs_rest(data)
    assert table.loc[0, "offset"] > 1 and table["offset"].idxmax() == 0


def test_system_means_and_their_two_way_interval_agree_with_a_plain_loop():
    data = simulate_incomplete(15, 3, 4, raters_per_item=3, missing=0.05, seed=2)
    table = diagnostics.system_means(data, n_boot=40, seed=5, block=7).set_index("system")
    assert table["mean"].to_dict() == pytest.approx(data.groupby("system", sort=False)["rating"].mean().to_dict())
    # The same draws, replicate by replicate, as a loop over resampled items and raters with pandas.
    items, raters = pd.unique(data["sentence_id"]), pd.unique(data["annotator"])
    rng = np.random.default_rng(5)
    replicates = []
    for start in range(0, 40, 7):
        size = min(7, 40 - start)
        drawn_items = rng.integers(0, len(items), (size, len(items)))
        drawn_raters = rng.integers(0, len(raters), (size, len(raters)))
        for di, dr in zip(drawn_items, drawn_raters):
            w = pd.Series(np.bincount(di, minlength=len(items)), index=items)
            v = pd.Series(np.bincount(dr, minlength=len(raters)), index=raters)
            weight = data["sentence_id"].map(w) * data["annotator"].map(v) * data["rating"].notna()
            frame = data.assign(weight=weight, product=data["rating"].fillna(0) * weight)
            sums = frame.groupby("system", sort=False)[["product", "weight"]].sum()
            replicates.append(sums["product"] / sums["weight"])
    boot = pd.DataFrame(replicates)
    for name in table.index:
        low, high = np.nanquantile(boot[name].to_numpy(float), [0.025, 0.975])
        assert table.loc[name, "ci_low"] == pytest.approx(low, abs=1e-12)
        assert table.loc[name, "ci_high"] == pytest.approx(high, abs=1e-12)
        assert table.loc[name, "ci_low"] <= table.loc[name, "mean"] <= table.loc[name, "ci_high"]
