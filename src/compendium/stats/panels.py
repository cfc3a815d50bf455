"""How a leaderboard depends on its panel of raters.

Section 4.2 and 4.4 of the paper: paired tests between systems
(:func:`pairwise_system_tests`), whether every rater orders a pair alike
(:func:`sign_consistency`), the leaderboards without each rater
(:func:`leave_one_annotator_out`), Kendall's tau between raters
(:func:`kendall_between_raters`), split-half reliability and SHCMP for
larger simulated panels (:func:`split_half_reliability`,
:func:`split_half_class_match`), and the summary the chapter's explorers
recompute (:func:`panel_summary`). Conventions as in
:mod:`compendium.stats`.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from compendium.stats import pairs
from compendium.stats.tidy import (
    ITEM,
    RATER,
    RATING,
    SYSTEM,
    _checked,
    _codes,
    _means_by,
    _numeric,
    _pairs,
    _unit_codes,
)
from compendium.stats.gtheory import anova_table, g_coefficient, system_f_tests, variance_components
from compendium.stats.multiplicity import adjust

__all__ = [
    "pairwise_system_tests",
    "sign_consistency",
    "leave_one_annotator_out",
    "kendall_between_raters",
    "split_half_reliability",
    "split_half_class_match",
    "panel_summary",
]


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
        (:func:`compendium.stats.multiplicity.adjust`, Holm, over the pairs
        with a defined p), ``significant``, ``significant_holm``.

    References
    ----------
    .. [1] S. Holm (1979). A simple sequentially rejective multiple test
       procedure. *Scandinavian Journal of Statistics* 6(2), 65-70.

    Examples
    --------
    >>> from compendium.stats.panels import pairwise_system_tests
    >>> from compendium.simulate.crossed import simulate_crossed
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
        out.loc[ok, "pval_holm"] = adjust(out.loc[ok, "pval"].to_numpy(), "holm")
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
    >>> from compendium.stats.panels import sign_consistency
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


def leave_one_annotator_out(
    data: pd.DataFrame,
    *,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    higher_is_better: bool = True,
) -> pd.DataFrame:
    """Leaderboards of the full panel and of each panel without one rater.

    Section 4.4 / Table 2. A system's score is the mean of all ratings it
    received from the panel's raters (the MOS); rank 1 is best, ties share
    the best rank (``method="min"``; means equal to 12 significant digits
    are tied). All panels are computed at once, each from the full panel's
    sums by subtraction.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements.
    system, rater, rating : str
        Column names.
    higher_is_better : bool, default True
        False for error-type scores (e.g. MQM penalties), where the lowest
        mean ranks first.

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
    >>> from compendium.stats.panels import leave_one_annotator_out
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
    data = _checked(data, [system, rater, rating], keys=[system, rater])
    r_codes, raters = _codes(data[rater])
    if len(raters) < 2:
        raise ValueError("leave-one-out needs at least two raters")
    s_codes, systems = _codes(data[system])
    y = _numeric(data[rating], rating)
    ok = ~np.isnan(y)
    R, S = len(raters), len(systems)
    # Each panel's sums by subtraction from the full panel's, in extended precision (a loop over panels, one
    # pandas groupby each, took minutes for 10^4 raters). A mean may then differ from a direct sum's in its last
    # bit, so ranks are taken on the means to 12 significant digits: means equal but for rounding share a rank.
    cell = r_codes[ok].astype(np.int64) * S + s_codes[ok]
    sums = np.bincount(cell, weights=y[ok], minlength=R * S).reshape(R, S).astype(np.longdouble)
    counts = np.bincount(cell, minlength=R * S).reshape(R, S)
    total_sum, total_n = sums.sum(axis=0), counts.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (np.vstack([total_sum, total_sum - sums]) / np.vstack([total_n, total_n - counts])).astype(float)
        means[np.vstack([total_n, total_n - counts]) == 0] = np.nan
        unit = 10.0 ** (np.floor(np.log10(np.abs(means))) - 11)
        rounded = np.where(means == 0, 0.0, np.round(means / unit) * unit)
    ranks = pd.DataFrame(rounded).rank(axis=1, method="min", ascending=not higher_is_better).to_numpy()
    panel_names = np.array(["all"] + [f"without {r}" for r in raters], dtype=object)
    panel, code = np.nonzero(~np.isnan(means))
    rank = ranks[panel, code].astype(int)
    order = np.lexsort((code, rank, panel))  # within a panel: by rank, then system
    panel, code, rank = panel[order], code[order], rank[order]
    labels = np.asarray(systems, dtype=object)
    firsts = code[rank == 1]
    winners = pd.Series(labels[firsts].astype(str)).groupby(panel[rank == 1]).agg(" / ".join)
    return pd.DataFrame({"panel": panel_names[panel], system: labels[code], "mean": means[panel, code],
                         "rank": rank, "winner": winners.reindex(panel).to_numpy()})


def kendall_between_raters(
    data: pd.DataFrame,
    *,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    max_pairs: int | None = None,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Kendall's tau between each pair of raters' system means (section 4.4).

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements.
    system, rater, rating : str
        Column names.
    max_pairs : int, optional
        Above this many pairs of raters, a uniform sample of this many
        (seeded by ``seed``; :func:`compendium.stats.pairs.choose_pairs`).
        By default every pair.

    Returns
    -------
    pandas.DataFrame
        One row per rater pair: ``<rater>1, <rater>2, n_systems, tau``
        (tau-b), ``pval``, as :func:`scipy.stats.kendalltau` gives them,
        computed for all pairs at once
        (:func:`compendium.stats.pairs.kendall_tau_b`).
        ``attrs["pairs_total"]`` is the panel's number of pairs.

    Examples
    --------
    >>> import pandas as pd
    >>> from compendium.stats.panels import kendall_between_raters
    >>> df = pd.DataFrame({"system": list("abc") * 2, "annotator": ["A1"] * 3 + ["A2"] * 3,
    ...                    "rating": [1, 2, 3, 3, 2, 1]})
    >>> kendall_between_raters(df)[["annotator1", "annotator2", "tau"]]
      annotator1 annotator2  tau
    0         A1         A2 -1.0
    """
    wide = _means_by(data, rater, system, rating)  # raters x systems
    i, j, total = pairs.choose_pairs(len(wide), max_pairs, seed)
    n, tau, p = pairs.kendall_tau_b(wide.to_numpy(dtype=float), i, j)
    table = pd.DataFrame({f"{rater}1": list(wide.index[i]), f"{rater}2": list(wide.index[j]), "n_systems": n,
                          "tau": tau, "pval": p}, columns=[f"{rater}1", f"{rater}2", "n_systems", "tau", "pval"])
    table.attrs["pairs_total"] = int(total)
    return table


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
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> from compendium.stats.panels import split_half_reliability
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
    data = _checked(data, [system, rater, rating])
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
        ``G`` (None with a single rater, where they are undefined); ``rater_variance`` (the raters' leniency,
        ANOVA, truncated at 0) and ``system_variance`` (the unbiased variance of the true system means, the
        ``"corrected"`` one of :func:`~compendium.stats.gtheory.variance_components`), None likewise.
    """
    means = data.groupby(system, observed=True)[rating].mean()
    leaderboard = pd.DataFrame({system: means.index.astype(str), "mean": means.to_numpy()})
    leaderboard["rank"] = leaderboard["mean"].rank(ascending=False, method="min").astype(int)
    leaderboard = leaderboard.sort_values(["rank", system]).reset_index(drop=True)
    n_raters = int(data[rater].nunique())
    n_items = int(data[item].nunique())
    out = {"leaderboard": leaderboard, "winner": leaderboard[system].iloc[0], "n_raters": n_raters}
    if n_raters < 2:  # no rater facet: the three-way decomposition is undefined
        out.update(F_vs_residual=None, p_vs_residual=None, F_vs_interaction=None, p_vs_interaction=None, G=None,
                   rater_variance=None, system_variance=None)
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
        rater_variance=float(components.loc["annotator", "variance"]),
        system_variance=float(variance_components(table, system_variance="corrected").loc["system", "variance"]),
    )
    return out
