"""The one emoji decoder (compendium.stats.decoder) against scikit-learn, its reference.

scikit-learn's ``LogisticRegression(class_weight="balanced")`` minimises the
same objective; run to a tight tolerance it is the optimum the decoder must
reach. ``TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True)`` is the
reference of the features (also checked per fold in test_decodability.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from compendium.stats import decoder
from compendium.analyses.emoji import emoji_analyzer

# Compares floats from CPU-dispatched code with outside values (the emoji decoder's optimum against scikit-
# learn's LogisticRegression (BLAS, lbfgs)); make test runs this module again under the narrow CPU profile
# (tests/narrow_cpu.py).
pytestmark = pytest.mark.numerics

EMOJIS = ["😀", "😢", "😡", "😱", "😍", "😮", "🤢", "😐", "❤️", "🎉", "👩\u200d💻", "🇧🇩"]


def _corpus(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """Emoji outputs whose first emoji leans towards the label; many outputs repeat."""
    rng = np.random.default_rng(seed)
    labels = np.array(["anger", "fear", "joy", "sadness", "surprise"])[rng.choice(5, size=n, p=[.1, .15, .4, .2, .15])]
    code = {lab: i for i, lab in enumerate(sorted(set(labels)))}
    texts = []
    for lab in labels:
        first = EMOJIS[code[lab]] if rng.random() < 0.55 else EMOJIS[rng.integers(len(EMOJIS))]
        rest = "".join(rng.choice(EMOJIS, size=rng.integers(0, 3)))
        texts.append(first * int(rng.integers(1, 3)) + rest if rng.random() > 0.03 else "no emoji")
    return texts, labels


def _reference(texts, labels, train, test, C):
    model = make_pipeline(TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True),
                          LogisticRegression(C=C, class_weight="balanced", max_iter=100_000, tol=1e-12))
    texts = np.array(texts, dtype=object)
    model.fit(texts[train], labels[train])
    return model


def test_design_merges_identical_rows_only():
    texts = ["😀😀", "😀😀", "😀", "😢😀", "😀😢", "", "no emoji"]
    dsg = decoder.design(texts, emoji_analyzer)
    # "😀😀" twice; "😢😀" and "😀😢" count the same; "" and "no emoji" have no emoji
    assert dsg.unique.shape[0] == 4
    assert dsg.n_rows == 7
    assert dsg.inverse[0] == dsg.inverse[1] != dsg.inverse[2]
    assert dsg.inverse[3] == dsg.inverse[4] and dsg.inverse[5] == dsg.inverse[6]
    np.testing.assert_array_equal(dsg.unique[dsg.inverse].toarray(),
                                  [[2, 0], [2, 0], [1, 0], [1, 1], [1, 1], [0, 0], [0, 0]])


def test_merged_rows_give_the_same_objective_and_gradient():
    rng = np.random.default_rng(0)
    X = sparse.random(40, 6, density=0.3, format="csr", random_state=1)
    y = rng.integers(0, 3, size=40)
    rows = np.concatenate([np.arange(40), np.arange(10)])  # the first ten rows twice
    T_long = np.zeros((50, 3))
    T_long[np.arange(50), y[rows]] = 1.0
    T_merged = np.zeros((40, 3))
    np.add.at(T_merged, (rows, y[rows]), 1.0)
    params = rng.standard_normal(7 * 3)
    value_long, grad_long = decoder.loss_gradient(params, X[rows], T_long, 4.0)
    value_merged, grad_merged = decoder.loss_gradient(params, X, T_merged, 4.0)
    assert value_merged == pytest.approx(value_long, rel=1e-13)
    np.testing.assert_allclose(grad_merged, grad_long, rtol=1e-12, atol=1e-15)


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    X = sparse.random(30, 4, density=0.4, format="csr", random_state=3)
    T = rng.random((30, 3))
    params = rng.standard_normal(15)
    _, grad = decoder.loss_gradient(params, X, T, 2.0)
    h = 1e-6
    numeric = [(decoder.loss_gradient(params + h * e, X, T, 2.0)[0]
                - decoder.loss_gradient(params - h * e, X, T, 2.0)[0]) / (2 * h) for e in np.eye(15)]
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("dense_limit", [0, 10**9], ids=["sparse", "dense"])
@pytest.mark.parametrize("C", [0.5, 4.0])
def test_fit_reaches_scikit_learns_optimum(C, dense_limit, monkeypatch):
    monkeypatch.setattr(decoder, "DENSE_LIMIT", dense_limit)  # both ways of computing the products
    texts, labels = _corpus(600, seed=4)
    train, test = np.arange(450), np.arange(450, 600)
    model = _reference(texts, labels, train, test, C)
    vec, reference = model[0], model[1]
    dsg = decoder.design(texts, emoji_analyzer)
    classes, codes = np.unique(labels, return_inverse=True)
    counts = np.zeros((dsg.unique.shape[0], len(classes)))
    np.add.at(counts, (dsg.inverse[train], codes[train]), 1.0)
    balanced = len(train) / (len(classes) * counts.sum(axis=0))
    rows = np.flatnonzero(counts.sum(axis=1))
    X = decoder.fold_tfidf(dsg.unique, counts.sum(axis=1))
    info = {}
    params = decoder.fit(X[rows], counts[rows] * balanced, C, info=info)
    assert info["gradient"] <= decoder.TOL
    W = params[: X.shape[1] * len(classes)].reshape(X.shape[1], len(classes))
    columns = [list(dsg.vocabulary).index(e) for e in vec.get_feature_names_out()]
    # scikit-learn's lbfgs stops on its own ftol near 1e-6 of the optimum; ours is no worse
    np.testing.assert_allclose(W[columns], reference.coef_.T, atol=1e-5)
    theirs = np.zeros_like(W)
    theirs[columns] = reference.coef_.T
    theirs = np.concatenate([theirs.ravel(), reference.intercept_])
    T = counts[rows] * balanced
    assert decoder.loss_gradient(params, X[rows], T, C)[0] <= decoder.loss_gradient(theirs, X[rows], T, C)[0] + 1e-14
    unseen = np.setdiff1d(np.arange(X.shape[1]), columns)
    assert np.abs(W[unseen]).max(initial=0) == 0
    # intercepts: defined up to a common shift
    b = params[X.shape[1] * len(classes):]
    # Two optimisers (ours and lbfgs at tol 1e-10) meet at the optimum only to their stopping rules: the loss agrees
    # to 1e-14 (above), the intercepts, flat directions of it, to about its square root.
    np.testing.assert_allclose(b - b.mean(), reference.intercept_ - reference.intercept_.mean(), atol=1e-5)
    predicted = decoder.train_test_predict(dsg, labels, train, test, C=C)
    np.testing.assert_array_equal(predicted, model.predict(np.array(texts, dtype=object)[test]))


def test_cross_val_predict_matches_a_pipeline_per_fold_with_and_without_warm_starts():
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    texts, labels = _corpus(400, seed=5)
    pipe = make_pipeline(TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True),
                         LogisticRegression(C=4.0, class_weight="balanced", max_iter=100_000, tol=1e-12))
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=7)
    expected = cross_val_predict(pipe, np.array(texts, dtype=object), labels, cv=folds)
    dsg = decoder.design(texts, emoji_analyzer)
    for warm in (True, False):
        predicted, fold = decoder.cross_val_predict(dsg, labels, seed=7, n_splits=5, C=4.0, warm_start=warm)
        np.testing.assert_array_equal(predicted, expected)
        assert sorted(set(fold)) == [0, 1, 2, 3, 4]


def test_a_class_missing_from_training_is_never_predicted():
    texts, labels = _corpus(200, seed=6)
    train = np.flatnonzero(labels != "anger")
    test = np.arange(len(labels))
    predicted = decoder.train_test_predict(decoder.design(texts, emoji_analyzer), labels, train, test, C=4.0)
    assert "anger" not in set(predicted)
    model = _reference(texts, labels, train, test, 4.0)
    np.testing.assert_array_equal(predicted, model.predict(np.array(texts, dtype=object)))


def test_no_emoji_anywhere_predicts_the_balanced_intercept_model():
    labels = np.array(["joy"] * 6 + ["fear"] * 4)
    predicted = decoder.train_test_predict(
        decoder.design(["plain text"] * 10, emoji_analyzer), labels, np.arange(8), np.arange(8, 10), C=4.0
    )
    # balanced weights make both classes equally likely; argmax takes the first (sorted) class, as sklearn does
    X = sparse.csr_matrix((8, 1))
    reference = LogisticRegression(C=4.0, class_weight="balanced", tol=1e-12).fit(X, labels[:8])
    np.testing.assert_array_equal(predicted, reference.predict(sparse.csr_matrix((2, 1))))


def _problems(n_problems: int, seed: int):
    """Training problems of random splits of one corpus, as :func:`decoder._problem` builds them."""
    texts, labels = _corpus(500, seed=seed)
    dsg = decoder.design(texts, emoji_analyzer)
    classes, codes = np.unique(labels, return_inverse=True)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_problems):
        train = np.sort(rng.choice(len(texts), size=int(rng.integers(250, 450)), replace=False))
        X, rows, T, present = decoder._problem(dsg, codes, len(classes), train)
        out.append((X[rows], T))
    return out


@pytest.mark.parametrize("dense_limit", [0, 10**9], ids=["sparse", "dense"])
def test_fit_many_gives_each_problem_what_fit_gives_it_alone(dense_limit, monkeypatch):
    monkeypatch.setattr(decoder, "DENSE_LIMIT", dense_limit)
    problems = _problems(4, seed=8)  # different numbers of rows: the stack pads them
    alone_info = [{} for _ in problems]
    alone = [decoder.fit(X, T, 4.0, info=info) for (X, T), info in zip(problems, alone_info)]
    infos = [{} for _ in problems]
    stacked = decoder.fit_many(problems, 4.0, infos=infos)
    for a, b, (X, T), info, solo in zip(alone, stacked, problems, infos, alone_info):
        assert info["gradient"] <= decoder.TOL
        assert info["newton_steps"] == solo["newton_steps"]  # each problem stops on its own test
        np.testing.assert_allclose(b, a, atol=1e-7)
        assert np.abs(decoder.loss_gradient(b, X, T, 4.0)[1]).max() <= decoder.TOL


def test_fit_many_refuses_problems_of_different_shapes():
    (X, T), (X2, T2) = _problems(2, seed=9)
    with pytest.raises(ValueError, match="number of classes"):
        decoder.fit_many([(X, T), (X2, T2[:, :3])], 4.0)
    with pytest.raises(ValueError, match="number of features"):
        decoder.fit_many([(X, T), (X2[:, :-1], T2)], 4.0)


@pytest.mark.parametrize("batch_rows", [1, 10**9], ids=["one-fit-per-batch", "one-batch"])
def test_cross_val_predict_many_gives_each_run_what_it_gives_alone(batch_rows, monkeypatch):
    monkeypatch.setattr(decoder, "BATCH_ROWS", batch_rows)
    texts, labels = _corpus(400, seed=10)
    dsg = decoder.design(texts, emoji_analyzer)
    rng = np.random.default_rng(0)
    runs = [(labels, 1), (labels, 2), (labels[rng.permutation(len(labels))], 1)]
    together = decoder.cross_val_predict_many(dsg, runs, n_splits=5, C=4.0)
    for (y, seed), (predicted, fold) in zip(runs, together):
        alone, alone_fold = decoder.cross_val_predict(dsg, y, seed=seed, n_splits=5, C=4.0, warm_start=False)
        np.testing.assert_array_equal(predicted, alone)
        np.testing.assert_array_equal(fold, alone_fold)
    splits = [(np.arange(0, 300), np.arange(300, 400)), (np.arange(100, 400), np.arange(0, 100))]
    classes, codes = np.unique(labels, return_inverse=True)
    many = decoder.train_test_predict_many(dsg, codes, len(classes), splits, C=4.0)
    for (train, test), predicted in zip(splits, many):
        np.testing.assert_array_equal(classes[predicted], decoder.train_test_predict(dsg, labels, train, test, C=4.0))


def test_counts_are_count_vectorizers():
    """``_count`` against scikit-learn's ``CountVectorizer``, entry for entry and in the same order."""
    from sklearn.feature_extraction.text import CountVectorizer

    texts, _ = _corpus(300, seed=11)
    texts += ["", "no emoji", "😀😀😀"]
    counts, vocabulary = decoder._count([tuple(emoji_analyzer(t)) for t in texts])
    reference = CountVectorizer(analyzer=emoji_analyzer).fit(texts)
    expected = reference.transform(texts).tocsr()
    expected.sort_indices()
    assert list(vocabulary) == list(reference.get_feature_names_out())
    for mine, theirs in ((counts.indptr, expected.indptr), (counts.indices, expected.indices),
                         (counts.data, expected.data)):
        np.testing.assert_array_equal(mine, theirs)
    empty, none = decoder._count([(), ()])
    assert empty.shape == (2, 0) and len(none) == 0  # where CountVectorizer raises "empty vocabulary"


def _tfidf_by_sparse_products(unique, weight):
    """fold_tfidf as sparse-matrix products (the formulation its numpy code must equal bit for bit)."""
    present = unique.copy()
    present.data = np.ones_like(present.data)
    df = present.T @ weight
    idf = np.where(df > 0, np.log((1.0 + weight.sum()) / (1.0 + df)) + 1.0, 0.0)
    x = unique.copy()
    x.data = (1.0 + np.log(x.data)) * idf[x.indices]
    x.eliminate_zeros()
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    out = sparse.csr_matrix(sparse.diags(1.0 / norms) @ x)
    out.sort_indices()
    return out


def test_fold_tfidf_is_the_sparse_product_formulation_and_the_vectorizer():
    texts, labels = _corpus(400, seed=12)
    dsg = decoder.design(texts, emoji_analyzer)
    train = np.arange(0, 400, 3)
    weight = np.bincount(dsg.inverse[train], minlength=dsg.unique.shape[0]).astype(float)
    mine, theirs = decoder.fold_tfidf(dsg.unique, weight), _tfidf_by_sparse_products(dsg.unique, weight)
    for a, b in ((mine.indptr, theirs.indptr), (mine.indices, theirs.indices), (mine.data, theirs.data)):
        np.testing.assert_array_equal(a, b)
    vectorizer = TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True).fit(np.array(texts, dtype=object)[train])
    columns = [list(dsg.vocabulary).index(term) for term in vectorizer.get_feature_names_out()]
    np.testing.assert_allclose(mine[dsg.inverse][:, columns].toarray(),
                               vectorizer.transform(texts).toarray(), atol=1e-12)


def test_stacked_designs_are_scipys_block_diagonal():
    """``_stacked_blocks`` builds, entry for entry, what ``sparse.block_diag`` of the padded blocks gives."""
    designs = [sparse.random(40 + 9 * g, 12, density=0.2, random_state=g, format="csr") for g in range(3)]
    n = max(X.shape[0] for X in designs)
    X1, Xm = decoder._stacked_blocks(designs, n, 12)
    blocks, squares = [], []
    for X in designs:
        X = sparse.vstack([X, sparse.csr_matrix((n - X.shape[0], 12))], format="csr")
        per_row = np.diff(X.indptr).astype(float)
        squares.append(sparse.csr_matrix(X.multiply(X).multiply(per_row[:, None])))
        blocks.append(sparse.hstack([X, np.ones((n, 1))], format="csr"))
    for mine, theirs in ((X1, sparse.block_diag(blocks, format="csr")), (Xm, sparse.block_diag(squares, format="csr"))):
        assert mine.shape == theirs.shape
        for a, b in ((mine.indptr, theirs.indptr), (mine.indices, theirs.indices), (mine.data, theirs.data)):
            np.testing.assert_array_equal(a, b)


def test_a_designs_fit_on_every_row_is_made_once(monkeypatch):
    texts, labels = _corpus(300, seed=13)
    dsg = decoder.design(texts, emoji_analyzer)
    first = decoder.cross_val_predict(dsg, labels, seed=0, n_splits=5, C=4.0)
    calls = []
    fit_splits = decoder._fit_splits
    monkeypatch.setattr(
        decoder, "_fit_splits", lambda d, splits, *a: calls.append(len(splits)) or fit_splits(d, splits, *a)
    )
    again = decoder.cross_val_predict(dsg, labels, seed=0, n_splits=5, C=4.0)
    assert calls == [0, 5]  # no fit on every row this time, the five folds
    decoder.cross_val_predict(dsg, labels, seed=0, n_splits=5, C=2.0)
    assert calls[2:] == [1, 5]  # another C is another fit
    fresh = decoder.cross_val_predict(decoder.design(texts, emoji_analyzer), labels, seed=0, n_splits=5, C=4.0)
    for result in (again, fresh):
        np.testing.assert_array_equal(result[0], first[0])
        np.testing.assert_array_equal(result[1], first[1])
