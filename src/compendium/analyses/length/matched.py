"""Length-matched comparisons and who is length-biased (paper section 5).

:func:`length_matched_comparisons`, :func:`matched_win_rates`,
:func:`annotator_length_correlation`; conventions and references in
:mod:`compendium.analyses.length`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from compendium.stats.tidy import ITEM, RATER, RATING, SYSTEM
from compendium.analyses.length._inputs import (
    SCORES,
    TIE_RULES,
    _I,
    _R,
    _S,
    _TIE_TOL,
    _X,
    _Y,
    _judgements,
    _levels,
    _rank,
    _require,
)
from compendium.simulate.toy import toy_study  # noqa: F401 (the examples)


# --- length-matched comparison -------------------------------------------------


def length_matched_comparisons(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame,
    *,
    score: str = "panel_mean",
    tie_rule: str = "half",
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    length: str = "graphemes",
) -> pd.DataFrame:
    """Within-item comparisons of systems that emitted the same number of emojis.

    Section 5 of the paper: "for every sentence and every pair of systems
    that happened to emit the same number of emojis on that sentence, we
    record which was rated higher. This yields 2,599 matched comparisons."
    Length is held fixed by design rather than adjusted for, in the spirit
    of length-controlled preference metrics [Dubois2024]_; nothing at the
    system level is conditioned on.

    Parameters
    ----------
    ratings, lengths : DataFrame
        As in :func:`system_summary`. Only rated outputs take part.
    score : {"panel_mean", "sum", "per_rater"}, default "panel_mean"
        What is compared. ``"panel_mean"`` (default): the mean over raters
        of each output's ratings, so one comparison per (item, pair).
        ``"sum"``: the sum (the same as the mean on a fully crossed design;
        differs when an output misses ratings). ``"per_rater"``: each
        rater's ratings separately, one comparison per (item, rater,
        pair), with a ``rater`` column. (Named ``score`` rather than
        ``rating``, because ``rating=`` is the rating column's name
        everywhere in this module.)
    tie_rule : {"half", "drop", "loss"}, default "half"
        A tie (equal scores, within 1e-9) gives ``"half"``: 0.5 points to
        each side and counts as a comparison; ``"drop"``: the comparison is
        removed; ``"loss"``: 0 points to each side, still counted.
    item, system, rater, rating, length : str
        Column names.

    Returns
    -------
    DataFrame
        One row per comparison: ``item, [rater,] system_a, system_b, count,
        score_a, score_b, outcome, points_a, points_b``. ``system_a`` is
        the earlier system in system order (module docstring); ``outcome``
        is ``"a"``, ``"b"`` or ``"tie"``; ``count`` is the shared length.
        Sorted by item (order of appearance), rater, then pair. Items where
        no two systems share a length contribute no row.

    Examples
    --------
    >>> r = pd.DataFrame({"sentence_id": ["i"] * 6, "system": ["x", "x", "y", "y", "z", "z"],
    ...                   "annotator": ["A", "B"] * 3, "rating": [4, 2, 3, 3, 5, 5]})
    >>> n = pd.DataFrame({"sentence_id": ["i"] * 3, "system": ["x", "y", "z"], "graphemes": [2, 2, 3]})
    >>> c = length_matched_comparisons(r, n)
    >>> c[["sentence_id", "system_a", "system_b", "count", "score_a", "score_b", "outcome"]]
      sentence_id system_a system_b  count  score_a  score_b outcome
    0           i        x        y    2.0      3.0      3.0     tie
    >>> c[["points_a", "points_b"]].to_numpy().tolist()
    [[0.5, 0.5]]
    >>> len(length_matched_comparisons(r, n, tie_rule="drop"))
    0
    """
    if score not in SCORES:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}")
    if tie_rule not in TIE_RULES:
        raise ValueError(f"tie_rule must be one of {TIE_RULES}, got {tie_rule!r}")
    if rating not in ratings.columns and rating in SCORES:
        raise KeyError(f"rating={rating!r} names the rating column; pass score={rating!r} to choose what is compared")
    j, order = _judgements(ratings, lengths, item=item, system=system, rater=rater, rating=rating, length=length)
    keys = [_I, _R] if score == "per_rater" else [_I]
    agg = "sum" if score == "sum" else "mean"
    sc = j.groupby(keys + [_S], sort=False).agg(score=(_Y, agg), count=(_X, "first")).reset_index()
    sc["pos"] = pd.Index(order).get_indexer(sc[_S])
    item_pos = pd.Index(pd.unique(j[_I]))
    pairs = sc.merge(sc, on=keys + ["count"], suffixes=("_a", "_b"))
    pairs = pairs[pairs["pos_a"] < pairs["pos_b"]]
    diff = pairs["score_a"].to_numpy() - pairs["score_b"].to_numpy()
    tie = np.abs(diff) <= _TIE_TOL
    outcome = np.where(tie, "tie", np.where(diff > 0, "a", "b"))
    tie_points = {"half": 0.5, "loss": 0.0, "drop": np.nan}[tie_rule]
    pa = np.where(tie, tie_points, (diff > 0).astype(float))
    pb = np.where(tie, tie_points, (diff < 0).astype(float))
    out = pd.DataFrame(
        {
            item: pairs[_I].to_numpy(),
            **({rater: pairs[_R].to_numpy()} if score == "per_rater" else {}),
            f"{system}_a": pairs[f"{_S}_a"].to_numpy(),
            f"{system}_b": pairs[f"{_S}_b"].to_numpy(),
            "count": pairs["count"].to_numpy(dtype=float),
            "score_a": pairs["score_a"].to_numpy(dtype=float),
            "score_b": pairs["score_b"].to_numpy(dtype=float),
            "outcome": outcome,
            "points_a": pa,
            "points_b": pb,
            "_i": item_pos.get_indexer(pairs[_I]),
            "_a": pairs["pos_a"].to_numpy(),
            "_b": pairs["pos_b"].to_numpy(),
        }
    )
    if tie_rule == "drop":
        out = out[out["outcome"] != "tie"]
    sort = ["_i"] + ([rater] if score == "per_rater" else []) + ["_a", "_b"]
    out = out.sort_values(sort, kind="stable").drop(columns=["_i", "_a", "_b"]).reset_index(drop=True)
    out.attrs["tie_rule"] = tie_rule
    out.attrs["score"] = score
    return out


def matched_win_rates(
    comparisons: pd.DataFrame,
    *,
    ci_method: str = "wilson",
    level: float = 0.95,
    system: str = SYSTEM,
) -> pd.DataFrame:
    """Per-system win rate over the length-matched comparisons, with a binomial CI.

    Section 5 and Figure 2(c): Gemini-2.0-Flash moves from sixth by MOS to
    first by length-matched win rate, 0.603 (95 % CI [0.540, 0.664]).

    Parameters
    ----------
    comparisons : DataFrame
        :func:`length_matched_comparisons` (its tie rule is already in
        ``points_a`` / ``points_b``).
    ci_method : str, default "wilson"
        Any ``method`` of ``statsmodels.stats.proportion.proportion_confint``.
        Default the Wilson score interval [Wilson1927]_ (the paper's
        interval for Gemini is reproduced exactly by Wilson with 143 wins
        in 237 comparisons; Clopper-Pearson, ``"beta"``, needs 152 in
        252). Under the ``"half"`` tie rule the number of wins can be a
        half-integer; it is passed as is (the Wilson formula is defined for
        any count).
    level : float, default 0.95
        Confidence level.
    system : str
        System column stem (``{system}_a``, ``{system}_b``).

    Returns
    -------
    DataFrame
        One row per system that takes part in at least one comparison,
        sorted by rank: ``system, wins`` (points), ``ties, comparisons,
        win_rate, ci_low, ci_high, rank`` (1 = highest win rate).

    Examples
    --------
    >>> c = pd.DataFrame({"system_a": ["x", "x", "y"], "system_b": ["y", "z", "z"],
    ...                   "points_a": [1.0, 0.5, 1.0], "points_b": [0.0, 0.5, 0.0],
    ...                   "outcome": ["a", "tie", "a"]})
    >>> matched_win_rates(c)[["system", "wins", "comparisons", "win_rate", "rank"]]
      system  wins  comparisons  win_rate  rank
    0      x   1.5            2      0.75     1
    1      y   1.0            2      0.50     2
    2      z   0.5            2      0.25     3
    """
    a, b = f"{system}_a", f"{system}_b"
    _require(comparisons, [a, b, "points_a", "points_b"], "comparisons")
    ties = (
        comparisons["outcome"].eq("tie").to_numpy()
        if "outcome" in comparisons.columns
        else np.zeros(len(comparisons), bool)
    )
    long = pd.DataFrame(
        {
            system: np.r_[comparisons[a].to_numpy(dtype=object), comparisons[b].to_numpy(dtype=object)],
            "points": np.r_[
                comparisons["points_a"].to_numpy(dtype=float), comparisons["points_b"].to_numpy(dtype=float)
            ],
            "tie": np.r_[ties, ties],
        }
    )
    order = _levels(pd.Series(long[system]))
    t = long.groupby(system, sort=False).agg(
        wins=("points", "sum"), ties=("tie", "sum"), comparisons=("points", "size")
    )
    t = t.reindex([s for s in order if s in t.index])
    t["ties"] = t["ties"].astype("int64")
    t["comparisons"] = t["comparisons"].astype("int64")
    t["win_rate"] = t["wins"] / t["comparisons"]
    from statsmodels.stats.proportion import proportion_confint  # here: statsmodels is the audit's extra 'lengths'

    lo, hi = proportion_confint(t["wins"].to_numpy(), t["comparisons"].to_numpy(), alpha=1.0 - level, method=ci_method)
    t["ci_low"], t["ci_high"] = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    t["rank"] = _rank(t["win_rate"])
    t["_pos"] = np.arange(len(t))
    t = t.sort_values(["rank", "_pos"]).drop(columns="_pos")
    t.index.name = system
    return t.reset_index()


# --- who is length-biased -------------------------------------------------------


def annotator_length_correlation(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame,
    *,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    length: str = "graphemes",
) -> pd.DataFrame:
    """Per rater, Spearman rho between the rater's system means and mean length.

    Section 5: "one annotator's system-level ranking correlates with output
    length at rho = 0.95; another's at rho = -0.26". For each rater, the
    system mean is the mean of that rater's ratings of the system, and the
    system's length is the mean count of the outputs that rater rated
    (each output once) -- on a fully crossed design the same for every
    rater, and the ``mean_count`` of :func:`system_summary`.

    Parameters
    ----------
    ratings, lengths : DataFrame
        As in :func:`system_summary`.
    item, system, rater, rating, length : str
        Column names.

    Returns
    -------
    DataFrame
        One row per rater (order of appearance): ``rater, n_systems, rho,
        p``.

    Examples
    --------
    >>> ratings, lengths = toy_study(n_items=40, seed=4, rater_slopes=(0.6, -0.6))
    >>> annotator_length_correlation(ratings, lengths)[["annotator", "rho"]]
      annotator  rho
    0        r1  1.0
    1        r2 -0.8
    """
    j, _ = _judgements(ratings, lengths, item=item, system=system, rater=rater, rating=rating, length=length)
    rows = []
    for r, d in j.groupby(_R, sort=False):
        means = d.groupby(_S, sort=False)[_Y].mean()
        counts = d.drop_duplicates([_I, _S]).groupby(_S, sort=False)[_X].mean().reindex(means.index)
        if len(means) >= 2:
            rho, p = stats.spearmanr(means.to_numpy(), counts.to_numpy())
        else:
            rho, p = np.nan, np.nan
        rows.append({rater: r, "n_systems": len(means), "rho": float(rho), "p": float(p)})
    return pd.DataFrame(rows)


