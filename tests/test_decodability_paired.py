"""Paired comparisons of decoders on the same items (compendium.analyses.ead).

References: scikit-learn's ``f1_score`` on each resample drawn by a plain loop
(the paired bootstrap), statsmodels' ``mcnemar`` through
:func:`compendium.analyses.ead.inference.mcnemar`, statsmodels' ``multipletests`` for
Holm's adjustment, and tiers worked out by hand.
"""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score
from statsmodels.stats.multitest import multipletests

from compendium.analyses.ead import inference as ead_inference

# Compares floats from CPU-dispatched code with outside values (paired decoder comparisons against scikit-
# learn and statsmodels); make test runs this module again under the narrow CPU profile (tests/narrow_cpu.py).
pytestmark = pytest.mark.numerics


def _oof(seed=0, n=120, accuracies=(0.35, 0.5, 0.7)):
    rng = np.random.default_rng(seed)
    labels = rng.choice(list("abcd"), n)
    frames = []
    for i, acc in enumerate(accuracies):
        pred = np.where(rng.random(n) < acc, labels, rng.choice(list("abcd"), n))
        frames.append(pd.DataFrame({"language": "bn", "system": f"s{i}", "item": np.arange(n), "label": labels,
                                    "predicted": pred}))
    return pd.concat(frames, ignore_index=True)


def test_paired_bootstrap_equals_a_plain_loop_with_sklearn():
    oof = _oof()
    n_boot, seed = 60, 5
    out = ead_inference.paired_comparisons(oof, n_boot=n_boot, seed=seed)
    assert len(out) == 3 and (out["n_items"] == 120).all()
    idx = ead_inference.bootstrap_indices(120, n_boot, seed)  # the same resamples, drawn the same way
    wide = {s: part.sort_values("item") for s, part in oof.groupby("system")}
    for row in out.itertuples():
        a, b = wide[row.system1], wide[row.system2]
        y = a["label"].to_numpy()
        f1a = f1_score(y, a["predicted"], average="macro")
        f1b = f1_score(y, b["predicted"], average="macro")
        assert row.diff == pytest.approx(f1a - f1b, abs=1e-12)
        d = np.array([f1_score(y[i], a["predicted"].to_numpy()[i], average="macro")
                      - f1_score(y[i], b["predicted"].to_numpy()[i], average="macro") for i in idx])
        p = (1 + np.sum(np.abs(d - row.diff) >= abs(row.diff) - 1e-12)) / (n_boot + 1)
        assert row.p_boot == pytest.approx(p)
        assert (row.diff_lo, row.diff_hi) == pytest.approx(tuple(np.quantile(d, [0.025, 0.975])))
        mc = ead_inference.mcnemar(a, b)
        assert row.p_mcnemar == pytest.approx(mc["pvalue"])
    np.testing.assert_allclose(out["p_boot_adj"], multipletests(out["p_boot"], method="holm")[1])
    np.testing.assert_allclose(out["p_mcnemar_adj"], multipletests(out["p_mcnemar"], method="holm")[1])
    assert out["correction"].iloc[0] == "Holm-adjusted over 3 comparisons (family-wise error rate)"


def test_paired_comparisons_hold_their_level_under_the_null():
    """Two decoders with the same accuracy on the same items: over 150 data
    sets the paired bootstrap rejects at .05 in about 5 % of them (binomial
    SD 1.8 %; tolerance four SDs)."""
    rejections = []
    for seed in range(150):
        out = ead_inference.paired_comparisons(_oof(seed, n=150, accuracies=(0.5, 0.5)).drop(columns="language"),
                                     n_boot=199, seed=seed)
        rejections.append(out["p_boot"].iloc[0] < 0.05)
    assert abs(np.mean(rejections) - 0.05) < 4 * np.sqrt(0.05 * 0.95 / 150)


def test_paired_tiers_follow_the_leader_rule():
    table = pd.DataFrame({"language": "bn", "system": ["s0", "s1", "s2"], "macro_f1": [0.3, 0.45, 0.6]})
    pairs = pd.DataFrame({"language": "bn", "system1": ["s0", "s0", "s1"], "system2": ["s1", "s2", "s2"],
                          "p_boot_adj": [0.2, 0.001, 0.04]})
    # s2 leads; s1 differs from s2 (0.04) -> tier 2, led by s1; s0 vs s1 is 0.2 -> stays in tier 2.
    assert ead_inference.paired_tiers(table, pairs)["tier_paired"].tolist() == [1, 2, 2]
    assert ead_inference.paired_tiers(table, pairs, alpha=0.01)["tier_paired"].tolist() == [1, 1, 2]


def test_paired_comparisons_reject_inconsistent_labels():
    oof = _oof()
    oof.loc[(oof["system"] == "s1") & (oof["item"] == 3), "label"] = "zz"
    with pytest.raises(ValueError, match="two different labels"):
        ead_inference.paired_comparisons(oof, n_boot=10, seed=0)
    with pytest.raises(ValueError, match="lacks the column"):
        ead_inference.paired_comparisons(oof.drop(columns="predicted"), n_boot=10, seed=0)


def test_paired_tiers_doctest():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(
        ead_inference.paired_tiers, "paired_tiers", globs={"pd": pd, "paired_tiers": ead_inference.paired_tiers}
    ):
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0 and runner.summarize(verbose=False).attempted > 0
