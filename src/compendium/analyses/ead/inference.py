"""Uncertainty and comparisons of EAD (paper section 6, appendix B): bootstrap CIs, tiers, paired
comparisons, chance floors, the permutation null and McNemar's test.

Part of :mod:`compendium.analyses.ead` (which re-exports every public name); the decisions and
references are in that module's docstring. The item bootstrap draws from
``numpy.random.default_rng(seed)`` and resamples the pooled out-of-fold predictions.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

import numpy as np
import pandas as pd
from scipy import sparse
from statsmodels.stats.contingency_tables import mcnemar as _sm_mcnemar

from compendium.stats import decoder
from compendium.analyses.emoji import emoji_analyzer

#: Replicates drawn per block in the bootstrap (bounds memory at n x BLOCK).
_BOOT_BLOCK = 250


# --------------------------------------------------------------------------- inputs and macro-F1

def _texts(outputs: Iterable[object]) -> list[str]:
    """Raw responses as strings; missing values (None, NaN, pd.NA) become ``""``."""
    out = []
    for o in outputs:
        if isinstance(o, str):
            out.append(o)
        elif o is None or (np.ndim(o) == 0 and pd.isna(o)):
            out.append("")
        else:
            raise TypeError(f"expected a str or a missing value, got {type(o).__name__}")
    return out


def _items_labels(outputs, labels, items):
    """Align outputs, labels and item ids."""
    if items is None:
        items = outputs.index.to_numpy() if isinstance(outputs, pd.Series) else np.arange(len(outputs))
    outputs = list(outputs.to_numpy() if isinstance(outputs, pd.Series) else outputs)
    y = np.asarray(labels.to_numpy() if isinstance(labels, pd.Series) else list(labels), dtype=object)
    items = np.asarray(items)
    if not len(outputs) == len(y) == len(items):
        raise ValueError(f"outputs ({len(outputs)}), labels ({len(y)}) and items ({len(items)}) differ in length")
    return outputs, y, items


def _macro_f1(y_true, y_pred) -> float:
    """``f1_score(y_true, y_pred, average="macro")`` from confusion counts (no validation overhead)."""
    t, p, k = _encode(y_true, y_pred)
    return float(_macro_f1_rows((t * k + p)[None, :], k)[0])


# --------------------------------------------------------------------------- bootstrap


def _encode(y_true, y_pred) -> tuple[np.ndarray, np.ndarray, int]:
    """Both label vectors as codes of their sorted union (of the labels as ``str``): ``np.unique``'s
    codes, but pandas hashes each vector and only the few distinct labels are sorted and converted
    (ten times faster on 10^5 labels than converting every label)."""
    true_codes, true_labels = pd.factorize(pd.Series(y_true, copy=False), use_na_sentinel=False)
    pred_codes, pred_labels = pd.factorize(pd.Series(y_pred, copy=False), use_na_sentinel=False)
    if pd.isna(true_labels).any() or pd.isna(pred_labels).any():
        # None and NaN are one missing value to pandas but "None" and "nan" as str: convert them all.
        both = pd.Series(np.concatenate([np.asarray(y_true, dtype=str), np.asarray(y_pred, dtype=str)]), dtype=object)
        codes, classes = pd.factorize(both, sort=True)
        return codes[: len(y_true)], codes[len(y_true):], len(classes)
    true_labels, pred_labels = np.asarray(true_labels, dtype=str), np.asarray(pred_labels, dtype=str)
    classes = np.unique(np.concatenate([true_labels, pred_labels]))
    return (np.searchsorted(classes, true_labels)[true_codes], np.searchsorted(classes, pred_labels)[pred_codes],
            len(classes))


def _macro_f1_rows(pair_codes: np.ndarray, k: int) -> np.ndarray:
    """Macro-F1 of each row of a matrix of ``true * k + predicted`` codes.

    Confusion counts per row come from one ``np.bincount``. As in
    ``sklearn.metrics.f1_score(average="macro")``, a class that occurs
    neither among the true labels nor among the predictions of a row is
    left out of that row's mean, and F1 = 2TP / (2TP + FP + FN).
    """
    m = pair_codes.shape[0]
    offset = (np.arange(m, dtype=np.int64) * (k * k))[:, None]
    cm = np.bincount((pair_codes + offset).ravel(), minlength=m * k * k).reshape(m, k, k)
    return _macro_f1_counts(cm)


def _macro_f1_counts(cm: np.ndarray) -> np.ndarray:
    """Macro-F1 of confusion matrices ``cm[..., true, predicted]`` (counts or weights), as :func:`_macro_f1_rows`."""
    tp = np.diagonal(cm, axis1=-2, axis2=-1)
    denom = cm.sum(axis=-2) + cm.sum(axis=-1)  # predicted + true = 2TP + FP + FN
    present = denom > 0
    f1 = np.divide(2 * tp, denom, out=np.zeros(denom.shape, dtype=float), where=present)
    return f1.sum(axis=-1) / present.sum(axis=-1)


def _index_blocks(n: int, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    rng = np.random.default_rng(seed)
    done = 0
    while done < n_boot:
        m = min(_BOOT_BLOCK, n_boot - done)
        yield rng.integers(0, n, size=(m, n))
        done += m


def bootstrap_indices(n: int, n_boot: int, seed: int) -> np.ndarray:
    """The resampled item indices :func:`bootstrap_ci` uses, as one ``(n_boot, n)`` array.

    Replicate ``r`` draws ``n`` items uniformly with replacement. The draws
    come from ``numpy.random.default_rng(seed)`` in blocks of 250 replicates,
    exactly as in :func:`bootstrap_ci`.
    """
    return np.concatenate(list(_index_blocks(n, n_boot, seed)), axis=0)


def bootstrap_macro_f1(y_true, y_pred, indices: np.ndarray) -> np.ndarray:
    """Macro-F1 of each bootstrap replicate, vectorised.

    Parameters
    ----------
    y_true, y_pred : array-like of str
        Out-of-fold labels and predictions.
    indices : ndarray of int, shape (n_boot, m)
        Resampled positions, one replicate per row.

    Returns
    -------
    ndarray, shape (n_boot,)
        ``f1_score(y_true[idx], y_pred[idx], average="macro")`` for each row
        ``idx``, computed from confusion counts (``np.bincount``) without a
        Python loop over replicates.
    """
    t, p, k = _encode(y_true, y_pred)
    pair = t * k + p
    return _macro_f1_rows(pair[np.asarray(indices)], k)


def bootstrap_ci(oof: pd.DataFrame, *, n_boot: int = 2000, seed: int, ci: float = 0.95) -> pd.Series:
    """Item-bootstrap percentile CI of the pooled out-of-fold macro-F1 (paper section 6, *Properties*).

    Items are resampled with replacement (the OOF predictions are kept
    fixed: the decoder is not refitted), and the macro-F1 of each replicate
    is computed from its confusion counts.

    Parameters
    ----------
    oof : DataFrame
        Columns ``label, predicted`` (e.g. ``ead(...).oof``).
    n_boot : int, default 2000
        Replicates (appendix B: 2,000).
    seed : int
        Seed of ``numpy.random.default_rng`` (see :func:`bootstrap_indices`).
    ci : float, default 0.95
        Interval level; the bounds are the ``(1 - ci) / 2`` and
        ``(1 + ci) / 2`` quantiles of the replicates.

    Returns
    -------
    Series
        ``macro_f1`` (the point estimate), ``lo, hi, width, se`` (SD of the
        replicates), ``n_boot, n_items``.

    References
    ----------
    [Efron93]_ (percentile interval); paper section 6 and appendix B.
    """
    t, p, k = _encode(oof["label"], oof["predicted"])
    pair = t * k + p
    reps = np.concatenate([_macro_f1_rows(pair[idx], k) for idx in _index_blocks(len(pair), n_boot, seed)])
    lo, hi = np.quantile(reps, [(1 - ci) / 2, (1 + ci) / 2])
    point = _macro_f1_rows(pair[None, :], k)[0]
    return pd.Series({"macro_f1": point, "lo": lo, "hi": hi, "width": hi - lo, "se": reps.std(ddof=1),
                      "n_boot": n_boot, "n_items": len(pair)})


def tiers(table: pd.DataFrame, *, rule: str = "lowest") -> pd.DataFrame:
    """Group systems into tiers separated by non-overlapping CIs (paper section 6, *Properties*).

    The paper reports three tiers in Bangla without defining them; this is
    our definition. Within a language, systems are sorted by EAD (highest
    first) and the first system opens tier 1. Each next system joins the
    current tier unless its CI upper bound lies *below* a reference lower
    bound of the current tier, in which case it opens a new tier:

    * ``rule="lowest"`` (default): the reference is the lowest CI lower
      bound of all systems already in the tier. A system that opens a new
      tier therefore overlaps *no* system of the tier above. Tiers chain:
      a run of systems whose neighbouring CIs overlap stays one tier, so
      evenly spaced systems give few tiers.
    * ``rule="leader"``: the reference is the lower bound of the tier's
      first (highest) system. Every member of a tier overlaps its leader;
      a new tier's first system need not be separated from every member
      of the tier above. This gives as many or more tiers.

    Parameters
    ----------
    table : DataFrame
        Columns ``system, macro_f1, ci_lo, ci_hi`` and optionally
        ``language`` (tiers are then formed per language), e.g.
        ``ead_table(..., n_boot=2000)``.
    rule : {"lowest", "leader"}, default "lowest"

    Returns
    -------
    DataFrame
        ``table`` sorted by language and descending EAD with an int column
        ``tier`` (1 = best). The paper's count is ``tier.max()`` in Bangla.
    """
    if rule not in ("lowest", "leader"):
        raise ValueError(f"rule must be 'lowest' or 'leader', not {rule!r}")
    frames = []
    groups = table.groupby("language", sort=False) if "language" in table.columns else [(None, table)]
    for _, part in groups:
        part = part.sort_values("macro_f1", ascending=False, kind="stable").copy()
        tier, floor, out = 1, math.inf, []
        for lo, hi in zip(part["ci_lo"].to_numpy(), part["ci_hi"].to_numpy(), strict=True):
            if out and hi < floor:
                tier, floor = tier + 1, lo
            elif not out or rule == "lowest":
                floor = min(floor, lo)
            out.append(tier)
        part["tier"] = out
        frames.append(part)
    return pd.concat(frames, ignore_index=True)


def _paired_frame(part: pd.DataFrame, language) -> tuple[pd.DataFrame, pd.Series]:
    """Items x systems predictions on the items every system has, and the items' labels."""
    labels = part.drop_duplicates(["item", "label"]).set_index("item")["label"].astype(str)
    if labels.index.duplicated().any():
        bad = labels.index[labels.index.duplicated()][:5].tolist()
        raise ValueError(f"language {language!r}: items {bad} carry two different labels in the OOF table")
    wide = part.pivot(index="item", columns="system", values="predicted").dropna()
    return wide.astype(str), labels.loc[wide.index]


def paired_comparisons(oof: pd.DataFrame, *, n_boot: int = 2000, seed: int, ci: float = 0.95,
                       correction: str = "holm") -> pd.DataFrame:
    r"""Every pair of systems compared on the same items: a paired bootstrap of the macro-F1 difference.

    All systems of a language are decoded on the same items, so the
    difference of two systems' EAD is best judged on those items, paired:
    each replicate resamples items with replacement *once* and recomputes
    every system's macro-F1 on the same resample (the OOF predictions are
    kept fixed, as in :func:`bootstrap_ci`). The p-value of a pair is that
    of the bootstrap test of Efron and Tibshirani (1993, section 16.4):
    the share of centred replicates at least as far from 0 as the observed
    difference, :math:`(1 + \#\{|d^*_b - \hat d| \ge |\hat d|\}) / (1 + B)`.
    McNemar's test on per-item correctness (:func:`mcnemar`) is given beside
    it. Both are adjusted over the pairs of a language with
    :func:`compendium.stats.multiplicity.adjust`.

    Parameters
    ----------
    oof : DataFrame
        Columns ``system, item, label, predicted`` and optionally
        ``language`` (e.g. the OOF table of ``ead_table(...,
        return_oof=True)``). Pairs are compared on the items every
        system of the language has.
    n_boot : int
        Bootstrap replicates.
    seed : int
        Seed of the item resampling (:func:`bootstrap_indices`); one set of
        resamples serves every system of a language.
    ci : float
        Level of the percentile interval of the difference.
    correction : str
        A method of :func:`compendium.stats.multiplicity.adjust`.

    Returns
    -------
    DataFrame
        One row per pair within a language: ``language, system1, system2,
        n_items, f1_1, f1_2, diff`` (f1_1 - f1_2), ``diff_lo, diff_hi``,
        ``p_boot, p_boot_adj, p_mcnemar, p_mcnemar_adj``, ``correction``
        (how the p-values were adjusted).

    References
    ----------
    [Efron93]_ ch. 16; [McNemar47]_; S. Holm (1979), *Scand. J. Statist.* 6, 65-70.
    """
    from compendium.stats.multiplicity import adjust, describe

    if n_boot < 1:
        raise ValueError(f"n_boot must be positive, got {n_boot!r}")
    missing = {"system", "item", "label", "predicted"} - set(oof.columns)
    if missing:
        raise ValueError(f"the OOF table lacks the column(s) {sorted(missing)}")
    groups = oof.groupby("language", sort=False) if "language" in oof.columns else [(None, oof)]
    frames = []
    for language, part in groups:
        wide, labels = _paired_frame(part, language)
        systems = list(wide.columns)
        classes, codes = np.unique(np.concatenate([labels.to_numpy(), wide.to_numpy().ravel()]), return_inverse=True)
        k, n = len(classes), len(wide)
        truth = codes[:n]
        pairs = truth[None, :] * k + codes[n:].reshape(n, len(systems)).T  # systems x items
        point = np.array([_macro_f1_rows(row[None, :], k)[0] for row in pairs])
        # A replicate's confusion counts are its item multiplicities times each
        # item's one-hot (true, predicted) cell: one matrix product for all systems.
        cells = (pairs.T + np.arange(len(systems)) * k * k).ravel()
        onehot_t = sparse.csr_matrix((np.ones(cells.size), (cells, np.repeat(np.arange(n), len(systems)))),
                                     shape=(len(systems) * k * k, n))
        reps = []
        for idx in _index_blocks(n, n_boot, seed):
            b = idx.shape[0]
            flat = (idx + (np.arange(b, dtype=np.int64) * n)[:, None]).ravel()
            weights = np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)
            reps.append(_macro_f1_counts((onehot_t @ weights.T).T.reshape(b, len(systems), k, k)))
        reps = np.concatenate(reps)  # n_boot x systems
        correct = codes[n:].reshape(n, len(systems)) == truth[:, None]
        rows = []
        for i, j in ((i, j) for i in range(len(systems)) for j in range(i + 1, len(systems))):
            d_hat, d = point[i] - point[j], reps[:, i] - reps[:, j]
            p_boot = (1 + np.count_nonzero(np.abs(d - d_hat) >= abs(d_hat) - 1e-12)) / (n_boot + 1)
            b, c = int((correct[:, i] & ~correct[:, j]).sum()), int((~correct[:, i] & correct[:, j]).sum())
            both = int((correct[:, i] & correct[:, j]).sum())
            table = np.array([[both, b], [c, n - both - b - c]])
            p_mc = float(_sm_mcnemar(table, exact=(b + c) < 25, correction=True).pvalue) if b + c else 1.0
            lo, hi = np.quantile(d, [(1 - ci) / 2, (1 + ci) / 2])
            rows.append({"language": language, "system1": systems[i], "system2": systems[j], "n_items": n,
                         "f1_1": point[i], "f1_2": point[j], "diff": d_hat, "diff_lo": lo, "diff_hi": hi,
                         "p_boot": p_boot, "p_mcnemar": p_mc})
        frame = pd.DataFrame(rows)
        frame.insert(frame.columns.get_loc("p_boot") + 1, "p_boot_adj", adjust(frame["p_boot"], correction))
        frame["p_mcnemar_adj"] = adjust(frame["p_mcnemar"], correction)
        frame["correction"] = describe(correction, len(frame))
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    return out if "language" in oof.columns else out.drop(columns="language")


def paired_tiers(table: pd.DataFrame, pairs: pd.DataFrame, *, alpha: float = 0.05,
                 p_column: str = "p_boot_adj") -> pd.DataFrame:
    """Tiers from paired comparisons instead of overlapping CIs.

    The rule of :func:`tiers` with ``rule="leader"``, with "the CIs do not
    overlap" replaced by "the paired difference is significant": within a
    language, systems sorted by EAD (highest first); the first opens tier 1;
    each next system joins the current tier unless its difference from the
    tier's first system is significant at ``alpha`` after the correction
    of :func:`paired_comparisons` (column ``p_column``), in which case it
    opens a new tier.

    Parameters
    ----------
    table : DataFrame
        Columns ``system, macro_f1`` and optionally ``language``.
    pairs : DataFrame
        :func:`paired_comparisons` of the same cells.
    alpha : float
        Level of the adjusted p-values.
    p_column : str
        ``p_boot_adj`` (paired bootstrap) or ``p_mcnemar_adj``.

    Returns
    -------
    DataFrame
        ``table`` sorted by language and descending EAD with an int column
        ``tier_paired`` (1 = best).

    Examples
    --------
    >>> t = pd.DataFrame({"system": list("abc"), "macro_f1": [0.5, 0.45, 0.3]})
    >>> p = pd.DataFrame({"system1": ["a", "a", "b"], "system2": ["b", "c", "c"], "p_boot_adj": [0.4, 0.01, 0.03]})
    >>> paired_tiers(t, p)["tier_paired"].tolist()
    [1, 1, 2]
    """
    lookup = {}
    for row in pairs.itertuples(index=False):
        lang = getattr(row, "language", None)
        p = getattr(row, p_column)
        lookup[(lang, row.system1, row.system2)] = lookup[(lang, row.system2, row.system1)] = p
    frames = []
    groups = table.groupby("language", sort=False) if "language" in table.columns else [(None, table)]
    for language, part in groups:
        part = part.sort_values("macro_f1", ascending=False, kind="stable").copy()
        tier, leader, out = 1, None, []
        for system in part["system"]:
            if leader is None:
                leader = system
            elif lookup.get((language, leader, system), 1.0) < alpha:
                tier, leader = tier + 1, system
            out.append(tier)
        part["tier_paired"] = out
        frames.append(part)
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------- floors


def floors(labels, *, seed: int, n_sim: int = 2000) -> pd.Series:
    """Macro-F1 of label-only baselines: majority class and stratified random.

    Parameters
    ----------
    labels : array-like of str
        The true labels of a cell.
    seed : int
        Seed of the stratified-random simulation.
    n_sim : int, default 2000
        Simulated prediction vectors.

    Returns
    -------
    Series
        ``majority``: predict the most frequent class for every item. With
        ``k`` classes and majority share ``p`` the majority class has
        precision ``p`` and recall 1 and every other class F1 = 0, so
        macro-F1 = ``(1/k) * 2p / (1 + p)`` (exact).
        ``stratified``: seeded simulation of the expected macro-F1 of
        predictions drawn independently from the class distribution ``pi``.
        ``stratified_analytic``: its plug-in value, using expected counts:
        precision and recall of class ``c`` are both ``pi_c``, so F1_c =
        ``pi_c`` and macro-F1 = ``mean(pi) = 1/k`` whatever the distribution
        (the simulated value is slightly lower at finite ``n``).
        ``k`` and ``majority_share``.

    Examples
    --------
    >>> round(float(floors(["a"] * 6 + ["b"] * 3 + ["c"], seed=0)["majority"]), 4)  # (1/3) * 1.2/1.6
    0.25
    """
    y = np.asarray(labels, dtype=str)
    classes, codes = np.unique(y, return_inverse=True)
    k, n = len(classes), len(y)
    share = np.bincount(codes, minlength=k) / n
    p = share.max()
    rng = np.random.default_rng(seed)
    sims = []
    for done in range(0, n_sim, _BOOT_BLOCK):
        m = min(_BOOT_BLOCK, n_sim - done)
        pred = rng.choice(k, size=(m, n), p=share)
        sims.append(_macro_f1_rows(codes[None, :] * k + pred, k))
    return pd.Series({
        "majority": (1 / k) * 2 * p / (1 + p),
        "stratified": float(np.concatenate(sims).mean()) if n_sim else float("nan"),
        "stratified_analytic": 1 / k,
        "k": k,
        "majority_share": p,
    })


def _permutation_null_counts(dsg, y, *, seed, n_permutations, n_splits, C, observed=None) -> pd.Series:
    rng = np.random.default_rng(seed)
    permuted = [y[rng.permutation(len(y))] for _ in range(n_permutations)]
    runs = decoder.cross_val_predict_many(dsg, [(y_perm, seed) for y_perm in permuted], n_splits=n_splits, C=C)
    null = np.array([_macro_f1(y_perm, predicted) for y_perm, (predicted, _) in zip(permuted, runs, strict=True)])
    out = {
        "null_mean": null.mean(),
        "null_sd": null.std(ddof=1) if n_permutations > 1 else float("nan"),
        "null_p95": np.quantile(null, 0.95),
        "n_permutations": n_permutations,
        "p_value": float("nan") if observed is None else (1 + np.sum(null >= observed)) / (1 + n_permutations),
    }
    return pd.Series(out)


def permutation_null(
    outputs,
    labels,
    *,
    seed: int,
    n_permutations: int = 100,
    n_splits: int = 5,
    C: float = 4.0,
    observed: float | None = None,
) -> pd.Series:
    """Label-permutation null distribution of EAD ([Ojala10]_ test 1).

    The labels are permuted across items (breaking any link between emojis
    and emotion while keeping the class distribution and the outputs), and
    the whole :func:`ead` protocol is rerun, ``n_permutations`` times.

    Parameters
    ----------
    outputs, labels : as in :func:`ead`
    seed : int
        Seed of the permutations (``numpy.random.default_rng``) and CV seed.
    n_permutations : int, default 100
    n_splits, C : as in :func:`ead`
    observed : float, optional
        An observed EAD; if given, ``p_value = (1 + #{null >= observed}) /
        (1 + n_permutations)``.

    Returns
    -------
    Series
        ``null_mean, null_sd, null_p95`` (95th percentile),
        ``n_permutations, p_value``.
    """
    texts, y, _ = _items_labels(outputs, labels, None)
    return _permutation_null_counts(
        decoder.design(_texts(texts), emoji_analyzer),
        y,
        seed=seed,
        n_permutations=n_permutations,
        n_splits=n_splits,
        C=C,
        observed=observed,
    )


def mcnemar(oof_a: pd.DataFrame, oof_b: pd.DataFrame, *, exact: bool | None = None) -> pd.Series:
    """Paired McNemar test of two decoders on the same items ([McNemar47]_).

    Parameters
    ----------
    oof_a, oof_b : DataFrame
        Columns ``item, label, predicted`` (e.g. the OOF predictions of two
        systems in one language). They are matched on ``item``; the labels
        of a matched item must agree.
    exact : bool, optional
        Exact binomial test on the discordant pairs, or the chi-square test
        with continuity correction. Default: exact when the discordant
        count ``b + c`` is below 25.

    Returns
    -------
    Series
        ``n_items, both_correct, a_only`` (a right, b wrong), ``b_only,
        both_wrong, statistic, pvalue, exact, accuracy_a, accuracy_b``.
        ``statistic`` is statsmodels': ``min(b, c)`` for the exact test, the
        corrected chi-square otherwise.
    """
    merged = oof_a[["item", "label", "predicted"]].merge(
        oof_b[["item", "label", "predicted"]], on="item", suffixes=("_a", "_b"), validate="one_to_one"
    )
    if (merged["label_a"].astype(str) != merged["label_b"].astype(str)).any():
        raise ValueError("the two OOF tables disagree on the label of some items")
    ca = (merged["predicted_a"].astype(str) == merged["label_a"].astype(str)).to_numpy()
    cb = (merged["predicted_b"].astype(str) == merged["label_a"].astype(str)).to_numpy()
    n11, n10, n01, n00 = int((ca & cb).sum()), int((ca & ~cb).sum()), int((~ca & cb).sum()), int((~ca & ~cb).sum())
    if exact is None:
        exact = (n10 + n01) < 25
    res = _sm_mcnemar(np.array([[n11, n10], [n01, n00]]), exact=exact, correction=True)
    n = len(merged)
    return pd.Series({
        "n_items": n, "both_correct": n11, "a_only": n10, "b_only": n01, "both_wrong": n00,
        "statistic": float(res.statistic), "pvalue": float(res.pvalue), "exact": bool(exact),
        "accuracy_a": ca.mean() if n else float("nan"), "accuracy_b": cb.mean() if n else float("nan"),
    })
