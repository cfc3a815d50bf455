"""The annotator explorer's panels beyond the complete crossed design, and the real evaluations it offers.

:func:`compendium.book.explorer.precompute_panels` summarises every subset of a complete design's annotators with
the chapter's ANOVA. Real evaluations are often not complete: on WMT23 MQM each segment meets 3 of 8 or 10
raters, on SQuALITY each story 3 of 4; PandaLM's judgements are preferences between two responses. This module
computes their panels in the same structure (:data:`compendium.book.explorer.FORMAT_VERSION`), so that one page
script and one JupyterLab widget show them all, and with the functions the audit itself uses -- no second
implementation:

* :func:`precompute_incomplete` -- a rated design of any shape. Each panel's leaderboard is
  :func:`compendium.stats.gstudy.leave_raters_out` (the audit's leave-one-rater-out scores, GLS with the full
  panel's REML components); its statistics come from a REML refit of the panel's own ratings
  (:func:`~compendium.stats.gstudy.fit_gstudy`, :func:`~compendium.stats.gstudy.system_test`,
  :func:`~compendium.stats.gstudy.variance_components`, :func:`~compendium.stats.gstudy.g_summary`).
* :func:`precompute_pairwise` -- preferences. Each panel's leaderboard is
  :func:`compendium.stats.preference.preference_table` (Bradley-Terry, as the pairwise audit ranks), its
  raters-random test :func:`compendium.stats.preference.rater_system_spread`.
* :func:`held_subsets` -- which subsets are held: all of them up to :data:`ENUMERATE_ALL` raters, otherwise
  every panel without up to :data:`MAX_REMOVED` raters (each refit takes up to a second on MQM, and 2^10 of
  them would take the build a quarter of an hour).
* :func:`real_evaluations` -- the evaluations chapter 2's explorer offers, real first.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping, Sequence

import pandas as pd

from compendium.book.explorer import (
    FORMAT_VERSION,
    ONE_RATER,
    _levels,
    _number,
    _pvalue,
    f_text,
    precompute_panels,
    ratio_text,
)
from compendium.data.cache import cached
from compendium.stats import gstudy, preference, tidy

#: Every subset is held for a panel of at most this many raters (2^4 - 1 = 15 panels).
ENUMERATE_ALL = 4
#: Larger panels: every panel without at most this many of the raters.
MAX_REMOVED = 2


def held_subsets(annotators: Sequence[str]) -> tuple[list[tuple[str, ...]], str]:
    """The subsets of ``annotators`` the explorer holds, the full panel first, then by decreasing size in
    combination order, and the rule as the page states it.

    >>> held_subsets(["A1", "A2", "A3"])[0][:4]
    [('A1', 'A2', 'A3'), ('A1', 'A2'), ('A1', 'A3'), ('A2', 'A3')]
    >>> subsets, rule = held_subsets([f"R{i}" for i in range(10)])
    >>> len(subsets), rule[:60]
    (56, 'Every panel without at most 2 of the 10 raters is held (56 p')
    """
    n = len(annotators)
    smallest = 1 if n <= ENUMERATE_ALL else n - MAX_REMOVED
    subsets = [keep for size in range(n, smallest - 1, -1) for keep in itertools.combinations(annotators, size)]
    if smallest == 1:
        return subsets, "Every subset of the annotators is held."
    return subsets, (f"Every panel without at most {MAX_REMOVED} of the {n} raters is held ({len(subsets)} panels); "
                     f"REML refits of all {2 ** n - 1} would take the build too long.")


def _leaderboard(board: pd.DataFrame, system: str, labels: Mapping[str, str], score: str, mean: str) -> list[dict]:
    return [{"system": str(row[system]), "label": str(labels.get(str(row[system]), row[system])),
             "estimate": _number(row[score]), "mean": _number(row[mean]), "rank": int(row["rank"])}
            for _, row in board.iterrows()]


def _incomplete_statistics(part: pd.DataFrame) -> dict:
    """The REML statistics of one panel's own ratings (canonical columns), or what a panel of one rater lacks."""
    if part["rater"].nunique() < 2:
        lines = [["f-random", "Systems, raters random (REML F, Satterthwaite df)", ONE_RATER],
                 ["rater-ratio", "Rater leniency variance over the systems'", ONE_RATER],
                 ["g", "G of the system mean, this panel (design as run)", ONE_RATER]]
        return {"F_random": None, "p_random": None, "G": None, "statistics": lines}
    study = gstudy.fit_gstudy(part, item="item", system="system", rater="rater", rating="rating")
    test = gstudy.system_test(study)
    comps = gstudy.variance_components(study)["variance"]
    g = gstudy.g_summary(study)["G"]
    lines = [["f-random", "Systems, raters random (REML F, Satterthwaite df)",
              f_text(test["F"], test["p"], (test["df1"], test["df2"]))],
             ["rater-ratio", "Rater leniency variance over the systems'",
              ratio_text(float(comps["annotator"]), float(comps["system"]))],
             ["g", "G of the system mean, this panel (design as run)", f"{g:.3f}"]]
    return {"F_random": _number(test["F"]), "p_random": _pvalue(test["p"]), "G": _number(g), "statistics": lines}


def precompute_incomplete(
    ratings: pd.DataFrame,
    *,
    labels: Mapping[str, str] | None = None,
    higher_is_better: bool = True,
    item: str = tidy.ITEM,
    system: str = tidy.SYSTEM,
    rater: str = tidy.RATER,
    rating: str = tidy.RATING,
) -> dict:
    """The explorer's panels of a rated design of any shape (complete or not), by REML.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Tidy judgements, one rating per row; each item may meet any of the raters.
    labels : mapping of str to str, optional
        Display names of the systems (default: their own).
    higher_is_better : bool
        The direction of the scale (pass -MQM, as the audit does, or set False).
    item, system, rater, rating : str
        Column names.

    Returns
    -------
    dict
        :func:`compendium.book.explorer.precompute_panels`'s structure with ``design`` ``"incomplete"``: each
        subset of :func:`held_subsets` has ``annotators``, ``n_raters``, ``leaderboard`` (``system, label,
        estimate, mean, rank``: the GLS score the audit ranks by, and the plain mean), ``winner``, ``winners``,
        ``F_random``, ``p_random``, ``G`` and ``statistics``.
    """
    labels = dict(labels or {})
    ratings = ratings.assign(**{rater: ratings[rater].astype(str)})  # the panels name raters as the page does
    study = gstudy.fit_gstudy(ratings, item=item, system=system, rater=rater, rating=rating)
    annotators = _levels(study.data["rater"])
    subsets, rule = held_subsets(annotators)
    removed = [tuple(a for a in annotators if a not in keep) for keep in subsets]
    boards = gstudy.leave_raters_out(study, removed, higher_is_better=higher_is_better)
    canonical = study.data.assign(rater=study.data["rater"].astype(str))
    out = []
    for keep, (_, board) in zip(subsets, boards.groupby("panel", sort=False)):
        leaderboard = _leaderboard(board, system, labels, "estimate", "mean")
        part = canonical[canonical["rater"].isin(keep)]
        out.append({"annotators": list(keep), "n_raters": len(keep), "leaderboard": leaderboard,
                    "winner": str(board["winner"].iloc[0]),
                    "winners": [e["system"] for e in leaderboard if e["rank"] == 1],
                    **_incomplete_statistics(part)})
    return {"format": FORMAT_VERSION, "design": "incomplete",
            "columns": [["estimate", "Score (GLS)"], ["mean", "Mean rating"]], "rule": rule,
            "annotators": annotators,
            "systems": [{"system": str(s), "label": str(labels.get(str(s), s))} for s in study.systems],
            "subsets": out, "panels": []}


def _pairwise_panel(c: preference.Comparisons, labels: Mapping[str, str]) -> dict:
    table, fit = preference.preference_table(c, n_boot=0)
    board = table.assign(rank=table["strength"].rank(ascending=False, method="min"))
    leaderboard = _leaderboard(board.fillna({"rank": len(board)}), "system", labels, "strength", "win_rate")
    spread = preference.rater_system_spread(c, n_boot=0)
    single = len(c.raters) < 2
    lines = [["f-interaction", "Systems, raters random (F against rater \u00d7 system)",
              ONE_RATER if single else f_text(spread["F"], spread["p"], spread["df"])],
             ["rater-ratio", "Rater \u00d7 system variance over the systems' (Bradley\u2013Terry strengths)",
              ONE_RATER if single else ratio_text(spread["rater_x_system_var"], spread["system_var"])],
             ["g", "G of the system mean",
              "not defined for preferences: no judgement puts a response on a scale"]]
    return {"n_raters": len(c.raters), "leaderboard": leaderboard, "winner": str(fit["winner"]),
            "winners": [] if fit["winner"] is None else [fit["winner"]],
            "F_vs_interaction": None if single else _number(spread["F"]),
            "p_vs_interaction": None if single else _pvalue(spread["p"]), "G": None, "statistics": lines}


def precompute_pairwise(frame: pd.DataFrame, *, labels: Mapping[str, str] | None = None,
                        roles: Mapping[str, str] | None = None) -> dict:
    """The explorer's panels of pairwise judgements (:func:`compendium.stats.preference.comparisons`'s table).

    Each subset's leaderboard ranks the systems by their Bradley-Terry strength (``estimate``) beside their
    share of comparisons won (``mean``); its statistics are the raters-random F of the systems against the
    raters' disagreement about them, and that disagreement over the systems' variance. A rater's leniency cancels
    in a comparison, so the rater term here is rater x system.
    """
    labels = dict(labels or {})
    roles = {**dict(zip(preference.COLUMNS, preference.COLUMNS)), **(roles or {})}
    rater = roles["rater"]
    annotators = _levels(frame[rater])
    subsets, rule = held_subsets(annotators)
    full = preference.comparisons(frame, **roles)
    out = []
    for keep in subsets:
        part = frame[frame[rater].astype(str).isin(keep)]
        out.append({"annotators": list(keep), **_pairwise_panel(preference.comparisons(part, **roles), labels)})
    return {"format": FORMAT_VERSION, "design": "pairwise",
            "columns": [["estimate", "Bradley\u2013Terry strength"], ["mean", "Share won"]], "rule": rule,
            "annotators": annotators,
            "systems": [{"system": s, "label": str(labels.get(s, s))} for s in full.systems],
            "subsets": out, "panels": []}


#: The notes under the selector: what each real evaluation is (the design as chapter 10 audits it).
NOTES = {
    "SummEval": "Real: SummEval, 100 CNN/DailyMail documents x 16 summarisers, the same 3 experts rating {} 1-5.",
    "SQuALITY": "Real: SQuALITY, 100 stories x 3 responders (2 systems and the human reference), 4 raters, 3 of "
                "them on each story, rating the overall quality 0-100. Incomplete: scores are REML estimates.",
    "WMT23 en-de MQM": "Real: WMT23 en-de MQM, {} segments x 10 systems, 3 of 10 raters per segment. The score "
                       "is \u2212MQM (higher is better, as the audit reads it). Incomplete: scores are REML estimates.",
    "WMT23 zh-en MQM": "Real: WMT23 zh-en MQM, {} segments x 10 systems, 3 of 8 raters per segment. The score is "
                       "\u2212MQM (higher is better, as the audit reads it). Incomplete: scores are REML estimates.",
    "PandaLM": "Real: PandaLM's test set, {} pairs of responses from 5 LLMs, 3 annotators preferring one response "
               "or calling a tie. Pairwise: systems rank by Bradley-Terry strength.",
}


@cached("compendium")
def real_evaluations(real_dir: str | os.PathLike | None = None) -> list[list]:
    """The real evaluations chapter 2's explorer offers, as :func:`compendium.book.explorer.evaluation_set`
    entries (``[name, kind, note, data]``, lists so that the build's store keeps them exactly): SummEval's four
    dimensions, SQuALITY overall, WMT23 en-de and zh-en MQM (as -MQM, as chapter 10's audit), and PandaLM. A
    build artefact: the MQM panels' refits take a minute.
    """
    from compendium.data import real

    root = real.verify(real_dir)
    out = []
    for d in real.SUMMEVAL_DIMENSIONS:
        ratings = real.load_summeval(d, real_dir=root, verify_checksum=False)
        out.append([f"SummEval {d}", "real", NOTES["SummEval"].format(d),
                    precompute_panels(ratings, labels={}, item="item", rater="rater")])
    squality = real.load_squality("overall", real_dir=root, verify_checksum=False)
    out.append(["SQuALITY overall", "real", NOTES["SQuALITY"],
                precompute_incomplete(squality, item="item", rater="rater")])
    for name, pair in (("WMT23 en-de MQM", "ende"), ("WMT23 zh-en MQM", "zhen")):
        mqm = real.load_mqm(pair, real_dir=root, verify_checksum=False)
        out.append([name, "real", NOTES[name].format(mqm["item"].nunique()),
                    precompute_incomplete(mqm.assign(rating=-mqm["rating"]), item="item", rater="rater")])
    pandalm = real.load_pandalm(real_dir=root, verify_checksum=False)
    out.append(["PandaLM", "real", NOTES["PandaLM"].format(pandalm["item"].nunique()), precompute_pairwise(pandalm)])
    return out


__all__ = ["ENUMERATE_ALL", "MAX_REMOVED", "held_subsets", "precompute_incomplete", "precompute_pairwise",
           "real_evaluations"]
