"""The book's pages and what they show.

The claims ledger (:mod:`~compendium.book.claims`) and its sounder-analysis
recorder (:mod:`~compendium.book.sounder`), the real-data checks
(:mod:`~compendium.book.real_checks`), tables and figures
(:mod:`~compendium.book.report`, :mod:`~compendium.book.figures`), the verdict
boxes (:mod:`~compendium.book.verdicts`), the robustness appendix
(:mod:`~compendium.book.robustness`), the kernel-free explorer
(:mod:`~compendium.book.explorer`), the system cards (:mod:`~compendium.book.cards`),
the paper checked against its own numbers (:mod:`~compendium.book.paper_checks`),
the audit of the real benchmarks (:mod:`~compendium.book.real_benchmarks`) and
references (:mod:`~compendium.book.references`). How the chapters are run is
the build's (:mod:`compendium.build`).

The wing's rule: it never changes a number. It arranges, records and shows what
the wings below compute; it may import any of them.
"""
