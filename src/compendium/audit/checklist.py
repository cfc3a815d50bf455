"""The section-10 checklist of an audit, and the audit in words.

:func:`checklist` marks each of the paper's six recommendations (section 10)
as met, not met, not applicable or (the first) "reported; agreement is low" for one study, from the summary that
:func:`compendium.audit.core.audit` computes; :func:`write_checklist` writes it as
CSV and :func:`summary_lines` says the design, the headline numbers and the
checklist in a few lines for the terminal. Nothing here computes a
statistic: it reads the summary (or its JSON read back) and words it.
:mod:`compendium.audit.core` re-exports the public names.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from compendium.data._files import write_text_atomic
from compendium.data.escape import csv_frame

__all__ = [
    "RECOMMENDATIONS",
    "ALPHA_TENTATIVE",
    "LOW_AGREEMENT",
    "STATUSES",
    "SIGNIFICANCE",
    "checklist",
    "write_checklist",
    "summary_lines",
]

#: Alpha below which Krippendorff (2004, p. 241) advises against even
#: tentative conclusions.
ALPHA_TENTATIVE = 0.667
#: Recommendation 1's status when the coefficient is reported (the audit computes it) but below the bar: the
#: recommendation is to report it, which is done; what fails is the agreement, and the status says so.
LOW_AGREEMENT = "reported; agreement is low"
#: Every status an entry can have, in the order the report counts them.
STATUSES = ("met", LOW_AGREEMENT, "not met", "not applicable")
#: Level of the significance tests of the checklist.
SIGNIFICANCE = 0.05

#: The six recommendations of the paper's section 10 (id, short form).
RECOMMENDATIONS = (
    (1, "Report agreement with a bias-sensitive coefficient"),
    (2, "Treat annotators as a random factor"),
    (3, "Run a decision study before scaling up collection"),
    (4, "Length-match, do not length-adjust"),
    (5, "Report a reference-based metric next to preference"),
    (6, "Centre embeddings, disclose token units, split multi-view tables by source item"),
)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _fmt(value: Any, digits: int = 3) -> str:
    return f"{value:.{digits}f}" if _is_number(value) else str(value)


def _p(value: float) -> str:
    return f"p = {value:.3g}" if value >= 1e-4 else "p < 0.0001"


def _df(value: Any) -> str:
    """Degrees of freedom: whole numbers as such, Satterthwaite's to one decimal."""
    if not _is_number(value):
        return str(value)
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"



def _is_interval(value: Any) -> bool:
    """A finite (low, high) pair, as the summary stores a confidence interval."""
    return isinstance(value, (list, tuple)) and all(_is_number(v) for v in value)


def _state(summary: Mapping, key: str) -> str:
    """A statistic that is not a number, in words: 'not computable: <why>'."""
    value = summary.get(key)
    why = (summary.get("reasons") or {}).get(key)
    if why is None and isinstance(value, str):
        return value
    if why is None:
        n_values = (summary.get("rating_scale") or {}).get("n_values")
        why = ("every rating is the same value, so there is no variance to compare" if n_values == 1
               else "no finite value")
    return f"not computable: {why}"


#: Recommendation 5 on a rating table: there is nothing to compute a reference-based metric from.
_NO_REFERENCES = (
    "A ratings table holds no references or labels, so no reference-based metric can be computed from it. Report one "
    "beside the preference scores (the paper's emoji-affect decodability; for machine translation, e.g. chrF or COMET "
    "against references): unlike a panel mean, it does not move when the panel changes.")
#: Recommendation 6 on a rating table: embeddings, corpora, token costs and splits are not in it.
_NOT_IN_RATINGS = (
    "These concern embeddings (centre them before reporting anisotropy), corpora (non-parallel corpora are not "
    "evidence of alignment), token costs (per character, with the bytes-per-character ratio) and train/test splits, "
    "none of which a rating table contains. If these judgements are later used to train or test a metric, split them "
    "by item: the systems' outputs for one item are views of the same source.")


def checklist(summary: Mapping) -> list[dict]:
    """The paper's six recommendations (section 10), judged for one study.

    Each entry: ``id`` (1-6), ``recommendation``, ``status`` (``"met"``,
    ``"not met"``, ``"not applicable"``, or for the first
    ``"reported; agreement is low"``, :data:`LOW_AGREEMENT`) and ``reason``. "Met" is a
    statement about the study's data, read through the recommendation:

    1. *Agreement*: met when the lower 95 % bound of Krippendorff's alpha
       is at least 0.667, the least Krippendorff (2004) accepts even for
       tentative conclusions; the bound is that of the item-cluster
       bootstrap (``alpha_ci_cluster``: items resampled with all their
       outputs) when the summary has it, else of the unit bootstrap
       (``alpha_ci``); the reason sets alpha beside Pearson's r and the
       raters' means.
    2. *Annotators random*: met when the system effect is significant (at
       .05) with the raters random, i.e. the systems differ for raters in
       general, not only for these raters: judged on the quasi-F (items and
       raters random, Satterthwaite df; ``p_vs_quasi``), or on the F
       against the system x rater interaction when the quasi-F is
       undefined (its error mean square not positive) or absent. On an
       incomplete design, judged on the REML F test (``system_test_reml``:
       items and raters random, Satterthwaite df as lmerTest).
    3. *Decision study*: met when G >= 0.8 at the study's numbers of items
       and raters, G from the *unbiased* system variance (``G``; the
       paper's observed-variance ``G_observed`` is quoted beside it); the
       reason gives the raters needed for 0.8 and 0.9 and whether more
       items alone could get there. On an incomplete design the panel is
       the raters each item had (``raters_per_item``), not the pool.
    4. *Length-match*: not applicable without lengths (or without any
       equal-length pair); otherwise met when the top system by mean rating
       is also top by the length-matched win rate.
    5. *Reference-based metric* and 6. *embeddings, token units, splits*:
       not applicable from ratings alone (explained in the reason).

    Statistics that are not computable (an incomplete design) make their
    recommendation not applicable, with the reason.

    Parameters
    ----------
    summary : mapping
        :func:`compendium.audit.core.audit` output (or the JSON read back).

    Returns
    -------
    list of dict
    """
    out = [_entry(number, *judge(summary)) for number, judge in
           ((1, _agreement_entry), (2, _random_raters_entry), (3, _decision_study_entry), (4, _length_entry))]
    # 5. and 6. outside a rating table
    out += [_entry(5, "not applicable", _NO_REFERENCES), _entry(6, "not applicable", _NOT_IN_RATINGS)]
    return out


def _entry(number: int, status: str, reason: str) -> dict:
    """One entry of the checklist."""
    return {"id": number, "recommendation": dict(RECOMMENDATIONS)[number], "status": status, "reason": reason}


def _agreement_entry(summary: Mapping) -> tuple[str, str]:
    """Recommendation 1 (agreement): alpha's lower 95 % bound (the item-cluster bootstrap's where there is one), else
    ICC(2,1)'s, against 0.667: (status, reason)."""
    point, ci = summary.get("alpha"), summary.get("alpha_ci")
    cluster_ci = summary.get("alpha_ci_cluster")
    resampled = "unit bootstrap"
    if _is_interval(cluster_ci):
        ci, resampled = cluster_ci, "item-cluster bootstrap"
    pearson = [p["r"] for p in summary.get("pearson", []) if _is_number(p.get("r"))]
    means = [r["mean"] for r in summary.get("rater_summary", []) if _is_number(r.get("mean"))]
    context = ""
    if pearson:
        context += (f" Pearson r between raters ranges {min(pearson):.2f} to {max(pearson):.2f}, which is blind to "
                    "rater bias;")
    if means:
        context += f" rater means range {min(means):.2f} to {max(means):.2f}."
    icc = summary.get("icc", {}).get("ICC(2,1)", {}) if isinstance(summary.get("icc"), Mapping) else {}
    if _is_number(point) and _is_interval(ci):
        icc_text = f" ICC(2,1) = {summary['icc_2_1']:.3f}." if _is_number(summary.get("icc_2_1")) else ""
        met = ci[0] >= ALPHA_TENTATIVE
        return ("met" if met else LOW_AGREEMENT,
            f"{str(summary.get('alpha_level', 'ordinal')).capitalize()} alpha = {point:.3f} (95% {resampled} CI "
            f"[{ci[0]:.3f}, {ci[1]:.3f}]) "
            + ("clears" if met else "does not clear")
            + f" {ALPHA_TENTATIVE}, the least Krippendorff accepts for tentative conclusions.{icc_text}{context}")
    elif _is_number(icc.get("ICC")) and _is_number(icc.get("ci_low")):
        met = icc["ci_low"] >= ALPHA_TENTATIVE
        return ("met" if met else LOW_AGREEMENT,
            f"Alpha is {_state(summary, 'alpha')}. ICC(2,1) = {icc['ICC']:.3f} (95% CI [{icc['ci_low']:.3f}, "
            f"{icc['ci_high']:.3f}]) "
            + ("clears" if met else "does not clear")
            + f" {ALPHA_TENTATIVE}, the bar used for alpha.{context}")
    else:
        return ("not applicable", f"Alpha is {_state(summary, 'alpha')}.")


def _random_raters_entry(summary: Mapping) -> tuple[str, str]:
    """Recommendation 2 (annotators random): the system effect by the quasi-F or against system x rater, by REML on an
    incomplete design: (status, reason)."""
    # 2. annotators as a random factor: the quasi-F, or the system x rater test without it
    p_res = summary.get("p_vs_residual")
    if _is_number(summary.get("p_vs_quasi")) and _is_number(summary.get("F_vs_quasi")):
        random_key, random_name = "quasi", ("the quasi-F (error MS(item x system) + MS(system x rater) - MS(residual), "
                                            "items and raters random)")
    else:
        random_key, random_name = "interaction", "the F against the system x rater interaction"
    p_int = summary.get(f"p_vs_{random_key}")
    reml_test = summary.get("system_test_reml")
    if not _is_number(p_int) and isinstance(reml_test, Mapping) and _is_number(reml_test.get("p")):
        # An incomplete design: the REML F test (items and raters random, Satterthwaite df) needs no complete design.
        f_reml = (f"F({_df(reml_test.get('df1'))}, {_df(reml_test.get('df2'))}) = {reml_test['F']:.2f}, "
                  f"{_p(reml_test['p'])}")
        if reml_test["p"] < SIGNIFICANCE:
            return ("met", f"The system effect is significant with the raters random, by the REML F test (items and "
                f"raters random, Satterthwaite df as lmerTest; {f_reml}), so the systems differ for raters in general, "
                f"not only for these {summary.get('n_raters')}. The design is incomplete, so the classical ANOVA F "
                "tests (raters fixed or random) are not computed.")
        else:
            return ("not met", f"With the raters random, by the REML F test (items and raters random, Satterthwaite df "
                f"as lmerTest), the system effect is not significant ({f_reml}). The design is incomplete, so the "
                "classical ANOVA F tests are not computed.")
    elif _is_number(p_int) and _is_number(p_res):
        d_res, d_int = summary.get("df_vs_residual", ["?", "?"]), summary.get(f"df_vs_{random_key}", ["?", "?"])
        f_res = f"F({_df(d_res[0])}, {_df(d_res[1])}) = {summary['F_vs_residual']:.2f}, {_p(p_res)}"
        f_int = f"F({_df(d_int[0])}, {_df(d_int[1])}) = {summary[f'F_vs_{random_key}']:.2f}, {_p(p_int)}"
        if p_int < SIGNIFICANCE:
            return ("met", f"The system effect is significant with the raters random, by {random_name} ({f_int}), so "
                           "the "
                f"systems differ for raters in general, not only for these {summary.get('n_raters')} (against the "
                f"residual, raters fixed: {f_res}).")
        elif p_res < SIGNIFICANCE:
            return ("not met", "The system effect is significant only with the raters fixed (against the residual: "
                               f"{f_res}); "
                f"with the raters random, by {random_name}, the right test when raters are a sample, it is not "
                f"({f_int}).")
        else:
            return ("not met", "No significant system effect under either error term (raters fixed, against the "
                               "residual: "
                f"{f_res}; raters random, by {random_name}: {f_int}).")
    else:
        reasons = summary.get("reasons") or {}
        why = reasons.get(f"p_vs_{random_key}")
        if why is None and isinstance(p_int, str):
            why = p_int.removeprefix("not computable: ")
        if why is None:
            n_values = (summary.get("rating_scale") or {}).get("n_values")
            why = ("every rating is the same value, so there is no variance to test" if n_values == 1 else
                   "their mean squares are zero, so the F ratios are not numbers")
        return ("not applicable", f"The system effect cannot be tested: {why}.")


def _decision_study_entry(summary: Mapping) -> tuple[str, str]:
    """Recommendation 3 (decision study): G from the unbiased system variance against 0.8, with the raters each target
    needs: (status, reason)."""
    g = summary.get("G")
    if _is_number(g):
        n_p, n_r = summary.get("n_items"), summary.get("n_raters")
        per_item = summary.get("raters_per_item")
        panel_text = f"{n_r} raters"
        if summary.get("design_complete") is False and _is_number(per_item):
            # An incomplete design: G is that of the panel each item actually had, not of the pool.
            n_r = round(per_item)
            shown = f"{per_item:.3g}" if abs(per_item - n_r) > 1e-9 else f"{n_r}"
            panel_text = f"{shown} raters per item (from a pool of {summary.get('n_raters')})"
        need = []
        for target, key in ((0.8, "raters_for_G80"), (0.9, "raters_for_G90")):
            n = summary.get(key)
            need.append(f"{n} rater{'s' if n != 1 else ''} for G >= {target}" if n is not None
                        else f"no number of raters reaches G >= {target}")
        limit = summary.get("G_limit_items_unbounded")
        tail = ""
        if _is_number(limit) and limit < 0.8:
            tail = f" With {n_r} raters no number of items reaches 0.8 (G tends to {limit:.3f}): only more raters help."
        g_ci = summary.get("G_ci")
        ci_text = (f" (95% CI [{g_ci[0]:.3f}, {g_ci[1]:.3f}])"
                   if _is_interval(g_ci) else "")
        observed = summary.get("G_observed")
        observed_text = (f" The paper's G, from the observed variance of the system means, is {observed:.3f}; that "
                         "variance includes the sampling error of the means, so it overstates G."
                         if _is_number(observed) else "")
        return ("met" if g >= 0.8 else "not met",
            f"G = {g:.3f}{ci_text} at {n_p} items and {panel_text}, from the unbiased system variance; at {n_p} items "
            f"a crossed panel needs {need[0]} and {need[1]}.{tail}{observed_text}")
    else:
        return ("not applicable", f"G is {_state(summary, 'G')}.")


def _length_entry(summary: Mapping) -> tuple[str, str]:
    """Recommendation 4 (length-match): the top system by mean rating against the top by length-matched win rate:
    (status, reason)."""
    if "length_slope" not in summary and "matched_win_rates" not in summary:
        return ("not applicable", "No per-output lengths were given (--lengths FILE), so the length slope and the "
            "length-matched comparison cannot be computed.")
    elif not isinstance(summary.get("matched_win_rates"), list):
        return ("not applicable", f"The length-matched win rates are {summary.get('matched_win_rates')}.")
    else:
        slope = summary.get("length_slope")
        slope_text = (f"The judgement-level slope is {slope['slope']:.3g} rating points per unit of length "
                      f"({_p(slope['p'])}). "
                      if isinstance(slope, Mapping) and _is_number(slope.get("slope")) else "")
        mos, matched = summary.get("mos_winner", []), summary.get("matched_winner", [])
        rho = summary.get("matched_rho_with_mos", {})
        rho_text = (" The two orderings correlate at rho = "
                    f"{rho['rho']:.2f}.") if isinstance(rho, Mapping) and _is_number(rho.get("rho")) else ""
        same = bool(set(mos) & set(matched))
        return ("met" if same else "not met",
            f"{slope_text}Over {summary.get('matched_comparisons')} within-item comparisons of equal-length outputs "
            "the "
            f"winner is {' / '.join(matched) or '?'}; by mean rating it is {' / '.join(mos) or '?'}"
            + (" -- the ranking survives length matching." if same else " -- the top of the ranking does not survive "
                                                                        "length matching.")
            + rho_text)


def write_checklist(summary: Mapping, path: str | os.PathLike) -> Path:
    """Write the summary's checklist (id, recommendation, status, reason) as CSV, atomically.

    A reason quotes names from the data (the winner, say); a cell a spreadsheet would run as a formula is
    guarded (:func:`compendium.data.escape.csv_frame`).
    """
    frame = pd.DataFrame(summary["checklist"], columns=["id", "recommendation", "status", "reason"])
    return write_text_atomic(path, csv_frame(frame).to_csv(index=False, lineterminator="\n"))


def _missing_text(summary: Mapping) -> str:
    """How many cells are missing and which strings were read as missing."""
    read = summary.get("missing_read") or {}
    tokens = [t for t in summary.get("missing_values", [""])]
    named = ", ".join("an empty field" if t == "" else repr(t) for t in tokens)
    n_ratings = summary.get("missing_ratings", 0)
    counted = "; ".join(f"{'empty' if t == '' else repr(t)}: {n}" for t, n in read.items())
    text = (f"missing: {summary.get('missing_cells', 0):,} of {summary.get('n_cells', 0):,} cells have no rating; "
            f"{n_ratings:,} rating{'s' if n_ratings != 1 else ''} read as missing")
    text += f" ({counted})" if counted else ""
    return text + f"; read as missing: {named}"


def _raters(n: Any, target: float, n_items: Any) -> str:
    return f"{n} for G >= {target}" if _is_number(n) else f"none reaches {target} at {n_items} items"


def summary_lines(summary: Mapping) -> list[str]:
    """A few lines for the terminal: the design, the missing values, the headline numbers, the winners, the checklist.

    The headline numbers: alpha with its interval; on a complete design ICC(2,1) and the F tests; G (unbiased) with
    its interval, G observed (the paper's), the raters needed for G >= 0.8 and 0.9; and the winner under the full
    panel and under each leave-one-rater-out panel. A statistic that is not computable is said so, with its reason.
    """
    reasons = summary.get("reasons") or {}
    lines = [
        f"{summary['n_items']} items x {summary['n_systems']} systems x {summary['n_raters']} raters, "
        f"{summary['n_judgements']} judgements"
        + ("" if summary.get("design_complete") else f", {summary['missing_cells']} missing cells"),
        _missing_text(summary),
    ]
    alpha = summary.get("alpha")
    parts = [f"{summary.get('alpha_level', 'ordinal')} alpha {_fmt(alpha)} [{_fmt(summary['alpha_ci'][0])}, "
             f"{_fmt(summary['alpha_ci'][1])}]"
             if _is_number(alpha) and _is_interval(summary.get("alpha_ci")) else
             f"{summary.get('alpha_level', 'ordinal')} alpha not computable ({reasons.get('alpha', alpha)})"]
    cluster_ci = summary.get("alpha_ci_cluster")
    if _is_number(alpha) and _is_interval(cluster_ci):
        parts[0] += f" (unit bootstrap; item-cluster [{_fmt(cluster_ci[0])}, {_fmt(cluster_ci[1])}])"
    if _is_number(summary.get("p_vs_interaction")):  # complete designs only (REML gives G without them)
        parts += [
            f"ICC(2,1) {_fmt(summary['icc_2_1'])}",
            f"F vs system x rater {_fmt(summary['F_vs_interaction'], 2)} ({_p(summary['p_vs_interaction'])})",
        ]
        if _is_number(summary.get("F_vs_quasi")):
            parts.append(f"quasi-F {_fmt(summary['F_vs_quasi'], 2)} ({_p(summary['p_vs_quasi'])})")
    reml = summary.get("system_test_reml")
    if isinstance(reml, Mapping) and _is_number(reml.get("p")):
        parts.append(f"REML F({_df(reml.get('df1'))}, {_df(reml.get('df2'))}) = {_fmt(reml['F'], 2)} ({_p(reml['p'])})")
    lines.append(", ".join(parts))
    if _is_number(summary.get("G")):
        g_ci = summary.get("G_ci")
        ci_text = f" [{_fmt(g_ci[0])}, {_fmt(g_ci[1])}]" if _is_interval(g_ci) else \
            f" (no interval: {reasons.get('G_ci', 'not computed')})"
        n_items = summary.get("n_items")
        lines.append(
            f"G {_fmt(summary['G'])}{ci_text} (systems fixed, unbiased"
            + (f"; systems random: {_fmt(summary['G_systems_random'])}"
               if _is_number(summary.get("G_systems_random")) else "")
            + f"; observed, as in the paper: {_fmt(summary.get('G_observed'))}); "
            f"raters needed: {_raters(summary.get('raters_for_G80'), 0.8, n_items)}, "
            f"{_raters(summary.get('raters_for_G90'), 0.9, n_items)}")
        mc, df = summary.get("G_ci_mc_error"), summary.get("G_ci_df")
        if _is_interval(g_ci) and _is_interval(mc) and _is_number(summary.get("interval_n_boot_G")):
            lines.append(f"  G's interval: parametric bootstrap, {summary['interval_n_boot_G']} REML refits; Monte "
                         "Carlo "
                         f"error of its ends ±{_fmt(mc[0])} and ±{_fmt(mc[1])} (more with --n-boot-g)")
        elif _is_interval(g_ci) and _is_interval(df):
            lines.append(f"  G's interval: noncentral F({_df(df[0])}, {_df(df[1])}) of the system means inverted, "
                         "systems "
                         "fixed (no refit; --g-interval bootstrap for the REML-refit bootstrap)")
    else:
        lines.append(f"G not computable ({reasons.get('G', summary.get('G'))})")
    loao = summary.get("loao")
    if isinstance(loao, Mapping) and isinstance(loao.get("winners"), Mapping):
        winners = loao["winners"]
        lines.append(f"winner: {winners.get('all', loao.get('winner_all'))} (all raters); "
                     f"changes in {loao.get('winner_changes')} of {loao.get('n_panels')} leave-one-rater-out panels")
        lines.extend(f"  {panel}: {winner}" for panel, winner in winners.items() if panel != "all")
    else:
        lines.append(f"leave-one-rater-out not computable ({reasons.get('loao', loao)})")
    lines += coverage_lines(summary)
    for entry in summary.get("checklist", []):
        lines.append(f"  [{entry['status']:>26}] {entry['id']}. {entry['recommendation']}")
    return lines


def coverage_lines(summary: Mapping) -> list[str]:
    """With ``--coverage``: how often G's interval and the system means' intervals covered, with their error."""
    measured = summary.get("coverage")
    if not isinstance(measured, Mapping):
        return []
    rows = measured["intervals"]
    text = lambda r: f"{r['coverage']:.3f} ± {r['mc_error']:.3f}"  # noqa: E731
    parts = [f"G {text(r)}" for r in rows if r["interval"] == "G"]
    means = [r for r in rows if r["interval"] == "system mean"]
    if means:
        low, high = min(means, key=lambda r: r["coverage"]), max(means, key=lambda r: r["coverage"])
        parts.append(f"system means {text(low)}" + (f" to {text(high)}" if high is not low else ""))
    return [f"coverage of the {measured['nominal']:.0%} intervals in {measured['n_measured']} studies simulated from "
            f"this study's fit: " + "; ".join(parts)]
