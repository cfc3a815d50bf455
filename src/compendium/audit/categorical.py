"""Audit a pairwise preference study or a categorical labelling study (``--pairwise``, ``--labels``).

The counterparts of the rated audit (:mod:`compendium.audit.core`) for the two other ways human evaluations
are collected. Both compute in this process -- no notebook, no kernel, nothing beyond the base install --
and write the same three files as the rated audit: ``audit.html`` (one offline page, refused unless
inert: :func:`compendium.audit.report.check_inert`), ``audit.json`` (the summary, with the checklist and
every table) and ``checklist.csv`` (the paper's six recommendations of section 10, judged for the study).

* :func:`audit_pairwise` -- win rates and Bradley-Terry strengths with a bootstrap over items; nominal
  Krippendorff's alpha and Fleiss' kappa on the outcome of each (item, pair of systems); the winner and the
  order with each rater left out and by each rater alone; the raters a stable winner needs (a bootstrap
  over raters); whether the raters' disagreement about the systems exceeds the systems' own spread
  (:mod:`compendium.stats.preference`);
* :func:`audit_labels` -- nominal alpha and Fleiss' kappa with intervals, each annotator against the
  majority of the others, the confusion between annotators, and how often the majority label changes
  without one annotator (:mod:`compendium.stats.labels`).

Every name from the data reaches the page through :func:`compendium.data.escape.html_text` and the CSV
through :func:`compendium.data.escape.csv_frame`.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from compendium.audit.checklist import ALPHA_TENTATIVE, LOW_AGREEMENT, RECOMMENDATIONS, write_checklist
from compendium.audit.outputs import json_ready
from compendium.audit.report import _CSS, check_inert
from compendium.data._files import write_text_atomic
from compendium.data.escape import html_text
from compendium.stats import agreement
from compendium.stats import labels as _labels
from compendium.stats import preference as _pref

__all__ = ["audit_pairwise", "audit_labels", "checklist_pairwise", "checklist_labels", "summary_lines",
           "render_page", "write_report"]

#: Replicates of the bootstrap over raters, per panel size.
N_BOOT_RATERS = 200


def _records(frame: pd.DataFrame) -> list[dict]:
    return [json_ready(dict(zip(frame.columns, row))) for row in frame.itertuples(index=False, name=None)]


def _alpha(units: pd.DataFrame, unit: str, rater: str, label: str, *, n_boot: int, seed) -> dict:
    try:
        row = agreement.alpha_bootstrap_ci(units, unit=unit, rater=rater, rating=label, level="nominal",
                                           n_boot=n_boot, seed=seed).iloc[0]
    except ValueError as error:  # no unit with two codings, or one label throughout
        return {"alpha": None, "ci": None, "reason": str(error)}
    return {"alpha": float(row["alpha"]), "ci": [float(row["ci_low"]), float(row["ci_high"])],
            "n_units": int(row["n_units"]), "n_boot": int(row["n_boot"]), "n_valid": int(row["n_valid"])}


def audit_pairwise(
    frame: pd.DataFrame,
    roles: Mapping[str, str] | None = None,
    *,
    seed: int | None = 0,
    n_boot: int = 2000,
    n_boot_raters: int = N_BOOT_RATERS,
    source: str = "the judgements",
) -> tuple[dict, dict]:
    """The audit of a checked pairwise table (:func:`compendium.data.pairwise.read_pairwise`).

    Returns the summary (JSON-ready, with ``checklist``) and the tables the report shows.
    """
    roles = {**dict(zip(_pref.COLUMNS, _pref.COLUMNS)), **(roles or {})}
    c = _pref.comparisons(frame, **roles)
    table, fit = _pref.preference_table(c, n_boot=n_boot, seed=seed)
    loro = _pref.leave_one_rater_out(c)
    alone = _pref.per_rater(c)
    stability, needed = _pref.raters_for_stable_winner(c, n_boot=n_boot_raters, seed=seed)
    spread = _pref.rater_system_spread(c, n_boot=min(n_boot, 1000), seed=seed)
    units = _pref.outcome_units(c)
    kappa = _labels.fleiss_kappa(units, unit="unit", n_boot=n_boot, seed=seed)
    outcomes = units["label"].value_counts()
    summary = {
        "kind": "pairwise", "source": source, "columns": dict(roles),
        "n_judgements": len(frame), "n_items": len(c.items), "n_systems": c.n_systems, "n_raters": len(c.raters),
        "n_comparisons": int(units["unit"].nunique()),
        "ties": int(outcomes.get("tie", 0)), "tie_share": float(outcomes.get("tie", 0) / len(units)),
        "seed": seed, "n_boot": n_boot, "n_boot_raters": n_boot_raters,
        "winner": fit["winner"], "order": fit["order"], "winner_share_items": fit["winner_share"],
        "strengths_estimable": fit["order"] is not None, "n_valid_item_replicates": fit["n_valid"],
        "alpha_nominal": _alpha(units, "unit", "rater", "label", n_boot=n_boot, seed=seed),
        "fleiss_kappa": kappa,
        "loro": {"winner_all": fit["winner"], "n_panels": len(loro),
                 "winner_changes": int(loro["winner_changes"].sum()),
                 "panels": _records(loro)},
        # leave-one-rater-out on the items resampled: how often each removal changes the winner, and the gap
        "loro_resampled": _pref.winner_change_probability(c, n_boot=n_boot, seed=seed),
        "per_rater": _records(alone),
        "stable_winner": {"share": _pref.STABLE_SHARE, "raters_needed": needed, "n_raters": len(c.raters),
                          "stability": _records(stability)},
        "rater_system_spread": spread,
        "systems": _records(table),
    }
    summary["checklist"] = checklist_pairwise(summary)
    tables = {"systems": table, "leave one rater out": loro, "each rater alone": alone,
              "winner stability by panel size": stability}
    return json_ready(summary), tables


def audit_labels(frame: pd.DataFrame, roles: Mapping[str, str] | None = None, *, seed: int | None = 0,
                 n_boot: int = 2000, source: str = "the labels") -> tuple[dict, dict]:
    """The audit of a checked label table (:func:`compendium.data.pairwise.read_labels`)."""
    roles = {"item": "item", "rater": "rater", "label": "label", **(roles or {})}
    item, rater, label = roles["item"], roles["rater"], roles["label"]
    data = frame.rename(columns={item: "item", rater: "rater", label: "label"})
    kappa = _labels.fleiss_kappa(data, n_boot=n_boot, seed=seed)
    others = _labels.against_others(data)
    confusion = _labels.confusion(data)
    changes, overall = _labels.majority_changes(data)
    shares = data["label"].value_counts()
    summary = {
        "kind": "labels", "source": source, "columns": dict(roles),
        "n_labels": len(data), "n_items": int(data["item"].nunique()), "n_raters": int(data["rater"].nunique()),
        "categories": sorted(shares.index.tolist()),
        "label_counts": {str(k): int(v) for k, v in shares.sort_index().items()},
        "seed": seed, "n_boot": n_boot,
        "alpha_nominal": _alpha(data, "item", "rater", "label", n_boot=n_boot, seed=seed),
        "fleiss_kappa": kappa,
        "against_others": _records(others),
        "confusion": {"labels": list(confusion.index), "pairs": confusion.to_numpy().tolist()},
        "majority_changes": {**overall, "by_annotator": _records(changes)},
    }
    summary["checklist"] = checklist_labels(summary)
    tables = {"each annotator against the others' majority": others,
              "confusion between annotators (pairs of labels on the same item)": confusion.rename_axis("label"),
              "majority label without one annotator": changes}
    return json_ready(summary), tables


# --------------------------------------------------------------------------- checklist
def _entry(number: int, status: str, reason: str) -> dict:
    return {"id": number, "recommendation": dict(RECOMMENDATIONS)[number], "status": status, "reason": reason}


def _agreement_entry(summary: Mapping, what: str) -> dict:
    a = summary["alpha_nominal"]
    if a.get("alpha") is None:
        return _entry(1, "not applicable", f"nominal alpha is not computable: {a.get('reason')}")
    lo, hi = a["ci"]
    status = "met" if lo >= ALPHA_TENTATIVE else LOW_AGREEMENT
    k = summary["fleiss_kappa"]
    kappa = (f"Fleiss' kappa {k['kappa']:.3f} [{k['ci_low']:.3f}, {k['ci_high']:.3f}]" if k.get("kappa") is not None
             else k.get("reason", "Fleiss' kappa not computable"))
    return _entry(1, status, f"nominal Krippendorff's alpha on {what} {a['alpha']:.3f} [{lo:.3f}, {hi:.3f}]: the lower "
                             f"bound is {'at least' if status == 'met' else 'below'} {ALPHA_TENTATIVE}, the least "
                             f"Krippendorff accepts for tentative conclusions; {kappa}.")


_NOT_FROM_JUDGEMENTS = {
    4: "no output lengths are read with these judgements",
    5: "a reference-based metric cannot be computed from human judgements alone",
    6: "embeddings, token counts and splits are not part of human judgements",
}


def checklist_pairwise(summary: Mapping) -> list[dict]:
    """The six recommendations judged for a pairwise study.

    1. met when the lower 95% bound of nominal alpha on the outcomes is at least 0.667;
    2. met when no panel without one rater changes the winner and every rater alone names it: the winner
       does not depend on which of these raters judged (the pairwise reading of raters as a random factor);
    3. met when the bootstrap over raters finds a stable winner (named by at least 95% of panels) at the
       panel's own size or fewer;
    4-6. not applicable to preference judgements alone.
    """
    out = [_agreement_entry(summary, "the outcome of each comparison")]
    loro, winner = summary["loro"], summary["winner"]
    if winner is None:
        out.append(_entry(2, "not applicable", "the Bradley-Terry strengths do not exist for these judgements "
                                               "(some system never wins or never loses against the rest)"))
    else:
        alone = [p for p in summary["per_rater"] if p["winner"] != winner]
        met = loro["winner_changes"] == 0 and not alone
        out.append(_entry(2, "met" if met else "not met",
                          f"the winner ({winner}) changes in {loro['winner_changes']} of {loro['n_panels']} panels "
                          f"without one rater, and {len(alone)} of {len(summary['per_rater'])} raters alone name "
                          "another winner."))
    stable = summary["stable_winner"]
    needed, n = stable["raters_needed"], stable["n_raters"]
    if winner is None:
        out.append(_entry(3, "not applicable", "no winner to stabilise"))
    elif needed is None:
        out.append(_entry(3, "not met", f"no panel of up to {len(stable['stability'])} raters drawn from these {n} "
                                        "names "
                                        f"the winner in {stable['share']:.0%} of replicates."))
    else:
        out.append(_entry(3, "met" if needed <= n else "not met",
                          f"{needed} rater{'s' if needed != 1 else ''} name the winner in at least "
                          f"{stable['share']:.0%} "
                          f"of panels drawn from these {n} (bootstrap over raters, items fixed)."))
    out += [_entry(k, "not applicable", why) for k, why in _NOT_FROM_JUDGEMENTS.items()]
    return out


def checklist_labels(summary: Mapping) -> list[dict]:
    """The six recommendations judged for a labelling study: 1 as for pairwise; 2-6 not applicable (there are
    no systems to compare; the majority label's dependence on single annotators is reported instead)."""
    m = summary["majority_changes"]
    share = m.get("share_changed_by_some_annotator")
    moved = f"{share:.1%}" if share is not None else "none"
    return [
        _agreement_entry(summary, "the labels"),
        _entry(2, "not applicable", f"no systems are compared; without one annotator the majority label changes on "
                                    f"{moved} of the items that have one."),
        _entry(3, "not applicable", "no systems are compared, so there is no system mean to generalise."),
        *[_entry(k, "not applicable", why) for k, why in _NOT_FROM_JUDGEMENTS.items()],
    ]


# --------------------------------------------------------------------------- words
def _ci(value, interval, digits: int = 3) -> str:
    if value is None:
        return "not computable"
    return f"{value:.{digits}f}" + (f" [{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]" if interval else "")


def summary_lines(summary: Mapping) -> list[str]:
    """The design, the headline numbers and the checklist in a few lines for the terminal."""
    a, k = summary["alpha_nominal"], summary["fleiss_kappa"]
    agreement_line = (f"nominal alpha {_ci(a.get('alpha'), a.get('ci'))}, "
                      "Fleiss' kappa "
                      f"{_ci(k.get('kappa'), [k['ci_low'], k['ci_high']] if k.get('kappa') is not None else None)}")
    if summary["kind"] == "pairwise":
        loro, stable = summary["loro"], summary["stable_winner"]
        needed = stable["raters_needed"]
        if needed is None:
            needed = f"more than {len(stable['stability'])}"
        lines = [
            f"{summary['n_items']} items, {summary['n_systems']} systems, {summary['n_raters']} raters, "
            f"{summary['n_judgements']} pairwise judgements ({summary['tie_share']:.1%} ties, counted half a win each)",
            agreement_line,
            f"winner: {summary['winner']} (Bradley-Terry); changes in {loro['winner_changes']} of {loro['n_panels']} "
            "leave-one-rater-out panels",
            f"raters for a stable winner: {needed} (of {stable['n_raters']})",
        ]
    else:
        m = summary["majority_changes"]
        lines = [
            f"{summary['n_items']} items, {summary['n_raters']} annotators, {summary['n_labels']} labels in "
            f"{len(summary['categories'])} categories",
            agreement_line,
            f"majority label changes without one annotator on {m['changed_by_some_annotator']} of "
            f"{m['units_with_majority']} items that have one",
        ]
    lines += [f"  [{e['status']:>26}] {e['id']}. {e['recommendation']}" for e in summary["checklist"]]
    return lines


# --------------------------------------------------------------------------- the page
def _table(frame: pd.DataFrame, index: bool = False) -> str:
    def cell(value) -> str:
        if isinstance(value, float):
            return "" if value != value else f"{value:.3f}"
        if isinstance(value, (list, tuple)):
            return html_text(" > ".join(map(str, value)))
        return html_text(value)

    head = ([html_text(frame.index.name or "")] if index else []) + [html_text(c) for c in frame.columns]
    rows = []
    for label, row in zip(frame.index, frame.itertuples(index=False, name=None)):
        cells = ([f"<th>{html_text(label)}</th>"] if index else []) + [
            f'<td class="text">{cell(v)}</td>' if isinstance(v, (str, list, tuple)) else f"<td>{cell(v)}</td>"
            for v in row]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return ('<div class="table"><table><thead><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table></div>")


def render_page(summary: Mapping, tables: Mapping[str, pd.DataFrame]) -> str:
    """The report of a pairwise or label study (``summary["kind"]``) as one inert HTML page: the design, the
    headline lines, every table and the checklist. (A rated study's page is :func:`compendium.audit.page.render`'s.)
    """
    kind = summary["kind"]
    title = "Audit of a " + {"pairwise": "pairwise preference", "labels": "categorical labelling"}[kind] + " study"
    lines = summary_lines(summary)
    body = [f"<h1>{html.escape(title)}</h1>",
            f"<p>Input: <code>{html_text(summary.get('source') or 'a table')}</code>. Every number on this page is "
            f"computed from it; seed {html_text(summary['seed'])}, {html_text(summary['n_boot'])} bootstrap "
            "replicates.</p>",
            "<ul>" + "".join(f"<li>{html_text(line.strip())}</li>" for line in lines
                             if not line.startswith("  [")) + "</ul>"]
    if kind == "pairwise":
        spread = summary["rater_system_spread"]
        if spread.get("system_var") is not None:
            body.append(
                "<p>Raters against systems: the variance of the systems' strengths "
                f"{html_text(_ci(spread['system_var'], spread.get('system_var_ci')))} and of the rater x system "
                f"interaction {html_text(_ci(spread['rater_x_system_var'], spread.get('rater_x_system_var_ci')))}"
                " (each rater's own Bradley-Terry strengths; a rater's leniency cancels in a comparison, and the "
                "interaction holds each rater's estimation noise, so it bounds their disagreement from above). "
                + (f"The systems against that interaction, the raters random: F({spread['df'][0]}, {spread['df'][1]}) "
                   f"= {spread['F']:.2f}, p = {spread['p']:.2g}." if spread.get("F") is not None else
                   "The raters' strengths agree exactly, so the systems cannot be tested against their interaction.")
                + "</p>")
        body.append("<p>Ties count half a win to each side, in the win rates and in the Bradley-Terry fit. Intervals "
                    "are 95% percentile intervals of a bootstrap over items.</p>")
    for name, frame in tables.items():
        if name == "checklist":  # the section below
            continue
        body.append(f"<h2>{html_text(name[0].upper() + name[1:])}</h2>")
        body.append(_table(frame, index=not isinstance(frame.index, pd.RangeIndex)))
    body.append("<h2>Checklist (the paper's section 10)</h2>")
    body.append(_table(pd.DataFrame(summary["checklist"])[["id", "recommendation", "status", "reason"]]))
    page = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_CSS}'
        ".table{overflow-x:auto}td.text{text-align:left}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
    return check_inert(page)


def write_report(summary: Mapping, tables: Mapping[str, pd.DataFrame], folder: str | os.PathLike, json_path,
                 *, page: bool = True) -> list[str]:
    """Write ``audit.html`` (unless ``page`` is false), the JSON summary and ``checklist.csv``, each atomically,
    into a staging folder; return the names written into ``folder``."""
    from compendium.audit.core import write_json

    folder = Path(folder)
    text = render_page(summary, tables) if page else None  # refused before anything is written unless inert
    write_json(summary, json_path)
    write_checklist(summary, folder / "checklist.csv")
    if text is not None:
        write_text_atomic(folder / "audit.html", text)
    return (["audit.html"] if page else []) + [Path(json_path).name, "checklist.csv"]
