"""One correction for multiple comparisons, used wherever many pairs are tested.

Chapter 2 tests 28 system pairs and chapter 4 compares every pair of systems'
decodability; each such table goes through :func:`adjust` and states the
correction with :func:`describe`, so the book names one procedure, applied
one way. The adjustments are those of statsmodels'
:func:`statsmodels.stats.multitest.multipletests` (Holm, Bonferroni,
Benjamini-Hochberg), computed in numpy and tested against it; this module adds
what every caller needs around them: missing p-values (a pair that could not be tested)
are kept missing and left out of the family, and the family's size is
reported.

Examples
--------
>>> from compendium.stats.multiplicity import adjust, describe
>>> adjust([0.01, 0.04, 0.03, 0.005, float("nan")]).round(3).tolist()
[0.03, 0.06, 0.06, 0.02, nan]
>>> describe("holm", 4)
'Holm-adjusted over 4 comparisons (family-wise error rate)'
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["METHODS", "adjust", "describe"]

#: Supported corrections and how a table names them.
METHODS = {
    "holm": ("Holm-adjusted", "family-wise error rate"),
    "bonferroni": ("Bonferroni-adjusted", "family-wise error rate"),
    "fdr_bh": ("Benjamini-Hochberg-adjusted", "false discovery rate"),
    "none": ("unadjusted", "per comparison"),
}


def adjust(pvalues: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values of one family of tests.

    Parameters
    ----------
    pvalues : array_like of float
        Raw p-values; NaN marks a comparison that could not be made, which is
        left out of the family and stays NaN.
    method : {"holm", "bonferroni", "fdr_bh", "none"}
        Holm's (1979) step-down procedure by default.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, in the input order.

    References
    ----------
    .. [1] S. Holm (1979). A simple sequentially rejective multiple test
       procedure. *Scandinavian Journal of Statistics* 6(2), 65-70.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    p = np.asarray(pvalues, dtype=float).ravel()
    if ((p < 0) | (p > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = _adjusted(p[ok], method)
    return out


def _adjusted(p: np.ndarray, method: str) -> np.ndarray:
    """The adjustment in numpy (``multipletests`` runs a garbage collection on every call, which
    dominates a table of a few dozen pairs); the tests check it against ``multipletests``."""
    m = len(p)
    if method == "none":
        return p.copy()
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":
        stepped = np.minimum(np.maximum.accumulate(ranked * (m - np.arange(m))), 1.0)
    else:  # fdr_bh: step-up, from the largest p down
        stepped = np.minimum(np.minimum.accumulate((ranked * m / np.arange(1, m + 1))[::-1])[::-1], 1.0)
    out = np.empty(m)
    out[order] = stepped
    return out


def describe(method: str, n_tests: int) -> str:
    """How a table states its correction, e.g. ``Holm-adjusted over 28 comparisons (family-wise error rate)``."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    label, controls = METHODS[method]
    return f"{label} over {int(n_tests)} comparisons ({controls})"
