"""Everything that reads files.

The simulated benchmark's schema (:mod:`~compendium.data.schema`) and loader
(:mod:`~compendium.data.benchmark`), tidy judgement files
(:mod:`~compendium.data.judgements`), the real data of ``data/real/``
(:mod:`~compendium.data.real` and their derivation, :mod:`~compendium.data.derive`),
the store of computed results (:mod:`~compendium.data.cache`), errors
(:mod:`~compendium.data.errors`) and where the project's files are
(:mod:`~compendium.data.paths`).

The wing's rule: bad input is rejected with a :class:`~compendium.data.errors.DataError`
that names the file, the column and the rows, and nothing is left half-written.
Nothing is downloaded. Imports nothing else of the package.
"""
