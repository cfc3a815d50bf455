"""The facts of the system cards: one tidy row per (system, section, quantity).

The columns and sections, and one function per section of a card
(coverage, emoji profile, decodability, preference, length-matched
comparison, cost); see :mod:`compendium.book.cards`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from compendium.data import schema


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
    "caveats": "rules of compendium.book.cards.CAVEAT_RULES",
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

    Runs :func:`compendium.analyses.length.system_summary` on the judgements of one
    annotator at a time, so each annotator's MOS of a system (the mean of
    their ratings of it) gets the same percentile item-bootstrap interval as
    the panel's MOS in Table 3. Nothing is computed here beyond that call.

    Parameters
    ----------
    ratings : DataFrame
        One row per judgement: ``sentence_id, system, annotator, rating``.
    lengths : DataFrame
        One row per output: ``sentence_id, system, graphemes``
        (:func:`compendium.analyses.length.emoji_counts`).
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
    from compendium.analyses import length

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
        with the grapheme count of :func:`compendium.analyses.length.emoji_counts`).
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
        :func:`compendium.analyses.ead.core.ead_table`: ``language, system,
        n_items, macro_f1, majority_floor, stratified_floor``, and, if it was
        run with ``n_boot``, ``ci_lo, ci_hi`` (then tiers are formed with
        :func:`compendium.analyses.ead.inference.tiers`), with ``n_permutations``,
        ``null_mean, null_p95, null_p``.
    tier_rule : {"leader", "lowest"}, default "leader"
        Passed to :func:`compendium.analyses.ead.inference.tiers` (chapter 4 uses
        ``"leader"``).

    Returns
    -------
    DataFrame
        Fact rows, section ``"decodability"``, per system and language ``L``:
        ``ead[L]`` (with the bootstrap CI as ``lo, hi``), ``majority_floor[L]``,
        ``stratified_floor[L]``, and where available ``null_p95[L]`` and
        ``tier[L]``.
    """
    from compendium.analyses.ead import inference as ead_inference

    _require(ead, ["language", "system", "macro_f1", "majority_floor", "stratified_floor"], "ead")
    table = ead.assign(language=ead["language"].astype(str), system=ead["system"].astype(str))
    has_ci = {"ci_lo", "ci_hi"} <= set(table.columns)
    if has_ci:
        tiered = ead_inference.tiers(table, rule=tier_rule)
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
        :func:`compendium.analyses.length.system_summary`: ``system, n_items,
        n_judgements, mos, mos_ci_low, mos_ci_high, rank_mos``.
    annotator_mos : DataFrame, optional
        :func:`annotator_summaries`: ``annotator, system, mos, mos_ci_low,
        mos_ci_high``.
    loao : DataFrame, optional
        :func:`compendium.stats.panels.leave_one_annotator_out`: ``panel,
        system, mean, rank``.
    g_study : DataFrame, optional
        :func:`compendium.stats.gtheory.g_study` of the panel: the reliability of
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
                          "square) system variance truncated at 0; 95% noncentral-F interval, systems fixed; the "
                          "same for every system"),
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
        :func:`compendium.analyses.length.matched_win_rates`: ``system, wins, ties,
        comparisons, win_rate, ci_low, ci_high, rank``.
    mos : DataFrame, optional
        :func:`compendium.analyses.length.system_summary`: ``system, mean_count,
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
        :func:`compendium.analyses.cost.token_rates` with ``by=("system", "language")``:
        ``system, language, tokens_per_byte, tokens_per_char,
        bytes_per_char``.
    costs : DataFrame, optional
        :func:`compendium.analyses.cost.completion_costs` with ``by=("system",
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


