"""Generalisability theory of the crossed item x system x rater design.

Section 4.2-4.3 of the paper: the three-way ANOVA (:func:`anova_table`),
the system effect under several error terms (:func:`system_f_tests`), the
variance components (:func:`variance_components`) and the G and D studies
(:func:`g_coefficient`, :func:`g_limit`, :func:`raters_needed`,
:func:`decision_study`). Conventions as in :mod:`compendium.stats`.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from compendium.stats.tidy import (ITEM, RATER, RATING, SYSTEM, Ratings, _check_columns, _codes, _no_missing_keys,
                                   _numeric, _py)

__all__ = [
    "ANOVA_SOURCES",
    "RANDOM_COMPONENTS",
    "anova_table",
    "ERROR_TERMS",
    "system_f_tests",
    "variance_components",
    "g_coefficient",
    "g_limit",
    "raters_needed",
    "decision_study",
    "G_DEFINITIONS",
    "g_interval",
    "noncentral_g_interval",
    "g_study",
    "unbiased_system_variance_bound",
]

#: Row labels of :func:`anova_table`.
ANOVA_SOURCES = (
    "item",
    "system",
    "annotator",
    "item:system",
    "item:annotator",
    "system:annotator",
    "residual",
    "total",
)

#: The random variance components of :func:`variance_components`, in order.
RANDOM_COMPONENTS = ("item", "annotator", "item:system", "item:annotator", "system:annotator", "residual")

#: Key of the fixed system variance in :func:`variance_components`.
_SYSTEM = "system"


def _cube(
    data: pd.DataFrame | np.ndarray | Ratings, item: str, system: str, rater: str, rating: str
) -> tuple[np.ndarray, tuple[pd.Index, pd.Index, pd.Index]]:
    """The items x systems x raters array of a complete crossed design (a :class:`Ratings`' cached sorted cube)."""
    if isinstance(data, Ratings):
        data.require([item, system, rater, rating])
        cube, items, systems, raters = data.cube(sort=True)
        if np.isnan(cube).any():  # incomplete: the table itself names the missing cells
            return _cube(data.frame, item, system, rater, rating)
        y, levels = cube, (items, systems, raters)
    elif isinstance(data, np.ndarray):
        y = np.asarray(data, dtype=float)
        if y.ndim != 3:
            raise ValueError(f"an array must be items x systems x raters (3-D), got shape {y.shape}")
        if not np.isfinite(y).all():
            raise ValueError("the array has missing or infinite cells: the design is not complete")
        levels = tuple(pd.RangeIndex(n) for n in y.shape)
    else:
        _check_columns(data, [item, system, rater, rating])
        _no_missing_keys(data, [item, system, rater])
        values = _numeric(data[rating], rating)
        (ip, items), (is_, systems), (ir, raters) = (_codes(data[c]) for c in (item, system, rater))
        n_p, n_s, n_r = len(items), len(systems), len(raters)
        lin = (ip.astype(np.int64) * n_s + is_) * n_r + ir
        counts = np.bincount(lin, minlength=n_p * n_s * n_r)

        def cells(flat: np.ndarray) -> list[tuple]:
            p, rest = np.divmod(flat[:5], n_s * n_r)
            s, r = np.divmod(rest, n_r)
            return [(_py(items[a]), _py(systems[b]), _py(raters[c])) for a, b, c in zip(p, s, r)]

        names = f"({item}, {system}, {rater})"
        if (counts > 1).any():
            dup = np.flatnonzero(counts > 1)
            raise ValueError(
                f"the design is not complete crossed with one rating per cell: {len(dup)} cell(s) "
                f"have more than one rating, e.g. {names} = {cells(dup)}"
            )
        if (counts == 0).any():
            gap = np.flatnonzero(counts == 0)
            raise ValueError(
                f"the design is not completely crossed: {len(gap)} of {counts.size} cells are missing, "
                f"e.g. {names} = {cells(gap)}"
            )
        if np.isnan(values).any():
            bad = np.zeros(counts.size, dtype=bool)
            bad[lin[np.isnan(values)]] = True
            raise ValueError(
                f"the design is not complete: {int(bad.sum())} cell(s) have a missing rating, "
                f"e.g. {names} = {cells(np.flatnonzero(bad))}"
            )
        y = np.empty(counts.size)
        y[lin] = values
        y = y.reshape(n_p, n_s, n_r)
        levels = (items, systems, raters)
    if min(y.shape) < 2:
        raise ValueError(f"each factor needs at least two levels, got items x systems x raters = {y.shape}")
    return y, levels


def anova_table(
    data: pd.DataFrame | np.ndarray,
    *,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
) -> pd.DataFrame:
    r"""Three-way ANOVA of a fully crossed item x system x rater design.

    One observation :math:`y_{psr}` per cell (item p, system s, rater r);
    with dots for means, e.g.

    .. math::

        SS_p = n_s n_r \sum_p (\bar y_{p\cdot\cdot} - \bar y)^2, \qquad
        SS_{ps} = n_r \sum_{ps} (\bar y_{ps\cdot} - \bar y_{p\cdot\cdot}
                  - \bar y_{\cdot s\cdot} + \bar y)^2,

    and the residual, the three-way interaction, is what is left:
    :math:`SS_{psr} = \sum (y_{psr} - \bar y_{ps\cdot} - \bar y_{p\cdot r}
    - \bar y_{\cdot sr} + \bar y_{p\cdot\cdot} + \bar y_{\cdot s\cdot}
    + \bar y_{\cdot\cdot r} - \bar y)^2` on
    :math:`(n_p-1)(n_s-1)(n_r-1)` df. Computed from the cell means with
    numpy (a million judgements take well under a second); equal to
    ``statsmodels`` ``anova_lm`` of the model with all main effects and
    two-way interactions.

    Parameters
    ----------
    data : pandas.DataFrame or numpy.ndarray
        Tidy judgements, complete and with exactly one rating per (item,
        system, rater) cell; or an items x systems x raters array.
    item, system, rater, rating : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        Indexed by :data:`ANOVA_SOURCES` (index name ``source``): ``item,
        system, annotator, item:system, item:annotator, system:annotator,
        residual`` (= item:system:annotator) and ``total``; columns ``SS``,
        ``df``, ``MS`` (NaN for the total) and ``share`` (SS / total SS, as
        the paper's "share of the total sum of squares").

    Raises
    ------
    ValueError
        If a cell is missing or duplicated (naming some), or a factor has a
        single level.

    Examples
    --------
    >>> from compendium.stats.gtheory import anova_table
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> data = simulate_crossed(20, 3, 3, seed=0)
    >>> anova_table(data)["df"].tolist()
    [19, 2, 2, 38, 38, 4, 76, 179]
    """
    y, _ = _cube(data, item, system, rater, rating)
    n_p, n_s, n_r = y.shape
    m = y.mean()
    m_p, m_s, m_r = y.mean(axis=(1, 2)), y.mean(axis=(0, 2)), y.mean(axis=(0, 1))
    m_ps, m_pr, m_sr = y.mean(axis=2), y.mean(axis=1), y.mean(axis=0)
    a_p, a_s, a_r = m_p - m, m_s - m, m_r - m
    a_ps = m_ps - m_p[:, None] - m_s[None, :] + m
    a_pr = m_pr - m_p[:, None] - m_r[None, :] + m
    a_sr = m_sr - m_s[:, None] - m_r[None, :] + m
    resid = (
        y
        - m_ps[:, :, None]
        - m_pr[:, None, :]
        - m_sr[None, :, :]
        + m_p[:, None, None]
        + m_s[None, :, None]
        + m_r[None, None, :]
        - m
    )
    ss = [
        n_s * n_r * (a_p**2).sum(),
        n_p * n_r * (a_s**2).sum(),
        n_p * n_s * (a_r**2).sum(),
        n_r * (a_ps**2).sum(),
        n_s * (a_pr**2).sum(),
        n_p * (a_sr**2).sum(),
        (resid**2).sum(),
        ((y - m) ** 2).sum(),
    ]
    df = [
        n_p - 1,
        n_s - 1,
        n_r - 1,
        (n_p - 1) * (n_s - 1),
        (n_p - 1) * (n_r - 1),
        (n_s - 1) * (n_r - 1),
        (n_p - 1) * (n_s - 1) * (n_r - 1),
        n_p * n_s * n_r - 1,
    ]
    ss, df = np.array(ss), np.array(df)
    ms = ss / df
    ms[-1] = np.nan
    return pd.DataFrame(
        {"SS": ss, "df": df, "MS": ms, "share": ss / ss[-1]}, index=pd.Index(ANOVA_SOURCES, name="source")
    )


def _as_table(
    table_or_data: pd.DataFrame | np.ndarray, item: str, system: str, rater: str, rating: str
) -> pd.DataFrame:
    if isinstance(table_or_data, pd.DataFrame) and {"SS", "df", "MS"} <= set(table_or_data.columns):
        missing = [s for s in ANOVA_SOURCES[:-1] if s not in table_or_data.index]
        if missing:
            raise ValueError(f"the ANOVA table lacks the row(s) {missing}")
        return table_or_data
    return anova_table(table_or_data, item=item, system=system, rater=rater, rating=rating)


def _sizes(table: pd.DataFrame) -> tuple[int, int, int]:
    n_p, n_s, n_r = (int(round(table.loc[s, "df"])) + 1 for s in ("item", "system", "annotator"))
    return n_p, n_s, n_r


#: Each F test of :func:`system_f_tests`: its error mean square, named exactly.
ERROR_TERMS = {
    "residual": "MS(item x system x annotator), the residual: items and annotators fixed",
    "system:annotator": "MS(system x annotator): annotators random, items fixed",
    "quasi": "MS(item x system) + MS(system x annotator) - MS(residual), Satterthwaite df: "
             "items and annotators random",
    "item:system": "MS(item x system): the paired test over items on panel means; annotators fixed",
}


def system_f_tests(table: pd.DataFrame) -> pd.DataFrame:
    r"""F tests of the system effect against four error terms.

    * ``residual``: :math:`F = MS_s / MS_{psr}` on
      :math:`(n_s-1, (n_p-1)(n_s-1)(n_r-1))` df -- raters *and* items
      fixed (df 7, 4046 in the paper's "F against the residual").
    * ``system:annotator``: :math:`F = MS_s / MS_{sr}` on
      :math:`(n_s-1, (n_s-1)(n_r-1))` df -- the paper's test with
      annotators random (df 7, 14); exact when the items are fixed or
      :math:`\sigma^2_{ps} = 0`.
    * ``quasi``: with items *and* raters random, :math:`E(MS_s)` under the
      null is :math:`E(MS_{ps} + MS_{sr} - MS_{psr})`, so the quasi-F
      :math:`F' = MS_s / (MS_{ps} + MS_{sr} - MS_{psr})` with
      Satterthwaite's denominator df
      :math:`(MS_{ps} + MS_{sr} - MS_{psr})^2 / (MS_{ps}^2/df_{ps} +
      MS_{sr}^2/df_{sr} + MS_{psr}^2/df_{psr})` (not in the paper; NaN if the
      denominator is not positive).
    * ``item:system``: :math:`F = MS_s / MS_{ps}` on
      :math:`(n_s-1, (n_p-1)(n_s-1))` df -- the repeated-measures ANOVA over
      items on the panel means (the mean over raters), the omnibus form of
      the paired tests over items: on panel means both mean squares are
      divided by :math:`n_r`, so their ratio is this one. Raters are fixed.

    Column ``error_term`` names each test's error mean square in words
    (:data:`ERROR_TERMS`) and ``error_MS`` gives its value.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`anova_table`.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``error`` (``residual``, ``system:annotator``,
        ``quasi``, ``item:system``); columns ``F, df1, df2, pval``
        (``scipy.stats.f.sf``), ``error_MS``, ``error_term``.

    References
    ----------
    .. [1] F. E. Satterthwaite (1946). An approximate distribution of
       estimates of variance components. *Biometrics Bulletin* 2(6),
       110-114.

    Examples
    --------
    >>> from compendium.stats.gtheory import anova_table, system_f_tests
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> t = system_f_tests(anova_table(simulate_crossed(20, 3, 3, seed=0)))
    >>> t[["df1", "df2"]].round(1)
                       df1   df2
    error
    residual           2.0  76.0
    system:annotator   2.0   4.0
    quasi              2.0   6.7
    item:system        2.0  38.0
    """
    table = _as_table(table, ITEM, SYSTEM, RATER, RATING)
    ms = {k: float(v) for k, v in table["MS"].items()}
    dfs = {k: float(v) for k, v in table["df"].items()}
    terms = ("item:system", "system:annotator", "residual")
    denom = ms["item:system"] + ms["system:annotator"] - ms["residual"]
    quasi_df = denom**2 / sum(ms[t] ** 2 / dfs[t] for t in terms) if denom > 0 else np.nan
    error_ms = np.array([ms["residual"], ms["system:annotator"], denom if denom > 0 else np.nan, ms["item:system"]])
    df2 = np.array([dfs["residual"], dfs["system:annotator"], quasi_df, dfs["item:system"]])
    with np.errstate(divide="ignore", invalid="ignore"):
        f = ms["system"] / error_ms
    df1 = np.full(4, dfs["system"])
    index = ["residual", "system:annotator", "quasi", "item:system"]
    return pd.DataFrame(
        {"F": f, "df1": df1, "df2": df2, "pval": stats.f.sf(f, df1, df2), "error_MS": error_ms,
         "error_term": [ERROR_TERMS[k] for k in index]},
        index=pd.Index(index, name="error"),
    )


def variance_components(
    table_or_data: pd.DataFrame | np.ndarray,
    *,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    system_variance: Literal["observed", "corrected"] = "observed",
) -> pd.DataFrame:
    r"""G-study variance components of the crossed p x s x r design.

    Items (p) and raters (r) are random; systems (s) are the objects of
    measurement. The random components are the ANOVA (expected-mean-square)
    estimates of Brennan (2001, ch. 3) for the p x s x r design with one
    observation per cell, from

    .. math::

        E\,MS_p      &= \sigma^2_{psr} + n_s \sigma^2_{pr} + n_r \sigma^2_{ps} + n_s n_r \sigma^2_p \\
        E\,MS_s      &= \sigma^2_{psr} + n_p \sigma^2_{sr} + n_r \sigma^2_{ps} + n_p n_r \sigma^2_s \\
        E\,MS_r      &= \sigma^2_{psr} + n_p \sigma^2_{sr} + n_s \sigma^2_{pr} + n_p n_s \sigma^2_r \\
        E\,MS_{ps}   &= \sigma^2_{psr} + n_r \sigma^2_{ps} \\
        E\,MS_{pr}   &= \sigma^2_{psr} + n_s \sigma^2_{pr} \\
        E\,MS_{sr}   &= \sigma^2_{psr} + n_p \sigma^2_{sr} \\
        E\,MS_{psr}  &= \sigma^2_{psr}

    (each mean square collects every component whose subscript contains
    its own, times the sizes of the facets missing from that subscript;
    Cronbach et al. 1972; Brennan 2001, ch. 3), hence

    .. math::

        \hat\sigma^2_{psr} &= MS_{psr}, \quad
        \hat\sigma^2_{ps} = (MS_{ps} - MS_{psr}) / n_r, \quad
        \hat\sigma^2_{pr} = (MS_{pr} - MS_{psr}) / n_s, \quad
        \hat\sigma^2_{sr} = (MS_{sr} - MS_{psr}) / n_p, \\
        \hat\sigma^2_p &= (MS_p - MS_{ps} - MS_{pr} + MS_{psr}) / (n_s n_r), \quad
        \hat\sigma^2_r = (MS_r - MS_{pr} - MS_{sr} + MS_{psr}) / (n_p n_s).

    These are the random-model equations, which Brennan uses for G studies
    whether or not a facet is later fixed. (Under the restricted mixed model
    with s fixed, :math:`E\,MS_p` and :math:`E\,MS_r` would lose the
    :math:`\sigma^2_{ps}` and :math:`\sigma^2_{sr}` terms, i.e.
    :math:`\sigma^2_p` and :math:`\sigma^2_r` would absorb
    :math:`\sigma^2_{ps}/n_s` and :math:`\sigma^2_{sr}/n_s`; the paper's
    shares match the random-model equations -- see the tests.)

    **Negative estimates** are set to zero (the simplest of the customary rules
    discussed by Cronbach et al. 1972 and Brennan 2001, ch. 3); the truncated value is *not*
    substituted into the other equations, so each estimate depends only on
    the mean squares. The untruncated estimate is kept in ``raw``.

    **The system term** is fixed: ``variance`` is the variance of the
    system means :math:`\hat\sigma^2_s = \sum_s (\bar y_{\cdot s\cdot} -
    \bar y)^2 / n_s = SS_s / (n_p n_s n_r)`, the quantity in the paper's
    G coefficient (``system_variance="observed"``). With
    :math:`\theta^2_s = \sum_s(\mu_s-\mu)^2/n_s` the variance of the true
    system means, its expectation is

    .. math::

        E\,\hat\sigma^2_s = \theta^2_s + \frac{n_s-1}{n_s}
        \Big(\frac{\sigma^2_{sr}}{n_r} + \frac{\sigma^2_{ps}}{n_p}
        + \frac{\sigma^2_{psr}}{n_p n_r}\Big),

    i.e. it contains :math:`(n_s-1)/n_s` times the very error term of
    :func:`g_coefficient`; with no system differences at all
    (:math:`\theta^2_s = 0`) the observed-variance G is therefore near
    :math:`(n_s-1)/(2n_s-1)` (0.47 for 8 systems), not 0. With
    ``system_variance="corrected"`` that error is removed:
    :math:`\frac{n_s-1}{n_s}(MS_s - MS_{ps} - MS_{sr} + MS_{psr})/(n_p n_r)`,
    unbiased for :math:`\theta^2_s`, truncated at zero with the raw value
    in ``raw``; G computed from it is the usual estimate of the
    generalisability coefficient. The system row has no share: shares
    are of the random variance only (the paper's Figure 1a).

    Parameters
    ----------
    table_or_data : pandas.DataFrame or numpy.ndarray
        An :func:`anova_table`, or the judgements it is computed from.
    item, system, rater, rating : str
        Column names, if judgements are given.
    system_variance : {"observed", "corrected"}
        Definition of the system variance (see above).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``component``: ``item, annotator, item:system,
        item:annotator, system:annotator, residual`` (random) and ``system``
        (fixed); columns ``raw`` (untruncated estimate), ``variance`` (used
        downstream), ``share`` (of the sum of the six random ``variance``
        values; NaN for ``system``).

    References
    ----------
    .. [1] R. L. Brennan (2001). *Generalizability theory*, ch. 3-4.
       Springer.
    .. [2] L. J. Cronbach, G. C. Gleser, H. Nanda and N. Rajaratnam (1972).
       *The dependability of behavioral measurements*. Wiley.

    Examples
    --------
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> from compendium.stats.gtheory import variance_components
    >>> data = simulate_crossed(200, 4, 6, seed=0, components={"annotator": 1.0, "residual": 1.0})
    >>> variance_components(data)["variance"].round(2)
    component
    item                0.00
    annotator           0.85
    item:system         0.00
    item:annotator      0.03
    system:annotator    0.00
    residual            0.98
    system              0.01
    Name: variance, dtype: float64
    """
    if system_variance not in ("observed", "corrected"):
        raise ValueError("system_variance must be 'observed' or 'corrected'")
    table = _as_table(table_or_data, item, system, rater, rating)
    n_p, n_s, n_r = _sizes(table)
    ms = {k: float(v) for k, v in table["MS"].items()}
    raw = np.array(
        [
            (ms["item"] - ms["item:system"] - ms["item:annotator"] + ms["residual"]) / (n_s * n_r),
            (ms["annotator"] - ms["item:annotator"] - ms["system:annotator"] + ms["residual"]) / (n_p * n_s),
            (ms["item:system"] - ms["residual"]) / n_r,
            (ms["item:annotator"] - ms["residual"]) / n_s,
            (ms["system:annotator"] - ms["residual"]) / n_p,
            ms["residual"],
        ]
    )
    variance = np.maximum(raw, 0.0)
    share = variance / variance.sum()
    if system_variance == "observed":
        s_raw = float(table.loc["system", "SS"]) / (n_p * n_s * n_r)
        s_var = s_raw
    else:
        s_raw = (
            (n_s - 1)
            / n_s
            * (ms["system"] - ms["item:system"] - ms["system:annotator"] + ms["residual"])
            / (n_p * n_r)
        )
        s_var = max(s_raw, 0.0)
    return pd.DataFrame(
        {
            "raw": np.append(raw, s_raw),
            "variance": np.append(variance, s_var),
            "share": np.append(share, np.nan),
        },
        index=pd.Index([*RANDOM_COMPONENTS, _SYSTEM], name="component"),
    )


def _component_values(components) -> dict[str, float]:
    """system, system:annotator, item:system, residual from any accepted form."""
    if isinstance(components, pd.DataFrame):
        if "variance" not in components.columns:
            raise ValueError("a components table needs a 'variance' column (see variance_components)")
        components = components["variance"]
    needed = (_SYSTEM, "system:annotator", "item:system", "residual")
    try:
        out = {k: float(components[k]) for k in needed}
    except KeyError as exc:
        raise ValueError(f"components must give {needed}; missing {exc}") from None
    if any(v < 0 or not math.isfinite(v) for v in out.values()):
        raise ValueError(f"variance components must be finite and non-negative: {out}")
    return out


def g_coefficient(components, n_items, n_raters):
    r"""Generalisability coefficient of the system means (section 4.3).

    .. math::

        G(n_p, n_r) = \frac{\sigma^2_s}{\sigma^2_s + \sigma^2_{sr}/n_r
                      + \sigma^2_{ps}/n_p + \sigma^2_{psr}/(n_p n_r)}

    -- the paper's formula: relative error of the mean of a system over
    :math:`n_p` items and :math:`n_r` raters, all crossed.

    Parameters
    ----------
    components : pandas.DataFrame, pandas.Series or mapping
        :func:`variance_components` output, or a mapping with keys
        ``system``, ``system:annotator``, ``item:system``, ``residual``.
    n_items, n_raters : array_like
        Numbers of items and raters; broadcast against each other.
        ``numpy.inf`` is allowed (the limit).

    Returns
    -------
    float or numpy.ndarray
        A float for scalar input. NaN where every term is zero.

    Examples
    --------
    >>> from compendium.stats.gtheory import g_coefficient
    >>> vc = {"system": 1.0, "system:annotator": 2.0, "item:system": 10.0, "residual": 20.0}
    >>> g_coefficient(vc, 100, 4)
    0.6060606060606061
    >>> g_coefficient(vc, [10, 100, float("inf")], 4).round(3)
    array([0.333, 0.606, 0.667])
    """
    c = _component_values(components)
    n_p = np.asarray(n_items, dtype=float)
    n_r = np.asarray(n_raters, dtype=float)
    if (n_p <= 0).any() or (n_r <= 0).any():
        raise ValueError("numbers of items and raters must be positive")
    with np.errstate(divide="ignore", invalid="ignore"):
        error = c["system:annotator"] / n_r + c["item:system"] / n_p + c["residual"] / (n_p * n_r)
        g = c[_SYSTEM] / (c[_SYSTEM] + error)
    return float(g) if np.ndim(g) == 0 else g


def g_limit(components, n_raters):
    r"""G as the number of items grows without bound:
    :math:`\sigma^2_s / (\sigma^2_s + \sigma^2_{sr} / n_r)`.

    Section 4.3: because :math:`\sigma^2_{sr}` is divided by :math:`n_r`
    alone, more items cannot make up for too few raters.

    Examples
    --------
    >>> from compendium.stats.gtheory import g_limit
    >>> g_limit({"system": 1.0, "system:annotator": 2.0, "item:system": 10.0, "residual": 20.0}, 4)
    0.6666666666666666
    """
    return g_coefficient(components, np.inf, n_raters)


def raters_needed(components, n_items: float, target: float, *, max_raters: int = 10**9) -> int | None:
    r"""Smallest number of raters whose panel reaches ``G >= target`` at ``n_items``.

    :math:`G \ge t` iff
    :math:`(\sigma^2_{sr} + \sigma^2_{psr}/n_p)/n_r \le \sigma^2_s(1-t)/t -
    \sigma^2_{ps}/n_p`; the right side must be positive, else no panel
    suffices. The closed-form ceiling is then checked against
    :func:`g_coefficient` on both sides of the boundary.

    Parameters
    ----------
    components : see :func:`g_coefficient`
    n_items : float
        Number of items (``numpy.inf`` allowed).
    target : float
        Required G, in (0, 1).
    max_raters : int
        Answers beyond this count as unreachable.

    Returns
    -------
    int or None
        None if no number of raters reaches the target.

    Examples
    --------
    >>> from compendium.stats.gtheory import raters_needed
    >>> vc = {"system": 1.0, "system:annotator": 2.5, "item:system": 0.0, "residual": 0.0}
    >>> raters_needed(vc, 100, 0.8)   # G(10) = 1 / (1 + 0.25) = 0.8 exactly
    10
    >>> raters_needed({**vc, "item:system": 30.0}, 100, 0.8) is None   # 30/100 > 1/4
    True
    """
    if not 0 < target < 1:
        raise ValueError(f"target must be in (0, 1), got {target!r}")
    c = _component_values(components)
    n_p = float(n_items)
    if not n_p > 0:
        raise ValueError("n_items must be positive")
    budget = c[_SYSTEM] * (1 - target) / target - c["item:system"] / n_p
    per_rater = c["system:annotator"] + c["residual"] / n_p
    if budget <= 0 or c[_SYSTEM] <= 0:
        reached = budget == 0 and per_rater == 0 and c[_SYSTEM] > 0
        return 1 if reached else None
    n = max(1, math.ceil(per_rater / budget))
    if n > max_raters + 1:  # G(n) >= target exactly when n >= per_rater / budget: the loops below only mend rounding
        return None  # (a budget a hair above 0 made n ~1e15, and the loop below walk down from it for ever)
    while n > 1 and g_coefficient(c, n_p, n - 1) >= target:
        n -= 1
    while g_coefficient(c, n_p, n) < target:
        n += 1
        if n > max_raters:
            return None
    return n if n <= max_raters else None


def decision_study(components, items, raters) -> pd.DataFrame:
    """G over a grid of numbers of items and raters (Figure 1c).

    Parameters
    ----------
    components : see :func:`g_coefficient`
    items, raters : int or sequence
        Numbers of items (``numpy.inf`` for the limit) and of raters.

    Returns
    -------
    pandas.DataFrame
        One row per (items, raters) combination, items varying slowest:
        ``n_items, n_raters, G``.

    Examples
    --------
    >>> from compendium.stats.gtheory import decision_study
    >>> vc = {"system": 1.0, "system:annotator": 2.0, "item:system": 10.0, "residual": 20.0}
    >>> decision_study(vc, [100, float("inf")], [1, 4]).round(3)
       n_items  n_raters      G
    0    100.0         1  0.303
    1    100.0         4  0.606
    2      inf         1  0.333
    3      inf         4  0.667
    """
    items = np.atleast_1d(np.asarray(items, dtype=float))
    raters = np.atleast_1d(np.asarray(raters))
    p, r = np.meshgrid(items, raters, indexing="ij")
    g = g_coefficient(components, p.ravel(), r.ravel())
    return pd.DataFrame({"n_items": p.ravel(), "n_raters": r.ravel(), "G": np.asarray(g, dtype=float)})


# ------------------------------------------------ G under both definitions
#: Definitions of the system variance in :func:`g_study`, in display order.
G_DEFINITIONS = ("unbiased", "observed")


def noncentral_g_interval(F: float, d1: float, nu: float, k: int, ci: float = 0.95) -> tuple[float, float]:
    r"""The interval of the fixed systems' G from an F ratio of the system means taken as noncentral
    :math:`F(d_1, \nu, \delta)`: its distribution inverted in :math:`\delta` at both tails (the noncentrality
    interval of fixed effects; J. H. Steiger, "Beyond the F test", *Psychological Methods* 9(2), 2004) and each
    end mapped to :math:`G = \delta / (\delta + k)`. Shared by :func:`g_interval` (mean squares) and
    :func:`compendium.stats.gstudy.g_noncentral_ci` (the REML fit).

    >>> [round(v, 3) for v in noncentral_g_interval(12.0, 2, 20.0, 3)]
    [0.621, 0.946]
    """
    from scipy import optimize

    tail = (1 - ci) / 2

    def cdf(delta: float) -> float:
        return float(stats.ncf.cdf(F, d1, nu, delta)) if delta > 0 else float(stats.f.cdf(F, d1, nu))

    def noncentrality(target: float) -> float:  # cdf falls as delta grows: the delta at which it is `target`
        if not np.isfinite(F) or cdf(0.0) <= target:
            return 0.0
        high = max(1.0, 2.0 * d1 * F)
        while cdf(high) > target:
            high *= 2.0
        return float(optimize.brentq(lambda d: cdf(d) - target, 0.0, high, xtol=1e-12, rtol=1e-12))

    low, high = noncentrality(1 - tail), noncentrality(tail)
    return low / (low + k), high / (high + k)


def g_interval(table: pd.DataFrame, ci: float = 0.95, *, systems: str = "fixed") -> tuple[float, float]:
    r"""Confidence interval of the unbiased G at the study's own design.

    Without truncation the unbiased G of :func:`g_study` is a monotone
    function of the quasi-F of :func:`system_f_tests`,
    :math:`F' = MS_s / D` with :math:`D = MS_{ps} + MS_{sr} - MS_{psr}`:

    .. math:: G = \frac{c(F'-1)}{c(F'-1) + 1} = \frac{\hat\delta}{\hat\delta + n_s}, \qquad
              c = \frac{n_s - 1}{n_s}, \quad \hat\delta = (n_s - 1)(F' - 1).

    ``systems="fixed"`` (the default; G's own convention, the systems being the ones compared): with items and
    raters random, :math:`F'` is approximately noncentral :math:`F(n_s - 1, \nu, \delta)` with Satterthwaite's
    :math:`\nu` (the quasi-F's df) and :math:`\delta` the noncentrality of the system means; the interval is
    :func:`noncentral_g_interval`'s, as on an incomplete design (:func:`compendium.stats.gstudy.g_noncentral_ci`).
    In 1,000 simulations from each of SummEval's four complete designs it covered 0.94-0.96
    (tests/reference/g_interval_coverage.json).

    ``systems="random"``: :math:`F'/\lambda` taken as central :math:`F(n_s - 1, \nu)` with
    :math:`\lambda = E\,MS_s / E\,D`, so :math:`[F'/F_{1-a/2}(n_s-1,\nu),\; F' F_{1-a/2}(\nu, n_s-1)]` covers
    :math:`\lambda` -- the construction of Shrout and Fleiss's (1979) ICC intervals, with the quasi-F in place of
    the exact F. It treats the system effects as a draw from a population; for the fixed systems' G it is far too
    wide (it covered 0.998-1.0 on SummEval), and the audit no longer uses it.

    Parameters
    ----------
    table : pandas.DataFrame
        An :func:`anova_table`.
    ci : float
        Coverage.
    systems : {"fixed", "random"}

    Returns
    -------
    (float, float)
        Lower and upper bound; NaN when :math:`D \le 0`.

    References
    ----------
    .. [1] P. E. Shrout and J. L. Fleiss (1979). Intraclass correlations:
       uses in assessing rater reliability. *Psychological Bulletin* 86(2),
       420-428.
    .. [2] F. E. Satterthwaite (1946). *Biometrics Bulletin* 2(6), 110-114.
    .. [3] J. H. Steiger (2004). Beyond the F test. *Psychological Methods* 9(2), 164-182.

    Examples
    --------
    >>> from compendium.stats.gtheory import anova_table
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> data = simulate_crossed(40, 5, 4, seed=2, system_means=[0, .3, .6, .9, 1.2])
    >>> [round(v, 3) for v in g_interval(anova_table(data), systems="random")]
    [0.644, 0.988]
    """
    if systems not in ("fixed", "random"):
        raise ValueError(f"systems must be 'fixed' or 'random', got {systems!r}")
    if not 0 < ci < 1:
        raise ValueError(f"ci must be in (0, 1), got {ci!r}")
    quasi = system_f_tests(table).loc["quasi"]
    f, df1, nu = float(quasi["F"]), float(quasi["df1"]), float(quasi["df2"])
    if not np.isfinite(f):
        return (np.nan, np.nan)
    n_s = df1 + 1
    if systems == "fixed":
        low, high = noncentral_g_interval(f, df1, nu, int(round(n_s)), ci)
        return float(low), float(high)
    c = (n_s - 1) / n_s
    q = 1 - (1 - ci) / 2
    lam = np.array([f / stats.f.ppf(q, df1, nu), f * stats.f.ppf(q, nu, df1)])
    signal = np.maximum(c * (lam - 1.0), 0.0)
    low, high = signal / (signal + 1.0)
    return float(low), float(high)


def g_study(
    table_or_data: pd.DataFrame | np.ndarray,
    *,
    ci: float = 0.95,
    targets: tuple[float, ...] = (0.8, 0.9),
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
) -> pd.DataFrame:
    r"""The G study under both definitions of the system variance.

    * ``observed`` -- the paper's: the variance of the observed system
      means, which contains :math:`(n_s-1)/n_s` times G's own error term, so
      that G is near :math:`(n_s-1)/(2n_s-1)` even when no system differs
      (see :func:`variance_components`).
    * ``unbiased`` -- the expected-mean-square estimate of the variance of
      the true system means, truncated at 0 (``system_variance="corrected"``
      of :func:`variance_components`), with the interval of
      :func:`g_interval`.

    Parameters
    ----------
    table_or_data : pandas.DataFrame or numpy.ndarray
        An :func:`anova_table`, or the judgements it is computed from.
    ci : float
        Coverage of the interval of the unbiased G.
    targets : tuple of float
        G levels for which the number of raters needed (at the study's
        number of items) is reported.
    item, system, rater, rating : str
        Column names, if judgements are given.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``definition`` (:data:`G_DEFINITIONS`): ``system_variance``
        (used), ``system_variance_raw`` (untruncated), ``G`` (at the study's
        numbers of items and raters), ``ci_low``, ``ci_high`` (NaN for the
        observed G, which has no interval), ``G_limit`` (items without
        bound, the study's raters), and ``raters_for_G80``, ... for each
        target (NaN: not reachable).

    Examples
    --------
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> out = g_study(simulate_crossed(40, 5, 4, seed=2, system_means=[0, .3, .6, .9, 1.2]))
    >>> out[["G", "ci_low", "ci_high", "raters_for_G80"]].round(3)
                    G  ci_low  ci_high  raters_for_G80
    definition
    unbiased    0.900   0.707    0.952             2.0
    observed    0.908     NaN      NaN             2.0
    """
    table = _as_table(table_or_data, item, system, rater, rating)
    n_p, _, n_r = _sizes(table)
    rows = {}
    for definition in G_DEFINITIONS:
        vc = variance_components(table, system_variance="corrected" if definition == "unbiased" else "observed")
        low, high = g_interval(table, ci) if definition == "unbiased" else (np.nan, np.nan)
        row = {
            "system_variance": float(vc.loc[_SYSTEM, "variance"]),
            "system_variance_raw": float(vc.loc[_SYSTEM, "raw"]),
            "G": g_coefficient(vc, n_p, n_r),
            "ci_low": low,
            "ci_high": high,
            "G_limit": g_limit(vc, n_r),
        }
        for target in targets:
            needed = raters_needed(vc, n_p, target)
            row[f"raters_for_G{round(100 * target)}"] = np.nan if needed is None else float(needed)
        rows[definition] = row
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("definition")


def unbiased_system_variance_bound(
    ms_system: float, ms_system_annotator: float, n_items: int, n_systems: int, n_raters: int
) -> float:
    r"""Upper bound of the unbiased system variance from two reported mean squares.

    :math:`\frac{n_s-1}{n_s}(MS_s - MS_{ps} - MS_{sr} + MS_{psr})/(n_p n_r)
    \le \frac{n_s-1}{n_s}(MS_s - MS_{sr})/(n_p n_r)` whenever
    :math:`MS_{ps} \ge MS_{psr}` (a non-negative item x system component).
    A negative bound means the unbiased G is 0 at every number of items
    and raters: enough to read the paper's Table 1, which reports
    :math:`MS_s` and :math:`MS_{sr}` but not :math:`MS_{ps}`.

    Examples
    --------
    >>> round(unbiased_system_variance_bound(11.85, 20.25, 290, 8, 3), 5)
    -0.00845
    """
    return (n_systems - 1) / n_systems * (ms_system - ms_system_annotator) / (n_items * n_raters)
