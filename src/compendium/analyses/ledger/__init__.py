"""What the book concludes about the paper's claims: the ledger and the checks behind it.

The claims registry and the ledger the chapters write to (:mod:`~compendium.analyses.ledger.claims`),
the sounder analyses beside the paper's (:mod:`~compendium.analyses.ledger.sounder`), the paper checked
against its own numbers (:mod:`~compendium.analyses.ledger.paper_checks`), the record of the claims put to
real data (:mod:`~compendium.analyses.ledger.real_checks`) and the sweeps over seeds
(:mod:`~compendium.analyses.ledger.robustness`).

The wing's rule is that of :mod:`compendium.analyses`: every number here is computed from the paper's
registry, the chapters' records or the statistics below; the book only shows them.
"""
