"""What the audit's report says around its numbers: the inputs it was run on, the data banner, and the one-sentence
notes for what a design allows, omits or lacks.

The report's notebook (``notebooks/08_audit.py``) calls these through :mod:`compendium.audit.core`, which
re-exports them; :data:`EXAMPLE` is the book's demonstration study.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from compendium.data.escape import markdown_code, markdown_text
from compendium.data.paths import project_root
from compendium.stats import tidy

__all__ = ["EXAMPLE", "resolve_inputs", "banner", "omitted", "design_note", "missing_note", "g_interval_note",
           "rater_pairs", "MAX_SHOWN", "shown", "cut_note"]

#: Rows (or, for the leave-one-out ranks, panels) a table of the report shows; the JSON summary holds them all.
MAX_SHOWN = 50

_EXAMPLE_DIR = project_root() / "data" / "examples"

#: The book's demonstration dataset (simulated MT direct assessment,
#: ``data/examples/README.md``) and its column names.
EXAMPLE = {
    "ratings": _EXAMPLE_DIR / "mt_direct_assessment.csv",
    "lengths": _EXAMPLE_DIR / "mt_lengths.csv",
    "item": "segment_id",
    "system": "system",
    "rater": "rater",
    "rating": "score",
    "length": "tokens",
}


def resolve_inputs(
    ratings_path: str | os.PathLike | None = None,
    lengths_path: str | os.PathLike | None = None,
    *,
    item: str | None = None,
    system: str | None = None,
    rater: str | None = None,
    rating: str | None = None,
    length: str | None = None,
) -> dict:
    """The files and column names the audit notebook reads, from its parameters.

    Without ``ratings_path`` the demonstration dataset (:data:`EXAMPLE`) with
    its lengths and column names; otherwise the given files, and for each
    column name left as None the compendium's default (``sentence_id,
    system, annotator, rating``, ``length``).

    Returns
    -------
    dict
        ``ratings`` (Path), ``lengths`` (Path or None), ``columns`` (item,
        system, rater, rating, length), ``demo`` (bool).
    """
    demo = ratings_path is None
    defaults = EXAMPLE if demo else {
        "item": tidy.ITEM, "system": tidy.SYSTEM, "rater": tidy.RATER, "rating": tidy.RATING, "length": "length",
    }
    given = {"item": item, "system": system, "rater": rater, "rating": rating, "length": length}
    columns = {k: (v if v is not None else defaults[k]) for k, v in given.items()}
    lengths = EXAMPLE["lengths"] if demo and lengths_path is None else lengths_path
    return {
        "ratings": Path(EXAMPLE["ratings"] if demo else ratings_path),
        "lengths": Path(lengths) if lengths is not None else None,
        "columns": columns,
        "demo": demo,
    }


def banner(inputs: Mapping):
    """The note that opens the report: which data the numbers come from."""
    from IPython.display import Markdown

    if inputs.get("demo"):
        text = (
            ":::{admonition} Simulated data\n:class: warning\n"
            "This chapter audits a **simulated** machine-translation human evaluation "
            f"({markdown_code('data/examples/' + Path(inputs['ratings']).name)}): 120 segments x 6 systems x 6 raters "
            "on a 0-100 "
            "direct-assessment scale, drawn from a variance-component model with known values (see "
            "`data/examples/README.md`). No translation was produced and nobody rated anything. It is not the "
            "simulated benchmark of the other chapters either: it stands in for *your* study, to show what the "
            "audit reports.\n:::"
        )
    else:
        lengths = f" and the output lengths in {markdown_code(inputs['lengths'])}" if inputs.get("lengths") else ""
        text = (
            ":::{admonition} Data\n:class: note\n"
            f"Every number below is computed from the judgements in {markdown_code(inputs['ratings'])}{lengths}.\n:::"
        )
    return Markdown(text)


def omitted(summary: Mapping, key: str, what: str):
    """One sentence in place of a statistic the study does not have: what is omitted, and why (``reasons[key]``)."""
    from IPython.display import Markdown

    return Markdown(omitted_text(summary, key, what))


def omitted_text(summary: Mapping, key: str, what: str) -> str:
    """:func:`omitted`'s sentence as Markdown text (the report written without a kernel renders it itself)."""
    why = (summary.get("reasons") or {}).get(key, "it was not computed for this study")
    why = why[0].lower() + why[1:] if why else why
    return f"*{markdown_text(what)} is omitted: {markdown_text(why)}.*"


def design_note(summary: Mapping):
    """What the design allows, in two sentences: which analyses the report shows and which it omits."""
    from IPython.display import Markdown

    return Markdown(design_text(summary))


def design_text(summary: Mapping) -> str:
    """:func:`design_note`'s sentences as text."""
    if summary.get("design_complete"):
        text = ("The design is complete, so every analysis below is computed, the ANOVA-based ones (intraclass "
                "correlations, the F tests of Table 1, the expected-mean-square variance components) included; the "
                "REML system test, meant for incomplete designs, is omitted.")
    else:
        per_item = summary.get("raters_per_item")
        per = f" (on average {per_item:.3g} raters per item)" if isinstance(per_item, (int, float)) else ""
        text = (f"The design is incomplete{per}: {summary.get('missing_cells', 0):,} of {summary.get('n_cells', 0):,} "
                "cells have no rating. Krippendorff's alpha, the REML variance components, G with its interval, "
                "the decision study, the REML system test and the leave-one-rater-out "
                "leaderboards are computed; the intraclass correlations and the classical F tests need every cell "
                "and are omitted, each with the reason.")
    return text


def missing_note(summary: Mapping):
    """How many cells and ratings are missing, and which strings were read as missing."""
    from IPython.display import Markdown

    return Markdown(missing_text(summary))


def missing_text(summary: Mapping) -> str:
    """:func:`missing_note`'s sentence as Markdown text."""
    from compendium.audit.checklist import _missing_text

    text = _missing_text(summary)
    return markdown_text(text[0].upper() + text[1:] + ".")


def g_interval_note(summary: Mapping):
    """How G's interval on an incomplete design was made, in a short paragraph (noncentral F or bootstrap)."""
    from IPython.display import Markdown

    return Markdown(g_interval_text(summary))


def g_interval_text(summary: Mapping) -> str:
    """:func:`g_interval_note`'s paragraph as Markdown text."""
    mc, df = summary.get("G_ci_mc_error"), summary.get("G_ci_df")
    if mc and summary.get("interval_n_boot_G"):
        return (
            f"G's interval is the percentile interval of a parametric bootstrap: {summary['interval_n_boot_G']} sets "
            f"of new ratings on the observed cells, drawn from the REML fit and refitted. Another seed would move its "
            f"ends by up to about ±{mc[0]:.3f} and ±{mc[1]:.3f} (their Monte Carlo error: half the width of the "
            "order-statistic 95% interval of each quantile); more replicates (`--n-boot-g`) shrink it. In simulations "
            "from real incomplete designs, such intervals cover the true G less often than 95%.")
    if df:
        return (
            f"G's interval treats the systems as fixed, as G does: the F ratio of the system means to their REML "
            f"error variance is taken as noncentral F({df[0]:.0f}, {df[1]:.1f}) (the second degrees of freedom "
            "Satterthwaite's) and inverted in its noncentrality, which maps one to one onto G. It needs no refit. "
            + measured_g_coverage() + " The parametric bootstrap of REML refits (`--g-interval bootstrap`) gives "
            "narrower intervals that cover less often.")
    return (f"G has no interval: {markdown_text((summary.get('reasons') or {}).get('G_ci', 'not computed'))}.")


def measured_g_coverage() -> str:
    """How often G's noncentral-F interval covered in studies simulated from the real incomplete designs of the
    book's record (:mod:`compendium.analyses.ledger.intervals`), in one sentence, with what measures it here."""
    from compendium.analyses.ledger import intervals

    rows = [d for d in intervals.load_record()["kinds"].get("G", {}).get("designs", []) if d.get("complete") is False]
    here = "`--coverage N` measures how often it covers on this design."
    if not rows:
        return here
    low, high = min(d["coverage"] for d in rows), max(d["coverage"] for d in rows)
    return (f"In studies simulated from {len(rows)} real incomplete designs it covered the true G {low:.3f} to "
            f"{high:.3f} of the time against a nominal 0.95 (the book's ledger, \"What the intervals are worth\"); "
            + here)


def raters_needed_text() -> str:
    """What the decision study's raters needed are worth, in one sentence: a point estimate, and how often a panel
    of the recommended size reached G >= 0.8 in studies simulated from the book's complete designs
    (:func:`compendium.analyses.ledger.intervals.raters_needed_span`)."""
    from compendium.analyses.ledger import intervals

    span = intervals.raters_needed_span(target=0.8)
    text = "The raters needed are a point estimate with no interval."
    if span is None:
        return text
    return (f"{text} In studies simulated from the book's complete designs, a panel of the recommended size reached "
            f"G ≥ 0.8 in {span[0]:.0%} to {span[1]:.0%} of them: where G is estimated imprecisely, the estimate "
            "often names too few raters (the book's ledger, \"What the intervals are worth\").")


def raters_needed_note():
    """:func:`raters_needed_text` for a notebook."""
    from IPython.display import Markdown

    return Markdown(raters_needed_text())


def rater_pairs(n_raters: int, computed: int, seed: int | None) -> dict:
    """What the pairwise rater statistics (Pearson's r, Kendall's tau) were computed on: every pair of raters up to
    :data:`compendium.stats.pairs.MAX_PAIRS`, and above it a seeded uniform sample of that many, with the
    sentence the report states it in."""
    from compendium.stats.pairs import MAX_PAIRS

    total = n_raters * (n_raters - 1) // 2
    sampled = computed < total
    if sampled:
        note = (f"Pearson's r and Kendall's τ between raters are computed on a uniform sample of {computed:,} of the "
                f"{total:,} pairs of the {n_raters:,} raters (seed {seed}): above {MAX_PAIRS:,} pairs the audit "
                "samples them, and their tables, ranges and p-values describe the sample.")
    else:
        note = f"Pearson's r and Kendall's τ are computed for all {total:,} pairs of raters."
    return {"raters": int(n_raters), "pairs": int(total), "computed": int(computed), "sampled": bool(sampled),
            "max_pairs": MAX_PAIRS, "seed": seed, "note": note}


def shown(frame, *, axis: int = 0, limit: int | None = None):
    """The part of a long table the report shows: its first ``limit`` rows (``axis=0``) or columns (``axis=1``),
    :data:`MAX_SHOWN` by default (a table of 10^4 raters took minutes to render and 25 MB of HTML); the JSON
    summary holds them all, and :func:`cut_note` says so."""
    limit = MAX_SHOWN if limit is None else limit
    return frame.iloc[:limit] if axis == 0 else frame.iloc[:, :limit]


def cut_note(frame, what: str, where: str, *, axis: int = 0, limit: int | None = None):
    """The sentence under a table cut by :func:`shown`: how many of how many ``what`` it shows, and the key of the
    JSON summary, ``where``, that has them all; None when the table is whole."""
    from IPython.display import Markdown

    text = cut_text(frame, what, where, axis=axis, limit=limit)
    return None if text is None else Markdown(text)


def cut_text(frame, what: str, where: str, *, axis: int = 0, limit: int | None = None) -> str | None:
    """:func:`cut_note`'s sentence as Markdown text; None when the table is whole."""
    limit = MAX_SHOWN if limit is None else limit
    size = frame.shape[axis]
    if size <= limit:
        return None
    return (f"*The first {limit} of {size:,} {markdown_text(what)} are shown; all of them are in the JSON "
            f"summary ({markdown_code(where)}).*")


def coverage_text(summary: Mapping) -> str:
    """What the measured coverage says, in one or two sentences (``--coverage``)."""
    from compendium.stats.coverage import RANGE

    measured = summary["coverage"]
    low = [r for r in measured["intervals"] if r["coverage"] + 2 * r["mc_error"] < RANGE[0]]
    named = ", ".join(("G" if r["interval"] == "G" else f"the mean of {markdown_text(r['system'])}") for r in low)
    return (f"{measured['n_measured']:,} of {measured['n_sim']:,} simulated studies refitted "
            f"({measured['seconds']:.0f} s). "
            + (f"These intervals cover clearly less than {measured['nominal']:.0%} on this design (coverage plus "
               f"twice its error below {RANGE[0]}): {named}. Read them as narrower than they claim."
               if low else f"No interval covers clearly less than {measured['nominal']:.0%} (coverage plus twice its "
               f"error below {RANGE[0]})."))
