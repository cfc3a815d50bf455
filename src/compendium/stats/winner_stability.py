"""Does the winner survive leaving one annotator out, on panels of the paper's size?

The paper's section 4.4 leaves each of its three annotators out in turn and finds the winner changes
("whenever", in its abstract; "in two of three cases" in the section). One panel of three raters is one
draw; on another evaluation a leave-one-rater-out count over ten raters, or over a near-tie at the top, says
little about that claim. This module asks it as a probability, on panels like the paper's:

* a **panel of the paper's size** is a group of items all rated by the same three raters on every system
  (a complete items x systems x 3 sub-design; SummEval's three experts on its 100 documents, each triple of
  SQuALITY's reviewers on its 25 stories), of at least :data:`MIN_ITEMS` items;
* each replicate draws one such panel (in proportion to its items) and resamples its items with
  replacement; the winner (best mean) of the three raters is compared with the winner of each pair;
* the result is the probability that **every** removal changes the winner, that **some** removal does, and
  that a given removal does, each with its Monte Carlo (Wilson) interval, beside the **gap between the top
  two systems** on those panels (median and 95 % percentile range), so that a near-tie reads as one.

Pairwise preferences have the same summary in
:func:`compendium.stats.preference.winner_change_probability`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["MIN_ITEMS", "PANEL_RATERS", "paper_size_panels", "changes", "winner_change_probability", "summarise"]

#: Raters per panel: the paper's three annotators.
PANEL_RATERS = 3
#: The fewest items a panel may have: with fewer, a winner is decided by which items were drawn, not by
#: the raters (the paper's panel rated 290 items).
MIN_ITEMS = 20


def paper_size_panels(data: pd.DataFrame, *, item: str = "item", system: str = "system", rater: str = "rater",
                      rating: str = "rating", size: int = PANEL_RATERS, min_items: int = MIN_ITEMS):
    """The complete items x systems x ``size`` sub-designs of ``data``: one per set of ``size`` raters who
    rated the same items, every system, once each; those with at least ``min_items`` items.

    Returns
    -------
    panels : list of (tuple, numpy.ndarray)
        The raters and the ``(items, systems, raters)`` array of ratings.
    systems : list
        System labels, the array's second axis.
    groups : dict
        Every group of ``size`` raters and its number of items, kept or not.
    """
    d = data[[item, system, rater, rating]]
    systems = sorted(d[system].unique())
    raters_of = d.groupby(item)[rater].agg(lambda s: tuple(sorted(set(s))))
    groups = {g: len(items) for g, items in raters_of.groupby(raters_of).groups.items() if len(g) == size}
    panels = []
    for group, n in sorted(groups.items()):
        if n < min_items:
            continue
        sub = d[d[item].isin(raters_of.index[raters_of == group])]
        cube = sub.pivot_table(index=item, columns=[system, rater], values=rating, aggfunc="count")
        if cube.shape[1] != len(systems) * size or (cube != 1).to_numpy().any():
            continue  # not every system by each rater once: not a complete sub-design
        values = sub.pivot_table(index=item, columns=[system, rater], values=rating, aggfunc="first")
        values = values.reindex(columns=pd.MultiIndex.from_product([systems, list(group)]))
        panels.append((group, values.to_numpy(dtype=float).reshape(len(values), len(systems), size)))
    return panels, systems, groups


#: Means closer than this share the top: sums of ratings in another order differ in their last bits.
TIE = 1e-9


def changes(full: np.ndarray, without: np.ndarray) -> np.ndarray:
    """Per row (replicate), whether the winners without a rater share none of the full panel's winners:
    ties at the top share it (a change needs a different system strictly ahead).

    >>> changes(np.array([[3.0, 3.0, 1.0], [3.0, 2.0, 1.0]]), np.array([[2.0, 3.0, 1.0], [2.0, 3.0, 1.0]]))
    array([False,  True])
    """
    top = full >= full.max(axis=1, keepdims=True) - TIE
    top_without = without >= without.max(axis=1, keepdims=True) - TIE
    return ~(top & top_without).any(axis=1)


def _wilson(successes: int, n: int) -> list[float]:
    ci = stats.binomtest(int(successes), int(n)).proportion_ci(confidence_level=0.95, method="wilson")
    return [float(ci.low), float(ci.high)]


def summarise(changed: np.ndarray, gaps: np.ndarray, unit: str, panels: str) -> dict:
    """The probabilities and the gap from the replicates: ``changed`` (replicates x raters, whether leaving
    each rater out changed the winner) and ``gaps`` (the full panel's top-two gap per replicate)."""
    n = len(changed)
    every, some = changed.all(axis=1), changed.any(axis=1)
    out = {"n_boot": int(n), "panels": panels, "unit": unit,
           "p_every": float(every.mean()), "p_every_ci": _wilson(every.sum(), n),
           "p_some": float(some.mean()), "p_some_ci": _wilson(some.sum(), n),
           "p_each": float(changed.mean()), "p_each_ci": _wilson(changed.sum(), changed.size),
           "gap_median": float(np.median(gaps)), "gap_ci": [float(q) for q in np.quantile(gaps, [0.025, 0.975])]}
    return out


def winner_change_probability(data: pd.DataFrame, *, item: str = "item", system: str = "system",
                              rater: str = "rater", rating: str = "rating", higher_is_better: bool = True,
                              n_boot: int = 2000, seed: int | None = 0, size: int = PANEL_RATERS,
                              min_items: int = MIN_ITEMS) -> dict:
    """How often leaving one of three raters out changes the winner, on resampled panels of the paper's size.

    Returns
    -------
    dict
        :func:`summarise`'s keys (``p_every``, ``p_some``, ``p_each`` with ``_ci``; ``gap_median``, ``gap_ci``
        in rating points), or ``{"testable": False, "reason": ...}`` when no panel has ``min_items`` items.
    """
    panels, systems, groups = paper_size_panels(data, item=item, system=system, rater=rater, rating=rating,
                                                size=size, min_items=min_items)
    if not panels:
        sizes = sorted(groups.values())
        found = (f"{len(groups)} groups of {size} raters, of {sizes[0]}-{sizes[-1]} items each" if groups
                 else f"no group of items rated by the same {size} raters on every system")
        return {"testable": False, "reason": f"{found}; a panel of the paper's size needs at least {min_items}"}
    rng = np.random.default_rng(seed)
    sign = 1.0 if higher_is_better else -1.0
    weights = np.array([cube.shape[0] for _, cube in panels], dtype=float)
    chosen = rng.choice(len(panels), size=int(n_boot), p=weights / weights.sum())
    changed = np.zeros((int(n_boot), size), dtype=bool)
    gaps = np.zeros(int(n_boot))
    for j, (_, cube) in enumerate(panels):
        rows = np.flatnonzero(chosen == j)
        if not len(rows):
            continue
        n_items = cube.shape[0]
        counts = np.stack([np.bincount(rng.integers(0, n_items, n_items), minlength=n_items) for _ in rows])
        full = sign * (counts @ cube.mean(axis=2)) / n_items  # replicates x systems
        top_two = np.sort(full, axis=1)[:, -2:]
        gaps[rows] = top_two[:, 1] - top_two[:, 0]
        for r in range(size):
            keep = [q for q in range(size) if q != r]
            without = sign * (counts @ cube[:, :, keep].mean(axis=2)) / n_items
            changed[rows, r] = changes(full, without)
    names = "; ".join(f"{', '.join(map(str, g))} ({cube.shape[0]} items)" for g, cube in panels)
    sizes = [cube.shape[0] for _, cube in panels]
    return {"testable": True, **summarise(changed, gaps, "rating points", names), "systems": len(systems),
            "n_panels": len(panels), "panel_items": [min(sizes), max(sizes)]}
