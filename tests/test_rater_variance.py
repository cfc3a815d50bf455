"""Each rater term's variance over the systems' (compendium.stats.rater_variance), against what is not itself:

- the balanced REML from the strata's sums of squares against the REML fit of compendium.stats.gstudy (itself
  tested against lme4) and against the ANOVA estimates of compendium.stats.gtheory where those are positive;
- the bootstrap drawn from sufficient statistics against the bootstrap that refits every replicate by REML.
"""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

from compendium.analyses import reliability
from compendium.stats import gstudy, gtheory
from compendium.stats import rater_variance as rv

pytestmark = pytest.mark.numerics
COLS = {"item": "item", "system": "system", "rater": "rater", "rating": "rating"}


def _complete(n_items=40, systems=(0.0, 0.4, 0.8, 1.2), raters=(-0.6, 0.0, 0.5), seed=2) -> pd.DataFrame:
    """Every rater rates every system on every item: system effect + leniency + item + the three two-way
    interactions + noise, every component present."""
    rng = np.random.default_rng(seed)
    n_s, n_r = len(systems), len(raters)
    item = rng.normal(0, 0.5, n_items)
    i_s, i_r, s_r = (rng.normal(0, 0.4, (n_items, n_s)), rng.normal(0, 0.4, (n_items, n_r)),
                     rng.normal(0, 0.3, (n_s, n_r)))
    rows = []
    for i in range(n_items):
        for s, mu in enumerate(systems):
            for r, lenient in enumerate(raters):
                y = mu + lenient + item[i] + i_s[i, s] + i_r[i, r] + s_r[s, r] + rng.normal(0, 0.6)
                rows.append((f"i{i}", f"s{s}", f"r{r}", y))
    return pd.DataFrame(rows, columns=["item", "system", "rater", "rating"])


@pytest.fixture(scope="module")
def study():
    return gstudy.fit_gstudy(_complete(), item="item", system="system", rater="rater", rating="rating")


def test_the_strata_reml_is_the_fit_and_the_anova_estimates(study):
    frame = _complete()
    table = gtheory.anova_table(frame, **COLS)
    ss = table.loc[list(gstudy.COMPONENTS), "SS"].to_numpy()
    df, ems = rv._strata(study.n_items, len(study.systems), study.n_raters)
    reml = rv._reml(ss, df, ems)
    fitted = np.array([rv.components(study)[c] for c in gstudy.COMPONENTS])
    # rounding: the fit's optimiser stops at mixed.FTOL; the components agree to about 1e-7 of the largest
    np.testing.assert_allclose(reml, fitted, atol=1e-6 * fitted.max())
    anova = gtheory.variance_components(frame, **COLS)["raw"]
    assert (anova[list(gstudy.COMPONENTS)] > 0).all()  # inside the parameter space, REML is ANOVA
    np.testing.assert_allclose(reml, anova[list(gstudy.COMPONENTS)], rtol=1e-9)


def test_a_negative_anova_estimate_is_reml_at_its_boundary():
    """Ratings with no item x rater variance at all: ANOVA's estimate is below 0 in about half of the draws;
    REML sets it to 0 and maximises the likelihood of the rest (its gradient points out of the space)."""
    df, ems = rv._strata(20, 3, 3)
    rng = np.random.default_rng(5)
    sigma = np.array([0.3, 0.2, 0.4, 0.0, 0.1, 1.0])
    for _ in range(20):
        ss = (ems @ sigma) * rng.chisquare(df)
        anova = np.linalg.solve(ems, ss / df)
        reml = rv._reml(ss, df, ems)
        assert (reml >= 0).all()
        if (anova >= 0).all():
            np.testing.assert_allclose(reml, anova)
        else:
            lam = ems @ reml
            grad = ems.T @ (df / lam - ss / lam**2)  # of -2 log L: >= 0 at a component held at 0, 0 elsewhere
            free = reml > 1e-9
            # loose: L-BFGS-B stops at gtol 1e-10 of a gradient scaled by the mean square
            assert np.abs(grad[free]).max() < 1e-4 * np.abs(grad).max() + 1e-6
            assert (grad[~free] > -1e-6).all()


def test_the_bootstrap_from_sufficient_statistics_is_the_bootstrap_that_refits(study):
    drawn = rv.balanced_replicates(study, n_boot=2000, seed=1)
    refitted = rv.refit_replicates(study, n_boot=300, seed=2)
    for term in ("system", "annotator", "item:annotator", "residual"):
        a, b = drawn[term].to_numpy(), refitted[term].to_numpy()
        # loose: two Monte Carlo samples (2,000 and 300 replicates) of one distribution; their medians and
        # quartiles differ by a few standard errors of a quantile of 300 (about 0.07 sd), so 0.25 sd
        for q in (0.25, 0.5, 0.75):
            assert abs(np.quantile(a, q) - np.quantile(b, q)) < 0.25 * a.std() + 1e-9, (term, q)


def test_the_interval_covers_the_estimate_has_its_monte_carlo_error_and_is_seeded(study):
    out = rv.log_ratio_ci(study, n_boot=2000, seed=4)
    assert out["n_boot"]["annotator"] == 2000 and "sums of squares" in out["method"]
    for term in rv.RATIO_TERMS:
        low, high = out["ci"][term]
        assert low <= out["log_ratio"][term] <= high
        assert all(np.isfinite(e) and e >= 0 for e in out["mc_error"][term])
    # the Monte Carlo error falls as the replicates grow: about sqrt(10) from 200 to 2,000
    fewer = rv.log_ratio_ci(study, n_boot=200, seed=4)["mc_error"]["annotator"][1]
    assert fewer > 1.8 * out["mc_error"]["annotator"][1]
    assert rv.log_ratio_ci(study, n_boot=2000, seed=4)["ci"] == out["ci"]
    assert rv.log_ratio_ci(study, n_boot=2000, seed=5)["ci"] != out["ci"]


def test_an_incomplete_design_refits_every_replicate():
    frame = _complete(n_items=24).sample(frac=0.9, random_state=3)
    study = gstudy.fit_gstudy(frame, item="item", system="system", rater="rater", rating="rating")
    assert not rv.is_complete(study)
    with pytest.raises(ValueError, match="complete crossed design"):
        rv.balanced_replicates(study, 5)
    out = rv.log_ratio_ci(study, n_boot=30, seed=1)
    assert "refitted" in out["method"] and out["n_boot"]["annotator"] == 30


def test_the_doctests_run():
    assert doctest.testmod(rv).failed == 0
    assert (
        doctest.run_docstring_examples(reliability.ratio_text, {"np": np, "ratio_text": reliability.ratio_text}) is None
    )
    assert reliability.ratio_text(np.log(3.0), (np.log(1.5), rv.LOG_BOUND)) == "3 [1.5, ∞]"
