"""The paper's analyses, one module (or subpackage) per section.

Emoji segmentation and counting (:mod:`~compendium.analyses.emoji`, section 3), the
corpus (:mod:`~compendium.analyses.corpus`), ratings and length
(:mod:`~compendium.analyses.length`, section 5), emoji-affect decodability
(:mod:`~compendium.analyses.ead`, section 6), embedding geometry
(:mod:`~compendium.analyses.geometry`, section 7), token cost
(:mod:`~compendium.analyses.cost`, section 8) and split leakage
(:mod:`~compendium.analyses.leakage`, section 9), with their real-data twins; and the
claims ledger with the checks behind it (:mod:`~compendium.analyses.ledger`).

The wing's rule: written per section, from the statistics of :mod:`compendium.stats`
and the files of :mod:`compendium.data` (and the simulators, for the analyses that
compare with a known truth). Imports nothing of :mod:`compendium.audit` or
:mod:`compendium.book`.
"""
