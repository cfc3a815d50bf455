"""What the ratings actually track: output length (paper section 5, appendix B).

The paper's section 5 shows that the mean opinion score (MOS) of a system is
largely the number of emojis it emits, and that an ordering which conditions
on length reverses the leaderboard. This module computes every number of
that section from tidy tables, and the segmentation check of appendix B:

* :func:`emoji_counts`, :func:`segmentation_inflation` -- per-output emoji
  counts (graphemes and naive code points, from :mod:`compendium.analyses.emoji`) and
  how much per-codepoint counting inflates them, overall and per system
  (appendix B: +15.0 %, from +5.4 % to +31.5 %);
* :func:`system_summary`, :func:`count_mos_fit`, :func:`ordering_correlation`
  -- Table 3 and Figure 2(a): MOS with a bootstrap CI, mean emoji count, EAD
  and the length-matched win rate, their ranks, and how well the mean count
  predicts MOS over systems (rho = .90, R^2 = .787);
* :func:`length_mixed_model`, :func:`per_annotator_slopes`,
  :func:`mos_spread` -- the judgement-level slope of rating on emoji count
  with crossed item and annotator random intercepts (beta = 0.159 per
  emoji), the same slope per annotator, and the best-worst MOS spread
  expressed in emojis;
* :func:`length_matched_comparisons`, :func:`matched_win_rates` -- the
  within-item comparison restricted to outputs of equal length (2,599
  comparisons; Gemini-2.0-Flash first with 0.603 [0.540, 0.664]);
* :func:`annotator_length_correlation` -- per annotator, the rank
  correlation of that annotator's system means with output length.

Conventions
-----------
Every function takes tidy DataFrames and returns a tidy DataFrame. The
column names of the inputs are keyword arguments, so the same functions run
on any fully or partly crossed item x system x rater study given one length
per output (this is what the ``audit`` command relies on):

``item="sentence_id"``, ``system="system"``, ``rater="annotator"``,
``rating="rating"``, ``length="graphemes"``.

``ratings`` has one row per judgement (``item, system, rater, rating``);
``lengths`` one row per output (``item, system, length``), for instance the
output of :func:`emoji_counts` (pass ``length="codepoints"`` for the naive
count). Every rated output must have a length; judgements with a missing
rating are dropped. Key columns of the results keep the caller's names;
computed columns have fixed names (documented per function). Ranks are
1 = best (highest value), ties get the smallest rank (``method="min"``).
System order, wherever an order is needed (ties, the ``a``/``b`` side of a
comparison), is the category order of a categorical column, else the order
of :data:`compendium.data.schema.SYSTEMS` when every system is one of those,
else order of first appearance.

References
----------
.. [Zheng2023] L. Zheng et al., "Judging LLM-as-a-judge with MT-Bench and
   Chatbot Arena", NeurIPS Datasets and Benchmarks, 2023 (verbosity bias).
.. [Dubois2024] Y. Dubois, B. Galambosi, P. Liang and T. B. Hashimoto,
   "Length-controlled AlpacaEval: a simple way to debias automatic
   evaluators", arXiv:2404.04475, 2024.
.. [Bates2015] D. Bates, M. Maechler, B. Bolker and S. Walker, "Fitting
   linear mixed-effects models using lme4", Journal of Statistical
   Software 67(1), 2015 (the profiled REML criterion used here).
.. [Baayen2008] R. H. Baayen, D. J. Davidson and D. M. Bates, "Mixed-effects
   modeling with crossed random effects for subjects and items", Journal of
   Memory and Language 59(4), 2008.
.. [Wilson1927] E. B. Wilson, "Probable inference, the law of succession,
   and statistical inference", JASA 22(158), 1927.
.. [Efron1993] B. Efron and R. J. Tibshirani, *An Introduction to the
   Bootstrap*, Chapman & Hall, 1993.
"""

from __future__ import annotations

from compendium.analyses.length._inputs import OVERALL, SCORES, TIE_RULES
from compendium.analyses.length.counts import (
    count_mos_fit,
    emoji_counts,
    ordering_correlation,
    segmentation_inflation,
    system_summary,
)
from compendium.analyses.length.models import (
    LENGTH_MODELS,
    SOUNDER_COLUMNS,
    _crossed_lmm as _crossed_lmm,  # the tests reach the closed-form fit through the package
    length_mixed_model,
    length_models,
    mos_spread,
    per_annotator_slopes,
    sounder_rows,
    without_length_slope,
)
from compendium.analyses.length.matched import (
    annotator_length_correlation,
    length_matched_comparisons,
    matched_win_rates,
)

__all__ = [
    "OVERALL",
    "SCORES",
    "TIE_RULES",
    "emoji_counts",
    "segmentation_inflation",
    "system_summary",
    "count_mos_fit",
    "ordering_correlation",
    "length_mixed_model",
    "LENGTH_MODELS",
    "length_models",
    "SOUNDER_COLUMNS",
    "sounder_rows",
    "per_annotator_slopes",
    "mos_spread",
    "length_matched_comparisons",
    "matched_win_rates",
    "annotator_length_correlation",
    "without_length_slope",
]

