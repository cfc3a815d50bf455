"""G theory by REML: variance components, G, the decision study and leave-one-rater-out on any design.

The ANOVA (expected-mean-square) estimates of :mod:`compendium.stats`
need the complete crossed item x system x rater design. Most real evaluations
are incomplete: each item gets its own few raters out of a pool (WMT's MQM: 3
of 10 per segment). Restricted maximum likelihood needs no balance: this
module fits the crossed random-effects model of the G study,

    rating = mu_system + u_item + v_rater + (uv)_item:system + (uv)_item:rater
             + (uv)_system:rater + e,

with systems fixed and the other six components random, by the profiled REML
of lme4 (:mod:`compendium.stats.mixed`; Bates et al. 2015), on whatever cells the
study has. On a complete design the REML estimates equal the ANOVA estimates
whenever none of those is negative (Searle, Casella and McCulloch 1992,
ch. 6: for balanced data the REML equations are the ANOVA equations inside
the parameter space) -- tested, as is the agreement with ``lme4::lmer`` on
incomplete designs.

From the fit:

* the **system variance** two ways, named as in the audit: ``observed``, the
  variance of the estimated system means ``sum_s (b_s - mean b)^2 / n_s``
  (what the paper's G uses), and the unbiased one,
  ``[b' C b - tr(C Cov(b))] / n_s`` with ``C = I - J / n_s`` the centring
  matrix -- the sampling error of the estimated means removed. On a complete
  design these are exactly the ``"observed"`` and ``"corrected"`` system
  variances of :func:`compendium.stats.gtheory.variance_components`;
* the **relative error variance of a system mean in the design as run**,
  ``tr(C Cov(b)) / (n_s - 1)`` (on a complete design
  ``s2_sr / n_r + s2_ps / n_p + s2_psr / (n_p n_r)``), and
  ``G = s2_s / (s2_s + error)`` under both definitions;
* the **decision study** for a fully crossed panel of ``n_r`` raters over
  ``n_p`` items, and the raters needed for G = 0.8 and 0.9
  (:func:`compendium.stats.gtheory.g_coefficient` and friends, on the REML
  components);
* **leave-one-rater-out** leaderboards over the ratings each panel has: each
  system's effect re-estimated by generalised least squares without one
  rater's ratings, with the components held at the full-data REML values
  (one factorisation per panel; on a complete design these are the panel's
  plain means, so the leaderboards equal
  :func:`compendium.stats.panels.leave_one_annotator_out`).

What needs the complete design, and why (:data:`NEEDS_COMPLETE`): the
classical ANOVA F tests and the ICCs are ratios of mean squares whose
expectations (and F distributions) hold only when every cell is observed
once; with missing cells the sums of squares are no longer independent
chi-squares, so no mean-square ratio has a known null distribution.

References
----------
.. [Bates2015] D. Bates, M. Maechler, B. Bolker and S. Walker, "Fitting linear
   mixed-effects models using lme4", Journal of Statistical Software 67(1), 2015.
.. [Brennan2001] R. L. Brennan, *Generalizability theory*, Springer, 2001
   (ch. 7: unbalanced designs, where REML is the recommended estimator).
.. [Searle1992] S. R. Searle, G. Casella and C. E. McCulloch, *Variance
   components*, Wiley, 1992.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from compendium.stats.progress import Tracker
from compendium.stats import mixed
from compendium.stats import gtheory, tidy

__all__ = [
    "COMPONENTS",
    "NEEDS_COMPLETE",
    "GStudy",
    "fit_gstudy",
    "variance_components",
    "g_summary",
    "decision_study",
    "leave_one_rater_out",
    "leave_raters_out",
    "system_test",
    "fixed_rater_test",
    "incomplete_audit",
    "g_bootstrap_ci",
    "percentile_mc_error",
    "replicate_statistics",
    "g_noncentral_ci",
    "G_INTERVALS",
    "system_mean_intervals",
]

#: Replicates of the parametric bootstrap of G (:func:`g_bootstrap_ci`) in the audit.
G_BOOT = 200
#: The intervals of G on an incomplete design (:func:`incomplete_audit`), the default first.
G_INTERVALS = ("noncentral-f", "bootstrap")
#: Tasks a bootstrap or the leave-one-rater-out panels are cut into when an executor spreads them.
TASKS = 16
#: Stopping tests of each bootstrap refit (:func:`compendium.stats.mixed.refit`). Against the study fit's
#: (``mixed.FTOL``, ``mixed.GTOL``) they move the interval's ends by about 1e-7 on the book's designs and
#: WMT23 MQM (tests/test_gstudy.py), and halve the refits' cost.
BOOT_FTOL, BOOT_GTOL = 1e-12, 1e-6

#: The random components, in the order (and with the names) of the ANOVA estimates.
COMPONENTS = gtheory.RANDOM_COMPONENTS

#: Statistics that need the complete crossed design, and why.
NEEDS_COMPLETE = {
    "icc": "ICC(2,1) and ICC(2,k) are ratios of ANOVA mean squares; their estimators and F-based intervals "
    "assume every cell is observed once",
    "anova": "the crossed ANOVA's sums of squares are orthogonal only when every cell is observed; with missing "
    "cells they depend on the order of fitting",
    "F_tests": "the classical F tests of the system effect (against the residual, the system x rater "
    "interaction, and the quasi-F) need mean squares with known expectations and chi-square distributions, "
    "which missing cells break",
}

_TERMS = {
    "item": ("item",),
    "annotator": ("rater",),
    "item:system": ("item", "system"),
    "item:annotator": ("item", "rater"),
    "system:annotator": ("system", "rater"),
}


@dataclass
class GStudy:
    """A REML G study (:func:`fit_gstudy`).

    Attributes
    ----------
    fit : compendium.stats.mixed.MixedFit
    systems : pandas.Index
        System labels, in the order of ``fit.beta``.
    n_items, n_raters, n_judgements : int
    raters_per_item : float
        Mean number of distinct raters per item.
    columns : dict
        ``item, system, rater, rating`` column names.
    data : pandas.DataFrame
        The judgements used (rows with a rating), canonical columns.
    """

    fit: mixed.MixedFit
    systems: pd.Index
    n_items: int
    n_raters: int
    n_judgements: int
    raters_per_item: float
    columns: dict
    data: pd.DataFrame


def _canonical(data: pd.DataFrame | tidy.Ratings, item: str, system: str, rater: str, rating: str) -> pd.DataFrame:
    checked = isinstance(data, tidy.Ratings)
    if checked:  # checked once when built: no missing keys, no cell rated twice
        data.require([item, system, rater, rating])
        data = data.frame
    missing = [c for c in (item, system, rater, rating) if c not in data.columns]
    if missing:
        raise ValueError(f"the judgements lack the column(s) {missing}; they have {list(data.columns)}")
    d = pd.DataFrame(
        {
            "item": data[item].to_numpy(),
            "system": data[system].to_numpy(),
            "rater": data[rater].to_numpy(),
            "rating": pd.to_numeric(data[rating], errors="coerce").to_numpy(dtype=float, na_value=np.nan),
        }
    )
    d = d[np.isfinite(d["rating"].to_numpy())]
    keys = d[["item", "system", "rater"]]
    if not checked and keys.isna().any().any():
        rows = np.flatnonzero(keys.isna().any(axis=1).to_numpy())[:10]
        raise ValueError(f"missing item, system or rater labels in rows {rows.tolist()}")
    if not checked and keys.duplicated().any():
        rows = np.flatnonzero(keys.duplicated(keep=False).to_numpy())[:10]
        raise ValueError(f"more than one rating for the same (item, system, rater) cell, rows {rows.tolist()}")
    for role in ("system", "rater", "item"):
        if d[role].nunique() < 2:
            raise ValueError(f"a G study needs at least two levels of {role}")
    return d.reset_index(drop=True)


def _system_index(values: pd.Series) -> pd.Index:
    if isinstance(values.dtype, pd.CategoricalDtype):
        return pd.Index(values.cat.remove_unused_categories().cat.categories)
    return pd.Index(np.sort(pd.unique(values)))


def _terms(d: pd.DataFrame) -> list[mixed.RandomTerm]:
    """The random terms of the G-study model, each grouped by integer codes (:func:`_group_codes`)."""
    return [mixed.RandomTerm(name, _group_codes(d, roles)[0]) for name, roles in _TERMS.items()]


def _design(d: pd.DataFrame, systems: pd.Index) -> np.ndarray:
    codes = systems.get_indexer(d["system"])
    X = np.zeros((len(d), len(systems)))
    X[np.arange(len(d)), codes] = 1.0
    return X


def fit_gstudy(
    data: pd.DataFrame,
    *,
    item: str = tidy.ITEM,
    system: str = tidy.SYSTEM,
    rater: str = tidy.RATER,
    rating: str = tidy.RATING,
) -> GStudy:
    """REML fit of the item x system x rater G-study model on any design (systems fixed).

    The model is lme4's ``rating ~ 0 + system + (1|item) + (1|rater) +
    (1|item:system) + (1|item:rater) + (1|system:rater)``, fitted by
    :func:`compendium.stats.mixed.fit_lmm`.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per judgement; rows with a missing rating are dropped.
    item, system, rater, rating : str
        Column names.

    Returns
    -------
    GStudy

    Examples
    --------
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> data = simulate_crossed(40, 4, 5, seed=0)
    >>> g = fit_gstudy(data.sample(frac=0.7, random_state=0))
    >>> g.n_judgements, g.fit.variances.index.tolist()[-1]
    (560, 'residual')
    """
    d = _canonical(data, item, system, rater, rating)
    frame = data.frame if isinstance(data, tidy.Ratings) else data
    systems = _system_index(frame[system])
    systems = systems[systems.isin(d["system"])]
    fit = mixed.fit_lmm(d["rating"].to_numpy(), _design(d, systems), _terms(d))
    per_item = d.groupby("item", sort=False)["rater"].nunique()
    return GStudy(
        fit=fit,
        systems=systems,
        n_items=int(d["item"].nunique()),
        n_raters=int(d["rater"].nunique()),
        n_judgements=len(d),
        raters_per_item=float(per_item.mean()),
        columns={"item": item, "system": system, "rater": rater, "rating": rating},
        data=d,
    )


def _system_variances(study: GStudy) -> dict[str, float]:
    b, V = study.fit.beta, study.fit.cov_beta
    k = len(b)
    C = np.eye(k) - 1.0 / k
    observed = float(b @ C @ b) / k
    sampling = float(np.trace(C @ V))
    return {
        "observed": observed,
        "corrected_raw": (float(b @ C @ b) - sampling) / k,
        "error": sampling / (k - 1),
    }


def variance_components(study: GStudy, *, system_variance: str = "corrected") -> pd.DataFrame:
    """The REML components in the layout of :func:`compendium.stats.gtheory.variance_components`.

    Parameters
    ----------
    study : GStudy
    system_variance : {"corrected", "observed"}, default "corrected"
        The ``system`` row: the unbiased variance of the true system means
        (truncated at zero, untruncated in ``raw``), or the observed variance
        of the estimated means.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``component`` (``item, annotator, item:system,
        item:annotator, system:annotator, residual, system``): ``raw``,
        ``variance``, ``share`` (of the random total; NaN for ``system``).
    """
    if system_variance not in ("observed", "corrected"):
        raise ValueError("system_variance must be 'observed' or 'corrected'")
    v = study.fit.variances
    random = np.array([float(v[c]) for c in COMPONENTS])
    s = _system_variances(study)
    s_raw = s["observed"] if system_variance == "observed" else s["corrected_raw"]
    return pd.DataFrame(
        {
            "raw": np.append(random, s_raw),
            "variance": np.append(random, max(s_raw, 0.0)),
            "share": np.append(random / random.sum(), np.nan),
        },
        index=pd.Index([*COMPONENTS, "system"], name="component"),
    )


def g_summary(study: GStudy, *, targets=(0.8, 0.9)) -> dict:
    """G under both definitions and the raters needed, for the design as run.

    Returns
    -------
    dict
        ``G`` (unbiased system variance), ``G_observed``, ``error_variance``
        (relative error variance of a system mean in the design as run),
        ``system_variance``, ``system_variance_observed``,
        ``raters_for_G80``, ``raters_for_G90`` (a fully crossed panel over
        the study's number of items, unbiased G) and
        ``raters_for_G80_observed``, ``raters_for_G90_observed``,
        ``n_items``, ``n_raters``, ``raters_per_item``.
    """
    s = _system_variances(study)
    corrected = max(s["corrected_raw"], 0.0)
    err = s["error"]
    out = {
        "G": corrected / (corrected + err) if corrected + err > 0 else float("nan"),
        "G_observed": s["observed"] / (s["observed"] + err) if s["observed"] + err > 0 else float("nan"),
        "error_variance": err,
        "system_variance": corrected,
        "system_variance_raw": s["corrected_raw"],
        "system_variance_observed": s["observed"],
        "n_items": study.n_items,
        "n_raters": study.n_raters,
        "raters_per_item": study.raters_per_item,
    }
    for definition, suffix in (("corrected", ""), ("observed", "_observed")):
        comps = variance_components(study, system_variance=definition)
        for t in targets:
            out[f"raters_for_G{round(t * 100)}{suffix}"] = gtheory.raters_needed(comps, study.n_items, t)
    return out


def decision_study(study: GStudy, items, raters, *, system_variance: str = "corrected") -> pd.DataFrame:
    """G of a fully crossed panel over a grid of items and raters, from the REML components.

    See :func:`compendium.stats.gtheory.decision_study`; columns ``n_items,
    n_raters, G`` and ``definition`` (``"unbiased"`` or ``"observed"``).
    """
    comps = variance_components(study, system_variance=system_variance)
    out = gtheory.decision_study(comps, items, raters)
    out["definition"] = "unbiased" if system_variance == "corrected" else "observed"
    return out


def system_test(study: GStudy) -> dict:
    """F test of "all systems equal" with items and raters random, by REML and Satterthwaite's df.

    lmerTest's ``anova`` of the G-study model: the error term is not one mean
    square but the system means' covariance under the fitted components, so
    the system x rater and item x system variances enter as they do in the
    quasi-F of a complete design -- and no complete design is needed.

    Returns
    -------
    dict
        ``F, df1, df2, p`` and ``error`` (a description of the error term).
    """
    k = len(study.systems)
    L = np.hstack([-np.ones((k - 1, 1)), np.eye(k - 1)])
    out = mixed.satterthwaite_f(study.fit, L)
    out["error"] = "REML covariance of the system means (items and raters random), Satterthwaite df as lmerTest"
    return out


def fixed_rater_test(study: GStudy) -> dict:
    """F test of "all systems equal" with items and raters fixed: the conventional analysis on any design.

    The additive linear model ``rating ~ item + rater + system`` by least squares, the systems tested
    against its residual (the extra sum of squares of dropping ``system``; type II, as statsmodels'
    ``anova_lm(ols(...), typ=2)``, which the tests compare). On a complete design the paper's conventional
    F (systems against the three-way residual, interactions in the model) is
    ``gtheory.system_f_tests``; this one needs no complete design.

    Returns
    -------
    dict
        ``F, df1, df2, p`` and ``error``.
    """
    d = study.data

    def dummies(column):
        codes, levels = pd.factorize(d[column], sort=True)
        return np.eye(len(levels))[codes][:, 1:]

    y = d["rating"].to_numpy(dtype=float)
    base = np.column_stack([np.ones(len(d)), dummies("item"), dummies("rater")])
    full = np.column_stack([base, dummies("system")])

    def rss(x):
        coef, *_ = np.linalg.lstsq(x, y, rcond=None)
        return float(np.sum((y - x @ coef) ** 2)), int(np.linalg.matrix_rank(x))

    rss_full, rank_full = rss(full)
    rss_base, rank_base = rss(base)
    df1, df2 = rank_full - rank_base, len(y) - rank_full
    f_value = ((rss_base - rss_full) / df1) / (rss_full / df2)
    return {"F": float(f_value), "df1": df1, "df2": df2, "p": float(stats.f.sf(f_value, df1, df2)),
            "error": "residual of the additive model item + rater + system, every factor fixed"}


def leave_one_rater_out(study: GStudy, *, higher_is_better: bool = True,
                        executor: Executor | None = None) -> pd.DataFrame:
    """Leaderboards of the full panel and of each panel without one rater, over the ratings each has.

    A system's score is its effect estimated by generalised least squares
    from the panel's ratings, with the variance components held at the
    full-data REML estimates (``estimate``); ``mean`` is the plain mean of
    its ratings, for reference. On a complete design the two coincide.
    With ``executor`` (a process pool, or a dask.distributed client's
    ``get_executor()``) the panels are solved there, :data:`TASKS` batches
    of them, with the same results. :func:`leave_raters_out` does the same
    for any sets of raters.

    Returns
    -------
    pandas.DataFrame
        ``panel`` (``"all"``, then ``"without <rater>"`` in sorted order),
        ``system`` (the caller's column name), ``estimate``, ``mean``,
        ``n_ratings``, ``rank`` (1 = best), ``winner``.
    """
    raters = np.sort(pd.unique(study.data["rater"]))
    return leave_raters_out(study, [(), *[(r,) for r in raters]], higher_is_better=higher_is_better,
                            executor=executor)


def leave_raters_out(study: GStudy, removed, *, higher_is_better: bool = True,
                     executor: Executor | None = None) -> pd.DataFrame:
    """The leaderboard of each panel without a set of raters, as :func:`leave_one_rater_out` scores it.

    Parameters
    ----------
    study : GStudy
        The full panel's fit; its REML components are held for every panel.
    removed : sequence of sequences of rater names
        One entry per panel: the raters left out (an empty one is the full panel).

    Returns
    -------
    pandas.DataFrame
        As :func:`leave_one_rater_out`, ``panel`` named ``"all"`` or ``"without a, b"`` (the raters as given).

    Raises
    ------
    ValueError
        If a set names a rater the study does not have, or leaves no rating.
    """
    raters = set(pd.unique(study.data["rater"]))
    panels = [tuple(r) for r in removed]
    for left_out in panels:
        if not set(left_out) <= raters or set(left_out) == raters:
            raise ValueError(f"cannot leave out {list(left_out)}: the raters are {sorted(raters, key=str)}")
    size = 1 if executor is None else max(1, -(-len(panels) // TASKS))
    what = "leave-one-rater-out" if all(len(r) <= 1 for r in panels) else "leave-raters-out"
    tracker = Tracker(f"{what} leaderboards (one GLS solve each)", len(panels), unit="panels")
    shared = (study.data, study.systems, study.fit.theta, study.columns["system"], higher_is_better)
    frames = _spread(executor, _boards, shared, _batches(panels, size), tracker, len(panels))
    return pd.concat(frames, ignore_index=True)


def _boards(d: pd.DataFrame, all_systems: pd.Index, theta, system: str, higher_is_better: bool, left_out: list) -> list:
    """The leaderboard of each panel, the full one (no rater left out) or without some raters: one task of
    :func:`leave_raters_out`."""
    frames = []
    for raters in left_out:
        sub = d[~d["rater"].isin(raters)] if raters else d
        systems = all_systems[all_systems.isin(sub["system"])]
        sub = sub.reset_index(drop=True)
        model = mixed._Factor(sub["rating"].to_numpy(), _design(sub, systems), _terms(sub))
        beta = model.solve(theta)["beta"]
        stats = sub.groupby("system", sort=False)["rating"].agg(["mean", "size"])
        board = pd.DataFrame({
            "panel": "without " + ", ".join(str(r) for r in raters) if raters else "all",
            system: systems,
            "estimate": beta,
            "mean": stats.loc[systems, "mean"].to_numpy(),
            "n_ratings": stats.loc[systems, "size"].to_numpy(),
        })
        key = board["estimate"].round(12)
        board["rank"] = key.rank(ascending=not higher_is_better, method="min").astype(int)
        board = board.sort_values(["rank", system], kind="stable")
        board["winner"] = " / ".join(str(s) for s in board.loc[board["rank"] == 1, system])
        frames.append(board)
    return frames


def _group_codes(d: pd.DataFrame, roles: tuple) -> tuple[np.ndarray, int]:
    """Codes 0, 1, ... of the levels of a role or of an interaction of two, in order of first appearance (as
    ``groupby(sort=False).ngroup()``), and their number: integer codes combined, never the labels themselves,
    which on 10^6 judgements took 300 MB as Python objects."""
    codes, levels = pd.factorize(d[roles[0]], sort=False)
    for role in roles[1:]:
        other, other_levels = pd.factorize(d[role], sort=False)
        codes, levels = pd.factorize(codes.astype(np.int64) * len(other_levels) + other, sort=False)
    return codes, len(levels)


def _draws(study: GStudy, n_boot: int, seed: int | None):
    """The parametric bootstrap's responses, one per replicate: new ratings on the observed cells from the fit."""
    d = study.data
    rng = np.random.default_rng(seed)
    mean = _design(d, study.systems) @ study.fit.beta
    v = study.fit.variances
    groups = [(_group_codes(d, _TERMS[c]), float(max(v[c], 0.0))) for c in COMPONENTS if c != "residual"]
    sd_e = float(np.sqrt(max(v["residual"], 0.0)))
    for _ in range(n_boot):
        y = mean + sd_e * rng.standard_normal(len(d))
        for (codes, n_levels), var in groups:
            if var > 0:
                y = y + np.sqrt(var) * rng.standard_normal(n_levels)[codes]
        yield y


def _search(study: GStudy) -> tuple[np.ndarray, np.ndarray | None]:
    """Where every replicate's search starts (the study's estimates) and its preconditioner (the study's
    Hessian): the same optimum in fewer evaluations (mixed.preconditioner)."""
    start = np.maximum(np.asarray(study.fit.theta, dtype=float), 1e-3)
    return start, mixed.preconditioner(study.fit, start)


def _refit(study: GStudy, y: np.ndarray, start, scale) -> GStudy | None:
    """One replicate refitted (None when the refit fails). Its statistic is needed to about 1e-6, far below the
    interval's Monte Carlo error, so the optimiser stops sooner than the study's own fit does."""
    try:
        fit = mixed.refit(study.fit, y, start=start, ftol=BOOT_FTOL, gtol=BOOT_GTOL, scale=scale)
    except (ValueError, np.linalg.LinAlgError, FloatingPointError):
        return None
    return GStudy(fit=fit, systems=study.systems, n_items=study.n_items, n_raters=study.n_raters,
                  n_judgements=study.n_judgements, raters_per_item=study.raters_per_item,
                  columns=study.columns, data=study.data)


def _replicates(study: GStudy, n_boot: int, seed: int | None):
    """The parametric bootstrap's refitted studies, one per replicate that refits (see :func:`g_bootstrap_ci`)."""
    start, scale = _search(study)
    for y in _draws(study, n_boot, seed):
        replicate = _refit(study, y, start, scale)
        if replicate is not None:
            yield replicate


def _statistics(study: GStudy, start, scale, statistic, ys: list) -> list:
    """``statistic`` of each response's refit, None where the refit fails: one task of a spread bootstrap."""
    out = []
    for y in ys:
        replicate = _refit(study, y, start, scale)
        out.append(None if replicate is None else statistic(replicate))
    return out


def _spread(executor: Executor | None, task, shared: tuple, batches, tracker: Tracker, total: int) -> list:
    """``task(*shared, batch)`` for each batch: in this process (``executor`` None), or each batch one task of
    ``executor`` (a process pool, or a dask.distributed client's ``get_executor()``). The results come back in
    batch order whatever ran them, so a spread computation equals the one in this process."""
    out: list = []
    if executor is None:
        for batch in batches:
            tracker.update(len(out))
            out += task(*shared, batch)
        tracker.update(total)
        return out
    futures = [executor.submit(task, *shared, batch) for batch in batches]
    done = 0
    for future in as_completed(futures):
        done += 1
        tracker.update(round(total * done / len(futures)))
    for future in futures:
        out += future.result()
    return out


def _batches(items, size: int):
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def replicate_statistics(study: GStudy, n_boot: int, seed: int | None, statistic,
                          executor: Executor | None = None) -> list:
    """``statistic`` of every replicate that refits, in replicate order; spread over ``executor`` in
    :data:`TASKS` batches (each ships the model once), or one replicate at a time in this process."""
    start, scale = _search(study)
    light = dataclasses.replace(study, data=None)  # the replicates' statistics read the fit, not the ratings
    size = 1 if executor is None else max(1, -(-n_boot // TASKS))
    tracker = Tracker("G parametric bootstrap (REML refits)", n_boot)
    shared = (light if executor is not None else study, start, scale, statistic)
    values = _spread(executor, _statistics, shared, _batches(_draws(study, n_boot, seed), size), tracker, n_boot)
    return [v for v in values if v is not None]


def _g_value(study: GStudy) -> float:
    return g_summary(study, targets=())["G"]


def g_bootstrap_ci(study: GStudy, *, n_boot: int = G_BOOT, seed: int | None = 0, ci: float = 0.95,
                   executor: Executor | None = None) -> dict:
    """Parametric-bootstrap percentile interval of G (unbiased system variance), on the design as run.

    Each replicate draws new ratings on exactly the observed cells from the
    fitted model -- the fitted system means plus independent normal effects
    with the REML variance components (item, rater, item x system, item x
    rater, system x rater, residual) -- refits the REML G study and computes
    G as :func:`g_summary` does. The interval is the percentile interval of
    the replicates (Davison and Hinkley 1997, ch. 2 and 5). It needs no
    complete design, which is why the audit uses it on incomplete ones; its
    coverage is checked by Monte Carlo in ``tests/test_gstudy.py``.

    Parameters
    ----------
    study : GStudy
        The fit of :func:`fit_gstudy`.
    n_boot : int
        Replicates.
    seed : int or None
    ci : float
        Coverage of the interval.
    executor : concurrent.futures.Executor, optional
        Spread the refits over it (a process pool, or ``dask.distributed.Client(address).get_executor()``):
        the same replicates, refitted elsewhere, give the same interval (tested on a ``LocalCluster``).

    Returns
    -------
    dict
        ``ci_low, ci_high, n_boot`` (replicates whose refit gave a finite G),
        ``mc_error`` (the Monte Carlo error of each end, :func:`percentile_mc_error`),
        ``method``.
    """
    values = [g for g in replicate_statistics(study, n_boot, seed, _g_value, executor) if np.isfinite(g)]
    alpha = (1 - ci) / 2
    if len(values) < 2:
        return {"ci_low": float("nan"), "ci_high": float("nan"), "n_boot": len(values),
                "mc_error": [float("nan"), float("nan")],
                "method": "parametric bootstrap from the REML fit (too few finite replicates)"}
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return {"ci_low": float(low), "ci_high": float(high), "n_boot": len(values),
            "mc_error": [percentile_mc_error(values, alpha), percentile_mc_error(values, 1 - alpha)],
            "method": "parametric bootstrap from the REML fit on the observed cells, percentile interval"}


def g_noncentral_ci(study: GStudy, *, ci: float = 0.95) -> dict:
    r"""Confidence interval of G (unbiased system variance, systems fixed) by inverting a noncentral F.

    With ``k`` systems, their REML means ``b`` and ``err = tr(C Cov(b)) / (k - 1)`` the relative error variance
    of a system mean (``C`` the centring matrix), the audit's G is

    .. math:: \hat G = \frac{\hat\delta}{\hat\delta + k}, \qquad
              \hat\delta = (k - 1)(F' - 1), \qquad F' = \frac{b' C b}{(k - 1)\,\mathrm{err}},

    and the G of the design as run is :math:`\delta / (\delta + k)` with :math:`\delta = \mu' C \mu /
    \mathrm{err}` the noncentrality of the fixed system means :math:`\mu`. :math:`F'` is taken as noncentral
    :math:`F(k - 1, \nu, \delta)`, with :math:`\nu = 2\,\mathrm{err}^2 / \mathrm{Var}(\mathrm{err})` the
    Satterthwaite df of ``err`` (``Var`` by the delta method from lmerTest's asymptotic covariance of the
    variance parameters, :func:`compendium.stats.mixed.variance_parameters`). The interval inverts its
    distribution in :math:`\delta` -- the noncentrality interval of fixed effects (J. H. Steiger, "Beyond the F
    test", *Psychological Methods* 9(2), 2004) -- and maps both ends to G. It is exact for a balanced design
    with known ``err``; otherwise approximate. No REML refit is needed: the cost is one Hessian, shared with the
    REML system test. On a complete design ``F'`` is the quasi-F of the classical ANOVA.

    Returns
    -------
    dict
        ``ci_low, ci_high``, ``F`` (:math:`F'`), ``df`` (``[k - 1, nu]``), ``method``.
    """
    fit = study.fit
    k = len(fit.beta)
    C = np.eye(k) - 1.0 / k
    _, A, J = mixed.variance_parameters(fit)
    err = float(np.trace(C @ fit.cov_beta)) / (k - 1)
    grad = (C.ravel() @ J) / (k - 1)  # d err / d varpar (C is symmetric: tr(C V) = vec(C)' vec(V))
    var_err = float(grad @ A @ grad)
    nu = 2.0 * err**2 / var_err if var_err > 0 else np.inf
    F = float(fit.beta @ C @ fit.beta) / ((k - 1) * err)
    d1 = k - 1
    method = ("noncentral-F interval of the fixed systems' G: the REML F ratio of the system means inverted in its "
              f"noncentral F({d1}, nu) distribution, nu the Satterthwaite df of the error variance (Steiger 2004)")
    low, high = gtheory.noncentral_g_interval(F, d1, nu, k, ci)
    return {"ci_low": low, "ci_high": high, "F": F, "df": [float(d1), float(nu)], "method": method}


def system_mean_intervals(study: GStudy, *, ci: float = 0.95) -> pd.DataFrame:
    """Each system's mean with a t interval from the REML fit, items and raters random: the estimate of its fixed
    effect, its standard error from the fit's covariance of the system means, and Satterthwaite's degrees of
    freedom (:func:`compendium.stats.mixed.satterthwaite`, as lmerTest). On an incomplete design the estimate
    is the generalised least-squares mean over the cells the system has, not the plain mean of its ratings.

    Returns
    -------
    pandas.DataFrame
        One row per system (the fit's order): ``system``, ``n`` (ratings), ``mean`` (the plain mean of its
        ratings), ``estimate``, ``se``, ``df``, ``ci_low``, ``ci_high``.
    """
    k = len(study.fit.beta)
    counts = study.data.groupby("system", sort=False)["rating"].agg(["size", "mean"]) if study.data is not None \
        else None
    rows = []
    for s, name in enumerate(study.systems):
        test = mixed.satterthwaite(study.fit, np.eye(k)[s])
        q = float(stats.t.ppf((1 + ci) / 2, test["df"]))
        rows.append({"system": name,
                     "n": int(counts.loc[name, "size"]) if counts is not None else None,
                     "mean": float(counts.loc[name, "mean"]) if counts is not None else None,
                     "estimate": test["estimate"], "se": test["se"], "df": test["df"],
                     "ci_low": test["estimate"] - q * test["se"], "ci_high": test["estimate"] + q * test["se"]})
    return pd.DataFrame(rows)


def percentile_mc_error(values, q: float, level: float = 0.95) -> float:
    """The Monte Carlo error of the ``q``-quantile of bootstrap replicates: half the width of its
    distribution-free ``level`` interval from the order statistics (the binomial interval for a quantile,
    Conover 1999, *Practical Nonparametric Statistics*, section 3.2; scipy's ``quantile_test``).

    It says how far the interval's end could move with another seed: with 200 replicates, the 2.5 %
    quantile rests on about five of them. ``nan`` when the interval reaches past the replicates (too few).
    """
    values = np.asarray(values, dtype=float)
    interval = stats.quantile_test(values, q=float(np.quantile(values, q)), p=q).confidence_interval(level)
    low, high = float(interval.low), float(interval.high)
    return (high - low) / 2 if np.isfinite(low) and np.isfinite(high) else float("nan")


def _g_interval_summary(study, g_interval: str, *, n_boot_g: int, seed, executor=None) -> dict:
    """G's interval on an incomplete design, how it was computed and its Monte Carlo error (or why it has none)."""
    if g_interval == "bootstrap":
        boot = g_bootstrap_ci(study, n_boot=n_boot_g, seed=seed, executor=executor)
        return {
            "G_ci": [boot["ci_low"], boot["ci_high"]],
            "interval_method_G": boot["method"],
            "interval_n_boot_G": boot["n_boot"],
            "G_ci_mc_error": boot["mc_error"] if np.all(np.isfinite(boot["mc_error"])) else (
                f"not computable: {boot['n_boot']} replicates are too few to bound the Monte Carlo error of the "
                "interval's ends (the order-statistic interval of the 2.5 % quantile reaches past them; about 150 "
                "are needed)"),
        }
    interval = g_noncentral_ci(study)
    return {
        "G_ci": [interval["ci_low"], interval["ci_high"]],
        "interval_method_G": interval["method"],
        "interval_n_boot_G": None,
        "G_ci_df": interval["df"],
        "G_ci_mc_error": ("not computable: the interval is computed (a noncentral F inverted), not simulated, so it "
                          "has no Monte Carlo error"),
    }


def incomplete_audit(
    data: pd.DataFrame,
    *,
    item: str = tidy.ITEM,
    system: str = tidy.SYSTEM,
    rater: str = tidy.RATER,
    rating: str = tidy.RATING,
    targets=(0.8, 0.9),
    higher_is_better: bool = True,
    n_boot_g: int = G_BOOT,
    seed: int | None = 0,
    g_interval: str = "noncentral-f",
    executor: Executor | None = None,
) -> tuple[dict, dict]:
    """Everything REML allows on an incomplete design: the audit's summary entries and tables.

    G's interval is :func:`g_noncentral_ci` (``g_interval="noncentral-f"``, the default: no refit) or the
    parametric bootstrap of :func:`g_bootstrap_ci` with ``n_boot_g`` REML refits (``"bootstrap"``). On the real
    incomplete designs and in simulations from them the percentile bootstrap's intervals are narrower and cover
    less often than they claim (tests/test_gstudy.py); the noncentral-F interval is close to its 95 %.
    With ``executor``, the bootstrap's refits and the leave-one-rater-out panels run on it, with the same results.

    Returns
    -------
    summary : dict
        ``variance_components`` (per component: ``raw, variance, share``),
        the keys of :func:`g_summary`, ``G_limit_items_unbounded``,
        ``loao`` (``winner_all, winner_changes, n_panels, winners,
        panels``), ``estimation`` (method and convergence) and
        ``needs_complete_design`` (:data:`NEEDS_COMPLETE`).
    tables : dict of pandas.DataFrame
        ``components, decision, dstudy, loao, loao_ranks``, and ``system_means``
        (:func:`system_mean_intervals`).
    """
    study = fit_gstudy(data, item=item, system=system, rater=rater, rating=rating)
    comps = variance_components(study)
    g = g_summary(study, targets=targets)
    n_p = study.n_items
    n_r = max(1, round(study.raters_per_item))
    summary: dict = {
        "variance_components": {c: comps.loc[c].to_dict() for c in comps.index},
        "system_variance_observed": g["system_variance_observed"],
        **g,
        "G_limit_items_unbounded": float(gtheory.g_limit(comps, n_r)),
        "G_limit_items_unbounded_observed": float(
            gtheory.g_limit(variance_components(study, system_variance="observed"), n_r)
        ),
        "estimation": {
            "method": "REML (lme4's profiled criterion), systems fixed",
            "converged": bool(study.fit.converged),
            "loglik_reml": float(study.fit.loglik),
        },
        "needs_complete_design": dict(NEEDS_COMPLETE),
        "system_test_reml": system_test(study),
    }
    if g_interval not in G_INTERVALS:
        raise ValueError(f"g_interval must be one of {G_INTERVALS}, got {g_interval!r}")
    summary.update(_g_interval_summary(study, g_interval, n_boot_g=n_boot_g, seed=seed, executor=executor))
    needed = [g[f"raters_for_G{round(t * 100)}"] for t in targets]
    grid_raters = sorted({1, n_r, *(n for n in needed if n is not None)})
    items_grid = np.unique(np.geomspace(min(10, n_p), max(100_000, 100 * n_p), 60).astype(int))
    decision = pd.concat(
        [decision_study(study, items_grid, grid_raters, system_variance=v) for v in ("corrected", "observed")],
        ignore_index=True,
    )

    def show(n):
        return str(n) if n is not None else f"none at {n_p} items"

    dstudy = pd.DataFrame(
        {
            "value": [f"{g['G']:.3f}" + (f" [{summary['G_ci'][0]:.3f}, {summary['G_ci'][1]:.3f}]"
                                         if np.all(np.isfinite(summary["G_ci"])) else ""),
                      f"{g['G_observed']:.3f}"] + [show(n) for n in needed],
        },
        index=pd.Index(
            ["G, design as run (unbiased system variance)", "G, design as run (observed system variance)"]
            + [f"raters for G >= {t} (crossed panel, {n_p} items)" for t in targets],
            name="decision study",
        ),
    )
    loao = leave_one_rater_out(study, higher_is_better=higher_is_better, executor=executor)
    winners = loao.groupby("panel", sort=False)["winner"].first()
    summary["loao"] = {
        "winner_all": winners["all"],
        "winner_changes": int((winners.drop("all") != winners["all"]).sum()),
        "n_panels": int(len(winners) - 1),
        "winners": winners.to_dict(),
        "score": "GLS estimate of the system effect, components fixed at the full-data REML values",
        "panels": [
            {
                "panel": panel,
                "winner": part["winner"].iloc[0],
                "leaderboard": part[[system, "estimate", "mean", "rank"]]
                .rename(columns={system: "system"})
                .to_dict("records"),
            }
            for panel, part in loao.groupby("panel", sort=False)
        ],
    }
    tables = {
        "components": comps,
        "decision": decision,
        "dstudy": dstudy,
        "loao": loao,
        "loao_ranks": loao.pivot(index=system, columns="panel", values="rank"),
        "system_means": system_mean_intervals(study).rename(columns={"system": system}),
    }
    return summary, tables
