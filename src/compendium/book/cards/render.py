"""The system cards as HTML: one card per system and the shared caveats.

:func:`card_html`, :func:`cards_html`, :func:`shared_caveats`. The style
sheet is package data (``cards.css``), read with :mod:`importlib.resources`.
"""

from __future__ import annotations

from importlib import resources
import html
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from compendium.data import schema
from compendium.book.cards.facts import (
    QUANTITIES,
    _HEX,
    _language_name,
    _languages_of,
    _pct,
    _systems_of,
    split_quantity,
)
from compendium.book.cards.rules import CAVEAT_RULES, caveat_rules
from compendium.book.cards.rules import caveats  # noqa: F401 (the examples)


# --------------------------------------------------------------------------- HTML

#: The cards' style sheet (package data).
_CSS = resources.files(__package__).joinpath("cards.css").read_text(encoding="utf-8")


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


def _outputs_tables(f: Mapping, cell: Callable[[str], str]) -> list[str]:
    """Coverage and the emoji profile: the card's tables (none without facts)."""
    esc = html.escape
    out: list[str] = []
    rows = [[esc(QUANTITIES[q][0]), cell(q)] for q in ("outputs", "valid_share", "retry_share", "max_attempts",
                                                         "mean_emojis") if q in f]
    if rows:
        out.append(_table("Outputs (all languages)", ["", "value"], rows))
    profile = [q for q in f if split_quantity(q)[0] == "emojis"]
    if profile:
        header = ["emojis"] + [split_quantity(q)[1] for q in profile]
        out.append(_table("Emoji count of the outputs (graphemes)", header,
                          [["share"] + [cell(q) for q in profile]]))
    return out


def _ead_tables(f: Mapping, cell: Callable[[str], str]) -> list[str]:
    """EAD per language with its floors: the card's tables (none without facts)."""
    esc = html.escape
    out: list[str] = []
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
    return out


def _preference_tables(f: Mapping, cell: Callable[[str], str]) -> list[str]:
    """MOS overall, per annotator and per panel, and the panel's G: the card's tables (none without facts)."""
    esc = html.escape
    out: list[str] = []
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
    return out


def _length_tables(f: Mapping, cell: Callable[[str], str]) -> list[str]:
    """The length-matched comparison: the card's tables (none without facts)."""
    esc = html.escape
    out: list[str] = []
    rows = [[esc(QUANTITIES[q][0]), cell(q)] for q in ("win_rate", "win_rank", "matched_comparisons",
                                                         "mean_emojis_rated", "count_rank") if q in f]
    if rows:
        out.append(_table("Length-matched comparison", ["", "value"], rows))
    return out


def _cost_tables(f: Mapping, cell: Callable[[str], str]) -> list[str]:
    """Token costs per language: the card's tables (none without facts)."""
    esc = html.escape
    out: list[str] = []
    cost_bases = [("prompt_tokens_per_byte", "prompt per byte"), ("prompt_tokens_per_char", "prompt per char"),
                  ("completion_tokens", "completion per item"),
                  ("completion_tokens_per_emoji", "completion per emoji")]
    cost_langs = _languages_of([split_quantity(q)[1] for q in f if split_quantity(q)[0] in dict(cost_bases)])
    if cost_langs:
        cols = [(b, h) for b, h in cost_bases if any(f"{b}[{lang}]" in f for lang in cost_langs)]
        rows = [[esc(_language_name(lang))] + [cell(f"{b}[{lang}]") for b, _ in cols] for lang in cost_langs]
        out.append(_table("Tokens", ["language"] + [h for _, h in cols], rows))
    return out


def card_html(
    facts: pd.DataFrame,
    system: str,
    *,
    data_label: str = "simulated",
    label: str | None = None,
    colour: str | None = None,
    shared: Sequence[str] = (),
    emojis: Sequence[tuple[str, float]] = (),
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
        Which data the numbers come from (:func:`compendium.book.report.data_label`).
    label : str, optional
        Display name; default :data:`compendium.data.schema.SYSTEM_LABELS` or the
        system's name.
    colour : str, optional
        ``#RRGGBB`` accent; default :data:`compendium.book.report.SYSTEM_COLOURS`.
        Anything else is ignored.
    shared : sequence of str
        Caveat rules that hold for every system (:func:`shared_caveats`):
        stated once above the cards by :func:`cards_html`, left off the card
        so that it lists only what distinguishes this system.
    emojis : sequence of (str, float)
        The system's most frequent emojis and each one's share of its emojis
        (:func:`top_emojis`), shown under the heading in the book's emoji font.

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
        from compendium.book.report import SYSTEM_COLOURS

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
    if len(emojis):
        shown = " ".join(f'<span class="sc-emoji" title="{esc(e)}: {_pct(share)} of its emojis">{esc(e)}</span>'
                         f'<small>{_pct(share, 0)}</small>' for e, share in emojis)
        out.append(f'<p class="sc-emojis">Most frequent emojis ({esc(data_label)} outputs): {shown}</p>')

    def cell(q):
        return esc(_with_ci(f[q])) if q in f else "\u2013"

    for tables in (_outputs_tables, _ead_tables, _preference_tables, _length_tables, _cost_tables):
        out += tables(f, cell)

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
    >>> f = pd.DataFrame({"system": ["x", "y", "x"], "section": "caveats",
    ...                   "quantity": ["retries", "retries", "invalid_outputs"],
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
    emojis: pd.DataFrame | None = None,
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
        Display names (default :data:`compendium.data.schema.SYSTEM_LABELS`).
    emojis : DataFrame, optional
        :func:`top_emojis`: each card shows its system's most frequent emojis.

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
    per_system = {} if emojis is None else {
        str(system): list(zip(part["emoji"], part["share"])) for system, part in emojis.groupby("system", sort=False)}
    cards = "".join(card_html(facts, s, data_label=data_label, label=labels.get(s, s), shared=shared,
                              emojis=per_system.get(s, ())) for s in systems)
    return (f'<div class="sc-cards"><style>{_CSS}</style>'
            f'<nav class="sc-nav" aria-label="System cards">{nav}</nav>{preface}'
            f'<div class="sc-grid">{cards}</div></div>')


def top_emojis(generations: pd.DataFrame, n: int = 5) -> pd.DataFrame:
    """Each system's ``n`` most frequent emojis over all its outputs, counted as graphemes.

    Parameters
    ----------
    generations : DataFrame
        Columns ``system`` and ``output`` (the raw responses).
    n : int
        How many per system.

    Returns
    -------
    DataFrame
        ``system, emoji, count, share`` (share of the system's emoji graphemes), most frequent first,
        ties in order of the emoji; systems in order of first appearance.

    Examples
    --------
    >>> g = pd.DataFrame({"system": ["a", "a", "b"], "output": ["😂😂🎷", "😂", "✨"]})
    >>> for row in top_emojis(g, 2).to_dict("records")[:2]:
    ...     print(row)
    {'system': 'a', 'emoji': '😂', 'count': 3, 'share': 0.75}
    {'system': 'a', 'emoji': '🎷', 'count': 1, 'share': 0.25}
    """
    from collections import Counter

    from compendium.analyses.emoji import graphemes

    rows = []
    for system, part in generations.groupby("system", sort=False):
        counts = Counter(e for text in part["output"].tolist() for e in graphemes(text))
        total = sum(counts.values())
        for emoji, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]:
            rows.append({"system": str(system), "emoji": emoji, "count": int(count), "share": count / total})
    return pd.DataFrame(rows, columns=["system", "emoji", "count", "share"])
