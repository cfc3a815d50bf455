"""Multi-view leakage (paper section 9): what a row-wise split of a multi-view table costs.

A benchmark that stores ``V`` views of each of ``N`` source items (here
``V = 8`` generators' outputs per sentence) and is split row-wise puts
views of the same sentence on both sides of the split. This module gives

* the arithmetic: :func:`expected_leaked_fraction` (the share of test rows
  whose item also has a training row, ``1 - (1 - rho)^(V - 1)``) and
  :func:`prob_no_item_split` (the probability that no item is split,
  ``(rho^V + (1 - rho)^V)^N``, which is numerically zero for any real
  table and so is reported with its log10);
* the two protocols: :func:`rowwise_split` and :func:`grouped_split`;
* the measurement on the Bangla multi-view table (:func:`multiview_table`):
  :func:`split_optimism` (paper: 0.630 row-wise vs 0.598 grouped macro-F1,
  +3.1 points, t = 4.97, p = 0.0006, 6 replicates),
  :func:`optimism_by_ratio` (1.7-2.3 points over split ratios 0.5-0.9) and
  :func:`system_rankings` (rho = 0.76 between the two protocols' rankings;
  the top system changes from Mistral-Large-2512 to Gemma-3-27B).

The classifier is the EAD decoder of section 6 and appendix B,
:mod:`compendium.stats.decoder` (the one chapter 4 uses): sublinear TF-IDF over
emoji graphemes, fitted on the training rows only, and an L2-regularised
multinomial logistic regression with ``C = 4`` and class-balanced weights,
fitted to its optimum. The emojis of the table are counted once for every
split, and the test predictions of a run are a build artefact
(:mod:`compendium.data.cache`), so :func:`split_optimism`,
:func:`optimism_by_ratio` and :func:`system_rankings` fit each split once. One classifier is trained on the pooled
training
rows of all systems -- the multi-view setting in which leakage arises: a
per-system decoder never sees another system's view of a test item.

Replicates
----------
Replicate ``r`` of a run with seed ``seed`` uses the split seed
``numpy.random.SeedSequence(seed).generate_state(n_replicates)[r]`` for both
protocols, whatever the split ratio. Hence :func:`split_optimism`,
:func:`optimism_by_ratio` at the same ratio and :func:`system_rankings`
evaluate the very same splits.

References
----------
.. [Kap23] S. Kapoor and A. Narayanan, "Leakage and the reproducibility
   crisis in machine-learning-based science", Patterns 4 (2023).
.. [Rob17] D. R. Roberts et al., "Cross-validation strategies for data with
   temporal, spatial, hierarchical, or phylogenetic structure", Ecography
   40 (2017) (grouped / blocked splitting).
.. [Sai23] O. Sainz et al., "NLP evaluation in trouble: on the need to
   measure LLM data contamination for each benchmark", Findings of EMNLP
   2023.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.model_selection import train_test_split
from sklearn.utils.parallel import Parallel, delayed

from compendium.stats import _workers as workers
from compendium.stats import decoder
from compendium.data import schema
from compendium.analyses.emoji import emoji_analyzer
from compendium.data.cache import cached
from compendium.analyses.ead.inference import (
    _encode,
    _macro_f1,
    _macro_f1_rows,
)  # f1_score(average="macro") from confusion counts

__all__ = [
    "expected_leaked_fraction",
    "prob_no_item_split",
    "multiview_table",
    "rowwise_split",
    "grouped_split",
    "stratified_grouped_split",
    "leaked_share",
    "replicate_seeds",
    "protocol_predictions",
    "split_optimism",
    "corrected_resampled_t",
    "optimism_test",
    "optimism_by_ratio",
    "system_rankings",
]

#: The two protocols: a naive split of rows, and a split of source items.
PROTOCOLS: tuple[str, ...] = ("rowwise", "grouped")

#: Inverse regularisation of the emoji decoder (appendix B: C = 4 on TF-IDF emoji features).
DEFAULT_C = 4.0

#: Iteration cap of the decoder (kept for old imports; the settings are :mod:`compendium.stats.decoder`'s).
MAX_ITER = decoder.MAX_ITER


# --- the arithmetic -----------------------------------------------------------------------


def expected_leaked_fraction(train_fraction, n_views):
    """Expected share of test rows whose source item also has a row in training.

    Under a row-wise split in which each row goes to training independently
    with probability ``rho = train_fraction``, a test row's item has
    ``V - 1`` other views, and the item is unseen in training only if all of
    them are in the test set too::

        E[leaked share] = 1 - (1 - rho)^(V - 1)

    (For a split of fixed size, as :func:`rowwise_split` makes, the exact
    value is hypergeometric and differs by O(1/rows).) This is the
    decision-relevant quantity of section 9: 99.9987% at ``V = 8``,
    ``rho = 0.8`` (the paper prints 99.998%) and 99.84% at ``V = 5``.

    Parameters
    ----------
    train_fraction : float or array-like
        ``rho`` in [0, 1].
    n_views : int or array-like
        ``V >= 1`` views per item. Broadcast against ``train_fraction``.

    Returns
    -------
    float or ndarray
        A float for scalar input, else an array of the broadcast shape.

    Examples
    --------
    >>> round(expected_leaked_fraction(0.8, 8), 7), round(expected_leaked_fraction(0.8, 5), 4)
    (0.9999872, 0.9984)
    >>> expected_leaked_fraction([0.5, 0.8], 2)
    array([0.5, 0.8])
    """
    rho = np.asarray(train_fraction, dtype=np.float64)
    views = np.asarray(n_views, dtype=np.float64)
    if ((rho < 0) | (rho > 1)).any():
        raise ValueError("train_fraction must lie in [0, 1]")
    if (views < 1).any():
        raise ValueError("n_views must be at least 1")
    result = 1.0 - (1.0 - rho) ** (views - 1.0)
    return float(result) if result.ndim == 0 else result


def prob_no_item_split(train_fraction, n_views, n_items):
    """Probability that a row-wise split leaves every item whole, and its log10.

    With independent Bernoulli(``rho``) assignment of each row to training,
    an item's ``V`` views all land on one side with probability
    ``rho^V + (1 - rho)^V``, and all ``N`` items stay whole with probability
    ``(rho^V + (1 - rho)^V)^N``. For ``V >= 2`` and ``N >= 100`` this
    underflows double precision at any usual ``rho`` (section 9:
    "numerically zero"), so it is computed in log space,
    ``log10 P = N * log10(exp(logaddexp(V ln rho, V ln(1 - rho))))``, and the
    log10 is returned as well.

    Parameters
    ----------
    train_fraction, n_views, n_items : float/int or array-like
        ``rho`` in [0, 1], ``V >= 1``, ``N >= 0``; broadcast together.

    Returns
    -------
    probability : float or ndarray
        ``exp(N ln(rho^V + (1 - rho)^V))`` (0.0 where it underflows).
    log10_probability : float or ndarray
        ``log10`` of the probability; finite for every valid input (the
        per-item probability is at least ``2^(1-V)``), so it stays
        informative where the probability itself underflows to 0. Floats
        for scalar input.

    Examples
    --------
    >>> p, log10p = prob_no_item_split(0.5, 2, 1)  # two views: both in train or both in test
    >>> round(p, 12), round(log10p, 4)
    (0.5, -0.301)
    >>> p, log10p = prob_no_item_split(0.8, 8, 4206)  # the Bangla table of section 9
    >>> p, round(log10p, 1)
    (0.0, -3260.8)
    """
    rho = np.asarray(train_fraction, dtype=np.float64)
    views = np.asarray(n_views, dtype=np.float64)
    items = np.asarray(n_items, dtype=np.float64)
    if ((rho < 0) | (rho > 1)).any():
        raise ValueError("train_fraction must lie in [0, 1]")
    if (views < 1).any() or (items < 0).any():
        raise ValueError("n_views must be at least 1 and n_items non-negative")
    with np.errstate(divide="ignore"):
        log_whole = np.logaddexp(views * np.log(rho), views * np.log1p(-rho))  # ln(rho^V + (1-rho)^V) <= 0
    log_probability = items * log_whole
    probability = np.exp(log_probability)
    log10 = log_probability / np.log(10.0)
    if probability.ndim == 0:
        return float(probability), float(log10)
    return probability, log10


# --- the multi-view table and the two protocols ------------------------------------------------------


def multiview_table(
    sentences: pd.DataFrame,
    generations: pd.DataFrame,
    *,
    language: str = "bn",
    systems: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The multi-view table: one row per (single shared-emotion item, system).

    Parameters
    ----------
    sentences : DataFrame
        Columns ``sentence_id, language, labels, shared_single``.
    generations : DataFrame
        Columns ``sentence_id, system, output``.
    language : str, default "bn"
        Section 9 uses the Bangla table (4,206 items x 8 views = 33,648 rows).
    systems : sequence of str, optional
        Default: the systems of :data:`compendium.data.schema.SYSTEMS` present.

    Returns
    -------
    DataFrame
        Columns ``sentence_id``, ``system`` (str), ``output`` and ``label``
        (the item's single emotion), sorted by item and then schema system
        order, with a fresh RangeIndex.

    Examples
    --------
    >>> s = pd.DataFrame({"sentence_id": ["a", "b"], "language": "bn", "labels": ["joy", "joy;fear"],
    ...                   "shared_single": [True, False]})
    >>> g = pd.DataFrame({"sentence_id": ["a", "a", "b"], "system": ["gemma-3-27b", "claude-3-haiku", "gemma-3-27b"],
    ...                   "output": ["x", "y", "z"]})
    >>> multiview_table(s, g).to_dict("records")
    [{'sentence_id': 'a', 'system': 'claude-3-haiku', 'output': 'y', 'label': 'joy'},
     {'sentence_id': 'a', 'system': 'gemma-3-27b', 'output': 'x', 'label': 'joy'}]
    """
    keep = (sentences["language"].astype(str) == language) & sentences["shared_single"].astype(bool)
    items = sentences.loc[keep, ["sentence_id", "labels"]].rename(columns={"labels": "label"})
    frame = generations[["sentence_id", "system", "output"]].assign(system=lambda f: f["system"].astype(str))
    present = set(frame["system"].unique().tolist())
    chosen = [s for s in schema.SYSTEMS if s in present] if systems is None else list(systems)
    frame = frame[frame["system"].isin(chosen)].merge(items, on="sentence_id", how="inner", validate="many_to_one")
    frame["label"] = frame["label"].astype(str)
    order = {s: i for i, s in enumerate(chosen)}
    frame = frame.assign(_order=frame["system"].map(order)).sort_values(["sentence_id", "_order"], kind="stable")
    return frame.drop(columns="_order").reset_index(drop=True)


def _column(table: pd.DataFrame, name: str) -> np.ndarray:
    if name not in table.columns:
        raise KeyError(f"the table has no column {name!r}")
    return table[name].to_numpy()


def rowwise_split(
    table: pd.DataFrame, *, train_fraction: float = 0.8, seed: int, label: str | None = "label"
) -> tuple[np.ndarray, np.ndarray]:
    """The naive protocol: a random split of rows, stratified by label.

    ``sklearn.model_selection.train_test_split`` of the row positions with
    ``train_size=train_fraction``, ``stratify`` = the label column and
    ``random_state=seed``. Views of one item fall on both sides freely.

    Parameters
    ----------
    table : DataFrame
        The multi-view table (e.g. :func:`multiview_table`).
    train_fraction : float, default 0.8
    seed : int
    label : str or None, default "label"
        Column to stratify by; None for an unstratified split.

    Returns
    -------
    train, test : ndarray of int
        Sorted row positions (for ``table.iloc``).

    Examples
    --------
    >>> t = pd.DataFrame({"sentence_id": np.repeat(list("abcde"), 2), "label": np.repeat(list("xxyyy"), 2)})
    >>> train, test = rowwise_split(t, seed=0)
    >>> len(train), len(test)
    (8, 2)
    """
    return _rowwise(len(table), _row_strata(table, label), train_fraction, seed)


def _row_strata(table: pd.DataFrame, label: str | None) -> np.ndarray | None:
    """The label column as integer codes in the labels' sorted order (None without a label).

    Stratifying by these splits exactly as stratifying by the labels does
    (scikit-learn codes them with ``np.unique``, also sorted), without
    sorting 10^4 strings per split.
    """
    if label is None:
        return None
    return pd.factorize(pd.Series(_column(table, label)), sort=True, use_na_sentinel=False)[0]


def _rowwise(n_rows: int, strata: np.ndarray | None, train_fraction: float, seed: int):
    """:func:`rowwise_split` on ``n_rows`` rows with strata codes (:func:`_row_strata`)."""
    train, test = train_test_split(np.arange(n_rows), train_size=train_fraction, stratify=strata, random_state=seed)
    return np.sort(train), np.sort(test)


def grouped_split(
    table: pd.DataFrame,
    *,
    train_fraction: float = 0.8,
    seed: int,
    group: str = "sentence_id",
    label: str | None = "label",
) -> tuple[np.ndarray, np.ndarray]:
    """The clean protocol: split source items, stratified by the item's label.

    The distinct items (``group``) are split with
    ``train_test_split(train_size=train_fraction, stratify=item label,
    random_state=seed)`` and every row follows its item, so no item has rows
    on both sides. Because every view of an item carries the item's label,
    this is a stratified group split; the row fractions equal
    ``train_fraction`` up to rounding when items have equally many views.

    Parameters
    ----------
    table : DataFrame
    train_fraction : float, default 0.8
        Share of *items* in training.
    seed : int
    group : str, default "sentence_id"
    label : str or None, default "label"
        Item-level label to stratify by (must be constant within an item);
        None for an unstratified group split.

    Returns
    -------
    train, test : ndarray of int
        Sorted row positions.

    Raises
    ------
    ValueError
        If ``label`` varies within an item.

    Examples
    --------
    >>> t = pd.DataFrame({"sentence_id": np.repeat(list("abcde"), 2), "label": np.repeat(list("xxyyy"), 2)})
    >>> train, test = grouped_split(t, train_fraction=0.6, seed=0)
    >>> set(t["sentence_id"].iloc[train]) & set(t["sentence_id"].iloc[test])
    set()
    """
    return _grouped(*_item_strata(table, group, label), train_fraction, seed)


def stratified_grouped_split(
    table: pd.DataFrame,
    *,
    train_fraction: float = 0.8,
    seed: int,
    group: str = "sentence_id",
    label: str = "label",
    n_strata: int = 5,
) -> tuple[np.ndarray, np.ndarray]:
    """A group split stratified by a label that varies within a group (each view has its own label).

    The items are ordered by their share of rows with the larger label value (ties in item order), cut into
    ``n_strata`` strata of equal size, and drawn within each by ``train_test_split``, so that training and
    test get alike shares of the label, as a row-wise split stratified by the label does. Every row follows
    its item. Returns the sorted row positions ``train, test``.

    Examples
    --------
    >>> t = pd.DataFrame({"sentence_id": np.repeat(list("abcdefghij"), 2), "label": [0, 1] * 5 + [0, 0] * 5})
    >>> train, test = stratified_grouped_split(t, train_fraction=0.8, seed=0, n_strata=2)
    >>> sorted(set(t["sentence_id"].iloc[test])), float(t["label"].iloc[test].mean())  # one item of each stratum
    (['d', 'j'], 0.25)
    """
    codes, items = pd.factorize(pd.Series(_column(table, group)), sort=True)
    values = pd.Series(_column(table, label))
    top = values.max()
    share = pd.Series((values == top).to_numpy(float)).groupby(codes).mean().reindex(range(len(items)))
    strata = pd.qcut(share.rank(method="first"), min(n_strata, len(items)), labels=False).to_numpy()
    return _grouped(codes, len(items), strata, train_fraction, seed)


def _item_strata(table: pd.DataFrame, group: str, label: str | None):
    """``(item code of each row, number of items, label code of each item or None)`` for :func:`_grouped`.

    Items are coded in sorted order; labels as integer codes in their sorted
    order, the same strata for ``train_test_split`` as the labels themselves
    (see :func:`_row_strata`). Raises if a label varies within an item.
    """
    codes, items = pd.factorize(pd.Series(_column(table, group)), sort=True)
    if label is None:
        return codes, len(items), None
    labels = pd.factorize(pd.Series(_column(table, label)).astype(str), sort=True)[0]
    strata = np.full(len(items), -1)
    strata[codes] = labels  # the label of one of each item's rows
    varies = np.flatnonzero(labels != strata[codes])
    if len(varies):
        bad = items[codes[varies[0]]]
        raise ValueError(f"label varies within item {bad!r}; a stratified group split needs one label per item")
    return codes, len(items), strata


def _grouped(codes: np.ndarray, n_items: int, strata: np.ndarray | None, train_fraction: float, seed: int):
    """:func:`grouped_split` from the item code of each row and the items' strata (:func:`_item_strata`)."""
    item_train, _ = train_test_split(np.arange(n_items), train_size=train_fraction, stratify=strata, random_state=seed)
    in_train = np.zeros(n_items, dtype=bool)
    in_train[item_train] = True
    rows = in_train[codes]
    return np.flatnonzero(rows), np.flatnonzero(~rows)


def _in(values: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``np.isin`` by hashing: on object (string) arrays numpy's isin compares pairwise, which took
    seconds per split on the 33,648-row table; pandas hashes."""
    return pd.Index(values).isin(reference)


def leaked_share(table: pd.DataFrame, train: np.ndarray, test: np.ndarray, *, group: str = "sentence_id") -> float:
    """Share of test rows whose item also has a row in training (the empirical leak).

    Examples
    --------
    >>> t = pd.DataFrame({"sentence_id": ["a", "a", "b", "b"]})
    >>> leaked_share(t, np.array([0, 2, 3]), np.array([1]))
    1.0
    """
    ids = _column(table, group)
    return float(_in(ids[test], ids[train]).mean()) if len(test) else float("nan")


def replicate_seeds(seed: int, n_replicates: int) -> list[int]:
    """The split seed of each replicate (see the module docstring).

    Examples
    --------
    >>> len(replicate_seeds(0, 6)), replicate_seeds(0, 6)[:2] == replicate_seeds(0, 2)
    (6, True)
    """
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(n_replicates)]


# --- the decoder --------------------------------------------------------------------------------------


def _replicate_predictions(dsg: decoder.Design, codes: np.ndarray, n_classes: int, row_strata, items,
                           train_fraction: float, split_seed: int, C: float) -> list:
    """One replicate (runs in a joblib worker): both protocols' splits, the emoji decoder
    (:mod:`compendium.stats.decoder`) fitted on each, and per protocol ``(test rows, predicted class codes,
    whether each test row's item has a training row)``. ``items`` is :func:`_item_strata`'s triple."""
    splits = [_rowwise(len(codes), row_strata, train_fraction, split_seed) if protocol == "rowwise"
              else _grouped(*items, train_fraction, split_seed) for protocol in PROTOCOLS]
    predicted = decoder.train_test_predict_many(dsg, codes, n_classes, splits, C=C)
    item_codes, n_items, _ = items
    out = []
    for (train, test), pred in zip(splits, predicted, strict=True):
        seen = np.zeros(n_items, dtype=bool)
        seen[item_codes[train]] = True  # items with a training row
        out.append((test, pred, seen[item_codes[test]]))
    return out


def protocol_predictions(
    table: pd.DataFrame,
    *,
    train_fraction: float = 0.8,
    n_replicates: int = 6,
    seed: int,
    C: float = DEFAULT_C,
    n_jobs: int = 1,
) -> pd.DataFrame:
    """Test-set predictions of the emoji decoder under both protocols, per replicate.

    For each replicate (seeds :func:`replicate_seeds`), each protocol splits
    the table (:func:`rowwise_split`, :func:`grouped_split`), fits the
    decoder on the training rows -- TF-IDF vocabulary and IDF included --
    and predicts the test rows.

    Parameters
    ----------
    table : DataFrame
        Columns ``sentence_id, system, output, label`` (:func:`multiview_table`).
    train_fraction : float, default 0.8
    n_replicates : int, default 6
    seed : int
    C : float, default 4.0
    n_jobs : int, default 1
        joblib worker processes over the replicates (a worker draws a
        replicate's two splits and fits the decoder on each). Results do not
        depend on it. The default is one: the twelve fits of the book's
        Bangla table take about half a second, less than starting worker
        processes does; with workers already running (``make bench`` starts
        them once) two halve it.

    Returns
    -------
    DataFrame
        One row per (replicate, protocol, test row): ``replicate``,
        ``split_seed``, ``protocol``, ``row`` (position in ``table``),
        ``sentence_id``, ``system``, ``label``, ``predicted``, and
        ``leaked`` (the row's item has a training row).
    """
    return _protocol_predictions(table, float(train_fraction), int(n_replicates), int(seed), float(C), int(n_jobs))


@cached("compendium.stats.decoder", "compendium.analyses.emoji", ignore=("n_jobs",))
def _protocol_predictions(table, train_fraction, n_replicates, seed, C, n_jobs):
    # The emojis are counted once for the whole table (decoder.design segments each distinct output
    # once), labels and items are coded once; a worker receives the merged design and integer arrays,
    # never the table of strings, and draws its replicate's two splits itself.
    outputs = table["output"].fillna("").astype(str).to_numpy()
    labels = _column(table, "label").astype(str)
    ids = _column(table, "sentence_id")
    systems = table["system"].astype(str).to_numpy() if "system" in table.columns else np.full(len(table), "")
    dsg = decoder.design(list(outputs), emoji_analyzer)
    classes, codes = np.unique(labels, return_inverse=True)
    row_strata, items = _row_strata(table, "label"), _item_strata(table, "sentence_id", "label")
    seeds = replicate_seeds(seed, n_replicates)
    jobs = [(dsg, codes, len(classes), row_strata, items, train_fraction, split_seed, C) for split_seed in seeds]
    if n_jobs == 1:
        results = [_replicate_predictions(*job) for job in jobs]
    else:
        results = Parallel(n_jobs=n_jobs, **workers.options())(delayed(_replicate_predictions)(*job) for job in jobs)
    splits = [(replicate, split_seed, protocol, *result)
              for replicate, (split_seed, replicate_results) in enumerate(zip(seeds, results, strict=True))
              for protocol, result in zip(PROTOCOLS, replicate_results, strict=True)]
    sizes = [len(test) for _, _, _, test, _, _ in splits]
    test = np.concatenate([test for _, _, _, test, _, _ in splits])
    # One frame from whole columns (string columns are converted once, not once per split).
    return pd.DataFrame(
        {
            "replicate": np.repeat([replicate for replicate, *_ in splits], sizes),
            "split_seed": np.repeat([split_seed for _, split_seed, *_ in splits], sizes),
            "protocol": np.repeat([protocol for _, _, protocol, *_ in splits], sizes),
            "row": test,
            "sentence_id": ids[test],
            "system": systems[test],
            "label": labels[test],
            "predicted": classes[np.concatenate([predicted for *_, predicted, _ in splits])],
            "leaked": np.concatenate([leaked for *_, leaked in splits]),
        }
    )


class Optimism(NamedTuple):
    """What :func:`split_optimism` returns."""

    replicates: pd.DataFrame
    summary: pd.Series


def _summarise(replicates: pd.DataFrame, train_fraction: float) -> pd.Series:
    row, grp = replicates["rowwise"].to_numpy(), replicates["grouped"].to_numpy()
    n = len(replicates)
    paired = stats.ttest_rel(row, grp) if n >= 2 else None
    independent = stats.ttest_ind(row, grp) if n >= 2 else None
    return pd.Series(
        {
            "train_fraction": train_fraction,
            "n_replicates": float(n),
            "rowwise_mean": row.mean(),
            "rowwise_sd": row.std(ddof=1) if n >= 2 else np.nan,
            "grouped_mean": grp.mean(),
            "grouped_sd": grp.std(ddof=1) if n >= 2 else np.nan,
            "inflation_points": 100.0 * (row.mean() - grp.mean()),
            "relative_pct": 100.0 * (row.mean() / grp.mean() - 1.0),
            "t": float(paired.statistic) if paired else np.nan,
            "df": float(n - 1),
            "p": float(paired.pvalue) if paired else np.nan,
            "t_independent": float(independent.statistic) if independent else np.nan,
            "df_independent": float(2 * n - 2),
            "p_independent": float(independent.pvalue) if independent else np.nan,
            "leaked_share_rowwise": replicates["leaked_share_rowwise"].mean(),
            "expected_leaked_share": replicates["expected_leaked_share"].iloc[0],
        },
        dtype=float,
    ).rename_axis("measure")


def _replicate_scores(predictions: pd.DataFrame, table: pd.DataFrame, train_fraction: float) -> pd.DataFrame:
    n_views = float(table.groupby("sentence_id").size().mean())
    # Labels coded once for all parts (a class absent from a part counts in no part's macro-F1).
    true, predicted, k = _encode(predictions["label"], predictions["predicted"])
    replicate_of, seed_of = predictions["replicate"].to_numpy(), predictions["split_seed"].to_numpy()
    protocol_of, protocols = pd.factorize(predictions["protocol"])
    leaked = predictions["leaked"].to_numpy()
    rows = []
    for replicate, split_seed in sorted(set(zip(replicate_of.tolist(), seed_of.tolist()))):
        record = {"replicate": replicate, "split_seed": split_seed}
        in_replicate = (replicate_of == replicate) & (seed_of == split_seed)
        parts = {protocol: in_replicate & (protocol_of == protocols.get_loc(protocol)) for protocol in PROTOCOLS}
        for protocol, part in parts.items():
            record[protocol] = float(_macro_f1_rows((true[part] * k + predicted[part])[None, :], k)[0])
            record[f"n_test_{protocol}"] = int(part.sum())
        record["inflation_points"] = 100.0 * (record["rowwise"] - record["grouped"])
        for protocol, part in parts.items():
            record[f"leaked_share_{protocol}"] = leaked[part].mean()
        record["expected_leaked_share"] = expected_leaked_fraction(train_fraction, n_views)
        rows.append(record)
    return pd.DataFrame(rows)


def split_optimism(
    table: pd.DataFrame,
    *,
    train_fraction: float = 0.8,
    n_replicates: int = 6,
    seed: int,
    C: float = DEFAULT_C,
    n_jobs: int = 1,
) -> Optimism:
    """Macro-F1 under row-wise and grouped splits, and the optimism of the row-wise one.

    Each replicate splits the multi-view table both ways (same split seed),
    trains the emoji decoder on the training rows and scores macro-F1 on all
    test rows (all systems pooled). The optimism is ``rowwise - grouped``.

    Parameters
    ----------
    table : DataFrame
        Columns ``sentence_id, system, output, label`` (:func:`multiview_table`).
    train_fraction : float, default 0.8
    n_replicates : int, default 6
    seed : int
    C : float, default 4.0
    n_jobs : int, default 1
        As in :func:`protocol_predictions`.

    Returns
    -------
    Optimism
        A named tuple ``(replicates, summary)``.

        ``replicates`` -- one row per replicate: ``replicate``,
        ``split_seed``, ``rowwise`` and ``grouped`` macro-F1, test sizes,
        ``inflation_points``, the empirical ``leaked_share_rowwise`` (share
        of row-wise test rows whose item is in training; 0 for grouped) and
        ``expected_leaked_share`` (:func:`expected_leaked_fraction` at the
        mean number of views).

        ``summary`` -- ``rowwise_mean``/``_sd``, ``grouped_mean``/``_sd``,
        ``inflation_points`` (100 x difference of the means),
        ``relative_pct`` (100 x (rowwise / grouped - 1)), the paired t-test
        over replicates (``t``, ``df`` = n - 1, two-sided ``p``;
        :func:`scipy.stats.ttest_rel`), and for comparison Student's
        two-sample t-test (``t_independent``, ``df_independent`` = 2n - 2,
        ``p_independent``; :func:`scipy.stats.ttest_ind`).

    Notes
    -----
    The paper reports t = 4.97 with p = 0.0006 for 6 replicates. A paired
    test has 5 degrees of freedom, and t = 4.97 on 5 df gives p = 0.0042
    (two-sided); p = 0.0006 is what t = 4.97 gives on 10 df, i.e. a
    two-sample test. The paired test is the right one here (both protocols
    of a replicate share its seed), so ``p`` is the paired p and the
    two-sample values are reported beside it.

    Examples
    --------
    See ``tests/test_leakage.py`` for a synthetic table on which the row-wise
    split is the more optimistic; on the benchmark::

        table = multiview_table(benchmark.sentences, benchmark.generations)
        result = split_optimism(table, seed=seed)
        result.summary[["rowwise_mean", "grouped_mean", "inflation_points", "t", "p"]]
    """
    predictions = protocol_predictions(
        table, train_fraction=train_fraction, n_replicates=n_replicates, seed=seed, C=C, n_jobs=n_jobs
    )
    replicates = _replicate_scores(predictions, table, train_fraction)
    return Optimism(replicates, _summarise(replicates, train_fraction))


def corrected_resampled_t(differences, *, n_train: float, n_test: float) -> pd.Series:
    r"""Nadeau and Bengio's corrected resampled t-test, beside the naive paired t.

    With :math:`J` random train/test splits of one data set, the
    differences :math:`d_j` of two scores are positively correlated (the
    training sets overlap), so the naive paired t, :math:`\bar d /
    \sqrt{s^2 / J}` on :math:`J - 1` df, is anti-conservative. Nadeau and
    Bengio (2003, eq. 11) inflate the variance by the test/train ratio:

    .. math:: t = \frac{\bar d}{\sqrt{\left(\frac{1}{J} + \frac{n_{test}}{n_{train}}\right) s^2}}

    on :math:`J - 1` df, :math:`s^2` the sample variance (ddof 1) of the
    :math:`d_j`.

    Parameters
    ----------
    differences : array_like of float
        One difference per split (e.g. row-wise minus grouped macro-F1).
    n_train, n_test : float
        Training and test set sizes of a split (their ratio is what counts).

    Returns
    -------
    pandas.Series
        ``n_splits, mean, sd, t_naive, p_naive, t_corrected, p_corrected,
        df`` (two-sided p-values, Student's t on ``df`` = J - 1),
        ``test_train_ratio``, and ``ci_low, ci_high``: the 95% interval of
        the mean difference with the corrected variance, ``mean -/+
        t(0.975, df) sqrt((1/J + n_test/n_train) s^2)`` (it excludes 0
        exactly when ``p_corrected < 0.05``; with ``n_test = 0`` it would be
        the one-sample t interval).

    References
    ----------
    .. [1] C. Nadeau and Y. Bengio (2003). Inference for the generalization
       error. *Machine Learning* 52(3), 239-281.
    .. [2] R. R. Bouckaert and E. Frank (2004). Evaluating the replicability
       of significance tests for comparing learning algorithms. *PAKDD*,
       3-12.

    Examples
    --------
    >>> corrected_resampled_t([1.0, 2.0, 3.0], n_train=8, n_test=2)[["t_naive", "t_corrected"]].round(4).tolist()
    [3.4641, 2.6186]
    """
    d = np.asarray(differences, dtype=float).ravel()
    if len(d) < 2 or not np.isfinite(d).all():
        raise ValueError(f"need at least two finite differences, got {d.tolist()}")
    if not (n_train > 0 and n_test > 0):
        raise ValueError(f"n_train and n_test must be positive, got {n_train!r} and {n_test!r}")
    j, mean, var = len(d), float(d.mean()), float(d.var(ddof=1))
    ratio = float(n_test) / float(n_train)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_naive = mean / np.sqrt(var / j)
        t_corr = mean / np.sqrt((1.0 / j + ratio) * var)
    half = float(stats.t.ppf(0.975, j - 1) * np.sqrt((1.0 / j + ratio) * var))
    return pd.Series({
        "n_splits": float(j), "mean": mean, "sd": float(np.sqrt(var)),
        "t_naive": float(t_naive), "p_naive": float(2 * stats.t.sf(abs(t_naive), j - 1)),
        "t_corrected": float(t_corr), "p_corrected": float(2 * stats.t.sf(abs(t_corr), j - 1)),
        "df": float(j - 1), "test_train_ratio": ratio,
        "ci_low": mean - half, "ci_high": mean + half,
    }).rename_axis("measure")


def optimism_test(optimism: Optimism, table: pd.DataFrame) -> pd.Series:
    """The corrected resampled t of the row-wise minus grouped macro-F1 of :func:`split_optimism`.

    The differences are the replicates' ``rowwise - grouped``; the test and
    training sizes are the mean test size over both protocols and the rest
    of the table's rows.

    Parameters
    ----------
    optimism : Optimism
        Output of :func:`split_optimism`.
    table : DataFrame
        The multi-view table it was computed on.

    Returns
    -------
    pandas.Series
        As :func:`corrected_resampled_t`, in macro-F1 units.
    """
    reps = optimism.replicates
    n_test = float(np.mean([reps[f"n_test_{p}"].mean() for p in PROTOCOLS]))
    return corrected_resampled_t(reps["rowwise"] - reps["grouped"], n_train=len(table) - n_test, n_test=n_test)


def optimism_by_ratio(
    table: pd.DataFrame,
    *,
    ratios: Sequence[float] = (0.5, 0.6, 0.7, 0.8, 0.9),
    n_replicates: int = 6,
    seed: int,
    C: float = DEFAULT_C,
) -> pd.DataFrame:
    """The row-wise optimism at each split ratio (paper: 1.7-2.3 points over 0.5-0.9).

    Runs :func:`split_optimism` at each training fraction with the same
    replicate seeds.

    Returns
    -------
    DataFrame
        Index ``train_fraction``; columns of the ``summary`` of
        :func:`split_optimism` (``rowwise_mean``, ``grouped_mean``,
        ``inflation_points``, ``relative_pct``, ``t``, ``p``, ...).

    Examples
    --------
    On the benchmark::

        optimism_by_ratio(multiview_table(b.sentences, b.generations), seed=seed)["inflation_points"]
    """
    rows = {
        float(ratio): split_optimism(table, train_fraction=ratio, n_replicates=n_replicates, seed=seed, C=C).summary
        for ratio in ratios
    }
    table_out = pd.DataFrame(rows).T.drop(columns="train_fraction")
    table_out.index.name = "train_fraction"
    table_out["n_replicates"] = table_out["n_replicates"].astype(int)
    return table_out


class Rankings(NamedTuple):
    """What :func:`system_rankings` returns."""

    systems: pd.DataFrame
    summary: pd.Series


def system_rankings(
    table: pd.DataFrame,
    *,
    train_fraction: float = 0.8,
    n_replicates: int = 6,
    seed: int,
    C: float = DEFAULT_C,
) -> Rankings:
    """Per-system macro-F1 and ranking under the leaky and the clean protocol.

    In each replicate one decoder is trained on the pooled training rows
    (all systems) of each protocol; a system's score is the macro-F1 on
    *its own* test rows, averaged over replicates. Systems are ranked by
    that mean (1 = best; ties get the average rank).

    Parameters
    ----------
    table : DataFrame
        Columns ``sentence_id, system, output, label``.
    train_fraction, n_replicates, seed, C
        As in :func:`split_optimism` (same seeds, hence the same splits).

    Returns
    -------
    Rankings
        A named tuple ``(systems, summary)``.

        ``systems`` -- index ``system`` (schema order): ``rowwise_f1``,
        ``grouped_f1``, ``rowwise_sd``, ``grouped_sd`` (SD over
        replicates), ``inflation_points``, ``rowwise_rank``, ``grouped_rank``.

        ``summary`` -- ``rho`` and ``p`` (Spearman between the two
        protocols' mean scores, :func:`scipy.stats.spearmanr`),
        ``n_systems``, ``top_rowwise``, ``top_grouped`` and ``top_changes``
        (1 if they differ). Paper: rho = 0.76; top system Mistral-Large-2512
        (row-wise) vs Gemma-3-27B (grouped).

    Examples
    --------
    On the benchmark::

        result = system_rankings(multiview_table(b.sentences, b.generations), seed=seed)
        result.summary[["rho", "top_rowwise", "top_grouped"]]
    """
    predictions = protocol_predictions(
        table, train_fraction=train_fraction, n_replicates=n_replicates, seed=seed, C=C
    )
    scores = (
        predictions.groupby(["protocol", "system", "replicate"], sort=False)
        .apply(lambda p: _macro_f1(p["label"], p["predicted"]), include_groups=False)
        .rename("f1")
        .reset_index()
    )
    wide = scores.pivot_table(index="system", columns="protocol", values="f1", aggfunc=["mean", "std"])
    present = list(wide.index)
    order = [s for s in schema.SYSTEMS if s in present] + sorted(set(present) - set(schema.SYSTEMS))
    systems = pd.DataFrame(
        {
            "rowwise_f1": wide[("mean", "rowwise")],
            "grouped_f1": wide[("mean", "grouped")],
            "rowwise_sd": wide[("std", "rowwise")],
            "grouped_sd": wide[("std", "grouped")],
        }
    ).reindex(order)
    systems.index.name = "system"
    systems["inflation_points"] = 100.0 * (systems["rowwise_f1"] - systems["grouped_f1"])
    systems["rowwise_rank"] = systems["rowwise_f1"].rank(ascending=False)
    systems["grouped_rank"] = systems["grouped_f1"].rank(ascending=False)
    if len(systems) >= 3:
        result = stats.spearmanr(systems["rowwise_f1"], systems["grouped_f1"])
        rho, p = float(result.statistic), float(result.pvalue)
    else:
        rho = p = float("nan")
    top_rowwise, top_grouped = systems["rowwise_f1"].idxmax(), systems["grouped_f1"].idxmax()
    summary = pd.Series(
        {
            "rho": rho,
            "p": p,
            "n_systems": len(systems),
            "top_rowwise": top_rowwise,
            "top_grouped": top_grouped,
            "top_changes": int(top_rowwise != top_grouped),
        },
        dtype=object,
    ).rename_axis("measure")
    return Rankings(systems, summary)
