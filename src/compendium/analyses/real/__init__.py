"""The paper's claims put to real data: the real-data twin of each section's analysis.

One module per section, beside the simulated analysis it mirrors: token cost on
parallel text with production tokenizers (section 8) and emoji segmentation on
the real emoji inventory (section 3) in :mod:`~compendium.analyses.real.cost`
and :mod:`~compendium.analyses.real.emoji`; ratings and length on WMT23 MQM
(section 5), human emoji-affect decodability (section 6), the geometry of
emoji2vec (section 7) and leakage on MQM (section 9) in the modules named after
them. Each ends in a *verdict function*: it takes the computed numbers and
returns one of :data:`compendium.book.claims.VERDICTS`-style strings
(``"holds"``, ``"does not hold"``, ``"not testable here"``) by a rule stated in
its docstring and tested, so no chapter types a verdict in.

The wing's rule is that of :mod:`compendium.analyses`; the files come from
:mod:`compendium.data` (:mod:`~compendium.data.corpora`,
:mod:`~compendium.data.tokenizers`, :mod:`~compendium.data.real`).
"""

#: The verdicts a check can have (the same strings as :data:`compendium.book.claims.VERDICTS`,
#: spelt here because analyses may not import the book; a test checks that they agree).
HOLDS, DOES_NOT_HOLD, NOT_TESTABLE = "holds", "does not hold", "not testable here"
