"""How much more of the rating variance the raters carry than the systems, with an interval that says so.

The paper's section 4.3 reads "annotator identity explains far more rating variance than system
identity" from the annotator main effect (22.1 % of the total) against the systems (0.7 %). This module
gives that comparison as a ratio of variance components from the REML G study
(:mod:`compendium.stats.gstudy`),

    log ratio = log(s2_term / s2_system),

for each rater term apart -- the rater main effect (``annotator``: a rater's leniency, the paper's
"identity"), and its interactions with items and with systems -- against the unbiased variance of the
true system means (systems fixed, truncated at 0). A ratio is reported on the log scale, where an interval
is symmetric in the two variances; a variance estimated at its boundary 0 puts the ratio at
:data:`LOG_BOUND` (a ratio beyond 10^4 either way is shown at the bound).

Two intervals, each with the Monte Carlo error of its ends (:func:`compendium.stats.gstudy.percentile_mc_error`):

* On a complete crossed design, a generalized confidence interval (Weerahandi 1993; Hannig, Iyer and
  Patterson 2006): :func:`gpq_replicates` draws each random stratum's expected mean square as its observed sum
  of squares over a chi-square on its df, solves for the components, and draws the fixed systems' spread by
  inverting the noncentral chi-square of their sum of squares (:func:`noncentrality_pivot`); the interval is
  the percentiles of the draws. It replaced a parametric-bootstrap percentile interval there, which covered
  the log ratio about three times in four in simulation from SummEval's fits: the rater variance has 2 df, and
  a percentile interval puts its skew on the wrong side. The record of
  :mod:`compendium.analyses.ledger.intervals` holds both coverages.
* On an incomplete design, a parametric-bootstrap percentile interval (Davison and Hinkley 1997, ch. 2 and 5):
  new ratings on the observed cells from the REML fit, refitted by REML, as
  :func:`compendium.stats.gstudy.g_bootstrap_ci` does (:func:`refit_replicates`).

On a complete design the bootstrap needs no refit of the ratings: REML for balanced data is a function of the
six random strata's sums of squares, which are independent scaled chi-squares, and of the system means, which
are normal (Searle, Casella and McCulloch 1992, ch. 4 and 6). :func:`balanced_replicates` draws those and
maximises the REML likelihood of the strata, bounded at zero -- the REML refit of a replicate, in a millisecond
instead of 50 (tested against the refits of :mod:`compendium.stats.gstudy`, which are tested against lme4); the
coverage record keeps its percentile interval as the candidate the generalized one replaced.

References
----------
.. [Searle1992] S. R. Searle, G. Casella and C. E. McCulloch, *Variance components*, Wiley, 1992.
.. [Davison1997] A. C. Davison and D. V. Hinkley, *Bootstrap methods and their application*, CUP, 1997.
.. [Weerahandi1993] S. Weerahandi, "Generalized confidence intervals", *JASA* 88 (1993), 899-905.
.. [Hannig2006] J. Hannig, H. Iyer and P. Patterson, "Fiducial generalized confidence intervals", *JASA* 101
   (2006), 254-269.
.. [Hannig2009] J. Hannig, "On generalized fiducial inference", *Statistica Sinica* 19 (2009), 491-544.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize, stats

from compendium.stats import gstudy, gtheory

__all__ = ["RATIO_TERMS", "RATIO_BOOT", "LOG_BOUND", "PAPER_RATERS", "components", "log_ratios", "g_limit",
           "is_complete",
           "strata_sums_of_squares", "noncentrality_pivot", "gpq_draws", "gpq_replicates", "balanced_replicates",
           "refit_replicates", "log_ratio_ci"]

#: The rater terms, each compared with the systems apart: the main effect first (the paper's "identity").
RATIO_TERMS = ("annotator", "item:annotator", "system:annotator")
#: Replicates of the interval: enough that each end's Monte Carlo error is a few hundredths on the log scale.
RATIO_BOOT = 2000
#: The interval on a complete design, and on an incomplete one, in words.
METHOD_COMPLETE = ("generalized confidence interval (generalized pivotal quantities from the strata's sums of "
                   "squares, systems fixed)")
METHOD_INCOMPLETE = "parametric bootstrap from the REML fit, refitted on the observed cells, percentile interval"
#: Where a log ratio stops: a variance at its boundary 0 makes the ratio 0 or infinite.
LOG_BOUND = float(np.log(1e4))

_RANDOM = gstudy.COMPONENTS  # item, annotator, item:system, item:annotator, system:annotator, residual


def components(study: gstudy.GStudy) -> dict[str, float]:
    """The six REML components and the unbiased system variance, each truncated at 0."""
    return {k: float(v) for k, v in gstudy.variance_components(study)["variance"].items()}


def log_ratios(comps) -> dict[str, float]:
    """``log(s2_term / s2_system)`` for each of :data:`RATIO_TERMS`, clipped to +-:data:`LOG_BOUND`.

    >>> r = log_ratios({"annotator": 2.0, "item:annotator": 0.0, "system:annotator": 1.0, "system": 1.0})
    >>> [round(r[t], 3) for t in RATIO_TERMS]
    [0.693, -9.21, 0.0]
    """
    system = float(comps["system"])
    out = {}
    for term in RATIO_TERMS:
        value = float(comps[term])
        if value <= 0 and system <= 0:
            out[term] = float("nan")
        elif value <= 0:
            out[term] = -LOG_BOUND
        elif system <= 0:
            out[term] = LOG_BOUND
        else:
            out[term] = float(np.clip(np.log(value / system), -LOG_BOUND, LOG_BOUND))
    return out


#: The panel size of the paper's decision-study claim: "three annotators cannot reach G = 0.8 at any corpus size".
PAPER_RATERS = 3


def g_limit(comps, n_raters: int = PAPER_RATERS) -> float:
    """G of a fully crossed panel of ``n_raters`` raters as the items grow without bound:
    ``s2_system / (s2_system + s2_system:annotator / n_raters)`` (Brennan 2001, ch. 4; the item terms of the
    relative error vanish). NaN when both variances are 0.

    >>> g_limit({"system": 0.3, "system:annotator": 0.3}), g_limit({"system": 0.0, "system:annotator": 0.1})
    (0.75, 0.0)
    """
    system, interaction = float(comps["system"]), float(comps["system:annotator"])
    total = system + interaction / n_raters
    return system / total if total > 0 else float("nan")


def is_complete(study: gstudy.GStudy) -> bool:
    """Every item x system x rater cell rated exactly once."""
    d = study.data
    cells = len(study.systems) * study.n_items * study.n_raters
    return len(d) == cells and not d.duplicated(["item", "system", "rater"]).any()


def _strata(n_i: int, k: int, n_r: int) -> tuple[np.ndarray, np.ndarray]:
    """Degrees of freedom of the six random strata and the matrix taking the components (in
    :data:`compendium.stats.gstudy.COMPONENTS` order) to each stratum's expected mean square (Brennan 2001,
    table 3.3, systems fixed)."""
    df = np.array([n_i - 1, n_r - 1, (n_i - 1) * (k - 1), (n_i - 1) * (n_r - 1), (k - 1) * (n_r - 1),
                   (n_i - 1) * (k - 1) * (n_r - 1)], dtype=float)
    #               item     annotator  item:system  item:annotator  system:annotator  residual
    ems = np.array([[k * n_r, 0,        n_r,         k,              0,                1],   # item
                    [0,       k * n_i,  0,           k,              n_i,              1],   # annotator
                    [0,       0,        n_r,         0,              0,                1],   # item:system
                    [0,       0,        0,           k,              0,                1],   # item:annotator
                    [0,       0,        0,           0,              n_i,              1],   # system:annotator
                    [0,       0,        0,           0,              0,                1]],  # residual
                   dtype=float)
    return df, ems


def _reml(ss: np.ndarray, df: np.ndarray, ems: np.ndarray) -> np.ndarray:
    """The REML components from the strata's sums of squares: the ANOVA solution where it is in the
    parameter space, else the likelihood ``-1/2 sum(df log lambda + SS / lambda)`` maximised with every
    component at least 0 (and the residual above 0)."""
    anova = np.linalg.solve(ems, ss / df)
    if (anova >= 0).all():
        return anova
    scale = float(ss.sum() / df.sum())

    def objective(x):
        lam = ems @ x
        grad = ems.T @ (df / lam - ss / lam**2)
        return float(np.sum(df * np.log(lam) + ss / lam)) / scale, grad / scale

    start = np.maximum(anova, 1e-3 * scale)
    bounds = [(0.0, None)] * 5 + [(1e-10 * scale, None)]
    result = optimize.minimize(objective, start, jac=True, method="L-BFGS-B", bounds=bounds,
                               options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 1000})
    return np.maximum(result.x, 0.0)


def balanced_replicates(study: gstudy.GStudy, n_boot: int = RATIO_BOOT, seed: int | None = 0) -> pd.DataFrame:
    """The parametric bootstrap of :func:`refit_replicates` on a complete design, from its sufficient statistics.

    Each replicate draws the six random strata's sums of squares, ``lambda_j chi2(df_j)`` with ``lambda_j``
    the expected mean square under the fit, and the system means' centred sum of squares, ``lambda_sys /
    (n_i n_r)`` times a noncentral ``chi2(k - 1, nc)`` with ``lambda_sys = s2_e + n_r s2_is + n_i s2_sr`` and
    ``nc`` from the fitted means; then the REML components of those strata and the unbiased system variance
    ``[b'Cb - (k - 1) lambda_sys / (n_i n_r)] / k``.

    Returns
    -------
    pandas.DataFrame
        One row per replicate: the components of :func:`components`.
    """
    if not is_complete(study):
        raise ValueError("balanced_replicates needs a complete crossed design (every cell rated once); "
                         "use refit_replicates")
    n_i, k, n_r = study.n_items, len(study.systems), study.n_raters
    df, ems = _strata(n_i, k, n_r)
    fitted = components(study)
    sigma = np.array([fitted[c] for c in _RANDOM])
    lam = ems @ sigma
    sys_coef = np.array([0, 0, n_r, 0, n_i, 1], dtype=float)  # lambda_sys from the components
    beta = np.asarray(study.fit.beta, dtype=float)
    centred = float(np.sum((beta - beta.mean()) ** 2))
    nc = centred * n_i * n_r / float(sys_coef @ sigma)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(int(n_boot)):
        ss = lam * rng.chisquare(df)
        between = rng.noncentral_chisquare(k - 1, nc) if nc > 0 else rng.chisquare(k - 1)
        reml = _reml(ss, df, ems)
        lam_sys = float(sys_coef @ reml)
        bcb = float(sys_coef @ sigma) / (n_i * n_r) * between
        system = (bcb - (k - 1) * lam_sys / (n_i * n_r)) / k
        rows.append({**dict(zip(_RANDOM, reml.tolist())), "system": max(system, 0.0)})
    return pd.DataFrame(rows)


def strata_sums_of_squares(study: gstudy.GStudy) -> tuple[np.ndarray, float]:
    """The six random strata's sums of squares (in :data:`compendium.stats.gstudy.COMPONENTS` order) and the
    systems' sum of squares of a complete design (:func:`compendium.stats.gtheory.anova_table`, tested against
    statsmodels' ``anova_lm``)."""
    if not is_complete(study):
        raise ValueError("the strata's sums of squares need a complete crossed design (every cell rated once)")
    table = gtheory.anova_table(study.data, item="item", system="system", rater="rater", rating="rating")
    return table.loc[list(_RANDOM), "SS"].to_numpy(dtype=float), float(table.loc["system", "SS"])


def noncentrality_pivot(x, dof: int, u) -> np.ndarray:
    """The fiducial draw of a noncentrality: the ``nc`` at which ``ncx2.cdf(x; dof, nc) = u``, and 0 where even
    the central chi-square leaves ``cdf(x) <= u`` (Hannig, Iyer and Patterson 2006, sec. 4). The cdf falls as
    ``nc`` grows, so a vectorised bisection finds it to 2^-60 of its bracket. With ``u`` uniform, the draws'
    2.5 % and 97.5 % points are the exact confidence limits of the noncentrality (the cdf inverted at 0.975 and
    at 0.025).

    >>> float(noncentrality_pivot(10.0, 4, 0.5).round(4)), float(noncentrality_pivot(1.0, 4, 0.5))
    (6.9362, 0.0)
    """
    x, u = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(u, dtype=float))
    out = np.zeros(x.shape)
    need = stats.chi2.cdf(x, dof) > u
    xs, us = x[need], u[need]
    lo, hi = np.zeros(xs.shape), np.maximum(2 * xs, 1.0)
    while (wide := stats.ncx2.cdf(xs, dof, hi) > us).any():
        hi = np.where(wide, 2 * hi, hi)
    for _ in range(60):
        mid = (lo + hi) / 2
        above = stats.ncx2.cdf(xs, dof, mid) > us
        lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
    out[need] = (lo + hi) / 2
    return out


def gpq_draws(ss, ss_system: float, n_items: int, n_systems: int, n_raters: int, n_boot: int = RATIO_BOOT,
              seed: int | None = 0) -> pd.DataFrame:
    """Generalized pivotal quantities of the components of a complete design from its sums of squares
    (Weerahandi 1993; Hannig, Iyer and Patterson 2006): the draws of the generalized confidence interval.

    Each draw takes each random stratum's expected mean square as ``SS_j / chi2(df_j)`` (its observed sum of
    squares over an independent chi-square), the components from those (Brennan 2001, table 3.3, systems
    fixed; each truncated at 0), the error of the system means ``lambda_sys = s2_e + n_r s2_is + n_i s2_sr``
    from them, and the fixed systems' spread ``b'Cb = nc lambda_sys / (n_i n_r)`` from the noncentrality
    :func:`noncentrality_pivot` of ``SS_system / lambda_sys`` (a noncentral chi-square on ``k - 1`` df); the
    system variance is ``b'Cb / k``, the quantity the unbiased estimate of :func:`components` estimates.

    Parameters
    ----------
    ss : array of 6 floats
        The random strata's sums of squares, in :data:`compendium.stats.gstudy.COMPONENTS` order.
    ss_system : float
        The systems' sum of squares, ``n_i n_r sum_s (mean_s - grand mean)^2``.

    Returns
    -------
    pandas.DataFrame
        One row per draw: the components of :func:`components`.
    """
    n_i, k, n_r = int(n_items), int(n_systems), int(n_raters)
    df, ems = _strata(n_i, k, n_r)
    rng = np.random.default_rng(seed)
    lam = np.asarray(ss, dtype=float) / rng.chisquare(df, size=(int(n_boot), len(df)))
    comps = np.maximum(np.linalg.solve(ems, lam.T).T, 0.0)
    lam_sys = comps[:, 5] + n_r * comps[:, 2] + n_i * comps[:, 4]
    nc = noncentrality_pivot(float(ss_system) / lam_sys, k - 1, rng.uniform(size=int(n_boot)))
    frame = pd.DataFrame(comps, columns=list(_RANDOM))
    frame["system"] = nc * lam_sys / (n_i * n_r) / k
    return frame


def gpq_replicates(study: gstudy.GStudy, n_boot: int = RATIO_BOOT, seed: int | None = 0) -> pd.DataFrame:
    """:func:`gpq_draws` of a complete design's study (:func:`strata_sums_of_squares`)."""
    ss, ss_system = strata_sums_of_squares(study)
    return gpq_draws(ss, ss_system, study.n_items, len(study.systems), study.n_raters, n_boot, seed)


def refit_replicates(study: gstudy.GStudy, n_boot: int = RATIO_BOOT, seed: int | None = 0,
                     executor=None) -> pd.DataFrame:
    """The parametric bootstrap by REML refits on the observed cells (any design): one row of
    :func:`components` per replicate that refits (:func:`compendium.stats.gstudy.replicate_statistics`)."""
    return pd.DataFrame(gstudy.replicate_statistics(study, n_boot, seed, components, executor))


def log_ratio_ci(study: gstudy.GStudy, *, n_boot: int = RATIO_BOOT, seed: int | None = 0, ci: float = 0.95,
                 executor=None) -> dict:
    """Each rater term's log ratio to the systems (:func:`log_ratios`) with its interval: the generalized
    confidence interval of :func:`gpq_replicates` on a complete design, the percentile interval of
    :func:`refit_replicates` otherwise (the module's docstring says why).

    Returns
    -------
    dict
        ``components`` (the fit's), ``log_ratio``, ``ci`` and ``mc_error`` (each a dict by term; ``ci`` and
        ``mc_error`` as ``[low end, high end]``), ``n_boot`` (the draws the interval uses: on an incomplete design
        the replicates with a ratio; see :func:`_ends`), ``method``;
        and ``g_limit_3`` with ``g_limit_3_ci``, :func:`g_limit` of three raters from the same replicates.
    """
    complete = is_complete(study)
    reps = gpq_replicates(study, n_boot, seed) if complete else refit_replicates(study, n_boot, seed, executor)
    draws = pd.DataFrame([log_ratios(row) for _, row in reps.iterrows()])
    alpha = (1 - ci) / 2
    out = {"components": components(study), "log_ratio": log_ratios(components(study)), "ci": {}, "mc_error": {},
           "n_boot": {}, "method": (METHOD_COMPLETE if complete else METHOD_INCOMPLETE)}
    limits = np.array([g_limit(row) for _, row in reps.iterrows()], dtype=float)
    out["g_limit_3"] = g_limit(components(study))
    out["g_limit_3_ci"], _, _ = _ends(limits, alpha, (0.0, 1.0), set_valued=complete)
    for term in RATIO_TERMS:
        values = draws[term].to_numpy(dtype=float) if len(draws) else np.array([])
        out["ci"][term], out["mc_error"][term], out["n_boot"][term] = _ends(values, alpha, (-LOG_BOUND, LOG_BOUND),
                                                                            set_valued=complete)
    return out


def _ends(values: np.ndarray, alpha: float, bounds: tuple[float, float], *, set_valued: bool):
    """The interval's ends from draws (NaN where a draw has no ratio: both variances at 0), their Monte Carlo
    errors and the number of draws used.

    A bootstrap replicate with no ratio is left out. A generalized pivotal draw with both variances at 0 is
    compatible with every ratio -- a set-valued inverse, which the fiducial argument resolves conservatively
    (Hannig 2009, sec. 3): it counts at the lower bound for the lower end and at the upper bound for the upper
    end, so a design that cannot tell the two variances apart gets an interval from bound to bound.
    """
    if set_valued:
        low_draws, high_draws = np.where(np.isnan(values), bounds[0], values), np.where(np.isnan(values), bounds[1],
                                                                                        values)
    else:
        low_draws = high_draws = values[~np.isnan(values)]
    if len(low_draws) < 2:
        return [float("nan"), float("nan")], [float("nan"), float("nan")], int(len(low_draws))
    ends = [float(np.quantile(low_draws, alpha)), float(np.quantile(high_draws, 1 - alpha))]
    errors = [gstudy.percentile_mc_error(low_draws, alpha), gstudy.percentile_mc_error(high_draws, 1 - alpha)]
    return ends, errors, int(len(low_draws))
