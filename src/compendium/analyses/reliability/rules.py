"""Section 4's claims on real rated evaluations: the decision rules and the verdicts.

The paper's headline (section 4) makes three claims about its one panel of three annotators:

- treated as random, the annotators leave no system significantly different from any other
  (:data:`RULE_RANDOM_RATERS`);
- annotator identity explains far more rating variance than system identity, read as at least twice
  (:data:`RULE_RATERS_EXCEED`);
- the winner changes when a single annotator is removed: "whenever" in the abstract
  (:data:`RULE_WINNER_WHENEVER`), "in two of three cases" in section 4.4 (:data:`RULE_WINNER_SOME`).

Each verdict function takes the numbers the audit computes on one real evaluation (a "panel":
SummEval per dimension, WMT23 MQM, SQuALITY per property with and without its human reference, PandaLM's
pairwise preferences);
the panels of one evaluation give one verdict (:func:`evaluation_verdict`), and
:func:`pooled_verdict` pools the independent evaluations. The statistics themselves come from
:mod:`compendium.stats` (the F tests, the REML G study and its parametric bootstrap,
leave-one-rater-out); this module only decides.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from compendium.analyses.real import DOES_NOT_HOLD, HOLDS, INCONCLUSIVE, NOT_TESTABLE, Rule

__all__ = [
    "RULE_RANDOM_RATERS",
    "FAR_MORE",
    "RULE_RATERS_EXCEED",
    "G_TARGET",
    "RULE_THREE_RATERS_G",
    "verdict_three_raters_g",
    "RULE_WINNER_WHENEVER",
    "RULE_WINNER_SOME",
    "RULE_EVALUATION",
    "RULE_POOLED",
    "verdict_random_raters",
    "verdict_raters_exceed",
    "verdict_winner_whenever",
    "verdict_winner_some",
    "pooled_verdict",
    "evaluation_verdict",
]

ALPHA = 0.05

RULE_RANDOM_RATERS = Rule(
    quantity="p values of the F test of the system effect with the raters random (systems against system x rater "
             "on a complete design, the REML test with Satterthwaite df as lmerTest on an incomplete one, and for "
             "pairwise preferences each rater's own Bradley-Terry strengths, systems against system x rater) and "
             "with the raters fixed (the paper's conventional F, systems against the three-way residual, on a "
             "complete design; the additive least-squares model item + rater + system on an incomplete one; none "
             "for pairwise preferences)",
    paper="treating annotators as random rather than fixed, no system differs significantly from any other "
          "(F(7,14) = 0.59, p = 0.76)",
    rule="the claim is that treating the raters as random removes a system effect the fixed analysis finds: "
         "holds if the fixed-rater test rejects at 0.05 and the random-rater test does not; does not hold if the "
         "random-rater test rejects; inconclusive if neither rejects or there is no fixed-rater test (no "
         "significance to lose, and a non-rejection with no equivalence bound supports nothing); not testable "
         "here when the random-rater test cannot be computed",
)
#: "Far more", as a ratio: the raters' variance at least twice the systems' (decided before any result; the
#: paper's own figures, 22.1 % against 0.7 % of the total, give about 30).
FAR_MORE = 2.0
RULE_RATERS_EXCEED = Rule(
    quantity="log(s2_annotator / s2_system): the rater main effect (a rater's leniency, which the paper's section "
             "4.3 calls annotator identity: 22.1 % of the total against 0.7 % for the systems) over the unbiased "
             "variance of the true system means, from the REML G study, with a 95 % interval from 2,000 draws (a "
             "generalized confidence interval on a complete design, a parametric-bootstrap percentile interval of "
             "REML refits on an incomplete one) and the Monte Carlo error of each end; the item x rater and system "
             "x rater terms are reported apart, each against the systems the same way",
    paper="Annotator identity explains far more rating variance than system identity",
    rule="holds if the interval lies wholly above log 2 (the annotator variance at least twice the systems'); "
         "does not hold if it lies wholly below log 2; inconclusive otherwise, and when an end lies within its "
         "Monte Carlo error of log 2; not testable here on pairwise preferences, where a rater's leniency cancels "
         "in every comparison",
    smallest_effect="a ratio of 2: 'far more' read as at least twice the systems' variance",
)
#: The G the paper's decision study says three annotators cannot reach.
G_TARGET = 0.8
RULE_THREE_RATERS_G = Rule(
    quantity="G of the system means for a fully crossed panel of three raters as the items grow without bound, "
             "s2_system / (s2_system + s2_system x rater / 3), from the REML G study, with the 95 % interval of "
             "the same 2,000 draws as the variance ratio",
    paper="three annotators cannot reach G=0.8 at any corpus size (Figure 1c)",
    rule="holds if the interval lies wholly below 0.8; does not hold if it lies wholly above 0.8; inconclusive "
         "otherwise; not testable here for pairwise preferences, which have no G",
)


def verdict_three_raters_g(ci_low: float, ci_high: float) -> str:
    """:data:`RULE_THREE_RATERS_G`.

    >>> verdict_three_raters_g(0.5, 0.7), verdict_three_raters_g(0.85, 0.99), verdict_three_raters_g(0.7, 0.9)
    ('holds', 'does not hold', 'inconclusive')
    """
    if not (np.isfinite(ci_low) and np.isfinite(ci_high)):
        return NOT_TESTABLE
    if ci_high < G_TARGET:
        return HOLDS
    return DOES_NOT_HOLD if ci_low > G_TARGET else INCONCLUSIVE


_PANELS = ("on panels of the paper's size (a group of at least 20 items all rated by the same three raters on "
           "every system, drawn in proportion to its items, its items resampled 2,000 times), the probability that "
           "leaving one of the three out changes the winner (best mean; Bradley-Terry strength for preferences; "
           "ties at the top share it), with its 95 % Monte Carlo (Wilson) interval, beside the gap between the top "
           "two systems on those panels")
RULE_WINNER_WHENEVER = Rule(
    quantity=_PANELS + ": here, that every one of the three removals changes it",
    paper="the winning system changes whenever any single annotator is removed (abstract)",
    rule="holds if the interval of the probability lies wholly above 1/2 (on most panels of the paper's size "
         "every removal changes the winner); does not hold if it lies wholly below 1/2; inconclusive otherwise; "
         "not testable here without a panel of the paper's size",
)
RULE_WINNER_SOME = Rule(
    quantity=_PANELS + ": here, that at least one of the three removals changes it",
    paper="the winner changes in two of three cases when one annotator is left out (section 4.4)",
    rule="holds if the interval of the probability lies wholly above 1/2 (on most panels of the paper's size "
         "some removal changes the winner); does not hold if it lies wholly below 1/2; inconclusive otherwise; "
         "not testable here without a panel of the paper's size",
)
RULE_EVALUATION = Rule(
    quantity="the verdicts of one evaluation's panels on one claim",
    paper="the claim, on one human evaluation",
    rule="the panels of one evaluation (SummEval's four dimensions; SQuALITY's three properties, with and without "
         "its human reference) share raters and items, so they are one replication, not several: the "
         "evaluation's verdict is its panels' where every panel that could test the claim agrees, inconclusive "
         "where they differ, not testable here where none could",
)
RULE_POOLED = Rule(
    quantity="the independent evaluations' verdicts on one claim",
    paper="the claim, as a statement about human evaluations in general (rated ones, and pairwise preferences)",
    rule="over independent evaluations (each one verdict, by the rule of an evaluation's panels): holds if it "
         "holds on a strict majority of the evaluations that could test it; does not hold if it fails on a "
         "strict majority; inconclusive otherwise (a tie, or too many inconclusive evaluations)",
)


def verdict_random_raters(p_random: float, p_fixed: float = float("nan"), *, alpha: float = ALPHA) -> str:
    """:data:`RULE_RANDOM_RATERS`.

    >>> verdict_random_raters(0.76, 0.001), verdict_random_raters(0.001, 0.0), verdict_random_raters(0.76, 0.3)
    ('holds', 'does not hold', 'inconclusive')
    >>> verdict_random_raters(0.76), verdict_random_raters(float("nan"), 0.01)
    ('inconclusive', 'not testable here')
    """
    if not np.isfinite(p_random):
        return NOT_TESTABLE
    if p_random < alpha:
        return DOES_NOT_HOLD
    return HOLDS if np.isfinite(p_fixed) and p_fixed < alpha else INCONCLUSIVE


def verdict_raters_exceed(ci_low: float, ci_high: float, mc_error=(0.0, 0.0)) -> str:
    """:data:`RULE_RATERS_EXCEED`, on the interval of log(annotator variance / system variance).

    >>> verdict_raters_exceed(1.2, 3.1), verdict_raters_exceed(-9.2, -3.4), verdict_raters_exceed(-0.5, 0.9)
    ('holds', 'does not hold', 'inconclusive')
    >>> verdict_raters_exceed(0.72, 3.1, mc_error=(0.05, 0.1))  # the low end could fall below log 2 with another seed
    'inconclusive'
    """
    if not (np.isfinite(ci_low) and np.isfinite(ci_high)):
        return NOT_TESTABLE
    bound = float(np.log(FAR_MORE))
    if abs(ci_low - bound) <= mc_error[0] or abs(ci_high - bound) <= mc_error[1]:
        return INCONCLUSIVE
    if ci_low > bound:
        return HOLDS
    return DOES_NOT_HOLD if ci_high < bound else INCONCLUSIVE


def _most_panels(ci_low: float, ci_high: float) -> str:
    if not (np.isfinite(ci_low) and np.isfinite(ci_high)):
        return NOT_TESTABLE
    if ci_low > 0.5:
        return HOLDS
    return DOES_NOT_HOLD if ci_high < 0.5 else INCONCLUSIVE


def verdict_winner_whenever(ci_low: float, ci_high: float) -> str:
    """:data:`RULE_WINNER_WHENEVER`, on the interval of the probability that every removal changes the winner.

    >>> verdict_winner_whenever(0.6, 0.7), verdict_winner_whenever(0.0, 0.02), verdict_winner_whenever(0.45, 0.55)
    ('holds', 'does not hold', 'inconclusive')
    """
    return _most_panels(ci_low, ci_high)


def verdict_winner_some(ci_low: float, ci_high: float) -> str:
    """:data:`RULE_WINNER_SOME`, on the interval of the probability that some removal changes the winner.

    >>> verdict_winner_some(0.51, 0.56), verdict_winner_some(0.0, 0.002), verdict_winner_some(float("nan"), 1.0)
    ('holds', 'does not hold', 'not testable here')
    """
    return _most_panels(ci_low, ci_high)


def evaluation_verdict(verdicts: Sequence[str]) -> str:
    """:data:`RULE_EVALUATION` over one evaluation's panels (``not testable here`` panels are left out).

    >>> evaluation_verdict(["does not hold"] * 4), evaluation_verdict(["holds", "does not hold", "holds"])
    ('does not hold', 'inconclusive')
    >>> evaluation_verdict(["holds", "not testable here"]), evaluation_verdict(["not testable here"])
    ('holds', 'not testable here')
    """
    tested = {v for v in verdicts if v != NOT_TESTABLE}
    if not tested:
        return NOT_TESTABLE
    return tested.pop() if len(tested) == 1 else INCONCLUSIVE


def pooled_verdict(verdicts: Sequence[str]) -> str:
    """:data:`RULE_POOLED` over the evaluations' verdicts (``not testable here`` ones are left out).

    >>> pooled_verdict(["holds", "holds", "does not hold"]), pooled_verdict(["holds", "does not hold"])
    ('holds', 'inconclusive')
    >>> pooled_verdict(["does not hold", "does not hold", "inconclusive"]), pooled_verdict(["not testable here"])
    ('does not hold', 'not testable here')
    """
    tested = [v for v in verdicts if v != NOT_TESTABLE]
    if not tested:
        return NOT_TESTABLE
    if sum(v == HOLDS for v in tested) * 2 > len(tested):
        return HOLDS
    if sum(v == DOES_NOT_HOLD for v in tested) * 2 > len(tested):
        return DOES_NOT_HOLD
    return INCONCLUSIVE
