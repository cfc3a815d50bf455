"""EAD itself (paper section 6, appendix B): one cell, the grid of cells, seed stability.

Part of :mod:`compendium.analyses.ead` (which re-exports every public name); the decisions and
references are in that module's docstring. The decoder is :mod:`compendium.stats.decoder`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.utils.parallel import Parallel, delayed

from compendium.stats import _workers as workers
from compendium.stats import decoder
from compendium.stats._blas import one_blas_thread
from compendium.data import schema
from compendium.analyses.emoji import emoji_analyzer
from compendium.data.cache import cached, location, stored
from compendium.analyses.ead.inference import (
    _items_labels,
    _macro_f1,
    _permutation_null_counts,
    _texts,
    bootstrap_ci,
    floors,
)

#: lbfgs iteration cap of the embedding probe (the default 100 can stop short on dense embeddings).
#: The emoji decoder's solver settings are :mod:`compendium.stats.decoder`'s.
MAX_ITER = 2000


# --------------------------------------------------------------------------- core


@dataclass(frozen=True)
class EADResult:
    """Result of one cross-validated probe (:func:`ead`, :func:`embedding_probe`).

    Attributes
    ----------
    macro_f1 : float
        Macro-F1 of the pooled out-of-fold predictions (the EAD).
    oof : DataFrame
        One row per item: ``item, label, predicted, fold``.
    folds : DataFrame
        One row per fold: ``fold, n_test, macro_f1`` (that fold's test part).
    seed, n_splits : int
        The cross-validation seed and number of folds.
    C : float
        Inverse regularisation strength of the logistic regression.
    """

    macro_f1: float
    oof: pd.DataFrame
    folds: pd.DataFrame
    seed: int
    n_splits: int
    C: float

    @property
    def fold_mean(self) -> float:
        """Mean of the per-fold macro-F1 scores (reported, not the EAD)."""
        return float(self.folds["macro_f1"].mean())

    @property
    def fold_sd(self) -> float:
        """Sample SD (ddof=1) of the per-fold macro-F1 scores."""
        return float(self.folds["macro_f1"].std(ddof=1))

    def __getitem__(self, key: str):
        """Dict-style access: ``result["macro_f1"]``, ``result["oof"]`` ..."""
        return getattr(self, key)


def _keyed(texts, y) -> tuple[np.ndarray, np.ndarray]:
    """A cell's outputs and labels as numpy unicode arrays, the form :func:`_oof` and :func:`_seed_scores`
    are called with: joblib hashes such an array as one buffer, whereas a list of 4,000 strings (or an
    object array) is pickled string by string, which made looking up a stored cell cost tens of ms."""
    return np.asarray(texts, dtype=str), np.asarray(y, dtype=str)


@cached("compendium.stats.decoder", "compendium.analyses.emoji", ignore=("dsg",))
def _oof(texts: np.ndarray, y: np.ndarray, seed: int, n_splits: int, C: float, dsg=None):
    """Out-of-fold predictions of the emoji decoder on one cell: ``(predicted, fold)``.

    A build artefact (:mod:`compendium.data.cache`): keyed by the outputs, the
    labels (both as unicode arrays, :func:`_keyed`), the seed, ``n_splits``
    and ``C``; ``dsg`` is ``texts`` counted already
    (:func:`compendium.stats.decoder.design`) and is not part of the key.
    """
    dsg = decoder.design(texts, emoji_analyzer) if dsg is None else dsg
    return decoder.cross_val_predict(dsg, y, seed=seed, n_splits=n_splits, C=C)


@cached("compendium.stats.decoder", "compendium.analyses.emoji", ignore=("dsg",))
def _seed_scores(texts: np.ndarray, y: np.ndarray, seeds: list[int], n_splits: int, C: float, dsg=None):
    """``(seed, macro_f1, fold_mean, fold_sd)`` of the emoji decoder on one cell, for each of ``seeds``.

    A build artefact like :func:`_oof`, but only the scores: the stability
    analysis (:func:`ead_stability`) reads nothing else of these seeds.
    """
    dsg = decoder.design(texts, emoji_analyzer) if dsg is None else dsg
    runs = decoder.cross_val_predict_many(dsg, [(y, seed) for seed in seeds], n_splits=n_splits, C=C)
    return [(seed, *_scores(y, predicted, fold)) for seed, (predicted, fold) in zip(seeds, runs, strict=True)]


@cached("compendium.analyses.ead.inference")
def _bootstrap(labels: np.ndarray, predicted: np.ndarray, n_boot: int, seed: int, ci: float) -> pd.Series:
    """:func:`bootstrap_ci` of one cell's out-of-fold predictions (both as unicode arrays).

    A build artefact like :func:`_oof`: chapters 4 and 9 draw the same 2,000 replicates of every cell,
    and nbval's re-execution a third time.
    """
    return bootstrap_ci(pd.DataFrame({"label": labels, "predicted": predicted}), n_boot=n_boot, seed=seed, ci=ci)


@cached("compendium.analyses.ead.inference")
def _floors(labels: np.ndarray, seed: int) -> pd.Series:
    """:func:`floors` of a language's labels (a unicode array); a build artefact like :func:`_bootstrap`
    (chapters 3, 4, 6 and 9 simulate the same stratified floors)."""
    return floors(labels, seed=seed)


def _scores(y: np.ndarray, predicted: np.ndarray, fold: np.ndarray) -> tuple[float, float, float]:
    """``(macro_f1, fold_mean, fold_sd)`` of :func:`_result`, the same floats, without its tables.

    The labels are coded once (sorted, as :func:`_macro_f1` codes them) and each fold's confusion
    counts come from one ``np.bincount``; a fold's F1 is averaged over the classes that fold has
    among its labels or predictions, in sorted order, which is what :func:`_macro_f1` of that fold
    alone averages (tested).
    """
    classes, codes = np.unique(np.concatenate([y.astype(str), predicted.astype(str)]), return_inverse=True)
    k, n = len(classes), len(y)
    pair = codes[:n] * k + codes[n:]
    folds = np.unique(fold)
    cm = np.bincount(np.searchsorted(folds, fold) * (k * k) + pair, minlength=len(folds) * k * k)
    cm = cm.reshape(len(folds), k, k)

    def f1(counts):
        tp, denom = np.diagonal(counts), counts.sum(axis=0) + counts.sum(axis=1)
        present = denom > 0
        return float((2 * tp[present] / denom[present]).sum() / present.sum())

    per_fold = pd.Series([f1(c) for c in cm])
    return f1(cm.sum(axis=0)), float(per_fold.mean()), float(per_fold.std(ddof=1))


def _logreg(C: float) -> LogisticRegression:
    """Class-balanced L2-regularised multinomial logistic regression (lbfgs), for the embedding probe."""
    # scikit-learn >= 1.8: l1_ratio=0 (the default) is the L2 penalty, and a
    # multi-class target is fitted as one multinomial model by lbfgs.
    return LogisticRegression(C=C, class_weight="balanced", solver="lbfgs", max_iter=MAX_ITER)


def _cross_validate(features, y: np.ndarray, *, seed: int, n_splits: int, C: float):
    """Stratified k-fold out-of-fold predictions of :func:`_logreg` (the embedding probe).

    ``features(train, test)`` returns the design matrices of one fold.
    Returns ``(predicted, fold)`` arrays aligned with ``y``.
    """
    n = len(y)
    predicted = np.empty(n, dtype=object)
    fold = np.full(n, -1, dtype=np.int64)
    cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    # One BLAS thread: these problems are far too small to gain from more,
    # and spinning BLAS threads slow lbfgs down several-fold on a busy machine.
    with one_blas_thread():
        for f, (train, test) in enumerate(cv.split(np.zeros((n, 1)), y)):
            x_train, x_test = features(train, test)
            model = _logreg(C).fit(x_train, y[train])
            predicted[test] = model.predict(x_test)
            fold[test] = f
    return predicted, fold


def _result(items, y, predicted, fold, *, seed, n_splits, C) -> EADResult:
    labels, predicted = y.astype(str), predicted.astype(str)
    oof = pd.DataFrame({"item": items, "label": labels, "predicted": predicted, "fold": fold})
    rows = []
    for f in np.unique(fold):
        part = fold == f
        rows.append((int(f), int(part.sum()), _macro_f1(labels[part], predicted[part])))
    folds = pd.DataFrame(rows, columns=["fold", "n_test", "macro_f1"])
    score = _macro_f1(labels, predicted)
    return EADResult(float(score), oof, folds, int(seed), int(n_splits), float(C))


def ead(
    outputs: pd.Series | Sequence[str | None],
    labels: pd.Series | Sequence[str],
    *,
    seed: int,
    n_splits: int = 5,
    C: float = 4.0,
    items: Sequence | None = None,
) -> EADResult:
    """Emoji-affect decodability of one set of outputs (paper section 6, *Definition*).

    Sublinear TF-IDF over emoji graphemes (fitted inside each fold on the
    training part only), a class-balanced L2-regularised multinomial logistic
    regression (:mod:`compendium.stats.decoder`, fitted to its optimum), stratified
    k-fold cross-validation with shuffling, and the macro-F1 of the pooled
    out-of-fold predictions.

    Parameters
    ----------
    outputs : Series or sequence of str or None
        Raw model responses, one per item. A Series's index gives the item
        ids; missing responses have no emoji.
    labels : Series or sequence of str
        The item's single emotion label, aligned with ``outputs`` by position.
    seed : int
        ``random_state`` of ``StratifiedKFold(shuffle=True)``.
    n_splits : int, default 5
        Number of folds; every class needs at least this many items.
    C : float, default 4.0
        Inverse L2 strength (appendix B: ``C = 4`` on TF-IDF emoji features).
    items : sequence, optional
        Item ids (default: the Series index, else ``0..n-1``).

    Returns
    -------
    EADResult
        ``macro_f1`` (pooled OOF), ``oof`` (``item, label, predicted, fold``)
        and ``folds`` (per-fold macro-F1).

    Notes
    -----
    The count matrix is built once (identical rows merged) and TF-IDF is
    applied per fold with the idf of the training rows, after dropping the
    emojis the training rows do not contain; this equals fitting
    ``TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True)`` per fold
    (:mod:`compendium.stats.decoder`).
    Features are emoji graphemes (:func:`compendium.analyses.emoji.graphemes`), so a
    ZWJ or skin-tone sequence is one feature. Pooled rather than fold-mean
    F1: see the module docstring ([Forman10]_).

    References
    ----------
    Paper section 6 and appendix B; [Salton88]_, [Kohavi95]_, [Forman10]_.

    Examples
    --------
    >>> out = ["😂🎉", "😢", "😡"] * 10
    >>> lab = ["joy", "sadness", "anger"] * 10
    >>> ead(out, lab, seed=0).macro_f1
    1.0
    """
    texts, y, items = _items_labels(outputs, labels, items)
    predicted, fold = _oof(*_keyed(_texts(texts), y), int(seed), int(n_splits), float(C))
    return _result(items, y, predicted, fold, seed=seed, n_splits=n_splits, C=C)


# --------------------------------------------------------------------------- cells


def cell_data(sentences: pd.DataFrame, generations: pd.DataFrame, *, language: str, system: str) -> pd.DataFrame:
    """The items of one EAD cell: a language's shared-single items and one system's outputs.

    Parameters
    ----------
    sentences : DataFrame
        Columns ``sentence_id, language, labels, shared_single``.
    generations : DataFrame
        Columns ``sentence_id, system, output``.
    language, system : str
        The cell.

    Returns
    -------
    DataFrame
        Indexed by ``sentence_id`` (sorted), columns ``output`` and ``label``
        (the single shared emotion). Items without a generation from
        ``system`` are left out.
    """
    items = _shared_items(sentences, language)
    gen = generations[(generations["system"] == system).to_numpy(dtype=bool)]
    out = gen.set_index(gen["sentence_id"].astype(str))["output"]
    common = items.index.intersection(out.index, sort=False)
    frame = pd.DataFrame({"output": out.reindex(common).to_numpy(dtype=object), "label": items.loc[common].to_numpy()},
                         index=pd.Index(common, name="sentence_id"))
    return frame.sort_index()


def _shared_items(sentences: pd.DataFrame, language: str, *, geometry: bool = False) -> pd.Series:
    """Series sentence_id -> label of a language's shared_single items (sorted)."""
    mask = (sentences["language"] == language).to_numpy(dtype=bool) & sentences["shared_single"].to_numpy(dtype=bool)
    if geometry:
        mask &= sentences["geometry_sample"].to_numpy(dtype=bool)
    part = sentences[mask]
    labels = part["labels"].astype(str)
    if labels.str.contains(schema.LABEL_SEPARATOR, regex=False).any():
        raise ValueError("a shared_single item carries more than one label")
    return pd.Series(labels.to_numpy(), index=pd.Index(part["sentence_id"].astype(str), name="sentence_id"),
                     name="label").sort_index()


def _cell_job(language, system, items, texts, y, *, seeds, n_splits, C, n_boot, ci, n_permutations, keep_oof,
              floor=None):
    """Work of one cell (runs in a joblib worker): EAD per seed, floors (unless given), CI, null."""
    texts = _texts(texts)
    # The first seed's predictions are read by other chapters (ead_table uses them) and stored whole;
    # of the other seeds only the scores are stored: their predictions have no reader, and storing
    # them would cost about half of what computing them does.
    keyed = _keyed(texts, y)
    first_key = (*keyed, int(seeds[0]), int(n_splits), float(C))
    others_key = (*keyed, [int(s) for s in seeds[1:]], int(n_splits), float(C))
    # The cell's outputs are segmented and counted once for every fit that is computed here; when every fit
    # is read from the build's store and no null is drawn, not at all.
    read_only = not n_permutations and stored(_oof, *first_key) and stored(_seed_scores, *others_key)
    dsg = None if read_only else decoder.design(texts, emoji_analyzer)
    predicted, fold = _oof(*first_key, dsg=dsg)
    first = _result(items, y, predicted, fold, seed=seeds[0], n_splits=n_splits, C=C)
    rows = [(seeds[0], first.macro_f1, first.fold_mean, first.fold_sd)]
    rows += _seed_scores(*others_key, dsg=dsg)
    out = {"language": language, "system": system, "per_seed": rows}
    if keep_oof:
        seed = seeds[0]
        fl = _floors(np.asarray(y, dtype=str), seed) if floor is None else floor
        row = {
            "language": language,
            "system": system,
            "n_items": len(y),
            "n_classes": len(np.unique(y)),
            "macro_f1": first.macro_f1,
            "fold_mean": first.fold_mean,
            "fold_sd": first.fold_sd,
            "majority_floor": fl["majority"],
            "stratified_floor": fl["stratified"],
        }
        if n_boot:
            b = _bootstrap(first.oof["label"].to_numpy(dtype=str), first.oof["predicted"].to_numpy(dtype=str),
                           n_boot, seed, ci)
            row.update(ci_lo=b["lo"], ci_hi=b["hi"], ci_width=b["width"])
        if n_permutations:
            null = _permutation_null_counts(dsg, y, seed=seed, n_permutations=n_permutations,
                                            n_splits=n_splits, C=C, observed=first.macro_f1)
            row.update(null_mean=null["null_mean"], null_p95=null["null_p95"], null_p=null["p_value"])
        out["row"] = row
        out["oof"] = first.oof.assign(language=language, system=system)
    return out


def _run_cells(tasks, n_jobs: int, *, floor=None, **options) -> list[dict]:
    """:func:`_cell_job` of every task over ``n_jobs`` joblib workers, results in the order of ``tasks``.

    The cells are handed out largest first (most items), so that two workers finish close together
    rather than one working alone on a large cell at the end; ``floor(y)`` gives a cell's floors.
    """
    order = sorted(range(len(tasks)), key=lambda i: -len(tasks[i][4]))
    if n_jobs != 1 and all(_stored(task, options) for task in tasks):
        n_jobs = 1  # every fit is in the build's cache: reading them here beats starting workers
    done = Parallel(n_jobs=n_jobs, **workers.options())(
        delayed(_cell_job)(*tasks[i], floor=None if floor is None else floor(tasks[i][4]), **options) for i in order
    )
    results: list = [None] * len(tasks)
    for i, result in zip(order, done, strict=True):
        results[i] = result
    return results


def _stored(task, options) -> bool:
    """Whether one :func:`_cell_job` task has nothing heavy to compute: its fits are all in the cache
    (:func:`compendium.data.cache.stored`) and it draws no permutation null (which is not stored)."""
    if location() is None:
        return False  # caching is off: nothing is stored, and the keys need not be computed
    _, _, _, texts, y = task
    keyed = _keyed(_texts(texts), y)
    seeds = [int(s) for s in options["seeds"]]
    n_splits, C = int(options["n_splits"]), float(options["C"])
    return (not options.get("n_permutations") and stored(_oof, *keyed, seeds[0], n_splits, C)
            and stored(_seed_scores, *keyed, seeds[1:], n_splits, C))


def _cell_tasks(sentences, generations, languages, systems):
    for language in languages:
        for system in systems:
            cell = cell_data(sentences, generations, language=language, system=system)
            yield (
                language,
                system,
                cell.index.to_numpy(),
                cell["output"].to_numpy(),
                cell["label"].to_numpy(dtype=object),
            )


def ead_table(
    sentences: pd.DataFrame,
    generations: pd.DataFrame,
    *,
    seed: int,
    languages: Sequence[str] = schema.LANGUAGES,
    systems: Sequence[str] = schema.SYSTEMS,
    C: float = 4.0,
    n_splits: int = 5,
    n_boot: int = 0,
    ci: float = 0.95,
    n_permutations: int = 0,
    n_jobs: int = 2,
    return_oof: bool = False,
):
    """EAD of every system x language cell with its floors (paper section 6, *Results*).

    Parameters
    ----------
    sentences, generations : DataFrame
        The benchmark tables (see :func:`cell_data`).
    seed : int
        Cross-validation seed of every cell (all systems of a language share
        folds), and seed of the bootstrap, the simulated stratified floor and
        the permutations.
    languages, systems : sequence of str
        The cells (default: all 3 x 8 of :mod:`compendium.data.schema`).
    C, n_splits : float, int
        As in :func:`ead`.
    n_boot : int, default 0
        If > 0, add a percentile CI from that many item-bootstrap replicates
        (:func:`bootstrap_ci`; the paper uses 2,000).
    ci : float, default 0.95
        Level of the bootstrap interval.
    n_permutations : int, default 0
        If > 0, add the label-permutation null (:func:`permutation_null`).
    n_jobs : int, default 2
        joblib workers over cells. Results do not depend on it.
    return_oof : bool, default False
        Also return the out-of-fold predictions of every cell.

    Returns
    -------
    DataFrame, or (DataFrame, DataFrame) with ``return_oof``
        One row per cell: ``language, system, n_items, n_classes, macro_f1``
        (EAD), ``fold_mean, fold_sd`` (per-fold macro-F1), ``majority_floor,
        stratified_floor`` (:func:`floors`), and with ``n_boot``
        ``ci_lo, ci_hi, ci_width``, with ``n_permutations`` ``null_mean,
        null_p95, null_p``. The OOF table has ``language, system, item,
        label, predicted, fold``.

    References
    ----------
    Paper section 6 (*Results*, *Properties*) and appendix B.
    """
    tasks = list(_cell_tasks(sentences, generations, languages, systems))
    # The floors depend on the labels and the seed only, and the systems of a language share their labels.
    floor_of: dict[bytes, pd.Series] = {}
    for *_, y in tasks:
        key = "\0".join(map(str, y)).encode()
        if key not in floor_of:
            floor_of[key] = _floors(np.asarray(y, dtype=str), seed)
    results = _run_cells(tasks, n_jobs, seeds=[seed], n_splits=n_splits, C=C, n_boot=n_boot, ci=ci,
                         n_permutations=n_permutations, keep_oof=True,
                         floor=lambda y: floor_of["\0".join(map(str, y)).encode()])
    table = pd.DataFrame([r["row"] for r in results])
    if not return_oof:
        return table
    oof = pd.concat([r["oof"] for r in results], ignore_index=True)
    oof = oof[["language", "system", "item", "label", "predicted", "fold"]]
    return table, oof


def ead_stability(
    sentences: pd.DataFrame,
    generations: pd.DataFrame,
    *,
    seeds: Sequence[int] = tuple(range(10)),
    languages: Sequence[str] = schema.LANGUAGES,
    systems: Sequence[str] = schema.SYSTEMS,
    C: float = 4.0,
    n_splits: int = 5,
    n_jobs: int = 2,
) -> pd.DataFrame:
    """EAD of every cell over several cross-validation seeds (paper section 6, *Properties*).

    The emoji count matrix of a cell is built once and reused for every seed.

    Returns
    -------
    DataFrame
        One row per cell: ``language, system, n_seeds, mean, sd`` (sample SD,
        ddof=1), ``min, max``. The paper's "largest per-system standard
        deviation" (0.0033) is ``table["sd"].max()`` (over the cells of one
        language, or of all; the paper does not say which).

    References
    ----------
    Paper section 6, *Properties*.
    """
    seeds = [int(s) for s in seeds]
    tasks = list(_cell_tasks(sentences, generations, languages, systems))
    results = _run_cells(tasks, n_jobs, seeds=seeds, n_splits=n_splits, C=C, n_boot=0, ci=0.95, n_permutations=0,
                         keep_oof=False)
    rows = []
    for r in results:
        scores = np.array([s[1] for s in r["per_seed"]])
        rows.append({
            "language": r["language"],
            "system": r["system"],
            "n_seeds": len(scores),
            "mean": scores.mean(),
            "sd": scores.std(ddof=1) if len(scores) > 1 else float("nan"),
            "min": scores.min(),
            "max": scores.max(),
        })
    return pd.DataFrame(rows)
