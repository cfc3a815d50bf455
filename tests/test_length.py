"""Tests for compendium.analyses.length: counts, Table 3, the mixed model, length matching.

Expected values are either computed by hand (in a comment beside them),
recovered from data simulated here with a known truth (independently of
``compendium.simulate`` and of ``compendium.simulate.toy.toy_study``), or computed by a
brute-force reference implementation written here.
"""

from __future__ import annotations

import doctest
import itertools
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy import stats
from threadpoolctl import threadpool_limits

from compendium.analyses import length as L

ZWJ, VS16 = "\u200d", "\ufe0f"
WOMAN, TONE4, TONE6, LAPTOP = "\U0001f469", "\U0001f3fd", "\U0001f3ff", "\U0001f4bb"
JOY, GRIN, BLUSH, THUMBS, HEART = "\U0001f602", "\U0001f600", "\U0001f60a", "\U0001f44d", "\u2764"


# ------------------------------------------------------------------ helpers


def _random_study(seed: int, *, n_items=10, n_systems=5, n_raters=3, max_count=3, drop=0.0, categorical=False):
    """Random ratings 1-5 and counts 1..max_count; the last two items have all-distinct counts."""
    rng = np.random.default_rng(seed)
    items = [f"it{i}" for i in range(n_items)]
    systems = [f"sys{k}" for k in rng.permutation(n_systems)]  # first-appearance order != sorted order
    raters = [f"R{m}" for m in range(n_raters)]
    count = rng.integers(1, max_count + 1, size=(n_items, n_systems))
    count[-2:] = [rng.permutation(n_systems) + 1 for _ in range(2)]  # no pair matches on these items
    lengths = pd.DataFrame(
        [(items[i], systems[s], int(count[i, s])) for i in range(n_items) for s in range(n_systems)],
        columns=["sentence_id", "system", "graphemes"],
    )
    ratings = pd.DataFrame(
        [
            (items[i], systems[s], raters[r], int(rng.integers(1, 6)))
            for i in range(n_items)
            for s in range(n_systems)
            for r in range(n_raters)
        ],
        columns=["sentence_id", "system", "annotator", "rating"],
    )
    if drop:
        ratings = ratings[rng.random(len(ratings)) >= drop].reset_index(drop=True)
    if categorical:
        ratings["system"] = pd.Categorical(ratings["system"], categories=sorted(systems))
    return ratings, lengths


def _brute_comparisons(ratings, lengths, *, score, tie_rule):
    """Double loop over items and unordered system pairs (in system order)."""
    sys_col = ratings["system"]
    if isinstance(sys_col.dtype, pd.CategoricalDtype):
        present = set(sys_col.astype(str))
        order = [c for c in sys_col.cat.categories if c in present]
    else:
        order = list(dict.fromkeys(sys_col))
    count = {(r.sentence_id, r.system): r.graphemes for r in lengths.itertuples()}
    by_output: dict = {}
    for r in ratings.itertuples():
        by_output.setdefault((r.sentence_id, str(r.system)), []).append((r.annotator, r.rating))
    rows = []
    for it in dict.fromkeys(ratings["sentence_id"]):
        for a, b in itertools.combinations(order, 2):
            if (it, a) not in by_output or (it, b) not in by_output:
                continue
            if count[(it, a)] != count[(it, b)]:
                continue
            if score == "per_rater":
                ra, rb = dict(by_output[(it, a)]), dict(by_output[(it, b)])
                pairs = [(rater, ra[rater], rb[rater]) for rater in sorted(set(ra) & set(rb))]
            else:
                va = [v for _, v in by_output[(it, a)]]
                vb = [v for _, v in by_output[(it, b)]]
                f = sum if score == "sum" else (lambda v: sum(v) / len(v))
                pairs = [(None, f(va), f(vb))]
            for rater, sa, sb in pairs:
                if sa > sb:
                    outcome, pa, pb = "a", 1.0, 0.0
                elif sb > sa:
                    outcome, pa, pb = "b", 0.0, 1.0
                else:
                    if tie_rule == "drop":
                        continue
                    outcome = "tie"
                    pa = pb = 0.5 if tie_rule == "half" else 0.0
                rows.append((it, rater, a, b, float(count[(it, a)]), float(sa), float(sb), outcome, pa, pb))
    return rows


def _wilson(k, n, z=1.959963984540054):
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def _simulate_lmm(seed, *, n_items, n_systems=8, rater_slopes=(0.2, 0.2, 0.2), sd_item=0.5, rater_sd=0.7, sd_e=1.0):
    """Continuous ratings = 3 + b_r * count + item + rater + noise; counts 1-5 with a system trend."""
    rng = np.random.default_rng(seed)
    b = np.asarray(rater_slopes, dtype=float)
    n_r = len(b)
    count = np.clip(np.rint(rng.normal(1.5 + 0.4 * np.arange(n_systems), 1.2, (n_items, n_systems))), 1, 5)
    u = rng.normal(0, sd_item, n_items)
    v = rng.normal(0, rater_sd, n_r)
    ii, ss, rr = (
        a.ravel() for a in np.meshgrid(np.arange(n_items), np.arange(n_systems), np.arange(n_r), indexing="ij")
    )
    y = 3 + b[rr] * count[ii, ss] + u[ii] + v[rr] + rng.normal(0, sd_e, len(ii))
    ratings = pd.DataFrame({"sentence_id": ii, "system": ss, "annotator": [f"A{r + 1}" for r in rr], "rating": y})
    i2, s2 = (a.ravel() for a in np.meshgrid(np.arange(n_items), np.arange(n_systems), indexing="ij"))
    lengths = pd.DataFrame({"sentence_id": i2, "system": s2, "graphemes": count[i2, s2]})
    return ratings, lengths


# ------------------------------------------------------------------ appendix B


def test_segmentation_inflation_hand_computed():
    woman_tech = WOMAN + TONE4 + ZWJ + LAPTOP  # 1 grapheme, 4 code points
    g = pd.DataFrame(
        {
            "sentence_id": ["s1", "s2", "s1", "s2", "s3", "s1"],
            "system": ["A", "A", "B", "B", "B", "C"],
            "output": [
                woman_tech,  # A: 1 g, 4 cp
                JOY + JOY,  # A: 2 g, 2 cp
                HEART + VS16,  # B: 1 g, 2 cp (U+2764 U+FE0F)
                THUMBS + TONE6 + " ok",  # B: 1 g, 2 cp (ASCII dropped by both)
                BLUSH,  # B: 1 g, 1 cp
                GRIN + GRIN,  # C: 2 g, 2 cp
            ],
        }
    )
    counts = L.emoji_counts(g)
    assert counts["graphemes"].tolist() == [1, 2, 1, 1, 1, 2]
    assert counts["codepoints"].tolist() == [4, 2, 2, 2, 1, 2]
    t = L.segmentation_inflation(g).set_index("system")
    assert t.index.tolist() == [L.OVERALL, "A", "B", "C"]
    # A: g 3/2, cp 6/2 -> +100 %; B: g 3/3, cp 5/3 -> +66.67 %; C: g 2, cp 2 -> 0 %.
    # Overall: g 8/6, cp 13/6 -> 13/8 - 1 = +62.5 %.
    assert t["inflation_pct"].to_dict() == pytest.approx({L.OVERALL: 62.5, "A": 100.0, "B": 200 / 3, "C": 0.0})
    assert t.loc["A", "mean_codepoints"] == pytest.approx(3.0)
    assert t.loc["B", "mean_graphemes"] == pytest.approx(1.0)
    assert t["n_outputs"].tolist() == [6, 2, 3, 1]
    # By graphemes C (2) > A (1.5) > B (1); by code points A (3) > C (2) > B (5/3): the order changes.
    assert t.loc[["A", "B", "C"], "rank_graphemes"].tolist() == [2, 3, 1]
    assert t.loc[["A", "B", "C"], "rank_codepoints"].tolist() == [1, 3, 2]
    assert t.loc[["A", "B", "C"], "rank_shift"].tolist() == [-1, 0, 1]
    assert pd.isna(t.loc[L.OVERALL, "rank_graphemes"])
    # The counts table gives the same answer without re-segmenting.
    pd.testing.assert_frame_equal(L.segmentation_inflation(counts), L.segmentation_inflation(g))


# ------------------------------------------------------------------ Table 3


def _hand_table():
    # item i1: x [4, 2] -> 3, y [5, 5] -> 5, z [1, 3] -> 2
    # item i2: x [5, 5] -> 5, y [3, 1] -> 2, z [2, 2] -> 2
    vals = {("i1", "x"): (4, 2), ("i1", "y"): (5, 5), ("i1", "z"): (1, 3),
            ("i2", "x"): (5, 5), ("i2", "y"): (3, 1), ("i2", "z"): (2, 2)}  # fmt: skip
    ratings = pd.DataFrame(
        [(i, s, r, v) for (i, s), pair in vals.items() for r, v in zip(("A1", "A2"), pair)],
        columns=["sentence_id", "system", "annotator", "rating"],
    )
    # i3 is generated but not rated.
    counts = {("i1", "x"): 3, ("i1", "y"): 1, ("i1", "z"): 2, ("i2", "x"): 1, ("i2", "y"): 1, ("i2", "z"): 4,
              ("i3", "x"): 5, ("i3", "y"): 5, ("i3", "z"): 5}  # fmt: skip
    lengths = pd.DataFrame([(i, s, c) for (i, s), c in counts.items()], columns=["sentence_id", "system", "graphemes"])
    return ratings, lengths


def test_system_summary_hand_made_table():
    ratings, lengths = _hand_table()
    ead = pd.Series({"x": 0.3, "y": 0.5, "z": 0.1})
    wins = pd.DataFrame(
        {"system": ["z", "x", "y"], "win_rate": [0.9, 0.2, 0.5], "ci_low": [0.8, 0.1, 0.4], "ci_high": [1.0, 0.3, 0.6]}
    )
    t = L.system_summary(ratings, lengths, ead=ead, win_rates=wins, ci="t").set_index("system")
    assert t.index.tolist() == ["x", "y", "z"]  # sorted by MOS
    assert t["mos"].tolist() == pytest.approx([16 / 4, 14 / 4, 8 / 4])
    assert t["n_judgements"].tolist() == [4, 4, 4] and t["n_items"].tolist() == [2, 2, 2]
    assert t["mean_count"].tolist() == pytest.approx([2.0, 1.0, 3.0])  # rated items only: (3+1)/2, (1+1)/2, (2+4)/2
    assert t["rank_mos"].tolist() == [1, 2, 3]
    assert t["rank_count"].tolist() == [2, 3, 1]
    assert t["rank_ead"].tolist() == [2, 1, 3]
    assert t["rank_win"].tolist() == [3, 2, 1]
    assert t.loc["z", "win_ci_low"] == 0.8 and t.loc["x", "win_rate"] == 0.2
    # t-interval over the 2 item panel means, df = 1: x [3, 5] -> SE 1; y [5, 2] -> SE 1.5; z [2, 2] -> SE 0.
    q = stats.t.ppf(0.975, 1)  # 12.706
    assert t["mos_ci_low"].tolist() == pytest.approx([4 - q, 3.5 - 1.5 * q, 2.0])
    assert t["mos_ci_high"].tolist() == pytest.approx([4 + q, 3.5 + 1.5 * q, 2.0])
    # Over all outputs: x (3+1+5)/3, y (1+1+5)/3, z (2+4+5)/3.
    a = L.system_summary(ratings, lengths, count_over="all", ci="t").set_index("system")
    assert a["mean_count"].tolist() == pytest.approx([3.0, 7 / 3, 11 / 3])
    assert a["n_counted"].tolist() == [3, 3, 3]
    assert "ead" not in a.columns and "rank_win" not in a.columns


def test_system_summary_bootstrap_ci():
    ratings, lengths = _hand_table()
    # Resampling 2 items: x's MOS is 3, 4 or 5 with probabilities 1/4, 1/2, 1/4, so the 2.5 and 97.5
    # percentiles are 3 and 5; y's are 2 and 5; z's panel means are both 2, so its CI is [2, 2].
    t = L.system_summary(ratings, lengths, n_boot=2000, seed=1).set_index("system")
    assert t["mos_ci_low"].tolist() == pytest.approx([3.0, 2.0, 2.0])
    assert t["mos_ci_high"].tolist() == pytest.approx([5.0, 5.0, 2.0])
    # Seeded: reproducible, and the seed matters on continuous data.
    r, n = _simulate_lmm(0, n_items=30, n_systems=3)
    one = L.system_summary(r, n, n_boot=500, seed=3)
    pd.testing.assert_frame_equal(one, L.system_summary(r, n, n_boot=500, seed=3))
    assert not np.allclose(one["mos_ci_low"], L.system_summary(r, n, n_boot=500, seed=4)["mos_ci_low"])
    # With many items the percentile bootstrap agrees with the t-interval to within a few percent.
    r, n = _simulate_lmm(1, n_items=300, n_systems=3)
    boot = L.system_summary(r, n, n_boot=5000, seed=0)
    tint = L.system_summary(r, n, ci="t")
    width_b = boot["mos_ci_high"] - boot["mos_ci_low"]
    width_t = tint["mos_ci_high"] - tint["mos_ci_low"]
    # Two kinds of interval, not two computations: with 300 items they differ by a few percent, so 10 %.
    assert np.allclose(width_b, width_t, rtol=0.1)
    assert ((boot["mos_ci_low"] < boot["mos"]) & (boot["mos"] < boot["mos_ci_high"])).all()


def test_count_mos_fit_r2_is_squared_pearson():
    rng = np.random.default_rng(7)
    s = pd.DataFrame({"mean_count": rng.uniform(1, 5, 8)})
    s["mos"] = 2.5 + 0.15 * s["mean_count"] + rng.normal(0, 0.1, 8)
    f = L.count_mos_fit(s).iloc[0]
    r = np.corrcoef(s["mean_count"], s["mos"])[0, 1]
    assert f["r2"] == pytest.approx(r**2) and f["r"] == pytest.approx(r)
    slope, intercept = np.polyfit(s["mean_count"], s["mos"], 1)
    assert (f["slope"], f["intercept"]) == pytest.approx((slope, intercept))
    # R^2 of the line = 1 - SSR/SST.
    resid = s["mos"] - (intercept + slope * s["mean_count"])
    assert f["r2"] == pytest.approx(1 - (resid @ resid) / ((s["mos"] - s["mos"].mean()) ** 2).sum())
    # Spearman = Pearson of the ranks.
    assert f["rho"] == pytest.approx(np.corrcoef(s["mean_count"].rank(), s["mos"].rank())[0, 1])
    assert f["n_systems"] == 8
    # On the hand table: counts (2, 1, 3) against MOS (4, 3.5, 2).
    ratings, lengths = _hand_table()
    h = L.count_mos_fit(L.system_summary(ratings, lengths, ci="t")).iloc[0]
    assert h["rho"] == pytest.approx(-0.5)  # ranks (2, 1, 3) vs (3, 2, 1)
    assert h["r2"] == pytest.approx(np.corrcoef([2, 1, 3], [4, 3.5, 2])[0, 1] ** 2)


def test_ordering_correlation_and_mos_spread():
    s = pd.DataFrame(
        {"system": ["a", "b", "c", "d"], "mos": [3.4, 3.3, 3.1, 3.06], "win_rate": [0.4, 0.6, 0.5, np.nan]}
    )
    o = L.ordering_correlation(s).iloc[0]
    assert o["n_systems"] == 3  # d has no win rate
    # Ascending ranks: win rate (1, 3, 2), MOS (3, 2, 1); d^2 = 4 + 1 + 1 -> 1 - 6*6/(3*8) = -0.5.
    assert o["rho"] == pytest.approx(-0.5)
    m = L.mos_spread(s, pd.DataFrame({"slope": [0.17]})).iloc[0]
    assert (m["best"], m["worst"]) == ("a", "d")
    assert m["spread"] == pytest.approx(0.34) and m["emojis"] == pytest.approx(2.0)


# ------------------------------------------------------------------ length-matched comparisons


@pytest.mark.parametrize("tie_rule", L.TIE_RULES)
@pytest.mark.parametrize("score", L.SCORES)
def test_length_matched_comparisons_match_brute_force(score, tie_rule):
    total = 0
    for seed in range(6):
        ratings, lengths = _random_study(seed, drop=0.1 if seed % 2 else 0.0, categorical=seed == 4)
        got = L.length_matched_comparisons(ratings, lengths, score=score, tie_rule=tie_rule)
        want = _brute_comparisons(ratings, lengths, score=score, tie_rule=tie_rule)
        cols = [
            "sentence_id",
            "annotator",
            "system_a",
            "system_b",
            "count",
            "score_a",
            "score_b",
            "outcome",
            "points_a",
            "points_b",
        ]
        if score != "per_rater":
            assert "annotator" not in got.columns
            got = got.assign(annotator=None)
        norm = lambda r: tuple(round(v, 9) if isinstance(v, float) else v for v in r)  # noqa: E731
        key = lambda r: (r[0], str(r[1]), r[2], r[3])  # noqa: E731
        rows = [norm(r) for r in got[cols].itertuples(index=False)]
        assert sorted(rows, key=key) == sorted(map(norm, want), key=key)
        assert len(rows) == len(want)
        # The all-distinct items contribute nothing.
        assert not got["sentence_id"].isin(["it8", "it9"]).any()
        total += len(want)
        # Win rates: points and comparisons per system, Wilson CI.
        wr = L.matched_win_rates(got).set_index("system")
        for s in set(ratings["system"].astype(str)):
            pts = [r[8] for r in want if r[2] == s] + [r[9] for r in want if r[3] == s]
            if not pts:
                assert s not in wr.index
                continue
            assert wr.loc[s, "wins"] == pytest.approx(sum(pts))
            assert wr.loc[s, "comparisons"] == len(pts)
            assert wr.loc[s, "win_rate"] == pytest.approx(sum(pts) / len(pts))
            assert (wr.loc[s, "ci_low"], wr.loc[s, "ci_high"]) == pytest.approx(_wilson(sum(pts), len(pts)))
        assert wr["rank"].tolist() == sorted(wr["rank"].tolist())
        assert wr["rank"].iloc[0] == 1 and wr["win_rate"].iloc[0] == wr["win_rate"].max()
    assert total > 50  # the random designs do produce matches


def test_length_matched_comparisons_details():
    ratings, lengths = _random_study(0)
    half = L.length_matched_comparisons(ratings, lengths)
    drop = L.length_matched_comparisons(ratings, lengths, tie_rule="drop")
    loss = L.length_matched_comparisons(ratings, lengths, tie_rule="loss")
    n_ties = int((half["outcome"] == "tie").sum())
    assert n_ties > 0 and len(drop) == len(half) - n_ties and len(loss) == len(half)
    assert ((half["points_a"] + half["points_b"]) == 1).all()
    assert loss.loc[loss["outcome"] == "tie", ["points_a", "points_b"]].eq(0).all().all()
    # On a fully crossed design the sum and the panel mean give the same outcomes.
    s = L.length_matched_comparisons(ratings, lengths, score="sum")
    assert s["outcome"].tolist() == half["outcome"].tolist()
    # An item where no two systems share a length yields nothing; ratings name outputs only once.
    one = ratings[ratings["sentence_id"] == "it9"]
    assert L.length_matched_comparisons(one, lengths).empty
    with pytest.raises(KeyError, match="score="):
        L.length_matched_comparisons(ratings, lengths, rating="panel_mean")
    with pytest.raises(ValueError, match="tie_rule"):
        L.length_matched_comparisons(ratings, lengths, tie_rule="coin")


def test_matched_win_rate_reproduces_the_papers_wilson_interval():
    # Gemini-2.0-Flash: 0.603 [0.540, 0.664] is Wilson with 143 wins in 237 comparisons.
    c = pd.DataFrame({"system_a": ["g"] * 237, "system_b": ["o"] * 237, "points_a": [1.0] * 143 + [0.0] * 94})
    c["points_b"] = 1.0 - c["points_a"]
    w = L.matched_win_rates(c).set_index("system")
    # 0.60338, 0.53992, 0.66353: each at least 3e-5 from a rounding boundary, far beyond any host's last digits
    assert round(w.loc["g", "win_rate"], 3) == 0.603
    assert (round(w.loc["g", "ci_low"], 3), round(w.loc["g", "ci_high"], 3)) == (0.540, 0.664)
    cp = L.matched_win_rates(c, ci_method="beta").set_index("system")
    assert cp.loc["g", "ci_low"] < w.loc["g", "ci_low"]  # Clopper-Pearson is wider


# ------------------------------------------------------------------ mixed model


def test_mixed_model_recovers_slope_and_variances():
    ratings, lengths = _simulate_lmm(11, n_items=200, rater_slopes=(0.2,) * 4)
    m = L.length_mixed_model(ratings, lengths).iloc[0]
    assert m["n_obs"] == 200 * 8 * 4 and m["n_items"] == 200 and m["n_raters"] == 4
    assert abs(m["slope"] - 0.2) < 3 * m["se"]
    assert m["se"] < 0.02 and m["converged"]
    # Estimates from one simulated study (200 items, 6,400 ratings) against the truth: the item variance's sampling
    # error is about 0.1 relative, the residual's about 0.02; each bound is over three of them.
    assert m["var_item"] == pytest.approx(0.25, rel=0.35)
    assert m["var_residual"] == pytest.approx(1.0, rel=0.05)
    assert m["ci_low"] < m["slope"] < m["ci_high"]
    assert m["p"] == pytest.approx(2 * stats.norm.sf(abs(m["slope"] / m["se"])))


def test_mixed_model_se_matches_empirical_sd():
    slopes, ses = [], []
    # One BLAS thread: the matrices are tiny, and threads only contend on a busy machine.
    with threadpool_limits(1):
        for seed in range(120):
            ratings, lengths = _simulate_lmm(1000 + seed, n_items=20, n_systems=6)
            m = L.length_mixed_model(ratings, lengths).iloc[0]
            slopes.append(m["slope"])
            ses.append(m["se"])
    slopes = np.array(slopes)
    sd = slopes.std(ddof=1)
    # 120 replicates: the SD is known to ~6.5 % (so 20 % is 3 SE), the mean slope to sd/sqrt(120).
    assert np.mean(ses) == pytest.approx(sd, rel=0.2)
    assert abs(slopes.mean() - 0.2) < 3 * sd / np.sqrt(len(slopes))


def test_profiled_engine_agrees_with_statsmodels():
    ratings, lengths = _simulate_lmm(3, n_items=30, n_systems=8)
    for reml in (True, False):
        p = L.length_mixed_model(ratings, lengths, reml=reml).iloc[0]
        s = L.length_mixed_model(ratings, lengths, reml=reml, engine="statsmodels").iloc[0]
        # The profiled optimum is at least as good as statsmodels'.
        assert p["loglik"] >= s["loglik"] - 1e-6
        if abs(p["loglik"] - s["loglik"]) < 1e-4:  # same optimum: same estimates
            for k in ("intercept", "slope", "se", "var_item", "var_residual"):
                # Same optimum (log-likelihoods within 1e-4) reached by two optimisers: the estimates differ by about
                # the square root of the likelihood gap, the rater variance (poorly determined by 4 raters) more.
                assert p[k] == pytest.approx(s[k], rel=2e-3), k
            assert p["var_rater"] == pytest.approx(s["var_rater"], rel=2e-2)
        else:  # pragma: no cover - statsmodels stopped short; record it loudly
            pytest.fail(f"statsmodels did not reach the optimum (reml={reml}): {s['loglik']} < {p['loglik']}")
    # The engine does not depend on the order of the factors (it eliminates the largest one first).
    d = ratings.merge(lengths, on=["sentence_id", "system"])
    X = np.column_stack([np.ones(len(d)), d["graphemes"]])
    f1 = L._crossed_lmm(d["rating"], X, [d["sentence_id"], d["annotator"]])
    f2 = L._crossed_lmm(d["rating"], X, [d["annotator"], d["sentence_id"]])
    # The same fit with the factors eliminated in the other order: the optimiser stops at the same deviance to
    # rounding, at variances within about its square root.
    assert f1["vc"] == pytest.approx(f2["vc"][::-1], rel=1e-4)
    assert f1["beta"] == pytest.approx(f2["beta"], rel=1e-6)
    assert f1["vc"][0] == pytest.approx(L.length_mixed_model(ratings, lengths)["var_item"].iloc[0], rel=1e-6)


def test_per_annotator_slopes_recover_simulated_slopes():
    truth = {"A1": 0.1, "A2": -0.05, "A3": 0.35}
    ratings, lengths = _simulate_lmm(21, n_items=150, rater_slopes=tuple(truth.values()))
    for method in ("mixed", "fixed"):
        t = L.per_annotator_slopes(ratings, lengths, method=method).set_index("annotator")
        assert t.index.tolist() == list(truth)
        for a, b in truth.items():
            assert abs(t.loc[a, "slope"] - b) < 3 * t.loc[a, "se"], (method, a)
        assert t.loc["A3", "p"] < 1e-10 and (t["n_obs"] == 150 * 8).all()
    # The fixed-effects slope is OLS with item dummies, exactly.
    small = ratings[(ratings["annotator"] == "A3") & (ratings["sentence_id"] < 20)]
    f = L.per_annotator_slopes(small, lengths, method="fixed").iloc[0]
    d = small.merge(lengths, on=["sentence_id", "system"])
    ols = smf.ols("rating ~ graphemes + C(sentence_id)", data=d).fit()
    assert f["slope"] == pytest.approx(ols.params["graphemes"], rel=1e-9)
    assert f["se"] == pytest.approx(ols.bse["graphemes"], rel=1e-9)
    assert f["p"] == pytest.approx(ols.pvalues["graphemes"], rel=1e-6)
    assert f["df"] == ols.df_resid


# ------------------------------------------------------------------ annotators


def test_annotator_length_correlation():
    ratings, lengths = _hand_table()
    # A1's system means x (4+5)/2, y (5+3)/2, z (1+2)/2 = 4.5, 4, 1.5 against counts 2, 1, 3 -> rho -0.5;
    # A2's: x (2+5)/2, y (5+1)/2, z (3+2)/2 = 3.5, 3, 2.5 -> also ranks (3, 2, 1) -> -0.5.
    t = L.annotator_length_correlation(ratings, lengths).set_index("annotator")
    assert t["rho"].tolist() == pytest.approx([-0.5, -0.5]) and t["n_systems"].tolist() == [3, 3]
    # One rater tracks length perfectly, the other inversely.
    r = ratings.copy()
    cnt = r.merge(lengths, on=["sentence_id", "system"])["graphemes"]
    r["rating"] = np.where(r["annotator"] == "A1", cnt, 6 - cnt)
    t = L.annotator_length_correlation(r, lengths).set_index("annotator")
    assert t.loc["A1", "rho"] == pytest.approx(1.0) and t.loc["A2", "rho"] == pytest.approx(-1.0)


# ------------------------------------------------------------------ column names and input checks


def test_column_names_are_keywords():
    ratings, lengths = _random_study(2)
    names = {"sentence_id": "unit", "system": "model", "annotator": "judge", "rating": "score"}
    r2 = ratings.rename(columns=names)
    l2 = lengths.rename(columns={"sentence_id": "unit", "system": "model", "graphemes": "n"})
    kw = {"item": "unit", "system": "model", "rater": "judge", "rating": "score", "length": "n"}
    a = L.length_matched_comparisons(ratings, lengths)
    b = L.length_matched_comparisons(r2, l2, **kw)
    assert list(b.columns[:3]) == ["unit", "model_a", "model_b"]
    assert np.array_equal(a.iloc[:, 3:].to_numpy(), b.iloc[:, 3:].to_numpy())
    assert L.matched_win_rates(b, system="model").columns[0] == "model"
    sa = L.system_summary(ratings, lengths, n_boot=100)
    sb = L.system_summary(r2, l2, n_boot=100, **kw)
    assert np.allclose(sa.select_dtypes("number").astype(float), sb.select_dtypes("number").astype(float))
    assert L.per_annotator_slopes(r2, l2, **kw).columns[0] == "judge"
    assert L.annotator_length_correlation(r2, l2, **kw)["rho"].tolist() == pytest.approx(
        L.annotator_length_correlation(ratings, lengths)["rho"].tolist()
    )
    m = L.length_mixed_model(r2, l2, **kw)
    assert m["slope"].iloc[0] == pytest.approx(L.length_mixed_model(ratings, lengths)["slope"].iloc[0])


def test_input_checks():
    ratings, lengths = _hand_table()
    with pytest.raises(ValueError, match="no 'graphemes'"):
        L.system_summary(ratings, lengths[lengths["sentence_id"] != "i2"])
    with pytest.raises(ValueError, match="duplicated"):
        L.length_mixed_model(ratings, pd.concat([lengths, lengths.iloc[:1]]))
    with pytest.raises(KeyError, match="length="):
        L.system_summary(ratings, lengths, length="codepoints")
    # Missing ratings are dropped, not counted.
    r = pd.concat(
        [ratings, pd.DataFrame({"sentence_id": ["i1"], "system": ["x"], "annotator": ["A3"], "rating": [np.nan]})]
    )
    assert L.system_summary(r, lengths, ci="t").set_index("system").loc["x", "n_judgements"] == 4


# ------------------------------------------------------------------ doctests


def test_docstring_examples_run():
    from compendium.analyses.length import counts, matched, models

    results = [doctest.testmod(m, optionflags=doctest.NORMALIZE_WHITESPACE) for m in (counts, models, matched)]
    assert sum(r.attempted for r in results) >= 25
    assert sum(r.failed for r in results) == 0


def test_without_length_slope_removes_exactly_the_given_slope():
    rng = np.random.default_rng(11)
    rows, counts = [], []
    for i in range(40):
        for s in ("a", "b", "c"):
            n = int(rng.integers(1, 6))
            counts.append((i, s, n))
            for rater, slope in (("A1", 0.0), ("A2", 0.5)):
                rows.append((i, s, rater, 3 + slope * n + rng.normal(0, 0.1)))
    ratings = pd.DataFrame(rows, columns=["sentence_id", "system", "annotator", "rating"])
    lengths = pd.DataFrame(counts, columns=["sentence_id", "system", "graphemes"])
    adjusted = L.without_length_slope(ratings, lengths, {"A2": 0.5})
    a2 = adjusted[adjusted["annotator"] == "A2"].merge(lengths, on=["sentence_id", "system"])
    assert abs(np.polyfit(a2["graphemes"], a2["rating"], 1)[0]) < 0.05
    assert a2["rating"].mean() == pytest.approx(ratings.loc[ratings["annotator"] == "A2", "rating"].mean())
    untouched = adjusted["annotator"] == "A1"
    assert np.allclose(adjusted.loc[untouched, "rating"], ratings.loc[untouched, "rating"])
