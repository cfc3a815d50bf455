"""Emoji-affect decodability (EAD) and its baselines (paper section 6, appendix B).

EAD asks how much of a corpus's affective distinction survives compression
into a generator's emoji channel. For a generator ``g`` and a language ``L``,
``EAD(g, L)`` is the 5-fold stratified cross-validated macro-F1 of an
L2-regularised multinomial logistic regression (``C = 4``, class-balanced
weights) over sublinear TF-IDF features of the emoji graphemes ``g``
emits, predicting the single shared emotion of each item (section 6,
*Definition*; appendix B). Items are the ``shared_single`` sentences of ``L``:
single-label items over the five emotions of
:data:`compendium.schema.SHARED_EMOTIONS`.

Every function takes and returns tidy pandas objects; scikit-learn does the
learning. The numbers of section 6 map onto the functions as follows:

=====================================  =====================================
EAD per system and language            :func:`ead`, :func:`ead_table`
stability over ten seeds (0.0033)      :func:`ead_stability`
2,000-replicate bootstrap CI (~0.032)  :func:`bootstrap_ci`, :func:`ead_table`
three tiers in Bangla                  :func:`tiers`; paired: :func:`paired_comparisons`,
                                       :func:`paired_tiers`
majority-class floor (0.087) etc.      :func:`floors`, :func:`permutation_null`
paired comparison of two systems       :func:`mcnemar`
union of all systems (0.686)           :func:`union_ead`
cross-lingual transfer (cost 0.252)    :func:`transfer_matrix`,
                                       :func:`vocabulary_coverage`
emoji vs sentence embeddings           :func:`embedding_probe`,
                                       :func:`emoji_vs_embedding`,
                                       :func:`learning_curve`
EAD vs MOS (rho = -0.19)               :func:`ead_mos_correlation`
=====================================  =====================================

Decisions
---------
*Pooled out-of-fold macro-F1.* Each item is predicted once, by the model
that did not see it; EAD is the macro-F1 of all ``n`` out-of-fold
predictions together, not the mean of the five per-fold F1 scores (those are
reported too, as ``fold_mean``/``fold_sd``). F1 is a ratio, so the mean of
per-fold ratios is not the ratio of the pooled counts; with ~840 test items
per fold and class-balanced weights the two differ little here, but the
per-fold mean is the biased one for small classes (Forman and Scholz 2010
recommend pooling counts across folds). Pooling also makes the point
estimate, the item bootstrap (:func:`bootstrap_ci`, which resamples exactly
these predictions) and the paired test (:func:`mcnemar`) refer to the same
set of predictions.

*TF-IDF inside the fold, counted once; one decoder.* The decoder is
:mod:`compendium.decoder`, shared with the leakage chapter: the emoji
counts of a cell are built once (identical rows merged), each fold's
sublinear TF-IDF uses the idf of its training rows only and drops the emojis
they do not contain -- exactly what fitting
``TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True)`` on the
training outputs of the fold gives (same vocabulary, idf and L2 row norm),
only faster -- and the logistic regression is fitted to its optimum by
Newton-CG (``tests/test_decoder.py`` checks both against scikit-learn).
Dropping unseen emojis matters: they would otherwise change the row norm of
test items. The out-of-fold predictions of a cell are a build artefact
(:mod:`compendium.cache`): the chapters that need the same cell read them.

*Seeds.* A single integer ``seed`` is the ``random_state`` of
``StratifiedKFold`` in every cell. Items are sorted by ``sentence_id`` and
every system of a language has the same items and labels, so all systems of
a language are evaluated on the *same* folds (paired), and the result does
not depend on row order or on whether cells run in parallel. The bootstrap,
the stratified-random simulation and the permutation null draw from
``numpy.random.default_rng(seed)``, so the CIs of the systems of a language
are computed on the same resampled items as well.

*Transfer is per system.* :func:`transfer_matrix` trains on one system's
outputs in the source language and tests on the *same* system's outputs in
the target language. Pooling all systems would mix between-system
differences into the decoder, and its within-language reference would have
to cross-validate rows of the same sentence from eight generators, which
puts one sentence on both sides of a split (the multi-view leakage of
section 9). Coverage is measured over emoji *tokens* (the paper's > 99.7 %;
types are reported beside it).

References
----------
.. [Salton88] G. Salton and C. Buckley, "Term-weighting approaches in
   automatic text retrieval", Information Processing & Management 24(5),
   1988 (TF-IDF; scikit-learn's ``TfidfTransformer`` with ``sublinear_tf``).
.. [Kohavi95] R. Kohavi, "A study of cross-validation and bootstrap for
   accuracy estimation and model selection", IJCAI 1995 (stratified k-fold).
.. [Forman10] G. Forman and M. Scholz, "Apples-to-apples in cross-validation
   studies: pitfalls in classifier performance measurement", SIGKDD
   Explorations 12(1), 2010 (pooled vs averaged F1).
.. [Efron93] B. Efron and R. J. Tibshirani, *An Introduction to the
   Bootstrap*, Chapman & Hall, 1993 (percentile intervals).
.. [Ojala10] M. Ojala and G. C. Garriga, "Permutation tests for studying
   classifier performance", JMLR 11, 2010.
.. [McNemar47] Q. McNemar, "Note on the sampling error of the difference
   between correlated proportions or percentages", Psychometrika 12(2), 1947;
   T. G. Dietterich, "Approximate statistical tests for comparing supervised
   classification learning algorithms", Neural Computation 10(7), 1998.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse, stats
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import normalize
from sklearn.utils.parallel import Parallel, delayed
from statsmodels.stats.contingency_tables import mcnemar as _sm_mcnemar
from threadpoolctl import threadpool_limits

from . import decoder, schema
from .cache import cached
from .emoji import graphemes

__all__ = [
    "EADResult",
    "cell_data",
    "ead",
    "ead_table",
    "ead_stability",
    "bootstrap_indices",
    "bootstrap_macro_f1",
    "bootstrap_ci",
    "tiers",
    "paired_comparisons",
    "paired_tiers",
    "floors",
    "permutation_null",
    "mcnemar",
    "union_outputs",
    "union_ead",
    "vocabulary_coverage",
    "transfer_matrix",
    "transfer_summary",
    "embedding_probe",
    "emoji_vs_embedding",
    "best_channels",
    "learning_curve",
    "ead_mos_correlation",
]

#: lbfgs iteration cap of the embedding probe (the default 100 can stop short on dense embeddings).
#: The emoji decoder's solver settings are :mod:`compendium.decoder`'s.
MAX_ITER = 2000

#: Replicates drawn per block in the bootstrap (bounds memory at n x BLOCK).
_BOOT_BLOCK = 250


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


@cached("compendium.decoder", "compendium.emoji", ignore=("dsg",))
def _oof(texts: list[str], y: np.ndarray, seed: int, n_splits: int, C: float, dsg=None):
    """Out-of-fold predictions of the emoji decoder on one cell: ``(predicted, fold)``.

    A build artefact (:mod:`compendium.cache`): keyed by the outputs, the
    labels, the seed, ``n_splits`` and ``C``; ``dsg`` is ``texts`` counted
    already (:func:`compendium.decoder.design`) and is not part of the key.
    """
    dsg = decoder.design(texts) if dsg is None else dsg
    return decoder.cross_val_predict(dsg, y, seed=seed, n_splits=n_splits, C=C)


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
    with threadpool_limits(limits=1, user_api="blas"):
        for f, (train, test) in enumerate(cv.split(np.zeros((n, 1)), y)):
            x_train, x_test = features(train, test)
            model = _logreg(C).fit(x_train, y[train])
            predicted[test] = model.predict(x_test)
            fold[test] = f
    return predicted, fold


def _macro_f1(y_true, y_pred) -> float:
    """``f1_score(y_true, y_pred, average="macro")`` from confusion counts (no validation overhead)."""
    t, p, k = _encode(y_true, y_pred)
    return float(_macro_f1_rows((t * k + p)[None, :], k)[0])


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
    regression (:mod:`compendium.decoder`, fitted to its optimum), stratified
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
    (:mod:`compendium.decoder`).
    Features are emoji graphemes (:func:`compendium.emoji.graphemes`), so a
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
    predicted, fold = _oof(_texts(texts), y, int(seed), int(n_splits), float(C))
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
    dsg = decoder.design(texts)
    rows, first = [], None
    for s in seeds:
        predicted, fold = _oof(texts, y, int(s), int(n_splits), float(C), dsg=dsg)
        res = _result(items, y, predicted, fold, seed=s, n_splits=n_splits, C=C)
        rows.append((s, res.macro_f1, res.fold_mean, res.fold_sd))
        if first is None:
            first = res
    out = {"language": language, "system": system, "per_seed": rows}
    if keep_oof:
        seed = seeds[0]
        fl = floors(y, seed=seed) if floor is None else floor
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
            b = bootstrap_ci(first.oof, n_boot=n_boot, seed=seed, ci=ci)
            row.update(ci_lo=b["lo"], ci_hi=b["hi"], ci_width=b["width"])
        if n_permutations:
            null = _permutation_null_counts(dsg, y, seed=seed, n_permutations=n_permutations,
                                            n_splits=n_splits, C=C, observed=first.macro_f1)
            row.update(null_mean=null["null_mean"], null_p95=null["null_p95"], null_p=null["p_value"])
        out["row"] = row
        out["oof"] = first.oof.assign(language=language, system=system)
    return out


def _cell_tasks(sentences, generations, languages, systems):
    for language in languages:
        for system in systems:
            cell = cell_data(sentences, generations, language=language, system=system)
            yield language, system, cell.index.to_numpy(), cell["output"].to_numpy(), cell["label"].to_numpy(dtype=object)


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
        The cells (default: all 3 x 8 of :mod:`compendium.schema`).
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
            floor_of[key] = floors(y, seed=seed)
    results = Parallel(n_jobs=n_jobs)(
        delayed(_cell_job)(lang, sysname, items, texts, y, seeds=[seed], n_splits=n_splits, C=C, n_boot=n_boot,
                           ci=ci, n_permutations=n_permutations, keep_oof=True,
                           floor=floor_of["\0".join(map(str, y)).encode()])
        for lang, sysname, items, texts, y in tasks
    )
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
    results = Parallel(n_jobs=n_jobs)(
        delayed(_cell_job)(lang, sysname, items, texts, y, seeds=seeds, n_splits=n_splits, C=C, n_boot=0,
                           ci=0.95, n_permutations=0, keep_oof=False)
        for lang, sysname, items, texts, y in tasks
    )
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


# --------------------------------------------------------------------------- bootstrap


def _encode(y_true, y_pred) -> tuple[np.ndarray, np.ndarray, int]:
    classes, codes = np.unique(np.concatenate([np.asarray(y_true, dtype=str), np.asarray(y_pred, dtype=str)]),
                               return_inverse=True)
    n = len(y_true)
    return codes[:n], codes[n:], len(classes)


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
    :func:`compendium.multiplicity.adjust`.

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
        A method of :func:`compendium.multiplicity.adjust`.

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
    from .multiplicity import adjust, describe

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
    null = np.empty(n_permutations)
    for i in range(n_permutations):
        y_perm = y[rng.permutation(len(y))]
        predicted, _ = decoder.cross_val_predict(dsg, y_perm, seed=seed, n_splits=n_splits, C=C)
        null[i] = _macro_f1(y_perm, predicted)
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
    return _permutation_null_counts(decoder.design(_texts(texts)), y, seed=seed, n_permutations=n_permutations, n_splits=n_splits, C=C,
                                    observed=observed)


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


# --------------------------------------------------------------------------- union


def union_outputs(sentences: pd.DataFrame, generations: pd.DataFrame, *, language: str,
                  systems: Sequence[str] = schema.SYSTEMS) -> pd.DataFrame:
    """Per item, the concatenation of all ``systems``' outputs (space-separated, schema order).

    Returns
    -------
    DataFrame
        Like :func:`cell_data`: indexed by ``sentence_id``, columns
        ``output`` and ``label``; only items with an output from every system.
    """
    cells = [cell_data(sentences, generations, language=language, system=s) for s in systems]
    common = cells[0].index
    for c in cells[1:]:
        common = common.intersection(c.index)
    common = common.sort_values()
    columns = [_texts(c.loc[common, "output"]) for c in cells]
    outputs = [" ".join(parts) for parts in zip(*columns, strict=True)]
    return pd.DataFrame({"output": outputs, "label": cells[0].loc[common, "label"].to_numpy()},
                        index=pd.Index(common, name="sentence_id"))


def union_ead(sentences: pd.DataFrame, generations: pd.DataFrame, *, language: str, seed: int,
              systems: Sequence[str] = schema.SYSTEMS, n_splits: int = 5, C: float = 4.0) -> EADResult:
    """EAD of the union of all systems' emojis per item (paper section 6: Bangla 0.686).

    The outputs of the systems are concatenated per item, so an item's
    features are the TF-IDF of the multiset union of the emojis of all
    systems; the protocol is :func:`ead`'s.
    """
    u = union_outputs(sentences, generations, language=language, systems=systems)
    return ead(u["output"], u["label"], seed=seed, n_splits=n_splits, C=C)


# --------------------------------------------------------------------------- transfer


def vocabulary_coverage(train_outputs, test_outputs) -> pd.Series:
    """Share of the test emojis that occur in the training vocabulary.

    Parameters
    ----------
    train_outputs, test_outputs : iterable of str or None
        Raw responses; emojis are :func:`compendium.emoji.graphemes`.

    Returns
    -------
    Series
        ``token_coverage``: share of test emoji *tokens* (occurrences) whose
        type occurs in the training outputs -- the share of the test signal
        the decoder has a weight for; this is the paper's "vocabulary
        coverage". ``type_coverage``: the same over distinct test emojis
        (lower: rare emojis weigh as much as frequent ones).
        ``n_test_tokens, n_test_types, n_train_types``.

    Examples
    --------
    >>> float(vocabulary_coverage(["😂😂", "😢"], ["😂 😡", "😢😂"])["token_coverage"])
    0.75
    """
    vocab = {g for o in _texts(train_outputs) for g in graphemes(o)}
    tokens = [g for o in _texts(test_outputs) for g in graphemes(o)]
    types = set(tokens)
    covered = sum(t in vocab for t in tokens)
    return pd.Series({
        "token_coverage": covered / len(tokens) if tokens else float("nan"),
        "type_coverage": len(types & vocab) / len(types) if types else float("nan"),
        "n_test_tokens": len(tokens),
        "n_test_types": len(types),
        "n_train_types": len(vocab),
    })


def _transfer_job(system, cells, languages, seed, n_splits, C):
    """All directions of one system (joblib worker)."""
    texts = {lang: _texts(cells[lang]["output"]) for lang in languages}
    labels = {lang: cells[lang]["label"].to_numpy(dtype=object) for lang in languages}
    within = {}
    for lang in languages:
        pred, _ = _oof(texts[lang], labels[lang], int(seed), int(n_splits), float(C))
        within[lang] = _macro_f1(labels[lang], pred)
    rows = []
    for src in languages:
        for tgt in languages:
            if src == tgt:
                continue
            both = decoder.design(texts[src] + texts[tgt])
            n_src = len(texts[src])
            train, test = np.arange(n_src), np.arange(n_src, both.n_rows)
            predicted = decoder.train_test_predict(both, np.concatenate([labels[src], labels[tgt]]), train, test, C=C)
            score = _macro_f1(labels[tgt], predicted)
            cov = vocabulary_coverage(texts[src], texts[tgt])
            rows.append({
                "system": system, "source": src, "target": tgt, "n_train": n_src, "n_test": len(test),
                "transfer_f1": score, "within_f1": within[tgt], "cost": within[tgt] - score,
                "token_coverage": cov["token_coverage"], "type_coverage": cov["type_coverage"],
            })
    return rows


def transfer_matrix(
    sentences: pd.DataFrame,
    generations: pd.DataFrame,
    *,
    seed: int,
    languages: Sequence[str] = schema.LANGUAGES,
    systems: Sequence[str] = schema.SYSTEMS,
    C: float = 4.0,
    n_splits: int = 5,
    n_jobs: int = 2,
) -> pd.DataFrame:
    """Cross-lingual transfer of the emoji decoder (paper section 6, *language-specific*).

    For each system and each ordered pair of languages (source != target),
    the TF-IDF + logistic-regression decoder is fitted on all of the
    system's source-language items and evaluated on all of its
    target-language items (the five shared emotions make the label sets
    the same). The cost is the within-language EAD of the target (the
    cross-validated :func:`ead` with the same seed) minus the transfer
    macro-F1. Per system, not pooled over systems: see the module docstring.

    Returns
    -------
    DataFrame
        One row per system x direction: ``system, source, target, n_train,
        n_test, transfer_f1, within_f1, cost, token_coverage,
        type_coverage`` (:func:`vocabulary_coverage` of the target outputs
        by the source vocabulary). The paper's numbers are ``cost.mean()``
        (0.252) and ``token_coverage.min()`` (> 0.997).
    """
    jobs = []
    for system in systems:
        cells = {lang: cell_data(sentences, generations, language=lang, system=system) for lang in languages}
        jobs.append(delayed(_transfer_job)(system, cells, list(languages), seed, n_splits, C))
    rows = [row for part in Parallel(n_jobs=n_jobs)(jobs) for row in part]
    return pd.DataFrame(rows)


def transfer_summary(matrix: pd.DataFrame) -> pd.DataFrame:
    """Per direction, the mean over systems of :func:`transfer_matrix` and the lowest coverage.

    Returns
    -------
    DataFrame
        One row per ``source, target``: ``transfer_f1, within_f1, cost``
        (means over systems), ``min_token_coverage``, ``n_systems``.
    """
    return matrix.groupby(["source", "target"], sort=False).agg(
        transfer_f1=("transfer_f1", "mean"),
        within_f1=("within_f1", "mean"),
        cost=("cost", "mean"),
        min_token_coverage=("token_coverage", "min"),
        n_systems=("system", "nunique"),
    ).reset_index()


# --------------------------------------------------------------------------- embeddings


def embedding_probe(
    X: pd.DataFrame | np.ndarray,
    labels,
    *,
    seed: int,
    C: float = 1.0,
    n_splits: int = 5,
    items: Sequence | None = None,
) -> EADResult:
    """The EAD protocol on sentence embeddings (paper section 6, *Matched comparison*).

    Rows are L2-normalised (a per-row operation, so doing it before the
    split leaks nothing); then the class-balanced multinomial logistic
    regression with ``C = 1`` (appendix B) under the same stratified k-fold
    CV, scored by pooled out-of-fold macro-F1. No TF-IDF.

    Parameters
    ----------
    X : DataFrame or ndarray, shape (n, dim)
        Embeddings; a DataFrame's index gives the item ids.
    labels : array-like of str
        Aligned with the rows of ``X``.
    seed, C, n_splits, items
        As in :func:`ead` (``C`` defaults to 1).

    Returns
    -------
    EADResult
    """
    if items is None and isinstance(X, pd.DataFrame):
        items = X.index.to_numpy()
    matrix = normalize(np.asarray(X, dtype=np.float64), norm="l2")
    y = np.asarray(labels.to_numpy() if isinstance(labels, pd.Series) else list(labels), dtype=object)
    items = np.arange(len(y)) if items is None else np.asarray(items)
    if not matrix.shape[0] == len(y) == len(items):
        raise ValueError("X, labels and items differ in length")
    predicted, fold = _cross_validate(lambda tr, te: (matrix[tr], matrix[te]), y, seed=seed, n_splits=n_splits, C=C)
    return _result(items, y, predicted, fold, seed=seed, n_splits=n_splits, C=C)


def _matched_items(sentences, embeddings, language, encoders) -> pd.Series:
    """Geometry-sample shared_single items of a language that every encoder embeds."""
    labels = _shared_items(sentences, language, geometry=True)
    index = labels.index
    for enc in encoders:
        index = index.intersection(embeddings[enc].index.astype(str))
    return labels.loc[index.sort_values()]


def _matched_job(language, channel, name, items, data, y, seed, n_splits, C):
    if channel == "emoji":
        res = ead(list(data), y, seed=seed, n_splits=n_splits, C=C, items=items)
    else:
        res = embedding_probe(data, y, seed=seed, C=C, n_splits=n_splits, items=items)
    return {"language": language, "channel": channel, "name": name, "n_items": len(y), "macro_f1": res.macro_f1}


def emoji_vs_embedding(
    sentences: pd.DataFrame,
    generations: pd.DataFrame,
    embeddings: Mapping[str, pd.DataFrame],
    *,
    seed: int,
    languages: Sequence[str] = schema.LANGUAGES,
    systems: Sequence[str] = schema.SYSTEMS,
    encoders: Sequence[str] = tuple(schema.ENCODERS),
    C_emoji: float = 4.0,
    C_embedding: float = 1.0,
    n_splits: int = 5,
    n_jobs: int = 2,
) -> pd.DataFrame:
    """Emoji channels and sentence encoders on identical items (paper section 6).

    The items of a language are its geometry-sample sentences that are
    ``shared_single`` (the geometry sample is stratified over each corpus's
    own labels, so this subset is smaller than the 400/401 sampled; its
    size is reported as ``n_items``). Every system is scored with
    :func:`ead` and every encoder with :func:`embedding_probe` on exactly
    these items, with the same seed and hence the same folds.

    Returns
    -------
    DataFrame
        One row per language x channel x name: ``language, channel``
        (``"emoji"`` or ``"embedding"``), ``name`` (system or encoder),
        ``n_items, macro_f1``. :func:`best_channels` takes the best of each.
    """
    jobs = []
    for lang in languages:
        labels = _matched_items(sentences, embeddings, lang, encoders)
        ids = labels.index.to_numpy()
        y = labels.to_numpy(dtype=object)
        for system in systems:
            cell = cell_data(sentences, generations, language=lang, system=system)
            jobs.append(delayed(_matched_job)(lang, "emoji", system, ids, cell.loc[ids, "output"].to_numpy(), y,
                                              seed, n_splits, C_emoji))
        for enc in encoders:
            emb = embeddings[enc]
            emb = emb.set_axis(emb.index.astype(str), axis=0)
            jobs.append(delayed(_matched_job)(lang, "embedding", enc, ids, emb.loc[ids].to_numpy(), y,
                                              seed, n_splits, C_embedding))
    return pd.DataFrame(Parallel(n_jobs=n_jobs)(jobs))


def best_channels(table: pd.DataFrame) -> pd.DataFrame:
    """Best emoji channel and best encoder per language of :func:`emoji_vs_embedding`.

    Returns
    -------
    DataFrame
        Indexed by ``language``: ``n_items, emoji_best, emoji_system,
        embedding_best, embedding_encoder``.
    """
    rows = []
    for lang, part in table.groupby("language", sort=False):
        emo = part[part["channel"] == "emoji"].sort_values("macro_f1", ascending=False, kind="stable").iloc[0]
        emb = part[part["channel"] == "embedding"].sort_values("macro_f1", ascending=False, kind="stable").iloc[0]
        rows.append({"language": lang, "n_items": int(part["n_items"].iloc[0]),
                     "emoji_best": emo["macro_f1"], "emoji_system": emo["name"],
                     "embedding_best": emb["macro_f1"], "embedding_encoder": emb["name"]})
    return pd.DataFrame(rows).set_index("language")


def _subsample(y: np.ndarray, size: int, seed: int) -> np.ndarray:
    """Sorted positions of a stratified random subsample of ``size`` items.

    Each class gets ``size * share`` items rounded by largest remainder (ties
    to the earlier class in sorted order), drawn without replacement with
    ``numpy.random.default_rng(seed)``. Unlike ``train_test_split`` this
    works when ``size`` is within a few items of ``len(y)``.
    """
    n = len(y)
    if size >= n:
        return np.arange(n)
    classes, codes = np.unique(np.asarray(y, dtype=str), return_inverse=True)
    counts = np.bincount(codes, minlength=len(classes))
    quota = counts * size / n
    take = np.floor(quota).astype(int)
    extra = size - take.sum()
    order = np.argsort(-(quota - take), kind="stable")
    take[order[:extra]] += 1
    rng = np.random.default_rng(seed)
    parts = [rng.choice(np.flatnonzero(codes == c), take[c], replace=False) for c in range(len(classes))]
    return np.sort(np.concatenate(parts))


def learning_curve(
    sentences: pd.DataFrame,
    generations: pd.DataFrame,
    embeddings: Mapping[str, pd.DataFrame],
    *,
    language: str,
    system: str,
    encoder: str,
    seed: int,
    sizes: Sequence[int] = (100, 200, 400),
    n_repeats: int = 5,
    C_emoji: float = 4.0,
    C_embedding: float = 1.0,
    n_splits: int = 5,
) -> pd.DataFrame:
    """Macro-F1 against training-set size, emoji channel vs embedding (paper section 6).

    For each size ``n`` and repeat, a stratified random subsample of ``n``
    items is drawn (seeded by ``(seed, n, repeat)``) and the probe is
    cross-validated *inside* it (so ``n`` counts train + test items). The
    emoji channel subsamples all shared_single items of the language; the
    embedding can only subsample its geometry-sample shared_single items,
    the only embedded ones. Each channel also gets its full pool as one
    deterministic point (``repeat = 0``): for the emoji channel that is the
    full EAD (paper: 0.657 at n = 4,206 in Bangla), for the embedding the
    matched set of :func:`emoji_vs_embedding`. Sizes at or above a
    channel's pool are not subsampled.

    Returns
    -------
    DataFrame
        ``channel, name, size, pool, repeat, macro_f1``; average over
        ``repeat`` per ``channel, size`` for the curve.
    """
    pools = {
        "emoji": (system, _shared_items(sentences, language)),
        "embedding": (encoder, _matched_items(sentences, embeddings, language, [encoder])),
    }
    cell = cell_data(sentences, generations, language=language, system=system)
    emb = embeddings[encoder].set_axis(embeddings[encoder].index.astype(str), axis=0)
    rows = []
    for channel, (name, labels) in pools.items():
        ids = labels.index.to_numpy()
        y = labels.to_numpy(dtype=object)
        if channel == "emoji":
            ids = ids[np.isin(ids, cell.index.to_numpy())]
            y = labels.loc[ids].to_numpy(dtype=object)
            data = cell.loc[ids, "output"].to_numpy(dtype=object)
        else:
            data = emb.loc[ids].to_numpy()

        def score(pos):
            if channel == "emoji":
                return ead(list(data[pos]), y[pos], seed=seed, n_splits=n_splits, C=C_emoji).macro_f1
            return embedding_probe(data[pos], y[pos], seed=seed, C=C_embedding, n_splits=n_splits).macro_f1

        pool = len(y)
        for size in sorted(set(int(s) for s in sizes)):
            if size >= pool:
                continue
            for r in range(n_repeats):
                sub_seed = int(np.random.SeedSequence([seed, size, r]).generate_state(1)[0])
                rows.append((channel, name, size, pool, r, score(_subsample(y, size, sub_seed))))
        rows.append((channel, name, pool, pool, 0, score(np.arange(pool))))
    return pd.DataFrame(rows, columns=["channel", "name", "size", "pool", "repeat", "macro_f1"])


# --------------------------------------------------------------------------- MOS


def ead_mos_correlation(ead_by_system: pd.Series | pd.DataFrame, ratings: pd.DataFrame, *,
                        language: str = "bn") -> pd.DataFrame:
    """Spearman correlation between EAD and mean opinion score over systems (paper section 6).

    Parameters
    ----------
    ead_by_system : Series or DataFrame
        EAD per system: a Series indexed by system, or a table with columns
        ``system, macro_f1`` (and ``language``: only ``language`` rows are
        used), e.g. :func:`ead_table`.
    ratings : DataFrame
        Columns ``system, annotator, rating`` (the Bangla human study).
    language : str, default "bn"
        The language of the human study.

    Returns
    -------
    DataFrame
        One row for all annotators together (``rater = "all"``: MOS = mean
        of every rating of the system) and one per annotator (MOS = that
        annotator's mean): ``rater, rho, pvalue, n_systems``. The paper
        reports -0.19 overall and +0.07, +0.76, -0.40 per annotator.
    """
    if isinstance(ead_by_system, pd.DataFrame):
        frame = ead_by_system
        if "language" in frame.columns:
            frame = frame[frame["language"].astype(str) == language]
        ead_by_system = pd.Series(frame["macro_f1"].to_numpy(), index=frame["system"].astype(str).to_numpy())
    ead_by_system = ead_by_system.set_axis(ead_by_system.index.astype(str))
    r = ratings.assign(system=ratings["system"].astype(str), annotator=ratings["annotator"].astype(str))
    mos = {"all": r.groupby("system")["rating"].mean()}
    for annotator, part in r.groupby("annotator", sort=True):
        mos[annotator] = part.groupby("system")["rating"].mean()
    rows = []
    for rater, m in mos.items():
        common = ead_by_system.index.intersection(m.index)
        rho, p = stats.spearmanr(ead_by_system.loc[common].to_numpy(), m.loc[common].to_numpy())
        rows.append({"rater": rater, "rho": float(rho), "pvalue": float(p), "n_systems": len(common)})
    return pd.DataFrame(rows)
