"""The judgement-level length slope: mixed models, per-annotator slopes (paper section 5).

:func:`length_mixed_model`, :func:`length_models`, :func:`sounder_rows`,
:func:`per_annotator_slopes`, :func:`mos_spread`, :func:`without_length_slope`;
conventions and references in :mod:`compendium.analyses.length`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from compendium.stats import mixed
from compendium.stats.tidy import ITEM, RATER, RATING, SYSTEM
from compendium.analyses.length._inputs import _I, _R, _S, _X, _Y, _judgements, _require
from compendium.simulate.toy import toy_study  # noqa: F401 (the examples)


# --- mixed model ----------------------------------------------------------------


def _crossed_lmm(y: np.ndarray, X: np.ndarray, factors: Sequence[np.ndarray], *, reml: bool = True) -> dict[str, Any]:
    """Linear model with crossed random intercepts, by the profiled (RE)ML of lme4.

    ``y = X beta + sum_k Z_k b_k + e`` with ``b_k ~ N(0, s2 theta_k^2 I)``
    and ``e ~ N(0, s2 I)``, fitted by :func:`compendium.stats.mixed.fit_lmm`
    (the profiled deviance of [Bates2015]_, eqs. 34 and 41; the factor
    with the most levels is eliminated first, in closed form).
    ``Cov(beta) = s2 [G^-1]_beta``, conditional on ``theta`` (as in lme4
    and statsmodels).
    """
    terms = [mixed.RandomTerm(f"f{i}", f) for i, f in enumerate(factors)]
    fit = mixed.fit_lmm(np.asarray(y, dtype=float), np.asarray(X, dtype=float), terms, reml=reml)
    return {
        "beta": fit.beta,
        "cov": fit.cov_beta,
        "scale": fit.sigma2,
        "vc": fit.variances.to_numpy()[:-1],
        "loglik": fit.loglik,
        "converged": fit.converged,
    }


def _statsmodels_lmm(y, X, factors: Mapping[str, np.ndarray], *, reml: bool) -> dict[str, Any]:
    import statsmodels.api as sm

    data = pd.DataFrame({k: np.asarray(v) for k, v in factors.items()})
    vc = {k: f"0 + C({k})" for k in factors}
    model = sm.MixedLM.from_formula(
        "y ~ 0 + x0 + x1",
        groups=np.ones(len(y)),
        re_formula="0",
        vc_formula=vc,
        data=data.assign(y=y, x0=X[:, 0], x1=X[:, 1]),
    )
    res = model.fit(reml=reml)
    names = list(model.exog_vc.names)
    vcomp = np.array([float(res.vcomp[names.index(k)]) for k in factors])
    return {
        "beta": np.asarray(res.fe_params, dtype=float),
        "cov": np.asarray(res.cov_params(), dtype=float)[:2, :2],
        "scale": float(res.scale),
        "vc": vcomp,
        "loglik": float(res.llf),
        "converged": bool(res.converged),
    }


def _fit_slope(y, x, factors: Mapping[str, np.ndarray], *, reml: bool, engine: str, level: float) -> dict[str, Any]:
    X = np.column_stack([np.ones(len(y)), np.asarray(x, dtype=float)])
    if engine == "profiled":
        fit = _crossed_lmm(y, X, list(factors.values()), reml=reml)
    elif engine == "statsmodels":
        fit = _statsmodels_lmm(y, X, factors, reml=reml)
    else:
        raise ValueError(f"engine must be 'profiled' or 'statsmodels', got {engine!r}")
    slope = float(fit["beta"][1])
    se = float(np.sqrt(fit["cov"][1, 1]))
    z = slope / se
    half = stats.norm.ppf(0.5 + level / 2.0) * se
    out = {
        "intercept": float(fit["beta"][0]),
        "slope": slope,
        "se": se,
        "z": z,
        "p": float(2.0 * stats.norm.sf(abs(z))),
        "ci_low": slope - half,
        "ci_high": slope + half,
    }
    for name, v in zip(factors, fit["vc"]):
        out[f"var_{name}"] = float(v)
    out["var_residual"] = float(fit["scale"])
    out["loglik"] = fit["loglik"]
    out["converged"] = fit["converged"]
    return out


def length_mixed_model(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame,
    *,
    reml: bool = True,
    engine: str = "profiled",
    level: float = 0.95,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    length: str = "graphemes",
) -> pd.DataFrame:
    """Judgement-level slope of rating on emoji count, crossed item and rater intercepts.

    Section 5 of the paper: "a judgement-level mixed model with item and
    annotator random effects estimates beta = 0.159 MOS points per
    additional emoji (SE = 0.015, p = 1.6e-25)". The model is

        rating = a + beta * count + u_item + v_rater + e,
        u ~ N(0, var_item), v ~ N(0, var_rater), e ~ N(0, var_residual),

    with the item and rater intercepts crossed, not nested [Baayen2008]_.
    Systems enter only through their outputs' counts, as in the paper.

    Parameters
    ----------
    ratings, lengths : DataFrame
        As in :func:`system_summary`.
    reml : bool, default True
        REML (default) or maximum likelihood.
    engine : {"profiled", "statsmodels"}, default "profiled"
        ``"profiled"``: the profiled (RE)ML criterion of lme4
        [Bates2015]_, solved exactly for crossed random intercepts (the
        largest factor's block is eliminated in closed form), optimised
        over the two relative SDs; 0.1-0.3 s on the paper's 6,960
        judgements. ``"statsmodels"``: ``statsmodels`` ``MixedLM`` with a
        single group and variance components ``{"item": "0 + C(item)",
        "rater": "0 + C(rater)"}`` -- the same model, but 10-70 s on 6,960
        rows with one BLAS thread, and its optimiser can stop short of the
        REML maximum while reporting convergence (on a simulated study of
        the paper's design its REML log-likelihood was 3.9 below the
        maximum, with the item variance 25 % low); compare ``loglik``. At
        the same optimum the two agree (tested).
    level : float, default 0.95
        Level of the Wald CI of the slope.
    item, system, rater, rating, length : str
        Column names.

    Returns
    -------
    DataFrame
        One row: ``n_obs, n_items, n_raters, intercept, slope, se, z, p``
        (Wald z-test, two-sided; with thousands of judgements t and z
        coincide), ``ci_low, ci_high, var_item, var_rater, var_residual,
        loglik`` (the REML log-likelihood when ``reml``), ``converged,
        engine``.

    Examples
    --------
    >>> ratings, lengths = toy_study(n_items=60, slope=0.3, seed=2)
    >>> m = length_mixed_model(ratings, lengths)
    >>> int(m["n_obs"].iloc[0]), bool(abs(m["slope"].iloc[0] - 0.3) < 3 * m["se"].iloc[0])
    (720, True)
    """
    j, _ = _judgements(ratings, lengths, item=item, system=system, rater=rater, rating=rating, length=length)
    fit = _fit_slope(
        j[_Y].to_numpy(),
        j[_X].to_numpy(),
        {"item": j[_I].to_numpy(), "rater": j[_R].to_numpy()},
        reml=reml,
        engine=engine,
        level=level,
    )
    row = {"n_obs": len(j), "n_items": j[_I].nunique(), "n_raters": j[_R].nunique(), **fit, "engine": engine}
    return pd.DataFrame([row])


#: The two length models of :func:`length_models`: the paper's, and one with the annotators random.
LENGTH_MODELS = {
    "paper": "rating ~ count + (1 | item) + (1 | annotator)",
    "sounder": "rating ~ count + (1 | item) + (1 | item:system) + (1 + count || annotator)",
}


def length_models(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame,
    *,
    level: float = 0.95,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    length: str = "graphemes",
) -> pd.DataFrame:
    """The length slope under the paper's model and with the annotators random, side by side.

    ``paper`` (section 5): one slope shared by every annotator, random
    intercepts for item and annotator. Its SE treats the slope as the same
    for every annotator, so it is the SE for *these* annotators: whatever
    their own slopes, their disagreement does not enter it.

    ``sounder``: lme4's ``rating ~ count + (1 | item) + (1 | item:system) +
    (1 + count || annotator)`` -- a random slope of the count per annotator
    (uncorrelated with the annotator's intercept), and a random intercept
    for each output (item x system), which the paper's model lacks although
    each output is rated by every annotator. The slope is then the mean
    slope of annotators *in general*; its SE contains the between-annotator
    variance of the slope divided by the number of annotators, and its
    Satterthwaite degrees of freedom are close to ``n_annotators - 1``.

    Both are fitted by REML (:func:`compendium.stats.mixed.fit_lmm`) and tested
    with Satterthwaite's degrees of freedom as lmerTest computes them
    (:func:`compendium.stats.mixed.fixed_effect_test`) [Bates2015]_; values
    agree with lme4/lmerTest (tests pin them).

    Parameters
    ----------
    ratings, lengths : DataFrame
        As in :func:`system_summary`.
    level : float, default 0.95
        Level of the t-based CI of the slope.
    item, system, rater, rating, length : str
        Column names.

    Returns
    -------
    DataFrame
        One row per model (``paper``, ``sounder``): ``model, formula, n_obs,
        n_raters, slope, se, df, t, p, ci_low, ci_high, var_item,
        var_output, var_rater, var_rater_slope, var_residual, loglik,
        converged`` (``var_output`` and ``var_rater_slope`` are 0 in the
        paper's model, which has no such terms).
    """
    j, _ = _judgements(ratings, lengths, item=item, system=system, rater=rater, rating=rating, length=length)
    y, x = j[_Y].to_numpy(), j[_X].to_numpy(dtype=float)
    X = np.column_stack([np.ones(len(j)), x])
    I, S, R = j[_I].to_numpy(), j[_S].to_numpy(), j[_R].to_numpy()
    specs = {
        "paper": [mixed.RandomTerm("item", I), mixed.RandomTerm("rater", R)],
        "sounder": [
            mixed.RandomTerm("item", I),
            mixed.RandomTerm("output", (I, S)),
            mixed.RandomTerm("rater", R),
            mixed.RandomTerm("rater_slope", R, covariate=x),
        ],
    }
    rows = []
    for name, terms in specs.items():
        fit = mixed.fit_lmm(y, X, terms)
        test = mixed.fixed_effect_test(fit, 1)
        half = stats.t.ppf(0.5 + level / 2.0, test["df"]) * test["se"]
        v = fit.variances
        rows.append({
            "model": name,
            "formula": LENGTH_MODELS[name],
            "n_obs": len(j),
            "n_raters": int(j[_R].nunique()),
            "slope": test["estimate"],
            "se": test["se"],
            "df": test["df"],
            "t": test["t"],
            "p": test["p"],
            "ci_low": test["estimate"] - half,
            "ci_high": test["estimate"] + half,
            **{f"var_{k}": float(v.get(k, 0.0)) for k in ("item", "output", "rater", "rater_slope", "residual")},
            "loglik": fit.loglik,
            "converged": fit.converged,
        })
    return pd.DataFrame(rows)


#: Columns of a side-by-side row (one per analysis, as the ``sounder`` recorder keeps them).
SOUNDER_COLUMNS = ("analysis", "claim", "paper_method", "paper_value", "sounder_method", "sounder_value",
                   "conclusion_changes", "note")


def sounder_rows(models: pd.DataFrame, *, alpha: float = 0.05) -> pd.DataFrame:
    """Chapter 3's side-by-side rows: the length slope with annotators fixed and random.

    Parameters
    ----------
    models : DataFrame
        :func:`length_models` output.
    alpha : float
        Significance level at which "the conclusion changes" is judged: the
        paper concludes that the slope is positive (significant); the
        conclusion changes when the sounder model's slope is not.

    Returns
    -------
    DataFrame
        Columns :data:`SOUNDER_COLUMNS`; rows for the claims
        ``length.beta_per_emoji`` (slope and its test) and ``length.beta_se``.
    """
    m = models.set_index("model")
    paper, sound = m.loc["paper"], m.loc["sounder"]
    n_r = int(sound["n_raters"])
    changes = bool(paper["p"] < alpha) != bool(sound["p"] < alpha)
    slope_sd = float(np.sqrt(sound["var_rater_slope"]))
    return pd.DataFrame(
        [
            {
                "analysis": "length slope (section 5)",
                "claim": "length.beta_per_emoji",
                "paper_method": "REML, common slope, item + annotator intercepts (annotators fixed for the slope)",
                "paper_value": f"{paper['slope']:.3f} (t = {paper['t']:.1f}, df = {paper['df']:.0f}, p = "
                               f"{paper['p']:.2g})",
                "sounder_method": "REML, random annotator slope + item, output, annotator intercepts; Satterthwaite df",
                "sounder_value": f"{sound['slope']:.3f} (t = {sound['t']:.2f}, df = {sound['df']:.1f}, p = "
                                 f"{sound['p']:.2g})",
                "conclusion_changes": changes,
                "note": f"annotators' slopes vary with SD {slope_sd:.3f}; with {n_r} annotators the mean slope has "
                        f"about {n_r - 1} degrees of freedom",
            },
            {
                "analysis": "length slope SE (section 5)",
                "claim": "length.beta_se",
                "paper_method": "SE conditional on these annotators",
                "paper_value": f"{paper['se']:.4f}",
                "sounder_method": "SE with the annotators a sample (random slope)",
                "sounder_value": f"{sound['se']:.4f}",
                "conclusion_changes": changes,
                "note": f"{sound['se'] / paper['se']:.1f} times the paper's SE",
            },
        ],
        columns=list(SOUNDER_COLUMNS),
    )


def per_annotator_slopes(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame,
    *,
    method: str = "mixed",
    reml: bool = True,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    length: str = "graphemes",
) -> pd.DataFrame:
    """Slope of rating on emoji count separately for each rater.

    Section 5, "Who is length-biased?": the per-annotator slopes are 0.085
    (p < 1e-5), -0.024 (p = 0.14) and 0.329 (p < 1e-48).

    Parameters
    ----------
    ratings, lengths : DataFrame
        As in :func:`system_summary`.
    method : {"mixed", "fixed"}, default "mixed"
        ``"mixed"`` (default): for each rater, ``rating ~ count`` with a
        random intercept per item (REML, the engine of
        :func:`length_mixed_model`): the pooled model of
        :func:`length_mixed_model` restricted to one rater, so the two are
        comparable; Wald z-test. ``"fixed"``: OLS with item fixed effects
        (the within-item slope, by the Frisch-Waugh-Lovell demeaning;
        identical to OLS on ``count + C(item)``), classical SE and a t-test
        on ``n - n_items - 1`` degrees of freedom. It uses only the
        variation of count between the systems on the same item, so item
        difficulty correlated with length cannot leak into it; the mixed
        slope also uses between-item variation.
    reml : bool, default True
        For ``method="mixed"``.
    item, system, rater, rating, length : str
        Column names.

    Returns
    -------
    DataFrame
        One row per rater (in order of appearance): ``rater, n_obs,
        n_items, slope, se, stat, df`` (infinite for the z-test), ``p``,
        ``method``.

    Examples
    --------
    >>> ratings, lengths = toy_study(n_items=60, seed=3, rater_slopes=(0.0, 0.5))
    >>> per_annotator_slopes(ratings, lengths)[["annotator", "slope"]].round(1)
      annotator  slope
    0        r1    0.0
    1        r2    0.4
    """
    if method not in ("mixed", "fixed"):
        raise ValueError(f"method must be 'mixed' or 'fixed', got {method!r}")
    j, _ = _judgements(ratings, lengths, item=item, system=system, rater=rater, rating=rating, length=length)
    rows = []
    for r, d in j.groupby(_R, sort=False):
        y, x = d[_Y].to_numpy(), d[_X].to_numpy()
        n, n_items = len(d), d[_I].nunique()
        if method == "mixed":
            X = np.column_stack([np.ones(n), x])
            fit = _crossed_lmm(y, X, [d[_I].to_numpy()], reml=reml)
            slope, se = float(fit["beta"][1]), float(np.sqrt(fit["cov"][1, 1]))
            stat, df = slope / se, np.inf
            p = float(2.0 * stats.norm.sf(abs(stat)))
        else:
            dx = x - d.groupby(_I, sort=False)[_X].transform("mean").to_numpy()
            dy = y - d.groupby(_I, sort=False)[_Y].transform("mean").to_numpy()
            sxx = float(dx @ dx)
            df = n - n_items - 1
            if sxx <= 0 or df <= 0:
                slope = se = stat = p = np.nan
            else:
                slope = float(dx @ dy) / sxx
                resid = dy - slope * dx
                se = float(np.sqrt((resid @ resid) / df / sxx))
                stat = slope / se
                p = float(2.0 * stats.t.sf(abs(stat), df))
        rows.append(
            {
                rater: r,
                "n_obs": n,
                "n_items": n_items,
                "slope": slope,
                "se": se,
                "stat": stat,
                "df": float(df),
                "p": p,
                "method": method,
            }
        )
    return pd.DataFrame(rows)


def mos_spread(summary: pd.DataFrame, slope: float | pd.DataFrame, *, system: str = SYSTEM) -> pd.DataFrame:
    """The best-worst MOS spread, and how many emojis of length it is worth.

    Section 5: "the entire spread between the best and worst of eight
    frontier systems is 0.341 MOS points -- slightly more than two emojis'
    worth of output length", i.e. ``spread / beta`` with ``beta`` the
    mixed-model slope of :func:`length_mixed_model`.

    Parameters
    ----------
    summary : DataFrame
        :func:`system_summary` (columns ``system, mos``).
    slope : float or DataFrame
        MOS points per emoji, or the output of :func:`length_mixed_model`.
    system : str
        System column name.

    Returns
    -------
    DataFrame
        One row: ``best, worst, mos_best, mos_worst, spread, slope,
        emojis``.

    Examples
    --------
    >>> s = pd.DataFrame({"system": ["a", "b", "c"], "mos": [3.3, 3.0, 3.1]})
    >>> mos_spread(s, 0.15).round(3)
      best worst  mos_best  mos_worst  spread  slope  emojis
    0    a     b       3.3        3.0     0.3   0.15     2.0
    """
    _require(summary, [system, "mos"], "summary")
    if isinstance(slope, pd.DataFrame):
        slope = float(slope["slope"].iloc[0])
    s = summary.dropna(subset=["mos"]).reset_index(drop=True)
    best, worst = s["mos"].idxmax(), s["mos"].idxmin()
    spread = float(s.at[best, "mos"] - s.at[worst, "mos"])
    return pd.DataFrame(
        {
            "best": [s.at[best, system]],
            "worst": [s.at[worst, system]],
            "mos_best": [float(s.at[best, "mos"])],
            "mos_worst": [float(s.at[worst, "mos"])],
            "spread": [spread],
            "slope": [float(slope)],
            "emojis": [spread / float(slope)],
        }
    )


# --- toy data -------------------------------------------------------------------


def without_length_slope(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame,
    slopes: Mapping[Any, float],
    *,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    length: str = "graphemes",
) -> pd.DataFrame:
    """Ratings with given raters' length slopes taken out.

    For each rater ``r`` in ``slopes`` the rating becomes
    ``rating - slopes[r] * (count - mean count)``, the mean taken over the
    outputs that rater judged, so the rater's mean is unchanged and only the
    part of the rating that tracks length is removed. With a rater's slope
    from :func:`per_annotator_slopes` this asks: what would the leaderboard
    be if this annotator were not length-biased? The adjusted ratings are
    no longer integers.

    Parameters
    ----------
    ratings, lengths : pandas.DataFrame
        As for :func:`length_mixed_model`.
    slopes : mapping
        Rater to the slope (rating points per emoji) to remove.
    item, system, rater, rating, length : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        ``ratings`` with the ``rating`` column adjusted (float).

    Examples
    --------
    >>> r = pd.DataFrame({"sentence_id": [1, 1], "system": ["a", "b"], "annotator": "A1", "rating": [2, 4]})
    >>> n = pd.DataFrame({"sentence_id": [1, 1], "system": ["a", "b"], "graphemes": [1, 3]})
    >>> without_length_slope(r, n, {"A1": 1.0})["rating"].tolist()
    [3.0, 3.0]
    """
    j, _ = _judgements(ratings, lengths, item=item, system=system, rater=rater, rating=rating, length=length)
    slope = j[_R].map(lambda r: float(slopes.get(r, 0.0))).to_numpy(dtype=float)
    centred = j[_X] - j.groupby(_R)[_X].transform("mean")
    out = ratings.loc[ratings[rating].notna()].copy()
    out[rating] = j[_Y].to_numpy() - slope * centred.to_numpy()
    return out
