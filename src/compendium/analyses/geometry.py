"""Embedding geometry (paper section 7): anisotropy, language separability, emotion probes.

Section 7 makes two corrections to claims about the five sentence encoders,
measured on the label-stratified geometry sample of 1,202 sentences
(400/401 per language):

1. *Anisotropy differences are a mean offset.* The raw anisotropy of
   Ethayarajh (2019) -- the expected cosine between two different sentences --
   ranges from 0.149 to 0.700 across providers, but after subtracting the
   column mean every encoder lies in [-0.0008, 0.0013]
   (:func:`anisotropy`, :func:`centred_anisotropy`, :func:`anisotropy_table`),
   and raw anisotropy does not predict the pooled emotion probe
   (:func:`emotion_probe`, :func:`probe_table`,
   :func:`anisotropy_probe_correlation`; paper r = -0.48, p = 0.41, n = 5).
2. *Language separability is not cross-lingual alignment.* The corpora are
   not parallel, so what can be measured is how separable the languages are:
   the accuracy of a linear language classifier and the Fisher separation
   ratio (:func:`language_separability`, :func:`fisher_ratio`,
   :func:`separability_table`).

Every matrix argument is an ``n x dim`` array or a DataFrame indexed by
``sentence_id`` (what :func:`compendium.data.benchmark.load_benchmark` returns in
``Benchmark.embeddings``). Label and language arguments are aligned to the
matrix by index when both are pandas objects, by position otherwise.
Computations run in float64 whatever the input dtype.

References
----------
.. [Eth19] K. Ethayarajh, "How contextual are contextualized word
   representations? Comparing the geometry of BERT, ELMo, and GPT-2
   embeddings", EMNLP-IJCNLP 2019.
.. [Rud22] W. Rudman, N. Gillman, T. Rayne and C. Eickhoff, "IsoScore:
   measuring the uniformity of embedding space utilization", Findings of
   ACL 2022.
.. [Fis36] R. A. Fisher, "The use of multiple measurements in taxonomic
   problems", Annals of Eugenics 7 (1936).
.. [DHS01] R. O. Duda, P. E. Hart and D. G. Stork, *Pattern
   Classification*, 2nd ed., Wiley 2001, section 3.8 (scatter matrices).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score
from sklearn.model_selection import StratifiedKFold

from compendium.data import schema
from compendium.data.cache import cached

__all__ = [
    "anisotropy",
    "centred_anisotropy",
    "anisotropy_table",
    "fisher_ratio",
    "language_separability",
    "separability_table",
    "emotion_probe",
    "probe_table",
    "anisotropy_probe_correlation",
]

#: Iteration cap of the logistic regressions (lbfgs); generous so that no fit stops early.
MAX_ITER = 5000


# --- helpers -----------------------------------------------------------------------


def _matrix(X) -> np.ndarray:
    """``X`` as a 2-D float64 array (a copy never shares memory with the input)."""
    values = X.to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)
    if values.ndim != 2:
        raise ValueError(f"expected a 2-D matrix (sentences x dimensions), got shape {values.shape}")
    values = values.astype(np.float64, copy=True)
    if not np.isfinite(values).all():
        raise ValueError("the matrix contains NaN or infinite values")
    return values


def _unit_rows(X: np.ndarray) -> np.ndarray:
    """Rows scaled to unit Euclidean length; a zero row has no direction and is an error."""
    norms = np.linalg.norm(X, axis=1)
    if (norms == 0).any():
        raise ValueError(f"{int((norms == 0).sum())} row(s) have zero norm; their cosine is undefined")
    return X / norms[:, None]


def _aligned(X, y, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The matrix and a per-row vector, aligned by index if both are pandas, else by position."""
    if isinstance(X, pd.DataFrame) and isinstance(y, pd.Series):
        missing = X.index.difference(y.index)
        if len(missing):
            raise ValueError(f"{len(missing)} row(s) of the matrix have no {name}, e.g. {missing[0]!r}")
        y = y.loc[X.index]
    values = np.asarray(y, dtype=object)
    matrix = _matrix(X)
    if values.ndim != 1 or len(values) != len(matrix):
        raise ValueError(f"{name} has {len(values)} entries for {len(matrix)} rows")
    if pd.isna(values).any():
        raise ValueError(f"{name} has missing values")
    return matrix, values.astype(str)


def _order(names: Sequence[str], reference: Sequence[str]) -> list[str]:
    """``names`` in the schema's order, unknown names last in their given order."""
    known = [n for n in reference if n in names]
    return known + [n for n in names if n not in reference]


def _gram_coordinates(U: np.ndarray) -> np.ndarray:
    """Coordinates of the rows in their own span: ``Z`` with ``Z Z^T = U U^T``, at most n columns.

    An L2-penalised linear model's fitted weights lie in the span of its
    training rows (representer theorem), and its loss and penalty depend on
    the data only through inner products; so fitting on ``Z`` instead of
    ``U`` gives the same predictions with ``n`` instead of ``dim`` features
    (1,202 instead of 3,072-4,096 here). ``Z = Q sqrt(Lambda)`` from the
    eigendecomposition of the Gram matrix, dropping directions with
    numerically zero variance.
    """
    n, dim = U.shape
    if n >= dim:
        return U
    values, vectors = np.linalg.eigh(U @ U.T)
    keep = values > values.max() * n * np.finfo(np.float64).eps
    return vectors[:, keep] * np.sqrt(values[keep])


def _probe(C: float) -> LogisticRegression:
    """The paper's probe: L2-regularised multinomial logistic regression, class-balanced."""
    return LogisticRegression(C=C, class_weight="balanced", max_iter=MAX_ITER)


def _cross_validated_predictions(
    U: np.ndarray, y: np.ndarray, *, seed: int, n_splits: int, C: float
) -> tuple[np.ndarray, np.ndarray]:
    """Out-of-fold predictions of the probe and the fold of each row (stratified, shuffled, seeded).

    The probe is fitted on :func:`_gram_coordinates` of ``U``: the same
    model as on ``U`` itself, with ``n`` instead of ``dim`` features.
    """
    Z = _gram_coordinates(U)
    predicted = np.empty(len(y), dtype=object)
    fold = np.full(len(y), -1, dtype=np.int64)
    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    for f, (train, test) in enumerate(folds.split(Z, y)):
        predicted[test] = _probe(C).fit(Z[train], y[train]).predict(Z[test])
        fold[test] = f
    return predicted.astype(str), fold


# --- anisotropy -----------------------------------------------------------------------


def anisotropy(X) -> float:
    """Expected cosine similarity between two different rows (Ethayarajh, 2019).

    ``A(X) = E_{i != j}[cos(x_i, x_j)]``, evaluated exactly as the paper does
    (section 7): with ``u_i = x_i / ||x_i||``,

    ``A(X) = (||sum_i u_i||^2 - n) / (n (n - 1))``,

    because ``||sum_i u_i||^2 = sum_{i,j} u_i . u_j`` and the ``n`` diagonal
    terms are 1. This is O(n dim) instead of the O(n^2 dim) of all pairs.
    Rows are normalised and summed in float64.

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, dim)
        One embedding per row; ``n >= 2``, no zero rows.

    Returns
    -------
    float
        The mean cosine over the ``n (n - 1)`` ordered pairs ``i != j``, in
        [-1/(n-1), 1]. 0 for an isotropic cloud around the origin, near 1
        when every vector points the same way.

    Raises
    ------
    ValueError
        If ``n < 2``, a row has zero norm, or a value is not finite.

    See Also
    --------
    centred_anisotropy : the same after subtracting the column mean.

    References
    ----------
    K. Ethayarajh, EMNLP-IJCNLP 2019 (expected cosine of random pairs as the
    anisotropy baseline).

    Examples
    --------
    >>> round(anisotropy([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), 4)  # cosines 0, .7071, .7071
    0.4714
    >>> anisotropy([[1.0, 0.0], [-1.0, 0.0]])
    -1.0
    """
    M = _matrix(X)
    n = M.shape[0]
    if n < 2:
        raise ValueError("anisotropy needs at least two rows")
    total = _unit_rows(M).sum(axis=0)
    return float((total @ total - n) / (n * (n - 1)))


def centred_anisotropy(X) -> float:
    """Anisotropy after subtracting the column mean (the common displacement vector).

    ``centred_anisotropy(X) = anisotropy(X - mean(X, axis=0))``. Rudman et al.
    (2022) point out that a common offset alone makes raw anisotropy large;
    removing it leaves the expected cosine of the *centred* cloud. Because
    the centred rows sum to zero, the value is close to ``-1/(n-1)`` (exactly
    that when all centred rows have equal norms): about -0.0008 for the 1,202
    sentences of the geometry sample, the lower end of the paper's range
    [-0.0008, 0.0013].

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, dim)

    Returns
    -------
    float

    References
    ----------
    W. Rudman et al., Findings of ACL 2022; paper section 7.

    Examples
    --------
    >>> X = [[10.0, 1.0], [10.0, -1.0], [12.0, 1.0], [12.0, -1.0]]
    >>> round(anisotropy(X), 3), round(centred_anisotropy(X), 3)  # centred: (+-1, +-1)
    (0.989, -0.333)
    """
    M = _matrix(X)
    return anisotropy(M - M.mean(axis=0))


def anisotropy_table(embeddings: Mapping[str, object]) -> pd.DataFrame:
    """Raw and mean-centred anisotropy of each encoder (Figure 3a).

    Parameters
    ----------
    embeddings : mapping of str to DataFrame or array
        Encoder name -> matrix (``Benchmark.embeddings``).

    Returns
    -------
    DataFrame
        Index ``encoder`` (schema order), columns ``n``, ``dim``, ``raw``
        (:func:`anisotropy`), ``centred`` (:func:`centred_anisotropy`) and
        ``equal_norm_floor`` = -1/(n-1), the centred value a cloud with equal
        centred norms would have. The paper reports raw 0.149
        (openai-3-small), 0.150 (openai-3-large), 0.319 (qwen3), 0.574
        (gemini), 0.700 (mistral) and every centred value in
        [-0.0008, 0.0013].

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> table = anisotropy_table({"a": rng.normal(size=(50, 4)), "b": rng.normal(size=(50, 4)) + 3})
    >>> table[["n", "dim"]].to_dict("index")
    {'a': {'n': 50, 'dim': 4}, 'b': {'n': 50, 'dim': 4}}
    >>> bool(table.loc["b", "raw"] > 0.8 > abs(table.loc["b", "centred"]))
    True
    """
    rows = []
    for encoder in _order(list(embeddings), list(schema.ENCODERS)):
        M = _matrix(embeddings[encoder])
        n = M.shape[0]
        rows.append((encoder, n, M.shape[1], anisotropy(M), centred_anisotropy(M), -1.0 / (n - 1)))
    columns = ["encoder", "n", "dim", "raw", "centred", "equal_norm_floor"]
    return pd.DataFrame(rows, columns=columns).set_index("encoder")


# --- language separability -----------------------------------------------------------------


def fisher_ratio(X, groups) -> float:
    """Fisher separation ratio: between-group over within-group scatter (traces).

    With group means ``m_k`` (``n_k`` rows each) and grand mean ``m``,

    * between-group scatter ``S_B = sum_k n_k (m_k - m)(m_k - m)^T``,
    * within-group scatter ``S_W = sum_k sum_{i in k} (x_i - m_k)(x_i - m_k)^T``,

    and the ratio is ``tr(S_B) / tr(S_W)``: the squared distance of the
    group means from the grand mean, weighted by group size, over the
    squared distance of the rows from their own group mean. Total scatter
    decomposes as ``tr(S_T) = tr(S_B) + tr(S_W)``, so ``ratio / (1 + ratio)``
    is the share of the total variance that lies between groups. The ratio
    is 0 when all group means coincide, is invariant to translation,
    rotation and a common scaling of ``X``, and carries no degrees-of-freedom
    correction (it is not the F statistic). The trace form is used because
    ``S_W`` is singular when ``dim > n`` (3072-4096 dimensions, 1,202 rows),
    so the eigenvalue form ``max eig(S_W^-1 S_B)`` of Fisher's discriminant
    is not defined here.

    ``X`` is used as given; :func:`language_separability` applies it to
    L2-normalised rows.

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, dim)
    groups : array-like or Series, length n
        Group of each row (e.g. the language); at least two groups.

    Returns
    -------
    float
        ``tr(S_B) / tr(S_W)``; ``inf`` if every row equals its group mean.

    References
    ----------
    R. A. Fisher (1936); Duda, Hart and Stork (2001), section 3.8.3 (the
    scatter matrices and ``tr(S_W^-1 S_B)``-type criteria).

    Examples
    --------
    Two groups on a line: means 1 and 4 (grand mean 2.8 with sizes 2 and 3).

    >>> X = [[0.0], [2.0], [3.0], [4.0], [5.0]]
    >>> fisher_ratio(X, ["a", "a", "b", "b", "b"])  # (2*1.8**2 + 3*1.2**2) / (1 + 1 + 1 + 0 + 1)
    2.7
    """
    M, g = _aligned(X, groups, "groups")
    labels, codes = np.unique(g, return_inverse=True)
    if len(labels) < 2:
        raise ValueError("the Fisher ratio needs at least two groups")
    counts = np.bincount(codes).astype(np.float64)
    means = np.zeros((len(labels), M.shape[1]))
    np.add.at(means, codes, M)
    means /= counts[:, None]
    grand = M.mean(axis=0)
    between = float((counts * ((means - grand) ** 2).sum(axis=1)).sum())
    within = float(((M - means[codes]) ** 2).sum())
    return between / within if within > 0 else float("inf")


def language_separability(X, languages, *, seed: int, n_splits: int = 5, C: float = 1.0) -> pd.Series:
    """How linearly separable the languages are in an embedding space.

    Two measures, both on L2-normalised rows (the probe input of appendix B):

    * ``accuracy`` -- cross-validated accuracy of a linear language
      classifier: multinomial logistic regression (L2 penalty, ``C``,
      class-balanced weights) under stratified ``n_splits``-fold
      cross-validation with shuffling seeded by ``seed``; the share of all
      out-of-fold predictions that are right (``accuracy_fold_mean`` and
      ``accuracy_fold_sd`` summarise the per-fold accuracies). When
      ``n < dim`` the classifier is fitted on the rows' coordinates in their
      own span (same Gram matrix, hence the same fitted model and
      predictions, ``n`` instead of ``dim`` features).
    * ``fisher`` -- :func:`fisher_ratio` of the languages,
      ``tr(S_B) / tr(S_W)``.

    High separability is *not* evidence of poor cross-lingual alignment,
    nor low separability of good alignment: the corpora are not parallel,
    so any language difference is confounded with topic, register and
    domain (section 7). The paper reports accuracy >= 0.993 for four
    encoders and 0.597 for Gemini-Embedding-001, whose Fisher ratio is
    0.009 against 0.105-0.280 for the others.

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, dim)
    languages : array-like or Series, length n
        Language of each row (aligned by index to a DataFrame ``X``).
    seed : int
        Seed of the fold assignment.
    n_splits : int, default 5
    C : float, default 1.0
        Inverse regularisation strength (appendix B: C = 1 on embeddings).

    Returns
    -------
    Series
        ``n``, ``accuracy``, ``accuracy_fold_mean``, ``accuracy_fold_sd``,
        ``chance`` (share of the largest language) and ``fisher``.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> langs = np.repeat(["bn", "en", "hi"], 30)
    >>> X = rng.normal(size=(90, 5)) + 4 * (langs[:, None] == ["bn", "en", "hi", "bn", "en"])
    >>> result = language_separability(X, langs, seed=0)
    >>> float(result["accuracy"]), bool(result["fisher"] > 1)
    (1.0, True)
    """
    M, y = _aligned(X, languages, "languages")
    U = _unit_rows(M)
    predicted, fold = _cross_validated_predictions(U, y, seed=seed, n_splits=n_splits, C=C)
    per_fold = [accuracy_score(y[fold == f], predicted[fold == f]) for f in range(n_splits)]
    _, counts = np.unique(y, return_counts=True)
    return pd.Series(
        {
            "n": len(y),
            "accuracy": float(accuracy_score(y, predicted)),
            "accuracy_fold_mean": float(np.mean(per_fold)),
            "accuracy_fold_sd": float(np.std(per_fold, ddof=1)),
            "chance": float(counts.max() / counts.sum()),
            "fisher": fisher_ratio(U, y),
        },
        dtype=float,
    ).rename_axis("measure")


@cached("compendium")  # a build artefact: nbval's re-execution reads it
def separability_table(
    embeddings: Mapping[str, object], sentences: pd.DataFrame, seed: int, *, n_splits: int = 5, C: float = 1.0
) -> pd.DataFrame:
    """:func:`language_separability` for every encoder.

    Parameters
    ----------
    embeddings : mapping of str to DataFrame
        Encoder -> matrix indexed by ``sentence_id``.
    sentences : DataFrame
        Columns ``sentence_id, language``; must cover every embedded sentence.
    seed : int
        The same fold assignment is used for every encoder.

    Returns
    -------
    DataFrame
        Index ``encoder`` (schema order); the columns of
        :func:`language_separability`.

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> s = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(60)], "language": np.repeat(["bn", "en"], 30)})
    >>> e = {"x": pd.DataFrame(rng.normal(size=(60, 3)), index=s["sentence_id"])}
    >>> table = separability_table(e, s, seed=0)
    >>> list(table.columns), bool(table.loc["x", "fisher"] < 0.2)
    (['n', 'accuracy', 'accuracy_fold_mean', 'accuracy_fold_sd', 'chance', 'fisher'], True)
    """
    languages = sentences.set_index("sentence_id")["language"].astype(str)
    rows = {
        encoder: language_separability(
            embeddings[encoder], _languages_for(embeddings[encoder], languages), seed=seed, n_splits=n_splits, C=C
        )
        for encoder in _order(list(embeddings), list(schema.ENCODERS))
    }
    table = pd.DataFrame(rows).T.rename_axis("encoder")
    table["n"] = table["n"].astype(int)
    return table


def _languages_for(X, languages: pd.Series) -> pd.Series:
    """The language of each row of an embedding frame (indexed by sentence_id)."""
    if not isinstance(X, pd.DataFrame):
        raise TypeError("embeddings must be DataFrames indexed by sentence_id")
    return languages.reindex(X.index)


# --- emotion probe ---------------------------------------------------------------------------


def emotion_probe(X, labels, *, seed: int, C: float = 1.0, n_splits: int = 5) -> pd.Series:
    """Cross-validated macro-F1 of a linear emotion probe on sentence embeddings.

    Appendix B's embedding probe: rows L2-normalised; L2-regularised
    multinomial logistic regression with ``C = 1`` and class-balanced
    weights; stratified ``n_splits``-fold cross-validation (shuffled, seeded).
    As in :func:`language_separability`, a wide matrix is first reduced to
    its rows' coordinates in their own span, which leaves the fitted model's
    predictions unchanged. Section 7 pools the three languages (one probe over all geometry-sample
    items with a single shared emotion): Gemini-Embedding-001 0.290 is the
    weakest, Qwen3-Embedding-8B 0.593 the strongest.

    Parameters
    ----------
    X : array-like or DataFrame, shape (n, dim)
    labels : array-like or Series, length n
        One emotion per row (aligned by index to a DataFrame ``X``).
    seed : int
        Seed of the fold assignment.
    C : float, default 1.0
    n_splits : int, default 5

    Returns
    -------
    Series
        ``n``, ``n_classes``, ``macro_f1`` (macro-F1 of all ``n``
        out-of-fold predictions pooled -- the reported value, as for EAD in
        :mod:`compendium.analyses.ead`), ``macro_f1_fold_mean`` and
        ``macro_f1_fold_sd`` (mean and SD of the per-fold macro-F1).

    Notes
    -----
    Pooling the out-of-fold predictions, rather than averaging per-fold F1
    scores, follows Forman and Scholz (2010): F1 is a ratio, and the mean of
    per-fold ratios is biased for small classes.

    References
    ----------
    Appendix B of the paper (probe settings); G. Alain and Y. Bengio,
    "Understanding intermediate layers using linear classifier probes",
    ICLR workshop 2017 (linear probes); G. Forman and M. Scholz,
    "Apples-to-apples in cross-validation studies: pitfalls in classifier
    performance measurement", SIGKDD Explorations 12 (2010).

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> y = np.tile(["joy", "fear", "anger"], 20)
    >>> X = rng.normal(size=(60, 6)) + 3 * (y[:, None] == ["joy", "fear", "anger", "joy", "fear", "anger"])
    >>> result = emotion_probe(X, y, seed=0)
    >>> int(result["n_classes"]), bool(result["macro_f1"] > 0.9)
    (3, True)
    """
    M, y = _aligned(X, labels, "labels")
    predicted, fold = _cross_validated_predictions(_unit_rows(M), y, seed=seed, n_splits=n_splits, C=C)
    per_fold = [f1_score(y[fold == f], predicted[fold == f], average="macro", zero_division=0) for f in range(n_splits)]
    return pd.Series(
        {
            "n": float(len(y)),
            "n_classes": float(len(np.unique(y))),
            "macro_f1": float(f1_score(y, predicted, average="macro", zero_division=0)),
            "macro_f1_fold_mean": float(np.mean(per_fold)),
            "macro_f1_fold_sd": float(np.std(per_fold, ddof=1)),
        }
    ).rename_axis("measure")


def probe_predictions(X, labels, *, seed: int, C: float = 1.0, n_splits: int = 5) -> np.ndarray:
    """The out-of-fold predictions of :func:`emotion_probe` (same rows, folds and probe), one per row, for a
    comparison that pairs them with another channel's predictions on the same items."""
    M, y = _aligned(X, labels, "labels")
    predicted, _ = _cross_validated_predictions(_unit_rows(M), y, seed=seed, n_splits=n_splits, C=C)
    return predicted


def probe_labels(sentences: pd.DataFrame) -> pd.Series:
    """The single shared emotion of every geometry-sample sentence that has one.

    Parameters
    ----------
    sentences : DataFrame
        Columns ``sentence_id, labels, shared_single, geometry_sample``.

    Returns
    -------
    Series
        Label indexed by ``sentence_id``, for sentences flagged both
        ``geometry_sample`` and ``shared_single``.

    Examples
    --------
    >>> s = pd.DataFrame({"sentence_id": ["a", "b", "c"], "labels": ["joy", "joy;fear", "love"],
    ...                   "shared_single": [True, False, False], "geometry_sample": [True, True, False]})
    >>> probe_labels(s).to_dict()
    {'a': 'joy'}
    """
    keep = sentences["geometry_sample"].astype(bool) & sentences["shared_single"].astype(bool)
    chosen = sentences.loc[keep]
    return pd.Series(chosen["labels"].astype(str).to_numpy(), index=chosen["sentence_id"].to_numpy(), name="label")


@cached("compendium")  # a build artefact: nbval's re-execution reads it
def probe_table(
    embeddings: Mapping[str, object], sentences: pd.DataFrame, *, seed: int, C: float = 1.0, n_splits: int = 5
) -> pd.DataFrame:
    """Pooled emotion probe (:func:`emotion_probe`) for every encoder.

    The items are the geometry-sample sentences flagged ``shared_single``
    (one of the five shared emotions, single label), all three languages
    together; rows of an embedding matrix for other sentences are left out.
    Every encoder gets the same folds (same items, same ``seed``).

    Returns
    -------
    DataFrame
        Index ``encoder`` (schema order); columns of :func:`emotion_probe`.

    Examples
    --------
    >>> rng = np.random.default_rng(4)
    >>> ids = [f"s{i}" for i in range(40)]
    >>> s = pd.DataFrame({"sentence_id": ids, "labels": np.tile(["joy", "fear"], 20),
    ...                   "shared_single": True, "geometry_sample": True})
    >>> e = {"x": pd.DataFrame(rng.normal(size=(40, 3)), index=ids)}
    >>> probe_table(e, s, seed=0)[["n", "n_classes"]].to_dict("index")
    {'x': {'n': 40, 'n_classes': 2}}
    """
    labels = probe_labels(sentences)
    rows = {}
    for encoder in _order(list(embeddings), list(schema.ENCODERS)):
        X = embeddings[encoder]
        if not isinstance(X, pd.DataFrame):
            raise TypeError("embeddings must be DataFrames indexed by sentence_id")
        keep = X.index[X.index.isin(labels.index)]
        rows[encoder] = emotion_probe(X.loc[keep], labels.loc[keep], seed=seed, C=C, n_splits=n_splits)
    table = pd.DataFrame(rows).T.rename_axis("encoder")
    table[["n", "n_classes"]] = table[["n", "n_classes"]].astype(int)
    return table


def anisotropy_probe_correlation(
    table: pd.DataFrame, probe: pd.DataFrame | None = None, *, x: str = "raw", y: str = "macro_f1"
) -> pd.Series:
    """Pearson correlation between raw anisotropy and probe macro-F1 across encoders.

    Parameters
    ----------
    table : DataFrame
        One row per encoder (index ``encoder``) with column ``x``, and with
        column ``y`` too unless ``probe`` is given -- e.g. the output of
        :func:`anisotropy_table` joined with :func:`probe_table`'s
        ``macro_f1``.
    probe : DataFrame, optional
        Output of :func:`probe_table`; its column ``y`` is matched to
        ``table`` by encoder.
    x, y : str
        Column names (default ``raw`` anisotropy and pooled ``macro_f1``).

    Returns
    -------
    Series
        ``r``, ``p`` (two-sided, :func:`scipy.stats.pearsonr`, t distribution
        with n - 2 df) and ``n``. Paper: r = -0.48, p = 0.41, n = 5 -- no
        evidence that anisotropy predicts downstream utility (with n = 5, |r|
        must exceed 0.878 for p < 0.05).

    Examples
    --------
    >>> t = pd.DataFrame({"raw": [0.1, 0.2, 0.3, 0.4], "macro_f1": [0.5, 0.4, 0.45, 0.3]})
    >>> result = anisotropy_probe_correlation(t)
    >>> round(float(result["r"]), 3), int(result["n"])
    (-0.832, 4)
    >>> anisotropy_probe_correlation(t[["raw"]], t[["macro_f1"]]).equals(result)
    True
    """
    if probe is not None:
        pair = pd.concat([table[x].astype(float), probe[y].astype(float)], axis=1, join="inner").dropna()
    else:
        pair = table[[x, y]].astype(float).dropna()
    if len(pair) < 3:
        raise ValueError("a correlation with a p-value needs at least three encoders")
    result = stats.pearsonr(pair[x], pair[y])
    return pd.Series({"r": float(result.statistic), "p": float(result.pvalue), "n": float(len(pair))}).rename_axis(
        "measure"
    )
