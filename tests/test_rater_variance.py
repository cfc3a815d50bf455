"""Each rater term's variance over the systems' (compendium.stats.rater_variance), against what is not itself:

- the balanced REML from the strata's sums of squares against the REML fit of compendium.stats.gstudy (itself
  tested against lme4) and against the ANOVA estimates of compendium.stats.gtheory where those are positive;
- the bootstrap drawn from sufficient statistics against the bootstrap that refits every replicate by REML;
- the generalized confidence interval's sums of squares against statsmodels' ``anova_lm``, its draws of one
  stratum against the exact chi-square interval of a variance, its noncentrality pivot against scipy's noncentral
  chi-square inverted by a root finder, and its coverage in simulation against the level it states.
"""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

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


def test_the_strata_sums_of_squares_are_statsmodels_anova():
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    frame = _complete(n_items=12)
    study = gstudy.fit_gstudy(frame, item="item", system="system", rater="rater", rating="rating")
    ss, ss_system = rv.strata_sums_of_squares(study)
    fit = smf.ols("rating ~ (C(item) + C(system) + C(rater)) ** 2", data=frame).fit()
    table = anova_lm(fit, typ=1)
    names = {"item": "C(item)", "annotator": "C(rater)", "item:system": "C(item):C(system)",
             "item:annotator": "C(item):C(rater)", "system:annotator": "C(system):C(rater)", "residual": "Residual"}
    expected = table.loc[[names[c] for c in gstudy.COMPONENTS], "sum_sq"].to_numpy()
    # rounding: two summation orders of a few hundred squares
    np.testing.assert_allclose(ss, expected, rtol=1e-9)
    np.testing.assert_allclose(ss_system, table.loc["C(system)", "sum_sq"], rtol=1e-9)
    with pytest.raises(ValueError, match="complete crossed design"):
        rv.strata_sums_of_squares(gstudy.fit_gstudy(frame.iloc[1:], item="item", system="system", rater="rater",
                                                    rating="rating"))


def test_the_noncentrality_pivot_inverts_scipys_noncentral_chi_square():
    x = np.array([3.0, 12.0, 40.0, 250.0, 2500.0])
    for dof in (2, 15):
        for u in (0.025, 0.5, 0.975):
            got = rv.noncentrality_pivot(x, dof, u)
            for xi, g in zip(x, got):
                if stats.chi2.cdf(xi, dof) <= u:
                    assert g == 0.0
                    continue
                root = optimize.brentq(lambda nc: stats.ncx2.cdf(xi, dof, nc) - u, 0, 10 * xi + 100, xtol=1e-12)
                # rounding: bisection to 2^-60 of its bracket against brentq's 1e-12
                assert abs(g - root) < 1e-8 * max(1.0, root), (dof, u, xi)


def test_one_strata_draws_are_the_exact_chi_square_interval_of_a_variance():
    """The residual's draws are SS_e / chi2(df_e), so their 2.5 % and 97.5 % points are the textbook exact
    interval of a variance, SS_e / chi2 quantiles (Searle, Casella and McCulloch 1992, sec. 3.5)."""
    n_i, k, n_r = 30, 4, 3
    df, ems = rv._strata(n_i, k, n_r)
    ss = (ems @ np.array([0.3, 0.2, 0.4, 0.1, 0.1, 1.0])) * df
    draws = rv.gpq_draws(ss, 40.0, n_i, k, n_r, n_boot=40_000, seed=3)["residual"].to_numpy()
    exact = ss[5] / stats.chi2.ppf([0.975, 0.025], df[5])
    got = np.quantile(draws, [0.025, 0.975])
    errors = [gstudy.percentile_mc_error(draws, q) for q in (0.025, 0.975)]
    # Monte Carlo: each end within four of its own standard errors
    assert all(abs(g - e) < 4 * err for g, e, err in zip(got, exact, errors)), (got, exact, errors)


def test_the_generalized_interval_keeps_its_level_where_the_percentile_interval_does_not():
    """Studies simulated from their sufficient statistics (exact for a complete normal design): three raters of
    very different leniency, 30 items, 6 systems. The generalized interval of the rater / system log ratio
    covers near 95 %; the percentile interval of the parametric bootstrap puts the rater variance's skew (2 df)
    on the wrong side and covers far less (the record of compendium.analyses.ledger.intervals measures both on
    SummEval)."""
    n_i, k, n_r = 30, 6, 3
    df, ems = rv._strata(n_i, k, n_r)
    sigma = np.array([0.3, 0.5, 0.4, 0.1, 0.1, 1.0])
    lam = ems @ sigma
    beta = np.linspace(-0.4, 0.4, k)
    centred = float(np.sum((beta - beta.mean()) ** 2))
    lam_sys = float(sigma[5] + n_r * sigma[2] + n_i * sigma[4])
    truth = np.log(sigma[1] / (centred / k))
    rng = np.random.default_rng(11)
    hits = {"generalized": [], "percentile": []}
    n_sim = 160
    for sim in range(n_sim):
        ss = lam * rng.chisquare(df)
        ss_system = lam_sys * rng.noncentral_chisquare(k - 1, centred * n_i * n_r / lam_sys)
        draws = rv.gpq_draws(ss, ss_system, n_i, k, n_r, n_boot=1000, seed=sim)
        with np.errstate(divide="ignore"):
            ratio = np.log(draws["annotator"] / draws["system"])
        low, high = np.quantile(ratio[np.isfinite(ratio)], [0.025, 0.975])
        hits["generalized"].append(low <= truth <= high)
        # the percentile interval's draws, from the same estimates by the same sums-of-squares bootstrap
        est = rv._reml(ss, df, ems)
        boot = (ems @ est) * rng.chisquare(df, size=(200, len(df)))
        reml = np.array([rv._reml(b, df, ems) for b in boot])
        between = float(est[5] + n_r * est[2] + n_i * est[4])
        spread = between / (n_i * n_r) * rng.noncentral_chisquare(k - 1, ss_system / between, 200)
        system = np.maximum((spread - (k - 1) * (reml[:, 5] + n_r * reml[:, 2] + n_i * reml[:, 4]) / (n_i * n_r)) / k,
                            1e-12)
        boot_ratio = np.log(np.maximum(reml[:, 1], 1e-12) / system)
        low, high = np.quantile(boot_ratio, [0.025, 0.975])
        hits["percentile"].append(low <= truth <= high)
    covered = {name: float(np.mean(h)) for name, h in hits.items()}
    # Monte Carlo: 160 studies give a binomial standard error of 0.017 at 0.95; 0.91 is 2.3 of them below
    assert covered["generalized"] > 0.91, covered
    assert covered["percentile"] < covered["generalized"] - 0.05, covered


def test_a_generalized_draw_with_no_ratio_widens_the_interval_and_a_bootstrap_replicate_with_none_is_left_out():
    values = np.r_[np.zeros(90), np.full(10, np.nan)]  # a tenth of the draws with both variances at 0
    ends, _, n = rv._ends(values, 0.025, (-9.0, 9.0), set_valued=True)
    assert ends == [-9.0, 9.0] and n == 100
    ends, _, n = rv._ends(values, 0.025, (-9.0, 9.0), set_valued=False)
    assert ends == [0.0, 0.0] and n == 90
    assert rv._ends(np.full(5, np.nan), 0.025, (-9.0, 9.0), set_valued=False)[2] == 0


def test_the_interval_covers_the_estimate_has_its_monte_carlo_error_and_is_seeded(study):
    out = rv.log_ratio_ci(study, n_boot=2000, seed=4)
    # a draw with both variances at 0 has no ratio (a handful of 2,000 here)
    assert 1990 <= out["n_boot"]["annotator"] <= 2000 and out["method"] == rv.METHOD_COMPLETE
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
