"""Tests for compendium.analyses.geometry (paper section 7).

Anisotropy is checked against the brute-force mean of the cosines of all
ordered pairs i != j; the Fisher ratio against a 2-D example worked by hand;
the classifiers on data with planted language and emotion structure and on
data without any.
"""

from __future__ import annotations

import doctest
import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from compendium.analyses import geometry
from compendium.analyses.geometry import (
    anisotropy,
    anisotropy_probe_correlation,
    anisotropy_table,
    centred_anisotropy,
    emotion_probe,
    fisher_ratio,
    language_separability,
    probe_table,
    separability_table,
)


def brute_force_anisotropy(X) -> float:
    """Mean cosine over all ordered pairs i != j, one pair at a time."""
    X = np.asarray(X, dtype=np.float64)
    cosines = [
        X[i] @ X[j] / (np.linalg.norm(X[i]) * np.linalg.norm(X[j]))
        for i, j in itertools.permutations(range(len(X)), 2)
    ]
    return float(np.mean(cosines))


# ------------------------------------------------------------------ anisotropy
@pytest.mark.parametrize("n, dim, seed", [(2, 3, 0), (7, 5, 1), (40, 16, 2), (33, 64, 3)])
def test_anisotropy_equals_brute_force_mean_pairwise_cosine(n, dim, seed):
    X = np.random.default_rng(seed).normal(size=(n, dim))
    assert anisotropy(X) == pytest.approx(brute_force_anisotropy(X), abs=1e-12)


@pytest.mark.parametrize("n, dim, seed", [(3, 3, 4), (25, 8, 5), (40, 30, 6)])
def test_centred_anisotropy_equals_brute_force_on_centred_rows(n, dim, seed):
    X = np.random.default_rng(seed).normal(loc=0.7, size=(n, dim))
    expected = brute_force_anisotropy(X - X.mean(axis=0))
    assert centred_anisotropy(X) == pytest.approx(expected, abs=1e-12)
    assert centred_anisotropy(X) != pytest.approx(anisotropy(X), abs=1e-3)  # centring the offset 0.7 matters


def test_large_common_offset_dominates_raw_but_not_centred_anisotropy():
    rng = np.random.default_rng(7)
    direction = rng.normal(size=24)
    X = rng.normal(size=(45, 24)) + 40.0 * direction / np.linalg.norm(direction)
    raw = anisotropy(X)
    assert raw == pytest.approx(brute_force_anisotropy(X), abs=1e-12)
    assert raw > 0.98  # about 40^2 / (40^2 + 24)
    centred = centred_anisotropy(X)
    assert centred == pytest.approx(brute_force_anisotropy(X - X.mean(axis=0)), abs=1e-12)
    assert abs(centred) < 0.05
    # Adding the offset changes raw anisotropy, not the centred value.
    assert centred == pytest.approx(centred_anisotropy(X - 40.0 * direction / np.linalg.norm(direction)), abs=1e-12)


def test_float32_input_is_accumulated_in_float64():
    rng = np.random.default_rng(8)
    X32 = (rng.normal(size=(500, 64)) + 3.0).astype(np.float32)
    # The same numbers as float64 give the same result to the last bit.
    assert anisotropy(X32) == anisotropy(X32.astype(np.float64))
    assert centred_anisotropy(X32) == centred_anisotropy(X32.astype(np.float64))


def test_centred_rows_of_equal_norm_hit_the_floor_minus_one_over_n_minus_one():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]]) + [5.0, -2.0]
    assert centred_anisotropy(X) == pytest.approx(-1 / 3, abs=1e-15)
    assert anisotropy([[1.0, 0.0], [1.0, 0.0], [2.0, 0.0]]) == pytest.approx(1.0)


def test_anisotropy_rejects_degenerate_input():
    with pytest.raises(ValueError, match="zero norm"):
        anisotropy([[1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="two rows"):
        anisotropy([[1.0, 0.0]])
    with pytest.raises(ValueError, match="NaN"):
        anisotropy([[1.0, np.nan], [0.0, 1.0]])


def test_anisotropy_table_per_encoder_in_schema_order():
    rng = np.random.default_rng(9)
    frames = {
        "qwen3-embedding-8b": pd.DataFrame(rng.normal(size=(30, 6)) + 2.0, index=[f"s{i}" for i in range(30)]),
        "gemini-embedding-001": pd.DataFrame(rng.normal(size=(30, 4)), index=[f"s{i}" for i in range(30)]),
    }
    table = anisotropy_table(frames)
    assert list(table.index) == ["gemini-embedding-001", "qwen3-embedding-8b"]
    assert table.loc["qwen3-embedding-8b", "dim"] == 6
    for encoder, X in frames.items():
        assert table.loc[encoder, "raw"] == pytest.approx(brute_force_anisotropy(X), abs=1e-12)
        assert table.loc[encoder, "centred"] == pytest.approx(centred_anisotropy(X), abs=1e-15)
    assert table["equal_norm_floor"].tolist() == pytest.approx([-1 / 29, -1 / 29])


# ------------------------------------------------------------------ Fisher ratio
def test_fisher_ratio_on_a_hand_made_2d_example():
    # Group a: (0,0), (2,0), mean (1,0). Group b: (4,1), (4,3), (4,5), mean (4,3).
    # Grand mean (14/5, 9/5) = (2.8, 1.8).
    # tr S_B = 2 * ((1-2.8)^2 + (0-1.8)^2) + 3 * ((4-2.8)^2 + (3-1.8)^2)
    #        = 2 * (3.24 + 3.24) + 3 * (1.44 + 1.44) = 12.96 + 8.64 = 21.6
    # tr S_W = (1 + 1) + (4 + 0 + 4) = 10
    # Check: total scatter about the grand mean = 11.08 + 3.88 + 2.08 + 2.88 + 11.68 = 31.6 = 21.6 + 10.
    X = np.array([[0.0, 0.0], [2.0, 0.0], [4.0, 1.0], [4.0, 3.0], [4.0, 5.0]])
    groups = ["a", "a", "b", "b", "b"]
    assert fisher_ratio(X, groups) == pytest.approx(21.6 / 10.0, rel=1e-14)
    # Invariant to translation, rotation and common scaling.
    angle = 0.7
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    assert fisher_ratio(3.0 * X @ rotation + [10.0, -4.0], groups) == pytest.approx(2.16, rel=1e-12)


def test_fisher_ratio_is_zero_when_group_means_coincide():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    assert fisher_ratio(X, ["a", "a", "b", "b"]) == pytest.approx(0.0, abs=1e-15)
    with pytest.raises(ValueError, match="two groups"):
        fisher_ratio(X, ["a"] * 4)


# ------------------------------------------------------------------ language separability
def _planted(n_per: int, dim: int, separation: float, seed: int):
    rng = np.random.default_rng(seed)
    languages = np.repeat(["bn", "en", "hi"], n_per)
    centres = rng.normal(size=(3, dim))
    centres *= separation / np.linalg.norm(centres, axis=1, keepdims=True)
    codes = np.repeat(np.arange(3), n_per)
    X = rng.normal(size=(3 * n_per, dim)) + centres[codes] + 5.0  # plus a common offset
    return X, languages


def test_planted_language_clusters_are_separable():
    X, languages = _planted(50, 20, separation=8.0, seed=10)
    result = language_separability(X, languages, seed=0)
    assert result["accuracy"] == 1.0
    assert result["accuracy_fold_mean"] == 1.0 and result["accuracy_fold_sd"] == 0.0
    assert result["fisher"] > 1.0
    assert result["chance"] == pytest.approx(1 / 3)


def test_no_language_structure_gives_chance_accuracy_and_tiny_fisher():
    X, languages = _planted(50, 20, separation=0.0, seed=11)
    result = language_separability(X, languages, seed=0)
    assert result["accuracy"] < 0.55
    assert result["fisher"] < 0.05


def test_separability_aligns_languages_by_index_not_position():
    X, languages = _planted(40, 10, separation=6.0, seed=12)
    ids = [f"s{i:03d}" for i in range(len(X))]
    frame = pd.DataFrame(X, index=ids)
    shuffled = pd.Series(languages, index=ids).sample(frac=1.0, random_state=1)
    aligned = language_separability(frame, shuffled, seed=3)
    assert aligned["accuracy"] == 1.0
    # Positional use of the shuffled labels would destroy the structure.
    assert language_separability(X, shuffled.to_numpy(), seed=3)["accuracy"] < 0.6
    with pytest.raises(ValueError, match="no languages"):
        language_separability(frame, shuffled.iloc[1:], seed=3)


def test_gram_coordinates_give_the_same_classifier_as_the_wide_matrix():
    X, languages = _planted(20, 300, separation=1.0, seed=13)
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    Z = geometry._gram_coordinates(U)
    assert Z.shape[1] <= len(U) < U.shape[1]
    np.testing.assert_allclose(Z @ Z.T, U @ U.T, atol=1e-12)
    train, test = np.arange(0, 60, 2), np.arange(1, 60, 2)
    wide = LogisticRegression(C=1.0, max_iter=5000, tol=1e-10).fit(U[train], languages[train])
    narrow = LogisticRegression(C=1.0, max_iter=5000, tol=1e-10).fit(Z[train], languages[train])
    # Two lbfgs fits (tol 1e-10) of one problem in different coordinates: the scores agree to the optimiser's stopping
    # rule, about the square root of its tolerance, not to rounding.
    np.testing.assert_allclose(wide.decision_function(U[test]), narrow.decision_function(Z[test]), atol=1e-5)


def test_separability_table_uses_each_sentences_language():
    X, languages = _planted(30, 8, separation=6.0, seed=14)
    ids = [f"s{i:03d}" for i in range(len(X))]
    sentences = pd.DataFrame({"sentence_id": ids[::-1], "language": pd.Categorical(languages[::-1])})
    embeddings = {
        "mistral-embed-2312": pd.DataFrame(X, index=ids),
        "gemini-embedding-001": pd.DataFrame(np.random.default_rng(0).normal(size=X.shape), index=ids),
    }
    table = separability_table(embeddings, sentences, seed=0)
    assert list(table.index) == ["gemini-embedding-001", "mistral-embed-2312"]
    assert table.loc["mistral-embed-2312", "accuracy"] == 1.0
    assert table.loc["gemini-embedding-001", "accuracy"] < 0.6
    assert table.loc["gemini-embedding-001", "fisher"] < table.loc["mistral-embed-2312", "fisher"]
    assert table["n"].tolist() == [90, 90]


# ------------------------------------------------------------------ emotion probe
def _emotions(n_per: int, dim: int, strength: float, seed: int):
    rng = np.random.default_rng(seed)
    emotions = np.array(["anger", "fear", "joy", "sadness", "surprise"])
    labels = np.repeat(emotions, n_per)
    codes = np.repeat(np.arange(5), n_per)
    X = rng.normal(size=(5 * n_per, dim)) + strength * np.eye(5, dim)[codes] + 2.0
    return X, labels


def test_emotion_probe_finds_planted_emotions_and_not_absent_ones():
    X, labels = _emotions(30, 12, strength=6.0, seed=15)
    strong = emotion_probe(X, labels, seed=0)
    assert strong["n"] == 150 and strong["n_classes"] == 5
    assert strong["macro_f1"] > 0.9
    noise, _ = _emotions(30, 12, strength=0.0, seed=16)
    weak = emotion_probe(noise, labels, seed=0)
    assert weak["macro_f1"] < 0.4
    assert emotion_probe(X, labels, seed=0).equals(strong)  # deterministic given the seed


def test_emotion_probe_is_the_pooled_out_of_fold_macro_f1_of_the_papers_probe():
    X, labels = _emotions(24, 150, strength=1.5, seed=18)  # wide: 120 rows, 150 dimensions
    result = emotion_probe(X, labels, seed=4)
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=4)
    model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=5000)
    predicted = cross_val_predict(model, U, labels, cv=folds)
    assert result["macro_f1"] == pytest.approx(f1_score(labels, predicted, average="macro"), abs=1e-12)
    per_fold = [f1_score(labels[t], predicted[t], average="macro") for _, t in folds.split(U, labels)]
    assert result["macro_f1_fold_mean"] == pytest.approx(np.mean(per_fold), abs=1e-12)
    assert 0.3 < result["macro_f1"] < 0.95  # neither trivial nor chance


def test_probe_table_uses_only_geometry_sample_items_with_one_shared_emotion():
    X, labels = _emotions(20, 6, strength=6.0, seed=17)
    ids = [f"s{i:03d}" for i in range(len(X))]
    shared_single = np.ones(len(X), dtype=bool)
    shared_single[:7] = False  # e.g. multi-label or "love": not in the pooled probe
    sentences = pd.DataFrame(
        {"sentence_id": ids, "labels": labels, "shared_single": shared_single, "geometry_sample": True}
    )
    table = probe_table({"openai-3-small": pd.DataFrame(X, index=ids)}, sentences, seed=0)
    assert table.loc["openai-3-small", "n"] == len(X) - 7
    expected = emotion_probe(X[7:], labels[7:], seed=0)
    assert table.loc["openai-3-small", "macro_f1"] == pytest.approx(expected["macro_f1"])


def test_anisotropy_probe_correlation_is_pearson_over_encoders():
    table = pd.DataFrame(
        {"raw": [0.149, 0.150, 0.319, 0.574, 0.700], "macro_f1": [0.55, 0.58, 0.593, 0.290, 0.50]},
        index=["openai-3-small", "openai-3-large", "qwen3-embedding-8b", "gemini-embedding-001", "mistral-embed-2312"],
    )
    result = anisotropy_probe_correlation(table)
    r = np.corrcoef(table["raw"], table["macro_f1"])[0, 1]
    assert result["r"] == pytest.approx(r, abs=1e-12)
    # p from the t statistic with n - 2 = 3 degrees of freedom
    t = r * np.sqrt(3 / (1 - r**2))
    assert result["p"] == pytest.approx(2 * stats.t.sf(abs(t), 3), rel=1e-6)
    assert result["n"] == 5
    two_tables = anisotropy_probe_correlation(table[["raw"]], table[["macro_f1"]].iloc[::-1])
    assert two_tables["r"] == pytest.approx(r, abs=1e-12)


# ------------------------------------------------------------------ doctests
def test_docstring_examples_run():
    result = doctest.testmod(geometry, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10
    assert result.failed == 0
