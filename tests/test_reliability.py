"""Tests for compendium.stats, against independent references.

References pinned here:

* Krippendorff (2011), "Computing Krippendorff's alpha-reliability": the
  4 coders x 12 units example with missing values (nominal .743, ordinal
  .815, interval .849, ratio .797), recomputed with the ``krippendorff``
  package; and the 3 coders x 15 units example of the package's own
  documentation (nominal .691358, interval .810845).
* Shrout and Fleiss (1979), Table 2 (6 targets x 4 judges) and their
  published ICCs (.17, .29, .71, .44, .62, .91); pingouin's
  ``intraclass_corr`` on random data (every column, CIs included).
* statsmodels ``ols`` + ``anova_lm`` for the three-way ANOVA; the EMS
  equations solved as a linear system built from the Cornfield-Tukey rule;
  Monte Carlo unbiasedness of the variance components and calibration of the
  F tests; scipy for t tests, Pearson and Kendall; a hand-written Holm
  step-down.
* The paper's own numbers (section 4.2-4.3) for the G study, under both
  definitions of the system variance.
* The sounder analyses: statsmodels' ``AnovaRM`` on panel means for the F
  test against MS(item x system); Monte Carlo coverage of the quasi-F
  interval of the unbiased G (systems, items and raters drawn at random);
  a loop over the ``krippendorff`` package on whole resampled items for the
  item-cluster bootstrap of alpha.
"""

from __future__ import annotations

import doctest

import krippendorff
import numpy as np
import pandas as pd
import pingouin as pg
import pytest
import statsmodels.formula.api as smf
from scipy import stats
from statsmodels.stats.anova import anova_lm

from compendium.simulate.crossed import simulate_crossed
from compendium.stats import agreement, gtheory, panels, tidy
from compendium.data import schema

# Compares floats from CPU-dispatched code with outside values (alpha, ICC and G against published examples
# and the krippendorff and pingouin packages); make test runs this module again under the narrow CPU profile
# (tests/narrow_cpu.py).
pytestmark = pytest.mark.numerics

COMPONENTS = ("item", "annotator", "item:system", "item:annotator", "system:annotator", "residual")

# ------------------------------------------------------------------ fixtures
# Krippendorff (2011), p. 8 (and the krippendorff package's docstring): 4 coders
# (rows) x 12 units (columns), None = not coded.
K2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]
K2011_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}

# 3 coders x 15 units (Krippendorff's standard example, as in the package docs).
K15 = [
    [None, None, None, None, None, 3, 4, 1, 2, 1, 1, 3, 3, None, 3],
    [1, None, 2, 1, 3, 3, 4, 3, None, None, None, None, None, None, None],
    [None, None, 2, 1, 3, 4, 4, None, 2, 1, 1, 3, 3, None, 4],
]

# Shrout and Fleiss (1979), Table 2: 6 targets (rows) x 4 judges (columns).
SF_TABLE2 = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
SF_PUBLISHED = {
    "ICC(1,1)": 0.17,
    "ICC(2,1)": 0.29,
    "ICC(3,1)": 0.71,
    "ICC(1,k)": 0.44,
    "ICC(2,k)": 0.62,
    "ICC(3,k)": 0.91,
}


def coder_frame(matrix, unit="unit", rater="coder", rating="value") -> pd.DataFrame:
    """Tidy frame of a coders x units matrix, skipping uncoded cells."""
    rows = [(u, f"c{c}", v) for c, row in enumerate(matrix) for u, v in enumerate(row) if v is not None]
    return pd.DataFrame(rows, columns=[unit, rater, rating])


def as_array(matrix) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)


def random_ratings(n_items=40, n_systems=4, n_raters=3, seed=0, missing=0.0, scale=(1, 5)) -> pd.DataFrame:
    """Independent of simulate_crossed: rater bias + item effect + noise, on a scale."""
    rng = np.random.default_rng(seed)
    p, s, r = np.meshgrid(np.arange(n_items), np.arange(n_systems), np.arange(n_raters), indexing="ij")
    latent = (
        3
        + rng.normal(0, 0.7, n_raters)[r]
        + rng.normal(0, 0.6, n_items)[p]
        + rng.normal(0, 0.3, (n_items, n_systems))[p, s]
        + rng.normal(0, 0.8, p.shape)
    )
    df = pd.DataFrame(
        {
            "sentence_id": p.ravel(),
            "system": np.array([f"sys{i}" for i in range(n_systems)])[s.ravel()],
            "annotator": np.array([f"A{i + 1}" for i in range(n_raters)])[r.ravel()],
            "rating": np.clip(np.rint(latent.ravel()), *scale),
        }
    )
    if missing:
        df = df[rng.random(len(df)) >= missing].reset_index(drop=True)
    return df


def random_cube(rng, n_p, n_s, n_r, var, system_effects=None) -> np.ndarray:
    """Items x systems x raters draw of the random-effects model with variances `var`."""
    sd = {k: np.sqrt(var.get(k, 0.0)) for k in COMPONENTS}
    y = (
        sd["item"] * rng.standard_normal((n_p, 1, 1))
        + sd["annotator"] * rng.standard_normal((1, 1, n_r))
        + sd["item:system"] * rng.standard_normal((n_p, n_s, 1))
        + sd["item:annotator"] * rng.standard_normal((n_p, 1, n_r))
        + sd["system:annotator"] * rng.standard_normal((1, n_s, n_r))
        + sd["residual"] * rng.standard_normal((n_p, n_s, n_r))
    )
    if system_effects is not None:
        y = y + np.asarray(system_effects)[None, :, None]
    return y


def cube_frame(y: np.ndarray) -> pd.DataFrame:
    p, s, r = np.meshgrid(*(np.arange(n) for n in y.shape), indexing="ij")
    return pd.DataFrame(
        {
            "sentence_id": p.ravel(),
            "system": np.array([f"s{i}" for i in range(y.shape[1])])[s.ravel()],
            "annotator": np.array([f"r{i}" for i in range(y.shape[2])])[r.ravel()],
            "rating": y.ravel(),
        }
    )


# ---------------------------------------------------------------- defaults
def test_default_columns_come_from_the_schema():
    assert (tidy.ITEM, tidy.SYSTEM, tidy.RATER, tidy.RATING) == schema.COLUMNS[schema.RATINGS_FILE]


# ------------------------------------------------------- Krippendorff alpha
@pytest.mark.parametrize("level", list(K2011_ALPHA))
def test_alpha_krippendorff_2011_published_example(level):
    df = coder_frame(K2011)
    ours = agreement.krippendorff_alpha(df, unit="unit", rater="coder", rating="value", level=level)
    package = krippendorff.alpha(reliability_data=as_array(K2011), level_of_measurement=level)
    assert round(ours, 3) == K2011_ALPHA[level]
    assert round(float(package), 3) == K2011_ALPHA[level]
    assert ours == pytest.approx(float(package), abs=1e-12)


def test_alpha_package_documented_example():
    df = coder_frame(K15)
    kw = dict(unit="unit", rater="coder", rating="value")
    assert agreement.krippendorff_alpha(df, level="nominal", **kw) == pytest.approx(0.691358, abs=1e-6)
    assert agreement.krippendorff_alpha(df, level="interval", **kw) == pytest.approx(0.810845, abs=1e-6)


@pytest.mark.parametrize("level", agreement.LEVELS)
def test_vectorised_alpha_engine_equals_package_point_estimate(level):
    for matrix in (as_array(K2011), as_array(K15)):
        pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
        matrix = matrix[:, pairable]
        engine = agreement._AlphaBootstrap(matrix, level)
        ones = np.bincount(engine.pattern, minlength=engine.n_patterns)[None, :]
        expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert engine.alpha(ones)[0] == pytest.approx(float(expected), abs=1e-12)


def test_ordinal_alpha_depends_only_on_the_order_of_values():
    df = random_ratings(30, 3, 3, seed=4, missing=0.1)
    a = agreement.krippendorff_alpha(df, level="ordinal")
    b = agreement.krippendorff_alpha(df.assign(rating=np.exp(df["rating"])), level="ordinal")
    assert a == pytest.approx(b, abs=1e-12)
    # ... which the interval metric does not.
    c = agreement.krippendorff_alpha(df.assign(rating=np.exp(df["rating"])), level="interval")
    assert abs(agreement.krippendorff_alpha(df, level="interval") - c) > 1e-3


def test_alpha_unit_columns_missing_and_renaming():
    df = random_ratings(25, 3, 3, seed=2)
    base = agreement.krippendorff_alpha(df)  # unit = (sentence_id, system), ordinal
    key = df["sentence_id"].astype(str) + "|" + df["system"]
    assert agreement.krippendorff_alpha(df.assign(u=key), unit="u") == pytest.approx(base, abs=1e-12)
    renamed = df.rename(columns={"sentence_id": "i", "system": "s", "annotator": "j", "rating": "y"})
    assert agreement.krippendorff_alpha(renamed, unit=["i", "s"], rater="j", rating="y") == pytest.approx(
        base, abs=1e-12
    )
    # A NaN rating is the same as an absent row.
    holes = df.copy()
    holes.loc[[0, 5, 17], "rating"] = np.nan
    assert agreement.krippendorff_alpha(holes) == pytest.approx(agreement.krippendorff_alpha(holes.dropna()), abs=1e-12)
    assert agreement.krippendorff_alpha(holes) != pytest.approx(base, abs=1e-9)


def test_alpha_rejects_duplicated_ratings_and_perfect_agreement_is_one():
    df = random_ratings(10, 2, 3, seed=1)
    with pytest.raises(ValueError, match="more than one rating"):
        agreement.krippendorff_alpha(pd.concat([df, df.iloc[:2]]))
    same = df.assign(rating=df.groupby(["sentence_id", "system"])["rating"].transform("first"))
    assert agreement.krippendorff_alpha(same, level="interval") == pytest.approx(1.0)


def test_nominal_alpha_accepts_labels():
    df = coder_frame(K2011)
    labels = df.assign(value=df["value"].map({1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}))
    kw = dict(unit="unit", rater="coder", rating="value", level="nominal")
    assert agreement.krippendorff_alpha(labels, **kw) == pytest.approx(
        agreement.krippendorff_alpha(df, **kw), abs=1e-12
    )


# --------------------------------------------------------- alpha bootstrap
@pytest.mark.parametrize("level", agreement.LEVELS)
def test_bootstrap_equals_plain_loop_reference(level):
    df = random_ratings(40, 3, 3, seed=7, missing=0.15)
    kw = dict(level=level, n_boot=150, seed=11, return_dist=True)
    fast, reps_fast = agreement.alpha_bootstrap_ci(df, **kw)
    slow, reps_slow = agreement.alpha_bootstrap_ci_reference(df, **kw)
    assert np.isfinite(reps_fast).all()
    np.testing.assert_allclose(reps_fast, reps_slow, rtol=0, atol=1e-10)
    for col in ("alpha", "ci_low", "ci_high", "se"):
        assert fast[col][0] == pytest.approx(slow[col][0], abs=1e-10)
    assert fast["ci_low"][0] < fast["alpha"][0] < fast["ci_high"][0]
    assert fast["alpha"][0] == pytest.approx(agreement.krippendorff_alpha(df, level=level), abs=1e-12)
    assert reps_fast.std() > 0.005  # replicates really differ


def test_bootstrap_replicates_are_resampled_units_on_the_package():
    """One replicate recomputed by hand: the same unit indices, fed to the package."""
    df = random_ratings(15, 2, 3, seed=3, missing=0.1)
    _, reps = agreement.alpha_bootstrap_ci(df, n_boot=3, seed=5, return_dist=True)
    wide = df.pivot_table(index="annotator", columns=["sentence_id", "system"], values="rating").to_numpy()
    wide = wide[:, (~np.isnan(wide)).sum(axis=0) >= 2]
    idx = np.random.default_rng(5).integers(0, wide.shape[1], size=(3, wide.shape[1]))
    for b in range(3):
        expected = krippendorff.alpha(
            reliability_data=wide[:, idx[b]], value_domain=np.unique(wide[~np.isnan(wide)]),
            level_of_measurement="ordinal",
        )
        assert reps[b] == pytest.approx(float(expected), abs=1e-10)


def test_bootstrap_seed_and_global_state():
    df = random_ratings(20, 3, 3, seed=1)
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    a = agreement.alpha_bootstrap_ci(df, n_boot=100, seed=4)
    assert (np.random.get_state()[1] == before).all()
    b = agreement.alpha_bootstrap_ci(df, n_boot=100, seed=4)
    c = agreement.alpha_bootstrap_ci(df, n_boot=100, seed=5)
    pd.testing.assert_frame_equal(a, b)
    assert a["ci_low"][0] != c["ci_low"][0]
    # percentile interval of the returned replicates
    _, reps = agreement.alpha_bootstrap_ci(df, n_boot=100, seed=4, ci=0.9, return_dist=True)
    t = agreement.alpha_bootstrap_ci(df, n_boot=100, seed=4, ci=0.9)
    assert t["ci_low"][0] == pytest.approx(np.quantile(reps, 0.05))
    assert t["ci_high"][0] == pytest.approx(np.quantile(reps, 0.95))


def test_bootstrap_degenerate_replicates_are_nan_in_both():
    # Two pairable units: one in perfect agreement on 1, one on 2 and 3.
    df = pd.DataFrame(
        {"u": [0, 0, 1, 1], "r": ["a", "b", "a", "b"], "y": [1.0, 1.0, 2.0, 3.0]}
    )
    kw = dict(unit="u", rater="r", rating="y", level="interval", n_boot=60, seed=0, return_dist=True)
    fast, rf = agreement.alpha_bootstrap_ci(df, **kw)
    slow, rs = agreement.alpha_bootstrap_ci_reference(df, **kw)
    assert np.isnan(rf).any() and not np.isnan(rf).all()
    np.testing.assert_array_equal(np.isnan(rf), np.isnan(rs))
    np.testing.assert_allclose(rf[~np.isnan(rf)], rs[~np.isnan(rs)], atol=1e-10)
    assert fast["n_valid"][0] == int((~np.isnan(rf)).sum())


# ------------------------------------------------------ pairwise agreement
@pytest.mark.parametrize("level", ["ordinal", "nominal", "interval", "ratio"])
def test_pairwise_alpha_and_pearson_against_direct_computation(level):
    """Each pair's alpha (computed by the vectorised engine) is the krippendorff package's, on a 1-5 scale with
    missing ratings and on a 0-100 scale."""
    wide_scale = random_ratings(30, 3, 3, seed=4).assign(
        rating=lambda f: np.random.default_rng(4).integers(0, 101, len(f))
    )
    for df in (random_ratings(30, 3, 3, seed=9, missing=0.1), wide_scale):
        out = agreement.pairwise_alpha(df, level=level)
        assert list(out.columns) == ["annotator1", "annotator2", "n_units", "alpha", "r"]
        wide = df.pivot_table(index=["sentence_id", "system"], columns="annotator", values="rating")
        for row in out.itertuples():
            both = wide[[row.annotator1, row.annotator2]].dropna()
            assert row.n_units == len(both)
            assert row.r == pytest.approx(stats.pearsonr(both.iloc[:, 0], both.iloc[:, 1]).statistic)
            sub = wide[[row.annotator1, row.annotator2]].T.to_numpy()
            assert row.alpha == pytest.approx(
                float(krippendorff.alpha(reliability_data=sub, level_of_measurement=level)), abs=1e-12
            )
        pear = agreement.pairwise_pearson(df)
        np.testing.assert_allclose(pear["r"], out["r"])


def test_pearson_is_blind_to_bias_alpha_is_not():
    """The paper's point in miniature: r = 1, interval alpha far below 0."""
    rng = np.random.default_rng(0)
    x = rng.integers(1, 4, 50).astype(float)
    df = pd.DataFrame(
        {"sentence_id": np.tile(np.arange(50), 2), "system": "s", "annotator": ["A1"] * 50 + ["A2"] * 50,
         "rating": np.concatenate([x, x + 2])}
    )
    out = agreement.pairwise_alpha(df, level="interval")
    assert out["r"][0] == pytest.approx(1.0)
    assert out["alpha"][0] < -0.1


def test_rater_summary():
    df = random_ratings(20, 3, 3, seed=5, missing=0.2)
    out = agreement.rater_summary(df).set_index("annotator")
    g = df.groupby("annotator")["rating"]
    np.testing.assert_allclose(out["mean"], g.mean())
    np.testing.assert_allclose(out["sd"], g.std(ddof=1))
    assert out["n"].tolist() == g.size().tolist()


# ----------------------------------------------------------------------- ICC
def sf_frame() -> pd.DataFrame:
    return pd.DataFrame(
        [(t, j, x) for t, row in enumerate(SF_TABLE2) for j, x in enumerate(row)], columns=["target", "judge", "x"]
    )


def test_icc_shrout_fleiss_table2_published_values():
    out = agreement.icc(sf_frame(), target="target", rater="judge", rating="x")
    assert list(out.index) == list(agreement.ICC_TYPES)
    assert list(out.columns) == ["ICC", "F", "df1", "df2", "pval", "ci_low", "ci_high"]
    for kind, value in SF_PUBLISHED.items():
        assert round(out.loc[kind, "ICC"], 2) == value, kind
    # Their ANOVA (Table 3): BMS 11.24, WMS 6.26, JMS 32.49, EMS 1.02 -> F = BMS/EMS = 11.03
    assert out.loc["ICC(3,1)", "F"] == pytest.approx(11.24 / 1.02, rel=0.01)
    assert (out.loc["ICC(2,1)", "df1"], out.loc["ICC(2,1)", "df2"]) == (5, 15)
    assert (out.loc["ICC(1,1)", "df1"], out.loc["ICC(1,1)", "df2"]) == (5, 18)


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside pingouin 0.7 under pandas 3.1
def test_icc_equals_pingouin_on_random_data(monkeypatch):
    monkeypatch.setitem(pg.options, "round.column.CI95", None)  # pingouin rounds CIs to 2 places
    df = random_ratings(25, 1, 4, seed=6, scale=(1, 9))
    df = df.assign(rating=df["rating"] + np.random.default_rng(1).normal(0, 0.3, len(df)))
    ours = agreement.icc(df, target="sentence_id")
    theirs = pg.intraclass_corr(df, targets="sentence_id", raters="annotator", ratings="rating").set_index("Type")
    mapping = dict(zip(["ICC(1,1)", "ICC(A,1)", "ICC(C,1)", "ICC(1,k)", "ICC(A,k)", "ICC(C,k)"], agreement.ICC_TYPES))
    theirs = theirs.rename(index=mapping)
    for col in ("ICC", "F", "df1", "df2", "pval"):
        np.testing.assert_allclose(ours[col].astype(float), theirs.loc[ours.index, col].astype(float), rtol=1e-10)
    ci = np.vstack(theirs.loc[ours.index, "CI95"].to_numpy())
    np.testing.assert_allclose(ours["ci_low"], ci[:, 0], rtol=1e-8)
    np.testing.assert_allclose(ours["ci_high"], ci[:, 1], rtol=1e-8)


def test_icc_target_may_be_a_list_of_columns():
    df = random_ratings(15, 4, 3, seed=8)
    a = agreement.icc(df)  # default target (sentence_id, system)
    b = agreement.icc(df.assign(t=df["sentence_id"].astype(str) + "/" + df["system"]), target="t")
    pd.testing.assert_frame_equal(a, b)
    assert a.loc["ICC(2,1)", "df1"] == 15 * 4 - 1


def test_icc_missing_cells():
    df = random_ratings(15, 2, 3, seed=8).iloc[1:]
    with pytest.raises(ValueError, match="nan_policy"):
        agreement.icc(df)
    assert agreement.icc(df, nan_policy="omit").loc["ICC(1,1)", "df1"] == 15 * 2 - 2


# --------------------------------------------------------------------- ANOVA
def statsmodels_anova(df: pd.DataFrame) -> pd.DataFrame:
    model = smf.ols(
        "rating ~ C(sentence_id) + C(system) + C(annotator) + C(sentence_id):C(system)"
        " + C(sentence_id):C(annotator) + C(system):C(annotator)",
        data=df,
    ).fit()
    table = anova_lm(model, typ=2)
    names = {
        "C(sentence_id)": "item",
        "C(system)": "system",
        "C(annotator)": "annotator",
        "C(sentence_id):C(system)": "item:system",
        "C(sentence_id):C(annotator)": "item:annotator",
        "C(system):C(annotator)": "system:annotator",
        "Residual": "residual",
    }
    table = table.rename(index=names)
    table["MS"] = table["sum_sq"] / table["df"]
    return table


@pytest.fixture(scope="module")
def balanced():
    df = random_ratings(12, 4, 3, seed=21, scale=(-100, 100))
    df = df.assign(rating=df["rating"] + np.random.default_rng(2).normal(0, 1, len(df)))
    return df, statsmodels_anova(df)


def test_anova_table_equals_statsmodels(balanced):
    df, ref = balanced
    ours = gtheory.anova_table(df)
    assert list(ours.index) == list(gtheory.ANOVA_SOURCES)
    assert list(ours.columns) == ["SS", "df", "MS", "share"]
    for source in gtheory.ANOVA_SOURCES[:-1]:
        assert ours.loc[source, "SS"] == pytest.approx(ref.loc[source, "sum_sq"], rel=1e-9)
        assert ours.loc[source, "df"] == ref.loc[source, "df"]
        assert ours.loc[source, "MS"] == pytest.approx(ref.loc[source, "MS"], rel=1e-9)
    total = ((df["rating"] - df["rating"].mean()) ** 2).sum()
    assert ours.loc["total", "SS"] == pytest.approx(total)
    assert ours.loc[list(gtheory.ANOVA_SOURCES[:-1]), "SS"].sum() == pytest.approx(total)
    assert ours["share"].iloc[:-1].sum() == pytest.approx(1.0)
    assert ours.loc["residual", "df"] == 11 * 3 * 2
    # Row order and column names do not matter; an array gives the same table.
    shuffled = df.sample(frac=1, random_state=0).rename(columns={"rating": "y", "annotator": "judge"})
    pd.testing.assert_frame_equal(ours, gtheory.anova_table(shuffled, rater="judge", rating="y"))
    cube = df.sort_values(["sentence_id", "system", "annotator"])["rating"].to_numpy().reshape(12, 4, 3)
    pd.testing.assert_frame_equal(ours, gtheory.anova_table(cube))


def test_anova_names_missing_and_duplicated_cells():
    df = random_ratings(5, 3, 3, seed=1)
    with pytest.raises(ValueError, match=r"1 of 45 cells are missing.*\(3, 'sys1', 'A2'\)"):
        gtheory.anova_table(
            df.drop(index=df[(df.sentence_id == 3) & (df.system == "sys1") & (df.annotator == "A2")].index)
        )
    with pytest.raises(ValueError, match=r"more than one rating.*\(0, 'sys0', 'A1'\)"):
        gtheory.anova_table(pd.concat([df, df.iloc[[0]]]))
    with pytest.raises(ValueError, match="missing rating"):
        gtheory.anova_table(df.assign(rating=df["rating"].where(df.index != 4)))
    with pytest.raises(ValueError, match="not in the data"):
        gtheory.anova_table(df.drop(columns="system"))


def test_system_f_tests_against_statsmodels_mean_squares(balanced):
    df, ref = balanced
    out = gtheory.system_f_tests(gtheory.anova_table(df))
    ms = ref["MS"]
    f_res = ms["system"] / ms["residual"]
    f_sr = ms["system"] / ms["system:annotator"]
    assert out.loc["residual", "F"] == pytest.approx(f_res)
    assert (out.loc["residual", "df1"], out.loc["residual", "df2"]) == (3, 66)
    assert out.loc["residual", "pval"] == pytest.approx(stats.f.sf(f_res, 3, 66))
    assert out.loc["system:annotator", "F"] == pytest.approx(f_sr)
    assert (out.loc["system:annotator", "df1"], out.loc["system:annotator", "df2"]) == (3, 6)
    assert out.loc["system:annotator", "pval"] == pytest.approx(stats.f.sf(f_sr, 3, 6))
    den = ms["item:system"] + ms["system:annotator"] - ms["residual"]
    assert out.loc["quasi", "F"] == pytest.approx(ms["system"] / den)


def test_f_tests_monte_carlo_calibration():
    """Under H0 with raters random (sigma2_sr > 0, sigma2_ps = 0) the
    system x rater error term holds its level; the residual one does not."""
    rng = np.random.default_rng(2024)
    var = {"item": 0.3, "annotator": 0.5, "item:annotator": 0.3, "system:annotator": 0.4, "residual": 1.0}
    n_sim = 1500
    p = np.array(
        [gtheory.system_f_tests(gtheory.anova_table(random_cube(rng, 10, 4, 3, var)))["pval"] for _ in range(n_sim)]
    )
    reject = (p < 0.05).mean(axis=0)  # residual, system:annotator, quasi
    se = np.sqrt(0.05 * 0.95 / n_sim)
    assert abs(reject[1] - 0.05) < 4 * se
    assert reject[0] > 0.4


# ------------------------------------------------------- variance components
def ems_matrix(n):
    """Cornfield-Tukey rule, all facets random: E MS_a = sum over effects b
    containing a of (product of n over facets not in b) * sigma2_b."""
    effects = ["p", "s", "r", "ps", "pr", "sr", "psr"]
    a = np.zeros((7, 7))
    for i, e in enumerate(effects):
        for j, b in enumerate(effects):
            if set(e) <= set(b):
                a[i, j] = np.prod([n[f] for f in "psr" if f not in b])
    return effects, a


def test_variance_components_solve_the_ems_system(balanced):
    df, ref = balanced
    effects, a = ems_matrix({"p": 12, "s": 4, "r": 3})
    names = dict(zip(effects, [*gtheory.ANOVA_SOURCES[:-1]]))
    sigma = dict(zip(effects, np.linalg.solve(a, ref.loc[[names[e] for e in effects], "MS"].to_numpy())))
    vc = gtheory.variance_components(df)
    assert list(vc.index) == [*COMPONENTS, "system"]
    assert list(vc.columns) == ["raw", "variance", "share"]
    for e in ("p", "r", "ps", "pr", "sr", "psr"):
        assert vc.loc[names[e], "raw"] == pytest.approx(sigma[e], rel=1e-9, abs=1e-9)
    # system: the fixed-effect variance of the system means ...
    means = df.groupby("system")["rating"].mean()
    assert vc.loc["system", "variance"] == pytest.approx(((means - means.mean()) ** 2).mean())
    assert np.isnan(vc.loc["system", "share"])
    # ... or, corrected, (n_s - 1)/n_s times the random-model sigma2_s.
    corrected = gtheory.variance_components(df, system_variance="corrected")
    assert corrected.loc["system", "raw"] == pytest.approx(3 / 4 * sigma["s"], rel=1e-9)
    # shares are over the six random components, with truncated values
    assert vc["share"].iloc[:6].sum() == pytest.approx(1.0)
    assert (vc["variance"] >= 0).all()
    np.testing.assert_allclose(vc["variance"].iloc[:6], vc["raw"].iloc[:6].clip(lower=0))


def test_negative_estimates_are_truncated_but_kept_raw():
    # No system x rater variance at all: its raw estimate is negative about half the time.
    rng = np.random.default_rng(3)
    for _ in range(20):
        vc = gtheory.variance_components(random_cube(rng, 10, 4, 3, {"item": 1, "annotator": 1, "residual": 1}))
        if vc.loc["system:annotator", "raw"] < 0:
            break
    assert vc.loc["system:annotator", "raw"] < 0
    assert vc.loc["system:annotator", "variance"] == 0
    assert vc.loc["system:annotator", "share"] == 0
    total = vc["variance"].iloc[:6].sum()
    assert vc.loc["residual", "share"] == pytest.approx(vc.loc["residual", "variance"] / total)


def test_variance_components_unbiased_monte_carlo():
    """ANOVA estimators are unbiased under the random model: average over many draws.

    The restricted-mixed-model estimates (MS_r - MS_pr)/(n_p n_s) and
    (MS_p - MS_pr)/(n_s n_r) would be biased by sigma2_sr/n_s = 0.15 and
    sigma2_ps/n_s = 0.075, i.e. 7 and 10 standard errors here."""
    rng = np.random.default_rng(77)
    var = dict(zip(COMPONENTS, [0.5, 1.0, 0.3, 0.4, 0.6, 1.0]))
    raw = np.array(
        [gtheory.variance_components(random_cube(rng, 15, 4, 5, var))["raw"].iloc[:6].to_numpy() for _ in range(1200)]
    )
    mean, se = raw.mean(axis=0), raw.std(axis=0, ddof=1) / np.sqrt(len(raw))
    for k, name in enumerate(COMPONENTS):
        assert abs(mean[k] - var[name]) < 4.5 * se[k], (name, mean[k], se[k])


# ------------------------------------------------ the paper's own numbers
def paper_table() -> pd.DataFrame:
    """ANOVA table implied by sections 4.2-4.3.

    Reported: MS_system 11.85, MS_sr 20.25, F(7, 4046) = 18.62 (so MS_psr =
    11.85/18.62), and random-variance shares item 7.3, annotator 29.1,
    item x annotator 22.9, residual 32.6 (%). The remaining 8.1 % are
    sigma2_sr (fixed by MS_sr) and sigma2_ps. The other mean squares follow
    from the random-model EMS."""
    n_p, n_s, n_r = 290, 8, 3
    ms = {"system": 11.85, "system:annotator": 20.25, "residual": 11.85 / 18.62}
    total = ms["residual"] / 0.326
    s2 = {"item": 0.073 * total, "annotator": 0.291 * total, "item:annotator": 0.229 * total}
    s2["residual"] = ms["residual"]
    s2["system:annotator"] = (ms["system:annotator"] - ms["residual"]) / n_p
    s2["item:system"] = (1 - 0.073 - 0.291 - 0.229 - 0.326) * total - s2["system:annotator"]
    ms["item:system"] = s2["residual"] + n_r * s2["item:system"]
    ms["item:annotator"] = s2["residual"] + n_s * s2["item:annotator"]
    ms["item"] = s2["residual"] + n_s * s2["item:annotator"] + n_r * s2["item:system"] + n_s * n_r * s2["item"]
    ms["annotator"] = (
        s2["residual"] + n_s * s2["item:annotator"] + n_p * s2["system:annotator"] + n_p * n_s * s2["annotator"]
    )
    df = {
        "item": n_p - 1, "system": n_s - 1, "annotator": n_r - 1, "item:system": (n_p - 1) * (n_s - 1),
        "item:annotator": (n_p - 1) * (n_r - 1), "system:annotator": (n_s - 1) * (n_r - 1),
        "residual": (n_p - 1) * (n_s - 1) * (n_r - 1),
    }
    table = pd.DataFrame({"df": pd.Series(df), "MS": pd.Series(ms)}).loc[list(gtheory.ANOVA_SOURCES[:-1])]
    table["SS"] = table["MS"] * table["df"]
    table.loc["total"] = [n_p * n_s * n_r - 1, np.nan, table["SS"].sum()]
    table["share"] = table["SS"] / table.loc["total", "SS"]
    return table[["SS", "df", "MS", "share"]]


def test_paper_numbers_are_consistent_under_the_random_model_ems():
    """Non-circular check: the reported sums-of-squares shares (item 18.8 %,
    annotator 22.1 %, system 0.7 %) follow from the reported variance-component
    shares under the random-model EMS (item 18.75 %, annotator 22.03 %); the
    restricted mixed model would give item 18.3 %."""
    table = paper_table()
    # The paper prints one decimal, and the shares it reports come from its own EMS convention (18.75 % and 22.03 %
    # under this one): 0.15 points.
    assert table.loc["item", "share"] * 100 == pytest.approx(18.8, abs=0.15)
    assert table.loc["annotator", "share"] * 100 == pytest.approx(22.1, abs=0.15)
    assert table.loc["system", "share"] * 100 == pytest.approx(0.7, abs=0.05)
    vc = gtheory.variance_components(table)
    for name, pct in {"item": 7.3, "annotator": 29.1, "item:annotator": 22.9, "residual": 32.6}.items():
        assert vc.loc[name, "share"] * 100 == pytest.approx(pct, abs=1e-9)
    f = gtheory.system_f_tests(table)
    # The mean squares are rebuilt from the paper's rounded sums of squares: F to three decimals, p to two.
    assert f.loc["system:annotator", "F"] == pytest.approx(0.585, abs=0.001)  # paper: 0.59
    assert f.loc["system:annotator", "pval"] == pytest.approx(0.76, abs=0.01)
    assert (f.loc["residual", "df1"], f.loc["residual", "df2"]) == (7, 4046)
    assert f.loc["residual", "pval"] < 1e-16


def test_paper_g_study_from_its_mean_squares():
    vc = gtheory.variance_components(paper_table())
    # sigma2_s = sum (mu_s - mu)^2 / n_s = SS_s / (n_p n_s n_r) = 7 * 11.85 / 6960
    assert vc.loc["system", "variance"] == pytest.approx(7 * 11.85 / 6960)
    assert gtheory.g_coefficient(vc, 290, 3) == pytest.approx(0.336, abs=0.001)  # paper: G = 0.336
    assert gtheory.raters_needed(vc, 290, 0.8) == 27  # paper: 27
    # paper: 70; from the rounded mean squares G(69) = 0.90001, on the boundary
    assert gtheory.raters_needed(vc, 290, 0.9) in (69, 70)
    assert round(gtheory.g_limit(vc, 3), 2) == 0.35  # paper: 0.35
    # With the system variance corrected for the sampling error of the means,
    # MS_system < MS_sr makes it negative: truncated to 0, and G = 0.
    corrected = gtheory.variance_components(paper_table(), system_variance="corrected")
    assert corrected.loc["system", "raw"] < 0
    assert gtheory.g_coefficient(corrected, 290, 3) == 0.0


def test_observed_system_variance_gives_g_near_half_without_any_system_effect():
    """The docstring's warning: with theta2_s = 0 the observed-variance G is
    about (n_s - 1)/(2 n_s - 1) = 7/15 for 8 systems; the corrected one is not."""
    rng = np.random.default_rng(5)
    var = {"item": 0.15, "annotator": 0.55, "item:system": 0.09, "item:annotator": 0.45,
           "system:annotator": 0.07, "residual": 0.64}  # about the paper's components
    g, g_corrected = [], []
    for _ in range(300):
        table = gtheory.anova_table(random_cube(rng, 50, 8, 3, var))
        g.append(gtheory.g_coefficient(gtheory.variance_components(table), 50, 3))
        g_corrected.append(
            gtheory.g_coefficient(gtheory.variance_components(table, system_variance="corrected"), 50, 3)
        )
    # The mean of 300 simulated G (standard error 0.009) against the large-sample value 7/15, which it misses by about
    # 0.03 at 50 items and 3 raters (measured: 0.435): 0.05.
    assert np.mean(g) == pytest.approx(7 / 15, abs=0.05)
    assert np.mean(g_corrected) < 0.25


# -------------------------------------------------------------- G and D study
VC = {"system": 0.02, "system:annotator": 0.07, "item:system": 0.09, "residual": 0.64}


def test_g_coefficient_formula_and_vectorisation():
    g = gtheory.g_coefficient(VC, 290, 3)
    assert g == pytest.approx(0.02 / (0.02 + 0.07 / 3 + 0.09 / 290 + 0.64 / 870))
    grid = gtheory.g_coefficient(VC, np.array([[10], [100]]), np.array([1, 3, 9]))
    assert grid.shape == (2, 3)
    assert (np.diff(grid, axis=0) > 0).all() and (np.diff(grid, axis=1) > 0).all()
    series = pd.Series({**VC, "item": 5.0})
    assert gtheory.g_coefficient(series, 290, 3) == pytest.approx(g)
    with pytest.raises(ValueError, match="missing"):
        gtheory.g_coefficient({"system": 1.0}, 10, 3)


def test_decision_study_limits():
    n_r = np.array([1, 3, 27])
    # items -> infinity: sigma2_s / (sigma2_s + sigma2_sr / n_r)
    limit = VC["system"] / (VC["system"] + VC["system:annotator"] / n_r)
    np.testing.assert_allclose(gtheory.g_limit(VC, n_r), limit)
    np.testing.assert_allclose(gtheory.g_coefficient(VC, 1e12, n_r), limit, rtol=1e-9)
    # raters -> infinity: sigma2_s / (sigma2_s + sigma2_ps / n_p)
    np.testing.assert_allclose(
        gtheory.g_coefficient(VC, 290, 1e12), VC["system"] / (VC["system"] + VC["item:system"] / 290), rtol=1e-9
    )
    # three raters never reach 0.8 at any number of items
    assert gtheory.g_limit(VC, 3) < 0.8
    # G >= 0.75 with infinitely many items: 0.07 / n_r <= 0.02 / 3, n_r >= 10.5
    assert gtheory.raters_needed(VC, np.inf, 0.75) == 11
    d = gtheory.decision_study(VC, [50, 290, np.inf], [3, 9])
    assert list(d.columns) == ["n_items", "n_raters", "G"]
    expected = [[50, 3], [50, 9], [290, 3], [290, 9], [np.inf, 3], [np.inf, 9]]
    assert d[["n_items", "n_raters"]].to_numpy().tolist() == expected
    np.testing.assert_allclose(d["G"], gtheory.g_coefficient(VC, d["n_items"], d["n_raters"]))


def test_raters_needed_exact_at_boundary_and_monotone():
    exact = {"system": 1.0, "system:annotator": 2.5, "item:system": 0.0, "residual": 0.0}
    assert gtheory.g_coefficient(exact, 100, 10) == 0.8
    assert gtheory.raters_needed(exact, 100, 0.8) == 10
    assert gtheory.raters_needed(exact, 100, 0.8 + 1e-12) == 11
    for n_p in (50, 290, 5000):
        needs = [gtheory.raters_needed(VC, n_p, t) for t in (0.5, 0.6, 0.7, 0.8)]
        assert needs == sorted(needs)
        for t, n in zip((0.5, 0.6, 0.7, 0.8), needs):
            assert gtheory.g_coefficient(VC, n_p, n) >= t
            assert n == 1 or gtheory.g_coefficient(VC, n_p, n - 1) < t
    # unreachable: sigma2_ps / n_p alone exceeds the error budget
    assert gtheory.raters_needed({**VC, "item:system": 100.0}, 290, 0.9) is None
    assert gtheory.raters_needed({**VC, "system": 0.0}, 290, 0.5) is None


# -------------------------------------------------------- system comparisons
def holm(p):
    """Holm step-down adjusted p-values, written out."""
    p = np.asarray(p)
    order = np.argsort(p)
    adj = np.empty_like(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (len(p) - rank) * p[i])
        adj[i] = min(1.0, running)
    return adj


@pytest.fixture(scope="module")
def eight_systems():
    return random_ratings(60, 8, 3, seed=13)


def test_pairwise_tests_over_items(eight_systems):
    df = eight_systems
    out = panels.pairwise_system_tests(df, unit="item")
    assert len(out) == 28
    panel = df.pivot_table(index="sentence_id", columns="system", values="rating", aggfunc="mean")
    for row in out.itertuples():
        res = stats.ttest_rel(panel[row.system1], panel[row.system2])
        assert row.t == pytest.approx(res.statistic)
        assert row.pval == pytest.approx(res.pvalue)
        assert row.df == 59
        assert row.diff == pytest.approx((panel[row.system1] - panel[row.system2]).mean())
    np.testing.assert_allclose(out["pval_holm"], holm(out["pval"]))
    assert (out["pval_holm"] >= out["pval"]).all()
    assert (out["significant"] == (out["pval"] < 0.05)).all()
    assert out["significant_holm"].sum() <= out["significant"].sum()


def test_pairwise_tests_over_annotators(eight_systems):
    df = eight_systems
    out = panels.pairwise_system_tests(df, unit="annotator")
    assert len(out) == 28
    assert (out["df"] == 2).all() and (out["n"] == 3).all()
    means = df.pivot_table(index="annotator", columns="system", values="rating", aggfunc="mean")
    for row in out.itertuples():
        assert row.pval == pytest.approx(stats.ttest_rel(means[row.system1], means[row.system2]).pvalue)
    assert (out["pval_holm"] >= out["pval"] - 1e-15).all()
    with pytest.raises(ValueError, match="unit"):
        panels.pairwise_system_tests(df, unit="system")


def test_sign_consistency():
    # annotator means: x > y for all three; x vs z and y vs z split.
    df = pd.DataFrame(
        {"system": ["x", "y", "z"] * 3, "annotator": np.repeat(["A1", "A2", "A3"], 3),
         "rating": [5, 3, 1, 4, 2, 5, 3, 1, 3]}
    )
    out = panels.sign_consistency(df).set_index(["system1", "system2"])
    assert out.loc[("x", "y"), "consistent"] and out.loc[("x", "y"), "n_positive"] == 3
    assert not out.loc[("x", "z"), "consistent"]
    assert out.loc[("y", "z"), "n_zero"] == 0 and out.loc[("y", "z"), "n_negative"] == 2
    # x - z per annotator: +4, -1, 0
    assert out.loc[("x", "z"), ["n_raters", "n_positive", "n_negative", "n_zero"]].tolist() == [3, 1, 1, 1]
    assert int(out["consistent"].sum()) == 1


# ------------------------------------------------------------ panel dependence
@pytest.fixture
def flip_panel():
    """3 raters x 3 systems x 2 items; rater means
    A1: x 4, y 3, z 1;  A2: x 5, y 1, z 2;  A3: x 2, y 4, z 3.
    Full panel: x 3.67 > y 2.67 > z 2. Without A2: y 3.5 > x 3 > z 2 (the
    winner flips). Without A1: x 3.5 > y = z = 2.5 (a tie). Without A3: x."""
    means = {"A1": (4, 3, 1), "A2": (5, 1, 2), "A3": (2, 4, 3)}
    rows = []
    for a, ms in means.items():
        for sysname, m in zip("xyz", ms):
            spread = 1 if (a, sysname) == ("A3", "x") else 0  # A3 rates x 1 and 3
            rows += [(1, sysname, a, m - spread), (2, sysname, a, m + spread)]
    return pd.DataFrame(rows, columns=["sentence_id", "system", "annotator", "rating"])


def test_leave_one_annotator_out(flip_panel):
    out = panels.leave_one_annotator_out(flip_panel)
    assert list(out.columns) == ["panel", "system", "mean", "rank", "winner"]
    assert out["panel"].unique().tolist() == ["all", "without A1", "without A2", "without A3"]
    winners = out.groupby("panel", sort=False)["winner"].first().to_dict()
    assert winners == {"all": "x", "without A1": "x", "without A2": "y", "without A3": "x"}
    rank = out.set_index(["panel", "system"])["rank"]
    assert rank["all"].to_dict() == {"x": 1, "y": 2, "z": 3}
    assert rank["without A2"].to_dict() == {"y": 1, "x": 2, "z": 3}
    assert rank["without A1"].to_dict() == {"x": 1, "y": 2, "z": 2}  # tie: method="min"
    mean = out.set_index(["panel", "system"])["mean"]
    assert mean[("without A2", "y")] == pytest.approx(3.5)
    assert mean[("all", "x")] == pytest.approx(11 / 3)
    changed = sum(winners[p] != winners["all"] for p in winners if p != "all")
    assert changed == 1


def test_kendall_between_raters(flip_panel):
    out = panels.kendall_between_raters(flip_panel)
    taus = {(r.annotator1, r.annotator2): r.tau for r in out.itertuples()}
    # by hand from the rater means in flip_panel's docstring
    assert taus[("A1", "A2")] == pytest.approx(1 / 3)
    assert taus[("A1", "A3")] == pytest.approx(-1 / 3)
    assert taus[("A2", "A3")] == pytest.approx(-1.0)
    assert (out["n_systems"] == 3).all()


def test_split_half_reliability():
    # Raters who agree perfectly about systems: every split correlates 1.
    rng = np.random.default_rng(0)
    sys_eff = np.array([0.0, 0.5, 1.0, 1.5, 2.0])
    y = sys_eff[None, :, None] + rng.normal(0, 1, (1, 1, 8))  # rater offsets only
    y = np.broadcast_to(y, (10, 5, 8))
    perfect = panels.split_half_reliability(cube_frame(y), n_splits=10, seed=1)
    np.testing.assert_allclose(perfect["r"], 1.0)
    np.testing.assert_allclose(perfect["reliability"], 1.0)
    # One split recomputed by hand: same permutation of the sorted raters.
    noise = cube_frame(rng.normal(size=(30, 8, 10)))
    out = panels.split_half_reliability(noise, n_splits=300, seed=2)
    perm = np.random.default_rng(2).permutation(10)
    raters = np.array(sorted(noise["annotator"].unique()))
    half = [noise[noise["annotator"].isin(raters[perm[i * 5 : (i + 1) * 5]])] for i in (0, 1)]
    m = [h.groupby("system")["rating"].mean() for h in half]
    assert out["r"][0] == pytest.approx(np.corrcoef(m[0], m[1])[0, 1])
    # Spearman-Brown with k = R / floor(R/2): 2r/(1+r) for R = 10; 9/4 for R = 9
    np.testing.assert_allclose(out["reliability"], 2 * out["r"] / (1 + out["r"]))
    nine = panels.split_half_reliability(noise[noise["annotator"] != "r9"], n_splits=5, seed=2)
    k = 9 / 4
    np.testing.assert_allclose(nine["reliability"], k * nine["r"] / (1 + (k - 1) * nine["r"]))
    # Pure noise: over many independent panels, split-half correlations centre on 0.
    r0 = [
        panels.split_half_reliability(cube_frame(rng.normal(size=(5, 8, 6))), n_splits=3, seed=i)["r"].mean()
        for i in range(150)
    ]
    assert abs(np.mean(r0)) < 4 * np.std(r0) / np.sqrt(len(r0))
    # seeded, no global state
    pd.testing.assert_frame_equal(out, panels.split_half_reliability(noise, n_splits=300, seed=2))


# ------------------------------------------------------------------ simulate
def test_simulate_crossed_shape_and_names():
    df = simulate_crossed(5, 8, 3, seed=0, scale=(1, 5))
    assert list(df.columns) == list(schema.COLUMNS[schema.RATINGS_FILE])
    assert len(df) == 5 * 8 * 3
    assert sorted(df["annotator"].unique()) == list(schema.ANNOTATORS)
    assert df["rating"].between(1, 5).all()
    with pytest.raises(ValueError, match="unknown component"):
        simulate_crossed(5, 2, 2, components={"rater": 1.0})


# ------------------------------------------------------------------ doctests
def test_docstring_examples_run():
    results = [doctest.testmod(m, optionflags=doctest.NORMALIZE_WHITESPACE) for m in (agreement, gtheory, panels)]
    assert sum(r.attempted for r in results) >= 40
    assert sum(r.failed for r in results) == 0


# ------------------------------------------------- SHCMP and the panel summary
def _crossed(ratings_by_rater: dict[str, list[float]], n_items: int, systems=("s1", "s2")) -> pd.DataFrame:
    rows = []
    for rater_name, values in ratings_by_rater.items():
        cells = iter(values)
        for i in range(n_items):
            for s in systems:
                rows.append((f"i{i}", s, rater_name, next(cells)))
    return pd.DataFrame(rows, columns=["sentence_id", "system", "annotator", "rating"])


def test_split_half_class_match_by_hand():
    # Two raters, so every split compares A1 with A2. Units (i0,s1)..(i1,s2):
    # A1 = 1, 2, 5, 4 and A2 = 1, 4, 5, 3 -> bins of width 0.8 over [1, 5]:
    # A1 bins 0, 1, 4, 3; A2 bins 0, 3, 4, 2 -> 2 of 4 units match = 50 %.
    data = _crossed({"A1": [1, 2, 5, 4], "A2": [1, 4, 5, 3]}, n_items=2)
    out = panels.split_half_class_match(data, n_bins=5, n_splits=7, seed=3)
    assert out["shcmp"].iloc[0] == pytest.approx(50.0) and out["sd"].iloc[0] == pytest.approx(0.0)
    one_bin = panels.split_half_class_match(data, n_bins=1, n_splits=3, seed=3)
    assert one_bin["shcmp"].iloc[0] == pytest.approx(100.0)


def test_split_half_class_match_grows_with_panel_size():
    rng = np.random.default_rng(5)
    n_items, systems = 60, ("s1", "s2", "s3")
    truth = rng.normal(3, 1, size=n_items * len(systems))

    def panel(n):
        return _crossed({f"R{k}": np.clip(np.rint(truth + rng.normal(0, 1.2, truth.size)), 1, 5) for k in range(n)},
                        n_items, systems)

    small = panels.split_half_class_match(panel(2), n_splits=50, seed=1)["shcmp"].iloc[0]
    large = panels.split_half_class_match(panel(20), n_splits=50, seed=1)["shcmp"].iloc[0]
    assert large > small + 10


def test_panel_summary_matches_its_parts():
    data = simulate_crossed(20, 4, 3, seed=2)
    summary = panels.panel_summary(data)
    table = gtheory.anova_table(data)
    tests = gtheory.system_f_tests(table)
    assert summary["F_vs_interaction"] == pytest.approx(tests.loc["system:annotator", "F"])
    assert summary["G"] == pytest.approx(gtheory.g_coefficient(gtheory.variance_components(table), 20, 3))
    means = data.groupby("system", observed=True)["rating"].mean()
    assert summary["winner"] == str(means.idxmax())
    single = panels.panel_summary(data[data["annotator"] == data["annotator"].iloc[0]])
    assert single["n_raters"] == 1 and single["G"] is None and len(single["leaderboard"]) == 4


# ------------------------------------- sounder analyses: error terms, G, alpha
def test_item_by_system_f_equals_repeated_measures_anova_on_panel_means(balanced):
    """The paired-over-items omnibus test: statsmodels' AnovaRM on the panel
    means (items as subjects, systems within) uses MS(item x system) as its
    error, and gives the F of the ``item:system`` row."""
    from statsmodels.stats.anova import AnovaRM

    df, ref = balanced
    out = gtheory.system_f_tests(gtheory.anova_table(df))
    means = df.groupby(["sentence_id", "system"], as_index=False)["rating"].mean()
    rm = AnovaRM(means, depvar="rating", subject="sentence_id", within=["system"]).fit().anova_table
    assert out.loc["item:system", "F"] == pytest.approx(rm.loc["system", "F Value"], rel=1e-9)
    assert (out.loc["item:system", "df1"], out.loc["item:system", "df2"]) == (rm.loc["system", "Num DF"],
                                                                             rm.loc["system", "Den DF"])
    assert out.loc["item:system", "pval"] == pytest.approx(rm.loc["system", "Pr > F"], rel=1e-9)
    assert out.loc["item:system", "error_MS"] == pytest.approx(ref["MS"]["item:system"])
    assert out["error_term"].str.startswith("MS(").all()


def test_g_study_unbiased_g_from_the_papers_table_1_is_zero():
    from compendium.stats import gtheory

    study = gtheory.g_study(paper_table())
    assert study.loc["observed", "G"] == pytest.approx(0.336, abs=0.001)  # paper: 0.336
    assert study.loc["observed", "raters_for_G80"] == 27
    assert study.loc["unbiased", "G"] == 0.0
    assert np.isnan(study.loc["unbiased", "raters_for_G80"]) and np.isnan(study.loc["unbiased", "raters_for_G90"])
    # The bound from the two mean squares Table 1 reports is above the exact raw value, and negative.
    bound = gtheory.unbiased_system_variance_bound(11.85, 20.25, 290, 8, 3)
    assert study.loc["unbiased", "system_variance_raw"] <= bound < 0


def _cube_with_random_systems(rng, n_p, n_s, n_r, var, s2):
    return random_cube(rng, n_p, n_s, n_r, var, system_effects=rng.normal(0, np.sqrt(s2), n_s))


@pytest.mark.parametrize("s2", [0.1, 0.0])
def test_g_interval_coverage_monte_carlo(s2):
    """Coverage of the 95 % interval of the unbiased G, systems drawn at random
    (variance s2) and items and raters random: the population G is
    c s2 / (c s2 + s2_sr/n_r + s2_ps/n_p + s2_psr/(n_p n_r)), c = (n_s-1)/n_s.
    400 replicates: the binomial SD of the coverage is 0.011; the tolerance is
    four of them. With no system variance (G = 0) the interval is truncated at
    0 and covers at least 95 %."""
    from compendium.stats import gtheory

    rng = np.random.default_rng(11)
    n_p, n_s, n_r, n_sim = 15, 5, 3, 400
    var = {"item": 0.2, "annotator": 0.3, "item:system": 0.3, "item:annotator": 0.3,
           "system:annotator": 0.1, "residual": 1.0}
    c = (n_s - 1) / n_s
    err = var["system:annotator"] / n_r + var["item:system"] / n_p + var["residual"] / (n_p * n_r)
    truth = c * s2 / (c * s2 + err)
    hits = 0
    for _ in range(n_sim):
        low, high = gtheory.g_interval(gtheory.anova_table(_cube_with_random_systems(rng, n_p, n_s, n_r, var, s2)),
                                       systems="random")
        hits += low <= truth <= high
    coverage, tol = hits / n_sim, 4 * np.sqrt(0.95 * 0.05 / n_sim)
    if s2 > 0:
        assert abs(coverage - 0.95) < tol, coverage
    else:
        assert coverage > 0.95 - tol, coverage


@pytest.mark.parametrize("effects", [(0.0, 0.2, 0.4, 0.6, 0.8), (0.0, 0.0, 0.0, 0.0, 0.0)])
def test_g_interval_of_the_fixed_systems_covers_their_g_monte_carlo(effects):
    """The audit's interval (issue 72): the same systems in every replicate (fixed effects), items and raters
    random; the truth is G = s / (s + err) with s = sum (b - mean b)^2 / n_s, the variance of the systems' own
    means. 400 replicates: the tolerance is four binomial SDs (0.044); with no system effect (G = 0) the
    interval's lower end is 0 and it covers at least 95 % less that tolerance."""
    from compendium.stats import gtheory

    rng = np.random.default_rng(12)
    n_p, n_r, n_sim = 15, 3, 400
    b = np.asarray(effects)
    var = {"item": 0.2, "annotator": 0.3, "item:system": 0.3, "item:annotator": 0.3,
           "system:annotator": 0.1, "residual": 1.0}
    err = var["system:annotator"] / n_r + var["item:system"] / n_p + var["residual"] / (n_p * n_r)
    s = float(((b - b.mean()) ** 2).mean())
    truth = s / (s + err)
    hits = 0
    for _ in range(n_sim):
        low, high = gtheory.g_interval(gtheory.anova_table(random_cube(rng, n_p, len(b), n_r, var, system_effects=b)))
        hits += low <= truth <= high
    coverage, tol = hits / n_sim, 4 * np.sqrt(0.95 * 0.05 / n_sim)
    assert (abs(coverage - 0.95) < tol) if s > 0 else (coverage > 0.95 - tol), coverage


def test_g_interval_contains_the_estimate_and_is_monotone_in_ci():
    from compendium.stats import gtheory

    table = gtheory.anova_table(random_cube(np.random.default_rng(3), 30, 6, 4, dict(zip(COMPONENTS, [0.2] * 6)),
                                            system_effects=np.linspace(0, 1, 6)))
    study = gtheory.g_study(table)
    low, high = study.loc["unbiased", ["ci_low", "ci_high"]]
    assert low <= study.loc["unbiased", "G"] <= high
    low90, high90 = gtheory.g_interval(table, ci=0.90)
    assert low <= low90 and high90 <= high


def test_alpha_cluster_bootstrap_equals_a_loop_over_the_krippendorff_package():
    """Replicate by replicate, the vectorised item-cluster bootstrap equals
    resampling whole items and calling krippendorff.alpha on the result."""
    from compendium.stats import agreement

    data = simulate_crossed(12, 3, 3, seed=4, scale=(1, 5))
    data = data.drop(index=[0, 7, 20])  # missing ratings: some units lose a rater
    for level in ("ordinal", "interval", "nominal"):
        table, reps = agreement.alpha_cluster_bootstrap_ci(data, level=level, n_boot=40, seed=9, return_dist=True)
        wide = data.pivot_table(index="annotator", columns=["sentence_id", "system"], values="rating")
        items = np.array(sorted(data["sentence_id"].unique()))
        domain = np.unique(data["rating"])
        rng = np.random.default_rng(9)
        draws = rng.integers(0, len(items), size=(40, len(items)))
        expected = []
        for draw in draws:
            cols = np.concatenate([np.flatnonzero(wide.columns.get_level_values(0) == items[i]) for i in draw])
            matrix = wide.to_numpy()[:, cols]
            matrix = matrix[:, (~np.isnan(matrix)).sum(axis=0) >= 2]
            expected.append(krippendorff.alpha(reliability_data=matrix, value_domain=domain,
                                               level_of_measurement=level))
        np.testing.assert_allclose(reps, expected, rtol=1e-9, atol=1e-12)
        assert table["n_clusters"].iloc[0] == 12
        assert table["alpha"].iloc[0] == pytest.approx(agreement.krippendorff_alpha(data, level=level))


def test_alpha_cluster_bootstrap_is_wider_when_outputs_cluster_within_items():
    """Strong item effects make an item's outputs alike: the cluster interval
    must then be wider than the unit interval, which treats them as independent."""
    from compendium.stats import agreement

    data = simulate_crossed(40, 6, 3, seed=2, scale=(1, 5),
                                components={"item": 1.0, "item:annotator": 0.6, "residual": 0.3})
    unit = agreement.alpha_bootstrap_ci(data, n_boot=400, seed=1)
    cluster = agreement.alpha_cluster_bootstrap_ci(data, n_boot=400, seed=1)
    assert cluster["alpha"].iloc[0] == unit["alpha"].iloc[0]
    assert (cluster["ci_high"] - cluster["ci_low"]).iloc[0] > 1.3 * (unit["ci_high"] - unit["ci_low"]).iloc[0]
    with pytest.raises(ValueError, match="span several"):
        agreement.alpha_cluster_bootstrap_ci(data, cluster="annotator")
