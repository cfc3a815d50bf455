"""Statistics that know nothing of the paper.

Agreement and intraclass correlation (:mod:`~compendium.stats.agreement`),
G theory by expected mean squares (:mod:`~compendium.stats.gtheory`) and by REML
(:mod:`~compendium.stats.gstudy`), linear mixed models (:mod:`~compendium.stats.mixed`),
multiple-comparison adjustment (:mod:`~compendium.stats.multiplicity`), panel
dependence (:mod:`~compendium.stats.panels`), the bag-of-tokens logistic decoder
(:mod:`~compendium.stats.decoder`) and the column conventions they share
(:mod:`~compendium.stats.tidy`).

The wing's rule: a tidy DataFrame in and out, any column names through keyword
arguments, and every statistic tested against something that is not itself (a
published worked example, another library, or values from R pinned in
``tests/reference/``). Imports nothing else of the package.
"""
