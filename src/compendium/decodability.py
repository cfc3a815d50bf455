"""Emoji-affect decodability (EAD) and its baselines (paper section 6, appendix B).

EAD asks how much of a corpus's affective distinction survives compression
into a generator's emoji channel. For a generator ``g`` and a language ``L``,
``EAD(g, L)`` is the 5-fold stratified cross-validated macro-F1 of an
L2-regularised multinomial logistic regression (``C = 4``, class-balanced
weights) over sublinear TF-IDF features of the emoji graphemes ``g``
emits, predicting the single shared emotion of each item (section 6,
*Definition*; appendix B). Items are the ``shared_single`` sentences of ``L``:
single-label items over the five emotions of
:data:`compendium.schema.SHARED_EMOTIONS`.

The functions live in four modules, by theme, and are all importable from here:
:mod:`compendium.ead_core` (EAD, the grid, stability), :mod:`compendium.ead_inference`
(bootstrap, tiers, paired comparisons, floors, permutation null, McNemar),
:mod:`compendium.ead_transfer` (union, transfer, coverage) and :mod:`compendium.ead_probes`
(embedding probe, learning curve, EAD vs MOS). Every function takes and returns tidy pandas objects; scikit-learn does the
learning. The numbers of section 6 map onto the functions as follows:

=====================================  =====================================
EAD per system and language            :func:`ead`, :func:`ead_table`
stability over ten seeds (0.0033)      :func:`ead_stability`
2,000-replicate bootstrap CI (~0.032)  :func:`bootstrap_ci`, :func:`ead_table`
three tiers in Bangla                  :func:`tiers`; paired: :func:`paired_comparisons`,
                                       :func:`paired_tiers`
majority-class floor (0.087) etc.      :func:`floors`, :func:`permutation_null`
paired comparison of two systems       :func:`mcnemar`
union of all systems (0.686)           :func:`union_ead`
cross-lingual transfer (cost 0.252)    :func:`transfer_matrix`,
                                       :func:`vocabulary_coverage`
emoji vs sentence embeddings           :func:`embedding_probe`,
                                       :func:`emoji_vs_embedding`,
                                       :func:`learning_curve`
EAD vs MOS (rho = -0.19)               :func:`ead_mos_correlation`
=====================================  =====================================

Decisions
---------
*Pooled out-of-fold macro-F1.* Each item is predicted once, by the model
that did not see it; EAD is the macro-F1 of all ``n`` out-of-fold
predictions together, not the mean of the five per-fold F1 scores (those are
reported too, as ``fold_mean``/``fold_sd``). F1 is a ratio, so the mean of
per-fold ratios is not the ratio of the pooled counts; with ~840 test items
per fold and class-balanced weights the two differ little here, but the
per-fold mean is the biased one for small classes (Forman and Scholz 2010
recommend pooling counts across folds). Pooling also makes the point
estimate, the item bootstrap (:func:`bootstrap_ci`, which resamples exactly
these predictions) and the paired test (:func:`mcnemar`) refer to the same
set of predictions.

*TF-IDF inside the fold, counted once; one decoder.* The decoder is
:mod:`compendium.decoder`, shared with the leakage chapter: the emoji
counts of a cell are built once (identical rows merged), each fold's
sublinear TF-IDF uses the idf of its training rows only and drops the emojis
they do not contain -- exactly what fitting
``TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True)`` on the
training outputs of the fold gives (same vocabulary, idf and L2 row norm),
only faster -- and the logistic regression is fitted to its optimum by
Newton-CG (``tests/test_decoder.py`` checks both against scikit-learn).
Dropping unseen emojis matters: they would otherwise change the row norm of
test items. The out-of-fold predictions of a cell are a build artefact
(:mod:`compendium.cache`): the chapters that need the same cell read them.

*Seeds.* A single integer ``seed`` is the ``random_state`` of
``StratifiedKFold`` in every cell. Items are sorted by ``sentence_id`` and
every system of a language has the same items and labels, so all systems of
a language are evaluated on the *same* folds (paired), and the result does
not depend on row order or on whether cells run in parallel. The bootstrap,
the stratified-random simulation and the permutation null draw from
``numpy.random.default_rng(seed)``, so the CIs of the systems of a language
are computed on the same resampled items as well.

*Transfer is per system.* :func:`transfer_matrix` trains on one system's
outputs in the source language and tests on the *same* system's outputs in
the target language. Pooling all systems would mix between-system
differences into the decoder, and its within-language reference would have
to cross-validate rows of the same sentence from eight generators, which
puts one sentence on both sides of a split (the multi-view leakage of
section 9). Coverage is measured over emoji *tokens* (the paper's > 99.7 %;
types are reported beside it).

References
----------
.. [Salton88] G. Salton and C. Buckley, "Term-weighting approaches in
   automatic text retrieval", Information Processing & Management 24(5),
   1988 (TF-IDF; scikit-learn's ``TfidfTransformer`` with ``sublinear_tf``).
.. [Kohavi95] R. Kohavi, "A study of cross-validation and bootstrap for
   accuracy estimation and model selection", IJCAI 1995 (stratified k-fold).
.. [Forman10] G. Forman and M. Scholz, "Apples-to-apples in cross-validation
   studies: pitfalls in classifier performance measurement", SIGKDD
   Explorations 12(1), 2010 (pooled vs averaged F1).
.. [Efron93] B. Efron and R. J. Tibshirani, *An Introduction to the
   Bootstrap*, Chapman & Hall, 1993 (percentile intervals).
.. [Ojala10] M. Ojala and G. C. Garriga, "Permutation tests for studying
   classifier performance", JMLR 11, 2010.
.. [McNemar47] Q. McNemar, "Note on the sampling error of the difference
   between correlated proportions or percentages", Psychometrika 12(2), 1947;
   T. G. Dietterich, "Approximate statistical tests for comparing supervised
   classification learning algorithms", Neural Computation 10(7), 1998.
"""

from __future__ import annotations

from . import decoder  # noqa: F401  (the decoder both chapters use)
from .ead_core import (  # noqa: F401
    MAX_ITER, EADResult, _cross_validate, _oof, _result, _shared_items, cell_data, ead, ead_stability, ead_table,
)
from .ead_inference import (  # noqa: F401
    _encode, _items_labels, _macro_f1, _macro_f1_rows, _texts, bootstrap_ci, bootstrap_indices,
    bootstrap_macro_f1, floors, mcnemar, paired_comparisons, paired_tiers, permutation_null, tiers,
)
from .ead_probes import (  # noqa: F401
    _subsample, best_channels, ead_mos_correlation, embedding_probe, emoji_vs_embedding, learning_curve,
)
from .ead_transfer import transfer_matrix, transfer_summary, union_ead, union_outputs, vocabulary_coverage  # noqa: F401

__all__ = [
    "EADResult",
    "cell_data",
    "ead",
    "ead_table",
    "ead_stability",
    "bootstrap_indices",
    "bootstrap_macro_f1",
    "bootstrap_ci",
    "tiers",
    "paired_comparisons",
    "paired_tiers",
    "floors",
    "permutation_null",
    "mcnemar",
    "union_outputs",
    "union_ead",
    "vocabulary_coverage",
    "transfer_matrix",
    "transfer_summary",
    "embedding_probe",
    "emoji_vs_embedding",
    "best_channels",
    "learning_curve",
    "ead_mos_correlation",
]
