"""The conventions the audit states with every result: alpha's level of measurement and G's system variance.

Both are choices a reader could make otherwise, so each summary says which was made and why
(``alpha_level`` and ``settings["alpha_level"]``; ``settings["system_variance"]`` beside ``G``,
``G_systems_random`` and ``G_observed``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ALPHA_LEVELS", "MAX_DEFAULT_ORDINAL", "SYSTEM_VARIANCE", "alpha_level", "g_systems_random"]

#: The levels of measurement ``--level`` takes for alpha (the default follows the scale: :func:`alpha_level`).
ALPHA_LEVELS = ("ordinal", "interval", "nominal")
#: A scale of whole numbers with at most this many distinct values is ordinal by default (a 0-10 scale is).
MAX_DEFAULT_ORDINAL = 11

#: The convention of G, stated in every summary (``settings["system_variance"]``) and in the terminal summary.
SYSTEM_VARIANCE = (
    "G takes the systems as fixed: its system variance is the variance of these systems' own true means, "
    "(S-1)/S times the expected-mean-square estimate (unbiased for it). G_systems_random takes the systems as a "
    "sample of systems instead (the expected-mean-square estimate itself); G_observed uses the observed variance "
    "of the system means, as the paper does")


def g_systems_random(g: float, n_systems: int) -> float:
    """G with the systems taken as random, from the fixed-systems G of the same study.

    The two system variances differ by the factor ``k = S / (S - 1)`` and share the error term ``e``, so
    ``G = v / (v + e)`` becomes ``k v / (k v + e) = k G / (k G + 1 - G)``. A G of 0 (a system variance
    truncated at zero) stays 0.
    """
    if not np.isfinite(g) or n_systems < 2:
        return float("nan")
    k = n_systems / (n_systems - 1)
    return float(k * g / (k * g + 1 - g)) if g < 1 else 1.0


def alpha_level(values: np.ndarray, given: str | None = None) -> tuple[str, str]:
    """The level of measurement of alpha, and why: ``given`` (``--level``), else from the scale -- ordinal for
    whole numbers on at most :data:`MAX_DEFAULT_ORDINAL` distinct values (a Likert-type scale, 0-10 included),
    interval otherwise (a 0-100 slider, error scores, averages)."""
    if given is not None:
        if given not in ALPHA_LEVELS:
            raise ValueError(f"level must be one of {', '.join(ALPHA_LEVELS)}, got {given!r}")
        return given, "given (--level)"
    domain = np.unique(values[~np.isnan(values)])
    whole = bool(np.all(domain == np.round(domain)))
    if whole and len(domain) <= MAX_DEFAULT_ORDINAL:
        return "ordinal", f"from the scale: {len(domain)} distinct whole-number ratings (at most {MAX_DEFAULT_ORDINAL})"
    why = "ratings that are not whole numbers" if not whole else f"{len(domain)} distinct ratings"
    return "interval", f"from the scale: {why}"
