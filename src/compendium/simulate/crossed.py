"""Simulated crossed rating studies drawn from known variance components.

:func:`simulate_crossed` draws a fully crossed item x system x rater study,
:func:`simulate_incomplete` the incomplete one in which each item has a subset
of the raters (the design of WMT's MQM); the examples and the tests of :mod:`compendium.stats.agreement`,
:mod:`compendium.stats.gtheory` and :mod:`compendium.stats.panels` use it. Its data are
simulated and are called so wherever they appear.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from compendium.stats.tidy import ITEM, RATER, RATING, SYSTEM
from compendium.stats.gtheory import RANDOM_COMPONENTS
from compendium.data.schema import ANNOTATORS

__all__ = [
    "simulate_crossed",
    "simulate_incomplete",
]


def simulate_crossed(
    n_items: int,
    n_systems: int,
    n_raters: int,
    *,
    components: Mapping[str, float] | None = None,
    system_means: Sequence[float] | None = None,
    mean: float = 3.0,
    scale: tuple[int, int] | None = None,
    seed: int | np.random.Generator | None = 0,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
) -> pd.DataFrame:
    r"""Draw a fully crossed item x system x rater study from variance components.

    :math:`y_{psr} = \mu + \mu_s + a_p + b_r + (ab)_{ps} + (ac)_{pr} +
    (bc)_{sr} + e_{psr}`, each random term normal with mean 0 and the
    variance in ``components`` (keys of :data:`RANDOM_COMPONENTS`; missing
    keys are 0). With ``scale=(lo, hi)`` the latent score is rounded to the
    nearest integer and clipped to the scale.

    Parameters
    ----------
    n_items, n_systems, n_raters : int
        Design size. Items are numbered from 1, systems named ``S1``...,
        raters ``A1``... (the schema's annotator names when there are three).
    components : mapping, optional
        Variances; default item 0.2, annotator 0.3, item:system 0.1,
        item:annotator 0.3, system:annotator 0.05, residual 0.5.
    system_means : sequence of float, optional
        Fixed system effects :math:`\mu_s` (default: 0, -0.1, ..., evenly
        spaced down by 0.1).
    mean : float
        Grand mean :math:`\mu`.
    scale : (int, int), optional
        Round and clip to this integer scale.
    seed : int, numpy.random.Generator or None
        Seeds ``numpy.random.default_rng``.
    item, system, rater, rating : str
        Output column names.

    Returns
    -------
    pandas.DataFrame
        Tidy judgements, one row per cell, items varying slowest.

    Examples
    --------
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> simulate_crossed(2, 2, 3, seed=0, scale=(1, 5)).shape
    (12, 4)
    """
    default = {
        "item": 0.2,
        "annotator": 0.3,
        "item:system": 0.1,
        "item:annotator": 0.3,
        "system:annotator": 0.05,
        "residual": 0.5,
    }
    comp = default if components is None else {k: float(components.get(k, 0.0)) for k in RANDOM_COMPONENTS}
    unknown = set(components or {}) - set(RANDOM_COMPONENTS)
    if unknown:
        raise ValueError(f"unknown component(s) {sorted(unknown)}; use {RANDOM_COMPONENTS}")
    if any(v < 0 for v in comp.values()):
        raise ValueError("variances must be non-negative")
    n_p, n_s, n_r = int(n_items), int(n_systems), int(n_raters)
    if system_means is None:
        mu_s = -0.1 * np.arange(n_s)
    else:
        mu_s = np.asarray(system_means, dtype=float)
        if mu_s.shape != (n_s,):
            raise ValueError(f"system_means must have {n_s} values")
    rng = np.random.default_rng(seed)
    sd = {k: math.sqrt(v) for k, v in comp.items()}
    y = (
        mean
        + mu_s[None, :, None]
        + sd["item"] * rng.standard_normal((n_p, 1, 1))
        + sd["annotator"] * rng.standard_normal((1, 1, n_r))
        + sd["item:system"] * rng.standard_normal((n_p, n_s, 1))
        + sd["item:annotator"] * rng.standard_normal((n_p, 1, n_r))
        + sd["system:annotator"] * rng.standard_normal((1, n_s, n_r))
        + sd["residual"] * rng.standard_normal((n_p, n_s, n_r))
    )
    raters = list(ANNOTATORS) if n_r == len(ANNOTATORS) else [f"A{i + 1}" for i in range(n_r)]
    p, s, r = np.meshgrid(np.arange(n_p), np.arange(n_s), np.arange(n_r), indexing="ij")
    out = pd.DataFrame(
        {
            item: p.ravel() + 1,
            system: np.array([f"S{i + 1}" for i in range(n_s)], dtype=object)[s.ravel()],
            rater: np.array(raters, dtype=object)[r.ravel()],
            rating: y.ravel(),
        }
    )
    if scale is not None:
        lo, hi = scale
        out[rating] = np.clip(np.rint(out[rating].to_numpy()), lo, hi).astype(int)
    return out


def simulate_incomplete(
    n_items: int,
    n_systems: int,
    n_raters: int,
    *,
    raters_per_item: int | None = None,
    missing: float = 0.0,
    components=None,
    scale: tuple[int, int] | None = None,
    seed: int = 0,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
) -> pd.DataFrame:
    """A simulated incomplete item x system x rater study.

    Draws the complete study with :func:`simulate_crossed`
    and then keeps, for each item, ``raters_per_item`` raters drawn without
    replacement (they rate all of the item's outputs, the design of WMT's
    MQM), and/or drops a fraction ``missing`` of the remaining cells at
    random. Same seed, same table.

    Examples
    --------
    >>> d = simulate_incomplete(10, 3, 5, raters_per_item=3, seed=1)
    >>> len(d), int(d.groupby("sentence_id")["annotator"].nunique().max())
    (90, 3)
    """
    if not 0.0 <= missing < 1.0:
        raise ValueError(f"missing must be in [0, 1), got {missing!r}")
    rng = np.random.default_rng(seed)
    full = simulate_crossed(n_items, n_systems, n_raters, components=components, scale=scale, seed=rng,
                                item=item, system=system, rater=rater, rating=rating)
    keep = np.ones(len(full), dtype=bool)
    if raters_per_item is not None:
        if not 1 <= raters_per_item <= n_raters:
            raise ValueError(f"raters_per_item must be between 1 and {n_raters}")
        raters = np.sort(pd.unique(full[rater]))
        chosen = np.array([rng.permutation(n_raters)[:raters_per_item] for _ in range(n_items)])
        panel = np.zeros((n_items, n_raters), dtype=bool)
        panel[np.arange(n_items)[:, None], chosen] = True
        i = pd.factorize(full[item], sort=False)[0]
        r = pd.Index(raters).get_indexer(full[rater])
        keep &= panel[i, r]
    if missing > 0:
        keep &= rng.random(len(full)) >= missing
    return full[keep].reset_index(drop=True)
