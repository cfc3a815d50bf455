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
system is solved by conjugate gradients, preconditioned with the Hessian's
``k x k`` blocks of each emoji and of the intercepts and the blocks that
couple the two (emojis rarely share an output, so these hold nearly all of
it): about 6 Newton and 20 CG steps reach a gradient of 1e-8. The stopping
rule is :data:`TOL` on the largest gradient component of the objective
divided by the total weight (the scale of scikit-learn's ``tol``), far
tighter than scikit-learn's default, so the fit sits at the optimum rather
than near it. (At ``tol = 1e-4`` scikit-learn stops early enough that about
one prediction in a thousand differs from the optimum's; that moves a
cell's macro-F1 by up to ~7e-4.)

*Many fits at once, each started near its optimum.* A cell's folds are
small (a few thousand merged rows), so one fit spends much of its time in
the overhead of numpy calls rather than in arithmetic. :func:`fit_many`
stacks independent fits into one block-diagonal problem, each with its own
step lengths and stopping test, so every numpy call serves them all.
:func:`cross_val_predict_many` fits every fold of several seeds (or of
several permuted label vectors) that way, each started from the fit on
every row, which is about two Newton steps closer to a fold's optimum than
zero is; the optimum is unique, so the start changes how fast it is
reached, not where.

The solver settings live here only (:data:`TOL`, :data:`MAX_ITER`); both
:mod:`compendium.analyses.ead` and :mod:`compendium.analyses.leakage` call
:func:`cross_val_predict_many` / :func:`train_test_predict_many` (or their
one-run forms). (The sentence-embedding
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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.model_selection import StratifiedKFold

from compendium.stats._blas import one_blas_thread

__all__ = [
    "TOL",
    "MAX_ITER",
    "Design",
    "design",
    "fold_tfidf",
    "loss_gradient",
    "fit",
    "fit_many",
    "train_test_predict",
    "train_test_predict_codes",
    "train_test_predict_many",
    "cross_val_predict",
    "cross_val_predict_many",
]

#: Stopping rule: largest |gradient component| of the objective / total weight (sklearn's default tol is 1e-4).
TOL = 1e-8

#: Fits whose design has at most this many cells (rows x emojis) run on a dense copy: on the EAD cells
#: (~1,000 distinct rows x ~100 emojis) the per-call overhead of sparse products outweighs their work.
DENSE_LIMIT = 500_000

#: Fits stacked by :func:`fit_many` hold at most this many (merged) rows together: on the EAD cells
#: (2,000-4,000 rows a fold) stacks of a few fits are fastest; larger ones leave the CPU caches.
BATCH_ROWS = 20_000

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
    #: Fits on every row, by label vector and ``C`` (:func:`cross_val_predict_many`'s warm starts): the
    #: EAD of a cell asks for the same one twice (its first seed, then the others).
    every_row_fits: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def n_rows(self) -> int:
        return len(self.inverse)


def design(texts: Sequence[str], analyzer: Callable[[str], list[str]]) -> Design:
    """Count the tokens of ``texts`` once and merge identical rows (:class:`Design`).

    ``analyzer`` splits one text into its tokens (scikit-learn's
    ``CountVectorizer(analyzer=...)``); the chapters pass
    :func:`compendium.analyses.emoji.emoji_analyzer`, so the tokens are emoji graphemes.
    """
    # Outputs repeat: segment each distinct string once. Two count rows are equal exactly when their
    # token multisets are, so the sorted tokens of a string are its row's key; rows are numbered in
    # order of first appearance, so the merged rows come in the order the corpus first has them.
    codes, distinct = pd.factorize(pd.Series(list(texts), dtype=object))
    # Each document's tokens as a tuple: a tuple of strings leaves the cycle collector's books at its
    # first collection, whereas 10^4 lists kept alive here made every other call pay for a full one.
    tokens = [tuple(analyzer(text)) for text in distinct]
    keys: dict[tuple, int] = {}
    merged = np.fromiter((keys.setdefault(tuple(sorted(row)), len(keys)) for row in tokens), dtype=np.int64,
                         count=len(tokens))
    first = np.unique(merged, return_index=True)[1]
    counts, vocabulary = _count([tokens[i] for i in first])
    return Design(counts.astype(np.float64), merged[codes], vocabulary)


def _count(tokens: list[tuple[str, ...]]) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Count matrix of tokenised documents (sorted vocabulary, sorted column indices in each row): what
    ``CountVectorizer(analyzer=...).fit_transform`` gives, ``sort_indices()`` applied (tested), without
    its per-document counters; no token anywhere gives zero columns, not an error."""
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    flat = pd.Series([token for row in tokens for token in row], dtype=object)
    columns, vocabulary = pd.factorize(flat, sort=True)  # sorted as CountVectorizer sorts its vocabulary
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    counts = sparse.csr_matrix((np.ones(len(flat), dtype=np.int64), columns.astype(np.int64), indptr),
                               shape=(len(tokens), len(vocabulary)))
    counts.sum_duplicates()  # repeated tokens of a row add up; column indices sorted
    return counts, np.asarray(vocabulary, dtype=object)


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
    # On the CSR arrays directly (a fold's few thousand rows), each sum taken in the order scipy's
    # sparse operations take it (np.bincount for present.T @ weight, np.add.reduceat over the rows for
    # x.multiply(x).sum(axis=1)), so the floats are those of the sparse-matrix formulation (tested).
    n_rows = unique.shape[0]
    row = np.repeat(np.arange(n_rows), np.diff(unique.indptr))
    df = np.bincount(unique.indices, weights=weight[row], minlength=unique.shape[1])
    seen = df > 0
    idf = np.where(seen, np.log((1.0 + n_train) / (1.0 + df)) + 1.0, 0.0)
    data = (1.0 + np.log(unique.data)) * idf[unique.indices]
    kept = data != 0  # the emojis no training row has
    row, data, indices = row[kept], data[kept], unique.indices[kept]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=n_rows))])
    squares = np.zeros(n_rows)
    filled = np.flatnonzero(np.diff(indptr))
    if len(filled):
        squares[filled] = np.add.reduceat(data * data, indptr[filled])
    norms = np.sqrt(squares)
    norms[norms == 0] = 1.0
    data *= (1.0 / norms)[row]
    return sparse.csr_matrix((data, indices, indptr), shape=unique.shape)


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


class _Batch:
    """Independent problems of one design stacked for :func:`fit_many`: ``G`` problems, each padded to
    ``n`` rows (padding rows carry no weight, so they add nothing to any sum), one block-diagonal product.

    Row arrays are ``(G, n, k)``, parameters ``(G, n_features + 1, k)``; the intercepts are a last
    column of ones with no penalty.
    """

    def __init__(self, designs):
        self.G = len(designs)
        self.n = max(X.shape[0] for X in designs)
        self.n_features = designs[0].shape[1]
        if any(X.shape[1] != self.n_features for X in designs):
            raise ValueError("fit_many: every problem must have the same number of features")
        # Dense products cost less than sparse dispatch on small problems; stacked, the dispatch is
        # shared, so the limit is on the whole batch.
        dense = not any(sparse.issparse(X) for X in designs) or self.G * self.n * self.n_features <= DENSE_LIMIT
        self.dense = dense
        if dense:
            blocks, squares = [], []
            for X in designs:
                X = np.asarray(X.toarray() if sparse.issparse(X) else X, dtype=np.float64)
                X = np.vstack([X, np.zeros((self.n - X.shape[0], self.n_features))])
                per_row = np.count_nonzero(X, axis=1).astype(np.float64)
                squares.append(X * X * per_row[:, None])
                blocks.append(np.hstack([X, np.ones((self.n, 1))]))
            self.X1 = np.stack(blocks)  # (G, n, n_features + 1)
            self.X1T = np.ascontiguousarray(self.X1.transpose(0, 2, 1))
            self.XmT = np.ascontiguousarray(np.stack(squares).transpose(0, 2, 1))
        else:
            self.X1, squares = _stacked_blocks(designs, self.n, self.n_features)
            self.X1T = self.X1.T.tocsr()
            self.XmT = squares.T.tocsr()

    def _apply(self, A, M, rows: int):
        if self.dense:
            return A @ M
        return (A @ M.reshape(-1, M.shape[-1])).reshape(self.G, rows, M.shape[-1])

    def forward(self, V):
        """``X1 V`` of every problem: (G, n, k)."""
        return self._apply(self.X1, V, self.n)

    def backward(self, R):
        """``X1' R`` of every problem: (G, n_features + 1, m)."""
        return self._apply(self.X1T, R, self.n_features + 1)

    def backward_squares(self, R):
        """``(m_i x_ij^2)' R`` of every problem (the preconditioner's design): (G, n_features, m)."""
        return self._apply(self.XmT, R, self.n_features)


def _stacked_blocks(designs, n: int, n_features: int) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
    """The sparse designs of :class:`_Batch`, built from the CSR arrays directly.

    Each problem ``X`` (``n_g x n_features``) is padded with empty rows to ``n``; problem ``g`` fills
    rows ``g n ..`` of both results. The first holds ``[X, 1]`` in columns ``g (n_features + 1) ..``
    (the intercept's column of ones last in each row), the second ``m_i x_ij^2`` (``m_i`` the number of
    emojis of row ``i``) in columns ``g n_features ..``. Entry for entry, in the same order, this is
    ``sparse.block_diag`` of ``sparse.hstack([X, ones])`` and of ``X.multiply(X).multiply(m)`` (tested);
    built this way it costs a few numpy calls instead of scipy's COO round trips, which took a fifth
    of the EAD grid.
    """
    indptr, indices, data, squares = [np.zeros(1, dtype=np.int64)], [], [], []
    for g, X in enumerate(designs):
        X = sparse.csr_matrix(X, dtype=np.float64)
        if not X.has_sorted_indices:
            X = X.copy()
            X.sort_indices()
        lengths = np.zeros(n, dtype=np.int64)
        lengths[: X.shape[0]] = np.diff(X.indptr)
        squares.append(X.data * X.data * np.repeat(lengths[: X.shape[0]].astype(np.float64), lengths[: X.shape[0]]))
        ends = np.cumsum(lengths + 1)  # each row: its emojis, then the intercept's 1
        ones = ends - 1
        cols = np.empty(ends[-1], dtype=np.int64)
        values = np.empty(ends[-1])
        emojis = np.ones(ends[-1], dtype=bool)
        emojis[ones] = False
        cols[emojis] = X.indices + g * (n_features + 1)
        cols[ones] = g * (n_features + 1) + n_features
        values[emojis] = X.data
        values[ones] = 1.0
        indptr.append(ends + indptr[-1][-1])
        indices.append(cols)
        data.append(values)
    G = len(designs)
    X1 = sparse.csr_matrix((np.concatenate(data), np.concatenate(indices), np.concatenate(indptr)),
                           shape=(G * n, G * (n_features + 1)))
    # The squares have the emoji entries of X1 without the intercept's: drop one entry per row.
    emoji_entries = np.ones(X1.nnz, dtype=bool)
    emoji_entries[X1.indptr[1:] - 1] = False
    square_cols = X1.indices[emoji_entries]
    square_cols -= (square_cols // (n_features + 1))  # column g (n_features + 1) + j -> g n_features + j
    Xm = sparse.csr_matrix((np.concatenate(squares), square_cols, X1.indptr - np.arange(G * n + 1)),
                           shape=(G * n, G * n_features))
    return X1, Xm


def _batch_objective(batch: _Batch, T, s, V, penalty):
    """Objective of every problem (``T``, ``s`` scaled, :func:`_value`) and the class probabilities."""
    z = batch.forward(V)
    top = z[..., 0].copy()
    for c in range(1, z.shape[-1]):
        np.maximum(top, z[..., c], out=top)
    z -= top[..., None]
    e = np.exp(z)
    total = e @ np.ones(e.shape[-1])
    value = (np.einsum("gi,gi->g", s, np.log(total)) - np.einsum("gik,gik->g", T, z)
             + 0.5 * np.einsum("gjk,gjk->g", penalty * V, V))
    return value, e / total[..., None]


def fit_many(problems, C: float, starts=None, *, tol: float | None = None,
             infos: list | None = None) -> list[np.ndarray]:
    """Minimise the objective of :func:`loss_gradient` for several problems at once (:func:`fit`).

    The problems are independent; stacking them only shares the cost of
    each numpy call among them (on the book's EAD cells a single fit spends
    most of its time in call overhead, not arithmetic). Every problem keeps
    its own step lengths, CG coefficients and stopping tests, and a problem
    that has converged is left where it is while the others go on, so each
    result is what :func:`fit` alone returns (up to rounding).

    Parameters
    ----------
    problems : sequence of (X, T)
        Designs with the same number of columns and weights with the same
        number of classes ``k`` (see :func:`fit`).
    C : float
    starts : sequence of (ndarray or None), optional
    tol : float, optional
    infos : list of dict, optional
        One dict per problem; receives ``newton_steps``, ``cg_steps`` and ``gradient``.

    Returns
    -------
    list of ndarray
        The ``params`` of each problem.

    References
    ----------
    [Nocedal06]_, [Lin08]_.
    """
    tol = TOL if tol is None else tol
    batch = _Batch([X for X, _ in problems])
    G, n, n_features = batch.G, batch.n, batch.n_features
    k = problems[0][1].shape[1]
    if any(T.shape[1] != k for _, T in problems):
        raise ValueError("fit_many: every problem must have the same number of classes")
    T = np.zeros((G, n, k))
    for g, (_, Tg) in enumerate(problems):
        T[g, : len(Tg)] = Tg
    scale = 1.0 / T.sum(axis=(1, 2))
    T *= scale[:, None, None]  # each objective / its total weight: sklearn's scale
    s = T.sum(axis=2)
    s_col = s[..., None]
    penalty = np.repeat((scale / C)[:, None, None], n_features + 1, axis=1)
    penalty[:, -1] = 0.0
    V = np.zeros((G, n_features + 1, k))
    for g, start in enumerate(starts or []):
        if start is not None:
            V[g] = np.asarray(start, dtype=np.float64).reshape(n_features + 1, k)
    value, P = _batch_objective(batch, T, s, V, penalty)
    eye = np.eye(k)
    ridge = eye * (scale / C)[:, None, None, None]
    upper = np.triu_indices(k)
    pair = np.zeros((k, k), dtype=np.int64)
    pair[upper] = np.arange(len(upper[0]))
    full = np.maximum(pair, pair.T).ravel()  # entry (a, b) of a k x k block is pair min(a, b), max(a, b)
    newton_steps = np.zeros(G, dtype=np.int64)
    cg_steps = np.zeros(G, dtype=np.int64)
    gmax = np.full(G, np.inf)

    def dot(a, b):
        return np.einsum("gjk,gjk->g", a, b)

    for _ in range(MAX_ITER):
        gradient = batch.backward(P * s_col - T)
        gradient += penalty * V
        gmax = np.abs(gradient).max(axis=(1, 2))
        active = gmax > tol
        if not active.any():
            break
        newton_steps += active
        SP = P * s_col
        # Row i's k x k curvature s_i (diag(p_i) - p_i p_i'), every row at once; it is symmetric, so only
        # the k (k + 1) / 2 entries a <= b are computed and ``full`` copies them into a k x k layout.
        curvature_rows = SP[..., upper[0]] * (eye[upper] - P[..., upper[1]])
        emoji = batch.backward_squares(curvature_rows)[..., full].reshape(G, n_features, k, k) + ridge
        crossed = batch.backward(curvature_rows)[..., full].reshape(G, n_features + 1, k, k)
        coupling = crossed[:, :-1]
        # The intercepts are unpenalised and a common shift of them changes nothing:
        # their block is singular along (1, ..., 1); a tiny ridge makes it invertible.
        intercept = crossed[:, -1] + eye * (1e-8 * np.trace(crossed[:, -1], axis1=1, axis2=2)[:, None, None] + 1e-300)
        emoji_inv = np.linalg.inv(emoji)
        emoji_inv_coupling = emoji_inv @ coupling
        schur_inv = np.linalg.inv(intercept - np.einsum("gjba,gjbc->gac", coupling, emoji_inv_coupling))

        def hessian(v):
            u = batch.forward(v)
            u -= (P * u) @ np.ones((k, 1))
            u *= SP
            out = batch.backward(u)
            out += penalty * v
            return out

        def precondition(r):
            z = np.empty_like(r)
            z[:, :-1] = np.einsum("gjab,gjb->gja", emoji_inv, r[:, :-1])
            z[:, -1] = np.einsum("gab,gb->ga", schur_inv, r[:, -1] - np.einsum("gjba,gjb->ga", coupling, z[:, :-1]))
            z[:, :-1] -= np.einsum("gjab,gb->gja", emoji_inv_coupling, z[:, -1])
            return z

        r = -gradient
        d = np.zeros_like(V)
        z = precondition(r)
        p = z.copy()
        rz = dot(r, z)
        gnorm = np.sqrt(dot(gradient, gradient))
        forcing = np.minimum(0.5, np.sqrt(gnorm)) * gnorm
        solving = active.copy()
        for _ in range(MAX_ITER):
            h = hessian(p)
            cg_steps += solving
            curvature = dot(p, h)
            solving &= curvature > 0
            alpha = np.where(solving, rz / np.where(solving, curvature, 1.0), 0.0)[:, None, None]
            d += alpha * p
            r -= alpha * h
            solving &= np.sqrt(dot(r, r)) > forcing
            if not solving.any():
                break
            z = precondition(r)
            rz_new = dot(r, z)
            p *= np.where(solving, rz_new / rz, 0.0)[:, None, None]
            p += z
            rz = np.where(solving, rz_new, rz)
        slope = dot(gradient, d)
        step = np.where(active, 1.0, 0.0)
        searching = active.copy()
        new_value, new_P = value.copy(), P.copy()
        while searching.any():
            trial_value, trial_P = _batch_objective(batch, T, s, V + step[:, None, None] * d, penalty)
            accepted = searching & ((trial_value <= value + 1e-4 * step * slope) | (step < 1e-10))
            new_value[accepted] = trial_value[accepted]
            new_P[accepted] = trial_P[accepted]
            searching &= ~accepted
            step = np.where(searching, step * 0.5, step)
        V = V + step[:, None, None] * d
        value, P = new_value, new_P
    if infos is not None:
        for g, info in enumerate(infos):
            info.update(newton_steps=int(newton_steps[g]), cg_steps=int(cg_steps[g]), gradient=float(gmax[g]))
    return [V[g].ravel() for g in range(G)]


def fit(X, T: np.ndarray, C: float, start: np.ndarray | None = None, *, tol: float | None = None,
        info: dict | None = None) -> np.ndarray:
    """Minimise the objective of :func:`loss_gradient` by preconditioned Newton-CG.

    Each Newton step solves ``H d = -g`` by conjugate gradients with
    Hessian-vector products (the Hessian is never formed). The intercepts
    are a last column of ones with no penalty, so ``params`` is one
    ``(n_features + 1) x k`` matrix. The preconditioner keeps, of the
    Hessian, the ``k x k`` block of each emoji and of the intercepts and
    the blocks coupling each emoji to the intercepts (an "arrowhead"), and
    drops the blocks coupling two emojis (only rows holding both add to
    those). Dropping them alone can leave an indefinite matrix; weighting
    row ``i``'s share of the emoji blocks by its number of emojis ``m_i``
    keeps it positive definite (by Cauchy-Schwarz, ``(sum_j x_j v_j)^2 <=
    m sum_j x_j^2 v_j^2``). The arrowhead is solved exactly through the
    ``k x k`` Schur complement of the intercepts. On the book's cells this
    halves the CG steps of the block-diagonal (block-Jacobi) preconditioner.

    The CG tolerance is the usual inexact-Newton forcing term
    ``min(0.5, sqrt(|g|)) |g|``; the step is halved until the Armijo
    condition holds. The fit stops when the largest gradient component is
    at most ``tol`` (default :data:`TOL`). :func:`fit_many` runs several
    fits at once; this is its one-problem case.

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
    return fit_many([(X, T)], C, [start], tol=tol, infos=None if info is None else [info])[0]


def _predict(params: np.ndarray, X, k: int) -> np.ndarray:
    n_features = X.shape[1]
    z = X @ params[: n_features * k].reshape(n_features, k) + params[n_features * k:]
    return np.argmax(z, axis=1)


def _problem(dsg: Design, codes: np.ndarray, n_classes: int, train: np.ndarray):
    """The training problem of one split: ``(X of every merged row, rows in training, T, classes present)``."""
    counts = np.zeros((dsg.unique.shape[0], n_classes))
    np.add.at(counts, (dsg.inverse[train], codes[train]), 1.0)
    per_class = counts.sum(axis=0)
    present = np.flatnonzero(per_class)
    balanced = len(train) / (len(present) * per_class[present])  # sklearn's class_weight="balanced"
    rows = np.flatnonzero(counts.sum(axis=1))
    X = fold_tfidf(dsg.unique, counts.sum(axis=1))
    return X, rows, counts[np.ix_(rows, present)] * balanced, present


def _fit_splits(dsg: Design, splits, C: float, starts=None) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """Fit one decoder per split and predict its test rows, the fits stacked (:func:`fit_many`).

    ``splits`` holds ``(codes, n_classes, train, test)``; ``starts`` optional initial params (used
    where every class is present). Returns, per split, the predicted class codes of ``test`` and the
    fitted params (``None`` when a class was missing from training: they are in a smaller class space).
    """
    starts = list(starts) if starts is not None else [None] * len(splits)
    problems = [_problem(dsg, codes, n_classes, train) for codes, n_classes, train, _ in splits]
    params: list = [None] * len(splits)
    batches: dict[int, list[list[int]]] = {}
    for i, (_, rows, _, present) in enumerate(problems):
        # Stacked fits share their number of classes; a batch holds at most BATCH_ROWS rows.
        members = batches.setdefault(len(present), [[]])
        if members[-1] and sum(len(problems[j][1]) for j in members[-1]) + len(rows) > BATCH_ROWS:
            members.append([])
        members[-1].append(i)
    with one_blas_thread():
        for k, groups in batches.items():
            for members in groups:
                fitted = fit_many([(problems[i][0][problems[i][1]], problems[i][2]) for i in members], C,
                                  [starts[i] if k == splits[i][1] else None for i in members])
                for i, p in zip(members, fitted, strict=True):
                    params[i] = p
    out = []
    for (X, _, _, present), (_, n_classes, _, test), p in zip(problems, splits, params, strict=True):
        predicted = present[_predict(p, X[dsg.inverse[test]], len(present))]
        out.append((predicted, p if len(present) == n_classes else None))
    return out


def _codes(labels) -> tuple[np.ndarray, np.ndarray]:
    classes, codes = np.unique(np.asarray(labels, dtype=str), return_inverse=True)
    return classes, codes


def train_test_predict_many(dsg: Design, codes: np.ndarray, n_classes: int, splits, *, C: float) -> list[np.ndarray]:
    """:func:`train_test_predict` on integer-coded labels (``0 .. n_classes - 1``), for many splits at once.

    For callers that fit many splits of one corpus: the labels are coded
    once, and the fits are stacked (:func:`fit_many`). ``splits`` holds
    ``(train, test)`` row positions; returns the predicted codes of each
    split's test rows.
    """
    codes = np.asarray(codes)
    splits = [(codes, int(n_classes), np.asarray(train), np.asarray(test)) for train, test in splits]
    return [predicted for predicted, _ in _fit_splits(dsg, splits, C)]


def train_test_predict_codes(dsg: Design, codes: np.ndarray, n_classes: int, train: np.ndarray,
                             test: np.ndarray, *, C: float) -> np.ndarray:
    """:func:`train_test_predict_many` of one split."""
    return train_test_predict_many(dsg, codes, n_classes, [(train, test)], C=C)[0]


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


def cross_val_predict_many(dsg: Design, runs, *, n_splits: int, C: float,
                           warm_start: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`cross_val_predict` for several ``(labels, seed)`` runs on one corpus, fitted together.

    Every fold of every run is fitted in one stack (:func:`fit_many`, in
    batches of at most :data:`BATCH_ROWS` rows); each run's result is what
    :func:`cross_val_predict` gives it alone.

    Parameters
    ----------
    dsg : Design
    runs : sequence of (labels, seed)
        E.g. one label vector under several seeds (EAD stability), or
        permuted label vectors under one seed (the permutation null).
    n_splits : int
    C : float
    warm_start : bool, default True
        Start each fold's fit from the run's fit on every row (one fit per
        distinct label vector), as :func:`cross_val_predict` describes;
        otherwise from zero. The results are the same either way.

    Returns
    -------
    list of (predicted, fold)
        Per run, as :func:`cross_val_predict` returns them.
    """
    coded = [_codes(labels) for labels, _ in runs]
    n = dsg.n_rows
    starts: list = [None] * len(runs)
    if warm_start:  # one fit on every row per distinct label vector (runs over seeds share theirs)
        every_row = np.arange(n)
        keys = [codes.tobytes() + classes.tobytes() + np.float64(C).tobytes() for classes, codes in coded]
        start_of = dsg.every_row_fits
        missing = {key: run for key, run in zip(keys, coded, strict=True) if key not in start_of}
        fitted = _fit_splits(dsg, [(codes, len(classes), every_row, every_row[:0])
                                   for classes, codes in missing.values()], C)
        start_of.update({key: params for key, (_, params) in zip(missing, fitted, strict=True)})
        starts = [start_of[key] for key in keys]
    splits, where = [], []
    for r, ((classes, codes), (_, seed)) in enumerate(zip(coded, runs, strict=True)):
        cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
        for f, (train, test) in enumerate(cv.split(np.zeros((n, 1)), codes)):
            splits.append((codes, len(classes), train, test))
            where.append((r, f))
    fitted = _fit_splits(dsg, splits, C, [starts[r] for r, _ in where])
    predicted = [np.empty(n, dtype=np.int64) for _ in runs]
    fold = [np.full(n, -1, dtype=np.int64) for _ in runs]
    for (r, f), (pred, _), (_, _, _, test) in zip(where, fitted, splits, strict=True):
        predicted[r][test] = pred
        fold[r][test] = f
    return [(classes[p], fl) for (classes, _), p, fl in zip(coded, predicted, fold, strict=True)]


def cross_val_predict(dsg: Design, labels, *, seed: int, n_splits: int, C: float,
                      warm_start: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Stratified k-fold out-of-fold predictions of the decoder.

    The folds are ``StratifiedKFold(n_splits, shuffle=True,
    random_state=seed)``. With ``warm_start`` each fold's fit starts from
    the fit on every row, which is near each fold's optimum (about four
    Newton steps instead of six from zero). The optimum of a fold is unique
    and each fit runs to it (:data:`TOL`), so the start changes only how
    fast it is reached, not what a fold's model is or predicts.

    Returns
    -------
    predicted : ndarray of str, shape (n,)
    fold : ndarray of int, shape (n,)
    """
    return cross_val_predict_many(dsg, [(labels, seed)], n_splits=n_splits, C=C, warm_start=warm_start)[0]
