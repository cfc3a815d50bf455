"""Each rater against the rest, and each system's mean with an interval over items and raters.

Two diagnostics the audit reports for every rating study, whatever its design:

* :func:`rater_vs_rest` -- for each rater, Pearson's *r* between their rating
  of an output and the mean of the other raters' ratings of the same output,
  and the mean offset between the two (a lenient rater has a positive
  offset). A rater who disagrees with everyone, or who is systematically
  harsher, shows here before they move a leaderboard.
* :func:`system_means` -- each system's mean rating with a percentile
  interval from a two-way (pigeonhole) bootstrap that resamples items and
  raters independently (both are samples of what could have been rated and
  who could have rated it), vectorised over replicates.

Conventions as in :mod:`compendium.stats` (tidy frames, one row per rating,
missing ratings as NaN).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from compendium.stats.tidy import ITEM, RATER, RATING, SYSTEM, Ratings, _as_list, _checked
from compendium.stats.tidy import _cube as _tidy_cube

__all__ = ["rater_vs_rest", "system_means", "system_mean_intervals"]


def _cube(data: pd.DataFrame | Ratings, item: str, system: str, rater: str, rating: str):
    """Ratings as an (items, systems, raters) array, NaN where missing, and the three label lists, levels in
    order of first appearance (a :class:`Ratings`' cached cube)."""
    if isinstance(data, Ratings):
        data.require([item, system, rater, rating])
        cube, items, systems, raters = data.cube()
    else:
        cube, items, systems, raters = _tidy_cube(data, item, system, rater, rating, sort=False)
    return cube, list(items), list(systems), list(raters)


def rater_vs_rest(data: pd.DataFrame | Ratings, *, unit: str | Sequence[str] = (ITEM, SYSTEM), rater: str = RATER,
                  rating: str = RATING) -> pd.DataFrame:
    """Each rater against the mean of the other raters on the outputs both rated.

    Parameters
    ----------
    data : pandas.DataFrame
        Tidy judgements, one row per rating (NaN: missing).
    unit : str or sequence of str
        The columns that identify an output (default item and system).
    rater, rating : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        One row per rater, in order of first appearance: ``<rater>``,
        ``n_units`` (outputs the rater rated that at least one other rater
        rated too), ``r`` (Pearson's r between the rater's rating and the
        others' mean rating of each such output; NaN with fewer than three
        outputs or no variation) and ``offset`` (the mean of rater minus
        others: positive for a rater more lenient than the rest).

    Examples
    --------
    >>> df = pd.DataFrame({"sentence_id": [1, 1, 2, 2, 3, 3], "system": ["s"] * 6,
    ...                    "annotator": ["A", "B"] * 3, "rating": [1, 2, 2, 3, 3, 4]})
    >>> rater_vs_rest(df)[["annotator", "n_units", "r", "offset"]].to_dict("records")[0]
    {'annotator': 'A', 'n_units': 3, 'r': 1.0, 'offset': -1.0}
    """
    unit = _as_list(unit)
    if isinstance(data, Ratings) and unit == [data.item, data.system]:
        # the study's cube, (item, system) outputs as rows; outputs nobody rated are rows of NaN, used by no one
        cube, _, _, raters = _cube(data, data.item, data.system, rater, rating)
        matrix = cube.reshape(-1, len(raters))
    else:
        data = _checked(data, [*unit, rater, rating])
        keys = pd.MultiIndex.from_frame(data[unit]) if len(unit) > 1 else pd.Index(data[unit[0]])
        codes, _ = pd.factorize(keys)
        raters = pd.unique(data[rater])
        column = pd.Index(raters).get_indexer(data[rater])
        matrix = np.full((codes.max() + 1, len(raters)), np.nan)
        matrix[codes, column] = data[rating].to_numpy(dtype=float, na_value=np.nan)
    present = ~np.isnan(matrix)
    total = np.where(present, matrix, 0.0).sum(axis=1)
    count = present.sum(axis=1)
    rows = []
    for k, name in enumerate(raters):
        others = count - present[:, k]
        use = present[:, k] & (others > 0)
        own = matrix[use, k]
        rest = (total[use] - own) / others[use]
        r = np.nan
        if use.sum() >= 3 and own.std() > 0 and rest.std() > 0:
            r = float(np.corrcoef(own, rest)[0, 1])
        rows.append({rater: name, "n_units": int(use.sum()), "r": r,
                     "offset": float(np.mean(own - rest)) if use.any() else np.nan})
    return pd.DataFrame(rows)


def system_means(data: pd.DataFrame | Ratings, *, item: str = ITEM, system: str = SYSTEM, rater: str = RATER,
                 rating: str = RATING, n_boot: int = 2000, seed: int | None = 0, ci: float = 0.95,
                 block: int = 100) -> pd.DataFrame:
    """Each system's mean rating with a two-way (items and raters) bootstrap percentile interval.

    Replicate ``b`` draws ``I`` items and ``R`` raters with replacement
    (``numpy.random.default_rng(seed)``: items first, then raters, for each
    block of replicates) and takes, for each system, the mean of the ratings
    of the drawn items by the drawn raters, each counted as often as its item
    and rater were drawn. This resamples both facets a reader generalises
    over, which an item bootstrap alone would not: the "pigeonhole"
    bootstrap of crossed random factors (A. B. Owen, "The pigeonhole
    bootstrap", *Annals of Applied Statistics* 1(2), 2007).

    Returns
    -------
    pandas.DataFrame
        One row per system, in order of first appearance: ``<system>``,
        ``n`` (ratings), ``mean``, ``ci_low``, ``ci_high``, ``n_boot``.
    """
    if not isinstance(data, Ratings):
        _checked(data, [item, system, rater, rating])
    cube, _, systems, _ = _cube(data, item, system, rater, rating)
    present = ~np.isnan(cube)
    values = np.where(present, cube, 0.0)
    weights = present.astype(float)
    n_items, _, n_raters = cube.shape
    rng = np.random.default_rng(seed)
    reps = []
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        w = np.stack([np.bincount(row, minlength=n_items) for row in rng.integers(0, n_items, (size, n_items))])
        v = np.stack([np.bincount(row, minlength=n_raters) for row in rng.integers(0, n_raters, (size, n_raters))])
        num = np.einsum("bi,isr,br->bs", w, values, v, optimize=True)
        den = np.einsum("bi,isr,br->bs", w, weights, v, optimize=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            reps.append(num / den)
    boot = np.concatenate(reps, axis=0)
    low, high = np.nanquantile(boot, [(1 - ci) / 2, (1 + ci) / 2], axis=0)
    n = present.sum(axis=(0, 2))
    mean = values.sum(axis=(0, 2)) / n
    return pd.DataFrame({system: systems, "n": n.astype(int), "mean": mean, "ci_low": low, "ci_high": high,
                         "n_boot": int(n_boot)})


def system_mean_intervals(data: pd.DataFrame | Ratings, *, item: str = ITEM, system: str = SYSTEM,
                          rater: str = RATER, rating: str = RATING, ci: float = 0.95) -> pd.DataFrame:
    """Each system's mean rating with a t interval over items and raters, both random, on a complete design.

    System ``s``'s ratings form an items x raters table. In the two-way random-effects model of that table
    (item, rater and residual effects, here holding the item x system, system x rater and item x rater x
    system terms of the G study), the variance of its grand mean is ``(MS_item + MS_rater - MS_residual) /
    (n_items n_raters)``, estimated from the table's mean squares, with Satterthwaite's degrees of freedom
    ``(MS_item + MS_rater - MS_residual)^2 / (MS_item^2 / df_item + MS_rater^2 / df_rater + MS_residual^2 /
    df_residual)`` (F. E. Satterthwaite, "An approximate distribution of estimates of variance components",
    *Biometrics Bulletin* 2(6), 1946; R. K. Burdick and F. A. Graybill, *Confidence intervals on variance
    components*, 1992, ch. 3). It is what ``lmerTest`` gives for the intercept of ``lmer(rating ~ 1 + (1|item) +
    (1|rater))`` on that system's ratings when neither variance estimate is negative (tested against this
    package's REML fit and Satterthwaite test, themselves checked against lmerTest). The two-way bootstrap of
    :func:`system_means` covered the true mean only 78-90 % of the time on designs with three or four raters
    (``compendium audit --coverage``); this interval covered 94-95 %.

    Returns
    -------
    pandas.DataFrame
        One row per system, in order of first appearance: ``<system>``, ``n``, ``mean``, ``se``, ``df``,
        ``ci_low``, ``ci_high``.
    """
    from scipy import stats

    if not isinstance(data, Ratings):
        _checked(data, [item, system, rater, rating])
    cube, _, systems, _ = _cube(data, item, system, rater, rating)
    if np.isnan(cube).any():
        raise ValueError("system_mean_intervals needs the complete design (every item rated by every rater for "
                         "every system); on an incomplete one use compendium.stats.gstudy.system_mean_intervals")
    n_i, _, n_r = cube.shape
    grand = cube.mean(axis=(0, 2))
    rows = cube.mean(axis=2) - grand  # items x systems
    cols = cube.mean(axis=0) - grand[:, None]  # systems x raters
    ms_item = n_r * (rows**2).sum(axis=0) / (n_i - 1)
    ms_rater = n_i * (cols**2).sum(axis=1) / (n_r - 1)
    residual = cube - grand[None, :, None] - rows[:, :, None] - cols[None, :, :]
    df_res = (n_i - 1) * (n_r - 1)
    ms_res = (residual**2).sum(axis=(0, 2)) / df_res
    combined = np.maximum(ms_item + ms_rater - ms_res, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = combined**2 / (ms_item**2 / (n_i - 1) + ms_rater**2 / (n_r - 1) + ms_res**2 / df_res)
    se = np.sqrt(combined / (n_i * n_r))
    q = stats.t.ppf((1 + ci) / 2, df)
    return pd.DataFrame({system: systems, "n": np.full(len(systems), n_i * n_r), "mean": grand, "se": se,
                         "df": df, "ci_low": grand - q * se, "ci_high": grand + q * se})
