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

The interval is a parametric-bootstrap percentile interval (Davison and Hinkley 1997, ch. 2 and 5):
new ratings on the observed cells from the REML fit, refitted by REML, as
:func:`compendium.stats.gstudy.g_bootstrap_ci` does, with the Monte Carlo error of each end
(:func:`compendium.stats.gstudy.percentile_mc_error`). On a complete crossed design the same bootstrap
needs no refit of the ratings: REML for balanced data is a function of the six random strata's sums of
squares, which are independent scaled chi-squares, and of the system means, which are normal
(Searle, Casella and McCulloch 1992, ch. 4 and 6). :func:`balanced_replicates` draws those and maximises
the REML likelihood of the strata, bounded at zero -- the REML refit of a replicate, in a millisecond
instead of 50 (tested against the refits of :mod:`compendium.stats.gstudy`, which are tested against lme4).

References
----------
.. [Searle1992] S. R. Searle, G. Casella and C. E. McCulloch, *Variance components*, Wiley, 1992.
.. [Davison1997] A. C. Davison and D. V. Hinkley, *Bootstrap methods and their application*, CUP, 1997.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize

from compendium.stats import gstudy

__all__ = ["RATIO_TERMS", "RATIO_BOOT", "LOG_BOUND", "PAPER_RATERS", "components", "log_ratios", "g_limit",
           "is_complete",
           "balanced_replicates", "refit_replicates", "log_ratio_ci"]

#: The rater terms, each compared with the systems apart: the main effect first (the paper's "identity").
RATIO_TERMS = ("annotator", "item:annotator", "system:annotator")
#: Replicates of the interval: enough that each end's Monte Carlo error is a few hundredths on the log scale.
RATIO_BOOT = 2000
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


def refit_replicates(study: gstudy.GStudy, n_boot: int = RATIO_BOOT, seed: int | None = 0,
                     executor=None) -> pd.DataFrame:
    """The parametric bootstrap by REML refits on the observed cells (any design): one row of
    :func:`components` per replicate that refits (:func:`compendium.stats.gstudy.replicate_statistics`)."""
    return pd.DataFrame(gstudy.replicate_statistics(study, n_boot, seed, components, executor))


def log_ratio_ci(study: gstudy.GStudy, *, n_boot: int = RATIO_BOOT, seed: int | None = 0, ci: float = 0.95,
                 executor=None) -> dict:
    """Each rater term's log ratio to the systems (:func:`log_ratios`) with its percentile interval.

    The bootstrap is :func:`balanced_replicates` on a complete design, :func:`refit_replicates` otherwise.

    Returns
    -------
    dict
        ``components`` (the fit's), ``log_ratio``, ``ci`` and ``mc_error`` (each a dict by term; ``ci`` and
        ``mc_error`` as ``[low end, high end]``), ``n_boot`` (replicates with a finite ratio), ``method``;
        and ``g_limit_3`` with ``g_limit_3_ci``, :func:`g_limit` of three raters from the same replicates.
    """
    complete = is_complete(study)
    reps = (balanced_replicates(study, n_boot, seed) if complete
            else refit_replicates(study, n_boot, seed, executor))
    draws = pd.DataFrame([log_ratios(row) for _, row in reps.iterrows()])
    alpha = (1 - ci) / 2
    out = {"components": components(study), "log_ratio": log_ratios(components(study)), "ci": {}, "mc_error": {},
           "n_boot": {}, "method": ("parametric bootstrap from the REML fit, "
                                    + ("its strata's sums of squares drawn (complete design)" if complete
                                       else "refitted on the observed cells") + ", percentile interval")}
    limits = np.array([g_limit(row) for _, row in reps.iterrows()], dtype=float)
    limits = limits[np.isfinite(limits)]
    out["g_limit_3"] = g_limit(components(study))
    out["g_limit_3_ci"] = ([float(q) for q in np.quantile(limits, [alpha, 1 - alpha])] if len(limits) >= 2
                           else [float("nan"), float("nan")])
    for term in RATIO_TERMS:
        values = draws[term].dropna().to_numpy() if len(draws) else np.array([])
        out["n_boot"][term] = int(len(values))
        if len(values) < 2:
            out["ci"][term] = [float("nan"), float("nan")]
            out["mc_error"][term] = [float("nan"), float("nan")]
            continue
        out["ci"][term] = [float(q) for q in np.quantile(values, [alpha, 1 - alpha])]
        out["mc_error"][term] = [gstudy.percentile_mc_error(values, q) for q in (alpha, 1 - alpha)]
    return out
