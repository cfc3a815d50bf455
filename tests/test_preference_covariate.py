"""Bradley-Terry with a covariate of the pair (`preference.bradley_terry_covariate`) and PandaLM's ordering with
length held fixed (`analyses.real.length.length_adjusted_order`, section 5).

Outside references: without the covariate the fit is `preference.bradley_terry`'s, itself pinned against choix;
with it, the maximum of the same likelihood found by scipy's general-purpose optimiser, and the coefficient of
a simulated tournament with a known one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy.stats import kendalltau

from compendium.analyses.real import length as real_length
from compendium.data import real
from compendium.stats import preference


def _tournament(seed: int, n: int = 3000, beta: float = 0.8, ties: float = 0.1):
    rng = np.random.default_rng(seed)
    k = 5
    truth = rng.normal(0, 0.7, k)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    x = rng.normal(0, 0.5, n)
    p = 1 / (1 + np.exp(-(truth[a] - truth[b] + beta * x)))
    u = rng.random(n)
    winner = np.where(u < ties, "tie", np.where(u < ties + (1 - ties) * p, "a", "b"))
    frame = pd.DataFrame({"item": np.arange(n) // 3, "system_a": [f"s{i}" for i in a],
                          "system_b": [f"s{i}" for i in b], "rater": np.arange(n) % 3, "winner": winner})
    return preference.comparisons(frame), x


def test_without_the_covariate_the_fit_is_bradley_terrys():
    c = preference.comparisons(real.load_pandalm())
    strength, info = preference.bradley_terry_covariate(c, None)
    np.testing.assert_allclose(strength.to_numpy(), preference.bradley_terry(c).to_numpy(), atol=1e-8)
    assert np.isnan(info["beta"])


def test_the_covariate_fit_is_the_likelihoods_maximum():
    c, x = _tournament(1)
    strength, info = preference.bradley_terry_covariate(c, x)
    k = c.n_systems

    def negative_loglik(params):
        theta = np.append(params[: k - 1], 0.0)
        eta = theta[c.a] - theta[c.b] + params[-1] * x
        return -np.sum(c.score * -np.logaddexp(0, -eta) + (1 - c.score) * -np.logaddexp(0, eta))

    found = optimize.minimize(negative_loglik, np.zeros(k), method="BFGS", options={"gtol": 1e-10})
    theta = np.append(found.x[: k - 1], 0.0)
    # BFGS stops at a gradient of 1e-10 on a likelihood of 3,000 terms: its optimum is good to about 1e-6.
    np.testing.assert_allclose(strength.to_numpy(), theta - theta.mean(), atol=1e-5)
    assert info["beta"] == pytest.approx(found.x[-1], abs=1e-5)
    assert info["ci_low"] < info["beta"] < info["ci_high"] and info["n"] == len(x)


def test_a_known_coefficient_is_recovered():
    # no ties: ties drawn regardless of the pair and scored half a win shrink every log-odds toward 0
    found = [preference.bradley_terry_covariate(*_tournament(seed, beta=0.8, ties=0.0))[1] for seed in range(5)]
    assert sum(f["ci_low"] <= 0.8 <= f["ci_high"] for f in found) >= 4
    assert np.mean([f["beta"] for f in found]) == pytest.approx(0.8, abs=0.1)


def test_a_covariate_of_the_wrong_length_is_refused():
    c, x = _tournament(2, n=60)
    with pytest.raises(ValueError, match="one finite value per judgement"):
        preference.bradley_terry_covariate(c, x[:-1])


def test_system_lengths_count_each_comparison_once():
    responses = pd.DataFrame({"item": [0, 1], "system_a": ["x", "y"], "system_b": ["y", "z"],
                              "response_a": ["ab", "abcd"], "response_b": ["abcdef", ""]})
    assert real_length.system_lengths(responses).to_dict() == {"x": 2.0, "y": 5.0, "z": 0.0}


def test_order_rule_uses_the_exact_chance_level():
    assert real_length.verdict_order_tracks_length(0.8) == "holds"
    assert real_length.verdict_order_tracks_length(0.6) == "inconclusive"
    assert real_length.verdict_order_tracks_length(-0.8) == "does not hold"
    assert real_length.verdict_order_tracks_length(-0.6) == "inconclusive"
    assert real_length.verdict_order_tracks_length(float("nan")) == "not testable here"
    # five systems: the orderings with at most one discordant pair are the identity and 4 adjacent swaps
    import itertools
    taus = [kendalltau(range(5), p).statistic for p in itertools.permutations(range(5))]
    assert sum(t >= 0.8 - 1e-12 for t in taus) == 5 and len(taus) == 120


def test_pandalm_order_check_reports_both_orders():
    judgements, responses = real.load_pandalm(), real.load_pandalm_responses()
    table, info, check = real_length.pandalm_order_check(judgements, responses)
    assert list(table["rank"]) == [1, 2, 3, 4, 5]
    raw = preference.bradley_terry(preference.comparisons(judgements))
    np.testing.assert_allclose(table.set_index("system")["strength"], raw.reindex(table["system"]), atol=1e-12)
    assert check["estimate"] == pytest.approx(kendalltau(table["strength"], table["mean_length"]).statistic)
    assert check["verdict"] == real_length.verdict_order_tracks_length(check["estimate"])
    assert info["ci_low"] > 0  # the longer response wins within a comparison (the longer-wins checks' finding)
    assert "with length held fixed" in check["computed"]
