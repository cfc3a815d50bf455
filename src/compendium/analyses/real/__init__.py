"""The paper's claims put to real data: the real-data twin of each section's analysis.

One module per section, beside the simulated analysis it mirrors: token cost on
parallel text with production tokenizers (section 8) and emoji segmentation on
the real emoji inventory (section 3) in :mod:`~compendium.analyses.real.cost`
and :mod:`~compendium.analyses.real.emoji`; ratings and length on WMT23 MQM
(section 5), human emoji-affect decodability (section 6), the geometry of
emoji2vec (section 7) and leakage on MQM (section 9) in the modules named after
them. Each ends in a *verdict function*: it takes the computed numbers and
returns one of :data:`compendium.analyses.ledger.claims.VERDICTS`-style strings
(``"holds"``, ``"does not hold"``, ``"not testable here"``) by a rule stated in
its docstring and tested, so no chapter types a verdict in.

The wing's rule is that of :mod:`compendium.analyses`; the files come from
:mod:`compendium.data` (:mod:`~compendium.data.corpora`,
:mod:`~compendium.data.tokenizers`, :mod:`~compendium.data.real`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: The verdicts a check can have (the same strings as :data:`compendium.analyses.ledger.claims.VERDICTS`,
#: spelt here because the ledger's record imports this module; a test checks that they agree).
#: *inconclusive*: the data can test the claim but do not decide it (an interval that contains both
#: no effect and an effect of interest, or instruments that split evenly); *not testable here*: the data
#: cannot test it at all (too few rows, nothing to explain).
HOLDS, DOES_NOT_HOLD, INCONCLUSIVE, NOT_TESTABLE = "holds", "does not hold", "inconclusive", "not testable here"
VERDICTS = (HOLDS, DOES_NOT_HOLD, INCONCLUSIVE, NOT_TESTABLE)


@dataclass(frozen=True)
class Rule:
    """A check's decision rule, stated before its result: what is measured, what the paper says, how it decides.

    Each verdict function of this wing has one, defined beside it as a module constant (``RULE_...``); the
    chapter records it with the check, and ``claims.json`` carries it.

    Attributes
    ----------
    quantity : str
        The quantity and its units.
    paper : str
        What the paper claims of it, as a value or a direction.
    rule : str
        The rule that turns the estimate into a verdict, every branch named.
    smallest_effect : str or None
        The smallest effect of interest the rule uses, with where it comes from (None when it uses none).
    """

    quantity: str
    paper: str
    rule: str
    smallest_effect: str | None = None

    def record(self) -> dict:
        """The rule as the fields of a check: ``quantity, paper_value, rule, smallest_effect``."""
        return {"quantity": self.quantity, "paper_value": self.paper, "rule": self.rule,
                "smallest_effect": self.smallest_effect}


def interval_verdict(ci_low: float, ci_high: float, *, effect_of_interest: float, direction: int = 1) -> str:
    """The three-way verdict on a directional claim from a 95% interval.

    **holds** if the interval lies wholly on the paper's side of 0; otherwise **does not hold** if it
    excludes the effect of interest (it lies wholly short of ``effect_of_interest`` in the paper's
    direction: an effect that large is ruled out); otherwise **inconclusive** (the interval holds both
    no effect and an effect of interest). **not testable here** when the interval is not finite.

    Parameters
    ----------
    ci_low, ci_high : float
        The interval.
    effect_of_interest : float
        The paper's effect, or a smallest effect of interest, on the scale of the interval; its sign is
        ``direction``'s.
    direction : {1, -1}
        The paper's direction: 1 if it claims a positive effect.

    Examples
    --------
    >>> interval_verdict(0.1, 0.5, effect_of_interest=0.3), interval_verdict(-0.4, 0.1, effect_of_interest=0.3)
    ('holds', 'does not hold')
    >>> (interval_verdict(-0.1, 0.5, effect_of_interest=0.3),
    ...  interval_verdict(-0.5, -0.1, effect_of_interest=-0.3, direction=-1))
    ('inconclusive', 'holds')
    """
    if direction not in (1, -1):
        raise ValueError(f"direction must be 1 or -1, got {direction!r}")
    if not (np.isfinite(ci_low) and np.isfinite(ci_high)):
        return NOT_TESTABLE
    lo, hi = sorted((direction * ci_low, direction * ci_high))
    if lo > 0:
        return HOLDS
    if hi < direction * effect_of_interest:
        return DOES_NOT_HOLD
    return INCONCLUSIVE


def majority_verdict(flags: Sequence[bool]) -> str:
    """The verdict over instruments (tokenizers, say) that each hold the claim or not.

    **holds** if a strict majority hold it, **does not hold** if a strict majority do not,
    **inconclusive** on a tie, **not testable here** with no instrument.

    >>> majority_verdict([True, True, False]), majority_verdict([True, False]), majority_verdict([])
    ('holds', 'inconclusive', 'not testable here')
    """
    flags = [bool(f) for f in flags]
    if not flags:
        return NOT_TESTABLE
    yes = sum(flags)
    if yes * 2 > len(flags):
        return HOLDS
    if (len(flags) - yes) * 2 > len(flags):
        return DOES_NOT_HOLD
    return INCONCLUSIVE


def majority_chance(n: int) -> float:
    """How often a strict majority of ``n`` instruments falls on one given side by chance, each a fair coin:
    ``sum_{k > n/2} C(n, k) / 2^n`` (5/16 for four). A majority verdict over so few instruments says so.

    >>> majority_chance(4), majority_chance(3)
    (0.3125, 0.5)
    """
    from math import comb

    return sum(comb(n, k) for k in range(n // 2 + 1, n + 1)) / 2**n


def both_aggregators(by_majority: str, by_median: str) -> str:
    """One verdict from two ways of pooling instruments: a strict majority of them, and the median one.

    The verdict is theirs when they agree, **inconclusive** when they differ (then the choice of aggregator,
    not the data, would decide), **not testable here** when either is.

    >>> both_aggregators("holds", "holds"), both_aggregators("does not hold", "holds")
    ('holds', 'inconclusive')
    >>> both_aggregators("not testable here", "holds")
    'not testable here'
    """
    if NOT_TESTABLE in (by_majority, by_median):
        return NOT_TESTABLE
    return by_majority if by_majority == by_median else INCONCLUSIVE
