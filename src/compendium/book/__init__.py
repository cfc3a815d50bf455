"""The book's machinery.

Building the book (:mod:`~compendium.book.pipeline`) by running chapters
(:mod:`~compendium.book.runner`) in kernels forked from a process with the
libraries imported (:mod:`~compendium.book.kernels`), the claims ledger (:mod:`~compendium.book.claims`)
and its sounder-analysis recorder (:mod:`~compendium.book.sounder`), tables and
figures (:mod:`~compendium.book.report`), seed sweeps (:mod:`~compendium.book.sweep`),
re-runs (:mod:`~compendium.book.rerun`), the robustness appendix
(:mod:`~compendium.book.robustness`), the kernel-free explorer
(:mod:`~compendium.book.explorer`), the system cards (:mod:`~compendium.book.cards`),
the paper checked against its own numbers (:mod:`~compendium.book.paper_checks`),
the audit of the real benchmarks (:mod:`~compendium.book.real_benchmarks`),
references (:mod:`~compendium.book.references`) and the benchmarks of speed
(:mod:`~compendium.book.bench`).

The wing's rule: it never changes a number. It arranges, records and shows what
the wings below compute; it may import any of them.
"""
