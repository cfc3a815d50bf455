"""What the ratings actually track: output length (paper section 5, appendix B).

The paper's section 5 shows that the mean opinion score (MOS) of a system is
largely the number of emojis it emits, and that an ordering which conditions
on length reverses the leaderboard. This module computes every number of
that section from tidy tables, and the segmentation check of appendix B:

* :func:`emoji_counts`, :func:`segmentation_inflation` -- per-output emoji
  counts (graphemes and naive code points, from :mod:`compendium.emoji`) and
  how much per-codepoint counting inflates them, overall and per system
  (appendix B: +15.0 %, from +5.4 % to +31.5 %);
* :func:`system_summary`, :func:`count_mos_fit`, :func:`ordering_correlation`
  -- Table 3 and Figure 2(a): MOS with a bootstrap CI, mean emoji count, EAD
  and the length-matched win rate, their ranks, and how well the mean count
  predicts MOS over systems (rho = .90, R^2 = .787);
* :func:`length_mixed_model`, :func:`per_annotator_slopes`,
  :func:`mos_spread` -- the judgement-level slope of rating on emoji count
  with crossed item and annotator random intercepts (beta = 0.159 per
  emoji), the same slope per annotator, and the best-worst MOS spread
  expressed in emojis;
* :func:`length_matched_comparisons`, :func:`matched_win_rates` -- the
  within-item comparison restricted to outputs of equal length (2,599
  comparisons; Gemini-2.0-Flash first with 0.603 [0.540, 0.664]);
* :func:`annotator_length_correlation` -- per annotator, the rank
  correlation of that annotator's system means with output length.

Conventions
-----------
Every function takes tidy DataFrames and returns a tidy DataFrame. The
column names of the inputs are keyword arguments, so the same functions run
on any fully or partly crossed item x system x rater study given one length
per output (this is what the ``audit`` command relies on):

``item="sentence_id"``, ``system="system"``, ``rater="annotator"``,
``rating="rating"``, ``length="graphemes"``.

``ratings`` has one row per judgement (``item, system, rater, rating``);
``lengths`` one row per output (``item, system, length``), for instance the
output of :func:`emoji_counts` (pass ``length="codepoints"`` for the naive
count). Every rated output must have a length; judgements with a missing
rating are dropped. Key columns of the results keep the caller's names;
computed columns have fixed names (documented per function). Ranks are
1 = best (highest value), ties get the smallest rank (``method="min"``).
System order, wherever an order is needed (ties, the ``a``/``b`` side of a
comparison), is the category order of a categorical column, else the order
of :data:`compendium.schema.SYSTEMS` when every system is one of those,
else order of first appearance.

References
----------
.. [Zheng2023] L. Zheng et al., "Judging LLM-as-a-judge with MT-Bench and
   Chatbot Arena", NeurIPS Datasets and Benchmarks, 2023 (verbosity bias).
.. [Dubois2024] Y. Dubois, B. Galambosi, P. Liang and T. B. Hashimoto,
   "Length-controlled AlpacaEval: a simple way to debias automatic
   evaluators", arXiv:2404.04475, 2024.
.. [Bates2015] D. Bates, M. Maechler, B. Bolker and S. Walker, "Fitting
   linear mixed-effects models using lme4", Journal of Statistical
   Software 67(1), 2015 (the profiled REML criterion used here).
.. [Baayen2008] R. H. Baayen, D. J. Davidson and D. M. Bates, "Mixed-effects
   modeling with crossed random effects for subjects and items", Journal of
   Memory and Language 59(4), 2008.
.. [Wilson1927] E. B. Wilson, "Probable inference, the law of succession,
   and statistical inference", JASA 22(158), 1927.
.. [Efron1993] B. Efron and R. J. Tibshirani, *An Introduction to the
   Bootstrap*, Chapman & Hall, 1993.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from . import mixed, schema
from .emoji import count_series
from .simulate.toy import toy_study

__all__ = [
    "OVERALL",
    "SCORES",
    "TIE_RULES",
    "emoji_counts",
    "segmentation_inflation",
    "system_summary",
    "count_mos_fit",
    "ordering_correlation",
    "length_mixed_model",
    "LENGTH_MODELS",
    "length_models",
    "SOUNDER_COLUMNS",
    "sounder_rows",
    "per_annotator_slopes",
    "mos_spread",
    "length_matched_comparisons",
    "matched_win_rates",
    "annotator_length_correlation",
    "without_length_slope",
    "toy_study",
]

#: Label of the all-systems row of :func:`segmentation_inflation`.
OVERALL = "overall"

#: What :func:`length_matched_comparisons` compares for each output.
SCORES = ("panel_mean", "sum", "per_rater")

#: How :func:`length_matched_comparisons` scores a tie.
TIE_RULES = ("half", "drop", "loss")

#: Two scores closer than this are a tie (panel means are ratios of small
#: integers, so exact ties are common and must not be split by rounding).
_TIE_TOL = 1e-9

# Internal canonical column names.
_I, _S, _R, _Y, _X = "item", "system", "rater", "rating", "count"


# --- input handling -------------------------------------------------------------


def _require(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(
            f"{what} has no column(s) {missing}; it has {list(frame.columns)} "
            "(pass the column names as keyword arguments: item=, system=, rater=, rating=, length=)"
        )


def _plain(s: pd.Series) -> pd.Series:
    """A key column with categoricals turned into their values."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return s.astype(s.cat.categories.dtype)
    return s


def _levels(s: pd.Series) -> list:
    """Order of the systems: categorical order, schema order, or first appearance."""
    present = pd.unique(s.dropna())
    if isinstance(s.dtype, pd.CategoricalDtype):
        keep = set(present)
        return [c for c in s.cat.categories if c in keep]
    if all(v in schema.SYSTEMS for v in present):
        keep = set(present)
        return [v for v in schema.SYSTEMS if v in keep]
    return list(present)


def _lengths(lengths: pd.DataFrame, item: str, system: str, length: str) -> pd.DataFrame:
    _require(lengths, [item, system, length], "lengths")
    out = pd.DataFrame(
        {
            _I: _plain(lengths[item]).to_numpy(),
            _S: _plain(lengths[system]).to_numpy(),
            _X: pd.to_numeric(lengths[length]).astype(float).to_numpy(),
        }
    )
    dup = out.duplicated([_I, _S])
    if dup.any():
        first = out.loc[dup, [_I, _S]].iloc[0].tolist()
        raise ValueError(f"lengths has {int(dup.sum())} duplicated ({item}, {system}) rows, e.g. {first}")
    return out


def _judgements(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame | None,
    *,
    item: str,
    system: str,
    rater: str,
    rating: str,
    length: str,
) -> tuple[pd.DataFrame, list]:
    """Judgement-level frame with canonical columns item, system, rater, rating[, count]."""
    _require(ratings, [item, system, rater, rating], "ratings")
    j = pd.DataFrame(
        {
            _I: _plain(ratings[item]).to_numpy(),
            _S: _plain(ratings[system]).to_numpy(),
            _R: _plain(ratings[rater]).to_numpy(),
            _Y: pd.to_numeric(ratings[rating]).astype(float).to_numpy(),
        }
    )
    order = _levels(ratings[system])
    j = j[j[_Y].notna()].reset_index(drop=True)
    if j.empty:
        raise ValueError("ratings has no non-missing rating")
    if lengths is not None:
        lt = _lengths(lengths, item, system, length)
        j = j.merge(lt, on=[_I, _S], how="left", validate="many_to_one")
        miss = j[_X].isna()
        if miss.any():
            first = j.loc[miss, [_I, _S]].drop_duplicates()
            raise ValueError(
                f"{len(first)} rated outputs have no {length!r} in lengths, "
                f"e.g. ({item}, {system}) = {first.iloc[0].tolist()}"
            )
    return j, order


def _rank(values: pd.Series) -> pd.Series:
    """1 = highest; ties share the smallest rank; NaN stays missing."""
    return values.rank(ascending=False, method="min").astype("Int64")


def _per_system(obj: Any, system: str, columns: Sequence[str], what: str) -> pd.DataFrame:
    """A per-system table (Series, mapping or DataFrame) indexed by system."""
    if isinstance(obj, Mapping):
        obj = pd.Series(dict(obj))
    if isinstance(obj, pd.Series):
        frame = obj.astype(float).rename(columns[0]).to_frame()
    elif isinstance(obj, pd.DataFrame):
        frame = obj.set_index(system) if system in obj.columns else obj
        _require(frame, columns[:1], what)
        frame = frame[[c for c in columns if c in frame.columns]]
    else:
        raise TypeError(f"{what} must be a Series, a mapping or a DataFrame, got {type(obj).__name__}")
    frame.index = pd.Index(_plain(pd.Series(frame.index)).to_numpy())
    return frame


# --- appendix B: counting -------------------------------------------------------


def emoji_counts(
    generations: pd.DataFrame,
    *,
    item: str = "sentence_id",
    system: str = "system",
    output: str = "output",
) -> pd.DataFrame:
    """Per output, the emoji grapheme count and the naive code-point count.

    Implements the counting of the paper's appendix B by calling
    :func:`compendium.emoji.count_series` (UAX #29 grapheme clusters judged
    against UTS #51; the naive count is every non-ASCII, non-whitespace
    code point). A missing output counts 0.

    Parameters
    ----------
    generations : DataFrame
        One row per output, with the raw response in ``output``.
    item, system, output : str
        Column names.

    Returns
    -------
    DataFrame
        ``item, system, graphemes, codepoints`` (int64), one row per row of
        ``generations``, in its order. This is the ``lengths`` argument of
        the other functions (``length="graphemes"`` by default).

    Examples
    --------
    >>> g = pd.DataFrame({"sentence_id": ["s1", "s1"], "system": ["x", "y"],
    ...                   "output": ["😂😂 ok", "👩🏽\\u200d💻"]})
    >>> emoji_counts(g)
      sentence_id system  graphemes  codepoints
    0          s1      x          2           2
    1          s1      y          1           4
    """
    _require(generations, [item, system, output], "generations")
    counts = count_series(generations[output])
    return pd.DataFrame(
        {
            item: generations[item].to_numpy(),
            system: generations[system].to_numpy(),
            "graphemes": counts["graphemes"].to_numpy(),
            "codepoints": counts["codepoints"].to_numpy(),
        }
    )


def segmentation_inflation(
    generations: pd.DataFrame,
    *,
    system: str = "system",
    output: str = "output",
) -> pd.DataFrame:
    """Inflation of the mean emoji count by naive per-codepoint counting.

    Appendix B of the paper: per-codepoint segmentation inflates the mean
    emoji count by 15.0 % overall, unevenly across systems (+5.4 %
    Claude-3-Haiku to +31.5 % DeepSeek-V3.2), so it reorders the systems by
    length instead of rescaling them. The inflation of a set of outputs is
    ``(mean codepoints / mean graphemes - 1) * 100``, a ratio of means (not
    a mean of per-output ratios, which is undefined for outputs without
    emoji).

    Parameters
    ----------
    generations : DataFrame
        Raw responses (column ``output``), counted with :func:`emoji_counts`;
        or a table that already has ``graphemes`` and ``codepoints`` columns
        (e.g. the output of :func:`emoji_counts`), which is used as is. The
        paper's figure is over all generated outputs; pass a subset (e.g.
        the rated items) to restrict it.
    system, output : str
        Column names.

    Returns
    -------
    DataFrame
        One row for all outputs (``system`` = :data:`OVERALL`) followed by
        one per system: ``system, n_outputs, mean_graphemes,
        mean_codepoints, inflation_pct, rank_graphemes, rank_codepoints,
        rank_shift``. Ranks are 1 = largest mean count among the systems
        (missing on the overall row); ``rank_shift = rank_codepoints -
        rank_graphemes``.

    Examples
    --------
    >>> g = pd.DataFrame({"system": ["x", "x", "y"],
    ...                   "output": ["👍🏿", "❤️", "😂😂"]})
    >>> segmentation_inflation(g)[["system", "mean_graphemes", "mean_codepoints", "inflation_pct"]]
        system  mean_graphemes  mean_codepoints  inflation_pct
    0  overall        1.333333              2.0           50.0
    1        x        1.000000              2.0          100.0
    2        y        2.000000              2.0            0.0
    """
    if "graphemes" in generations.columns and "codepoints" in generations.columns:
        _require(generations, [system], "generations")
        counts = generations[["graphemes", "codepoints"]].astype(float)
    else:
        _require(generations, [system, output], "generations")
        counts = count_series(generations[output]).astype(float)
    sys_col = _plain(generations[system])
    frame = pd.DataFrame({_S: sys_col.to_numpy(), "g": counts["graphemes"].to_numpy(), "c": counts["codepoints"].to_numpy()})
    order = _levels(generations[system])
    per = frame.groupby(_S, sort=False).agg(n_outputs=("g", "size"), mean_graphemes=("g", "mean"), mean_codepoints=("c", "mean"))
    per = per.loc[order]
    overall = pd.DataFrame(
        {"n_outputs": [len(frame)], "mean_graphemes": [frame["g"].mean()], "mean_codepoints": [frame["c"].mean()]},
        index=[OVERALL],
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        for t in (per, overall):
            t["inflation_pct"] = (t["mean_codepoints"] / t["mean_graphemes"] - 1.0) * 100.0
    per["rank_graphemes"] = _rank(per["mean_graphemes"])
    per["rank_codepoints"] = _rank(per["mean_codepoints"])
    per["rank_shift"] = per["rank_codepoints"] - per["rank_graphemes"]
    out = pd.concat([overall, per])
    for c in ("rank_graphemes", "rank_codepoints", "rank_shift"):
        out[c] = out[c].astype("Int64")
    out["n_outputs"] = out["n_outputs"].astype("int64")
    out.index.name = system
    return out.reset_index()


# --- Table 3 --------------------------------------------------------------------


def _mos_ci(j: pd.DataFrame, order: list, *, ci: str, n_boot: int, seed: int | None, level: float) -> pd.DataFrame:
    """MOS and its CI per system, resampling items (annotators held fixed)."""
    items = pd.Index(pd.unique(j[_I]))
    ii = items.get_indexer(j[_I])
    ss = pd.Index(order).get_indexer(j[_S])
    n_i, n_s = len(items), len(order)
    sums = np.zeros((n_i, n_s))
    cnts = np.zeros((n_i, n_s))
    np.add.at(sums, (ii, ss), j[_Y].to_numpy())
    np.add.at(cnts, (ii, ss), 1.0)
    mos = sums.sum(0) / cnts.sum(0)
    a = (1.0 - level) / 2.0
    if ci == "bootstrap":
        rng = np.random.default_rng(seed)
        w = rng.multinomial(n_i, np.full(n_i, 1.0 / n_i), size=n_boot).astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            boot = (w @ sums) / (w @ cnts)
        lo, hi = np.nanquantile(boot, [a, 1.0 - a], axis=0)
    elif ci == "t":
        with np.errstate(divide="ignore", invalid="ignore"):
            panel = np.where(cnts > 0, sums / cnts, np.nan)
        n = np.sum(cnts > 0, axis=0)
        se = np.nanstd(panel, axis=0, ddof=1) / np.sqrt(n)
        half = stats.t.ppf(1.0 - a, n - 1) * se
        lo, hi = mos - half, mos + half
    else:
        raise ValueError(f"ci must be 'bootstrap' or 't', got {ci!r}")
    return pd.DataFrame(
        {
            "n_items": (cnts > 0).sum(0).astype("int64"),
            "n_judgements": cnts.sum(0).astype("int64"),
            "mos": mos,
            "mos_ci_low": lo,
            "mos_ci_high": hi,
        },
        index=pd.Index(order),
    )


def _mean_counts(
    j: pd.DataFrame, lengths: pd.DataFrame, order: list, *, count_over: str, item: str, system: str, length: str
) -> pd.DataFrame:
    if count_over == "rated":
        outs = j[[_I, _S, _X]].drop_duplicates([_I, _S])
    elif count_over == "all":
        outs = _lengths(lengths, item, system, length)
        outs = outs[outs[_X].notna()]
    else:
        raise ValueError(f"count_over must be 'rated' or 'all', got {count_over!r}")
    g = outs.groupby(_S, sort=False)[_X].agg(["mean", "size"])
    return pd.DataFrame({"mean_count": g["mean"], "n_counted": g["size"].astype("int64")}).reindex(order)


def system_summary(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame,
    *,
    ead: pd.Series | pd.DataFrame | Mapping | None = None,
    win_rates: pd.Series | pd.DataFrame | Mapping | None = None,
    count_over: str = "rated",
    ci: str = "bootstrap",
    n_boot: int = 5000,
    seed: int | None = 0,
    level: float = 0.95,
    item: str = "sentence_id",
    system: str = "system",
    rater: str = "annotator",
    rating: str = "rating",
    length: str = "graphemes",
) -> pd.DataFrame:
    """Per-system MOS, mean emoji count, EAD and matched win rate, with ranks (Table 3).

    The paper's Table 3 orders the systems by raw MOS and sets beside it the
    mean number of emojis (which tracks MOS almost perfectly, section 5),
    emoji-affect decodability (EAD, section 6) and the within-item
    length-matched win rate (:func:`matched_win_rates`), which reorders the
    table. This is the length-bias check of [Zheng2023]_ and [Dubois2024]_
    applied to a 1-5 emoji output space.

    Parameters
    ----------
    ratings : DataFrame
        One row per judgement: ``item, system, rater, rating``.
    lengths : DataFrame
        One row per output: ``item, system, length`` (e.g.
        :func:`emoji_counts`). Every rated output must be present.
    ead : Series, mapping or DataFrame, optional
        EAD per system (a Series/mapping indexed by system, or a DataFrame
        with a ``system`` column or index and an ``ead`` column).
    win_rates : Series, mapping or DataFrame, optional
        Length-matched win rates: the output of :func:`matched_win_rates`
        (columns ``win_rate, ci_low, ci_high``), or a Series of rates.
    count_over : {"rated", "all"}, default "rated"
        Outputs the mean count is taken over. ``"rated"`` (default): the
        rated outputs only, each output once (not once per judgement) --
        the quantity Table 3 and Figure 2(a) relate to MOS. ``"all"``:
        every row of ``lengths`` of the system (e.g. all generated outputs,
        rated or not).
    ci : {"bootstrap", "t"}, default "bootstrap"
        MOS confidence interval. ``"bootstrap"``: percentile interval of
        ``n_boot`` item-bootstrap replicates (appendix B: 5,000 for MOS
        CIs); items are resampled with replacement, jointly for all
        systems, and MOS recomputed as the mean of all judgements of the
        resampled items [Efron1993]_. ``"t"``: MOS +- t(n-1) x SE, with SE
        the standard error over items of the per-item panel means. Both
        hold the annotators fixed, so they are conditional on this panel:
        section 4 of the paper shows that the uncertainty due to the
        choice of annotators is much larger.
    n_boot : int, default 5000
        Bootstrap replicates.
    seed : int or None, default 0
        Seed of the bootstrap (``numpy.random.default_rng``).
    level : float, default 0.95
        Confidence level of the MOS CI.
    item, system, rater, rating, length : str
        Column names.

    Returns
    -------
    DataFrame
        One row per system, sorted by MOS (best first): ``system, n_items,
        n_judgements, mos, mos_ci_low, mos_ci_high, mean_count,
        n_counted``, then ``ead`` if given, then ``win_rate, win_ci_low,
        win_ci_high`` if given, then ``rank_mos, rank_count`` (1 = most
        emojis) and ``rank_ead``, ``rank_win`` if given. MOS is the mean of
        all judgements of the system.

    Examples
    --------
    >>> ratings, lengths = toy_study(n_items=30, seed=1)
    >>> t = system_summary(ratings, lengths, n_boot=200)
    >>> t[["system", "mos", "mean_count", "rank_mos", "rank_count"]].round(2)
      system   mos  mean_count  rank_mos  rank_count
    0     s4  2.93        2.97         1           1
    1     s2  2.83        2.43         2           3
    2     s3  2.69        2.77         3           2
    3     s1  2.63        2.00         4           4
    """
    j, order = _judgements(ratings, lengths, item=item, system=system, rater=rater, rating=rating, length=length)
    table = _mos_ci(j, order, ci=ci, n_boot=n_boot, seed=seed, level=level)
    table = table.join(_mean_counts(j, lengths, order, count_over=count_over, item=item, system=system, length=length))
    ranks = {"rank_mos": _rank(table["mos"]), "rank_count": _rank(table["mean_count"])}
    if ead is not None:
        e = _per_system(ead, system, ["ead"], "ead")
        table["ead"] = e["ead"].reindex(table.index).astype(float)
        ranks["rank_ead"] = _rank(table["ead"])
    if win_rates is not None:
        w = _per_system(win_rates, system, ["win_rate", "ci_low", "ci_high"], "win_rates")
        table["win_rate"] = w["win_rate"].reindex(table.index).astype(float)
        for src, dst in (("ci_low", "win_ci_low"), ("ci_high", "win_ci_high")):
            table[dst] = w[src].reindex(table.index).astype(float) if src in w.columns else np.nan
        ranks["rank_win"] = _rank(table["win_rate"])
    for k, v in ranks.items():
        table[k] = v
    table["_pos"] = np.arange(len(table))
    table = table.sort_values(["mos", "_pos"], ascending=[False, True]).drop(columns="_pos")
    table.index.name = system
    return table.reset_index()


def count_mos_fit(summary: pd.DataFrame, *, x: str = "mean_count", y: str = "mos") -> pd.DataFrame:
    """How well the mean emoji count predicts MOS over systems (Figure 2a).

    Section 5: the mean number of emojis a system emits predicts its MOS
    with Spearman rho = .90 (p = .002) and accounts for 78.7 % of the
    between-system variance, i.e. the R^2 of the ordinary least-squares
    line MOS ~ count fitted to the system means (with one predictor and an
    intercept, R^2 is the squared Pearson correlation).

    Parameters
    ----------
    summary : DataFrame
        One row per system, e.g. :func:`system_summary`.
    x, y : str
        Predictor and outcome columns.

    Returns
    -------
    DataFrame
        One row: ``n_systems, rho, rho_p`` (Spearman, two-sided), ``r,
        r2`` (Pearson and its square), ``intercept, slope`` (the OLS line,
        for plotting) and ``slope_p``.

    Examples
    --------
    >>> s = pd.DataFrame({"mean_count": [1.0, 2.0, 3.0, 4.0], "mos": [2.0, 2.5, 2.9, 3.6]})
    >>> count_mos_fit(s)[["rho", "r2", "intercept", "slope"]].round(3)
       rho     r2  intercept  slope
    0  1.0  0.987       1.45   0.52
    """
    _require(summary, [x, y], "summary")
    d = summary[[x, y]].astype(float).dropna()
    if len(d) < 3:
        raise ValueError(f"need at least 3 systems with both {x!r} and {y!r}, got {len(d)}")
    rho, rho_p = stats.spearmanr(d[x], d[y])
    lr = stats.linregress(d[x], d[y])
    return pd.DataFrame(
        {
            "n_systems": [len(d)],
            "rho": [float(rho)],
            "rho_p": [float(rho_p)],
            "r": [float(lr.rvalue)],
            "r2": [float(lr.rvalue) ** 2],
            "intercept": [float(lr.intercept)],
            "slope": [float(lr.slope)],
            "slope_p": [float(lr.pvalue)],
        }
    )


def ordering_correlation(summary: pd.DataFrame, *, x: str = "win_rate", y: str = "mos") -> pd.DataFrame:
    """Spearman correlation between two system orderings of a summary table.

    Section 5: the length-matched ordering correlates with the raw MOS
    ordering at rho = 0.12 (p = 0.78). Systems missing either value are
    left out.

    Parameters
    ----------
    summary : DataFrame
        One row per system, e.g. :func:`system_summary` with ``win_rates``.
    x, y : str
        The two columns (default: matched win rate and MOS).

    Returns
    -------
    DataFrame
        One row: ``x, y, n_systems, rho, p``.

    Examples
    --------
    >>> s = pd.DataFrame({"win_rate": [0.4, 0.5, 0.6], "mos": [3.0, 2.0, 1.0]})
    >>> ordering_correlation(s)
              x    y  n_systems  rho    p
    0  win_rate  mos          3 -1.0  0.0
    """
    _require(summary, [x, y], "summary")
    d = summary[[x, y]].astype(float).dropna()
    rho, p = stats.spearmanr(d[x], d[y]) if len(d) >= 2 else (np.nan, np.nan)
    return pd.DataFrame({"x": [x], "y": [y], "n_systems": [len(d)], "rho": [float(rho)], "p": [float(p)]})


# --- mixed model ----------------------------------------------------------------


def _crossed_lmm(y: np.ndarray, X: np.ndarray, factors: Sequence[np.ndarray], *, reml: bool = True) -> dict[str, Any]:
    """Linear model with crossed random intercepts, by the profiled (RE)ML of lme4.

    ``y = X beta + sum_k Z_k b_k + e`` with ``b_k ~ N(0, s2 theta_k^2 I)``
    and ``e ~ N(0, s2 I)``, fitted by :func:`compendium.mixed.fit_lmm`
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
    item: str = "sentence_id",
    system: str = "system",
    rater: str = "annotator",
    rating: str = "rating",
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
    item: str = "sentence_id",
    system: str = "system",
    rater: str = "annotator",
    rating: str = "rating",
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

    Both are fitted by REML (:func:`compendium.mixed.fit_lmm`) and tested
    with Satterthwaite's degrees of freedom as lmerTest computes them
    (:func:`compendium.mixed.fixed_effect_test`) [Bates2015]_; values
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
                "paper_value": f"{paper['slope']:.3f} (t = {paper['t']:.1f}, df = {paper['df']:.0f}, p = {paper['p']:.2g})",
                "sounder_method": "REML, random annotator slope + item, output, annotator intercepts; Satterthwaite df",
                "sounder_value": f"{sound['slope']:.3f} (t = {sound['t']:.2f}, df = {sound['df']:.1f}, p = {sound['p']:.2g})",
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
    item: str = "sentence_id",
    system: str = "system",
    rater: str = "annotator",
    rating: str = "rating",
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
            {rater: r, "n_obs": n, "n_items": n_items, "slope": slope, "se": se, "stat": stat, "df": float(df), "p": p, "method": method}
        )
    return pd.DataFrame(rows)


def mos_spread(summary: pd.DataFrame, slope: float | pd.DataFrame, *, system: str = "system") -> pd.DataFrame:
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


# --- length-matched comparison -------------------------------------------------


def length_matched_comparisons(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame,
    *,
    score: str = "panel_mean",
    tie_rule: str = "half",
    item: str = "sentence_id",
    system: str = "system",
    rater: str = "annotator",
    rating: str = "rating",
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
    system: str = "system",
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
    ties = comparisons["outcome"].eq("tie").to_numpy() if "outcome" in comparisons.columns else np.zeros(len(comparisons), bool)
    long = pd.DataFrame(
        {
            system: np.r_[comparisons[a].to_numpy(dtype=object), comparisons[b].to_numpy(dtype=object)],
            "points": np.r_[comparisons["points_a"].to_numpy(dtype=float), comparisons["points_b"].to_numpy(dtype=float)],
            "tie": np.r_[ties, ties],
        }
    )
    order = _levels(pd.Series(long[system]))
    t = long.groupby(system, sort=False).agg(wins=("points", "sum"), ties=("tie", "sum"), comparisons=("points", "size"))
    t = t.reindex([s for s in order if s in t.index])
    t["ties"] = t["ties"].astype("int64")
    t["comparisons"] = t["comparisons"].astype("int64")
    t["win_rate"] = t["wins"] / t["comparisons"]
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
    item: str = "sentence_id",
    system: str = "system",
    rater: str = "annotator",
    rating: str = "rating",
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


# --- toy data -------------------------------------------------------------------


def without_length_slope(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame,
    slopes: Mapping[Any, float],
    *,
    item: str = "sentence_id",
    system: str = "system",
    rater: str = "annotator",
    rating: str = "rating",
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
