"""Agreement on categorical labels: Fleiss' kappa, each annotator against the others, and the majority label.

For a study in which several annotators each give one nominal label per item (``item, rater, label``),
and for the outcomes of pairwise judgements (:func:`compendium.stats.preference.outcome_units`).
Krippendorff's alpha (nominal, with its unit bootstrap) is :mod:`compendium.stats.agreement`'s.

* :func:`label_counts` -- the units x labels table of counts (the input of Fleiss' kappa);
* :func:`fleiss_kappa` -- Fleiss' kappa [1]_ with a percentile bootstrap over units, vectorised and checked
  against statsmodels' ``fleiss_kappa`` replicate by replicate in the tests;
* :func:`cohens_kappa` -- Cohen's kappa [2]_ of a square table with the large-sample interval of Fleiss, Cohen
  and Everitt [3]_, the formula of statsmodels' ``cohens_kappa`` (checked against it in the tests);
* :func:`against_others` -- each annotator against the majority label of the others: the share agreeing
  and Cohen's kappa with its interval;
* :func:`confusion` -- the labels two annotators give the same item, pooled over pairs of annotators;
* :func:`majority_changes` -- how often the majority label changes when one annotator is left out.

The majority label of a unit is the label given most often; a unit on which two labels are given equally
often has no majority.

References
----------
.. [1] J. L. Fleiss (1971). Measuring nominal scale agreement among many raters. *Psychological
   Bulletin* 76(5), 378-382.
.. [2] J. Cohen (1960). A coefficient of agreement for nominal scales. *Educational and Psychological
   Measurement* 20(1), 37-46.
.. [3] J. L. Fleiss, J. Cohen and B. S. Everitt (1969). Large sample standard errors of kappa and weighted
   kappa. *Psychological Bulletin* 72(5), 323-327.

The module needs numpy and scipy only: statsmodels, the outside reference of the tests, is not a dependency of
the light install of the audit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from compendium.stats.tidy import _text_codes

__all__ = ["label_counts", "fleiss_kappa", "cohens_kappa", "against_others", "confusion", "majority_changes"]


def _codes(data: pd.DataFrame, unit: str, rater: str, label: str):
    (u, units), (r, raters), (v, labels) = (_text_codes(data[c]) for c in (unit, rater, label))
    return u, r, v, units, raters, labels


def label_counts(data: pd.DataFrame, *, unit: str = "item", rater: str = "rater", label: str = "label") -> pd.DataFrame:
    """Units (rows) x labels (columns, sorted): how many annotators gave each label to each unit."""
    u, _, v, units, _, labels = _codes(data, unit, rater, label)
    counts = np.zeros((len(units), len(labels)), dtype=np.int64)
    np.add.at(counts, (u, v), 1)
    return pd.DataFrame(counts, index=units, columns=labels)


def _kappa_weighted(counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Fleiss' kappa of unit-weighted count tables, one per row of ``weights`` (replicates x units)."""
    m = counts.sum(axis=1)[0]
    agree = (np.sum(counts.astype(float) ** 2, axis=1) - m) / (m * (m - 1))  # P_i
    total = weights.sum(axis=1)
    p_bar = weights @ agree / total
    shares = (weights @ counts) / (m * total)[:, None]  # p_j per replicate
    p_e = np.sum(shares ** 2, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (p_bar - p_e) / (1.0 - p_e)


def fleiss_kappa(data: pd.DataFrame, *, unit: str = "item", rater: str = "rater", label: str = "label",
                 n_boot: int = 2000, seed: int | np.random.Generator | None = 0, ci: float = 0.95) -> dict:
    """Fleiss' kappa with a percentile interval from a bootstrap over units.

    Fleiss' kappa needs every unit coded by the same number of annotators (not necessarily the same ones);
    otherwise the result says so and gives no value. Replicates in which every label is the same (kappa
    undefined) are left out and ``n_valid`` counts the others.
    """
    counts = label_counts(data, unit=unit, rater=rater, label=label).to_numpy()
    per_unit = counts.sum(axis=1)
    if len(np.unique(per_unit)) != 1 or per_unit[0] < 2:
        sizes = ", ".join(str(int(s)) for s in np.unique(per_unit)[:6])
        return {"kappa": None, "ci_low": None, "ci_high": None,
                "reason": f"Fleiss' kappa needs the same number of annotators (at least 2) on every unit; "
                          f"here units have {sizes}"}
    kappa = float(_kappa_weighted(counts, np.ones((1, len(counts))))[0])
    rng = np.random.default_rng(seed)
    n = len(counts)
    reps = []
    for start in range(0, n_boot, 100):
        size = min(100, n_boot - start)
        weights = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(size)]).astype(float)
        reps.append(_kappa_weighted(counts, weights))
    reps = np.concatenate(reps) if reps else np.array([])
    valid = reps[np.isfinite(reps)]
    lo, hi = (1 - ci) / 2, (1 + ci) / 2
    return {"kappa": kappa,
            "ci_low": float(np.quantile(valid, lo)) if len(valid) else None,
            "ci_high": float(np.quantile(valid, hi)) if len(valid) else None,
            "raters_per_unit": int(per_unit[0]), "n_units": int(n), "n_boot": int(n_boot),
            "n_valid": int(len(valid)), "ci": ci}


def cohens_kappa(table: np.ndarray, ci: float = 0.95) -> tuple[float, float, float]:
    """Cohen's kappa of a square agreement table (rows one coder, columns the other) and its Wald interval.

    The standard error is the large-sample one of Fleiss, Cohen and Everitt (1969), as in statsmodels'
    ``cohens_kappa`` (its ``kappa_low``/``kappa_upp``). Returns ``(kappa, low, high)``; ``nan`` where chance
    agreement is 1 (one label only).
    """
    table = np.asarray(table, dtype=float)
    n = table.sum()
    probs = table / n
    rows, cols = probs.sum(axis=1), probs.sum(axis=0)
    observed, chance = np.trace(probs), float(rows @ cols)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = (observed - chance) / (1.0 - chance)
        term_a = np.sum(np.diag(probs) * (1 - (rows + cols) * (1 - kappa)) ** 2)
        off = probs * (cols[:, None] + rows[None, :]) ** 2
        np.fill_diagonal(off, 0.0)
        term_b = (1 - kappa) ** 2 * off.sum()
        term_c = (kappa - chance * (1 - kappa)) ** 2
        variance = (term_a + term_b - term_c) / (1 - chance) ** 2 / n
        half = stats.norm.ppf((1 + ci) / 2) * np.sqrt(variance)
    return float(kappa), float(kappa - half), float(kappa + half)


def _majority(counts: np.ndarray) -> np.ndarray:
    """Each row's most frequent column, or -1 where two columns share the highest count (or the row is empty)."""
    top = counts.max(axis=1)
    unique = (counts == top[:, None]).sum(axis=1) == 1
    return np.where(unique & (top > 0), counts.argmax(axis=1), -1)


def against_others(
    data: pd.DataFrame, *, unit: str = "item", rater: str = "rater", label: str = "label"
) -> pd.DataFrame:
    """Each annotator's labels against the majority label of the other annotators on the same units.

    Units on which the others have no majority (a tie between labels, or no other annotator) are left out
    and counted. Cohen's kappa between the annotator and that majority, with its asymptotic 95% interval,
    is :func:`cohens_kappa` of the annotator x majority table.
    """
    u, r, v, units, raters, labels = _codes(data, unit, rater, label)
    counts = np.zeros((len(units), len(labels)), dtype=np.int64)
    np.add.at(counts, (u, v), 1)
    rows = []
    for code, name in enumerate(raters):
        mine = r == code
        others = counts[u[mine]].copy()
        others[np.arange(mine.sum()), v[mine]] -= 1
        majority = _majority(others)
        kept = majority >= 0
        own, maj = v[mine][kept], majority[kept]
        row = {"rater": name, "labels": int(mine.sum()), "compared": int(kept.sum()),
               "no_majority_among_others": int((~kept).sum())}
        if kept.sum():
            table = np.zeros((len(labels), len(labels)))
            np.add.at(table, (own, maj), 1)
            kappa, low, high = cohens_kappa(table)
            row.update(agreement=float(np.mean(own == maj)), kappa=kappa, kappa_ci_low=low, kappa_ci_high=high)
        else:
            row.update(agreement=None, kappa=None, kappa_ci_low=None, kappa_ci_high=None)
        rows.append(row)
    return pd.DataFrame(rows)


def confusion(data: pd.DataFrame, *, unit: str = "item", rater: str = "rater", label: str = "label") -> pd.DataFrame:
    """Labels x labels: how often one annotator gave the row's label and another the column's, on the same
    unit, over every ordered pair of different annotators (symmetric; the diagonal is agreement)."""
    counts = label_counts(data, unit=unit, rater=rater, label=label)
    n = counts.to_numpy().astype(float)
    pairs = n.T @ n - np.diag(n.sum(axis=0))  # sum over units of n_c n_k, minus the self-pairs on the diagonal
    return pd.DataFrame(pairs.astype(np.int64), index=counts.columns, columns=counts.columns)


def majority_changes(
    data: pd.DataFrame, *, unit: str = "item", rater: str = "rater", label: str = "label"
) -> tuple[pd.DataFrame, dict]:
    """How often the majority label changes when one annotator is left out.

    Among the units that have a majority label with every annotator, a unit changes when, without the
    annotator, it has another majority or none. One row per annotator left out, and overall the share of
    units that some single annotator's absence changes.
    """
    u, r, v, units, raters, labels = _codes(data, unit, rater, label)
    counts = np.zeros((len(units), len(labels)), dtype=np.int64)
    np.add.at(counts, (u, v), 1)
    full = _majority(counts)
    decided = full >= 0
    any_change = np.zeros(len(units), dtype=bool)
    rows = []
    for code, name in enumerate(raters):
        mine = r == code
        without = counts.copy()
        np.add.at(without, (u[mine], v[mine]), -1)
        changed = decided & (_majority(without) != full)
        any_change |= changed
        rows.append({"left_out": name, "units_with_majority": int(decided.sum()),
                     "changed": int(changed.sum()),
                     "share_changed": float(changed.sum() / decided.sum()) if decided.any() else None})
    overall = {"units": len(units), "units_with_majority": int(decided.sum()),
               "changed_by_some_annotator": int(any_change.sum()),
               "share_changed_by_some_annotator": float(any_change.sum() / decided.sum()) if decided.any() else None}
    return pd.DataFrame(rows), overall
