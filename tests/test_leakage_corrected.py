"""Nadeau and Bengio's corrected resampled t (compendium.analyses.leakage).

Reference: a hand computation, and scipy's paired t-test for the naive
statistic.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium.analyses import leakage


def test_corrected_resampled_t_by_hand():
    """Differences d = 0.02, 0.04, 0.03, 0.05 over J = 4 splits with 800
    training and 200 test rows.

    mean = 0.14 / 4 = 0.035; deviations -0.015, 0.005, -0.005, 0.015, squares
    sum to 2.25e-4 + 2.5e-5 + 2.5e-5 + 2.25e-4 = 5e-4, so s^2 = 5e-4 / 3 =
    1.6667e-4.
    Naive: t = 0.035 / sqrt(1.6667e-4 / 4) = 0.035 / 0.0064550 = 5.4222.
    Corrected: variance factor 1/4 + 200/800 = 0.5, t = 0.035 / sqrt(0.5 *
    1.6667e-4) = 0.035 / 0.0091287 = 3.8341; df = 3 for both.
    """
    d = [0.02, 0.04, 0.03, 0.05]
    out = leakage.corrected_resampled_t(d, n_train=800, n_test=200)
    assert out["mean"] == pytest.approx(0.035)
    # Worked by hand to four decimals (half a unit: 5e-5).
    assert out["t_naive"] == pytest.approx(5.4222, abs=1e-4)
    assert out["t_corrected"] == pytest.approx(3.8341, abs=1e-4)
    assert out["df"] == 3 and out["test_train_ratio"] == 0.25
    # scipy's p at the hand-rounded t = 3.8341: rounding t by 5e-5 moves p by less than 1e-4 of itself.
    assert out["p_corrected"] == pytest.approx(2 * stats.t.sf(3.8341, 3), rel=1e-4)
    # The naive statistic is scipy's paired t of the two score columns.
    a = np.array([0.62, 0.63, 0.61, 0.66])
    ref = stats.ttest_rel(a, a - np.array(d))
    assert out["t_naive"] == pytest.approx(ref.statistic) and out["p_naive"] == pytest.approx(ref.pvalue)
    assert out["p_corrected"] > out["p_naive"]


def test_the_corrected_interval_is_scipys_t_interval_widened_by_the_correction():
    """scipy's one-sample t interval (``TtestResult.confidence_interval``), centred on the mean, with its
    half-width grown by sqrt((1/J + n_test/n_train) / (1/J)) = sqrt(0.5 / 0.25) for the hand example."""
    d = np.array([0.02, 0.04, 0.03, 0.05])
    ref = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    out = leakage.corrected_resampled_t(d, n_train=800, n_test=200)
    half = (ref.high - ref.low) / 2 * np.sqrt(2.0)
    assert (out["ci_low"], out["ci_high"]) == pytest.approx((0.035 - half, 0.035 + half))
    # it excludes 0 exactly when the corrected two-sided p is below 0.05
    assert (out["ci_low"] > 0) == (out["p_corrected"] < 0.05)


def test_corrected_resampled_t_on_the_papers_numbers():
    """The paper's t = 4.97 over 6 replicates of an 80/20 split: the
    correction multiplies t by sqrt((1/6) / (1/6 + 1/4)) = sqrt(0.4), giving
    3.143 on 5 df, p = 0.026 instead of 0.0042."""
    d = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0]) * 0.01
    d = d + 4.97 * d.std(ddof=1) / np.sqrt(6)  # a sample with naive t = 4.97
    out = leakage.corrected_resampled_t(d, n_train=0.8, n_test=0.2)
    assert out["t_naive"] == pytest.approx(4.97)
    assert out["t_corrected"] == pytest.approx(4.97 * np.sqrt(0.4))
    # The hand value to three significant digits (t = 4.97 sqrt(0.4) = 3.143 on 5 df gives p = 0.02557): half a unit
    # of its last digit is 5e-5; 5e-4 keeps the check about the corrected t, not the digits.
    assert out["p_corrected"] == pytest.approx(0.0256, abs=5e-4)


def test_optimism_test_uses_the_replicates_and_the_split_sizes():
    reps = pd.DataFrame({"rowwise": [0.63, 0.64, 0.62], "grouped": [0.60, 0.60, 0.61],
                         "n_test_rowwise": [200, 200, 200], "n_test_grouped": [198, 202, 200]})
    out = leakage.optimism_test(leakage.Optimism(reps, pd.Series(dtype=float)), pd.DataFrame(index=range(1000)))
    ref = leakage.corrected_resampled_t(reps["rowwise"] - reps["grouped"], n_train=800, n_test=200)
    pd.testing.assert_series_equal(out, ref)


def test_corrected_resampled_t_rejects_bad_input():
    with pytest.raises(ValueError, match="two finite"):
        leakage.corrected_resampled_t([0.1], n_train=8, n_test=2)
    with pytest.raises(ValueError, match="positive"):
        leakage.corrected_resampled_t([0.1, 0.2], n_train=0, n_test=2)
