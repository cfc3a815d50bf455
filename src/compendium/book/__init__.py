"""The book's pages and what they show.

Tables, prose and figures (:mod:`~compendium.book.report`, :mod:`~compendium.book.figures`), the
verdict boxes (:mod:`~compendium.book.verdicts`), the kernel-free explorer
(:mod:`~compendium.book.explorer`), the system cards (:mod:`~compendium.book.cards`), the audit of the
real benchmarks (:mod:`~compendium.book.real_benchmarks`) and references
(:mod:`~compendium.book.references`). What the book concludes is the ledger's
(:mod:`compendium.analyses.ledger`); how the chapters are run is the build's (:mod:`compendium.build`).

The wing's rule: it never changes a number. It arranges, records and shows what
the wings below compute; it may import any of them.
"""
