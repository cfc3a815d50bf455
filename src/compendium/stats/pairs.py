"""Statistics over pairs of raters, computed for many pairs at once, on all pairs or a seeded sample of them.

A panel of ``r`` raters has ``r (r - 1) / 2`` pairs: 45 for 10 raters, 4,950
for 100, 5 x 10^7 for 10^4. One scipy call per pair took about a
millisecond (300 raters: 45,000 pairs, 50 s for Pearson's r and Kendall's
tau), and a table of 5 x 10^7 pairs would not fit in memory. So:

* :func:`choose_pairs` gives every pair up to ``max_pairs`` of them, and
  above that a uniform sample of ``max_pairs`` distinct pairs drawn with a
  stated seed (without listing the others: a pair is drawn as its position
  in the upper triangle, :func:`pair_of`).
* :func:`pearson` and :func:`kendall_tau_b` compute the statistic and its
  p-value for an array of pairs at once, each pair on the units (systems)
  both raters have, with the formulas scipy uses (``scipy.stats.pearsonr``:
  the beta distribution of r under the null; ``scipy.stats.kendalltau``:
  tau-b, its exact p-value without ties on up to 33 systems and the normal
  approximation with the tie-corrected variance otherwise). They are tested
  against scipy pair by pair.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

__all__ = ["MAX_PAIRS", "choose_pairs", "pair_of", "pearson", "kendall_tau_b"]

#: Pairs of raters above which a seeded sample of this many is computed (all pairs of 200 raters: 19,900).
MAX_PAIRS = 20_000
#: Entries (pairs x units) computed at once.
_CHUNK = 2**21


def pair_of(k: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The pair ``(i, j)``, ``i < j``, at position ``k`` of the upper triangle of ``n`` items in row order
    (``numpy.triu_indices(n, 1)``'s order)."""
    k = np.asarray(k, dtype=np.int64)
    # Row i starts at s(i) = i (2n - i - 1) / 2; i is the largest row with s(i) <= k.
    i = np.floor((2 * n - 1 - np.sqrt((2 * n - 1) ** 2 - 8.0 * k)) / 2).astype(np.int64)
    start = i * (2 * n - i - 1) // 2
    i = np.where(start > k, i - 1, i)  # floating-point guard, both ways
    start = i * (2 * n - i - 1) // 2
    over = k - start >= n - i - 1
    i = np.where(over, i + 1, i)
    start = i * (2 * n - i - 1) // 2
    return i, k - start + i + 1


def choose_pairs(n: int, max_pairs: int | None = MAX_PAIRS, seed: int | None = 0):
    """Pairs ``(i, j)`` of ``n`` raters: all of them, in order, or, when there are more than ``max_pairs``, a
    uniform sample of ``max_pairs`` distinct pairs (``numpy.random.default_rng(seed)``), in order.

    Returns
    -------
    i, j : ndarray
    total : int
        The number of pairs of the panel.
    """
    total = n * (n - 1) // 2
    if max_pairs is None or total <= max_pairs:
        i, j = np.triu_indices(n, 1)
        return i, j, total
    k = np.sort(np.random.default_rng(seed).choice(total, size=max_pairs, replace=False))
    i, j = pair_of(k, n)
    return i, j, total


def _chunks(n_pairs: int, width: int):
    step = max(1, _CHUNK // max(width, 1))
    return [slice(a, min(a + step, n_pairs)) for a in range(0, n_pairs, step)]


def pearson(matrix: np.ndarray, i: np.ndarray, j: np.ndarray):
    """Pearson's r between rows ``i`` and ``j`` of ``matrix`` (raters x units, NaN where not rated), each pair
    on the units both rated, and its two-sided p-value as ``scipy.stats.pearsonr`` gives it.

    Returns ``n, r, p``; r and p are NaN where fewer than two units are shared or a rater's ratings on them
    are constant (scipy warns and returns NaN for a constant input).
    """
    n_out, r_out = np.zeros(len(i), dtype=np.int64), np.full(len(i), np.nan)
    for c in _chunks(len(i), matrix.shape[1]):
        x, y = matrix[i[c]], matrix[j[c]]
        both = ~np.isnan(x) & ~np.isnan(y)
        n = both.sum(axis=1)
        x, y = np.where(both, x, 0.0), np.where(both, y, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            xm = np.where(both, x - x.sum(axis=1, keepdims=True) / n[:, None], 0.0)
            ym = np.where(both, y - y.sum(axis=1, keepdims=True) / n[:, None], 0.0)
            ptp_x = np.where(both, x, -np.inf).max(axis=1) - np.where(both, x, np.inf).min(axis=1)
            ptp_y = np.where(both, y, -np.inf).max(axis=1) - np.where(both, y, np.inf).min(axis=1)
            r = np.einsum("pu,pu->p", xm, ym) / np.sqrt(np.einsum("pu,pu->p", xm, xm) * np.einsum("pu,pu->p", ym, ym))
        ok = (n >= 2) & (ptp_x > 0) & (ptp_y > 0)
        n_out[c], r_out[c] = n, np.where(ok, np.clip(r, -1.0, 1.0), np.nan)
    two = n_out == 2
    r_out[two] = np.round(r_out[two])
    with np.errstate(invalid="ignore"):
        a = n_out / 2.0 - 1.0
        p = np.where(two, 1.0, 2.0 * stats.beta.sf(np.abs(r_out), np.where(two, 1.0, a), np.where(two, 1.0, a),
                                                     loc=-1, scale=2))
    p = np.where(np.isnan(r_out), np.nan, np.minimum(p, 1.0))
    return n_out, r_out, p


def kendall_tau_b(matrix: np.ndarray, i: np.ndarray, j: np.ndarray):
    """Kendall's tau-b between rows ``i`` and ``j`` of ``matrix`` (raters x systems, NaN where missing), each
    pair on the systems both have, and its two-sided p-value as ``scipy.stats.kendalltau`` (``method="auto"``)
    gives it.

    Returns ``n, tau, p`` (NaN where either rater's values are all tied, or fewer than two are shared).
    """
    S = matrix.shape[1]
    a, b = np.triu_indices(S, 1)
    out_n = np.zeros(len(i), dtype=np.int64)
    out_tau, out_p = np.full(len(i), np.nan), np.full(len(i), np.nan)
    exact = {}
    for c in _chunks(len(i), S * S):
        x, y = matrix[i[c]], matrix[j[c]]
        both = ~np.isnan(x) & ~np.isnan(y)
        n = both.sum(axis=1)
        valid = both[:, a] & both[:, b]  # system pairs both raters have
        sx = np.where(valid, np.sign(x[:, a] - x[:, b]), 0.0)
        sy = np.where(valid, np.sign(y[:, a] - y[:, b]), 0.0)
        tot = n * (n - 1) // 2
        xtie = tot - np.count_nonzero(sx, axis=1)
        ytie = tot - np.count_nonzero(sy, axis=1)
        s = np.einsum("pq,pq->p", sx, sy)  # concordant minus discordant
        dis = np.count_nonzero(sx * sy < 0, axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = np.clip(s / np.sqrt(tot - xtie) / np.sqrt(tot - ytie), -1.0, 1.0)
            # Ties' sums over the groups of equal values, from each value's group size t (its equals, plus one):
            # sum over groups of f(t) = sum over values of f(t) / t.
            x0, x1 = _tie_sums(x, both)
            y0, y1 = _tie_sums(y, both)
            m = n * (n - 1.0)
            var = (m * (2 * n + 5) - x1 - y1) / 18 + 2 * xtie * ytie / m + x0 * y0 / (9 * m * (n - 2))
            p = 2.0 * special.ndtr(-np.abs(s / np.sqrt(var)))
        use_exact = (xtie == 0) & (ytie == 0) & ((n <= 33) | (np.minimum(dis, tot - dis) <= 1))
        for row in np.flatnonzero(use_exact & (tot > 0)):
            key = (int(n[row]), int(dis[row]))
            if key not in exact:  # scipy on this pair: its exact p-value depends on n and the discordant pairs only
                shared = both[row]
                exact[key] = float(stats.kendalltau(x[row, shared], y[row, shared]).pvalue)
            p[row] = exact[key]
        undefined = (xtie == tot) | (ytie == tot)
        out_n[c] = n
        out_tau[c] = np.where(undefined, np.nan, tau)
        out_p[c] = np.where(undefined, np.nan, p)
    return out_n, out_tau, out_p


def _tie_sums(values: np.ndarray, present: np.ndarray):
    """``sum t (t-1) (t-2)`` and ``sum t (t-1) (2t+5)`` over each row's groups of equal present values."""
    equal = (values[:, :, None] == values[:, None, :]) & present[:, :, None] & present[:, None, :]
    t = equal.sum(axis=2).astype(float)  # group size of each present value (0 where absent)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(present, 1.0 / np.where(t > 0, t, 1.0), 0.0)
    return (share * t * (t - 1) * (t - 2)).sum(axis=1), (share * t * (t - 1) * (2 * t + 5)).sum(axis=1)
