"""Rater-pair statistics computed for many pairs at once (compendium.stats.pairs), against scipy pair by pair."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from compendium.stats import pairs

# Compares floats from CPU-dispatched code with outside values (rater-pair r, tau and their p-values against
# scipy pair by pair); make test runs this module again under the narrow CPU profile (tests/narrow_cpu.py).
pytestmark = pytest.mark.numerics


def _raters(rng, n_raters, n_units, missing, levels):
    matrix = rng.integers(1, levels + 1, (n_raters, n_units)).astype(float)
    matrix[rng.random(matrix.shape) < missing] = np.nan
    matrix[0] = 3.0  # a constant rater
    return matrix


def _scipy(function, matrix, i, j):
    out = []
    for a, b in zip(i, j):
        both = ~np.isnan(matrix[a]) & ~np.isnan(matrix[b])
        x, y = matrix[a, both], matrix[b, both]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if function is stats.pearsonr and (both.sum() < 2 or np.ptp(x) == 0 or np.ptp(y) == 0):
                out.append((both.sum(), np.nan, np.nan))
                continue
            res = function(x, y)
        out.append((both.sum(), float(res.statistic), float(res.pvalue)))
    return np.array(out, dtype=float).T


@pytest.mark.parametrize("missing", [0.0, 0.3])
def test_pearson_is_scipys_pair_by_pair(missing):
    rng = np.random.default_rng(0)
    matrix = _raters(rng, 30, 12, missing, 5)
    matrix[1, :10] = np.nan  # two units shared at most: r is +-1 and p is 1
    i, j, total = pairs.choose_pairs(30)
    assert total == 435 and len(i) == 435
    n, r, p = pairs.pearson(matrix, i, j)
    n0, r0, p0 = _scipy(stats.pearsonr, matrix, i, j)
    np.testing.assert_array_equal(n, n0)
    # r: sums of a dozen small whole numbers in another order (einsum's SIMD loops against scipy's), so both
    # are within a few ulps of the exact r.
    np.testing.assert_allclose(r, r0, rtol=1e-12, atol=1e-14, equal_nan=True)
    # p is the beta(n/2 - 1) tail at |r|. Away from |r| = 1 it is smooth in r (a few ulps of r move it by far
    # less than 1e-9 relatively). At a perfect correlation (exact p = 0) the tail's density is infinite for
    # n = 3: an ulp of r on either side, which the host's SIMD width decides, gives p = 0 or 1.3e-8 (seen
    # under the narrow CPU profile), so there both are only required to be near 0. (Two shared units give
    # r = +-1 and p = 1 by definition, compared exactly with the rest.)
    perfect = (np.abs(r0) > 1 - 1e-12) & (n0 > 2)
    assert perfect.any() == (missing > 0)  # with missing ratings, pair 345 shares 3 units on a line
    np.testing.assert_allclose(p[~perfect], p0[~perfect], rtol=1e-9, atol=1e-14, equal_nan=True)
    assert (p[perfect] < 1e-6).all() and (p0[perfect] < 1e-6).all()
    assert np.isnan(r).any() and not np.isnan(r).all()


@pytest.mark.parametrize(
    "n_systems,levels,missing", [(2, 5, 0.0), (5, 3, 0.0), (8, 4, 0.2), (40, 50, 0.0), (40, 6, 0.1)]
)
def test_kendall_tau_b_is_scipys_pair_by_pair(n_systems, levels, missing):
    """Few systems (exact p-values), ties (the normal approximation with its tie correction), more than 33
    systems without ties (normal approximation), and missing systems (each pair on those both have)."""
    rng = np.random.default_rng(n_systems)
    matrix = _raters(rng, 25, n_systems, missing, levels)
    i, j, _ = pairs.choose_pairs(25)
    n, tau, p = pairs.kendall_tau_b(matrix, i, j)
    n0, tau0, p0 = _scipy(stats.kendalltau, matrix, i, j)
    np.testing.assert_array_equal(n, n0)
    np.testing.assert_allclose(tau, tau0, rtol=1e-12, atol=1e-14, equal_nan=True)
    np.testing.assert_allclose(p, p0, rtol=1e-9, atol=1e-14, equal_nan=True)


def test_a_pairs_position_is_its_place_in_the_upper_triangle():
    for n in (2, 3, 10, 101, 4473):
        i, j = np.triu_indices(n, 1)
        k = np.arange(len(i)) if len(i) < 10**6 else np.r_[0:1000, len(i) - 1000:len(i)]
        a, b = pairs.pair_of(k, n)
        np.testing.assert_array_equal(a, i[k])
        np.testing.assert_array_equal(b, j[k])


def test_above_the_limit_a_seeded_sample_of_distinct_pairs():
    i, j, total = pairs.choose_pairs(10_000, max_pairs=5000, seed=3)
    assert total == 49_995_000 and len(i) == 5000
    assert np.all(i < j) and np.all(j < 10_000)
    assert len(set(zip(i.tolist(), j.tolist()))) == 5000
    k = i.astype(np.int64) * (2 * 10_000 - i - 1) // 2 + (j - i - 1)
    assert np.all(np.diff(k) > 0)  # in order
    again = pairs.choose_pairs(10_000, max_pairs=5000, seed=3)
    np.testing.assert_array_equal(again[0], i)
    other = pairs.choose_pairs(10_000, max_pairs=5000, seed=4)
    assert not np.array_equal(other[1], j)
    # Uniform: each rater appears about equally often (2 x 5000 / 10^4 = 1 per rater): rows 0-4999 get half.
    assert abs((np.r_[i, j] < 5000).mean() - 0.5) < 0.03
