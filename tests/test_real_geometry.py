"""Anisotropy of emoji2vec (compendium.analyses.real.geometry) against a direct numpy computation."""

from __future__ import annotations

import numpy as np
import pytest

from compendium.analyses.real import DOES_NOT_HOLD, HOLDS, NOT_TESTABLE
from compendium.analyses.real import geometry as real_geometry
from compendium.data import corpora


def _pairwise(M):
    """Mean cosine over all ordered pairs i != j, from the full cosine matrix."""
    U = M / np.linalg.norm(M, axis=1, keepdims=True)
    S = U @ U.T
    n = len(M)
    return (S.sum() - np.trace(S)) / (n * (n - 1))


@pytest.fixture(scope="module")
def emoji2vec():
    _, vectors = corpora.load_emoji2vec()
    return vectors


def test_anisotropy_row_against_all_pairs(emoji2vec):
    sub = emoji2vec[:400]
    row = real_geometry.anisotropy_row(sub, "sub")
    assert row["raw"] == pytest.approx(_pairwise(sub), abs=1e-12)
    assert row["centred"] == pytest.approx(_pairwise(sub - sub.mean(axis=0)), abs=1e-12)
    assert row["removed_share"] == pytest.approx((row["raw"] - row["centred"]) / row["raw"])
    mean = sub.mean(axis=0)
    assert row["mean_energy_share"] == pytest.approx(mean @ mean / np.mean(np.sum(sub ** 2, axis=1)))


def test_rotation_is_orthogonal_and_leaves_anisotropy_unchanged(emoji2vec):
    q = real_geometry.random_rotation(300, seed=4)
    np.testing.assert_allclose(q.T @ q, np.eye(300), atol=1e-10)
    table = real_geometry.anisotropy_checks(emoji2vec, seed=4).set_index("space")
    assert table.loc["emoji2vec rotated", "raw"] == pytest.approx(table.loc["emoji2vec", "raw"], abs=1e-10)
    assert table.loc["emoji2vec rotated", "centred"] == pytest.approx(table.loc["emoji2vec", "centred"], abs=1e-10)
    # a per-dimension rescaling is not a rotation: the raw value moves
    assert abs(table.loc["emoji2vec rescaled", "raw"] - table.loc["emoji2vec", "raw"]) > 1e-3
    assert table.loc["emoji2vec", "n"] == 1661 and table.loc["emoji2vec", "dim"] == 300


def test_random_rotation_is_seeded():
    np.testing.assert_array_equal(real_geometry.random_rotation(5, seed=1), real_geometry.random_rotation(5, seed=1))
    assert not np.allclose(real_geometry.random_rotation(5, seed=1), real_geometry.random_rotation(5, seed=2))


def test_verdict_mean_offset_both_sides():
    assert real_geometry.verdict_mean_offset(0.2, 0.01) == HOLDS  # 95 % removed
    assert real_geometry.verdict_mean_offset(0.2, 0.03) == DOES_NOT_HOLD  # 85 % removed
    assert real_geometry.verdict_mean_offset(0.2, -0.0004) == HOLDS
    assert real_geometry.verdict_mean_offset(0.04, 0.0) == NOT_TESTABLE


def test_a_space_whose_anisotropy_centring_does_not_remove():
    # two tight clusters on opposite-but-not-symmetric directions: the anisotropy is between-cluster
    # structure, not one offset; centring leaves most of it (the verdict can fail)
    rng = np.random.default_rng(0)
    a = np.array([1.0, 0.0]) + 0.01 * rng.standard_normal((90, 2))
    b = np.array([0.0, 1.0]) * 5 + 0.01 * rng.standard_normal((10, 2))
    X = np.vstack([a, b])
    row = real_geometry.anisotropy_row(X, "toy")
    assert real_geometry.verdict_mean_offset(row["raw"], row["centred"]) == DOES_NOT_HOLD
