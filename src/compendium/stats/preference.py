"""Pairwise preferences: win rates, Bradley-Terry strengths and how much the panel of raters decides.

The pairwise counterpart of section 4 for a benchmark built from judgements "which of two responses is
better": one row per judgement with ``item, system_a, system_b, rater, winner`` (``winner`` is ``"a"``,
``"b"`` or ``"tie"``).

Ties. A tie counts half a win to each side, in the win rates and in the Bradley-Terry likelihood alike
(Davidson 1970 discusses models that give ties their own parameter; half a win is the convention of
Elo-style leaderboards and keeps a tie from vanishing). A table of decisive judgements only gives the
ordinary Bradley-Terry fit.

* :func:`win_matrix` -- the weighted wins ``W[i, j]`` of system ``i`` over ``j``;
* :func:`bradley_terry` -- the maximum-likelihood strengths (Newton's method on the log-likelihood,
  centred to mean 0), checked against ``choix`` in the tests; :func:`estimable` says whether the maximum
  exists (Ford 1957: the directed graph of wins must be strongly connected);
* :func:`preference_table` -- win rates and strengths with a percentile bootstrap over items;
* :func:`leave_one_rater_out` and :func:`per_rater` -- the winner and the order without each rater, and
  by each rater alone;
* :func:`raters_for_stable_winner` -- how many raters like these a stable winner needs, from a bootstrap
  over raters;
* :func:`rater_system_spread` -- whether the raters' disagreement about the systems exceeds the
  systems' own spread (the pairwise reading of "annotators matter more than systems");
* :func:`bradley_terry_covariate` -- the strengths with a covariate of the pair held fixed (for example
  the responses' log length ratio: a length-controlled ordering);
* :func:`outcome_units` -- the judgements as nominal codings of one unit per (item, pair of systems), for
  Krippendorff's alpha and Fleiss' kappa (:mod:`compendium.stats.labels`).

References
----------
.. [1] R. A. Bradley and M. E. Terry (1952). Rank analysis of incomplete block designs: I. The method of
   paired comparisons. *Biometrika* 39, 324-345.
.. [2] L. R. Ford (1957). Solution of a ranking problem from binary comparisons. *The American
   Mathematical Monthly* 64(8), 28-33.
.. [3] D. R. Hunter (2004). MM algorithms for generalized Bradley-Terry models. *The Annals of
   Statistics* 32(1), 384-406.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import sparse, stats
from scipy.sparse.csgraph import connected_components

from compendium.stats.tidy import _text_codes

__all__ = [
    "COLUMNS",
    "WINNERS",
    "STABLE_SHARE",
    "Comparisons",
    "comparisons",
    "win_matrix",
    "estimable",
    "bradley_terry",
    "bradley_terry_covariate",
    "preference_table",
    "leave_one_rater_out",
    "per_rater",
    "raters_for_stable_winner",
    "rater_system_spread",
    "winner_change_probability",
    "outcome_units",
]

#: Default columns of a pairwise judgement table.
COLUMNS = ("item", "system_a", "system_b", "rater", "winner")
#: The winner codes: the first response, the second, or neither.
WINNERS = ("a", "b", "tie")
#: A winner is stable when at least this share of bootstrap panels names it.
STABLE_SHARE = 0.95
_TOL = 1e-10
_MAX_NEWTON = 100
#: Items x k^2 cells up to which the bootstrap over items multiplies a dense table of per-item wins (128 MB).
_DENSE_ENTRIES = 2**24


class Comparisons:
    """Judgements coded as integer arrays: item, rater, the two systems, the outcome (1 a, 0 b, 0.5 tie)."""

    def __init__(self, item, rater, a, b, score, systems, raters, items):
        self.item, self.rater, self.a, self.b, self.score = item, rater, a, b, score
        self.systems, self.raters, self.items = systems, raters, items

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    def matrix(self, weights: np.ndarray | None = None) -> np.ndarray:
        """``W[i, j]``: the (weighted) wins of ``i`` over ``j``, ties counted half to each."""
        k = self.n_systems
        w = np.ones(len(self.a)) if weights is None else np.asarray(weights, dtype=float)
        flat = np.bincount(self.a * k + self.b, weights=w * self.score, minlength=k * k)
        flat += np.bincount(self.b * k + self.a, weights=w * (1.0 - self.score), minlength=k * k)
        return flat.reshape(k, k)

    def by(self, codes: np.ndarray, n: int) -> sparse.csr_matrix:
        """Per level of ``codes`` (items or raters), its wins as a row of ``k * k`` cells (sparse)."""
        k = self.n_systems
        rows = np.concatenate([codes, codes])
        cols = np.concatenate([self.a * k + self.b, self.b * k + self.a])
        vals = np.concatenate([self.score, 1.0 - self.score])
        return sparse.csr_matrix((vals, (rows, cols)), shape=(n, k * k))


def comparisons(data: pd.DataFrame, *, item: str = "item", system_a: str = "system_a", system_b: str = "system_b",
                rater: str = "rater", winner: str = "winner") -> Comparisons:
    """Code a checked pairwise table (:func:`compendium.data.pairwise.read_pairwise`) as integer arrays.

    Systems, raters and items are numbered in sorted order, so the same judgements give the same codes
    whatever their row order.
    """
    outcome = data[winner].astype(str).to_numpy()
    unknown = ~np.isin(outcome, WINNERS)
    if unknown.any():
        raise ValueError(f"winner codes must be one of {WINNERS}, got {sorted(set(outcome[unknown]))[:5]}")
    both, systems = _text_codes(pd.concat([data[system_a], data[system_b]], ignore_index=True))
    a, b = both[: len(data)], both[len(data):]
    if (a == b).any():
        raise ValueError("a judgement compares a system with itself")
    item_codes, items = _text_codes(data[item])
    rater_codes, raters = _text_codes(data[rater])
    score = np.select([outcome == "a", outcome == "b"], [1.0, 0.0], 0.5)
    return Comparisons(item_codes, rater_codes, a, b, score, systems, raters, items)


def win_matrix(data: pd.DataFrame, **columns) -> pd.DataFrame:
    """The wins of each system (rows) over each other (columns), ties counted half to each side."""
    c = comparisons(data, **columns)
    return pd.DataFrame(c.matrix(), index=c.systems, columns=c.systems)


def estimable(wins: np.ndarray) -> bool:
    """Whether the Bradley-Terry maximum exists: every system beats, through a chain of wins, every other
    (the directed graph with an edge ``i -> j`` where ``W[i, j] > 0`` is strongly connected; Ford 1957)."""
    k = wins.shape[0]
    if k < 2:
        return False
    n, _ = connected_components(sparse.csr_matrix(wins > 0), directed=True, connection="strong")
    return n == 1


def _estimable_many(wins: np.ndarray) -> np.ndarray:
    """:func:`estimable` for a stack of win matrices ``(B, k, k)`` at once: the graph is strongly connected when
    every system reaches every other, and reachability in ``2^r`` steps is the boolean ``r``-th square of
    (edges or staying put). Tested against :func:`estimable` (scipy's strong components)."""
    B, k = wins.shape[0], wins.shape[1]
    if k < 2:
        return np.zeros(B, dtype=bool)
    reach = ((wins > 0) | np.eye(k, dtype=bool)).astype(np.float32)
    for _ in range(int(np.ceil(np.log2(k)))):
        reach = (np.matmul(reach, reach) > 0).astype(np.float32)
    return reach.reshape(B, -1).all(axis=1)


def _loglik(theta: np.ndarray, wins: np.ndarray) -> np.ndarray:
    diff = theta[:, :, None] - theta[:, None, :]
    return np.sum(wins * -np.logaddexp(0.0, -diff), axis=(1, 2))


def _fit_many(wins: np.ndarray) -> np.ndarray:
    """Centred log-strengths maximising ``sum W[i,j] log sigmoid(t_i - t_j)`` for each of a stack of win
    matrices ``(B, k, k)``; a row of NaN where no maximum exists.

    Newton's method from the log win ratio, the last strength held at 0 (the Hessian is then negative definite
    on a connected design), the step halved while the likelihood does not rise, until the step is below
    ``_TOL``: for every matrix of the stack at once, each stopping on its own (a bootstrap fits thousands).
    """
    wins = np.asarray(wins, dtype=float)
    B, k = wins.shape[0], wins.shape[1]
    out = np.full((B, k), np.nan)
    ok = _estimable_many(wins)
    if not ok.any():
        return out
    W = wins[ok]
    total = W + np.swapaxes(W, 1, 2)
    won = W.sum(axis=2)
    t = np.log((won + 0.5) / (total.sum(axis=2) - won + 0.5))
    t -= t[:, -1:]
    current = _loglik(t, W)
    active = np.ones(len(W), dtype=bool)
    diag = np.arange(k)
    for _ in range(_MAX_NEWTON):
        idx = np.flatnonzero(active)
        if not idx.size:
            break
        ta, Wa, tot = t[idx], W[idx], total[idx]
        p = 1.0 / (1.0 + np.exp(-(ta[:, :, None] - ta[:, None, :])))  # P(i beats j)
        grad = won[idx] - (tot * p).sum(axis=2)
        hess = tot * p * np.swapaxes(p, 1, 2)  # negative semi-definite once its diagonal is set
        hess[:, diag, diag] -= hess.sum(axis=2)
        step = np.linalg.solve(hess[:, :-1, :-1], -grad[:, :-1, None])[:, :, 0]
        scale = np.ones(len(idx))
        candidate, value = ta.copy(), np.empty(len(idx))
        pending = np.ones(len(idx), dtype=bool)
        while pending.any():
            candidate[pending, :-1] = ta[pending, :-1] + scale[pending, None] * step[pending]
            value[pending] = _loglik(candidate[pending], Wa[pending])
            accept = (value >= current[idx] - 1e-12) | (scale < 1e-6)
            pending &= ~accept
            scale[pending] /= 2
        t[idx], current[idx] = candidate, value
        active[idx[np.max(np.abs(scale[:, None] * step), axis=1) < _TOL]] = False
    out[ok] = t - t.mean(axis=1, keepdims=True)
    return out


def _fit(wins: np.ndarray) -> np.ndarray:
    """:func:`_fit_many` for one win matrix."""
    return _fit_many(wins[None])[0]


def bradley_terry(data: pd.DataFrame | Comparisons, weights: np.ndarray | None = None, **columns) -> pd.Series:
    """Bradley-Terry log-strengths by maximum likelihood, centred to mean 0 (a tie is half a win each way).

    ``P(i beats j) = 1 / (1 + exp(t_j - t_i))``. NaN for every system when the maximum does not exist
    (:func:`estimable`). The same maximum as ``choix.opt_pairwise(k, data, alpha=0)`` fed with each
    decisive judgement twice and each tie once in each direction (checked in the tests).
    """
    c = data if isinstance(data, Comparisons) else comparisons(data, **columns)
    return pd.Series(_fit(c.matrix(weights)), index=c.systems, name="strength")


def bradley_terry_covariate(c: Comparisons, covariate, *, level: float = 0.95) -> tuple[pd.Series, dict]:
    """Bradley-Terry strengths with a covariate of each judgement held fixed, and the covariate's coefficient.

    ``logit P(a beats b) = t_a - t_b + beta * x``, fitted as a binomial GLM with no intercept (statsmodels'
    ``GLM(..., family=Binomial())``) on one row per judgement: the outcome is the judgement's score (1 a,
    0 b, 0.5 tie: half a win each way, as :func:`bradley_terry`), the design a column per system (+1 for
    ``a``, -1 for ``b``; the last system's column dropped, its strength 0) and ``x``. With ``x`` left out
    the fit is :func:`bradley_terry`'s (checked in the tests). The coefficient's interval is Wald with
    standard errors clustered by item (the raters of one item judge the same two responses), statsmodels'
    ``cov_type="cluster"``.

    Parameters
    ----------
    c : Comparisons
    covariate : array-like, length of the judgements, or None
        ``x`` per judgement, signed from ``a``'s side (for length, ``log(len_a / len_b)``); None fits the
        strengths alone (the coefficient is then NaN).
    level : float
        The coefficient's confidence level.

    Returns
    -------
    (Series, dict)
        Log-strengths centred to mean 0, indexed by system; ``beta``, ``ci_low``, ``ci_high`` and ``n``
        (judgements) of the covariate.
    """
    import statsmodels.api as sm

    n, k = len(c.score), c.n_systems
    design = np.zeros((n, k))
    design[np.arange(n), c.a] = 1.0
    design[np.arange(n), c.b] = -1.0
    design = design[:, :-1]
    if covariate is not None:
        x = np.asarray(covariate, dtype=float)
        if x.shape != c.score.shape or not np.isfinite(x).all():
            raise ValueError("the covariate needs one finite value per judgement")
        design = np.column_stack([design, x])
    fit = sm.GLM(c.score, design, family=sm.families.Binomial()).fit(
        cov_type="cluster", cov_kwds={"groups": c.item})
    params = np.asarray(fit.params)
    theta = np.append(params[: k - 1], 0.0)
    strength = pd.Series(theta - theta.mean(), index=c.systems, name="strength")
    if covariate is None:
        return strength, {"beta": np.nan, "ci_low": np.nan, "ci_high": np.nan, "n": n}
    low, high = np.asarray(fit.conf_int(alpha=1 - level))[-1]
    return strength, {"beta": float(params[-1]), "ci_low": float(low), "ci_high": float(high), "n": n}


def _win_rate(wins: np.ndarray) -> np.ndarray:
    """Each system's share of its comparisons won, for a win matrix or a stack of them."""
    total = (wins + np.swapaxes(wins, -1, -2)).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return wins.sum(axis=-1) / total


def _order(strength: np.ndarray, systems: Sequence[str]) -> list[str]:
    """Systems from strongest to weakest; equal strengths keep the sorted order of their names."""
    return [systems[i] for i in np.argsort(-strength, kind="stable")]


def _resampled(rng: np.random.Generator, n: int, replicates: int) -> np.ndarray:
    """How often each of ``n`` items is drawn in each of ``replicates`` bootstrap samples of size ``n`` (one
    ``rng.integers`` call per replicate, in order), as floats."""
    out = np.empty((replicates, n))
    for r in range(replicates):
        out[r] = np.bincount(rng.integers(0, n, n), minlength=n)
    return out


def preference_table(c: Comparisons, *, n_boot: int = 2000, seed: int | np.random.Generator | None = 0,
                     ci: float = 0.95) -> tuple[pd.DataFrame, dict]:
    """Each system's comparisons, win rate and Bradley-Terry strength, with percentile intervals from a
    bootstrap over items (each resampled item keeps all its judgements), strongest first.

    Returns the table and a dict with ``winner``, ``order``, ``n_boot``, ``n_valid`` (replicates in which
    the strengths exist) and ``winner_share`` (the share of valid replicates naming the same winner).
    """
    wins = c.matrix()
    strength = _fit(wins)
    rng = np.random.default_rng(seed)
    k = c.n_systems
    per_item = c.by(c.item, len(c.items))
    if len(c.items) * k * k <= _DENSE_ENTRIES:  # a dense product (BLAS) is several times the sparse one's speed
        per_item = np.asarray(per_item.todense())
    boot_strength = np.full((n_boot, k), np.nan)
    boot_rate = np.full((n_boot, k), np.nan)
    for start in range(0, n_boot, 256):
        stop = min(start + 256, n_boot)
        counts = _resampled(rng, len(c.items), stop - start)
        w = np.asarray(counts @ per_item).reshape(-1, k, k)  # replicates x k x k
        boot_rate[start:stop] = _win_rate(w)
        boot_strength[start:stop] = _fit_many(w)
    valid = ~np.isnan(boot_strength).any(axis=1)
    lo, hi = (1 - ci) / 2, (1 + ci) / 2

    def bounds(values, mask):
        if not mask.any():
            return np.full(k, np.nan), np.full(k, np.nan)
        return np.quantile(values[mask], lo, axis=0), np.quantile(values[mask], hi, axis=0)

    s_lo, s_hi = bounds(boot_strength, valid)
    r_lo, r_hi = bounds(boot_rate, np.ones(n_boot, bool))
    total = wins + wins.T
    table = pd.DataFrame({
        "system": c.systems,
        "comparisons": np.rint(total.sum(axis=1)).astype(np.int64),  # whole: a tie adds half to each direction
        "win_rate": _win_rate(wins), "win_rate_ci_low": r_lo, "win_rate_ci_high": r_hi,
        "strength": strength, "strength_ci_low": s_lo, "strength_ci_high": s_hi,
    })
    order = _order(strength, c.systems) if not np.isnan(strength).any() else None
    table = table.set_index("system").loc[order or list(c.systems)].reset_index()
    winner = order[0] if order else None
    boot_winners = np.argmax(boot_strength[valid], axis=1) if valid.any() else np.array([], int)
    share = float(np.mean(boot_winners == c.systems.index(winner))) if winner and valid.any() else None
    return table, {"winner": winner, "order": order, "n_boot": int(n_boot), "n_valid": int(valid.sum()),
                   "winner_share": share, "ci": ci}


def _kendall(x: np.ndarray, y: np.ndarray) -> float | None:
    if np.isnan(x).any() or np.isnan(y).any():
        return None
    return float(stats.kendalltau(x, y).statistic)


def _panels(c: Comparisons, wins: np.ndarray, judgements: np.ndarray, full: np.ndarray) -> list[dict]:
    """Each panel's winner, order and Kendall's tau against the full panel's strengths, from its win matrix
    (a stack ``(panels, k, k)``, fitted at once)."""
    out = []
    for strength, n in zip(_fit_many(wins), judgements):
        ok = not np.isnan(strength).any()
        out.append({"judgements": int(n),
                    "winner": _order(strength, c.systems)[0] if ok else None,
                    "order": _order(strength, c.systems) if ok else None,
                    "kendall_tau": _kendall(strength, full),
                    "estimable": ok})
    return out


def _rater_wins(c: Comparisons) -> tuple[np.ndarray, np.ndarray]:
    """Each rater's win matrix ``(raters, k, k)`` and number of judgements."""
    k = c.n_systems
    per = np.asarray(c.by(c.rater, len(c.raters)).todense()).reshape(-1, k, k)
    return per, np.bincount(c.rater, minlength=len(c.raters))


def leave_one_rater_out(c: Comparisons) -> pd.DataFrame:
    """The Bradley-Terry winner and order of the judgements without each rater in turn, with Kendall's tau
    between that order's strengths and the full panel's; ``winner_changes`` against the full panel.

    A panel's wins are the full panel's minus the rater's (exact: a judgement adds 0, 1/2 or 1)."""
    wins = c.matrix()
    full = _fit(wins)
    winner = _order(full, c.systems)[0] if not np.isnan(full).any() else None
    per, counts = _rater_wins(c)
    rows = _panels(c, wins[None] - per, len(c.rater) - counts, full)
    table = pd.DataFrame([{"left_out": name, **row} for name, row in zip(c.raters, rows)])
    table["winner_changes"] = [w != winner for w in table["winner"]]
    return table


def per_rater(c: Comparisons) -> pd.DataFrame:
    """Each rater's own Bradley-Terry winner and order, from that rater's judgements alone."""
    full = _fit(c.matrix())
    per, counts = _rater_wins(c)
    return pd.DataFrame([{"rater": name, **row} for name, row in zip(c.raters, _panels(c, per, counts, full))])


def raters_for_stable_winner(c: Comparisons, *, max_raters: int | None = None, n_boot: int = 200,
                             seed: int | np.random.Generator | None = 0,
                             share: float = STABLE_SHARE) -> tuple[pd.DataFrame, int | None]:
    """How many raters a stable winner needs: panels of ``m`` raters drawn with replacement from the panel.

    For ``m = 1, ..., max_raters`` (default ``max(10, 2 x the raters)``) each of ``n_boot`` replicates draws
    ``m`` of the raters with replacement, pools their judgements (a rater drawn twice counts twice) and
    fits Bradley-Terry; the items stay fixed. The share of replicates naming the full panel's winner is
    the winner's stability at ``m``; the raters needed is the smallest ``m`` from which every stability is
    at least ``share``, or None if none is within ``max_raters``. Beyond the panel's size the panels reuse
    its raters: the answer says how many raters like these would be needed, not raters unlike any of them.
    """
    n_raters = len(c.raters)
    max_raters = max(10, 2 * n_raters) if max_raters is None else int(max_raters)
    full = _fit(c.matrix())
    if np.isnan(full).any():
        return pd.DataFrame(columns=["raters", "stability", "n_valid"]), None
    winner = int(np.argmax(full))
    per = np.asarray(c.by(c.rater, n_raters).todense())  # raters x k*k
    k = c.n_systems
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(1, max_raters + 1):
        draws = rng.integers(0, n_raters, size=(n_boot, m))
        counts = np.stack([np.bincount(d, minlength=n_raters) for d in draws]).astype(float)
        t = _fit_many((counts @ per).reshape(-1, k, k))
        valid = ~np.isnan(t).any(axis=1)
        named = list(np.argmax(t[valid], axis=1) == winner)
        rows.append({"raters": m, "stability": float(np.mean(named)) if named else np.nan, "n_valid": len(named)})
    table = pd.DataFrame(rows)
    stable = (table["stability"] >= share).to_numpy()
    needed = None
    for i in range(len(stable)):
        if stable[i:].all():
            needed = int(table["raters"].iloc[i])
            break
    return table, needed


def rater_system_spread(c: Comparisons, *, n_boot: int = 1000, seed: int | np.random.Generator | None = 0,
                        ci: float = 0.95) -> dict:
    """Whether the raters disagree about the systems more than the systems differ.

    A rater's leniency cancels in a comparison (both responses get it), so what raters can differ in is
    the rater x system interaction. With ``t[r, s]`` each rater's own centred Bradley-Terry strengths, a
    two-way decomposition of the raters x systems table (one value per cell) gives the system variance
    ``(MS_system - MS_residual) / n_raters`` and the rater x system variance ``MS_residual``. The latter
    also holds each rater's estimation noise, so it bounds the raters' real disagreement from above.
    The intervals are percentiles of a bootstrap over items; a replicate in which a rater's strengths do
    not exist is left out. ``F``, ``df`` and ``p`` test the systems against the interaction, the raters
    random (``MS_system / MS_residual`` on ``k - 1`` and ``(n_raters - 1)(k - 1)`` df): the pairwise
    counterpart of section 4.2's test.
    """
    n_raters, k = len(c.raters), c.n_systems
    if n_raters < 2 or k < 2:
        return {"system_var": None, "rater_x_system_var": None, "difference": None,
                "reason": "needs at least two raters and two systems"}
    # One sparse matrix of every judgement: rows items, columns (rater, cell of the rater's win matrix).
    cells = np.concatenate([c.a * k + c.b, c.b * k + c.a]) + np.concatenate([c.rater, c.rater]) * k * k
    by_item = sparse.csr_matrix((np.concatenate([c.score, 1.0 - c.score]), (np.concatenate([c.item, c.item]), cells)),
                                shape=(len(c.items), n_raters * k * k))

    def mean_squares(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """MS_system and MS_residual of the raters x systems table of strengths, for each row of item weights
        (replicates x items): every rater's fit of every replicate at once."""
        wins = np.asarray((by_item.T @ weights.T).T).reshape(-1, k, k)
        table = _fit_many(wins).reshape(len(weights), n_raters, k)
        system_means = table.mean(axis=1)
        ms_system = n_raters * np.sum((system_means - system_means.mean(axis=1, keepdims=True)) ** 2, axis=1) / (k - 1)
        resid = (
            table
            - table.mean(axis=2, keepdims=True)
            - system_means[:, None, :]
            + table.mean(axis=(1, 2))[:, None, None]
        )
        ms_resid = np.sum(resid ** 2, axis=(1, 2)) / ((n_raters - 1) * (k - 1))
        return ms_system, ms_resid  # NaN where a rater's strengths do not exist

    def components(weights: np.ndarray) -> np.ndarray:
        ms_system, ms_resid = mean_squares(weights)
        return np.column_stack([(ms_system - ms_resid) / n_raters, ms_resid])

    ms_system, ms_resid = (float(v[0]) for v in mean_squares(np.ones((1, len(c.items)))))
    system_var, interaction = (ms_system - ms_resid) / n_raters, ms_resid
    # The systems tested against the system x rater interaction, the raters random: the F of a two-way ANOVA
    # without replication on the raters x systems table (as statsmodels' AnovaRM with raters as subjects).
    df1, df2 = k - 1, (n_raters - 1) * (k - 1)
    f_value = ms_system / ms_resid if ms_resid > 0 else np.nan
    p_value = float(stats.f.sf(f_value, df1, df2)) if np.isfinite(f_value) else np.nan
    rng = np.random.default_rng(seed)
    step = max(1, 2**20 // (n_raters * k * k))  # replicates fitted at once
    reps = np.zeros((0, 2))
    for start in range(0, n_boot, step):
        weights = _resampled(rng, len(c.items), min(step, n_boot - start))
        reps = np.vstack([reps, components(weights)])
    valid = ~np.isnan(reps).any(axis=1)
    lo, hi = (1 - ci) / 2, (1 + ci) / 2
    diff = reps[valid, 1] - reps[valid, 0]

    def interval(values):
        return [float(np.quantile(values, lo)), float(np.quantile(values, hi))] if len(values) else None

    return {"system_var": system_var, "system_var_ci": interval(reps[valid, 0]),
            "rater_x_system_var": interaction, "rater_x_system_var_ci": interval(reps[valid, 1]),
            "difference": interaction - system_var, "difference_ci": interval(diff),
            "F": f_value, "df": [df1, df2], "p": p_value,
            "n_boot": int(n_boot), "n_valid": int(valid.sum()), "ci": ci}


def winner_change_probability(c: Comparisons, *, n_boot: int = 2000,
                              seed: int | np.random.Generator | None = 0) -> dict:
    """How often leaving one rater out changes the Bradley-Terry winner, on resampled panels like this one.

    The pairwise counterpart of :func:`compendium.stats.winner_stability.winner_change_probability`, for a
    panel whose raters all judge every comparison (PandaLM's three): each replicate resamples the items
    with replacement, fits the full panel and each panel without one rater (every fit of every replicate
    at once) and compares their winners (ties at the top share it). The gap between the top two is in
    Bradley-Terry log-strength.

    Returns
    -------
    dict
        ``p_every``, ``p_some``, ``p_each`` with ``_ci``, ``gap_median``, ``gap_ci``, ``n_boot`` (replicates
        whose fits exist), or ``{"testable": False, "reason": ...}`` with fewer than two raters.
    """
    from compendium.stats import winner_stability

    n_raters, k = len(c.raters), c.n_systems
    if n_raters < 2:
        return {"testable": False, "reason": "needs at least two raters"}
    cells = np.concatenate([c.a * k + c.b, c.b * k + c.a]) + np.concatenate([c.rater, c.rater]) * k * k
    by_item = sparse.csr_matrix((np.concatenate([c.score, 1.0 - c.score]), (np.concatenate([c.item, c.item]), cells)),
                                shape=(len(c.items), n_raters * k * k))
    rng = np.random.default_rng(seed)
    weights = _resampled(rng, len(c.items), int(n_boot))
    per = np.asarray((by_item.T @ weights.T).T).reshape(-1, n_raters, k, k)
    full = per.sum(axis=1)
    stack = np.concatenate([full[:, None], full[:, None] - per], axis=1)  # replicates x (all, without each)
    strengths = _fit_many(stack.reshape(-1, k, k)).reshape(len(weights), n_raters + 1, k)
    ok = ~np.isnan(strengths).any(axis=(1, 2))
    if not ok.any():
        return {"testable": False, "reason": "no resampled panel has Bradley-Terry strengths (a system never "
                                             "loses or never wins)"}
    strengths = strengths[ok]
    changed = np.column_stack([winner_stability.changes(strengths[:, 0], strengths[:, 1 + r])
                               for r in range(n_raters)])
    top_two = np.sort(strengths[:, 0], axis=1)[:, -2:]
    panels = f"{', '.join(map(str, c.raters))} ({len(c.items)} items)"
    return {"testable": True, **winner_stability.summarise(changed, top_two[:, 1] - top_two[:, 0],
                                                             "Bradley-Terry log-strength", panels), "systems": k,
            "n_panels": 1, "panel_items": [len(c.items), len(c.items)]}


def outcome_units(c: Comparisons) -> pd.DataFrame:
    """One nominal coding per judgement of the unit (item, unordered pair of systems).

    The pair is put in sorted order of the system codes and the outcome relabelled to match (``"first"``,
    ``"second"`` or ``"tie"``), so a rater who saw ``(x, y)`` and chose ``a`` agrees with one who saw
    ``(y, x)`` and chose ``b``.
    """
    low, high = np.minimum(c.a, c.b), np.maximum(c.a, c.b)
    swapped = c.a > c.b
    score = np.where(swapped, 1.0 - c.score, c.score)
    label = np.select([score == 1.0, score == 0.0], ["first", "second"], "tie")
    unit = (c.item.astype(np.int64) * c.n_systems + low) * c.n_systems + high
    return pd.DataFrame({"unit": unit, "rater": np.asarray(c.raters, dtype=object)[c.rater], "label": label})
