"""Agreement between raters: Pearson, Krippendorff's alpha and the ICCs.

Section 4.1 of the paper: :func:`rater_summary`, :func:`pairwise_pearson`,
:func:`krippendorff_alpha` with a vectorised unit bootstrap
(:func:`alpha_bootstrap_ci`, checked against the plain loop
:func:`alpha_bootstrap_ci_reference`), :func:`pairwise_alpha` and the six
Shrout-Fleiss intraclass correlations (:func:`icc`). Conventions as in
:mod:`compendium.stats`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal

import krippendorff as _krippendorff
import numpy as np
import pandas as pd
from scipy import stats

from compendium.stats import pairs
from compendium.stats.progress import Tracker
from compendium.stats.tidy import (
    ITEM,
    RATER,
    RATING,
    SYSTEM,
    Ratings,
    _as_list,
    _check_columns,
    _checked,
    _codes,
    _no_missing_keys,
    _numeric,
    _pivot,
    _unit_codes,
)

__all__ = [
    "LEVELS",
    "ICC_TYPES",
    "rater_summary",
    "pairwise_pearson",
    "krippendorff_alpha",
    "alpha_bootstrap_ci",
    "alpha_bootstrap_ci_reference",
    "alpha_cluster_bootstrap_ci",
    "pairwise_alpha",
    "icc",
]

#: Levels of measurement of Krippendorff's alpha.
LEVELS = ("nominal", "ordinal", "interval", "ratio")
Level = Literal["nominal", "ordinal", "interval", "ratio"]

#: Row labels of :func:`icc`, in Shrout and Fleiss's notation.
ICC_TYPES = ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)")

#: Bootstrap indices are drawn in chunks of about this many cells.
_CHUNK_CELLS = 1 << 21


def rater_summary(data: pd.DataFrame, *, rater: str = RATER, rating: str = RATING) -> pd.DataFrame:
    """Mean, standard deviation and number of ratings of each rater.

    Recommendation 1 of the paper: report each annotator's location and
    spread beside any agreement coefficient, since Pearson correlation is
    blind to the differences in location that dominate this study.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements, one row per rating.
    rater, rating : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        One row per rater (sorted): columns ``<rater>``, ``n`` (non-missing
        ratings), ``mean``, ``sd`` (ddof = 1).

    Examples
    --------
    >>> import pandas as pd
    >>> from compendium.stats.agreement import rater_summary
    >>> df = pd.DataFrame({"annotator": ["A1", "A1", "A2", "A2"], "rating": [1, 3, 4, 5]})
    >>> rater_summary(df)
      annotator  n  mean        sd
    0        A1  2   2.0  1.414214
    1        A2  2   4.5  0.707107
    """
    data = _checked(data, [rater, rating], keys=[rater])
    y = pd.Series(_numeric(data[rating], rating), index=data.index)
    grouped = y.groupby(data[rater].to_numpy(), sort=True, observed=True)
    out = pd.DataFrame({"n": grouped.count(), "mean": grouped.mean(), "sd": grouped.std(ddof=1)})
    out.index.name = rater
    out["n"] = out["n"].astype(int)
    return out.reset_index()


def _wide_by_rater(
    data: pd.DataFrame | Ratings, unit: str | Sequence[str], rater: str, rating: str
) -> tuple[np.ndarray, pd.Index]:
    """Ratings matrix (raters x units), NaN where a rater did not rate a unit (a :class:`Ratings`' cached one)."""
    units = _as_list(unit)
    if isinstance(data, Ratings):
        data.require([rater, rating])
        return data.wide(units)
    _check_columns(data, [*units, rater, rating])
    _no_missing_keys(data, [*units, rater])
    return _pivot(data, units, rater, rating)


def pairwise_pearson(
    data: pd.DataFrame,
    *,
    unit: str | Sequence[str] = (ITEM, SYSTEM),
    rater: str = RATER,
    rating: str = RATING,
    max_pairs: int | None = None,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Pearson correlation between each pair of raters over the units both rated.

    Pearson's r is *not* an agreement coefficient: it is invariant to
    additive and multiplicative rater bias (section 4.1). It is reported
    because the paper reported it.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements.
    unit : str or list of str
        Column(s) identifying the rated unit; by default an (item, system)
        pair.
    rater, rating : str
        Column names.
    max_pairs : int, optional
        Above this many pairs of raters, a uniform sample of this many
        (seeded by ``seed``; :func:`compendium.stats.pairs.choose_pairs`).
        By default every pair.

    Returns
    -------
    pandas.DataFrame
        One row per rater pair: ``<rater>1``, ``<rater>2``, ``n`` (units
        rated by both), ``r``, ``pval`` (two-sided, as
        :func:`scipy.stats.pearsonr`; computed for all pairs at once,
        :func:`compendium.stats.pairs.pearson`). ``attrs["pairs_total"]``
        is the panel's number of pairs.

    Examples
    --------
    >>> from compendium.stats.agreement import pairwise_pearson
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> data = simulate_crossed(30, 3, 3, seed=0)
    >>> pairwise_pearson(data)[["annotator1", "annotator2", "n"]]
      annotator1 annotator2   n
    0         A1         A2  90
    1         A1         A3  90
    2         A2         A3  90
    """
    matrix, raters = _wide_by_rater(data, unit, rater, rating)
    i, j, total = pairs.choose_pairs(len(raters), max_pairs, seed)
    n, r, p = pairs.pearson(matrix, i, j)
    table = pd.DataFrame({f"{rater}1": list(raters[i]), f"{rater}2": list(raters[j]), "n": n, "r": r, "pval": p},
                         columns=[f"{rater}1", f"{rater}2", "n", "r", "pval"])
    table.attrs["pairs_total"] = int(total)
    return table


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")


def _alpha_matrix(
    data: pd.DataFrame, unit: str | Sequence[str], rater: str, rating: str, level: str,
    return_pairable: bool = False,
):
    """Reliability data (raters x units) of the pairable units, for alpha (and the mask of them)."""
    _check_level(level)
    if (level == "nominal" and not isinstance(data, Ratings) and rating in data.columns
            and not pd.api.types.is_numeric_dtype(data[rating])):  # a Ratings' ratings are numbers
        codes, _ = pd.factorize(data[rating], sort=True)
        data = data.assign(**{rating: np.where(codes < 0, np.nan, codes.astype(float))})
    matrix, raters = _wide_by_rater(data, unit, rater, rating)
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    matrix = matrix[:, pairable]
    if matrix.shape[1] == 0:
        raise ValueError("no unit was rated by at least two raters: alpha is undefined")
    return (matrix, raters, pairable) if return_pairable else (matrix, raters)


def krippendorff_alpha(
    data: pd.DataFrame,
    *,
    unit: str | Sequence[str] = (ITEM, SYSTEM),
    rater: str = RATER,
    rating: str = RATING,
    level: Level = "ordinal",
) -> float:
    r"""Krippendorff's alpha for any number of raters, with missing ratings.

    .. math::

        \alpha = 1 - \frac{D_o}{D_e}
               = 1 - (n_{\cdot\cdot} - 1)
                 \frac{\sum_{c,k} o_{ck}\, \delta^2_{ck}}
                      {\sum_{c,k} n_c n_k\, \delta^2_{ck}},

    where :math:`o_{ck}` is the coincidence matrix of the pairable values
    (units with at least two ratings), :math:`n_c` its margins and
    :math:`\delta^2` the difference function of the level of measurement
    (Krippendorff 2011): nominal :math:`[c \ne k]`, interval
    :math:`(c-k)^2`, ratio :math:`((c-k)/(c+k))^2`, and ordinal
    :math:`(\sum_{g=c}^{k} n_g - (n_c + n_k)/2)^2`, which depends on the
    pooled value frequencies. Computed by the ``krippendorff`` package.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements; a missing rating (no row, or NaN) is allowed.
    unit : str or list of str
        Column(s) identifying the coded unit; by default the (item, system)
        pair, as in section 4.1.
    rater, rating : str
        Column names. Ratings must be numeric (for ``level="nominal"`` any
        labels).
    level : {"nominal", "ordinal", "interval", "ratio"}
        Level of measurement.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If a (unit, rater) cell is rated twice, no unit has two ratings, or
        all pairable values are equal (alpha is then undefined).

    References
    ----------
    .. [1] K. Krippendorff (2011). Computing Krippendorff's alpha-reliability.
       Annenberg School for Communication, University of Pennsylvania.
       https://repository.upenn.edu/asc_papers/43
    .. [2] K. Krippendorff (2018). *Content analysis: an introduction to its
       methodology*, 4th ed., ch. 12. SAGE.

    Examples
    --------
    Krippendorff's (2011) example: 4 coders, 12 units, missing values.

    >>> import numpy as np, pandas as pd
    >>> from compendium.stats.agreement import krippendorff_alpha
    >>> coders = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    ...           [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    ...           [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    ...           [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
    >>> df = pd.DataFrame([(u, c, v) for c, row in enumerate(coders)
    ...                    for u, v in enumerate(row) if v is not None],
    ...                   columns=["unit", "coder", "value"])
    >>> [round(krippendorff_alpha(df, unit="unit", rater="coder", rating="value", level=lv), 3)
    ...  for lv in ("nominal", "ordinal", "interval", "ratio")]
    [0.743, 0.815, 0.849, 0.797]
    """
    matrix, _ = _alpha_matrix(data, unit, rater, rating, level)
    return _package_alpha(matrix, np.unique(matrix[~np.isnan(matrix)]), level)


def _package_alpha(matrix: np.ndarray, domain: np.ndarray, level: str) -> float:
    if len(domain) < 2:
        raise ValueError("all ratings are equal: alpha is undefined (no expected disagreement)")
    return float(_krippendorff.alpha(reliability_data=matrix, value_domain=domain, level_of_measurement=level))


class _AlphaBootstrap:
    r"""Alpha of unit-weighted data, vectorised over weight vectors.

    With unit weights :math:`w_u` (bootstrap multiplicities) every quantity
    of alpha is a weighted sum over units of per-unit terms computed once:
    the pairable value counts :math:`n_c = \sum_u w_u c_{uc}` and the
    observed disagreement

    .. math:: \sum_{ck} o_{ck}\delta^2_{ck} = \sum_u w_u \frac{1}{m_u - 1}
              \sum_{i \ne j \in u} \delta^2(v_i, v_j).

    For interval, nominal and ratio data :math:`\delta^2` is fixed, so each
    unit's term is one number. The ordinal :math:`\delta^2` depends on the
    pooled frequencies, which change with the weights; it is exactly
    :math:`(t_k - t_c)^2` for the midranks :math:`t_c = \sum_{g<c} n_g +
    n_c / 2`, so per replicate the unit term is
    :math:`2 (m_u \sum_c c_{uc} t_c^2 - (\sum_c c_{uc} t_c)^2) / (m_u - 1)`,
    a pair of matrix products. Expected disagreement is a quadratic form in
    :math:`n_c`. Units with identical value counts contribute identically,
    so the weights are kept per distinct count pattern (35 patterns at
    most for three raters on a five-point scale).
    """

    def __init__(self, matrix: np.ndarray, level: str):
        _check_level(level)
        present = ~np.isnan(matrix)
        self.domain = np.unique(matrix[present])
        self.level = level
        n_units, n_values = matrix.shape[1], len(self.domain)
        counts = np.zeros((n_units, n_values))
        rater_idx, unit_idx = np.nonzero(present)
        np.add.at(counts, (unit_idx, np.searchsorted(self.domain, matrix[rater_idx, unit_idx])), 1.0)
        # Units with the same value counts contribute identically: work on the
        # distinct count patterns, weighted by how often each is drawn.
        counts, self.pattern = np.unique(counts, axis=0, return_inverse=True)
        self.pattern = self.pattern.ravel()
        self.n_patterns = counts.shape[0]
        m = counts.sum(axis=1)
        pairable = m >= 2
        counts[~pairable] = 0.0
        self.counts, self.m = counts, np.where(pairable, m, 0.0)
        self.inv = np.where(pairable, 1.0 / np.maximum(m - 1.0, 1.0), 0.0)
        if level == "interval":
            x = self.domain - self.domain.mean()
            self.x = x
            s1, s2 = counts @ x, counts @ x**2
            self.unit_do = 2.0 * (self.m * s2 - s1**2) * self.inv
        elif level == "nominal":
            self.unit_do = (self.m**2 - (counts**2).sum(axis=1)) * self.inv
        elif level == "ratio":
            a, b = self.domain[:, None], self.domain[None, :]
            total = a + b
            self.d = np.divide(a - b, total, out=np.zeros((n_values, n_values)), where=total != 0) ** 2
            self.unit_do = ((counts @ self.d) * counts).sum(axis=1) * self.inv

    def point(self) -> float:
        """Alpha of the data as observed (every unit once): the package's value, up to rounding
        (tests/test_reliability.py), without the package's units x values x values arrays, which on a
        scale of a few hundred values (WMT's MQM scores) take gigabytes and seconds."""
        if len(self.domain) < 2:
            raise ValueError("all ratings are equal: alpha is undefined (no expected disagreement)")
        observed = np.bincount(self.pattern, minlength=self.n_patterns).astype(float)
        return float(self.alpha(observed[None, :])[0])

    def pattern_weights(self, idx: np.ndarray) -> np.ndarray:
        """Replicates x patterns multiplicities of resampled unit indices."""
        b, p = idx.shape[0], self.n_patterns
        flat = (self.pattern[idx] + (np.arange(b, dtype=np.int64) * p)[:, None]).ravel()
        return np.bincount(flat, minlength=b * p).reshape(b, p).astype(float)

    def alpha(self, weights: np.ndarray) -> np.ndarray:
        """Alpha for each row of ``weights`` (replicates x count patterns)."""
        weights = np.atleast_2d(np.asarray(weights, dtype=float))
        n_c = weights @ self.counts
        n = n_c.sum(axis=1)
        if self.level == "ordinal":
            t = np.cumsum(n_c, axis=1) - n_c / 2.0 - n[:, None] / 2.0  # midranks, centred
            s1 = t @ self.counts.T
            s2 = (t**2) @ self.counts.T
            d_o = (weights * (2.0 * (self.m * s2 - s1**2) * self.inv)).sum(axis=1)
            d_e = 2.0 * (n * (n_c * t**2).sum(axis=1) - (n_c * t).sum(axis=1) ** 2)
        elif self.level == "interval":
            d_o = weights @ self.unit_do
            d_e = 2.0 * (n * (n_c @ self.x**2) - (n_c @ self.x) ** 2)
        elif self.level == "nominal":
            d_o = weights @ self.unit_do
            d_e = n**2 - (n_c**2).sum(axis=1)
        else:  # ratio
            d_o = weights @ self.unit_do
            d_e = ((n_c @ self.d) * n_c).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = 1.0 - (n - 1.0) * d_o / d_e
        # No expected disagreement (all resampled values equal): undefined.
        # Scale of d_e: n^2 times a typical squared difference.
        unit = {"ordinal": n**2, "interval": np.ptp(self.domain) ** 2, "nominal": 1.0, "ratio": 1.0}[self.level]
        out[~(d_e > 1e-10 * n**2 * unit)] = np.nan
        return out


def _index_chunks(rng: np.random.Generator, n_units: int, n_boot: int,
                  label: str = "alpha bootstrap") -> Iterator[np.ndarray]:
    """Bootstrap unit indices, ``n_boot x n_units``, drawn in fixed chunks.

    The chunking depends only on (n_units, n_boot), so that the vectorised
    bootstrap and the reference loop draw identical replicates from one seed.
    Progress goes to ``compendium run``'s terminal (:mod:`compendium.stats.progress`).
    """
    size = max(1, _CHUNK_CELLS // max(n_units, 1))
    tracker = Tracker(label, n_boot)
    for start in range(0, n_boot, size):
        yield rng.integers(0, n_units, size=(min(size, n_boot - start), n_units))
        tracker.update(min(start + size, n_boot))


def _ci_frame(point: float, reps: np.ndarray, ci: float, level: str, n_units: int, n_boot: int) -> pd.DataFrame:
    valid = reps[np.isfinite(reps)]
    lo, hi = (np.quantile(valid, [(1 - ci) / 2, (1 + ci) / 2]) if len(valid) else (np.nan, np.nan))
    return pd.DataFrame(
        {
            "level": [level],
            "alpha": [point],
            "ci_low": [float(lo)],
            "ci_high": [float(hi)],
            "se": [float(np.std(valid, ddof=1)) if len(valid) > 1 else np.nan],
            "ci": [ci],
            "n_units": [n_units],
            "n_boot": [n_boot],
            "n_valid": [len(valid)],
        }
    )


def _check_boot(n_boot: int, ci: float) -> None:
    if int(n_boot) != n_boot or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    if not 0 < ci < 1:
        raise ValueError(f"ci must be in (0, 1), got {ci!r}")


def alpha_bootstrap_ci(
    data: pd.DataFrame,
    *,
    unit: str | Sequence[str] = (ITEM, SYSTEM),
    rater: str = RATER,
    rating: str = RATING,
    level: Level = "ordinal",
    n_boot: int = 2000,
    seed: int | np.random.Generator | None = 0,
    ci: float = 0.95,
    return_dist: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, np.ndarray]:
    """Krippendorff's alpha with a percentile unit-bootstrap confidence interval.

    Units (by default (item, system) pairs) that at least two raters rated
    are resampled with replacement, ``n_boot`` times; alpha is recomputed on
    each replicate -- including, for ordinal data, the ordinal metric, which
    depends on the pooled value frequencies of the replicate -- and the
    ``(1 - ci) / 2`` and ``(1 + ci) / 2`` quantiles of the replicates
    (``numpy.quantile``, linear interpolation) bound the interval.

    The computation is vectorised: per-unit value counts and disagreement
    terms are computed once, units with identical value counts are pooled
    into patterns, and each replicate is a vector of pattern multiplicities
    (see ``_AlphaBootstrap``). It is exact -- it agrees with
    :func:`alpha_bootstrap_ci_reference`, a loop over the ``krippendorff``
    package, replicate by replicate, for the same seed.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements; missing ratings allowed.
    unit, rater, rating, level
        As in :func:`krippendorff_alpha`.
    n_boot : int
        Number of bootstrap replicates (2,000 in the paper).
    seed : int, numpy.random.Generator or None
        Seeds ``numpy.random.default_rng``; the global random state is never
        used.
    ci : float
        Coverage of the interval.
    return_dist : bool
        If True, also return the replicates.

    Returns
    -------
    pandas.DataFrame
        One row: ``level, alpha, ci_low, ci_high, se`` (SD of the
        replicates), ``ci, n_units, n_boot, n_valid``. Replicates in which
        alpha is undefined (every resampled value equal) are NaN and left
        out of the quantiles; ``n_valid`` counts the others.
    numpy.ndarray
        The ``n_boot`` replicates, if ``return_dist``.

    Notes
    -----
    This is the plain unit (case) bootstrap the paper describes ("2,000
    unit-bootstrap replicates"), not Hayes and Krippendorff's (2007)
    resampling of pairable values.

    References
    ----------
    .. [1] B. Efron and R. J. Tibshirani (1993). *An introduction to the
       bootstrap*, ch. 13 (percentile intervals). Chapman & Hall.
    .. [2] A. F. Hayes and K. Krippendorff (2007). Answering the call for a
       standard reliability measure for coding data. *Communication Methods
       and Measures* 1(1), 77-89.

    Examples
    --------
    >>> from compendium.stats.agreement import alpha_bootstrap_ci
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> data = simulate_crossed(30, 4, 3, seed=3, scale=(1, 5))
    >>> alpha_bootstrap_ci(data, n_boot=500, seed=1)[["alpha", "ci_low", "ci_high"]].round(3)
       alpha  ci_low  ci_high
    0  0.123   0.008    0.226
    """
    _check_boot(n_boot, ci)
    matrix, _ = _alpha_matrix(data, unit, rater, rating, level)
    engine = _AlphaBootstrap(matrix, level)
    point = engine.point()
    rng = np.random.default_rng(seed)
    n_units = matrix.shape[1]
    reps = []
    for idx in _index_chunks(rng, n_units, int(n_boot)):
        reps.append(engine.alpha(engine.pattern_weights(idx)))
    reps = np.concatenate(reps)
    table = _ci_frame(point, reps, ci, level, n_units, int(n_boot))
    return (table, reps) if return_dist else table


def alpha_bootstrap_ci_reference(
    data: pd.DataFrame,
    *,
    unit: str | Sequence[str] = (ITEM, SYSTEM),
    rater: str = RATER,
    rating: str = RATING,
    level: Level = "ordinal",
    n_boot: int = 2000,
    seed: int | np.random.Generator | None = 0,
    ci: float = 0.95,
    return_dist: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, np.ndarray]:
    """Plain-loop reference of :func:`alpha_bootstrap_ci`.

    Draws the same replicates from the same seed and calls
    ``krippendorff.alpha`` on each resampled reliability matrix. Slow; kept
    so that the vectorised version can be checked against it.

    Parameters
    ----------
    data, unit, rater, rating, level, n_boot, seed, ci, return_dist
        As :func:`alpha_bootstrap_ci`.

    Returns
    -------
    pandas.DataFrame or (pandas.DataFrame, numpy.ndarray)
        As :func:`alpha_bootstrap_ci`.

    Examples
    --------
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> from compendium.stats.agreement import alpha_bootstrap_ci, alpha_bootstrap_ci_reference
    >>> data = simulate_crossed(10, 3, 3, seed=3, scale=(1, 5))
    >>> fast = alpha_bootstrap_ci(data, n_boot=50, seed=2)
    >>> slow = alpha_bootstrap_ci_reference(data, n_boot=50, seed=2)
    >>> bool(abs(fast.ci_low[0] - slow.ci_low[0]) < 1e-12)
    True
    """
    _check_boot(n_boot, ci)
    matrix, _ = _alpha_matrix(data, unit, rater, rating, level)
    domain = np.unique(matrix[~np.isnan(matrix)])
    point = _package_alpha(matrix, domain, level)
    rng = np.random.default_rng(seed)
    n_units = matrix.shape[1]
    reps = []
    for idx in _index_chunks(rng, n_units, int(n_boot)):
        for row in idx:
            try:
                with np.errstate(divide="ignore", invalid="ignore"):
                    value = _package_alpha(matrix[:, row], domain, level)
            except ValueError:  # too few pairable values: alpha undefined
                value = np.nan
            reps.append(value)
    reps = np.asarray(reps, dtype=float)
    table = _ci_frame(point, reps, ci, level, n_units, int(n_boot))
    return (table, reps) if return_dist else table


def alpha_cluster_bootstrap_ci(
    data: pd.DataFrame,
    *,
    cluster: str = ITEM,
    unit: str | Sequence[str] = (ITEM, SYSTEM),
    rater: str = RATER,
    rating: str = RATING,
    level: Level = "ordinal",
    n_boot: int = 2000,
    seed: int | np.random.Generator | None = 0,
    ci: float = 0.95,
    return_dist: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, np.ndarray]:
    """Krippendorff's alpha with a percentile cluster-bootstrap interval.

    The outputs of one item (its (item, system) units) share the item's
    difficulty and the raters' reading of it, so they are not independent:
    resampling units one by one, as :func:`alpha_bootstrap_ci` does,
    understates the sampling variability of alpha. Here whole clusters (by
    default items, each with all its units) are drawn with replacement,
    ``n_boot`` times, and alpha is recomputed on each replicate (Davison and
    Hinkley 1997, section 3.8; Field and Welsh 2007). It uses the same
    vectorised engine as :func:`alpha_bootstrap_ci`: a replicate is a vector
    of unit multiplicities, here the multiplicity of each unit's cluster.
    The tests check it replicate by replicate against a loop over the
    ``krippendorff`` package.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements; missing ratings allowed.
    cluster : str
        Column whose levels are resampled; every unit must lie in one
        cluster.
    unit, rater, rating, level, n_boot, seed, ci, return_dist
        As :func:`alpha_bootstrap_ci`.

    Returns
    -------
    pandas.DataFrame
        As :func:`alpha_bootstrap_ci`, plus ``n_clusters``.
    numpy.ndarray
        The replicates, if ``return_dist``.

    References
    ----------
    .. [1] A. C. Davison and D. V. Hinkley (1997). *Bootstrap methods and
       their application*, section 3.8. Cambridge University Press.
    .. [2] C. A. Field and A. H. Welsh (2007). Bootstrapping clustered data.
       *Journal of the Royal Statistical Society B* 69(3), 369-390.

    Examples
    --------
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> data = simulate_crossed(30, 4, 3, seed=3, scale=(1, 5))
    >>> alpha_cluster_bootstrap_ci(data, n_boot=500, seed=1)[["alpha", "ci_low", "ci_high", "n_clusters"]].round(3)
       alpha  ci_low  ci_high  n_clusters
    0  0.123  -0.017    0.271          30
    """
    _check_boot(n_boot, ci)
    units = _as_list(unit)
    frame = _checked(data, list(dict.fromkeys([*units, cluster, rater, rating])))
    matrix, _, pairable = _alpha_matrix(data, units, rater, rating, level, return_pairable=True)
    ucode, keys = _unit_codes(frame, units)
    ccode, clusters = _codes(frame[cluster])
    unit_cluster = np.full(len(keys), -1)
    unit_cluster[ucode] = ccode
    spans = pd.Series(ccode).groupby(ucode).nunique()
    if (spans > 1).any():
        raise ValueError(f"some {tuple(units)} units span several {cluster!r} clusters, "
                         f"e.g. unit {tuple(keys.iloc[int(spans.index[spans.to_numpy() > 1][0])])}")
    unit_cluster = unit_cluster[pairable]
    engine = _AlphaBootstrap(matrix, level)
    point = engine.point()
    n_clusters = len(clusters)
    # Units of each cluster, by count pattern: a replicate's pattern weights are
    # its cluster multiplicities times this matrix.
    by_cluster = np.zeros((n_clusters, engine.n_patterns))
    np.add.at(by_cluster, (unit_cluster, engine.pattern), 1.0)
    rng = np.random.default_rng(seed)
    reps = []
    for idx in _index_chunks(rng, n_clusters, int(n_boot), "alpha item-cluster bootstrap"):
        b = idx.shape[0]
        flat = (idx + (np.arange(b, dtype=np.int64) * n_clusters)[:, None]).ravel()
        multiplicity = np.bincount(flat, minlength=b * n_clusters).reshape(b, n_clusters).astype(float)
        reps.append(engine.alpha(multiplicity @ by_cluster))
    reps = np.concatenate(reps)
    table = _ci_frame(point, reps, ci, level, matrix.shape[1], int(n_boot))
    table["n_clusters"] = n_clusters
    return (table, reps) if return_dist else table


def pairwise_alpha(
    data: pd.DataFrame,
    *,
    unit: str | Sequence[str] = (ITEM, SYSTEM),
    rater: str = RATER,
    rating: str = RATING,
    level: Level = "ordinal",
) -> pd.DataFrame:
    """Krippendorff's alpha of each pair of raters, with the pair's Pearson r.

    Section 4.1: the pair whose Pearson r is 0.166 has ordinal alpha
    -0.109 -- correlated, but in worse than chance agreement once their
    different use of the scale counts.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements.
    unit, rater, rating, level
        As in :func:`krippendorff_alpha`.

    Returns
    -------
    pandas.DataFrame
        One row per rater pair: ``<rater>1, <rater>2``, ``n_units`` (rated by
        both), ``alpha``, ``r`` (Pearson, over the same units).

    Examples
    --------
    >>> from compendium.stats.agreement import pairwise_alpha
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> data = simulate_crossed(30, 4, 3, seed=3, scale=(1, 5))
    >>> pairwise_alpha(data).round(2)
      annotator1 annotator2  n_units  alpha     r
    0         A1         A2      120   0.17  0.23
    1         A1         A3      120  -0.00  0.27
    2         A2         A3      120   0.11  0.24
    """
    _check_level(level)
    units = _as_list(unit)
    _checked(data, [*units, rater, rating])
    pear = pairwise_pearson(data, unit=units, rater=rater, rating=rating)
    # One matrix (nominal labels coded) for every pair: a pair's reliability data are its two rows, on the
    # units both rated.
    matrix, raters = (_alpha_matrix(data, units, rater, rating, level)[:2] if len(pear) else (None, None))
    rows = []
    for a, b, n, r in pear[[f"{rater}1", f"{rater}2", "n", "r"]].itertuples(index=False):
        pair = matrix[[raters.get_loc(a), raters.get_loc(b)]]
        pair = pair[:, ~np.isnan(pair).any(axis=0)]
        # The value of krippendorff_alpha, from the engine of alpha_bootstrap_ci (equal to the package's to
        # rounding, tests/test_reliability.py): on a scale of a hundred values the package builds a values x
        # values coincidence matrix per unit, and 15 pairs of raters took seconds.
        try:
            value = _AlphaBootstrap(pair, level).point() if pair.shape[1] else np.nan
        except ValueError:
            value = np.nan
        rows.append({f"{rater}1": a, f"{rater}2": b, "n_units": n, "alpha": value, "r": r})
    return pd.DataFrame(rows, columns=[f"{rater}1", f"{rater}2", "n_units", "alpha", "r"])


# ------------------------------------------------------------------- ICC
def icc(
    data: pd.DataFrame,
    *,
    target: str | Sequence[str] = (ITEM, SYSTEM),
    rater: str = RATER,
    rating: str = RATING,
    ci: float = 0.95,
    nan_policy: Literal["raise", "omit"] = "raise",
) -> pd.DataFrame:
    r"""The six intraclass correlations of Shrout and Fleiss (1979).

    From the two-way targets x raters table (``n`` targets, ``k`` raters, one
    rating per cell) with mean squares :math:`BMS` (targets), :math:`JMS`
    (raters), :math:`EMS` (residual) and :math:`WMS` (within targets):

    ============  =====================================================  ============================
    ICC(1,1)      :math:`(BMS - WMS) / (BMS + (k-1) WMS)`                one-way random
    ICC(2,1)      :math:`(BMS - EMS) / (BMS + (k-1) EMS + k (JMS - EMS)/n)` two-way random, agreement
    ICC(3,1)      :math:`(BMS - EMS) / (BMS + (k-1) EMS)`                two-way mixed, consistency
    ICC(1,k)      :math:`(BMS - WMS) / BMS`                              mean of k raters
    ICC(2,k)      :math:`(BMS - EMS) / (BMS + (JMS - EMS) / n)`
    ICC(3,k)      :math:`(BMS - EMS) / BMS`
    ============  =====================================================  ============================

    F tests: :math:`BMS / WMS` on :math:`(n-1, n(k-1))` df for ICC(1,·),
    :math:`BMS / EMS` on :math:`(n-1, (n-1)(k-1))` df otherwise. Confidence
    intervals as in Shrout and Fleiss (1979) and McGraw and Wong (1996; the
    Satterthwaite-type interval for ICC(2,·)), identical to
    ``pingouin.intraclass_corr`` (whose ``ICC(A,·)`` / ``ICC(C,·)`` are our
    ``ICC(2,·)`` / ``ICC(3,·)``) at ``ci=0.95``.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements.
    target : str or list of str
        Column(s) identifying the target; the paper's "ICC(2,1) over (item,
        system) units" uses the default ``("sentence_id", "system")``.
    rater, rating : str
        Column names.
    ci : float
        Coverage of the confidence intervals.
    nan_policy : {"raise", "omit"}
        A target not rated by every rater raises, or is dropped ("omit",
        listwise deletion, as pingouin).

    Returns
    -------
    pandas.DataFrame
        Indexed by :data:`ICC_TYPES` (index name ``type``); columns ``ICC,
        F, df1, df2, pval, ci_low, ci_high``.

    References
    ----------
    .. [1] P. E. Shrout and J. L. Fleiss (1979). Intraclass correlations:
       uses in assessing rater reliability. *Psychological Bulletin* 86(2),
       420-428.
    .. [2] K. O. McGraw and S. P. Wong (1996). Forming inferences about some
       intraclass correlation coefficients. *Psychological Methods* 1(1),
       30-46.

    Examples
    --------
    Shrout and Fleiss's Table 2: six targets, four judges.

    >>> import pandas as pd
    >>> from compendium.stats.agreement import icc
    >>> table2 = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
    ...           [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> df = pd.DataFrame([(t, j, x) for t, row in enumerate(table2)
    ...                    for j, x in enumerate(row)], columns=["target", "judge", "x"])
    >>> icc(df, target="target", rater="judge", rating="x")["ICC"].round(2)
    type
    ICC(1,1)    0.17
    ICC(2,1)    0.29
    ICC(3,1)    0.71
    ICC(1,k)    0.44
    ICC(2,k)    0.62
    ICC(3,k)    0.91
    Name: ICC, dtype: float64
    """
    if not 0 < ci < 1:
        raise ValueError(f"ci must be in (0, 1), got {ci!r}")
    if nan_policy not in ("raise", "omit"):
        raise ValueError("nan_policy must be 'raise' or 'omit'")
    matrix, _ = _wide_by_rater(data, target, rater, rating)
    y = matrix.T  # targets x raters
    incomplete = np.isnan(y).any(axis=1)
    if incomplete.any():
        if nan_policy == "raise":
            raise ValueError(
                f"{int(incomplete.sum())} target(s) lack a rating from some rater; "
                "use nan_policy='omit' to drop them"
            )
        y = y[~incomplete]
    n, k = y.shape
    if n < 2 or k < 2:
        raise ValueError(f"need at least 2 complete targets and 2 raters, got {n} and {k}")
    grand = y.mean()
    ss_targets = k * ((y.mean(axis=1) - grand) ** 2).sum()
    ss_raters = n * ((y.mean(axis=0) - grand) ** 2).sum()
    ss_error = ((y - grand) ** 2).sum() - ss_targets - ss_raters
    bms = ss_targets / (n - 1)
    jms = ss_raters / (k - 1)
    ems = ss_error / ((n - 1) * (k - 1))
    wms = (ss_raters + ss_error) / (n * (k - 1))

    icc1 = (bms - wms) / (bms + (k - 1) * wms)
    icc2 = (bms - ems) / (bms + (k - 1) * ems + k * (jms - ems) / n)
    icc3 = (bms - ems) / (bms + (k - 1) * ems)
    icc1k = (bms - wms) / bms
    icc2k = (bms - ems) / (bms + (jms - ems) / n)
    icc3k = (bms - ems) / bms

    df1, df_w, df_e = n - 1, n * (k - 1), (n - 1) * (k - 1)
    f1, f3 = bms / wms, bms / ems
    p1, p3 = stats.f.sf(f1, df1, df_w), stats.f.sf(f3, df1, df_e)

    q = 1 - (1 - ci) / 2
    f1l, f1u = f1 / stats.f.ppf(q, df1, df_w), f1 * stats.f.ppf(q, df_w, df1)
    f3l, f3u = f3 / stats.f.ppf(q, df1, df_e), f3 * stats.f.ppf(q, df_e, df1)
    fj = jms / ems
    vn = df_e * (k * icc2 * fj + n * (1 + (k - 1) * icc2) - k * icc2) ** 2
    vd = df1 * k**2 * icc2**2 * fj**2 + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
    v = vn / vd
    f2u, f2l = stats.f.ppf(q, n - 1, v), stats.f.ppf(q, v, n - 1)
    l2 = n * (bms - f2u * ems) / (f2u * (k * jms + (k * n - k - n) * ems) + n * bms)
    u2 = n * (f2l * bms - ems) / (k * jms + (k * n - k - n) * ems + n * f2l * bms)

    out = pd.DataFrame(
        {
            "ICC": [icc1, icc2, icc3, icc1k, icc2k, icc3k],
            "F": [f1, f3, f3, f1, f3, f3],
            "df1": [df1] * 6,
            "df2": [df_w, df_e, df_e, df_w, df_e, df_e],
            "pval": [p1, p3, p3, p1, p3, p3],
            "ci_low": [
                (f1l - 1) / (f1l + k - 1),
                l2,
                (f3l - 1) / (f3l + k - 1),
                1 - 1 / f1l,
                l2 * k / (1 + l2 * (k - 1)),
                1 - 1 / f3l,
            ],
            "ci_high": [
                (f1u - 1) / (f1u + k - 1),
                u2,
                (f3u - 1) / (f3u + k - 1),
                1 - 1 / f1u,
                u2 * k / (1 + u2 * (k - 1)),
                1 - 1 / f3u,
            ],
        },
        index=pd.Index(ICC_TYPES, name="type"),
    )
    return out.astype({"ICC": float, "F": float, "pval": float, "ci_low": float, "ci_high": float})
