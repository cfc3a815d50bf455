"""Linear mixed models by profiled REML, on sparse matrices (the formulation of lme4).

One engine for the book's mixed models: a linear model with fixed effects
given as a design matrix and any number of *independent* random-effect
terms, each either a random intercept for a grouping factor (crossed or
nested, any number) or an uncorrelated random slope (a grouping factor times
a covariate):

    y = X beta + sum_k Z_k b_k + e,   b_k ~ N(0, sigma^2 theta_k^2 I),  e ~ N(0, sigma^2 I).

The estimation follows Bates et al. (2015), sections 3.2-3.4 [Bates2015]_:
``Lambda = diag(theta_k)`` (the relative covariance factor; with
independent scalar terms it is diagonal), the penalised least-squares system

    M(theta) = [Lambda Z'Z Lambda + I,  Lambda Z'X]
               [X'Z Lambda,             X'X       ]

is factored for each ``theta``, and the profiled deviances are (their
eqs. 34 and 41)

    ML:   log|L_theta|^2 + n (1 + log(2 pi r2 / n))
    REML: log|L_theta|^2 + log|R_X|^2 + (n - p) (1 + log(2 pi r2 / (n - p)))

with ``L_theta`` the Cholesky factor of ``Lambda Z'Z Lambda + I``, ``R_X``
that of the Schur complement on ``X`` and ``r2`` the penalised residual sum
of squares. The deviance is even in each ``theta_k``; it is minimised by
L-BFGS-B (lme4 uses BOBYQA) with its analytic gradient,

    d dev / d theta_k = (2 / theta_k) (q_k - tr_k[C^-1] - N |u_k|^2 / r2),

``C = M`` and ``N = n - p`` for REML, ``C = Lambda Z'Z Lambda + I`` and
``N = n`` for ML (from ``d log|V| + d log|X'V^-1X| = tr(P dV)`` and
``Lambda Z' P Z Lambda = I - [M^-1]_uu``), without bounds, and ``|theta|``
is reported; on the sparse-LU path the gradient is numerical and a bounded
Nelder-Mead search polishes the result.

The factorisation (:class:`_Factor`) is a sparse Cholesky with a fixed,
structure-aware elimination order, which stands in for CHOLMOD (scikit-sparse
publishes no binary wheels, only a source distribution that needs SuiteSparse,
so it is not a dependency). The *blocking factor* is the grouping factor that
has the most random-effect columns nested in it (the item, in a rating study:
item, item x system and item x rater are all nested in item). Those columns
are eliminated first, block by block -- a batch of small dense Cholesky
factors, one per level of the blocking factor, padded to a common size with
identity rows -- and the remaining columns (the crossed terms and ``X``)
form a small dense Schur complement. On an incomplete design a block is
coupled only to some of the remaining columns (an item, only to its own
raters and their system x rater columns); when those are at most half of
them, each block's coupling is stored and multiplied on its own columns and
added into the Schur complement at their positions
(:data:`compendium.stats.blocks.MAX_COMPACT` bounds the memory this takes).
With crossed intercepts only, the block is the largest factor's diagonal,
exactly the closed-form elimination of the former ``length._crossed_lmm``.
The blocks are eliminated a chunk at a time, on up to two threads, with a
cost linear in the number of blocks (:mod:`compendium.stats.blocks`). When the remaining part would be large (more
than :data:`MAX_DENSE` columns), the engine instead factors the sparse
``Lambda Z'Z Lambda + I`` with SuperLU (``scipy.sparse.linalg.splu`` in
symmetric mode, minimum-degree ordering on ``A + A'``); the two paths agree to
rounding (tested).

:func:`satterthwaite` gives the Satterthwaite degrees of freedom of a
contrast of the fixed effects as lmerTest computes them [Kuznetsova2017]_:
the asymptotic covariance of the variance parameters ``(theta, sigma)`` is
twice the inverse Hessian of the (unprofiled) deviance, and the gradient of
``L' Cov(beta) L`` with respect to them is taken numerically (central
differences with Richardson extrapolation, as numDeriv's).

References
----------
.. [Bates2015] D. Bates, M. Maechler, B. Bolker and S. Walker, "Fitting
   linear mixed-effects models using lme4", Journal of Statistical Software
   67(1), 2015.
.. [Kuznetsova2017] A. Kuznetsova, P. B. Brockhoff and R. H. B. Christensen,
   "lmerTest package: tests in linear mixed effects models", Journal of
   Statistical Software 82(13), 2017.
.. [Satterthwaite1946] F. E. Satterthwaite, "An approximate distribution of
   estimates of variance components", Biometrics Bulletin 2(6), 1946.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy import optimize, stats
from scipy.sparse.linalg import splu

from compendium.stats._blas import one_blas_thread
from compendium.stats.blocks import BlockSystem, cho_solve
from compendium.stats.progress import Tracker

__all__ = [
    "MAX_DENSE",
    "RandomTerm",
    "MixedFit",
    "fit_lmm",
    "refit",
    "preconditioner",
    "variance_parameters",
    "satterthwaite",
    "satterthwaite_f",
    "fixed_effect_test",
]

#: Above this many columns outside the blocking factor, factor with sparse LU instead.
MAX_DENSE = 3000

@dataclass(frozen=True)
class RandomTerm:
    """One random-effect term: a random intercept, or a random slope when ``covariate`` is given.

    Parameters
    ----------
    name : str
        Label of the term (the variance component's name).
    group : array_like
        Grouping factor, one label per observation. A tuple of arrays is an
        interaction (each distinct combination is a level).
    covariate : array_like, optional
        For a random slope: the covariate that multiplies the group's effect.
    """

    name: str
    group: Any
    covariate: Any = None


@dataclass
class MixedFit:
    """The fitted model (:func:`fit_lmm`).

    Attributes
    ----------
    beta : ndarray
        Fixed effects.
    cov_beta : ndarray
        Their covariance, ``sigma^2 [M(theta)^-1]_XX`` (conditional on theta, as lme4's ``vcov``).
    sigma2 : float
        Residual variance.
    theta : ndarray
        Relative standard deviations of the terms.
    variances : pandas.Series
        ``sigma^2 theta_k^2`` per term, then ``residual``.
    deviance : float
        The profiled (RE)ML deviance at the optimum (``-2`` log-likelihood).
    loglik : float
    reml : bool
    n, p : int
    converged : bool
    n_evaluations : int
    path : str
        ``"block"`` or ``"splu"``: which factorisation was used.
    """

    beta: np.ndarray
    cov_beta: np.ndarray
    sigma2: float
    theta: np.ndarray
    variances: pd.Series
    deviance: float
    loglik: float
    reml: bool
    n: int
    p: int
    converged: bool
    n_evaluations: int
    path: str
    model: Any = field(repr=False, default=None)


def _codes(group) -> np.ndarray:
    if isinstance(group, tuple):
        frame = pd.DataFrame({i: np.asarray(g) for i, g in enumerate(group)})
        return frame.groupby(list(frame.columns), sort=False, dropna=False).ngroup().to_numpy()
    return pd.factorize(np.asarray(group), sort=False, use_na_sentinel=False)[0]


class _Factor:
    """The penalised least-squares system of one model, refactored for each theta."""

    def __init__(self, y, X, terms: Sequence[RandomTerm], *, force: str | None = None):
        y = np.asarray(y, dtype=float)
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[0] != len(y):
            raise ValueError(f"X must be an n x p matrix with n = len(y) = {len(y)}; got shape {X.shape}")
        if not np.isfinite(y).all() or not np.isfinite(X).all():
            raise ValueError("y and X must be finite (drop missing ratings first)")
        n, p = X.shape
        if not terms:
            raise ValueError("a mixed model needs at least one random term")
        if np.linalg.matrix_rank(X) < p:
            raise ValueError("the fixed-effects design matrix X is rank deficient")
        self.n, self.p, self.k = n, p, len(terms)
        self.names = [t.name for t in terms]
        codes, blocks, q = [], [], []
        for t in terms:
            c = _codes(t.group)
            x = np.ones(n) if t.covariate is None else np.asarray(t.covariate, dtype=float)
            if len(c) != n or len(x) != n:
                raise ValueError(f"random term {t.name!r}: group and covariate need one value per observation")
            if not np.isfinite(x).all():
                raise ValueError(f"random term {t.name!r}: the covariate must be finite")
            nq = int(c.max()) + 1 if n else 0
            codes.append(c)
            q.append(nq)
            blocks.append(sp.csc_matrix((x, (np.arange(n), c)), shape=(n, nq)))
        self.q = q
        self.col_term = np.repeat(np.arange(self.k), q)
        Z = sp.hstack(blocks, format="csc") if blocks else sp.csc_matrix((n, 0))
        # Blocking factor: the grouping factor with the most random columns nested in it.
        best, best_cols = None, 0
        for b in range(self.k):
            nested = [j for j in range(self.k) if _nested(codes[j], codes[b])]
            cols = sum(q[j] for j in nested)
            if cols > best_cols:
                best, best_cols = b, cols
        local = [j for j in range(self.k) if best is not None and _nested(codes[j], codes[best])]
        glob = [j for j in range(self.k) if j not in local]
        g_rand = sum(q[j] for j in glob)
        self.path = force or ("block" if g_rand + p <= MAX_DENSE else "splu")
        starts = np.r_[0, np.cumsum(q)]
        if self.path == "block":
            self.blocks = BlockSystem(Z, X, codes, self.col_term, starts, best, local, glob)
        elif self.path == "splu":
            self.ZtZ = (Z.T @ Z).tocsc()
            self.ZtX = np.asarray((Z.T @ X))
            self.XtX = X.T @ X
            self._Z, self._X = Z, X
        else:
            raise ValueError(f"unknown factorisation {force!r}")
        self._set_response(y)

    def _set_response(self, y: np.ndarray) -> None:
        """The parts of the system that depend on the response: ``y'y`` and the right-hand sides."""
        self.yty = float(y @ y)
        if self.path == "block":
            self.blocks.set_response(y)
        else:
            self.Zty = np.asarray(self._Z.T @ y).ravel()
            self.Xty = self._X.T @ y

    def with_response(self, y) -> _Factor:
        """The same model for a new response ``y`` (same design and terms): a copy that shares every
        matrix that does not depend on ``y``, so the design is not assembled again."""
        y = np.asarray(y, dtype=float)
        if y.shape != (self.n,) or not np.isfinite(y).all():
            raise ValueError(f"the new response must be {self.n} finite values; got shape {y.shape}")
        other = copy.copy(self)
        if self.path == "block":
            other.blocks = copy.copy(self.blocks)
        other._set_response(y)
        return other

    # -- one factorisation ---------------------------------------------------------------
    def solve(self, theta, cov: bool = False, grad: bool | str = False) -> dict[str, Any]:
        """Factor M(theta); ``grad="reml"``/``"ml"`` also returns the deviance's gradient (block path)."""
        theta = np.asarray(theta, dtype=float)
        if self.path == "block":
            return self.blocks.solve(theta, self.yty, cov, grad)
        return self._solve_splu(theta, cov)

    def _solve_splu(self, theta, cov):
        s = theta[self.col_term]
        Ls = sp.diags(s)
        A = (Ls @ self.ZtZ @ Ls + sp.identity(len(s))).tocsc()
        lu = splu(A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
        diag = lu.U.diagonal()
        if np.any(diag <= 0):
            raise np.linalg.LinAlgError("Lambda'Z'Z Lambda + I is not positive definite")
        logdet_theta = float(np.log(diag).sum())
        B = s[:, None] * self.ZtX
        rz = s * self.Zty
        sol = lu.solve(np.column_stack([B, rz]))
        AinvB, Ainvr = sol[:, :-1], sol[:, -1]
        S = self.XtX - B.T @ AinvB
        LX = np.linalg.cholesky(S)
        beta = cho_solve(LX, self.Xty - B.T @ Ainvr)
        u = Ainvr - AinvB @ beta
        pwrss = self.yty - float(u @ rz) - float(beta @ self.Xty)
        return {
            "beta": beta,
            "unscaled_cov": cho_solve(LX, np.eye(self.p)) if cov else None,
            "pwrss": max(pwrss, 1e-300),
            "logdet_theta": logdet_theta,
            "logdet_x": 2.0 * float(np.log(np.diag(LX)).sum()),
            "u": u,
        }

    # -- criteria ------------------------------------------------------------------------
    def deviance(self, theta, reml: bool) -> float:
        try:
            f = self.solve(theta)
        except np.linalg.LinAlgError:
            return np.inf
        n, p = self.n, self.p
        if reml:
            return f["logdet_theta"] + f["logdet_x"] + (n - p) * (1.0 + np.log(2.0 * np.pi * f["pwrss"] / (n - p)))
        return f["logdet_theta"] + n * (1.0 + np.log(2.0 * np.pi * f["pwrss"] / n))

    def deviance_and_grad(self, theta, reml: bool):
        try:
            f = self.solve(theta, grad="reml" if reml else "ml")
        except np.linalg.LinAlgError:
            return np.inf, np.zeros(self.k)
        n, p = self.n, self.p
        if reml:
            dev = f["logdet_theta"] + f["logdet_x"] + (n - p) * (1.0 + np.log(2.0 * np.pi * f["pwrss"] / (n - p)))
        else:
            dev = f["logdet_theta"] + n * (1.0 + np.log(2.0 * np.pi * f["pwrss"] / n))
        return float(dev), f["grad"]

    def deviance_vp(self, varpar, reml: bool) -> float:
        """lmerTest's ``devfun_vp``: the deviance at ``(theta, sigma)``, not profiled over sigma."""
        theta, sigma2 = np.asarray(varpar[:-1]), float(varpar[-1]) ** 2
        f = self.solve(theta)
        n, p = self.n, self.p
        dev = f["logdet_theta"] + f["pwrss"] / sigma2 + n * np.log(2.0 * np.pi * sigma2)
        if reml:
            dev += f["logdet_x"] - p * np.log(2.0 * np.pi * sigma2)
        return float(dev)

    def deviance_vp_grad(self, varpar, reml: bool) -> np.ndarray:
        """The gradient of :meth:`deviance_vp` (block path), from the parts of the profiled deviance's gradient:
        ``d (log|L|^2 [+ log|R_X|^2]) / d theta_k = (2 / theta_k)(q_k - tr_k)`` and ``d r2 / d theta_k =
        -2 |u_k|^2 / theta_k``, so ``(2 / theta_k)(q_k - tr_k - |u_k|^2 / sigma^2)``; and ``d / d sigma =
        2 N / sigma - 2 r2 / sigma^3``, ``N = n - p`` (REML) or ``n``."""
        theta, sigma = np.asarray(varpar[:-1], dtype=float), float(varpar[-1])
        f = self.solve(theta, grad="reml" if reml else "ml")
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(theta != 0, 2.0 / theta * (f["q"] - f["trace"] - f["uu"] / sigma**2), 0.0)
        N = self.n - self.p if reml else self.n
        return np.r_[g, 2.0 * N / sigma - 2.0 * f["pwrss"] / sigma**3]

    def cov_beta_vp(self, varpar) -> np.ndarray:
        return float(varpar[-1]) ** 2 * self.solve(np.asarray(varpar[:-1]), cov=True)["unscaled_cov"]


def _nested(inner: np.ndarray, outer: np.ndarray) -> bool:
    """True when every level of ``inner`` occurs with a single level of ``outer``.

    ``inner`` and ``outer`` are integer codes (:func:`_codes`). One outer
    level is stored per inner level (whichever assignment lands last); the
    factors are nested exactly when every observation's outer level equals
    the one stored for its inner level.
    """
    if len(inner) == 0:
        return True
    stored = np.empty(int(inner.max()) + 1, dtype=outer.dtype)
    stored[inner] = outer
    return bool(np.array_equal(stored[inner], outer))


def fit_lmm(
    y,
    X,
    terms: Sequence[RandomTerm],
    *,
    reml: bool = True,
    start: Sequence[float] | None = None,
    path: str | None = None,
) -> MixedFit:
    """Fit a linear mixed model with independent random terms by profiled (RE)ML.

    Parameters
    ----------
    y : array_like, shape (n,)
        Response.
    X : array_like, shape (n, p)
        Fixed-effects design matrix (full column rank).
    terms : sequence of RandomTerm
        Random intercepts (``covariate=None``) and uncorrelated random slopes.
    reml : bool, default True
        REML (lme4's default) or maximum likelihood.
    start : sequence of float, optional
        Starting relative SDs (default 1 for every term, as lme4).
    path : {"block", "splu"}, optional
        Force a factorisation (for tests); by default chosen from the structure.

    Returns
    -------
    MixedFit

    Notes
    -----
    Implements the profiled deviance of [Bates2015]_ (eqs. 34, 41); the
    estimates agree with ``lme4::lmer`` (tested on pinned R values).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> g = np.repeat(np.arange(30), 5)
    >>> y = 1.0 + rng.normal(0, 1, 30)[g] + rng.normal(0, 0.5, 150)
    >>> fit = fit_lmm(y, np.ones((150, 1)), [RandomTerm("group", g)])
    >>> fit.variances.round(2).to_dict()  # statsmodels' MixedLM gives the same
    {'group': 0.66, 'residual': 0.23}
    """
    with one_blas_thread():
        return _fit(_Factor(y, X, terms, force=path), reml=reml, start=start)


#: Stopping tests of the block path's L-BFGS-B (relative change of the deviance, largest gradient entry):
#: tight enough that the estimates agree with lme4's to the digits its tests pin.
FTOL, GTOL = 1e-15, 1e-9
#: The relative decrease of the deviance below which a block-path search stops is at least this times the
#: number of observations. The deviance sums terms over every observation, and its rounding error grows with
#: them: on 10^5 judgements (a G study, 30 % of cells missing) evaluations at one theta differ by about 1e-9
#: (4e-15 of the deviance), and below that L-BFGS-B's line search draws only noise: 97 evaluations with
#: ``FTOL`` alone, 51 with this floor, ending at the same theta to 1e-9. Below 10^4 observations (every
#: model of the book, and the real studies) ``FTOL`` holds.
FTOL_PER_OBSERVATION = 1e-19


def refit(fit: MixedFit, y, *, start: Sequence[float] | None = None, ftol: float = FTOL,
          gtol: float = GTOL, scale: np.ndarray | None = None) -> MixedFit:
    """Fit the model of ``fit`` again to a new response ``y``, reusing its assembled design.

    What :func:`fit_lmm` returns for ``y`` with the same ``X``, terms and
    criterion as ``fit``, without building the random-effects design again:
    only ``y'y`` and the right-hand sides are recomputed. A parametric
    bootstrap refits one design hundreds of times
    (:func:`compendium.stats.gstudy.g_bootstrap_ci`).

    Parameters
    ----------
    fit : MixedFit
        A fit of :func:`fit_lmm`.
    y : array_like, shape (n,)
        The new response, one value per observation of ``fit``.
    start : sequence of float, optional
        Starting relative SDs (default 1 for every term, as :func:`fit_lmm`).
    ftol, gtol : float
        Stopping tests of the optimiser (block factorisation; :data:`FTOL`, :data:`GTOL` by default,
        as :func:`fit_lmm`). A bootstrap replicate needs far less than the digits pinned against lme4.
    scale : array, shape (k, k), optional
        A preconditioner (:func:`preconditioner`): the search runs over ``z`` with
        ``theta = start + scale @ z`` (block path). It changes the path, not the optimum.

    Returns
    -------
    MixedFit
    """
    with one_blas_thread():
        return _fit(fit.model.with_response(y), reml=fit.reml, start=start, ftol=ftol, gtol=gtol, scale=scale)


def preconditioner(fit: MixedFit, at: Sequence[float]) -> np.ndarray | None:
    """``T`` with ``T' H T = I``, ``H`` the Hessian of ``fit``'s profiled deviance in theta at ``at``.

    A replicate of a parametric bootstrap has nearly the study's deviance surface, so its search, run over
    ``z`` with ``theta = at + T z``, starts where the deviance is close to ``|z|^2 / 2`` plus a gradient, and
    L-BFGS's first, unit-scaled steps are nearly Newton steps: on the audit's designs the refits take 30-65 %
    fewer evaluations and reach the same optimum (tests/test_gstudy.py). ``H`` is the central difference of
    the analytic gradient (2k factorisations, once per study); its eigenvalues are floored at 1e-6 of the
    largest. None on the sparse-LU path, which has no analytic gradient.
    """
    model = fit.model
    if model.path != "block":
        return None
    at = np.asarray(at, dtype=float)
    k = len(at)
    H = np.empty((k, k))
    with one_blas_thread():
        for i in range(k):
            h = max(1e-4, 1e-3 * abs(at[i]))
            e = np.zeros(k)
            e[i] = h
            H[:, i] = (model.deviance_and_grad(at + e, fit.reml)[1] - model.deviance_and_grad(at - e, fit.reml)[1]) / (
                2 * h
            )
    w, U = np.linalg.eigh((H + H.T) / 2)
    if not np.all(np.isfinite(w)) or w.max() <= 0:
        return None
    return U / np.sqrt(np.maximum(w, 1e-6 * w.max()))


def _fit(model: _Factor, *, reml, start, ftol: float = FTOL, gtol: float = GTOL,
         scale: np.ndarray | None = None) -> MixedFit:
    k = model.k
    evaluations = 0

    def deviance(theta):
        nonlocal evaluations
        evaluations += 1
        return model.deviance(theta, reml)

    x0 = np.ones(k) if start is None else np.asarray(start, dtype=float)
    bounds = [(0.0, None)] * k
    ftol = max(ftol, FTOL_PER_OBSERVATION * model.n)
    if model.path == "block":
        # Analytic gradient (see compendium.stats.blocks.BlockSystem.solve): L-BFGS-B converges in tens of evaluations.
        def objective(theta):
            nonlocal evaluations
            evaluations += 1
            return model.deviance_and_grad(theta, reml)

        # The deviance is even in each theta_k, with zero slope at 0: optimise without bounds (a bound at
        # 0 would trap the search once it lands there) and report |theta|.
        if scale is None:
            best = optimize.minimize(objective, x0, jac=True, method="L-BFGS-B",
                                     options={"ftol": ftol, "gtol": gtol, "maxiter": 1000, "maxcor": 20})
            best.x = np.abs(best.x)
        else:
            def scaled(z):
                dev, g = objective(x0 + scale @ z)
                return dev, scale.T @ g

            best = optimize.minimize(scaled, np.zeros(k), jac=True, method="L-BFGS-B",
                                     options={"ftol": ftol, "gtol": gtol, "maxiter": 1000, "maxcor": 20})
            best.x = np.abs(x0 + scale @ best.x)
        converged = bool(best.success) or bool(np.max(np.abs(objective(best.x)[1])) < 1e-3)
    else:
        first = optimize.minimize(deviance, x0, method="L-BFGS-B", bounds=bounds,
                                  options={"ftol": 1e-13, "gtol": 1e-9, "maxiter": 500})
        polish = optimize.minimize(deviance, first.x, method="Nelder-Mead", bounds=bounds,
                                   options={"xatol": 1e-9, "fatol": 1e-11, "maxiter": 400 * k,
                                            "initial_simplex": _simplex(first.x)})
        best = polish if polish.fun <= first.fun else first
        converged = bool(first.success or polish.success)
    theta = np.asarray(best.x, dtype=float)
    f = model.solve(theta, cov=True)
    n, p = model.n, model.p
    sigma2 = f["pwrss"] / (n - p if reml else n)
    dev = model.deviance(theta, reml)
    variances = pd.Series(np.r_[sigma2 * theta**2, sigma2], index=[*model.names, "residual"], name="variance")
    return MixedFit(
        beta=f["beta"],
        cov_beta=sigma2 * f["unscaled_cov"],
        sigma2=float(sigma2),
        theta=theta,
        variances=variances,
        deviance=float(dev),
        loglik=-0.5 * float(dev),
        reml=reml,
        n=n,
        p=p,
        converged=converged,
        n_evaluations=evaluations,
        path=model.path,
        model=model,
    )


def _simplex(x: np.ndarray) -> np.ndarray:
    """A small simplex around ``x`` (the L-BFGS-B optimum), inside the bounds."""
    k = len(x)
    step = np.maximum(0.02 * np.abs(x), 1e-3)
    simplex = np.tile(x, (k + 1, 1))
    for i in range(k):
        simplex[i + 1, i] += step[i]
    return simplex


# --- derivatives (numDeriv-style Richardson extrapolation) ------------------------------


def _steps(x: np.ndarray, d: float = 1e-2, eps: float = 1e-4) -> np.ndarray:
    return np.where(np.abs(x) > 1e-6, d * np.abs(x), eps)


def _richardson(values: list[np.ndarray], v: int = 2) -> np.ndarray:
    """Extrapolate estimates at steps h, h/v, h/v^2 ... with error terms in h^2, h^4, ..."""
    a = [np.asarray(x, dtype=float) for x in values]
    for m in range(1, len(a)):
        factor = float(v ** (2 * m))
        a = [(factor * a[i + 1] - a[i]) / (factor - 1.0) for i in range(len(a) - 1)]
    return a[0]


def _jacobian(f, x: np.ndarray, r: int = 4, v: int = 2, label: str | None = None) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    h0 = _steps(x)
    f0 = np.atleast_1d(np.asarray(f(x), dtype=float))
    out = np.empty((f0.size, len(x)))
    tracker = Tracker(label, len(x), unit="columns") if label else None
    for i in range(len(x)):
        if tracker:
            tracker.update(i)
        est = []
        for j in range(r):
            h = h0[i] / v**j
            e = np.zeros_like(x)
            e[i] = h
            est.append((np.atleast_1d(f(x + e)) - np.atleast_1d(f(x - e))) / (2 * h))
        out[:, i] = _richardson(est, v)
    if tracker:
        tracker.update(len(x))
    return out


def _hessian(f, x: np.ndarray, r: int = 4, v: int = 2, label: str | None = None) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    k = len(x)
    h0 = _steps(x)
    f0 = f(x)
    H = np.empty((k, k))
    tracker = Tracker(label, k * (k + 1) // 2, unit="entries") if label else None
    for i in range(k):
        if tracker:
            tracker.update(i * k - i * (i - 1) // 2)
        for jj in range(i, k):
            est = []
            for j in range(r):
                hi, hj = h0[i] / v**j, h0[jj] / v**j
                ei = np.zeros(k)
                ej = np.zeros(k)
                ei[i], ej[jj] = hi, hj
                if i == jj:
                    est.append((f(x + ei) - 2 * f0 + f(x - ei)) / hi**2)
                else:
                    est.append((f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej) + f(x - ei - ej)) / (4 * hi * hj))
            H[i, jj] = H[jj, i] = _richardson(est, v)
    if tracker:
        tracker.update(k * (k + 1) // 2)
    return H


def variance_parameters(fit: MixedFit) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(varpar, A, J)``: the variance parameters ``(theta, sigma)`` at the optimum, their asymptotic covariance
    ``A = 2 H^-1`` (``H`` the Hessian of the deviance in ``varpar``, not profiled over sigma, as lmerTest), and
    ``J``, the Jacobian of ``vec(Cov(beta))`` in ``varpar`` (rows: the entries of ``Cov(beta)``).

    Computed once per fit (numDeriv-style Richardson differences; on the block path, of the deviance's analytic
    gradient, :meth:`_Factor.deviance_vp_grad`) and kept with it: the Satterthwaite tests and the interval of G
    (:func:`compendium.stats.gstudy.g_noncentral_ci`) share them.
    """
    cached = fit.__dict__.get("_variance_parameters")
    if cached is None:
        model = fit.model
        varpar = np.r_[fit.theta, np.sqrt(fit.sigma2)]
        with one_blas_thread():
            if model.path == "block":
                # Richardson differences of the analytic gradient: 4k factorisations, where differences of the
                # deviance took numDeriv's 2k^2 + 4k + 1 (289 for a G study; 17 s of a 10^5-judgement audit).
                H = _jacobian(lambda vp: model.deviance_vp_grad(vp, fit.reml), varpar, r=2,
                              label="REML: the Hessian of the variance parameters (Satterthwaite df, G's interval)")
                H = (H + H.T) / 2
            else:
                H = _hessian(lambda vp: model.deviance_vp(vp, fit.reml), varpar,
                             label="REML: the Hessian of the variance parameters (Satterthwaite df, G's interval)")
            J = _jacobian(lambda vp: model.cov_beta_vp(vp).ravel(), varpar)
        cached = (varpar, 2.0 * np.linalg.pinv(H), J)
        fit.__dict__["_variance_parameters"] = cached
    return cached


def satterthwaite(fit: MixedFit, contrast: Sequence[float]) -> dict[str, float]:
    """Satterthwaite t test of a contrast of the fixed effects, as lmerTest computes it.

    With ``varpar = (theta, sigma)`` at the optimum, lmerTest
    [Kuznetsova2017]_ takes the asymptotic covariance of the variance
    parameters as ``A = 2 H^-1``, ``H`` the Hessian of the deviance in
    ``varpar`` (not profiled over sigma), and the gradient ``g`` of
    ``c' Cov(beta; varpar) c``; then ``df = 2 (c' C c)^2 / (g' A g)``
    [Satterthwaite1946]_.

    Parameters
    ----------
    fit : MixedFit
        A REML fit (lmerTest's default; an ML fit works the same way).
    contrast : sequence of float
        Weights ``c`` of the fixed effects.

    Returns
    -------
    dict
        ``estimate, se, df, t, p`` (two-sided).
    """
    c = np.asarray(contrast, dtype=float)
    if c.shape != (fit.p,):
        raise ValueError(f"the contrast needs {fit.p} weights, got {c.shape}")
    _, A, J = variance_parameters(fit)
    grad = np.einsum("i,kij,j->k", c, J.T.reshape(-1, fit.p, fit.p), c)  # d (c' Cov(beta) c) / d varpar
    var = float(c @ fit.cov_beta @ c)
    df = 2.0 * var**2 / float(grad @ A @ grad)
    est = float(c @ fit.beta)
    se = float(np.sqrt(var))
    t = est / se
    return {"estimate": est, "se": se, "df": float(df), "t": t, "p": float(2.0 * stats.t.sf(abs(t), df))}


def satterthwaite_f(fit: MixedFit, L) -> dict[str, float]:
    """Satterthwaite F test of ``L beta = 0`` (several contrasts), as lmerTest's ``anova``.

    Following lmerTest's ``contest`` for a multi-row ``L`` [Kuznetsova2017]_:
    with ``L Cov(beta) L' = P diag(d) P'``, the ``q`` rotated contrasts
    ``P' L`` are independent; ``F = sum_m (P_m' L beta)^2 / d_m / q``; each
    gets its Satterthwaite df ``nu_m = 2 d_m^2 / (g_m' A g_m)``, and the
    denominator df is ``2E / (E - q)`` with ``E = sum_m nu_m / (nu_m - 2)``
    (2 if any ``nu_m <= 2``; ``nu_1`` if all are equal).

    Returns
    -------
    dict
        ``F, df1, df2, p``.
    """
    L = np.atleast_2d(np.asarray(L, dtype=float))
    if L.shape[1] != fit.p:
        raise ValueError(f"L needs {fit.p} columns, got {L.shape[1]}")
    q = L.shape[0]
    if np.linalg.matrix_rank(L) < q:
        raise ValueError("the rows of L must be linearly independent")
    varpar, A, J = variance_parameters(fit)
    d, P = np.linalg.eigh(L @ fit.cov_beta @ L.T)
    PL = P.T @ L
    F = float(np.sum((PL @ fit.beta) ** 2 / d)) / q
    Jm = J.T.reshape(len(varpar), fit.p, fit.p)
    nu = np.empty(q)
    for m in range(q):
        g = np.einsum("i,kij,j->k", PL[m], Jm, PL[m])
        nu[m] = 2.0 * d[m] ** 2 / float(g @ A @ g)
    if q == 1 or np.all(np.abs(nu - nu[0]) < 1e-8):
        df2 = float(nu[0])
    elif np.any(nu <= 2):
        df2 = 2.0
    else:
        E = float(np.sum(nu / (nu - 2.0)))
        df2 = 2.0 * E / (E - q)
    return {"F": F, "df1": float(q), "df2": df2, "p": float(stats.f.sf(F, q, df2))}


def fixed_effect_test(fit: MixedFit, index: int) -> dict[str, float]:
    """Satterthwaite t test of one fixed-effect coefficient (lmerTest's ``summary`` row)."""
    c = np.zeros(fit.p)
    c[index] = 1.0
    return satterthwaite(fit, c)


def as_table(fit: MixedFit) -> pd.DataFrame:
    """The variance components of a fit as a tidy table: ``component, variance, sd``."""
    v = fit.variances
    return pd.DataFrame({"component": v.index, "variance": v.to_numpy(), "sd": np.sqrt(v.to_numpy())})


def _mapping_terms(factors: Mapping[str, Any]) -> list[RandomTerm]:
    return [RandomTerm(name, group) for name, group in factors.items()]
