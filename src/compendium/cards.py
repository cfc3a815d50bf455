"""Per-system cards: every fact the paper establishes about one system, with its caveats.

The paper's argument is that a single leaderboard number -- the mean opinion
score (MOS) of a three-annotator panel -- does not identify a winner
(section 4), tracks output length (section 5), and is one of several
measurements that each need their own floor, interval and unit (sections 6
and 8). A *card* keeps these measurements side by side for one system instead
of collapsing them, in the spirit of model cards and of the "affective
passport" of the VIBE benchmark (a condition-explicit record of coverage,
uncertainty and limits rather than a leaderboard score).

This module computes nothing statistical of its own. It rearranges tables that
other modules already computed into one tidy *long* table of facts, derives the
caveats that apply from those facts by fixed rules, and renders a card as
HTML:

* :func:`coverage_facts`, :func:`emoji_profile_facts` -- outputs, share within
  the prompt's 1-5 emojis, retries (section 3, appendix A) and the distribution
  of emoji graphemes (appendix B, section 5);
* :func:`decodability_facts` -- EAD per language with its CI, floors and tier
  (section 6; from :func:`compendium.decodability.ead_table` and
  :func:`compendium.decodability.tiers`);
* :func:`preference_facts` -- MOS with its CI, per annotator, and the rank under
  each leave-one-annotator-out panel (section 4; from
  :func:`compendium.length.system_summary`, :func:`annotator_summaries` and
  :func:`compendium.reliability.leave_one_annotator_out`);
* :func:`length_matched_facts` -- the within-item length-matched win rate and
  the mean emoji count of the rated outputs (section 5; from
  :func:`compendium.length.matched_win_rates`);
* :func:`cost_facts` -- prompt tokens per source byte and per character,
  completion tokens per item and per emoji (section 8; from
  :func:`compendium.cost.token_rates` and :func:`compendium.cost.completion_costs`);
* :func:`caveats` -- the rules of :data:`CAVEAT_RULES`, applied to the facts;
* :func:`card_facts` -- all of the above in one table;
* :func:`card_html`, :func:`cards_html` -- one card, or a grid of cards.

The fact table
--------------
One row per fact: ``system, section, quantity, value, lo, hi, note``.
``section`` is one of :data:`SECTIONS`; ``quantity`` is a name from
:data:`QUANTITIES`, qualified by a language, an annotator or a panel in
brackets where it has one (``ead[bn]``, ``mos[A2]``, ``rank[without A1]``);
``value`` is a float (shares are fractions, not percentages); ``lo, hi`` are
the bounds of a 95 % interval where the source table has one, else NaN;
``note`` says how the value was obtained. Caveat rows have section
``"caveats"``, the rule's name as ``quantity``, the number that triggered the
rule as ``value`` and the sentence shown on the card as ``note``.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from . import schema

__all__ = [
    "COLUMNS",
    "SECTIONS",
    "QUANTITIES",
    "CAVEAT_RULES",
    "CAVEAT_THRESHOLDS",
    "caveat_rules",
    "annotator_summaries",
    "coverage_facts",
    "emoji_profile_facts",
    "decodability_facts",
    "preference_facts",
    "length_matched_facts",
    "cost_facts",
    "caveats",
    "card_facts",
    "split_quantity",
    "card_html",
    "cards_html",
    "shared_caveats",
]

#: Columns of the fact table, in order.
COLUMNS: tuple[str, ...] = ("system", "section", "quantity", "value", "lo", "hi", "note")

#: Sections of a card, in display order, with the paper section each comes from.
SECTIONS: dict[str, str] = {
    "coverage": "section 3 and appendix A",
    "emoji profile": "appendix B and section 5",
    "decodability": "section 6",
    "preference": "section 4",
    "length-matched": "section 5",
    "cost": "section 8",
    "caveats": "rules of compendium.cards.CAVEAT_RULES",
}

#: Base quantity name -> (label on the card, format kind).
QUANTITIES: dict[str, tuple[str, str]] = {
    "outputs": ("outputs", "count"),
    "valid_share": ("outputs with 1-5 emojis (the prompt's request)", "share"),
    "retry_share": ("items that needed a retry (attempts > 1)", "share"),
    "max_attempts": ("most attempts on one item", "count"),
    "emojis": ("outputs with this many emojis", "share"),
    "mean_emojis": ("mean emojis per output", "float2"),
    "ead": ("EAD (macro-F1)", "float3"),
    "majority_floor": ("majority-class floor", "float3"),
    "stratified_floor": ("stratified-random floor", "float3"),
    "null_p95": ("permutation null, 95th percentile", "float3"),
    "tier": ("EAD tier (1 = best)", "count"),
    "mos": ("MOS", "float2"),
    "mos_rank": ("rank by MOS (1 = best)", "count"),
    "rank": ("rank by MOS (1 = best)", "count"),
    "win_rate": ("length-matched win rate", "float3"),
    "win_rank": ("rank by length-matched win rate", "count"),
    "matched_comparisons": ("length-matched comparisons", "count"),
    "mean_emojis_rated": ("mean emojis on the rated items", "float2"),
    "count_rank": ("rank by mean emoji count (1 = most)", "count"),
    "prompt_tokens_per_byte": ("prompt tokens per source byte", "float3"),
    "prompt_tokens_per_char": ("prompt tokens per source character", "float3"),
    "completion_tokens": ("completion tokens per item", "float1"),
    "completion_tokens_per_emoji": ("completion tokens per emoji", "float2"),
    "panel_g": ("G of the panel's system means (unbiased system variance)", "float3"),
    "panel_g_observed": ("G as the paper computes it (observed variance of the system means)", "float3"),
}

#: The caveat rules: name -> (paper section, what fires them; thresholds in braces are :data:`CAVEAT_THRESHOLDS`).
CAVEAT_RULES: dict[str, tuple[str, str]] = {
    "mos_ci_overlap": ("section 4", "the MOS interval overlaps the MOS interval of at least one other system"),
    "panel_rank_shift": ("section 4.4", "leaving one annotator out moves the system {min_rank_shift} or more "
                                        "places from its MOS rank"),
    "length_rank_shift": ("section 5", "the length-matched rank differs from the MOS rank by {min_rank_shift} or "
                                       "more places"),
    "ead_within_language": ("section 6", "EAD is reported for more than one language"),
    "ead_near_floor": ("section 6", "in some language the lower end of the EAD interval is at or below a floor "
                                    "(majority class, stratified random, or the permutation null's 95th percentile)"),
    "reasoning_tokens": ("section 8", "completion tokens per emoji exceed {outlier_factor:g} times the median "
                                      "system's in some language"),
    "template_in_prompt": ("section 8", "prompt tokens per source byte exceed 1 in some language"),
    "unit_changes_order": ("section 8", "the languages' order by prompt tokens per byte differs from their order "
                                        "per character"),
    "invalid_outputs": ("appendix A", "some outputs fall outside the prompt's 1-5 emojis"),
    "retries": ("appendix A", "more than {retry_share_max:.0%} of the items needed a retry"),
}

#: Default thresholds of :func:`caveats`.
CAVEAT_THRESHOLDS: dict[str, float] = {"min_rank_shift": 1, "outlier_factor": 10.0, "retry_share_max": 0.05}

_QUALIFIED = re.compile(r"^(?P<base>[a-z0-9_]+)(?:\[(?P<qualifier>[^\]]+)\])?$")
_HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")


# --------------------------------------------------------------------------- helpers


def _row(system, section, quantity, value, lo=np.nan, hi=np.nan, note="") -> dict:
    return {"system": str(system), "section": section, "quantity": quantity,
            "value": float(value) if value is not None and not pd.isna(value) else np.nan,
            "lo": float(lo) if lo is not None and not pd.isna(lo) else np.nan,
            "hi": float(hi) if hi is not None and not pd.isna(hi) else np.nan,
            "note": note}


def _frame(rows: Sequence[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=list(COLUMNS))
    for c in ("value", "lo", "hi"):
        frame[c] = frame[c].astype(float)
    for c in ("system", "section", "quantity", "note"):
        frame[c] = frame[c].astype(object)
    return frame


def _require(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"{what} has no column(s) {missing}; it has {list(frame.columns)}")


def _systems_of(values) -> list[str]:
    """Systems in schema order, unknown names after them in order of appearance."""
    present = [str(v) for v in pd.unique(pd.Series(values).astype(str))]
    known = [s for s in schema.SYSTEMS if s in present]
    return known + [s for s in present if s not in known]


def _languages_of(values) -> list[str]:
    present = [str(v) for v in pd.unique(pd.Series(values).astype(str))]
    known = [lang for lang in schema.LANGUAGES if lang in present]
    return known + [lang for lang in present if lang not in known]


def _language_name(code: str) -> str:
    return schema.LANGUAGE_NAMES.get(code, code)


def split_quantity(quantity: str) -> tuple[str, str | None]:
    """Split ``"ead[bn]"`` into ``("ead", "bn")`` and ``"mos"`` into ``("mos", None)``.

    Examples
    --------
    >>> split_quantity("rank[without A1]")
    ('rank', 'without A1')
    >>> split_quantity("outputs")
    ('outputs', None)
    """
    match = _QUALIFIED.match(quantity)
    if match is None:
        raise ValueError(f"not a fact quantity: {quantity!r}")
    return match["base"], match["qualifier"]


def _pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


# --------------------------------------------------------------------------- inputs


def annotator_summaries(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame,
    *,
    n_boot: int = 5000,
    seed: int | None = 0,
    annotator: str = "annotator",
) -> pd.DataFrame:
    """Each annotator's MOS per system with an item-bootstrap CI (paper section 4, Table 2).

    Runs :func:`compendium.length.system_summary` on the judgements of one
    annotator at a time, so each annotator's MOS of a system (the mean of
    their ratings of it) gets the same percentile item-bootstrap interval as
    the panel's MOS in Table 3. Nothing is computed here beyond that call.

    Parameters
    ----------
    ratings : DataFrame
        One row per judgement: ``sentence_id, system, annotator, rating``.
    lengths : DataFrame
        One row per output: ``sentence_id, system, graphemes``
        (:func:`compendium.length.emoji_counts`).
    n_boot : int, default 5000
        Bootstrap replicates (appendix B: 5,000 for MOS CIs).
    seed : int or None, default 0
        Seed of every annotator's bootstrap.
    annotator : str
        Annotator column.

    Returns
    -------
    DataFrame
        One row per annotator x system: ``annotator, system, n_items, mos,
        mos_ci_low, mos_ci_high, rank_mos`` (the system's rank among this
        annotator's means, 1 = best).
    """
    from . import length

    _require(ratings, [annotator], "ratings")
    frames = []
    names = ratings[annotator]
    levels = list(names.cat.categories) if isinstance(names.dtype, pd.CategoricalDtype) else sorted(pd.unique(names))
    for who in levels:
        part = ratings[(names == who).to_numpy(dtype=bool)]
        if part.empty:
            continue
        summary = length.system_summary(part, lengths, n_boot=n_boot, seed=seed)
        frames.append(summary[["system", "n_items", "mos", "mos_ci_low", "mos_ci_high", "rank_mos"]]
                      .assign(annotator=str(who)))
    out = pd.concat(frames, ignore_index=True)
    out["system"] = out["system"].astype(str)
    return out[["annotator", "system", "n_items", "mos", "mos_ci_low", "mos_ci_high", "rank_mos"]]


# --------------------------------------------------------------------------- sections


def coverage_facts(outputs: pd.DataFrame, *, max_emojis: int = 5) -> pd.DataFrame:
    """Outputs, share within the prompt's request, and retries per system (section 3, appendix A).

    The prompt (appendix A) asks for one to five emojis; a response with no
    character above U+007F was retried, up to three attempts. A *valid*
    output here is one with between 1 and ``max_emojis`` emoji graphemes
    (appendix B's count). The retry share is the share of items with
    ``attempts > 1`` (the paper's per-system retry rate, 0.001-0.064).

    Parameters
    ----------
    outputs : DataFrame
        One row per output: ``system, attempts, graphemes`` (the generations
        with the grapheme count of :func:`compendium.length.emoji_counts`).
    max_emojis : int, default 5
        The most emojis the prompt allows.

    Returns
    -------
    DataFrame
        Fact rows (:data:`COLUMNS`), section ``"coverage"``: ``outputs``,
        ``valid_share``, ``retry_share``, ``max_attempts`` per system.

    Examples
    --------
    >>> o = pd.DataFrame({"system": ["x"] * 4, "attempts": [1, 1, 2, 3], "graphemes": [0, 2, 5, 7]})
    >>> coverage_facts(o)[["quantity", "value"]]
          quantity  value
    0      outputs    4.0
    1  valid_share    0.5
    2  retry_share    0.5
    3 max_attempts    3.0
    """
    _require(outputs, ["system", "attempts", "graphemes"], "outputs")
    system = outputs["system"].astype(str).to_numpy()
    rows = []
    for name in _systems_of(system):
        part = outputs[system == name]
        g = part["graphemes"].to_numpy(dtype=float)
        attempts = part["attempts"].to_numpy(dtype=float)
        valid = (g >= 1) & (g <= max_emojis)
        retried = attempts > 1
        rows += [
            _row(name, "coverage", "outputs", len(part), note="one per sentence"),
            _row(name, "coverage", "valid_share", valid.mean(),
                 note=f"{int(valid.sum())} of {len(part)} outputs have 1-{max_emojis} emoji graphemes"),
            _row(name, "coverage", "retry_share", retried.mean(),
                 note=f"{int(retried.sum())} of {len(part)} items needed more than one attempt"),
            _row(name, "coverage", "max_attempts", attempts.max(), note="the first try and up to two retries"),
        ]
    return _frame(rows)


def emoji_profile_facts(outputs: pd.DataFrame, *, max_emojis: int = 5) -> pd.DataFrame:
    """Distribution of the emoji count of a system's outputs (appendix B, section 5).

    Emojis are counted as graphemes (appendix B): a zero-width-joiner
    sequence or a skin-toned emoji is one. Section 5 shows that how many
    emojis a system emits is what its MOS tracks.

    Parameters
    ----------
    outputs : DataFrame
        One row per output: ``system, graphemes``.
    max_emojis : int, default 5
        Counts above it are pooled.

    Returns
    -------
    DataFrame
        Fact rows, section ``"emoji profile"``: ``emojis[0]``, ``emojis[1]``
        ... ``emojis[<max_emojis>]``, ``emojis[>max_emojis]`` (shares of the
        outputs, summing to 1) and ``mean_emojis``.

    Examples
    --------
    >>> o = pd.DataFrame({"system": ["x"] * 4, "graphemes": [1, 1, 3, 8]})
    >>> emoji_profile_facts(o, max_emojis=3)[["quantity", "value"]]
          quantity  value
    0    emojis[0]   0.00
    1    emojis[1]   0.50
    2    emojis[2]   0.00
    3    emojis[3]   0.25
    4   emojis[>3]   0.25
    5  mean_emojis   3.25
    """
    _require(outputs, ["system", "graphemes"], "outputs")
    system = outputs["system"].astype(str).to_numpy()
    rows = []
    for name in _systems_of(system):
        g = outputs.loc[system == name, "graphemes"].to_numpy(dtype=float)
        n = len(g)
        for k in range(max_emojis + 1):
            rows.append(_row(name, "emoji profile", f"emojis[{k}]", np.mean(g == k),
                             note=f"{int(np.sum(g == k))} of {n} outputs"))
        rows.append(_row(name, "emoji profile", f"emojis[>{max_emojis}]", np.mean(g > max_emojis),
                         note=f"{int(np.sum(g > max_emojis))} of {n} outputs"))
        rows.append(_row(name, "emoji profile", "mean_emojis", g.mean(), note="grapheme count, all outputs"))
    return _frame(rows)


def decodability_facts(ead: pd.DataFrame, *, tier_rule: str = "leader") -> pd.DataFrame:
    """EAD per language with its interval, floors, permutation null and tier (section 6).

    Parameters
    ----------
    ead : DataFrame
        :func:`compendium.decodability.ead_table`: ``language, system,
        n_items, macro_f1, majority_floor, stratified_floor``, and, if it was
        run with ``n_boot``, ``ci_lo, ci_hi`` (then tiers are formed with
        :func:`compendium.decodability.tiers`), with ``n_permutations``,
        ``null_mean, null_p95, null_p``.
    tier_rule : {"leader", "lowest"}, default "leader"
        Passed to :func:`compendium.decodability.tiers` (chapter 4 uses
        ``"leader"``).

    Returns
    -------
    DataFrame
        Fact rows, section ``"decodability"``, per system and language ``L``:
        ``ead[L]`` (with the bootstrap CI as ``lo, hi``), ``majority_floor[L]``,
        ``stratified_floor[L]``, and where available ``null_p95[L]`` and
        ``tier[L]``.
    """
    from . import decodability

    _require(ead, ["language", "system", "macro_f1", "majority_floor", "stratified_floor"], "ead")
    table = ead.assign(language=ead["language"].astype(str), system=ead["system"].astype(str))
    has_ci = {"ci_lo", "ci_hi"} <= set(table.columns)
    if has_ci:
        tiered = decodability.tiers(table, rule=tier_rule)
        table = table.merge(tiered[["language", "system", "tier"]], on=["language", "system"], how="left")
    rows = []
    for name in _systems_of(table["system"]):
        part = table[table["system"] == name].set_index("language")
        for lang in _languages_of(part.index):
            r = part.loc[lang]
            n = f"{int(r['n_items'])} items, " if "n_items" in part.columns else ""
            rows.append(_row(name, "decodability", f"ead[{lang}]", r["macro_f1"],
                             r["ci_lo"] if has_ci else np.nan, r["ci_hi"] if has_ci else np.nan,
                             note=f"{_language_name(lang)}: {n}5-fold CV macro-F1"
                                  + (", 95% item-bootstrap CI" if has_ci else "")))
            rows.append(_row(name, "decodability", f"majority_floor[{lang}]", r["majority_floor"],
                             note="always predicting the most frequent emotion"))
            rows.append(_row(name, "decodability", f"stratified_floor[{lang}]", r["stratified_floor"],
                             note="guessing with the class frequencies"))
            if "null_p95" in part.columns:
                note = "labels permuted, whole protocol rerun"
                if "null_mean" in part.columns:
                    note += f"; null mean {r['null_mean']:.3f}"
                if "null_p" in part.columns:
                    note += f"; p = {r['null_p']:.3g}"
                rows.append(_row(name, "decodability", f"null_p95[{lang}]", r["null_p95"], note=note))
            if has_ci:
                rows.append(_row(name, "decodability", f"tier[{lang}]", r["tier"],
                                 note=f"systems whose CI overlaps the tier leader's share its tier ({tier_rule} rule)"))
    return _frame(rows)


def preference_facts(
    mos: pd.DataFrame | None = None,
    annotator_mos: pd.DataFrame | None = None,
    loao: pd.DataFrame | None = None,
    g_study: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """MOS with its CI, each annotator's MOS, and the rank under each panel (section 4).

    Parameters
    ----------
    mos : DataFrame, optional
        :func:`compendium.length.system_summary`: ``system, n_items,
        n_judgements, mos, mos_ci_low, mos_ci_high, rank_mos``.
    annotator_mos : DataFrame, optional
        :func:`annotator_summaries`: ``annotator, system, mos, mos_ci_low,
        mos_ci_high``.
    loao : DataFrame, optional
        :func:`compendium.reliability.leave_one_annotator_out`: ``panel,
        system, mean, rank``.
    g_study : DataFrame, optional
        :func:`compendium.gtheory.g_study` of the panel: the reliability of
        the panel's system means, the same for every system's card.

    Returns
    -------
    DataFrame
        Fact rows, section ``"preference"``: ``mos`` (CI as ``lo, hi``) and
        ``mos_rank`` (from ``mos``, else from the full panel of ``loao``),
        ``mos[<annotator>]`` (CI) per annotator, ``rank[<panel>]`` for
        each leave-one-out panel (e.g. ``rank[without A1]``), and with
        ``g_study`` ``panel_g`` (G from the unbiased system variance, with its
        95 % interval: the default) and ``panel_g_observed`` (the paper's G,
        from the observed variance of the system means).
    """
    per: dict[str, list[dict]] = {}
    if mos is not None:
        _require(mos, ["system", "mos", "mos_ci_low", "mos_ci_high", "rank_mos"], "mos")
        for r in mos.assign(system=mos["system"].astype(str)).itertuples(index=False):
            n = (f"{int(r.n_judgements)} judgements of {int(r.n_items)} items; "
                 if hasattr(r, "n_judgements") and hasattr(r, "n_items") else "")
            per.setdefault(r.system, []).extend([
                _row(r.system, "preference", "mos", r.mos, r.mos_ci_low, r.mos_ci_high,
                     note=f"all annotators; {n}95% item-bootstrap CI, annotators held fixed"),
                _row(r.system, "preference", "mos_rank", r.rank_mos, note="among all systems, full panel"),
            ])
    if annotator_mos is not None:
        _require(annotator_mos, ["annotator", "system", "mos", "mos_ci_low", "mos_ci_high"], "annotator_mos")
        frame = annotator_mos.assign(system=annotator_mos["system"].astype(str),
                                     annotator=annotator_mos["annotator"].astype(str))
        for r in frame.sort_values("annotator", kind="stable").itertuples(index=False):
            per.setdefault(r.system, []).append(
                _row(r.system, "preference", f"mos[{r.annotator}]", r.mos, r.mos_ci_low, r.mos_ci_high,
                     note=f"{r.annotator}'s ratings only; 95% item-bootstrap CI"))
    if loao is not None:
        _require(loao, ["panel", "system", "rank"], "loao")
        frame = loao.assign(system=loao["system"].astype(str), panel=loao["panel"].astype(str))
        for r in frame.itertuples(index=False):
            if r.panel == "all":
                if mos is None:
                    per.setdefault(r.system, []).append(
                        _row(r.system, "preference", "mos_rank", r.rank, note="among all systems, full panel"))
                continue
            per.setdefault(r.system, []).append(
                _row(r.system, "preference", f"rank[{r.panel}]", r.rank,
                     note=f"MOS rank with the panel {r.panel}"))
    if g_study is not None:
        _require(g_study.reset_index(), ["definition", "G", "ci_low", "ci_high"], "g_study")
        study = g_study.reset_index().set_index("definition")
        for name in per:
            per[name].extend([
                _row(name, "preference", "panel_g", study.loc["unbiased", "G"], study.loc["unbiased", "ci_low"],
                     study.loc["unbiased", "ci_high"],
                     note="generalisability of the system means over items and annotators, unbiased (expected-mean-"
                          "square) system variance truncated at 0; 95% quasi-F interval; the same for every system"),
                _row(name, "preference", "panel_g_observed", study.loc["observed", "G"],
                     note="the paper's G: observed variance of the system means, which includes their sampling error"),
            ])
    rows = [row for name in _systems_of(list(per)) for row in per[name]]
    return _frame(rows)


def length_matched_facts(win_rates: pd.DataFrame | None = None, mos: pd.DataFrame | None = None) -> pd.DataFrame:
    """Length-matched win rate and the emoji count of the rated outputs (section 5).

    Parameters
    ----------
    win_rates : DataFrame, optional
        :func:`compendium.length.matched_win_rates`: ``system, wins, ties,
        comparisons, win_rate, ci_low, ci_high, rank``.
    mos : DataFrame, optional
        :func:`compendium.length.system_summary`: ``system, mean_count,
        rank_count``.

    Returns
    -------
    DataFrame
        Fact rows, section ``"length-matched"``: ``win_rate`` (Wilson CI as
        ``lo, hi``), ``win_rank``, ``matched_comparisons``, and from ``mos``
        ``mean_emojis_rated`` and ``count_rank``.
    """
    per: dict[str, list[dict]] = {}
    if win_rates is not None:
        _require(win_rates, ["system", "comparisons", "win_rate", "ci_low", "ci_high", "rank"], "win_rates")
        for r in win_rates.assign(system=win_rates["system"].astype(str)).itertuples(index=False):
            ties = f", {int(r.ties)} ties" if hasattr(r, "ties") else ""
            per.setdefault(r.system, []).extend([
                _row(r.system, "length-matched", "win_rate", r.win_rate, r.ci_low, r.ci_high,
                     note="same item, same emoji count, higher panel-mean rating wins; 95% Wilson CI"),
                _row(r.system, "length-matched", "win_rank", r.rank, note="among the systems with comparisons"),
                _row(r.system, "length-matched", "matched_comparisons", r.comparisons,
                     note=f"pairs with an equal emoji count on the same item{ties}"),
            ])
    if mos is not None:
        _require(mos, ["system", "mean_count", "rank_count"], "mos")
        for r in mos.assign(system=mos["system"].astype(str)).itertuples(index=False):
            per.setdefault(r.system, []).extend([
                _row(r.system, "length-matched", "mean_emojis_rated", r.mean_count,
                     note="emoji graphemes, each rated output once"),
                _row(r.system, "length-matched", "count_rank", r.rank_count, note="1 = most emojis"),
            ])
    rows = [row for name in _systems_of(list(per)) for row in per[name]]
    return _frame(rows)


def cost_facts(rates: pd.DataFrame | None = None, costs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Prompt tokens per byte and per character, completion tokens per item and per emoji (section 8).

    Parameters
    ----------
    rates : DataFrame, optional
        :func:`compendium.cost.token_rates` with ``by=("system", "language")``:
        ``system, language, tokens_per_byte, tokens_per_char,
        bytes_per_char``.
    costs : DataFrame, optional
        :func:`compendium.cost.completion_costs` with ``by=("system",
        "language")``: ``system, language, mean_completion_tokens,
        mean_emojis, tokens_per_emoji, tokens_per_emoji_item_mean``.

    Returns
    -------
    DataFrame
        Fact rows, section ``"cost"``, per system and language ``L``:
        ``prompt_tokens_per_byte[L]``, ``prompt_tokens_per_char[L]`` (ratios
        of sums), ``completion_tokens[L]`` (mean per item) and
        ``completion_tokens_per_emoji[L]`` (ratio of means; the mean of
        per-item ratios is in the note).
    """
    per: dict[str, list[dict]] = {}
    if rates is not None:
        _require(rates, ["system", "language", "tokens_per_byte", "tokens_per_char"], "rates")
        frame = rates.assign(system=rates["system"].astype(str), language=rates["language"].astype(str))
        for r in frame.itertuples(index=False):
            bpc = f"; {r.bytes_per_char:.2f} bytes per character" if hasattr(r, "bytes_per_char") else ""
            per.setdefault(r.system, []).extend([
                _row(r.system, "cost", f"prompt_tokens_per_byte[{r.language}]", r.tokens_per_byte,
                     note=f"{_language_name(r.language)}: prompt tokens over UTF-8 bytes of the sentence{bpc}"),
                _row(r.system, "cost", f"prompt_tokens_per_char[{r.language}]", r.tokens_per_char,
                     note=f"{_language_name(r.language)}: prompt tokens over code points of the sentence"),
            ])
    if costs is not None:
        _require(costs, ["system", "language", "mean_completion_tokens", "tokens_per_emoji"], "costs")
        frame = costs.assign(system=costs["system"].astype(str), language=costs["language"].astype(str))
        for r in frame.itertuples(index=False):
            item_mean = (f"; mean of per-item ratios {r.tokens_per_emoji_item_mean:.2f}"
                         if hasattr(r, "tokens_per_emoji_item_mean") else "")
            per.setdefault(r.system, []).extend([
                _row(r.system, "cost", f"completion_tokens[{r.language}]", r.mean_completion_tokens,
                     note=f"{_language_name(r.language)}: billed completion tokens, mean per item"),
                _row(r.system, "cost", f"completion_tokens_per_emoji[{r.language}]", r.tokens_per_emoji,
                     note=f"{_language_name(r.language)}: ratio of means{item_mean}"),
            ])
    rows = []
    for name in _systems_of(list(per)):
        part = per[name]
        order = {lang: i for i, lang in enumerate(_languages_of([split_quantity(r["quantity"])[1] for r in part]))}
        rows += sorted(part, key=lambda r: order[split_quantity(r["quantity"])[1]])
    return _frame(rows)


# --------------------------------------------------------------------------- caveats


def _values(facts: pd.DataFrame, base: str) -> pd.DataFrame:
    """Rows of ``facts`` whose quantity has base name ``base``, with a ``qualifier`` column."""
    if facts.empty:
        return facts.assign(qualifier=pd.Series(dtype=object))
    parts = facts["quantity"].map(split_quantity)
    mask = parts.map(lambda p: p[0] == base).to_numpy(dtype=bool)
    return facts[mask].assign(qualifier=parts[mask].map(lambda p: p[1]))


def caveat_rules(**thresholds) -> pd.DataFrame:
    """The caveat rules as a table, with the thresholds filled in.

    Parameters
    ----------
    **thresholds
        Overrides of :data:`CAVEAT_THRESHOLDS` (as passed to :func:`caveats`).

    Returns
    -------
    DataFrame
        One row per rule of :data:`CAVEAT_RULES`: ``rule, paper, fires when``.

    Examples
    --------
    >>> caveat_rules(outlier_factor=20).set_index("rule").loc["reasoning_tokens", "fires when"]
    "completion tokens per emoji exceed 20 times the median system's in some language"
    """
    unknown = set(thresholds) - set(CAVEAT_THRESHOLDS)
    if unknown:
        raise TypeError(f"unknown caveat threshold(s) {sorted(unknown)}; known: {list(CAVEAT_THRESHOLDS)}")
    values = {**CAVEAT_THRESHOLDS, **thresholds}
    return pd.DataFrame([(rule, section, text.format(**values)) for rule, (section, text) in CAVEAT_RULES.items()],
                        columns=["rule", "paper", "fires when"])


def caveats(
    facts: pd.DataFrame,
    *,
    min_rank_shift: int = CAVEAT_THRESHOLDS["min_rank_shift"],
    outlier_factor: float = CAVEAT_THRESHOLDS["outlier_factor"],
    retry_share_max: float = CAVEAT_THRESHOLDS["retry_share_max"],
) -> pd.DataFrame:
    """The caveats that apply to each system, by fixed rules on the facts.

    Each rule of :data:`CAVEAT_RULES` reads the fact rows it needs (a rule
    whose facts are absent does not fire) and adds one row per system it
    fires for, with the triggering number as ``value``:

    * ``mos_ci_overlap`` (section 4): the number of other systems whose
      ``mos`` interval overlaps this system's (closed intervals); fires when
      it is at least 1.
    * ``panel_rank_shift`` (section 4.4): the largest ``|rank[without X] -
      mos_rank|``; fires when it is at least ``min_rank_shift``.
    * ``length_rank_shift`` (section 5): ``|win_rank - mos_rank|``; fires
      when it is at least ``min_rank_shift``.
    * ``ead_within_language`` (section 6, Limitations): the number of
      languages with an ``ead``; fires when it is at least 2.
    * ``ead_near_floor`` (section 6): fires for a language whose EAD lower
      bound (the point estimate without an interval) is at or below the
      largest of the majority floor, the stratified floor and the
      permutation null's 95th percentile; the value is that lower bound (the
      first such language in language order).
    * ``reasoning_tokens`` (section 8): the largest ratio, over languages, of
      the system's ``completion_tokens_per_emoji`` to the median over
      systems of that language; fires when it exceeds ``outlier_factor``.
    * ``template_in_prompt`` (section 8): the largest
      ``prompt_tokens_per_byte``; fires when it exceeds 1 (no tokenizer
      spends more than a token per byte of plain text, so the fixed template
      is in the numerator).
    * ``unit_changes_order`` (section 8): the number of languages whose rank
      by prompt tokens per byte differs from their rank per character; fires
      when it is at least 1.
    * ``invalid_outputs`` (appendix A): ``1 - valid_share``; fires when
      positive.
    * ``retries`` (appendix A): ``retry_share``; fires when it exceeds
      ``retry_share_max``.

    Parameters
    ----------
    facts : DataFrame
        Fact rows (:data:`COLUMNS`) of any of the section functions,
        concatenated.
    min_rank_shift : int, default 1
        Smallest rank change that is reported.
    outlier_factor : float, default 10
        How many times the median system's tokens per emoji make an outlier
        (section 8: 113 against 1.4-4.4).
    retry_share_max : float, default 0.05
        Retry share above which the retries are a caveat.

    Returns
    -------
    DataFrame
        Fact rows with section ``"caveats"``, quantity = rule name, in system
        order and then in the order of :data:`CAVEAT_RULES`.

    Examples
    --------
    >>> f = pd.DataFrame({"system": ["x", "y"], "section": "preference", "quantity": "mos",
    ...                   "value": [3.0, 3.1], "lo": [2.8, 2.9], "hi": [3.2, 3.3], "note": ""})
    >>> caveats(f)[["system", "quantity", "value"]]
      system        quantity  value
    0      x  mos_ci_overlap    1.0
    1      y  mos_ci_overlap    1.0
    """
    _require(facts, list(COLUMNS), "facts")
    facts = facts.assign(system=facts["system"].astype(str), quantity=facts["quantity"].astype(str))
    fired: dict[str, dict[str, dict]] = {}

    def fire(system, rule, value, note):
        fired.setdefault(system, {})[rule] = _row(system, "caveats", rule, value, note=note)

    mos = _values(facts, "mos")
    overall = mos[mos["qualifier"].isna()].set_index("system")
    mos_rank = _values(facts, "mos_rank").set_index("system")["value"]

    # mos_ci_overlap
    if len(overall) >= 2 and overall[["lo", "hi"]].notna().all(axis=None):
        for name, r in overall.iterrows():
            others = overall.drop(index=name)
            overlap = int(((others["lo"] <= r["hi"]) & (others["hi"] >= r["lo"])).sum())
            if overlap >= 1:
                fire(name, "mos_ci_overlap", overlap,
                     f"Its MOS interval overlaps those of {overlap} of the {len(others)} other systems: the panel "
                     "does not separate it from them (section 4).")

    # panel_rank_shift
    ranks = _values(facts, "rank")
    for name, part in ranks.groupby("system", sort=False):
        if name not in mos_rank.index:
            continue
        base = mos_rank[name]
        shift = (part["value"] - base).abs()
        k = int(shift.max())
        if k >= min_rank_shift:
            worst = part.loc[shift.idxmax(), "qualifier"]
            fire(name, "panel_rank_shift", k,
                 f"With one annotator left out it ranks {int(part['value'].min())}\u2013{int(part['value'].max())} "
                 f"instead of {int(base)} (a move of {k} with the panel {worst}): its place depends on who rates "
                 "(section 4.4).")

    # length_rank_shift
    win_rank = _values(facts, "win_rank").set_index("system")["value"]
    for name in win_rank.index.intersection(mos_rank.index):
        k = int(abs(win_rank[name] - mos_rank[name]))
        if k >= min_rank_shift:
            fire(name, "length_rank_shift", k,
                 f"Compared only with outputs of equal length it ranks {int(win_rank[name])}, against "
                 f"{int(mos_rank[name])} by MOS: the MOS ordering tracks how many emojis a system emits "
                 "(section 5).")

    # ead_within_language, ead_near_floor
    ead = _values(facts, "ead")
    floors = pd.concat([_values(facts, b) for b in ("majority_floor", "stratified_floor", "null_p95")])
    for name, part in ead.groupby("system", sort=False):
        languages = _languages_of(part["qualifier"])
        if len(languages) >= 2:
            fire(name, "ead_within_language", len(languages),
                 "EAD is compared between systems within a language only: the corpora differ in label scheme, "
                 "granularity and provenance, so a difference between languages is not a difference of the "
                 "system (section 6, Limitations).")
        own = floors[floors["system"] == name]
        for lang in languages:
            r = part[part["qualifier"] == lang].iloc[0]
            bound = r["lo"] if not math.isnan(r["lo"]) else r["value"]
            floor = own.loc[own["qualifier"] == lang, "value"].max()
            if not pd.isna(floor) and bound <= floor:
                fire(name, "ead_near_floor", bound,
                     f"In {_language_name(lang)} its EAD interval reaches down to a chance floor "
                     f"({bound:.3f} against {floor:.3f}): its emojis carry no demonstrable emotion signal there "
                     "(section 6).")
                break

    # reasoning_tokens
    tpe = _values(facts, "completion_tokens_per_emoji")
    if not tpe.empty:
        medians = tpe.groupby("qualifier")["value"].median()
        ratio = tpe["value"] / tpe["qualifier"].map(medians)
        for name, part in tpe.assign(ratio=ratio).groupby("system", sort=False):
            top = part.loc[part["ratio"].idxmax()]
            if top["ratio"] > outlier_factor:
                fire(name, "reasoning_tokens", top["ratio"],
                     f"It bills {top['value']:.1f} completion tokens per emoji in {_language_name(top['qualifier'])}, "
                     f"{top['ratio']:.0f} times the median system: its completion tokens include a reasoning "
                     "trace, so they measure its reasoning configuration, not the cost of the emojis (section 8).")

    # template_in_prompt, unit_changes_order
    per_byte = _values(facts, "prompt_tokens_per_byte")
    per_char = _values(facts, "prompt_tokens_per_char")
    for name, part in per_byte.groupby("system", sort=False):
        top = part["value"].max()
        if top > 1:
            fire(name, "template_in_prompt", top,
                 f"Its prompt tokens per source byte reach {top:.2f}, more than any tokenizer spends on plain "
                 "text: the fixed prompt template is counted, so these are not tokenizer rates (section 8).")
        chars = per_char[per_char["system"] == name].set_index("qualifier")["value"]
        both = part.set_index("qualifier")["value"].to_frame("byte").join(chars.rename("char"), how="inner")
        if len(both) >= 2:
            moved = int((both["byte"].rank(method="min") != both["char"].rank(method="min")).sum())
            if moved >= 1:
                cheap_b = _language_name(both["byte"].idxmin())
                cheap_c = _language_name(both["char"].idxmin())
                fire(name, "unit_changes_order", moved,
                     f"Which language is cheap depends on the unit: per byte {cheap_b} costs least, per character "
                     f"{cheap_c}; report prompt cost per character with the bytes per character (section 8).")

    # invalid_outputs, retries
    for name, r in _values(facts, "valid_share").set_index("system").iterrows():
        if r["value"] < 1:
            fire(name, "invalid_outputs", 1 - r["value"],
                 f"{_pct(1 - r['value'])} of its outputs fall outside the 1-5 emojis the prompt asks for; "
                 "they are scored as they are (appendix A).")
    for name, r in _values(facts, "retry_share").set_index("system").iterrows():
        if r["value"] > retry_share_max:
            fire(name, "retries", r["value"],
                 f"{_pct(r['value'])} of its items needed a retry; the card describes the accepted attempt "
                 "(appendix A).")

    rows = [fired[name][rule] for name in _systems_of(list(fired)) for rule in CAVEAT_RULES if rule in fired[name]]
    return _frame(rows)


def card_facts(
    *,
    outputs: pd.DataFrame | None = None,
    ead: pd.DataFrame | None = None,
    mos: pd.DataFrame | None = None,
    annotator_mos: pd.DataFrame | None = None,
    loao: pd.DataFrame | None = None,
    win_rates: pd.DataFrame | None = None,
    rates: pd.DataFrame | None = None,
    costs: pd.DataFrame | None = None,
    g_study: pd.DataFrame | None = None,
    max_emojis: int = 5,
    **rules,
) -> pd.DataFrame:
    """Every fact of every system card, caveats included, as one tidy long table.

    Calls the section functions on whichever tables are given (a section
    whose tables are all None is left out) and appends :func:`caveats`.
    Cheap: it only rearranges tables computed elsewhere.

    Parameters
    ----------
    outputs : DataFrame, optional
        ``system, attempts, graphemes`` per output (:func:`coverage_facts`,
        :func:`emoji_profile_facts`).
    ead : DataFrame, optional
        :func:`compendium.decodability.ead_table` (:func:`decodability_facts`).
    mos, annotator_mos, loao : DataFrame, optional
        :func:`compendium.length.system_summary`, :func:`annotator_summaries`,
        :func:`compendium.reliability.leave_one_annotator_out`
        (:func:`preference_facts`; ``mos`` also feeds
        :func:`length_matched_facts`).
    win_rates : DataFrame, optional
        :func:`compendium.length.matched_win_rates` (:func:`length_matched_facts`).
    rates, costs : DataFrame, optional
        :func:`compendium.cost.token_rates` and
        :func:`compendium.cost.completion_costs`, both by system and
        language (:func:`cost_facts`).
    g_study : DataFrame, optional
        :func:`compendium.gtheory.g_study` of the rating panel
        (:func:`preference_facts`).
    max_emojis : int, default 5
        The prompt's most emojis.
    **rules
        Thresholds of :func:`caveats` (``min_rank_shift``,
        ``outlier_factor``, ``retry_share_max``).

    Returns
    -------
    DataFrame
        :data:`COLUMNS`; rows grouped by system (schema order), then by
        section in the order of :data:`SECTIONS`.
    """
    parts = []
    if outputs is not None:
        parts += [coverage_facts(outputs, max_emojis=max_emojis), emoji_profile_facts(outputs, max_emojis=max_emojis)]
    if ead is not None:
        parts.append(decodability_facts(ead))
    if mos is not None or annotator_mos is not None or loao is not None:
        parts.append(preference_facts(mos, annotator_mos, loao, g_study))
    if win_rates is not None or mos is not None:
        parts.append(length_matched_facts(win_rates, mos))
    if rates is not None or costs is not None:
        parts.append(cost_facts(rates, costs))
    facts = pd.concat(parts, ignore_index=True) if parts else _frame([])
    facts = pd.concat([facts, caveats(facts, **rules)], ignore_index=True)
    systems = _systems_of(facts["system"])
    order = pd.DataFrame({
        "s": facts["system"].map({s: i for i, s in enumerate(systems)}),
        "c": facts["section"].map({s: i for i, s in enumerate(SECTIONS)}),
        "i": np.arange(len(facts)),
    })
    return facts.loc[order.sort_values(["s", "c", "i"]).index].reset_index(drop=True)


# --------------------------------------------------------------------------- HTML

_CSS = """
.sc-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(30rem,100%),1fr));gap:1rem;margin:1rem 0}
.sc-card{min-width:0;overflow-x:auto;border:1px solid rgba(127,127,127,.45);border-left-width:5px;
 border-radius:4px;padding:.6rem .8rem;font-size:.85rem;line-height:1.35}
.sc-card h3{font-size:1.1rem;margin:0 0 .1rem 0}
.sc-card .sc-id,.sc-card .sc-data,.sc-card .sc-note{font-size:.78rem}
.sc-card .sc-data{margin:0 0 .4rem 0;font-style:italic}
.sc-card table{width:100%;border-collapse:collapse;margin:.35rem 0;font-size:.8rem}
.sc-card caption{text-align:left;font-weight:bold;padding:.2rem 0;caption-side:top}
.sc-card th,.sc-card td{padding:.1rem .25rem;border-bottom:1px solid rgba(127,127,127,.25);vertical-align:top}
.sc-card th{text-align:left;font-weight:600}
.sc-card thead th{font-weight:normal;font-style:italic;vertical-align:bottom}
.sc-card td.num,.sc-card th.num{text-align:right;font-variant-numeric:tabular-nums}
.sc-card td.num{white-space:nowrap}
.sc-card ul{margin:.2rem 0 .2rem 1.1rem;padding:0}
.sc-card li{margin:.15rem 0}
.sc-card h4{font-size:.85rem;margin:.5rem 0 .1rem 0}
.sc-nav{font-size:.85rem}
.sc-shared{border:1px solid rgba(127,127,127,.45);border-radius:4px;padding:.6rem .8rem;margin:1rem 0;font-size:.9rem}
.sc-shared h3{font-size:1.05rem;margin:0 0 .3rem 0}
.sc-shared ul{margin:.2rem 0 .2rem 1.1rem;padding:0}
"""


def _fmt(value: float, kind: str) -> str:
    if value is None or pd.isna(value):
        return "\u2013"
    if kind == "count":
        return f"{int(round(value)):,}"
    if kind == "share":
        return _pct(value)
    digits = {"float1": 1, "float2": 2, "float3": 3}.get(kind, 3)
    return f"{value:.{digits}f}"


def _kind(quantity: str) -> str:
    return QUANTITIES.get(split_quantity(quantity)[0], ("", "float3"))[1]


def _with_ci(row: pd.Series) -> str:
    kind = _kind(row["quantity"])
    text = _fmt(row["value"], kind)
    if not pd.isna(row["lo"]) and not pd.isna(row["hi"]):
        text += f" [{_fmt(row['lo'], kind)}, {_fmt(row['hi'], kind)}]"
    return text


def _slug(system: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(system).lower()).strip("-") or "system"


def _lookup(part: pd.DataFrame) -> dict[str, pd.Series]:
    return {q: r for q, r in zip(part["quantity"], (r for _, r in part.iterrows()))}


def _table(caption: str, header: Sequence[str], rows: Sequence[Sequence[str]], *, numeric_from: int = 1) -> str:
    """An accessible table: caption, column headers, a row header per row; cells are already escaped."""
    esc = html.escape
    num = ' class="num"'
    head = "".join(f'<th scope="col"{num if i >= numeric_from else ""}>{esc(h)}</th>' for i, h in enumerate(header))
    body = "".join(
        "<tr>" + f'<th scope="row">{cells[0]}</th>'
        + "".join(f'<td class="num">{c}</td>' for c in cells[1:]) + "</tr>"
        for cells in rows
    )
    return f"<table><caption>{esc(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def card_html(
    facts: pd.DataFrame,
    system: str,
    *,
    data_label: str = "simulated",
    label: str | None = None,
    colour: str | None = None,
    shared: Sequence[str] = (),
) -> str:
    """One system's card as a self-contained HTML ``<section>``.

    The card has a heading with the system's display name and a line saying
    which data the numbers come from (``data_label``: the book shows
    "simulated" for the shipped simulation), then one table per section of
    :data:`SECTIONS` that has facts (coverage and emoji profile, EAD per
    language with its floors, MOS overall and per annotator with the
    leave-one-out ranks, the length-matched comparison, token costs per
    language) and the list of caveats. Tables have captions, column headers
    and row headers; every text is HTML-escaped. There is no script, style
    sheet, image or link to another host. The system's colour is used only
    for the card's left border, a redundant accent: the name says which
    system the card is.

    Parameters
    ----------
    facts : DataFrame
        :func:`card_facts` (rows of other systems are ignored).
    system : str
        The system.
    data_label : str, default "simulated"
        Which data the numbers come from (:func:`compendium.report.data_label`).
    label : str, optional
        Display name; default :data:`compendium.schema.SYSTEM_LABELS` or the
        system's name.
    colour : str, optional
        ``#RRGGBB`` accent; default :data:`compendium.report.SYSTEM_COLOURS`.
        Anything else is ignored.
    shared : sequence of str
        Caveat rules that hold for every system (:func:`shared_caveats`):
        stated once above the cards by :func:`cards_html`, left off the card
        so that it lists only what distinguishes this system.

    Returns
    -------
    str
        ``<section class="sc-card" id="card-<slug>" ...>...</section>``. The
        style sheet is in :func:`cards_html`; without it the card still reads
        as headed tables and a list.
    """
    esc = html.escape
    name = str(system)
    if label is None:
        label = schema.SYSTEM_LABELS.get(name, name)
    if colour is None:
        from .report import SYSTEM_COLOURS

        colour = SYSTEM_COLOURS.get(name)
    style = f' style="border-left-color:{colour}"' if colour and _HEX.match(colour) else ""
    slug = _slug(name)
    part = facts[facts["system"].astype(str) == name]
    if part.empty:
        raise ValueError(f"no facts for system {name!r}")
    f = _lookup(part)
    out = [f'<section class="sc-card" id="card-{slug}" aria-labelledby="card-{slug}-title"{style}>',
           f'<h3 id="card-{slug}-title">{esc(label)}</h3>',
           f'<p class="sc-data">{esc(data_label)} data \u00b7 <span class="sc-id">{esc(name)}</span></p>']

    def cell(q):
        return esc(_with_ci(f[q])) if q in f else "\u2013"

    # coverage and emoji profile
    rows = [[esc(QUANTITIES[q][0]), cell(q)] for q in ("outputs", "valid_share", "retry_share", "max_attempts",
                                                         "mean_emojis") if q in f]
    if rows:
        out.append(_table("Outputs (all languages)", ["", "value"], rows))
    profile = [q for q in f if split_quantity(q)[0] == "emojis"]
    if profile:
        header = ["emojis"] + [split_quantity(q)[1] for q in profile]
        out.append(_table("Emoji count of the outputs (graphemes)", header,
                          [["share"] + [cell(q) for q in profile]]))

    # decodability
    languages = _languages_of([split_quantity(q)[1] for q in f if split_quantity(q)[0] == "ead"])
    if languages:
        cols = [("ead", "EAD [95% CI]"), ("majority_floor", "majority floor"),
                ("null_p95", "null, 95th pct"), ("stratified_floor", "random floor"), ("tier", "tier")]
        cols = [(b, h) for b, h in cols if any(f"{b}[{lang}]" in f for lang in languages)]
        if any(b == "null_p95" for b, _ in cols):  # the permutation null replaces the simulated random floor
            cols = [(b, h) for b, h in cols if b != "stratified_floor"]
        rows = [[esc(_language_name(lang))] + [cell(f"{b}[{lang}]") for b, _ in cols] for lang in languages]
        out.append(_table("Emoji\u2013affect decodability, within each language", ["language"] + [h for _, h in cols],
                          rows))

    # preference
    rows = []
    if "mos" in f:
        rows.append(["all annotators", cell("mos"), cell("mos_rank")])
    elif "mos_rank" in f:
        rows.append(["all annotators", "\u2013", cell("mos_rank")])
    for q in f:
        base, qual = split_quantity(q)
        if base == "mos" and qual is not None:
            rows.append([f"{esc(qual)} alone", cell(q), ""])
    for q in f:
        base, qual = split_quantity(q)
        if base == "rank":
            rows.append([f"panel {esc(qual)}", "", cell(q)])
    if rows:
        out.append(_table("Mean opinion score (Bangla human study, 1\u20135)", ["rater(s)", "MOS [95% CI]", "rank"],
                          rows))
    rows = [[esc(QUANTITIES[q][0]), cell(q)] for q in ("panel_g", "panel_g_observed") if q in f]
    if rows:
        out.append(_table("Reliability of the panel's MOS (generalisability, the same for every system)",
                          ["", "G [95% CI]"], rows))

    # length-matched
    rows = [[esc(QUANTITIES[q][0]), cell(q)] for q in ("win_rate", "win_rank", "matched_comparisons",
                                                         "mean_emojis_rated", "count_rank") if q in f]
    if rows:
        out.append(_table("Length-matched comparison", ["", "value"], rows))

    # cost
    cost_bases = [("prompt_tokens_per_byte", "prompt per byte"), ("prompt_tokens_per_char", "prompt per char"),
                  ("completion_tokens", "completion per item"),
                  ("completion_tokens_per_emoji", "completion per emoji")]
    cost_langs = _languages_of([split_quantity(q)[1] for q in f if split_quantity(q)[0] in dict(cost_bases)])
    if cost_langs:
        cols = [(b, h) for b, h in cost_bases if any(f"{b}[{lang}]" in f for lang in cost_langs)]
        rows = [[esc(_language_name(lang))] + [cell(f"{b}[{lang}]") for b, _ in cols] for lang in cost_langs]
        out.append(_table("Tokens", ["language"] + [h for _, h in cols], rows))

    # caveats
    own = part[(part["section"] == "caveats") & ~part["quantity"].astype(str).isin(list(shared))]
    notes = own["note"].tolist()
    out.append(f'<h4 id="card-{slug}-caveats">Caveats</h4>')
    if notes:
        out.append("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>")
    elif shared:
        out.append('<p class="sc-note">No caveat beyond those above that hold for every system.</p>')
    else:
        out.append('<p class="sc-note">No caveat rule fired.</p>')
    out.append("</section>")
    return "".join(out)


def shared_caveats(facts: pd.DataFrame, systems: Sequence[str] | None = None) -> list[str]:
    """The caveat rules that fire for every one of ``systems`` (at least two), in the order of :data:`CAVEAT_RULES`.

    Such a caveat says something about the benchmark, not about one system,
    so :func:`cards_html` states it once, above the cards.

    Examples
    --------
    >>> f = pd.DataFrame({"system": ["x", "y", "x"], "section": "caveats", "quantity": ["retries", "retries", "invalid_outputs"],
    ...                   "value": [0.1, 0.2, 0.01], "lo": np.nan, "hi": np.nan, "note": ""})
    >>> shared_caveats(f)
    ['retries']
    """
    systems = _systems_of(facts["system"]) if systems is None else [str(s) for s in systems]
    if len(systems) < 2:
        return []
    fired = facts[facts["section"] == "caveats"]
    return [rule for rule in CAVEAT_RULES
            if set(systems) <= set(fired.loc[fired["quantity"].astype(str) == rule, "system"].astype(str))]


def _shared_html(facts: pd.DataFrame, shared: Sequence[str], systems: Sequence[str]) -> str:
    """The preface above the cards: each caveat that holds for every system, once, with the range of its number."""
    esc = html.escape
    rules = caveat_rules().set_index("rule")
    fired = facts[(facts["section"] == "caveats") & facts["system"].astype(str).isin(list(systems))]
    items = []
    for rule in shared:
        values = fired.loc[fired["quantity"].astype(str) == rule, "value"].astype(float)
        low, high = values.min(), values.max()
        kind = "count" if np.allclose(values, np.round(values)) else "float2"
        spread = (f"is {_fmt(low, kind)} for every system" if low == high else
                  f"ranges from {_fmt(low, kind)} to {_fmt(high, kind)} across the systems")
        items.append(f"<li><strong>{esc(rules.loc[rule, 'paper'])}</strong>: for every system, "
                     f"{esc(rules.loc[rule, 'fires when'])} (<code>{esc(rule)}</code>; its number "
                     f"{esc(spread)}).</li>")
    return ('<section class="sc-shared" aria-labelledby="sc-shared-title"><h3 id="sc-shared-title">'
            f"Caveats that hold for every system</h3><ul>{''.join(items)}</ul>"
            '<p class="sc-note">Each card below lists only the caveats that single its system out.</p></section>')


def cards_html(
    facts: pd.DataFrame,
    *,
    systems: Sequence[str] | None = None,
    data_label: str = "simulated",
    labels: Mapping[str, str] | None = None,
) -> str:
    """All cards in a responsive grid, with one small inline style sheet and a list of links to them.

    Parameters
    ----------
    facts : DataFrame
        :func:`card_facts`.
    systems : sequence of str, optional
        Which cards, in order; default every system of ``facts`` (schema order).
    data_label : str, default "simulated"
        Shown on every card.
    labels : mapping, optional
        Display names (default :data:`compendium.schema.SYSTEM_LABELS`).

    Returns
    -------
    str
        ``<div class="sc-cards">`` with a ``<style>``, a ``<nav>`` of in-page
        links and one :func:`card_html` per system; no script, no external
        resource.

    Examples
    --------
    >>> f = pd.DataFrame({"system": ["a<b"], "section": "coverage", "quantity": "outputs",
    ...                   "value": [3.0], "lo": [np.nan], "hi": [np.nan], "note": ""})
    >>> page = cards_html(f)
    >>> page.count("<section"), "a&lt;b" in page, "a<b" in page
    (1, True, False)
    """
    esc = html.escape
    systems = _systems_of(facts["system"]) if systems is None else [str(s) for s in systems]
    labels = dict(schema.SYSTEM_LABELS if labels is None else labels)
    nav = " \u00b7 ".join(f'<a href="#card-{_slug(s)}">{esc(labels.get(s, s))}</a>' for s in systems)
    shared = shared_caveats(facts, systems)
    preface = _shared_html(facts, shared, systems) if shared else ""
    cards = "".join(card_html(facts, s, data_label=data_label, label=labels.get(s, s), shared=shared)
                    for s in systems)
    return (f'<div class="sc-cards"><style>{_CSS}</style>'
            f'<nav class="sc-nav" aria-label="System cards">{nav}</nav>{preface}'
            f'<div class="sc-grid">{cards}</div></div>')
