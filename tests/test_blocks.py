"""The block elimination of the mixed-model engine taken a chunk at a time (compendium.stats.blocks).

A study of many blocks is factored in chunks, on threads: the chunks' sums must give what one chunk gives
(to rounding), the same to the last bit whatever the number of threads, and the engine's other factorisation
(sparse LU) must agree; the batched triangular inverse must be numpy's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from compendium.simulate.crossed import simulate_incomplete
from compendium.stats import blocks as B
from compendium.stats import gstudy as G
from compendium.stats import mixed as M

# Compares floats from CPU-dispatched code with outside values (the chunked block elimination against one
# chunk, sparse LU and numpy's inverse (BLAS, LAPACK)); make test runs this module again under the narrow CPU
# profile (tests/narrow_cpu.py).
pytestmark = pytest.mark.numerics


def _model(raters_per_item=None, **kw):
    """A G-study model of 60 items x 4 systems, from 6 raters (all of them, or a few per item: compact)."""
    options = {"raters_per_item": raters_per_item} if raters_per_item else {"missing": 0.3}
    d = simulate_incomplete(60, 4, 6, seed=3, scale=(1, 5), item="item", rater="rater", **options)
    d = G._canonical(d, "item", "system", "rater", "rating")
    y, X, terms = d["rating"].to_numpy(dtype=float), G._design(d, pd.Index(np.sort(d["system"].unique()))), G._terms(d)
    return lambda **force: M._Factor(y, X, terms, **force), y


@pytest.mark.parametrize("raters_per_item", [None, 2], ids=["dense couplings", "compact couplings"])
@pytest.mark.parametrize("grad", ["reml", "ml"])
def test_chunks_on_threads_give_one_chunks_factorisation(monkeypatch, raters_per_item, grad):
    build, _ = _model(raters_per_item)
    one = build()
    assert len(one.blocks.chunks) == 1 and (one.blocks.pairs is not None) is bool(raters_per_item)
    theta = np.array([0.9, 0.3, 0.6, 0.4, 0.2])
    whole = one.solve(theta, cov=True, grad=grad)
    monkeypatch.setattr(B, "CHUNK_BYTES", one.blocks.m * one.blocks.width * 8 * 7)  # 7 blocks a chunk
    results = {}
    for threads in (1, 2):
        monkeypatch.setattr(B, "THREADS", threads)
        chunked = build()
        assert len(chunked.blocks.chunks) == 9
        results[threads] = chunked.solve(theta, cov=True, grad=grad)
    for key in ("pwrss", "logdet_theta", "logdet_x"):
        assert results[1][key] == results[2][key]  # summed in chunk order, whatever the threads
        assert results[1][key] == pytest.approx(whole[key], rel=1e-12)
    for key in ("beta", "u", "unscaled_cov", "grad"):
        np.testing.assert_array_equal(results[1][key], results[2][key])
        np.testing.assert_allclose(results[1][key], whole[key], rtol=1e-9, atol=1e-12)
    # And the sparse-LU factorisation, which has no blocks, agrees with both.
    lu = build(force="splu").solve(theta, cov=True)
    np.testing.assert_allclose(results[2]["u"], lu["u"], rtol=1e-8, atol=1e-10)
    assert results[2]["pwrss"] == pytest.approx(lu["pwrss"], rel=1e-10)


def test_the_analytic_gradient_on_chunks_is_the_deviances_slope(monkeypatch):
    monkeypatch.setattr(B, "CHUNK_BYTES", 19 * 50 * 8 * 5)
    build, _ = _model()
    model = build()
    assert len(model.blocks.chunks) > 1
    theta = np.array([0.2, 1.1, 0.05, 0.7, 0.3])
    for reml in (True, False):
        _, grad = model.deviance_and_grad(theta, reml)
        numeric = M._jacobian(lambda t: model.deviance(t, reml), theta).ravel()
        np.testing.assert_allclose(grad, numeric, rtol=1e-6)


def test_a_fit_on_chunks_is_the_fit_on_one(monkeypatch):
    build, y = _model()
    whole = M._fit(build(), reml=True, start=None)
    monkeypatch.setattr(B, "CHUNK_BYTES", 19 * 50 * 8 * 5)
    monkeypatch.setattr(B, "THREADS", 2)
    chunked = M._fit(build(), reml=True, start=None)
    assert chunked.deviance == pytest.approx(whole.deviance, rel=1e-12)
    # The deviances agree to rounding; the variances are where the optimiser stops on a flat surface: a deviance
    # change of 1e-12 relative allows parameter changes of about its square root, so 1e-5.
    np.testing.assert_allclose(chunked.variances, whole.variances, rtol=1e-5)


def test_batched_triangular_inverse_is_numpys_inverse():
    rng = np.random.default_rng(0)
    for m in (1, 2, 7, 19):
        L = np.tril(rng.normal(size=(50, m, m)))
        L[:, np.arange(m), np.arange(m)] = rng.uniform(0.5, 3.0, (50, m))
        np.testing.assert_allclose(B.tri_inv(L), np.linalg.inv(L), rtol=1e-12, atol=1e-12)
        assert np.all(np.triu(B.tri_inv(L), 1) == 0)


def test_integer_group_codes_are_pandas_groups_in_order_of_appearance():
    """gstudy combines integer codes instead of grouping labels: the codes must be groupby's ngroup."""
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"item": rng.choice(["b", "a", "c", "d"], 200), "system": rng.choice(["S2", "S1", "S3"], 200),
                      "rater": rng.integers(0, 5, 200)})
    for roles in (("item",), ("item", "system"), ("item", "rater"), ("system", "rater")):
        codes, n = G._group_codes(d, roles)
        expected = d.groupby(list(roles), sort=False).ngroup().to_numpy()
        np.testing.assert_array_equal(codes, expected)
        assert n == expected.max() + 1


@pytest.mark.parametrize("reml", [True, False])
def test_the_unprofiled_deviances_gradient_and_hessian_are_its_finite_differences(reml):
    """variance_parameters differentiates the analytic gradient of the deviance in (theta, sigma) on the block
    path: the gradient must be the deviance's slope, and its Jacobian the deviance's numDeriv-style Hessian."""
    build, y = _model()
    fit = M._fit(build(), reml=reml, start=None)
    model = fit.model
    for varpar in (np.r_[fit.theta, np.sqrt(fit.sigma2)], np.array([0.7, 0.4, 0.5, 0.3, 0.6, 1.1])):
        grad = model.deviance_vp_grad(varpar, reml)
        numeric = M._jacobian(lambda v: model.deviance_vp(v, reml), varpar).ravel()
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-6)
        H = M._jacobian(lambda v: model.deviance_vp_grad(v, reml), varpar, r=2)
        Hn = M._hessian(lambda v: model.deviance_vp(v, reml), varpar)
        # Two finite-difference Hessians (Richardson on the gradient against numDeriv's on the deviance): their
        # truncation errors, not the host, set the 1e-5 relative (1e-4 of the largest entry for entries near 0).
        np.testing.assert_allclose((H + H.T) / 2, Hn, rtol=1e-5, atol=1e-4 * np.abs(Hn).max())
