"""Issue 72, part 2: each system's mean with an interval that keeps its 95 %.

The audit's system-mean intervals were a two-way (pigeonhole) bootstrap over items and raters; on designs with
three or four raters it covered the true mean 78-90 % of the time (``compendium audit --coverage``). They are now
t intervals with items and raters random and Satterthwaite's degrees of freedom:

* complete designs: :func:`compendium.stats.diagnostics.system_mean_intervals`, from each system's own two-way
  mean squares. The reference is this package's REML fit of ``rating ~ 1 + (1|item) + (1|rater)`` on that
  system's ratings with its Satterthwaite test of the intercept (both checked against lme4 and lmerTest in
  tests/test_mixed.py and tests/test_gstudy.py): with no negative variance estimate, REML is the ANOVA solution,
  so the standard error and the degrees of freedom must agree;
* incomplete designs: :func:`compendium.stats.gstudy.system_mean_intervals`, from the G study's REML fit. On a
  complete balanced design its variance of a system mean must be G theory's closed form from the fitted
  components (Brennan 2001, ch. 4): ``s_i/n_i + s_r/n_r + s_is/n_i + s_ir/(n_i n_r) + s_sr/n_r + s_e/(n_i n_r)``.

Their coverage, measured by simulation from each design's own fit, is pinned in tests/test_coverage.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from compendium.simulate.crossed import simulate_crossed, simulate_incomplete
from compendium.stats import diagnostics, gstudy, mixed

COLS = {"item": "item", "system": "system", "rater": "rater", "rating": "rating"}


@pytest.fixture(scope="module")
def crossed():
    return simulate_crossed(25, 3, 4, seed=4, item="item", rater="rater",
                            components={"item": 1.0, "annotator": 0.6, "item:system": 0.5, "item:annotator": 0.3,
                                        "system:annotator": 0.2, "residual": 0.8})


def _reml_intercept(part):
    codes = {role: part[role].astype("category").cat.codes.to_numpy() for role in ("item", "rater")}
    fit = mixed.fit_lmm(part["rating"].to_numpy(dtype=float), np.ones((len(part), 1)),
                        [mixed.RandomTerm("item", codes["item"]), mixed.RandomTerm("rater", codes["rater"])])
    return fit, mixed.satterthwaite(fit, [1.0])


def test_a_complete_designs_interval_is_the_reml_satterthwaite_interval_of_each_system(crossed):
    table = diagnostics.system_mean_intervals(crossed, **COLS).set_index("system")
    for system, part in crossed.groupby("system"):
        fit, test = _reml_intercept(part)
        assert min(fit.variances) > 0  # REML inside the parameter space: the ANOVA solution
        row = table.loc[system]
        # REML's optimum to lme4's tolerance; the Satterthwaite df from a numerical Hessian (Richardson)
        assert row["mean"] == pytest.approx(test["estimate"], rel=1e-9)
        assert row["se"] == pytest.approx(test["se"], rel=1e-5)
        assert row["df"] == pytest.approx(test["df"], rel=1e-3)  # the Hessian's differences: about 1e-4
        q = stats.t.ppf(0.975, row["df"])
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((row["mean"] - q * row["se"],
                                                                 row["mean"] + q * row["se"]), rel=1e-12)


def test_the_reml_interval_has_g_theorys_variance_of_a_system_mean(crossed):
    study = gstudy.fit_gstudy(crossed, **COLS)
    v = study.fit.variances
    n_i, n_r = study.n_items, study.n_raters
    expected = (v["item"] / n_i + v["annotator"] / n_r + v["item:system"] / n_i + v["item:annotator"] / (n_i * n_r)
                + v["system:annotator"] / n_r + v["residual"] / (n_i * n_r))
    table = gstudy.system_mean_intervals(study)
    assert (table["se"] ** 2).to_numpy() == pytest.approx(np.full(3, expected), rel=1e-6)  # REML's optimum
    assert table["estimate"].to_numpy() == pytest.approx(table["mean"].to_numpy(), rel=1e-9)  # complete: the means
    assert (table["n"] == 100).all() and (table["ci_low"] < table["estimate"]).all()


def test_an_incomplete_designs_estimate_is_the_gls_mean_and_the_complete_route_refuses_it():
    data = simulate_incomplete(30, 3, 5, raters_per_item=3, seed=2, item="item", rater="rater")
    table = gstudy.system_mean_intervals(gstudy.fit_gstudy(data, **COLS))
    plain = data.groupby("system")["rating"].mean()
    assert table.set_index("system")["mean"].to_dict() == pytest.approx(plain.to_dict(), rel=1e-12)
    assert (table["df"] > 1).all() and (table["ci_high"] - table["ci_low"] > 0).all()
    with pytest.raises(ValueError, match="needs the complete design"):
        diagnostics.system_mean_intervals(data, **COLS)
