"""The emoji decoder of sections 6 and 9, written once for both.

The decoder of emoji-affect decodability (EAD, section 6 and appendix B) and
of the leakage measurement (section 9) is one model: sublinear TF-IDF over
emoji graphemes, fitted on the training rows only, then an L2-regularised
multinomial logistic regression with class-balanced weights,

.. math::

    \\min_{W, b} \\sum_i w_{y_i} \\bigl(\\log \\textstyle\\sum_c e^{z_{ic}} - z_{i y_i}\\bigr)
    + \\frac{1}{2C} \\lVert W \\rVert^2, \\qquad z_i = x_i W + b,

with ``w_c = n / (k n_c)`` over the ``k`` classes of the training rows and
the intercepts ``b`` not penalised. This is exactly the objective of
``sklearn.linear_model.LogisticRegression(C=C, class_weight="balanced")``
(scikit-learn >= 1.8, where a multi-class target is one multinomial model),
which ``tests/test_decoder.py`` checks. The problem is strictly convex in
``W``, so every solver that converges lands on the same coefficients.

What makes it fast, with the model unchanged:

*One design per corpus.* Emoji graphemes are counted once per corpus
(:class:`Design`), not once per fold, and identical count rows are merged:
a row that occurs ``m`` times with label ``c`` enters the loss once with
weight ``m * w_c`` (a sum of identical terms is the term times its count,
so the objective is the same function). Emoji outputs repeat a lot: the
Bangla multi-view table of section 9 has 33,648 rows but 19,013 distinct
count rows.

*TF-IDF per fold from the merged rows.* Document frequencies are weighted
counts of the merged rows; emojis absent from the training rows get no
column weight (the vectorizer would not know them, so they do not enter a
test row's norm either). This is what ``TfidfVectorizer(analyzer=
emoji_analyzer, sublinear_tf=True)`` fitted on the training outputs gives
(tested).

*Newton steps, not a hundred gradient steps.* scikit-learn's ``lbfgs``
needs 75-85 iterations to reach its default ``tol = 1e-4`` on one fold,
and ~250 to reach ``1e-7``. :func:`fit` takes Newton steps whose linear
system is solved by conjugate gradients preconditioned with the ``k x k``
diagonal blocks of the Hessian (emojis rarely share an output, so those
blocks hold nearly all of it): 5-7 Newton and 25-60 CG steps reach a
gradient of 1e-9. The stopping rule is :data:`TOL` on the largest gradient
component of the objective divided by the total weight (the scale of
scikit-learn's ``tol``), far tighter than scikit-learn's default, so the fit
sits at the optimum rather than near it. (At ``tol = 1e-4`` scikit-learn
stops early enough that about one prediction in a thousand differs from
the optimum's; that moves a cell's macro-F1 by up to ~7e-4.)

The solver settings live here only (:data:`TOL`, :data:`MAX_ITER`); both
:mod:`compendium.decodability` and :mod:`compendium.leakage` call
:func:`cross_val_predict` / :func:`train_test_predict`. (The sentence-embedding
probe of section 6 is a dense problem without repeated rows and keeps
scikit-learn's ``lbfgs``.)

References
----------
.. [Salton88] G. Salton and C. Buckley, "Term-weighting approaches in
   automatic text retrieval", Information Processing & Management 24(5),
   1988 (sublinear TF-IDF as in scikit-learn's ``TfidfTransformer``).
.. [Nocedal06] J. Nocedal and S. J. Wright, *Numerical Optimization*, 2nd ed.,
   Springer, 2006, algorithm 7.1 (line-search Newton-CG).
.. [Lin08] C.-J. Lin, R. C. Weng and S. S. Keerthi, "Trust region Newton
   method for large-scale logistic regression", JMLR 9, 2008 (Newton-CG with
   Hessian-vector products for logistic regression, as in LIBLINEAR).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from .emoji import emoji_analyzer

__all__ = [
    "TOL",
    "MAX_ITER",
    "Design",
    "design",
    "fold_tfidf",
    "loss_gradient",
    "fit",
    "train_test_predict",
    "train_test_predict_codes",
    "cross_val_predict",
]

#: Stopping rule: largest |gradient component| of the objective / total weight (sklearn's default tol is 1e-4).
TOL = 1e-8

#: Fits whose design has at most this many cells (rows x emojis) run on a dense copy: on the EAD cells
#: (~1,000 distinct rows x ~100 emojis) the per-call overhead of sparse products outweighs their work.
DENSE_LIMIT = 500_000

#: Cap on Newton steps and on CG steps per Newton step (never reached on the book's data).
MAX_ITER = 5000


@dataclass(frozen=True)
class Design:
    """Emoji counts of a corpus with identical rows merged.

    Attributes
    ----------
    unique : csr_matrix, shape (n_unique, n_emojis)
        The distinct count rows (emoji graphemes, sorted vocabulary).
    inverse : ndarray of int, shape (n,)
        Row ``i`` of the corpus is ``unique[inverse[i]]``.
    vocabulary : ndarray of str
        The emoji of each column.
    """

    unique: sparse.csr_matrix
    inverse: np.ndarray
    vocabulary: np.ndarray

    @property
    def n_rows(self) -> int:
        return len(self.inverse)


def design(texts: Sequence[str]) -> Design:
    """Count the emoji graphemes of ``texts`` once and merge identical rows (:class:`Design`)."""
    # Outputs repeat: segment each distinct string once.
    codes, distinct = pd.factorize(pd.Series(list(texts), dtype=object))
    vectorizer = CountVectorizer(analyzer=emoji_analyzer)
    try:
        counts = vectorizer.fit_transform(list(distinct)).tocsr()[codes]
        vocabulary = vectorizer.get_feature_names_out()
    except ValueError:  # no emoji anywhere: "empty vocabulary"
        counts, vocabulary = sparse.csr_matrix((len(codes), 0), dtype=np.int64), np.array([], dtype=object)
    counts.sort_indices()
    keys: dict[bytes, int] = {}
    inverse = np.empty(counts.shape[0], dtype=np.int64)
    first = []
    indptr, indices, data = counts.indptr, counts.indices, counts.data
    for i in range(counts.shape[0]):
        lo, hi = indptr[i], indptr[i + 1]
        key = indices[lo:hi].tobytes() + b"|" + data[lo:hi].tobytes()
        code = keys.setdefault(key, len(keys))
        if code == len(first):
            first.append(i)
        inverse[i] = code
    return Design(counts[first].astype(np.float64), inverse, np.asarray(vocabulary, dtype=object))


def fold_tfidf(unique: sparse.csr_matrix, weight: np.ndarray) -> sparse.csr_matrix:
    """Sublinear TF-IDF of every merged row, with the idf of the training rows.

    Parameters
    ----------
    unique : csr_matrix
        Distinct count rows (:attr:`Design.unique`).
    weight : ndarray, shape (n_unique,)
        How many training rows each distinct row stands for (0 for none).

    Returns
    -------
    csr_matrix
        ``1 + ln(count)`` times ``idf = ln((1 + n) / (1 + df)) + 1`` (``n``
        training rows, ``df`` of them containing the emoji), L2-normalised
        per row; columns of emojis no training row contains are zero. This
        is ``TfidfTransformer(sublinear_tf=True)`` fitted on the training
        rows after dropping the columns they do not use.
    """
    n_train = weight.sum()
    present = unique.copy()
    present.data = np.ones_like(present.data)
    df = present.T @ weight
    seen = df > 0
    idf = np.where(seen, np.log((1.0 + n_train) / (1.0 + df)) + 1.0, 0.0)
    x = unique.copy()
    x.data = (1.0 + np.log(x.data)) * idf[x.indices]
    x.eliminate_zeros()
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return sparse.csr_matrix(sparse.diags(1.0 / norms) @ x)


def _split(params: np.ndarray, n_features: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    return params[: n_features * k].reshape(n_features, k), params[n_features * k:]


def loss_gradient(params: np.ndarray, X, T: np.ndarray, C: float) -> tuple[float, np.ndarray]:
    """Weighted multinomial log-loss with an L2 penalty on the coefficients, and its gradient.

    ``params`` holds ``W`` (``n_features x k``, row-major) then ``b`` (``k``).
    ``T[i, c]`` is the total weight with which row ``i`` is labelled ``c``
    (merged rows carry several labels). Returns the objective of the module
    docstring divided by the total weight, and its gradient (the scale of
    scikit-learn's ``LogisticRegression`` objective and of its ``tol``).
    """
    W, b = _split(params, X.shape[1], T.shape[1])
    s = T.sum(axis=1)
    scale = 1.0 / s.sum()
    value, P = _value(X, T, s, W, b, C, scale)
    residual = P * s[:, None] - T
    grad = np.concatenate([((X.T @ residual + W / C) * scale).ravel(), residual.sum(axis=0) * scale])
    return value, grad


def _value(X, T, s, W, b, C, scale) -> tuple[float, np.ndarray]:
    """Objective (scaled) and the class probabilities of every row."""
    z = X @ W
    z += b
    # Row maxima and sums over the k columns: column-wise operations and a matrix-vector product are
    # several times faster than numpy's axis-1 reductions on a tall n x k array (k ~ 5).
    top = z[:, 0].copy()
    for c in range(1, z.shape[1]):
        np.maximum(top, z[:, c], out=top)
    z -= top[:, None]
    e = np.exp(z)
    total = e @ np.ones(e.shape[1])
    value = (s @ np.log(total) - np.vdot(T, z) + 0.5 / C * np.vdot(W, W)) * scale
    return float(value), e / total[:, None]


def fit(X, T: np.ndarray, C: float, start: np.ndarray | None = None, *, tol: float | None = None,
        info: dict | None = None) -> np.ndarray:
    """Minimise the objective of :func:`loss_gradient` by preconditioned Newton-CG.

    Each Newton step solves ``H d = -g`` by conjugate gradients with
    Hessian-vector products (the Hessian is never formed), preconditioned by
    its ``k x k`` diagonal blocks (one per emoji, one for the intercepts):
    emojis rarely share a row, so these blocks hold nearly all of the
    Hessian and a handful of CG steps suffice. The CG tolerance is the
    usual inexact-Newton forcing term ``min(0.5, sqrt(|g|)) |g|``; the step
    is halved until the Armijo condition holds. The fit stops when the
    largest gradient component is at most ``tol`` (default :data:`TOL`).

    Parameters
    ----------
    X : sparse or dense matrix, shape (n, n_features)
    T : ndarray, shape (n, k)
        Weight of each row for each class.
    C : float
    start : ndarray, optional
        Initial ``params`` (default zeros).
    tol : float, optional
    info : dict, optional
        Receives ``newton_steps``, ``cg_steps`` and ``gradient``.

    Returns
    -------
    ndarray
        ``params``: ``W`` (row-major) then ``b``.

    References
    ----------
    [Nocedal06]_, [Lin08]_.
    """
    tol = TOL if tol is None else tol
    if sparse.issparse(X) and X.shape[0] * X.shape[1] <= DENSE_LIMIT:
        X = X.toarray()  # small problems: dense products cost less than sparse dispatch
    X = sparse.csr_matrix(X) if sparse.issparse(X) else np.asarray(X, dtype=np.float64)
    XT = X.T.tocsr() if sparse.issparse(X) else X.T
    X2T = X.multiply(X).T.tocsr() if sparse.issparse(X) else (X * X).T
    n_features, k = X.shape[1], T.shape[1]
    s = T.sum(axis=1)
    scale = 1.0 / s.sum()
    params = np.zeros((n_features + 1) * k) if start is None else np.array(start, dtype=np.float64)
    W, b = _split(params, n_features, k)
    value, P = _value(X, T, s, W, b, C, scale)
    eye = np.eye(k)
    ones = np.ones(X.shape[0])  # column sums as a matrix-vector product (faster than sum(axis=0))
    cg_steps = newton_steps = 0
    gmax = np.inf
    for newton_steps in range(MAX_ITER):
        residual = P * s[:, None] - T
        gW = (XT @ residual + W / C) * scale
        gb = (ones @ residual) * scale
        gmax = max(np.abs(gW).max(initial=0.0), np.abs(gb).max(initial=0.0))
        if gmax <= tol:
            break
        SP = P * s[:, None]
        blocks = np.empty((n_features, k, k))
        intercept = np.empty((k, k))
        for c in range(k):
            for c2 in range(c, k):
                w = SP[:, c] * (eye[c, c2] - P[:, c2])
                blocks[:, c, c2] = blocks[:, c2, c] = X2T @ w
                intercept[c, c2] = intercept[c2, c] = w.sum()
        blocks = (blocks + eye / C) * scale
        # The intercepts are unpenalised and a common shift of them changes nothing:
        # their block is singular along (1, ..., 1); a tiny ridge makes it invertible.
        intercept = intercept * scale + eye * (1e-8 * np.trace(intercept) * scale + 1e-300)
        blocks_inv, intercept_inv = np.linalg.inv(blocks), np.linalg.inv(intercept)

        def hessian(vW, vb):
            u = X @ vW
            u += vb
            u -= np.einsum("ij,ij->i", P, u)[:, None]
            u *= SP
            out = XT @ u
            out += vW / C
            out *= scale
            return out, (ones @ u) * scale

        def precondition(rW, rb):
            return np.einsum("jab,jb->ja", blocks_inv, rW), intercept_inv @ rb

        rW, rb = -gW, -gb
        dW, db = np.zeros_like(W), np.zeros_like(b)
        zW, zb = precondition(rW, rb)
        pW, pb = zW.copy(), zb.copy()
        rz = np.vdot(rW, zW) + rb @ zb
        gnorm = np.sqrt(np.vdot(gW, gW) + gb @ gb)
        forcing = min(0.5, np.sqrt(gnorm)) * gnorm
        for _ in range(MAX_ITER):
            hW, hb = hessian(pW, pb)
            cg_steps += 1
            curvature = np.vdot(pW, hW) + pb @ hb
            if curvature <= 0:
                break
            alpha = rz / curvature
            dW += alpha * pW
            db += alpha * pb
            rW -= alpha * hW
            rb -= alpha * hb
            if np.sqrt(np.vdot(rW, rW) + rb @ rb) <= forcing:
                break
            zW, zb = precondition(rW, rb)
            rz_new = np.vdot(rW, zW) + rb @ zb
            pW, pb = zW + (rz_new / rz) * pW, zb + (rz_new / rz) * pb
            rz = rz_new
        slope = np.vdot(gW, dW) + gb @ db
        step = 1.0
        while True:
            new_value, new_P = _value(X, T, s, W + step * dW, b + step * db, C, scale)
            if new_value <= value + 1e-4 * step * slope or step < 1e-10:
                break
            step *= 0.5
        W, b = W + step * dW, b + step * db
        value, P = new_value, new_P
    if info is not None:
        info.update(newton_steps=newton_steps, cg_steps=cg_steps, gradient=float(gmax))
    return np.concatenate([W.ravel(), b])


def _predict(params: np.ndarray, X, k: int) -> np.ndarray:
    n_features = X.shape[1]
    z = X @ params[: n_features * k].reshape(n_features, k) + params[n_features * k:]
    return np.argmax(z, axis=1)


def _fold(dsg: Design, codes: np.ndarray, n_classes: int, train: np.ndarray, test: np.ndarray, C: float,
          start: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Fit on ``train`` and return (predicted class codes of ``test``, the fitted params in the full class space)."""
    n_unique = dsg.unique.shape[0]
    counts = np.zeros((n_unique, n_classes))
    np.add.at(counts, (dsg.inverse[train], codes[train]), 1.0)
    per_class = counts.sum(axis=0)
    present = np.flatnonzero(per_class)
    balanced = len(train) / (len(present) * per_class[present])  # sklearn's class_weight="balanced"
    rows = np.flatnonzero(counts.sum(axis=1))
    X = fold_tfidf(dsg.unique, counts.sum(axis=1))
    T = counts[np.ix_(rows, present)] * balanced
    n_features, k = X.shape[1], len(present)
    x0 = None
    if start is not None and len(present) == n_classes:
        x0 = start
    params = fit(X[rows], T, C, x0)
    predicted = present[_predict(params, X[dsg.inverse[test]], k)]
    full = params if k == n_classes else None
    return predicted, full


def _codes(labels) -> tuple[np.ndarray, np.ndarray]:
    classes, codes = np.unique(np.asarray(labels, dtype=str), return_inverse=True)
    return classes, codes


def train_test_predict_codes(dsg: Design, codes: np.ndarray, n_classes: int, train: np.ndarray,
                             test: np.ndarray, *, C: float) -> np.ndarray:
    """:func:`train_test_predict` on integer-coded labels (``0 .. n_classes - 1``): the predicted codes.

    For callers that fit many splits of one corpus: the labels are coded once, not per split.
    """
    with threadpool_limits(limits=1, user_api="blas"):  # tiny matrices: threads only cost
        predicted, _ = _fold(dsg, np.asarray(codes), int(n_classes), np.asarray(train), np.asarray(test), C, None)
    return predicted


def train_test_predict(dsg: Design, labels, train: np.ndarray, test: np.ndarray, *, C: float) -> np.ndarray:
    """Fit the decoder on rows ``train`` of ``dsg`` and predict the labels of rows ``test``.

    Parameters
    ----------
    dsg : Design
        The corpus (:func:`design`), train and test rows together.
    labels : array-like of str, shape (n,)
        Labels of every row (only the training labels are used).
    train, test : ndarray of int
        Row positions.
    C : float
        Inverse L2 strength.

    Returns
    -------
    ndarray of str
        The predicted label of each test row.
    """
    classes, codes = _codes(labels)
    return classes[train_test_predict_codes(dsg, codes, len(classes), train, test, C=C)]


def cross_val_predict(dsg: Design, labels, *, seed: int, n_splits: int, C: float,
                      warm_start: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Stratified k-fold out-of-fold predictions of the decoder.

    The folds are ``StratifiedKFold(n_splits, shuffle=True,
    random_state=seed)``. With ``warm_start`` each fold's fit starts from
    the previous fold's coefficients (the optimum is unique, so this changes
    only how fast it is reached).

    Returns
    -------
    predicted : ndarray of str, shape (n,)
    fold : ndarray of int, shape (n,)
    """
    classes, codes = _codes(labels)
    n = len(codes)
    predicted = np.empty(n, dtype=np.int64)
    fold = np.full(n, -1, dtype=np.int64)
    cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    start = None
    with threadpool_limits(limits=1, user_api="blas"):  # tiny matrices: threads only cost
        for f, (train, test) in enumerate(cv.split(np.zeros((n, 1)), codes)):
            predicted[test], params = _fold(dsg, codes, len(classes), train, test, C, start)
            fold[test] = f
            if warm_start:
                start = params
    return classes[predicted], fold
