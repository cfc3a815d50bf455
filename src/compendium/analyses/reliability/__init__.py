"""Who is measured: annotators, systems and the leaderboard (paper section 4), on simulated and real panels.

The simulated analysis of chapter 2 is a sequence of calls to :mod:`compendium.stats` (agreement and ICC,
the ANOVA and its variance components, G and the decision study, leave-one-annotator-out), each tested there
against an outside reference. Its real twin is here:

* :mod:`~compendium.analyses.reliability.real` loads every public rated evaluation with rater identity as a
  panel (:func:`section4_panels`), gathers each panel's section-4 statistics from the panel and its audit
  summary (:func:`evaluation_row`), and the cross-benchmark table (:func:`cross_benchmark_table`);
* :mod:`~compendium.analyses.reliability.rules` states the decision rules and returns the verdicts, one per
  independent evaluation, which :func:`section4_checks` records.

The audit of each real panel runs above this wing (:mod:`compendium.book.real_benchmarks`), because the
audit itself builds on :mod:`compendium.analyses`.
"""

from compendium.analyses.reliability.real import (
    LABELS_EVALUATION,
    PAIRWISE_EVALUATION,
    RATIO_N_BOOT,
    SECTION4_N_BOOT,
    SECTION4_SEED,
    best_probability,
    cross_benchmark_table,
    evaluation_of,
    evaluation_row,
    labels_row,
    pairwise_row,
    ratio_text,
    section4_checks,
    section4_panels,
    stability_text,
    top_conditions,
)

__all__ = [
    "LABELS_EVALUATION",
    "PAIRWISE_EVALUATION",
    "RATIO_N_BOOT",
    "SECTION4_N_BOOT",
    "SECTION4_SEED",
    "best_probability",
    "cross_benchmark_table",
    "evaluation_of",
    "evaluation_row",
    "labels_row",
    "pairwise_row",
    "ratio_text",
    "section4_checks",
    "section4_panels",
    "stability_text",
    "top_conditions",
]
