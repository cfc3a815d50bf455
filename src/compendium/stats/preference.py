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

__all__ = [
    "COLUMNS",
    "WINNERS",
    "STABLE_SHARE",
    "Comparisons",
    "comparisons",
    "win_matrix",
    "estimable",
    "bradley_terry",
    "preference_table",
    "leave_one_rater_out",
    "per_rater",
    "raters_for_stable_winner",
    "rater_system_spread",
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
    systems = np.unique(np.concatenate([data[system_a].astype(str).to_numpy(), data[system_b].astype(str).to_numpy()]))
    a = np.searchsorted(systems, data[system_a].astype(str).to_numpy())
    b = np.searchsorted(systems, data[system_b].astype(str).to_numpy())
    if (a == b).any():
        raise ValueError("a judgement compares a system with itself")
    items, item_codes = np.unique(data[item].astype(str).to_numpy(), return_inverse=True)
    raters, rater_codes = np.unique(data[rater].astype(str).to_numpy(), return_inverse=True)
    score = np.select([outcome == "a", outcome == "b"], [1.0, 0.0], 0.5)
    return Comparisons(item_codes, rater_codes, a, b, score, list(systems), list(raters), list(items))


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


def _fit(wins: np.ndarray) -> np.ndarray:
    """Centred log-strengths maximising ``sum W[i,j] log sigmoid(t_i - t_j)``; NaN where no maximum exists."""
    k = wins.shape[0]
    if not estimable(wins):
        return np.full(k, np.nan)
    total = wins + wins.T
    won = wins.sum(axis=1)
    # Start from the log win ratio, then Newton with the last strength held at 0 (the Hessian is then
    # negative definite on a connected design); halve the step while the likelihood does not rise.
    t = np.log((won + 0.5) / (total.sum(axis=1) - won + 0.5))
    t -= t[-1]

    def loglik(theta):
        diff = theta[:, None] - theta[None, :]
        return float(np.sum(wins * -np.logaddexp(0.0, -diff)))

    current = loglik(t)
    for _ in range(_MAX_NEWTON):
        p = 1.0 / (1.0 + np.exp(-(t[:, None] - t[None, :])))  # P(i beats j)
        grad = won - (total * p).sum(axis=1)
        info = total * p * p.T
        hess = info - np.diag(info.sum(axis=1))  # negative semi-definite
        step = np.linalg.solve(hess[:-1, :-1], -grad[:-1])
        scale = 1.0
        while True:
            candidate = t.copy()
            candidate[:-1] += scale * step
            value = loglik(candidate)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        t, current = candidate, value
        if np.max(np.abs(scale * step)) < _TOL:
            break
    return t - t.mean()


def bradley_terry(data: pd.DataFrame | Comparisons, weights: np.ndarray | None = None, **columns) -> pd.Series:
    """Bradley-Terry log-strengths by maximum likelihood, centred to mean 0 (a tie is half a win each way).

    ``P(i beats j) = 1 / (1 + exp(t_j - t_i))``. NaN for every system when the maximum does not exist
    (:func:`estimable`). The same maximum as ``choix.opt_pairwise(k, data, alpha=0)`` fed with each
    decisive judgement twice and each tie once in each direction (checked in the tests).
    """
    c = data if isinstance(data, Comparisons) else comparisons(data, **columns)
    return pd.Series(_fit(c.matrix(weights)), index=c.systems, name="strength")


def _win_rate(wins: np.ndarray) -> np.ndarray:
    total = (wins + wins.T).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return wins.sum(axis=1) / total


def _order(strength: np.ndarray, systems: Sequence[str]) -> list[str]:
    """Systems from strongest to weakest; equal strengths keep the sorted order of their names."""
    return [systems[i] for i in np.argsort(-strength, kind="stable")]


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
    per_item = c.by(c.item, len(c.items))
    k = c.n_systems
    boot_strength = np.full((n_boot, k), np.nan)
    boot_rate = np.full((n_boot, k), np.nan)
    for start in range(0, n_boot, 256):
        stop = min(start + 256, n_boot)
        counts = np.stack([np.bincount(rng.integers(0, len(c.items), len(c.items)), minlength=len(c.items))
                           for _ in range(stop - start)]).astype(float)
        flat = np.asarray(per_item.T @ counts.T).T  # replicates x k*k
        for r, row in enumerate(flat):
            w = row.reshape(k, k)
            boot_rate[start + r] = _win_rate(w)
            boot_strength[start + r] = _fit(w)
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


def _panel(c: Comparisons, mask: np.ndarray, full: np.ndarray) -> dict:
    strength = _fit(c.matrix(mask.astype(float)))
    ok = not np.isnan(strength).any()
    return {"judgements": int(mask.sum()),
            "winner": _order(strength, c.systems)[0] if ok else None,
            "order": _order(strength, c.systems) if ok else None,
            "kendall_tau": _kendall(strength, full),
            "estimable": ok}


def leave_one_rater_out(c: Comparisons) -> pd.DataFrame:
    """The Bradley-Terry winner and order of the judgements without each rater in turn, with Kendall's tau
    between that order's strengths and the full panel's; ``winner_changes`` against the full panel."""
    full = _fit(c.matrix())
    winner = _order(full, c.systems)[0] if not np.isnan(full).any() else None
    rows = []
    for code, name in enumerate(c.raters):
        row = {"left_out": name, **_panel(c, c.rater != code, full)}
        row["winner_changes"] = row["winner"] != winner
        rows.append(row)
    return pd.DataFrame(rows)


def per_rater(c: Comparisons) -> pd.DataFrame:
    """Each rater's own Bradley-Terry winner and order, from that rater's judgements alone."""
    full = _fit(c.matrix())
    return pd.DataFrame([{"rater": name, **_panel(c, c.rater == code, full)} for code, name in enumerate(c.raters)])


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
        named = []
        for row in counts @ per:
            t = _fit(row.reshape(k, k))
            if not np.isnan(t).any():
                named.append(int(np.argmax(t)) == winner)
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
    blocks = []
    for r in range(n_raters):
        mask = c.rater == r
        rows = np.concatenate([c.item[mask], c.item[mask]])
        cols = np.concatenate([c.a[mask] * k + c.b[mask], c.b[mask] * k + c.a[mask]])
        vals = np.concatenate([c.score[mask], 1.0 - c.score[mask]])
        blocks.append(sparse.csr_matrix((vals, (rows, cols)), shape=(len(c.items), k * k)))

    def mean_squares(weights: np.ndarray | None) -> tuple[float, float]:
        table = np.empty((n_raters, k))
        for r, block in enumerate(blocks):
            flat = np.asarray(block.sum(axis=0)).ravel() if weights is None else block.T @ weights
            table[r] = _fit(np.asarray(flat).reshape(k, k))
        if np.isnan(table).any():
            return np.nan, np.nan
        system_means = table.mean(axis=0)
        ms_system = n_raters * np.sum((system_means - system_means.mean()) ** 2) / (k - 1)
        resid = table - table.mean(axis=1, keepdims=True) - system_means[None, :] + table.mean()
        ms_resid = np.sum(resid ** 2) / ((n_raters - 1) * (k - 1))
        return float(ms_system), float(ms_resid)

    def components(weights: np.ndarray | None) -> tuple[float, float]:
        ms_system, ms_resid = mean_squares(weights)
        return (ms_system - ms_resid) / n_raters, ms_resid

    ms_system, ms_resid = mean_squares(None)
    system_var, interaction = components(None)
    # The systems tested against the system x rater interaction, the raters random: the F of a two-way ANOVA
    # without replication on the raters x systems table (as statsmodels' AnovaRM with raters as subjects).
    df1, df2 = k - 1, (n_raters - 1) * (k - 1)
    f_value = ms_system / ms_resid if ms_resid > 0 else np.nan
    p_value = float(stats.f.sf(f_value, df1, df2)) if np.isfinite(f_value) else np.nan
    rng = np.random.default_rng(seed)
    reps = np.array([components(np.bincount(rng.integers(0, len(c.items), len(c.items)),
                                            minlength=len(c.items)).astype(float)) for _ in range(n_boot)])
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
