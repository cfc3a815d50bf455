"""A small simulated item x system x rater study with output lengths, for the examples of
:mod:`compendium.analyses.length`.

Not the paper's data (:mod:`compendium.simulate` draws that); simulated data,
called so wherever it appears.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["toy_study"]


def toy_study(
    n_items: int = 20,
    *,
    n_systems: int = 4,
    rater_slopes: Sequence[float] | None = None,
    slope: float = 0.2,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A small simulated item x system x rater study, for the examples.

    System ``s{k}`` (k = 1..n_systems) emits ``round(N(1.5 + 0.4 k, 1))``
    emojis clipped to 1-5 on each item; rater ``r{m}`` rates
    ``3 + slope_m (count - 3) + item effect (SD 0.5) + rater offset +
    N(0, 0.8)``, rounded and clipped to 1-5. Not the paper's data: use
    :mod:`compendium.simulate` for that.

    Parameters
    ----------
    n_items, n_systems : int
        Design size.
    rater_slopes : sequence of float, optional
        One length slope per rater; default three raters with ``slope``.
    slope : float, default 0.2
        Slope of every rater when ``rater_slopes`` is None.
    seed : int, default 0
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    (ratings, lengths) : tuple of DataFrame
        ``ratings``: ``sentence_id, system, annotator, rating`` (fully
        crossed); ``lengths``: ``sentence_id, system, graphemes``.

    Examples
    --------
    >>> ratings, lengths = toy_study(n_items=5)
    >>> len(ratings), len(lengths), bool(ratings["rating"].between(1, 5).all())
    (60, 20, True)
    """
    rng = np.random.default_rng(seed)
    slopes = np.asarray(rater_slopes if rater_slopes is not None else (slope,) * 3, dtype=float)
    n_r = len(slopes)
    items = [f"i{i + 1:03d}" for i in range(n_items)]
    systems = [f"s{k + 1}" for k in range(n_systems)]
    raters = [f"r{m + 1}" for m in range(n_r)]
    mu = 1.5 + 0.4 * np.arange(1, n_systems + 1)
    count = np.clip(np.rint(rng.normal(mu[None, :], 1.0, (n_items, n_systems))), 1, 5)
    item_eff = rng.normal(0, 0.5, n_items)
    offset = np.linspace(-0.3, 0.3, n_r)
    latent = (
        3.0
        + slopes[None, None, :] * (count[:, :, None] - 3.0)
        + item_eff[:, None, None]
        + offset[None, None, :]
        + rng.normal(0, 0.8, (n_items, n_systems, n_r))
    )
    rating = np.clip(np.rint(latent), 1, 5).astype(int)
    ii, ss, rr = (
        a.ravel() for a in np.meshgrid(np.arange(n_items), np.arange(n_systems), np.arange(n_r), indexing="ij")
    )
    ratings = pd.DataFrame(
        {
            "sentence_id": np.asarray(items, dtype=object)[ii],
            "system": np.asarray(systems, dtype=object)[ss],
            "annotator": np.asarray(raters, dtype=object)[rr],
            "rating": rating[ii, ss, rr],
        }
    )
    i2, s2 = (a.ravel() for a in np.meshgrid(np.arange(n_items), np.arange(n_systems), indexing="ij"))
    lengths = pd.DataFrame(
        {
            "sentence_id": np.asarray(items, dtype=object)[i2],
            "system": np.asarray(systems, dtype=object)[s2],
            "graphemes": count[i2, s2].astype(int),
        }
    )
    return ratings, lengths
