"""Per-system cards: every fact the paper establishes about one system, with its caveats.

The paper's argument is that a single leaderboard number -- the mean opinion
score (MOS) of a three-annotator panel -- does not identify a winner
(section 4), tracks output length (section 5), and is one of several
measurements that each need their own floor, interval and unit (sections 6
and 8). A *card* keeps these measurements side by side for one system instead
of collapsing them, in the spirit of model cards and of the "affective
passport" of the VIBE benchmark (a condition-explicit record of coverage,
uncertainty and limits rather than a leaderboard score).

This module computes nothing statistical of its own. It rearranges tables that
other modules already computed into one tidy *long* table of facts, derives the
caveats that apply from those facts by fixed rules, and renders a card as
HTML:

* :func:`coverage_facts`, :func:`emoji_profile_facts` -- outputs, share within
  the prompt's 1-5 emojis, retries (section 3, appendix A) and the distribution
  of emoji graphemes (appendix B, section 5);
* :func:`decodability_facts` -- EAD per language with its CI, floors and tier
  (section 6; from :func:`compendium.analyses.ead.core.ead_table` and
  :func:`compendium.analyses.ead.inference.tiers`);
* :func:`preference_facts` -- MOS with its CI, per annotator, and the rank under
  each leave-one-annotator-out panel (section 4; from
  :func:`compendium.analyses.length.system_summary`, :func:`annotator_summaries` and
  :func:`compendium.stats.panels.leave_one_annotator_out`);
* :func:`length_matched_facts` -- the within-item length-matched win rate and
  the mean emoji count of the rated outputs (section 5; from
  :func:`compendium.analyses.length.matched_win_rates`);
* :func:`cost_facts` -- prompt tokens per source byte and per character,
  completion tokens per item and per emoji (section 8; from
  :func:`compendium.analyses.cost.token_rates` and :func:`compendium.analyses.cost.completion_costs`);
* :func:`caveats` -- the rules of :data:`CAVEAT_RULES`, applied to the facts;
* :func:`card_facts` -- all of the above in one table;
* :func:`card_html`, :func:`cards_html` -- one card, or a grid of cards; :func:`top_emojis` -- the
  emojis each card shows.

The fact table
--------------
One row per fact: ``system, section, quantity, value, lo, hi, note``.
``section`` is one of :data:`SECTIONS`; ``quantity`` is a name from
:data:`QUANTITIES`, qualified by a language, an annotator or a panel in
brackets where it has one (``ead[bn]``, ``mos[A2]``, ``rank[without A1]``);
``value`` is a float (shares are fractions, not percentages); ``lo, hi`` are
the bounds of a 95 % interval where the source table has one, else NaN;
``note`` says how the value was obtained. Caveat rows have section
``"caveats"``, the rule's name as ``quantity``, the number that triggered the
rule as ``value`` and the sentence shown on the card as ``note``.
"""

from __future__ import annotations

from compendium.book.cards.facts import (
    COLUMNS,
    QUANTITIES,
    SECTIONS,
    annotator_summaries,
    cost_facts,
    coverage_facts,
    decodability_facts,
    emoji_profile_facts,
    length_matched_facts,
    preference_facts,
    split_quantity,
)
from compendium.book.cards.rules import CAVEAT_RULES, CAVEAT_THRESHOLDS, card_facts, caveat_rules, caveats
from compendium.book.cards.render import card_html, cards_html, shared_caveats, top_emojis

__all__ = [
    "COLUMNS",
    "SECTIONS",
    "QUANTITIES",
    "CAVEAT_RULES",
    "CAVEAT_THRESHOLDS",
    "caveat_rules",
    "annotator_summaries",
    "coverage_facts",
    "emoji_profile_facts",
    "decodability_facts",
    "preference_facts",
    "length_matched_facts",
    "cost_facts",
    "caveats",
    "card_facts",
    "split_quantity",
    "card_html",
    "cards_html",
    "top_emojis",
    "shared_caveats",
]

