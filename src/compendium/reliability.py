"""Agreement, reliability and generalisability of a crossed rating study.

Section 4 of the paper audits a fully crossed human study -- 290 items x 8
systems x 3 annotators, one rating per cell -- and this module computes every
statistic it reports, for any study of the same shape (any numbers of items,
systems and raters, any numeric scale):

* **agreement** (section 4.1): :func:`rater_summary`,
  :func:`pairwise_pearson`, :func:`krippendorff_alpha` with a vectorised unit
  bootstrap (:func:`alpha_bootstrap_ci`, checked against the plain loop
  :func:`alpha_bootstrap_ci_reference`), :func:`pairwise_alpha` and the six
  Shrout-Fleiss intraclass correlations (:func:`icc`);
* **the system effect under two error terms** (section 4.2):
  :func:`anova_table`, :func:`system_f_tests`, :func:`pairwise_system_tests`
  and :func:`sign_consistency`;
* **generalisability theory** (section 4.3): :func:`variance_components`,
  :func:`g_coefficient`, :func:`g_limit`, :func:`raters_needed` and
  :func:`decision_study`;
* **panel dependence** (section 4.4): :func:`leave_one_annotator_out`,
  :func:`kendall_between_raters` and, for larger simulated panels,
  :func:`split_half_reliability`.

Conventions (pingouin's): a tidy DataFrame of judgements goes in, with one
row per rating and the columns ``sentence_id, system, annotator, rating`` of
:data:`compendium.schema.COLUMNS` by default; the keyword arguments ``item=``,
``system=``, ``rater=``, ``rating=`` (``unit=``, ``target=`` where a unit is
a combination of columns) rename them. A tidy DataFrame comes out. Columns
that name one entity take the input column's name (``annotator``,
``system``); columns of pairs append ``1`` and ``2`` (``annotator1``,
``annotator2``); the sources of the ANOVA and the variance components are
always called ``item``, ``system``, ``annotator`` and their interactions,
whatever the input columns are called. Levels are sorted (categorical
columns in category order).

The statistics live in theme modules -- :mod:`compendium.agreement`,
:mod:`compendium.gtheory`, :mod:`compendium.panels` and the simulator
:mod:`compendium.simulate.crossed` (:func:`simulate_crossed` draws a
crossed study from given variance components; the examples and the tests
use it) -- and this module re-exports them under their old names.

Examples
--------
>>> from compendium import reliability as rel
>>> data = rel.simulate_crossed(40, 4, 3, seed=1, scale=(1, 5))
>>> data.head(3)
   sentence_id system annotator  rating
0            1     S1        A1       2
1            1     S1        A2       2
2            1     S1        A3       4
>>> table = rel.anova_table(data)
>>> list(table.index)
['item', 'system', 'annotator', 'item:system', 'item:annotator', 'system:annotator', 'residual', 'total']
>>> vc = rel.variance_components(table)
>>> round(float(rel.g_coefficient(vc, n_items=40, n_raters=3)), 3)
0.568
"""

from __future__ import annotations

import numpy as np  # noqa: F401  (the docstring examples run in this namespace)
import pandas as pd  # noqa: F401

from ._tidy import ITEM, RATER, RATING, SYSTEM
from . import agreement, gtheory, panels
from .agreement import *  # noqa: F401,F403  (agreement.__all__, re-exported)
from .agreement import _AlphaBootstrap  # noqa: F401  (checked directly by the tests)
from .gtheory import *  # noqa: F401,F403
from .panels import *  # noqa: F401,F403
from .simulate_crossed import simulate_crossed

#: The column names, and every public name of the theme modules and the simulator.
__all__ = ["ITEM", "SYSTEM", "RATER", "RATING", *agreement.__all__, *gtheory.__all__, *panels.__all__,
           "simulate_crossed"]

#: The docstring examples of the re-exported functions run as this module's
#: doctests too (``doctest.testmod(compendium.reliability)``).
__test__ = {name: globals()[name] for name in __all__ if callable(globals()[name])}
