"""Emoji-affect decodability (EAD, section 6 and appendix B), in four parts.

:mod:`~compendium.analyses.ead.core` computes EAD per (language, system) cell,
:mod:`~compendium.analyses.ead.inference` its floors, intervals, permutation nulls
and paired tests, :mod:`~compendium.analyses.ead.transfer` the cross-language
transfer and the union vocabulary, and :mod:`~compendium.analyses.ead.probes` the
embedding probes, learning curves and the EAD-MOS correlation. The decoder itself
is :mod:`compendium.stats.decoder`.
"""
