"""The rules of the system cards: caveats derived from the facts, and all facts with their caveats.

:func:`caveat_rules`, :func:`caveats`, :func:`card_facts`; see
:mod:`compendium.book.cards`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

import numpy as np
import pandas as pd
from compendium.book.cards.facts import (
    COLUMNS,
    SECTIONS,
    _frame,
    _language_name,
    _languages_of,
    _pct,
    _require,
    _row,
    _systems_of,
    cost_facts,
    coverage_facts,
    decodability_facts,
    emoji_profile_facts,
    length_matched_facts,
    preference_facts,
    split_quantity,
)


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
    limits = {"min_rank_shift": min_rank_shift, "outlier_factor": outlier_factor, "retry_share_max": retry_share_max}
    fired: dict[str, dict[str, dict]] = {}
    for rules in _CAVEAT_FAMILIES:  # in this order: the first caveat of a system fixes its place
        for system, rule, value, note in rules(facts, limits):
            fired.setdefault(system, {})[rule] = _row(system, "caveats", rule, value, note=note)
    rows = [fired[name][rule] for name in _systems_of(list(fired)) for rule in CAVEAT_RULES if rule in fired[name]]
    return _frame(rows)


def _fires_mos_ci_overlap(facts: pd.DataFrame, limits: Mapping) -> Iterator[tuple]:
    """Section 4: systems whose MOS interval overlaps another's."""
    mos = _values(facts, "mos")
    overall = mos[mos["qualifier"].isna()].set_index("system")
    if len(overall) >= 2 and overall[["lo", "hi"]].notna().all(axis=None):
        for name, r in overall.iterrows():
            others = overall.drop(index=name)
            overlap = int(((others["lo"] <= r["hi"]) & (others["hi"] >= r["lo"])).sum())
            if overlap >= 1:
                yield (name, "mos_ci_overlap", overlap,
                     f"Its MOS interval overlaps those of {overlap} of the {len(others)} other systems: the panel "
                     "does not separate it from them (section 4).")


def _fires_panel_rank_shift(facts: pd.DataFrame, limits: Mapping) -> Iterator[tuple]:
    """Section 4.4: systems whose rank moves when one annotator is left out."""
    mos_rank = _values(facts, "mos_rank").set_index("system")["value"]
    ranks = _values(facts, "rank")
    for name, part in ranks.groupby("system", sort=False):
        if name not in mos_rank.index:
            continue
        base = mos_rank[name]
        shift = (part["value"] - base).abs()
        k = int(shift.max())
        if k >= limits["min_rank_shift"]:
            worst = part.loc[shift.idxmax(), "qualifier"]
            yield (name, "panel_rank_shift", k,
                 f"With one annotator left out it ranks {int(part['value'].min())}\u2013{int(part['value'].max())} "
                 f"instead of {int(base)} (a move of {k} with the panel {worst}): its place depends on who rates "
                 "(section 4.4).")


def _fires_length_rank_shift(facts: pd.DataFrame, limits: Mapping) -> Iterator[tuple]:
    """Section 5: systems whose length-matched rank differs from their MOS rank."""
    mos_rank = _values(facts, "mos_rank").set_index("system")["value"]
    win_rank = _values(facts, "win_rank").set_index("system")["value"]
    for name in win_rank.index.intersection(mos_rank.index):
        k = int(abs(win_rank[name] - mos_rank[name]))
        if k >= limits["min_rank_shift"]:
            yield (name, "length_rank_shift", k,
                 f"Compared only with outputs of equal length it ranks {int(win_rank[name])}, against "
                 f"{int(mos_rank[name])} by MOS: the MOS ordering tracks how many emojis a system emits "
                 "(section 5).")


def _fires_ead(facts: pd.DataFrame, limits: Mapping) -> Iterator[tuple]:
    """Section 6: EAD compared within a language only, and EAD intervals that reach a chance floor."""
    ead = _values(facts, "ead")
    floors = pd.concat([_values(facts, b) for b in ("majority_floor", "stratified_floor", "null_p95")])
    for name, part in ead.groupby("system", sort=False):
        languages = _languages_of(part["qualifier"])
        if len(languages) >= 2:
            yield (name, "ead_within_language", len(languages),
                 "EAD is compared between systems within a language only: the corpora differ in label scheme, "
                 "granularity and provenance, so a difference between languages is not a difference of the "
                 "system (section 6, Limitations).")
        own = floors[floors["system"] == name]
        for lang in languages:
            r = part[part["qualifier"] == lang].iloc[0]
            bound = r["lo"] if not math.isnan(r["lo"]) else r["value"]
            floor = own.loc[own["qualifier"] == lang, "value"].max()
            if not pd.isna(floor) and bound <= floor:
                yield (name, "ead_near_floor", bound,
                     f"In {_language_name(lang)} its EAD interval reaches down to a chance floor "
                     f"({bound:.3f} against {floor:.3f}): its emojis carry no demonstrable emotion signal there "
                     "(section 6).")
                break


def _fires_reasoning_tokens(facts: pd.DataFrame, limits: Mapping) -> Iterator[tuple]:
    """Section 8: completion tokens per emoji far above the median system's."""
    tpe = _values(facts, "completion_tokens_per_emoji")
    if not tpe.empty:
        medians = tpe.groupby("qualifier")["value"].median()
        ratio = tpe["value"] / tpe["qualifier"].map(medians)
        for name, part in tpe.assign(ratio=ratio).groupby("system", sort=False):
            top = part.loc[part["ratio"].idxmax()]
            if top["ratio"] > limits["outlier_factor"]:
                yield (name, "reasoning_tokens", top["ratio"],
                     f"It bills {top['value']:.1f} completion tokens per emoji in {_language_name(top['qualifier'])}, "
                     f"{top['ratio']:.0f} times the median system: its completion tokens include a reasoning "
                     "trace, so they measure its reasoning configuration, not the cost of the emojis (section 8).")


def _fires_prompt_units(facts: pd.DataFrame, limits: Mapping) -> Iterator[tuple]:
    """Section 8: a prompt template in the prompt tokens, and a unit that changes which language is cheap."""
    per_byte = _values(facts, "prompt_tokens_per_byte")
    per_char = _values(facts, "prompt_tokens_per_char")
    for name, part in per_byte.groupby("system", sort=False):
        top = part["value"].max()
        if top > 1:
            yield (name, "template_in_prompt", top,
                 f"Its prompt tokens per source byte reach {top:.2f}, more than any tokenizer spends on plain "
                 "text: the fixed prompt template is counted, so these are not tokenizer rates (section 8).")
        chars = per_char[per_char["system"] == name].set_index("qualifier")["value"]
        both = part.set_index("qualifier")["value"].to_frame("byte").join(chars.rename("char"), how="inner")
        if len(both) >= 2:
            moved = int((both["byte"].rank(method="min") != both["char"].rank(method="min")).sum())
            if moved >= 1:
                cheap_b = _language_name(both["byte"].idxmin())
                cheap_c = _language_name(both["char"].idxmin())
                yield (name, "unit_changes_order", moved,
                     f"Which language is cheap depends on the unit: per byte {cheap_b} costs least, per character "
                     f"{cheap_c}; report prompt cost per character with the bytes per character (section 8).")


def _fires_outputs(facts: pd.DataFrame, limits: Mapping) -> Iterator[tuple]:
    """Appendix A: outputs outside 1-5 emojis, and retries."""
    for name, r in _values(facts, "valid_share").set_index("system").iterrows():
        if r["value"] < 1:
            yield (name, "invalid_outputs", 1 - r["value"],
                 f"{_pct(1 - r['value'])} of its outputs fall outside the 1-5 emojis the prompt asks for; "
                 "they are scored as they are (appendix A).")
    for name, r in _values(facts, "retry_share").set_index("system").iterrows():
        if r["value"] > limits["retry_share_max"]:
            yield (name, "retries", r["value"],
                 f"{_pct(r['value'])} of its items needed a retry; the card describes the accepted attempt "
                 "(appendix A).")


#: The rule families of :func:`caveats`, each a generator of (system, rule, value, note) rows that fire.
_CAVEAT_FAMILIES = (
    _fires_mos_ci_overlap,
    _fires_panel_rank_shift,
    _fires_length_rank_shift,
    _fires_ead,
    _fires_reasoning_tokens,
    _fires_prompt_units,
    _fires_outputs,
)


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
        :func:`compendium.analyses.ead.core.ead_table` (:func:`decodability_facts`).
    mos, annotator_mos, loao : DataFrame, optional
        :func:`compendium.analyses.length.system_summary`, :func:`annotator_summaries`,
        :func:`compendium.stats.panels.leave_one_annotator_out`
        (:func:`preference_facts`; ``mos`` also feeds
        :func:`length_matched_facts`).
    win_rates : DataFrame, optional
        :func:`compendium.analyses.length.matched_win_rates` (:func:`length_matched_facts`).
    rates, costs : DataFrame, optional
        :func:`compendium.analyses.cost.token_rates` and
        :func:`compendium.analyses.cost.completion_costs`, both by system and
        language (:func:`cost_facts`).
    g_study : DataFrame, optional
        :func:`compendium.stats.gtheory.g_study` of the rating panel
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


