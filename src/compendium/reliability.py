"""Agreement, reliability and generalisability of a crossed rating study.

Section 4 of the paper audits a fully crossed human study -- 290 items x 8
systems x 3 annotators, one rating per cell -- and this module computes every
statistic it reports, for any study of the same shape (any numbers of items,
systems and raters, any numeric scale):

* **agreement** (section 4.1): :func:`rater_summary`,
  :func:`pairwise_pearson`, :func:`krippendorff_alpha` with a vectorised unit
  bootstrap (:func:`alpha_bootstrap_ci`, checked against the plain loop
  :func:`alpha_bootstrap_ci_reference`), :func:`pairwise_alpha` and the six
  Shrout-Fleiss intraclass correlations (:func:`icc`);
* **the system effect under two error terms** (section 4.2):
  :func:`anova_table`, :func:`system_f_tests`, :func:`pairwise_system_tests`
  and :func:`sign_consistency`;
* **generalisability theory** (section 4.3): :func:`variance_components`,
  :func:`g_coefficient`, :func:`g_limit`, :func:`raters_needed` and
  :func:`decision_study`;
* **panel dependence** (section 4.4): :func:`leave_one_annotator_out`,
  :func:`kendall_between_raters` and, for larger simulated panels,
  :func:`split_half_reliability`.

Conventions (pingouin's): a tidy DataFrame of judgements goes in, with one
row per rating and the columns ``sentence_id, system, annotator, rating`` of
:data:`compendium.schema.COLUMNS` by default; the keyword arguments ``item=``,
``system=``, ``rater=``, ``rating=`` (``unit=``, ``target=`` where a unit is
a combination of columns) rename them. A tidy DataFrame comes out. Columns
that name one entity take the input column's name (``annotator``,
``system``); columns of pairs append ``1`` and ``2`` (``annotator1``,
``annotator2``); the sources of the ANOVA and the variance components are
always called ``item``, ``system``, ``annotator`` and their interactions,
whatever the input columns are called. Levels are sorted (categorical
columns in category order).

:func:`simulate_crossed` draws a crossed study from given variance
components; the examples and the tests use it.

Examples
--------
>>> from compendium import reliability as rel
>>> data = rel.simulate_crossed(40, 4, 3, seed=1, scale=(1, 5))
>>> data.head(3)
   sentence_id system annotator  rating
0            1     S1        A1       2
1            1     S1        A2       2
2            1     S1        A3       4
>>> table = rel.anova_table(data)
>>> list(table.index)
['item', 'system', 'annotator', 'item:system', 'item:annotator', 'system:annotator', 'residual', 'total']
>>> vc = rel.variance_components(table)
>>> round(float(rel.g_coefficient(vc, n_items=40, n_raters=3)), 3)
0.568
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Literal

import krippendorff as _krippendorff
import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from .schema import ANNOTATORS, COLUMNS, RATINGS_FILE

__all__ = [
    "ITEM",
    "SYSTEM",
    "RATER",
    "RATING",
    "ICC_TYPES",
    "ANOVA_SOURCES",
    "RANDOM_COMPONENTS",
    "rater_summary",
    "pairwise_pearson",
    "krippendorff_alpha",
    "alpha_bootstrap_ci",
    "alpha_bootstrap_ci_reference",
    "pairwise_alpha",
    "icc",
    "anova_table",
    "system_f_tests",
    "variance_components",
    "g_coefficient",
    "g_limit",
    "raters_needed",
    "decision_study",
    "pairwise_system_tests",
    "sign_consistency",
    "leave_one_annotator_out",
    "kendall_between_raters",
    "split_half_reliability",
    "split_half_class_match",
    "panel_summary",
    "simulate_crossed",
]

#: Default column names, from the schema (``ratings.csv``).
ITEM, SYSTEM, RATER, RATING = COLUMNS[RATINGS_FILE]

#: Levels of measurement of Krippendorff's alpha.
LEVELS = ("nominal", "ordinal", "interval", "ratio")
Level = Literal["nominal", "ordinal", "interval", "ratio"]

#: Row labels of :func:`icc`, in Shrout and Fleiss's notation.
ICC_TYPES = ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)")

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

#: Bootstrap indices are drawn in chunks of about this many cells.
_CHUNK_CELLS = 1 << 21


# ---------------------------------------------------------------- helpers
def _as_list(columns: str | Sequence[str]) -> list[str]:
    if isinstance(columns, str):
        return [columns]
    out = list(columns)
    if not out:
        raise ValueError("at least one column is needed")
    return out


def _check_columns(data: pd.DataFrame, columns: Sequence[str]) -> None:
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(data).__name__}")
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"column(s) {missing} not in the data (columns: {list(data.columns)})")
    key = [c for c in columns]
    if len(set(key)) != len(key):
        raise ValueError(f"the same column is used for two roles: {key}")


def _numeric(values: pd.Series, name: str) -> np.ndarray:
    try:
        out = pd.to_numeric(values, errors="raise").to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"column {name!r} must be numeric") from exc
    if np.isinf(out).any():
        raise ValueError(f"column {name!r} contains infinite values")
    return out


def _no_missing_keys(data: pd.DataFrame, columns: Sequence[str]) -> None:
    bad = data[list(columns)].isna().any(axis=1)
    if bad.any():
        raise ValueError(
            f"{int(bad.sum())} row(s) have a missing value in {list(columns)}, "
            f"e.g. row {data.index[bad.to_numpy()][0]!r}"
        )


def _codes(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes and sorted levels (categoricals in category order)."""
    codes, levels = pd.factorize(values, sort=True)
    return codes, pd.Index(levels)


def _unit_codes(data: pd.DataFrame, units: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Codes of the (possibly multi-column) unit and the table of unit keys."""
    if len(units) == 1:
        codes, levels = _codes(data[units[0]])
        return codes, pd.DataFrame({units[0]: np.asarray(levels)})
    grouped = data.groupby(units, sort=True, observed=True)
    codes = grouped.ngroup().to_numpy()
    keys = grouped.size().reset_index()[units]
    return codes, keys


def _py(value):
    """A numpy scalar as the Python scalar, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value


def _pairs(levels: Sequence) -> list[tuple]:
    return list(itertools.combinations(list(levels), 2))


def _means_by(data: pd.DataFrame, rows: str, columns: str, rating: str) -> pd.DataFrame:
    """Mean rating of each (rows, columns) cell as a wide table, levels sorted."""
    _check_columns(data, [rows, columns, rating])
    _no_missing_keys(data, [rows, columns])
    r_codes, r_levels = _codes(data[rows])
    c_codes, c_levels = _codes(data[columns])
    y = _numeric(data[rating], rating)
    ok = ~np.isnan(y)
    sums = np.zeros((len(r_levels), len(c_levels)))
    counts = np.zeros_like(sums)
    np.add.at(sums, (r_codes[ok], c_codes[ok]), y[ok])
    np.add.at(counts, (r_codes[ok], c_codes[ok]), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / counts, np.nan)
    return pd.DataFrame(
        means, index=pd.Index(r_levels, name=rows), columns=pd.Index(c_levels, name=columns)
    )


# ------------------------------------------------------------- agreement
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
    >>> from compendium.reliability import rater_summary
    >>> df = pd.DataFrame({"annotator": ["A1", "A1", "A2", "A2"], "rating": [1, 3, 4, 5]})
    >>> rater_summary(df)
      annotator  n  mean        sd
    0        A1  2   2.0  1.414214
    1        A2  2   4.5  0.707107
    """
    _check_columns(data, [rater, rating])
    _no_missing_keys(data, [rater])
    y = pd.Series(_numeric(data[rating], rating), index=data.index)
    grouped = y.groupby(data[rater].to_numpy(), sort=True, observed=True)
    out = pd.DataFrame({"n": grouped.count(), "mean": grouped.mean(), "sd": grouped.std(ddof=1)})
    out.index.name = rater
    out["n"] = out["n"].astype(int)
    return out.reset_index()


def _wide_by_rater(
    data: pd.DataFrame, unit: str | Sequence[str], rater: str, rating: str
) -> tuple[np.ndarray, pd.Index]:
    """Ratings matrix (raters x units), NaN where a rater did not rate a unit."""
    units = _as_list(unit)
    _check_columns(data, [*units, rater, rating])
    _no_missing_keys(data, [*units, rater])
    y = _numeric(data[rating], rating)
    ucode, keys = _unit_codes(data, units)
    rcode, raters = _codes(data[rater])
    n_units, n_raters = len(keys), len(raters)
    lin = rcode.astype(np.int64) * n_units + ucode
    counts = np.bincount(lin, minlength=n_raters * n_units)
    if (counts > 1).any():
        r, u = np.divmod(np.flatnonzero(counts > 1), n_units)
        examples = [(_py(raters[i]), tuple(_py(v) for v in keys.iloc[j])) for i, j in zip(r[:5], u[:5])]
        raise ValueError(
            f"{int((counts > 1).sum())} (unit, rater) cell(s) have more than one rating, "
            f"e.g. (rater, unit {tuple(units)}) = {examples}"
        )
    matrix = np.full(n_raters * n_units, np.nan)
    matrix[lin] = y
    return matrix.reshape(n_raters, n_units), raters


def pairwise_pearson(
    data: pd.DataFrame,
    *,
    unit: str | Sequence[str] = (ITEM, SYSTEM),
    rater: str = RATER,
    rating: str = RATING,
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

    Returns
    -------
    pandas.DataFrame
        One row per rater pair: ``<rater>1``, ``<rater>2``, ``n`` (units
        rated by both), ``r``, ``pval`` (two-sided,
        :func:`scipy.stats.pearsonr`).

    Examples
    --------
    >>> from compendium.reliability import pairwise_pearson, simulate_crossed
    >>> data = simulate_crossed(30, 3, 3, seed=0)
    >>> pairwise_pearson(data)[["annotator1", "annotator2", "n"]]
      annotator1 annotator2   n
    0         A1         A2  90
    1         A1         A3  90
    2         A2         A3  90
    """
    matrix, raters = _wide_by_rater(data, unit, rater, rating)
    rows = []
    for i, j in _pairs(range(len(raters))):
        both = ~np.isnan(matrix[i]) & ~np.isnan(matrix[j])
        n = int(both.sum())
        if n >= 2 and np.ptp(matrix[i, both]) > 0 and np.ptp(matrix[j, both]) > 0:
            res = stats.pearsonr(matrix[i, both], matrix[j, both])
            r, p = float(res.statistic), float(res.pvalue)
        else:
            r = p = np.nan
        rows.append({f"{rater}1": raters[i], f"{rater}2": raters[j], "n": n, "r": r, "pval": p})
    return pd.DataFrame(rows, columns=[f"{rater}1", f"{rater}2", "n", "r", "pval"])


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")


def _alpha_matrix(
    data: pd.DataFrame, unit: str | Sequence[str], rater: str, rating: str, level: str
) -> tuple[np.ndarray, pd.Index]:
    """Reliability data (raters x units) of the pairable units, for alpha."""
    _check_level(level)
    if level == "nominal" and rating in data.columns and not pd.api.types.is_numeric_dtype(data[rating]):
        codes, _ = pd.factorize(data[rating], sort=True)
        data = data.assign(**{rating: np.where(codes < 0, np.nan, codes.astype(float))})
    matrix, raters = _wide_by_rater(data, unit, rater, rating)
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    matrix = matrix[:, pairable]
    if matrix.shape[1] == 0:
        raise ValueError("no unit was rated by at least two raters: alpha is undefined")
    return matrix, raters


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
    >>> from compendium.reliability import krippendorff_alpha
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


def _index_chunks(rng: np.random.Generator, n_units: int, n_boot: int) -> Iterator[np.ndarray]:
    """Bootstrap unit indices, ``n_boot x n_units``, drawn in fixed chunks.

    The chunking depends only on (n_units, n_boot), so that the vectorised
    bootstrap and the reference loop draw identical replicates from one seed.
    """
    size = max(1, _CHUNK_CELLS // max(n_units, 1))
    for start in range(0, n_boot, size):
        yield rng.integers(0, n_units, size=(min(size, n_boot - start), n_units))


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
    >>> from compendium.reliability import alpha_bootstrap_ci, simulate_crossed
    >>> data = simulate_crossed(30, 4, 3, seed=3, scale=(1, 5))
    >>> alpha_bootstrap_ci(data, n_boot=500, seed=1)[["alpha", "ci_low", "ci_high"]].round(3)
       alpha  ci_low  ci_high
    0  0.123   0.008    0.226
    """
    _check_boot(n_boot, ci)
    matrix, _ = _alpha_matrix(data, unit, rater, rating, level)
    engine = _AlphaBootstrap(matrix, level)
    point = _package_alpha(matrix, engine.domain, level)
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
    >>> from compendium.reliability import (alpha_bootstrap_ci,
    ...     alpha_bootstrap_ci_reference, simulate_crossed)
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
    >>> from compendium.reliability import pairwise_alpha, simulate_crossed
    >>> data = simulate_crossed(30, 4, 3, seed=3, scale=(1, 5))
    >>> pairwise_alpha(data).round(2)
      annotator1 annotator2  n_units  alpha     r
    0         A1         A2      120   0.17  0.23
    1         A1         A3      120  -0.00  0.27
    2         A2         A3      120   0.11  0.24
    """
    _check_level(level)
    units = _as_list(unit)
    _check_columns(data, [*units, rater, rating])
    pear = pairwise_pearson(data, unit=units, rater=rater, rating=rating)
    rows = []
    for a, b, n, r in pear[[f"{rater}1", f"{rater}2", "n", "r"]].itertuples(index=False):
        sub = data[data[rater].isin([a, b])]
        try:
            value = krippendorff_alpha(sub, unit=units, rater=rater, rating=rating, level=level)
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
    >>> from compendium.reliability import icc
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


# -------------------------------------------------------- ANOVA and G theory
def _cube(
    data: pd.DataFrame | np.ndarray, item: str, system: str, rater: str, rating: str
) -> tuple[np.ndarray, tuple[pd.Index, pd.Index, pd.Index]]:
    """The items x systems x raters array of a complete crossed design."""
    if isinstance(data, np.ndarray):
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
    >>> from compendium.reliability import anova_table, simulate_crossed
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


def system_f_tests(table: pd.DataFrame) -> pd.DataFrame:
    r"""F tests of the system effect against three error terms.

    * ``residual``: :math:`F = MS_s / MS_{psr}` on
      :math:`(n_s-1, (n_p-1)(n_s-1)(n_r-1))` df -- what a paired test over
      items on panel means does implicitly; treats the raters as fixed
      (df 7, 4046 in the paper).
    * ``system:annotator``: :math:`F = MS_s / MS_{sr}` on
      :math:`(n_s-1, (n_s-1)(n_r-1))` df -- the paper's test with
      annotators random (df 7, 14).
    * ``quasi``: with items *and* raters random, :math:`E(MS_s)` under the
      null is :math:`E(MS_{ps} + MS_{sr} - MS_{psr})`, so the quasi-F
      :math:`F' = MS_s / (MS_{ps} + MS_{sr} - MS_{psr})` with
      Satterthwaite's denominator df
      :math:`(MS_{ps} + MS_{sr} - MS_{psr})^2 / (MS_{ps}^2/df_{ps} +
      MS_{sr}^2/df_{sr} + MS_{psr}^2/df_{psr})` (not in the paper; NaN if the
      denominator is not positive).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`anova_table`.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``error`` (``residual``, ``system:annotator``,
        ``quasi``); columns ``F, df1, df2, pval`` (``scipy.stats.f.sf``).

    References
    ----------
    .. [1] F. E. Satterthwaite (1946). An approximate distribution of
       estimates of variance components. *Biometrics Bulletin* 2(6),
       110-114.

    Examples
    --------
    >>> from compendium.reliability import anova_table, simulate_crossed, system_f_tests
    >>> t = system_f_tests(anova_table(simulate_crossed(20, 3, 3, seed=0)))
    >>> t[["df1", "df2"]].round(1)
                       df1   df2
    error
    residual           2.0  76.0
    system:annotator   2.0   4.0
    quasi              2.0   6.7
    """
    table = _as_table(table, ITEM, SYSTEM, RATER, RATING)
    ms = {k: float(v) for k, v in table["MS"].items()}
    dfs = {k: float(v) for k, v in table["df"].items()}
    f = [ms["system"] / ms["residual"], ms["system"] / ms["system:annotator"]]
    df2 = [dfs["residual"], dfs["system:annotator"]]
    terms = ("item:system", "system:annotator", "residual")
    denom = ms["item:system"] + ms["system:annotator"] - ms["residual"]
    if denom > 0:
        f.append(ms["system"] / denom)
        df2.append(denom**2 / sum(ms[t] ** 2 / dfs[t] for t in terms))
    else:
        f.append(np.nan)
        df2.append(np.nan)
    f, df2 = np.array(f), np.array(df2)
    df1 = np.full(3, dfs["system"])
    return pd.DataFrame(
        {"F": f, "df1": df1, "df2": df2, "pval": stats.f.sf(f, df1, df2)},
        index=pd.Index(["residual", "system:annotator", "quasi"], name="error"),
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
    >>> from compendium.reliability import simulate_crossed, variance_components
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
    >>> from compendium.reliability import g_coefficient
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
    >>> from compendium.reliability import g_limit
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
    >>> from compendium.reliability import raters_needed
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
    >>> from compendium.reliability import decision_study
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


# -------------------------------------------------------- system comparisons
def pairwise_system_tests(
    data: pd.DataFrame,
    *,
    unit: Literal["item", "annotator"] = "item",
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Paired t-tests between every pair of systems, raw and Holm-corrected.

    * ``unit="item"``: over items, on each item's panel-mean score (the mean
      over raters) -- the conventional analysis, in which the raters are
      fixed (section 4.2: 19 of 28 pairs at .05, 13 after Holm).
    * ``unit="annotator"``: over raters, on each rater's mean score for the
      system (mean over items) -- the rater is the unit of replication,
      ``df = n_raters - 1`` (2 with three annotators).

    Pairs are compared on the units that have both systems.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements.
    unit : {"item", "annotator"}
        Unit of replication.
    item, system, rater, rating : str
        Column names.
    alpha : float
        Significance level of the flags (and of the Holm procedure).

    Returns
    -------
    pandas.DataFrame
        One row per system pair: ``<system>1, <system>2, unit, n, mean1,
        mean2, diff`` (mean1 - mean2 over the paired units), ``t, df, pval``
        (two-sided, :func:`scipy.stats.ttest_rel`), ``pval_holm``
        (``statsmodels`` ``multipletests(method="holm")`` over the pairs with
        a defined p), ``significant``, ``significant_holm``.

    References
    ----------
    .. [1] S. Holm (1979). A simple sequentially rejective multiple test
       procedure. *Scandinavian Journal of Statistics* 6(2), 65-70.

    Examples
    --------
    >>> from compendium.reliability import pairwise_system_tests, simulate_crossed
    >>> data = simulate_crossed(30, 4, 3, seed=0)
    >>> res = pairwise_system_tests(data, unit="annotator")
    >>> len(res), res["df"].unique().tolist()
    (6, [2.0])
    """
    if unit == "item":
        wide = _means_by(data, item, system, rating)
    elif unit == "annotator":
        wide = _means_by(data, rater, system, rating)
    else:
        raise ValueError(f"unit must be 'item' or 'annotator', got {unit!r}")
    rows = []
    for a, b in _pairs(wide.columns):
        x, y = wide[a].to_numpy(), wide[b].to_numpy()
        both = ~np.isnan(x) & ~np.isnan(y)
        x, y = x[both], y[both]
        n = len(x)
        if n >= 2 and np.ptp(x - y) > 0:
            res = stats.ttest_rel(x, y)
            t, p = float(res.statistic), float(res.pvalue)
        else:
            t = p = np.nan
        rows.append(
            {
                f"{system}1": a,
                f"{system}2": b,
                "unit": unit,
                "n": n,
                "mean1": x.mean() if n else np.nan,
                "mean2": y.mean() if n else np.nan,
                "diff": (x - y).mean() if n else np.nan,
                "t": t,
                "df": float(n - 1),
                "pval": p,
            }
        )
    out = pd.DataFrame(rows)
    out["pval_holm"] = np.nan
    ok = out["pval"].notna().to_numpy()
    if ok.any():
        out.loc[ok, "pval_holm"] = multipletests(out.loc[ok, "pval"].to_numpy(), alpha=alpha, method="holm")[1]
    out["significant"] = out["pval"] < alpha
    out["significant_holm"] = out["pval_holm"] < alpha
    return out


def sign_consistency(
    data: pd.DataFrame,
    *,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
) -> pd.DataFrame:
    """Whether every rater orders each pair of systems the same way.

    For each system pair, the difference of the two systems' mean scores is
    computed per rater; the pair is ``consistent`` when all raters give a
    difference of the same, non-zero sign (section 4.2: 5 of 28 pairs).
    The number of consistent pairs is ``sign_consistency(data).consistent.sum()``.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements.
    system, rater, rating : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        One row per system pair: ``<system>1, <system>2, n_raters``
        (raters who rated both), ``n_positive`` (raters scoring system 1
        higher), ``n_negative``, ``n_zero``, ``consistent``.

    Examples
    --------
    >>> import pandas as pd
    >>> from compendium.reliability import sign_consistency
    >>> df = pd.DataFrame({"system": ["x", "y", "z"] * 2, "annotator": ["A1"] * 3 + ["A2"] * 3,
    ...                    "rating": [3, 2, 1, 4, 1, 5]})
    >>> sign_consistency(df)[["system1", "system2", "consistent"]]
      system1 system2  consistent
    0       x       y        True
    1       x       z       False
    2       y       z       False
    """
    wide = _means_by(data, rater, system, rating)  # raters x systems
    rows = []
    for a, b in _pairs(wide.columns):
        d = (wide[a] - wide[b]).dropna().to_numpy()
        pos, neg = int((d > 0).sum()), int((d < 0).sum())
        rows.append(
            {
                f"{system}1": a,
                f"{system}2": b,
                "n_raters": len(d),
                "n_positive": pos,
                "n_negative": neg,
                "n_zero": len(d) - pos - neg,
                "consistent": len(d) > 0 and (pos == len(d) or neg == len(d)),
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------- panel dependence
def leave_one_annotator_out(
    data: pd.DataFrame,
    *,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
) -> pd.DataFrame:
    """Leaderboards of the full panel and of each panel without one rater.

    Section 4.4 / Table 2. A system's score is the mean of all ratings it
    received from the panel's raters (the MOS); rank 1 is best, ties share
    the best rank (``method="min"``).

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements.
    system, rater, rating : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        Columns ``panel`` (``"all"``, then ``"without <rater>"`` for each
        rater, sorted), ``<system>``, ``mean``, ``rank`` (int), ``winner``
        (the panel's rank-1 system; tied winners joined with ``" / "``).
        Within a panel, rows are in rank order.

    Examples
    --------
    >>> import pandas as pd
    >>> from compendium.reliability import leave_one_annotator_out
    >>> df = pd.DataFrame({"system": ["x", "y"] * 3, "annotator": ["A1", "A1", "A2", "A2", "A3", "A3"],
    ...                    "rating": [5, 1, 1, 4, 3, 3]})
    >>> leave_one_annotator_out(df)[["panel", "system", "rank", "winner"]]
            panel system  rank winner
    0         all      x     1      x
    1         all      y     2      x
    2  without A1      y     1      y
    3  without A1      x     2      y
    4  without A2      x     1      x
    5  without A2      y     2      x
    6  without A3      x     1      x
    7  without A3      y     2      x
    """
    _check_columns(data, [system, rater, rating])
    _no_missing_keys(data, [system, rater])
    _, raters = _codes(data[rater])
    if len(raters) < 2:
        raise ValueError("leave-one-out needs at least two raters")
    panels = [("all", data)] + [(f"without {r}", data[data[rater] != r]) for r in raters]
    frames = []
    for name, sub in panels:
        y = pd.Series(_numeric(sub[rating], rating), index=sub.index)
        means = y.groupby(sub[system].to_numpy(), sort=True, observed=True).mean().dropna()
        board = pd.DataFrame({system: means.index, "mean": means.to_numpy()})
        board["rank"] = board["mean"].rank(ascending=False, method="min").astype(int)
        board = board.sort_values(["rank", system], kind="stable")
        board.insert(0, "panel", name)
        board["winner"] = " / ".join(str(s) for s in board.loc[board["rank"] == 1, system])
        frames.append(board)
    return pd.concat(frames, ignore_index=True)


def kendall_between_raters(
    data: pd.DataFrame,
    *,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
) -> pd.DataFrame:
    """Kendall's tau between each pair of raters' system means (section 4.4).

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements.
    system, rater, rating : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        One row per rater pair: ``<rater>1, <rater>2, n_systems, tau``
        (tau-b, :func:`scipy.stats.kendalltau`), ``pval``.

    Examples
    --------
    >>> import pandas as pd
    >>> from compendium.reliability import kendall_between_raters
    >>> df = pd.DataFrame({"system": list("abc") * 2, "annotator": ["A1"] * 3 + ["A2"] * 3,
    ...                    "rating": [1, 2, 3, 3, 2, 1]})
    >>> kendall_between_raters(df)[["annotator1", "annotator2", "tau"]]
      annotator1 annotator2  tau
    0         A1         A2 -1.0
    """
    wide = _means_by(data, rater, system, rating)  # raters x systems
    rows = []
    for a, b in _pairs(wide.index):
        x, y = wide.loc[a].to_numpy(), wide.loc[b].to_numpy()
        both = ~np.isnan(x) & ~np.isnan(y)
        res = stats.kendalltau(x[both], y[both])
        rows.append(
            {
                f"{rater}1": a,
                f"{rater}2": b,
                "n_systems": int(both.sum()),
                "tau": float(res.statistic),
                "pval": float(res.pvalue),
            }
        )
    return pd.DataFrame(rows, columns=[f"{rater}1", f"{rater}2", "n_systems", "tau", "pval"])


def split_half_reliability(
    data: pd.DataFrame,
    *,
    n_splits: int = 200,
    seed: int | np.random.Generator | None = 0,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
) -> pd.DataFrame:
    r"""Split-half reliability of the system means over random rater halves.

    For each split the raters are shuffled and cut into two halves of
    :math:`h = \lfloor R/2 \rfloor` raters (one rater left out when R is
    odd); the Pearson correlation :math:`r` of the two halves' system means
    is stepped up to the full panel of R raters by the Spearman-Brown
    formula :math:`\rho_R = k r / (1 + (k-1) r)` with :math:`k = R/h` (the
    familiar :math:`2r/(1+r)` for even R). Meant for the simulated panels
    of 9 and 27 raters; with 3 raters each half is a single rater.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements.
    n_splits : int
        Number of random splits.
    seed : int, numpy.random.Generator or None
        Seeds ``numpy.random.default_rng``.
    system, rater, rating : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        One row per split: ``split, r`` (half-panel correlation),
        ``reliability`` (Spearman-Brown, full panel). Summarise with the
        mean or median.

    References
    ----------
    .. [1] C. Spearman (1910); W. Brown (1910). *British Journal of
       Psychology* 3(3), 271-295 and 296-322.

    Examples
    --------
    >>> from compendium.reliability import simulate_crossed, split_half_reliability
    >>> data = simulate_crossed(40, 6, 8, seed=0, system_means=[0, .2, .4, .6, .8, 1.0])
    >>> out = split_half_reliability(data, n_splits=20, seed=1)
    >>> out.shape, bool(out["reliability"].mean() > out["r"].mean())
    ((20, 3), True)
    """
    wide = _means_by(data, rater, system, rating)
    n_raters = len(wide.index)
    if n_raters < 2:
        raise ValueError("split-half reliability needs at least two raters")
    if int(n_splits) != n_splits or n_splits < 1:
        raise ValueError("n_splits must be a positive integer")
    _check_columns(data, [system, rater, rating])
    y = _numeric(data[rating], rating)
    r_codes, _ = _codes(data[rater])
    s_codes, s_levels = _codes(data[system])
    n_s = len(s_levels)
    # Per-(rater, system) sums and counts: half means are pooled judgement means.
    sums = np.zeros((n_raters, n_s))
    counts = np.zeros((n_raters, n_s))
    ok = ~np.isnan(y)
    np.add.at(sums, (r_codes[ok], s_codes[ok]), y[ok])
    np.add.at(counts, (r_codes[ok], s_codes[ok]), 1.0)
    rng = np.random.default_rng(seed)
    h = n_raters // 2
    k = n_raters / h
    rows = []
    for split in range(int(n_splits)):
        perm = rng.permutation(n_raters)
        a, b = perm[:h], perm[h : 2 * h]
        with np.errstate(invalid="ignore", divide="ignore"):
            ma = sums[a].sum(axis=0) / counts[a].sum(axis=0)
            mb = sums[b].sum(axis=0) / counts[b].sum(axis=0)
        both = np.isfinite(ma) & np.isfinite(mb)
        if both.sum() >= 2 and np.ptp(ma[both]) > 0 and np.ptp(mb[both]) > 0:
            r = float(np.corrcoef(ma[both], mb[both])[0, 1])
        else:
            r = np.nan
        rows.append({"split": split, "r": r, "reliability": k * r / (1 + (k - 1) * r)})
    return pd.DataFrame(rows)


# --------------------------------------------------------------- simulation
def split_half_class_match(
    data: pd.DataFrame,
    *,
    n_bins: int = 5,
    n_splits: int = 1000,
    seed: int | np.random.Generator | None = 0,
    scale: tuple[float, float] = (1.0, 5.0),
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
) -> pd.DataFrame:
    r"""Split-half class match percentage (SHCMP), adapted to rating scales.

    The reliability statistic of the Brighter emotion datasets (Muhammad et
    al., 2025, section 2.3 and appendix B; after Mohammad, 2024), applied
    to the outputs of a rating study: each split shuffles the raters and
    cuts them into two halves (one rater left out when their number is
    odd); each unit (item, system) gets the mean rating of each half; the
    scale ``[lo, hi]`` is cut into ``n_bins`` equal bins and a unit
    *matches* when both half-means fall in the same bin
    (:math:`|c_1 - c_2| < 1` in the appendix's notation). SHCMP is the
    percentage of matching units, averaged over ``n_splits`` splits.

    Brighter bins a [-3, 3] intensity score; here the bins cover the rating
    scale. The appendix's prose says "same or adjacent bins" but its
    formula counts the same bin only; this follows the formula.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements of a crossed design with at least two raters.
    n_bins : int
        Number of equal bins over ``scale``.
    n_splits : int
        Number of random rater splits (1,000 in Brighter).
    seed : int, numpy.random.Generator or None
        Seeds ``numpy.random.default_rng``.
    scale : tuple of float
        The lowest and highest possible rating.
    item, system, rater, rating : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        One row: ``n_raters, n_units, n_bins, n_splits, shcmp`` (percent)
        and ``sd`` over splits.

    Examples
    --------
    >>> d = pd.DataFrame({"sentence_id": [1, 1, 2, 2], "system": "s", "annotator": ["A1", "A2"] * 2,
    ...                   "rating": [1, 1, 5, 2]})
    >>> float(split_half_class_match(d, n_splits=10, seed=0)["shcmp"].iloc[0])
    50.0
    """
    if n_bins < 1:
        raise ValueError(f"n_bins must be at least 1, got {n_bins}")
    lo, hi = scale
    units, _ = _unit_codes(data, [item, system])
    raters, rater_levels = _codes(data[rater])
    n_raters = len(rater_levels)
    if n_raters < 2:
        raise ValueError("split-half class match needs at least two raters")
    matrix = np.full((units.max() + 1, n_raters), np.nan)
    matrix[units, raters] = _numeric(data[rating], rating)
    rng = np.random.default_rng(seed)
    half = n_raters // 2
    width = (hi - lo) / n_bins
    shares = np.empty(n_splits)
    for split in range(n_splits):
        order = rng.permutation(n_raters)
        first = np.nanmean(matrix[:, order[:half]], axis=1)
        second = np.nanmean(matrix[:, order[half : 2 * half]], axis=1)
        bins = [np.clip(np.floor((m - lo) / width), 0, n_bins - 1) for m in (first, second)]
        shares[split] = 100.0 * np.mean(bins[0] == bins[1])
    return pd.DataFrame(
        {
            "n_raters": [n_raters],
            "n_units": [matrix.shape[0]],
            "n_bins": [n_bins],
            "n_splits": [n_splits],
            "shcmp": [float(shares.mean())],
            "sd": [float(shares.std(ddof=1)) if n_splits > 1 else 0.0],
        }
    )


def panel_summary(
    data: pd.DataFrame,
    *,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
) -> dict:
    """Everything a reader watches change when annotators leave the panel.

    The leaderboard of the panel (system means and ranks), the system F
    test against the residual and against system x rater, the variance
    components, and the generalisability coefficient of the system mean at
    the panel's own size. Used by the chapter's explorers: the ipywidgets
    one in Jupyter and the precomputed one in the static book.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements of a complete crossed design.
    item, system, rater, rating : str
        Column names.

    Returns
    -------
    dict
        ``leaderboard`` (DataFrame: system, mean, rank), ``winner``,
        ``n_raters``, and, with two raters or more, ``F_vs_residual``,
        ``p_vs_residual``, ``F_vs_interaction``, ``p_vs_interaction`` and
        ``G`` (None with a single rater, where they are undefined).
    """
    means = data.groupby(system, observed=True)[rating].mean()
    leaderboard = pd.DataFrame({system: means.index.astype(str), "mean": means.to_numpy()})
    leaderboard["rank"] = leaderboard["mean"].rank(ascending=False, method="min").astype(int)
    leaderboard = leaderboard.sort_values(["rank", system]).reset_index(drop=True)
    n_raters = int(data[rater].nunique())
    n_items = int(data[item].nunique())
    out = {"leaderboard": leaderboard, "winner": leaderboard[system].iloc[0], "n_raters": n_raters}
    if n_raters < 2:  # no rater facet: the three-way decomposition is undefined
        out.update(F_vs_residual=None, p_vs_residual=None, F_vs_interaction=None, p_vs_interaction=None, G=None)
        return out
    table = anova_table(data, item=item, system=system, rater=rater, rating=rating)
    tests = system_f_tests(table)
    components = variance_components(table)
    out.update(
        F_vs_residual=float(tests.loc["residual", "F"]),
        p_vs_residual=float(tests.loc["residual", "pval"]),
        F_vs_interaction=float(tests.loc["system:annotator", "F"]),
        p_vs_interaction=float(tests.loc["system:annotator", "pval"]),
        G=float(g_coefficient(components, n_items, n_raters)),
    )
    return out


def simulate_crossed(
    n_items: int,
    n_systems: int,
    n_raters: int,
    *,
    components: Mapping[str, float] | None = None,
    system_means: Sequence[float] | None = None,
    mean: float = 3.0,
    scale: tuple[int, int] | None = None,
    seed: int | np.random.Generator | None = 0,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
) -> pd.DataFrame:
    r"""Draw a fully crossed item x system x rater study from variance components.

    :math:`y_{psr} = \mu + \mu_s + a_p + b_r + (ab)_{ps} + (ac)_{pr} +
    (bc)_{sr} + e_{psr}`, each random term normal with mean 0 and the
    variance in ``components`` (keys of :data:`RANDOM_COMPONENTS`; missing
    keys are 0). With ``scale=(lo, hi)`` the latent score is rounded to the
    nearest integer and clipped to the scale.

    Parameters
    ----------
    n_items, n_systems, n_raters : int
        Design size. Items are numbered from 1, systems named ``S1``...,
        raters ``A1``... (the schema's annotator names when there are three).
    components : mapping, optional
        Variances; default item 0.2, annotator 0.3, item:system 0.1,
        item:annotator 0.3, system:annotator 0.05, residual 0.5.
    system_means : sequence of float, optional
        Fixed system effects :math:`\mu_s` (default: 0, -0.1, ..., evenly
        spaced down by 0.1).
    mean : float
        Grand mean :math:`\mu`.
    scale : (int, int), optional
        Round and clip to this integer scale.
    seed : int, numpy.random.Generator or None
        Seeds ``numpy.random.default_rng``.
    item, system, rater, rating : str
        Output column names.

    Returns
    -------
    pandas.DataFrame
        Tidy judgements, one row per cell, items varying slowest.

    Examples
    --------
    >>> from compendium.reliability import simulate_crossed
    >>> simulate_crossed(2, 2, 3, seed=0, scale=(1, 5)).shape
    (12, 4)
    """
    default = {
        "item": 0.2,
        "annotator": 0.3,
        "item:system": 0.1,
        "item:annotator": 0.3,
        "system:annotator": 0.05,
        "residual": 0.5,
    }
    comp = default if components is None else {k: float(components.get(k, 0.0)) for k in RANDOM_COMPONENTS}
    unknown = set(components or {}) - set(RANDOM_COMPONENTS)
    if unknown:
        raise ValueError(f"unknown component(s) {sorted(unknown)}; use {RANDOM_COMPONENTS}")
    if any(v < 0 for v in comp.values()):
        raise ValueError("variances must be non-negative")
    n_p, n_s, n_r = int(n_items), int(n_systems), int(n_raters)
    if system_means is None:
        mu_s = -0.1 * np.arange(n_s)
    else:
        mu_s = np.asarray(system_means, dtype=float)
        if mu_s.shape != (n_s,):
            raise ValueError(f"system_means must have {n_s} values")
    rng = np.random.default_rng(seed)
    sd = {k: math.sqrt(v) for k, v in comp.items()}
    y = (
        mean
        + mu_s[None, :, None]
        + sd["item"] * rng.standard_normal((n_p, 1, 1))
        + sd["annotator"] * rng.standard_normal((1, 1, n_r))
        + sd["item:system"] * rng.standard_normal((n_p, n_s, 1))
        + sd["item:annotator"] * rng.standard_normal((n_p, 1, n_r))
        + sd["system:annotator"] * rng.standard_normal((1, n_s, n_r))
        + sd["residual"] * rng.standard_normal((n_p, n_s, n_r))
    )
    raters = list(ANNOTATORS) if n_r == len(ANNOTATORS) else [f"A{i + 1}" for i in range(n_r)]
    p, s, r = np.meshgrid(np.arange(n_p), np.arange(n_s), np.arange(n_r), indexing="ij")
    out = pd.DataFrame(
        {
            item: p.ravel() + 1,
            system: np.array([f"S{i + 1}" for i in range(n_s)], dtype=object)[s.ravel()],
            rater: np.array(raters, dtype=object)[r.ravel()],
            rating: y.ravel(),
        }
    )
    if scale is not None:
        lo, hi = scale
        out[rating] = np.clip(np.rint(out[rating].to_numpy()), lo, hi).astype(int)
    return out
