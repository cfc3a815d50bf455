"""REML G theory on incomplete designs (compendium.stats.gstudy) and its engine (compendium.stats.mixed).

References: the ANOVA (EMS) estimates of compendium.stats on complete data (REML equals
them when none is truncated), and lme4 REML fits pinned from tests/reference/gstudy_lme4.R.
"""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compendium.stats import gstudy as G
from compendium.simulate.crossed import simulate_incomplete
from compendium.stats import mixed as M
from compendium.simulate.crossed import simulate_crossed
from compendium.stats import gtheory
from compendium.stats import panels as stats_panels

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "reference"
REAL = ROOT / "data" / "real"
SUMMEVAL = REAL / "summeval_metrics.jsonl"
MQM = REAL / "wmt23_mqm_sxs_ende.tsv.tar.gz"
MQM_ZHEN = REAL / "wmt23_mqm_sxs_zhen.tsv.tar.gz"

COMPONENTS_TRUE = {"item": 1.0, "annotator": 0.5, "item:system": 0.6, "item:annotator": 0.3,
                   "system:annotator": 0.2, "residual": 1.0}

# lme4 1.1-31 REML (bobyqa, rhoend 1e-12), printed by tests/reference/gstudy_lme4.R.
LME4 = {
    "panels": {
        "item": 0.4953237957, "annotator": 0.0228086448236, "item:system": 0.245217049275,
        "item:annotator": 0.129117261392, "system:annotator": 0.0171155800887, "residual": 0.448814145331,
        "deviance": 1285.90466526, "system_variance_observed": 0.028171848896,
        "system_variance_raw": 0.0181709311724, "error_variance": 0.0133345569649, "beta_S1": 2.64773296963,
        "beta_S2": 2.63308158255, "beta_S3": 2.77029236566, "beta_S4": 2.3161277215,
    },
    "summeval": {
        "item": 0.103161462197, "annotator": 0.143757995999, "item:system": 0.517127374441,
        "item:annotator": 0.0407042360037, "system:annotator": 0.0787674481009, "residual": 0.411047657527,
        "deviance": 8589.73698651, "system_variance_observed": 0.330426956867,
        "system_variance_raw": 0.299037166371, "error_variance": 0.0334824431954, "beta_M0": 4.17210766861,
        "beta_M1": 3.22688832831, "beta_M10": 2.7071241578, "beta_M11": 2.23217492094,
        "beta_M12": 3.60247015415, "beta_M13": 3.39741035609, "beta_M14": 3.14275550582,
        "beta_M15": 3.36197450564, "beta_M17": 3.9708289238, "beta_M2": 3.24758835395,
        "beta_M20": 3.66052154047, "beta_M22": 4.15139453696, "beta_M23": 4.17545548301,
        "beta_M5": 3.71737819537, "beta_M8": 3.29685578181, "beta_M9": 2.39294707054,
    },
    "mqm": {
        "item": 15.4489865967, "annotator": 8.56977944832, "item:system": 9.93226175567,
        "item:annotator": 8.41967939554, "system:annotator": 0.304396067977, "residual": 11.9255990951,
        "deviance": 18656.3834368, "system_variance_observed": 5.7506850791,
        "system_variance_raw": 5.60288298836, "error_variance": 0.164224545269,
        "beta_GPT4-5shot_with_ONLINE-W": 3.15923383278, "beta_GPT4-5shot_with_refA": 2.98976372931,
        "beta_Lan-BridgeMT": 7.95505667616, "beta_NLLB_MBR_BLEU": 10.5457351857, "beta_ONLINE-A": 4.02869808283,
        "beta_ONLINE-G": 6.06954716128, "beta_ONLINE-M": 5.56966980607, "beta_ONLINE-W": 2.80877103318,
        "beta_ONLINE-Y": 4.51544127089, "beta_refA": 3.20729414711,
    },
}
# lmerTest 3.1-3 anova(): the system effect, Satterthwaite df (same script).
LME4["squality"] = {  # item and rater variances are 0 to lme4's and our optimiser's precision
    "item": 1.80825686514e-13, "annotator": 1.93359401291e-10, "item:system": 86.0687300237,
    "item:annotator": 16.694863938, "system:annotator": 40.8667752176, "residual": 225.70083071,
    "deviance": 7723.13668806, "system_variance_observed": 1050.60058519, "system_variance_raw": 1042.71410705,
    "error_variance": 11.829717207, "beta_bart": 18.1366666667, "beta_bart-dpr": 27.9133333333, "beta_human": 91.26,
}
LME4["mqm_zhen"] = {  # WMT23 zh-en (data/real/README.md section 13)
    "item": 13.052081724, "annotator": 6.57744127211, "item:system": 6.0601055763,
    "item:annotator": 7.80913829876, "system:annotator": 0.760923126269, "residual": 8.97329430403,
    "deviance": 64083.895973, "system_variance_observed": 2.29585688611, "system_variance_raw": 2.18856833656,
    "error_variance": 0.119209499499, "beta_GPT4-5shot": 2.76426158783, "beta_HW-TSC": 3.48004791716,
    "beta_IOL_Research": 4.02694077828, "beta_Lan-BridgeMT": 2.60941158373, "beta_NLLB_Greedy": 6.86657116999,
    "beta_NLLB_MBR_BLEU": 7.16812517714, "beta_ONLINE-A": 3.68723416776, "beta_ONLINE-B": 3.58675356652,
    "beta_ONLINE-M": 5.47585477696, "beta_ONLINE-W": 4.55003588396,
}
LMERTEST_F = {
    "panels": {"F": 2.81692599755, "df1": 3, "df2": 30.3696556142, "p": 0.0556767323553},
    "summeval": {"F": 10.5265752613, "df1": 15, "df2": 40.6566922267, "p": 1.22188565555e-09},
    "mqm": {"F": 38.9080018337, "df1": 9, "df2": 280.872587723, "p": 1.65048488938e-44},
    "squality": {"F": 133.215337848, "df1": 2, "df2": 10.265048685, "p": 4.54148632121e-08},
    "mqm_zhen": {"F": 21.3989164199, "df1": 9, "df2": 82.2017076758, "p": 3.95167266604e-18},
}
N_ROWS = {"panels": 480, "summeval": 3200, "mqm": 3120, "squality": 900, "mqm_zhen": 11310}


# --- the designs ------------------------------------------------------------------------------


def summeval_rotation(path: Path, dimension: str = "coherence") -> pd.DataFrame:
    """SummEval experts, the k-th document (sorted by id) without the expert at list position k % 3."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        j = json.loads(line)
        for pos, r in enumerate(j["metrics"]["expert"][dimension]):
            rows.append((j["instance_id"], j["summarizer_id"], f"E{pos + 1}", pos, float(r)))
    d = pd.DataFrame(rows, columns=["sentence_id", "system", "annotator", "pos", "rating"])
    k = pd.Index(np.sort(d["sentence_id"].unique())).get_indexer(d["sentence_id"])
    return d[d["pos"] != k % 3].drop(columns="pos").reset_index(drop=True)


def mqm_scores(path: Path, segment: str = "doc|globalSegId") -> pd.DataFrame:
    """WMT23 en-de MQM cell scores with the weights of tests/reference/gstudy_lme4.R."""
    with tarfile.open(path) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith(".tsv"))
        raw = tar.extractfile(member).read()
    m = pd.read_csv(io.BytesIO(raw), sep="\t", quoting=3, dtype=str, keep_default_na=False,
                    usecols=["system", "doc", "globalSegId", "rater", "category", "severity"])
    m = m[m["severity"] != "HOTW-test"]
    major, minor = m["severity"] == "Major", m["severity"] == "Minor"
    w = np.where(major, np.where(m["category"] == "Non-translation!", 25.0, 5.0),
                 np.where(minor, np.where(m["category"] == "Fluency/Punctuation", 0.1, 1.0), 0.0))
    w[((m["category"] == "Source issue") | (m["severity"] == "No-error")).to_numpy()] = 0.0
    item = m["doc"] + "|" + m["globalSegId"] if segment == "doc|globalSegId" else m["globalSegId"]
    m = m.assign(sentence_id=item, rating=w)
    out = m.groupby(["sentence_id", "system", "rater"], sort=True)["rating"].sum().reset_index()
    return out.rename(columns={"rater": "annotator"})


def panels() -> pd.DataFrame:
    return pd.read_csv(REFERENCE / "panels_3of5.csv")


def _design(name: str) -> pd.DataFrame:
    if name == "panels":
        return panels()
    if name == "squality":  # the overall rating, as the R script reads it
        from compendium.data import real

        return real.load_squality("overall").rename(columns={"item": "sentence_id", "rater": "annotator"})
    path = {"summeval": SUMMEVAL, "mqm": MQM, "mqm_zhen": MQM_ZHEN}[name]
    if not path.exists():
        pytest.skip(f"{path.relative_to(ROOT)} is not in this checkout yet")
    if name == "mqm_zhen":
        return mqm_scores(path, segment="globalSegId")
    return summeval_rotation(path) if name == "summeval" else mqm_scores(path)


# --- tests ------------------------------------------------------------------------------------


def test_panel_fixture_is_the_generator_output():
    d = simulate_incomplete(40, 4, 5, raters_per_item=3, seed=20261201, scale=(1, 5),
                              components={"item": 0.4, "annotator": 0.3, "item:system": 0.2, "item:annotator": 0.25,
                                          "system:annotator": 0.08, "residual": 0.5})
    pd.testing.assert_frame_equal(d, panels(), check_dtype=False)
    assert (d.groupby("sentence_id")["annotator"].nunique() == 3).all()


@pytest.mark.numerics  # against values pinned from R or recorded: rerun under the narrow CPU profile
@pytest.mark.parametrize("name", ["panels", "summeval", "mqm", "squality", "mqm_zhen"])
def test_reml_agrees_with_lme4_on_incomplete_designs(name):
    d = _design(name)
    assert len(d) == N_ROWS[name]
    study = G.fit_gstudy(d)
    s = G._system_variances(study)
    mine = {c: float(study.fit.variances[c]) for c in G.COMPONENTS}
    mine.update(deviance=study.fit.deviance, system_variance_observed=s["observed"],
                system_variance_raw=s["corrected_raw"], error_variance=s["error"])
    mine.update({f"beta_{k}": float(b) for k, b in zip(study.systems, study.fit.beta)})
    assert set(mine) == set(LME4[name])
    for key, value in LME4[name].items():
        # R printed 12 digits, but two optimisers (bobyqa, rhoend 1e-12; ours, FTOL 1e-15) stop at different points of
        # a flat likelihood: a deviance difference of 1e-8 allows variances to differ by about its square root, 1e-4
        # relative. Hosts move these by less than 1e-9.
        assert mine[key] == pytest.approx(value, rel=1e-4, abs=1e-6), key
    # Our optimum is at least as good as lme4's.
    assert study.fit.deviance <= LME4[name]["deviance"] + 1e-6
    # The system effect with items and raters random, as lmerTest's anova.
    test = G.system_test(study)
    for key, value in LMERTEST_F[name].items():
        assert test[key] == pytest.approx(value, rel=1e-4), key
    # G's interval inverts the F ratio of the system means in a noncentral F(k - 1, nu): on all five designs that
    # ratio and nu are lmerTest's F and its Satterthwaite DenDF (an outside reference for the interval's inputs).
    interval = G.g_noncentral_ci(study)
    assert interval["F"] == pytest.approx(LMERTEST_F[name]["F"], rel=1e-4)
    assert interval["df"] == pytest.approx([LMERTEST_F[name]["df1"], LMERTEST_F[name]["df2"]], rel=1e-3)


@pytest.mark.numerics  # against values pinned from R or recorded: rerun under the narrow CPU profile
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reml_equals_anova_on_complete_designs(seed):
    data = simulate_crossed(25 + 5 * seed, 4 + seed, 3 + seed, seed=seed, components=COMPONENTS_TRUE)
    study = G.fit_gstudy(data)
    for definition in ("observed", "corrected"):
        anova = gtheory.variance_components(data, system_variance=definition)
        assert (anova["raw"] > 0).all(), "the comparison holds only when no ANOVA estimate is truncated"
        reml = G.variance_components(study, system_variance=definition)
        np.testing.assert_allclose(reml["raw"].to_numpy(), anova["raw"].to_numpy(), rtol=2e-6)
        np.testing.assert_allclose(reml["share"].to_numpy()[:-1], anova["share"].to_numpy()[:-1], rtol=2e-6)
    g = G.g_summary(study)
    n_p, n_r = data["sentence_id"].nunique(), data["annotator"].nunique()
    corrected = gtheory.variance_components(data, system_variance="corrected")
    observed = gtheory.variance_components(data)
    # G is a ratio of the variances just compared at 2e-6 (REML's optimum against ANOVA's closed form): 1e-5.
    assert g["G"] == pytest.approx(gtheory.g_coefficient(corrected, n_p, n_r), rel=1e-5)
    assert g["G_observed"] == pytest.approx(gtheory.g_coefficient(observed, n_p, n_r), rel=1e-5)
    for t in (80, 90):
        assert g[f"raters_for_G{t}_observed"] == gtheory.raters_needed(gtheory.variance_components(data), n_p, t / 100)
    # Leave-one-rater-out: on a complete design the GLS scores are the panel means.
    ours = G.leave_one_rater_out(study)
    theirs = stats_panels.leave_one_annotator_out(data)
    np.testing.assert_allclose(ours["estimate"], theirs["mean"], rtol=1e-9)
    assert ours["winner"].tolist() == theirs["winner"].tolist()


def test_reml_on_truncated_anova_stays_in_the_parameter_space():
    data = simulate_crossed(20, 4, 3, seed=5, components={"item": 1.0, "residual": 1.0})
    anova = gtheory.variance_components(data)
    assert (anova["raw"] < 0).any()
    reml = G.variance_components(G.fit_gstudy(data))
    assert (reml["variance"] >= 0).all()
    # A component whose ANOVA estimate is negative is estimated at (or near) the boundary.
    negative = anova.index[(anova["raw"] < 0)]
    assert (reml.loc[negative, "variance"] < 0.05).all()


def test_block_and_sparse_lu_factorisations_agree():
    d = panels()
    X = G._design(d.rename(columns={"sentence_id": "item", "annotator": "rater"}), pd.Index(["S1", "S2", "S3", "S4"]))
    terms = G._terms(d.rename(columns={"sentence_id": "item", "annotator": "rater"}))
    y = d["rating"].to_numpy(dtype=float)
    a = M.fit_lmm(y, X, terms, path="block")
    b = M.fit_lmm(y, X, terms, path="splu")
    assert a.path == "block" and b.path == "splu"
    assert a.deviance == pytest.approx(b.deviance, abs=1e-6)
    # Two factorisations of one model, each optimised to FTOL: the deviances agree to 1e-6 (above); the variances,
    # flat directions of it, to about its square root.
    np.testing.assert_allclose(a.variances, b.variances, rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(a.beta, b.beta, rtol=1e-6)


@pytest.mark.parametrize("reml", [True, False])
def test_block_path_on_each_blocks_own_columns_agrees_with_sparse_lu_on_an_incomplete_design(reml):
    """On WMT23 MQM each item meets 3 of 10 raters, so a block touches about a third of the crossed columns and
    the block path keeps only those (padded; on a complete design it keeps them all, dense): its deviance, u,
    beta and covariance at fixed theta must be the sparse-LU path's, and its analytic gradient the finite
    differences of its deviance."""
    full = pd.read_csv(ROOT / "data" / "real" / "wmt23_mqm_ende.csv")
    # The same with one rater's judgements of five items dropped: those blocks are narrower, hence padded.
    first = full.groupby("item")["rater"].transform("first")
    dropped = full[~(full["item"].isin(full["item"].unique()[:5]) & (full["rater"] == first))]
    for d, padded in ((full, False), (dropped, True)):
        systems = pd.Index(np.sort(d["system"].unique()))
        y, X, terms = d["rating"].to_numpy(dtype=float), G._design(d, systems), G._terms(d)
        block, lu = M._Factor(y, X, terms), M._Factor(y, X, terms, force="splu")
        assert block.path == "block" and block.blocks.pairs is not None
        assert block.blocks.cols.shape[1] < (block.blocks.g_rand + block.p) / 2
        assert bool((block.blocks.cols == block.blocks.g_rand + block.p).any()) is padded
        _agree_at_fixed_theta(block, lu, reml)
    # On a complete design every block meets every column: the couplings stay dense, and agree as well.
    d = panels().rename(columns={"sentence_id": "item", "annotator": "rater"})
    y, X, terms = d["rating"].to_numpy(dtype=float), G._design(d, pd.Index(["S1", "S2", "S3", "S4"])), G._terms(d)
    block, lu = M._Factor(y, X, terms), M._Factor(y, X, terms, force="splu")
    assert block.path == "block" and block.blocks.pairs is None
    _agree_at_fixed_theta(block, lu, reml)


def _agree_at_fixed_theta(block, lu, reml):
    for theta in (np.array([0.9, 0.3, 0.6, 0.4, 0.2]), np.array([0.2, 1.1, 0.05, 0.7, 0.3])):
        a, b = block.solve(theta, cov=True), lu.solve(theta, cov=True)
        for key in ("pwrss", "logdet_theta", "logdet_x"):
            assert a[key] == pytest.approx(b[key], rel=1e-10)
        np.testing.assert_allclose(a["u"], b["u"], rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(a["beta"], b["beta"], rtol=1e-10)
        np.testing.assert_allclose(a["unscaled_cov"], b["unscaled_cov"], rtol=1e-8)
        _, grad = block.deviance_and_grad(theta, reml)
        numeric = M._jacobian(lambda t: block.deviance(t, reml), theta).ravel()
        np.testing.assert_allclose(grad, numeric, rtol=1e-6)


@pytest.mark.parametrize("path", ["block", "splu"])
@pytest.mark.parametrize("reml", [True, False])
def test_refit_on_a_new_response_is_a_fresh_fit(path, reml):
    """refit reuses the assembled design: for a new response it must return what fit_lmm returns from
    scratch, to the last bit, on both factorisations and both criteria, and leave the first fit as it was."""
    d = panels().rename(columns={"sentence_id": "item", "annotator": "rater"})
    X, terms = G._design(d, pd.Index(["S1", "S2", "S3", "S4"])), G._terms(d)
    y = d["rating"].to_numpy(dtype=float)
    first = M.fit_lmm(y, X, terms, reml=reml, path=path)
    before = first.variances.copy()
    y2 = y + np.random.default_rng(1).normal(0, 0.7, len(y))
    again, fresh = M.refit(first, y2, start=[0.5] * 5), M.fit_lmm(y2, X, terms, reml=reml, path=path, start=[0.5] * 5)
    assert again.path == fresh.path == path and again.reml is reml
    np.testing.assert_array_equal(again.theta, fresh.theta)
    np.testing.assert_array_equal(again.beta, fresh.beta)
    np.testing.assert_array_equal(again.cov_beta, fresh.cov_beta)
    assert again.deviance == fresh.deviance and not np.allclose(again.variances, before)
    pd.testing.assert_series_equal(first.variances, before)
    with pytest.raises(ValueError, match="finite"):
        M.refit(first, np.r_[y2[:-1], np.nan])


def test_nested_codes_against_pandas():
    """_nested (integer codes) against the definition written with pandas: each inner level meets one outer."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        n, a, b = rng.integers(1, 40), rng.integers(1, 8), rng.integers(1, 5)
        inner = rng.integers(0, a, n)
        outer = (inner % b) if rng.random() < 0.5 else rng.integers(0, b, n)
        expected = not pd.DataFrame({"i": inner, "o": outer}).drop_duplicates()["i"].duplicated().any()
        assert M._nested(inner, outer) is expected
    assert M._nested(np.zeros(0, int), np.zeros(0, int))


@pytest.mark.parametrize("reml", [True, False])
def test_analytic_gradient_matches_finite_differences(reml):
    d = panels().rename(columns={"sentence_id": "item", "annotator": "rater"})
    model = M._Factor(d["rating"].to_numpy(dtype=float), G._design(d, pd.Index(["S1", "S2", "S3", "S4"])), G._terms(d))
    theta = np.array([0.9, 0.3, 0.6, 0.4, 0.2])
    _, grad = model.deviance_and_grad(theta, reml)
    numeric = M._jacobian(lambda t: model.deviance(t, reml), theta).ravel()
    np.testing.assert_allclose(grad, numeric, rtol=1e-6)


def test_incomplete_audit_reports_every_reml_statistic():
    d = simulate_incomplete(60, 5, 6, raters_per_item=3, seed=3, components=COMPONENTS_TRUE)
    summary, tables = G.incomplete_audit(d, n_boot_g=20)
    for key in ("G", "G_observed", "raters_for_G80", "raters_for_G90", "raters_for_G80_observed",
                "raters_for_G90_observed", "variance_components", "loao", "needs_complete_design"):
        assert key in summary, key
    assert 0 <= summary["G"] <= summary["G_observed"] <= 1
    assert summary["loao"]["n_panels"] == 6
    assert set(tables) == {"components", "decision", "dstudy", "loao", "loao_ranks", "system_means"}
    assert set(tables["decision"]["definition"]) == {"unbiased", "observed"}
    assert {"icc", "anova", "F_tests"} <= set(summary["needs_complete_design"])


def test_duplicated_cells_are_rejected():
    d = panels()
    with pytest.raises(ValueError, match="more than one rating"):
        G.fit_gstudy(pd.concat([d, d.iloc[:2]]))


#: The coverage tests' incomplete designs: components, and simulate_crossed's default effects for three systems
#: (centred).
COVERAGE_COMPONENTS = {"item": 0.2, "annotator": 0.3, "item:system": 0.03, "item:annotator": 0.3,
                       "system:annotator": 0.01, "residual": 0.2}
COVERAGE_EFFECTS = np.array([0.0, -0.1, -0.2]) - np.mean([0.0, -0.1, -0.2])


def _true_g(study: G.GStudy, var: dict, b: np.ndarray) -> float:
    """The G of the design as run: s2_s / (s2_s + tr(C Cov(b)) / (k - 1)), s2_s = b'Cb / k for the true effects b,
    Cov(b) the GLS covariance of the system means under the true components on the observed cells."""
    d, k = study.data, len(b)
    C = np.eye(k) - 1.0 / k
    V = var["residual"] * np.eye(len(d))
    for component, roles in G._TERMS.items():
        codes, _ = G._group_codes(d, roles)
        V += var[component] * (codes[:, None] == codes[None, :])
    X = G._design(d, study.systems)
    cov = np.linalg.inv(X.T @ np.linalg.solve(V, X))
    s2 = float(b @ C @ b) / k
    return s2 / (s2 + float(np.trace(C @ cov)) / (k - 1))


def test_g_bootstrap_interval_covers_the_true_g_on_incomplete_designs():
    """Monte Carlo coverage of the parametric-bootstrap 95% interval of G (unbiased system variance) on simulated
    incomplete designs (each item rated by 3 of 6 raters, as WMT's MQM; simulate_incomplete), as the complete-design
    interval's coverage is checked in tests/test_reliability.py. The true G of the design as run is
    s2_s / (s2_s + tr(C Cov(b)) / (k - 1)) with s2_s = b'Cb / k for the true system effects b and Cov(b) the GLS
    covariance of the system means under the true components on the observed cells. 30 designs x 49 replicates keep
    the runtime modest, so the bar is loose: coverage of at least 0.80 (four binomial SDs below 0.95), and intervals
    narrower than the whole [0, 1] range on average. (A run of 100 designs x 99 replicates gave 0.96.)"""
    from compendium.simulate.crossed import simulate_incomplete

    var, b = COVERAGE_COMPONENTS, COVERAGE_EFFECTS
    k = len(b)
    hits, widths, n_sim = 0, [], 30
    for i in range(n_sim):
        data = simulate_incomplete(16, k, 6, raters_per_item=3, components=var, seed=500 + i)
        study = G.fit_gstudy(data)
        truth = _true_g(study, var, b)
        ci = G.g_bootstrap_ci(study, n_boot=49, seed=i)
        hits += ci["ci_low"] <= truth <= ci["ci_high"]
        widths.append(ci["ci_high"] - ci["ci_low"])
    assert hits / n_sim >= 0.80, hits / n_sim
    assert np.mean(widths) < 0.95, np.mean(widths)


def test_g_bootstrap_is_reproducible_and_brackets_g():
    from compendium.simulate.crossed import simulate_incomplete

    study = G.fit_gstudy(simulate_incomplete(20, 4, 6, raters_per_item=3, seed=3))
    one, two = G.g_bootstrap_ci(study, n_boot=30, seed=5), G.g_bootstrap_ci(study, n_boot=30, seed=5)
    assert repr(one) == repr(two) and one["n_boot"] == 30  # repr: the Monte Carlo error is nan with 30 replicates
    assert np.isnan(one["mc_error"][0])  # the 2.5 % quantile's order-statistic interval reaches past 30 replicates
    g = G.g_summary(study)["G"]
    assert one["ci_low"] <= g <= one["ci_high"]


def test_g_bootstrap_stopping_tests_move_the_interval_by_far_less_than_its_monte_carlo_error(monkeypatch):
    """The bootstrap refits stop at BOOT_FTOL/BOOT_GTOL; refitted to the study fit's tolerances, the same replicates
    give an interval within 1e-5 of it (its Monte Carlo error with 40 replicates is of order 1e-2)."""
    from compendium.simulate.crossed import simulate_incomplete

    study = G.fit_gstudy(simulate_incomplete(18, 3, 6, raters_per_item=3, seed=11))
    loose = G.g_bootstrap_ci(study, n_boot=40, seed=2)
    monkeypatch.setattr(G, "BOOT_FTOL", M.FTOL)
    monkeypatch.setattr(G, "BOOT_GTOL", M.GTOL)
    tight = G.g_bootstrap_ci(study, n_boot=40, seed=2)
    assert loose["n_boot"] == tight["n_boot"] == 40
    # The loose stopping rule moves each refit's optimum by about the square root of its tolerance: 1e-5 in G, far
    # below the interval's Monte Carlo error (about 0.02 at 40 replicates).
    assert loose["ci_low"] == pytest.approx(tight["ci_low"], abs=1e-5)
    assert loose["ci_high"] == pytest.approx(tight["ci_high"], abs=1e-5)
    assert tight["ci_high"] - tight["ci_low"] > 1e-3


def test_preconditioned_refits_reach_the_same_optimum_in_fewer_evaluations(monkeypatch):
    """Each bootstrap refit searches over z with theta = start + T z, T from the study's Hessian
    (mixed.preconditioner): the same replicates refitted without it give the same G, replicate by replicate,
    and the preconditioned searches take fewer deviance evaluations."""
    from compendium.simulate.crossed import simulate_incomplete

    study = G.fit_gstudy(simulate_incomplete(24, 4, 6, raters_per_item=3, seed=7))
    with_scale = list(G._replicates(study, 25, seed=3))
    monkeypatch.setattr(M, "preconditioner", lambda fit, at: None)
    without = list(G._replicates(study, 25, seed=3))
    assert len(with_scale) == len(without) == 25
    g_with = np.array([G.g_summary(r, targets=())["G"] for r in with_scale])
    g_without = np.array([G.g_summary(r, targets=())["G"] for r in without])
    assert np.max(np.abs(g_with - g_without)) < 1e-5
    assert np.ptp(g_with) > 1e-2  # the replicates differ: the agreement is not that of one value
    assert sum(r.fit.n_evaluations for r in with_scale) < 0.9 * sum(r.fit.n_evaluations for r in without)


def test_the_monte_carlo_error_of_a_bootstrap_quantile_is_half_its_order_statistic_interval():
    """Against the binomial order-statistic interval written out (Conover 1999, section 3.2): the q-quantile lies
    between the order statistics x_(l) and x_(u) with l, u the binomial(B, q) bounds that hold 95 %."""
    from scipy.stats import binom

    values = np.random.default_rng(4).gamma(2.0, size=400)
    for q in (0.025, 0.5, 0.975):
        ordered = np.sort(values)
        lower = ordered[int(binom.ppf(0.025, len(values), q)) - 1]
        upper = ordered[int(binom.ppf(0.975, len(values), q))]
        assert G.percentile_mc_error(values, q) == pytest.approx((upper - lower) / 2, rel=1e-12)
    assert np.isnan(G.percentile_mc_error(values[:40], 0.025))  # 40 replicates cannot bound the 2.5 % quantile


def test_the_noncentral_f_interval_on_a_complete_design_inverts_the_classical_quasi_f():
    """On a complete design whose REML components are all positive (REML = the ANOVA estimates), the F ratio the
    interval inverts is the classical quasi-F, MS_s / (MS_ps + MS_sr - MS_psr), and its second df is close to the
    quasi-F's Satterthwaite df from the mean squares (compendium.stats.gtheory.system_f_tests, Satterthwaite 1946):
    an outside reference for F' and nu. The interval is then the inversion of that noncentral F, checked end by
    end with scipy.stats.ncf."""
    from scipy import stats

    from compendium.simulate.crossed import simulate_crossed
    from compendium.stats import gtheory

    data = simulate_crossed(40, 4, 6, seed=3, system_means=[0.0, 0.3, 0.5, 0.9],
                            components={"item": 0.4, "annotator": 0.2, "item:system": 0.3, "item:annotator": 0.2,
                                        "system:annotator": 0.1, "residual": 0.5})
    study = G.fit_gstudy(data)
    assert (study.fit.variances > 1e-3).all()  # every component positive: REML equals the ANOVA estimates
    interval = G.g_noncentral_ci(study)
    quasi = gtheory.system_f_tests(gtheory.anova_table(data)).loc["quasi"]
    assert interval["F"] == pytest.approx(float(quasi["F"]), rel=1e-6)
    # Satterthwaite's df from the REML Hessian and the quasi-F's from the mean squares are two approximations of one
    # quantity, not one computation: 5 % apart at most on this design.
    assert interval["df"][0] == 3 and interval["df"][1] == pytest.approx(float(quasi["df2"]), rel=0.05)
    k, (d1, nu), F = 4, interval["df"], interval["F"]
    low, high = (interval["ci_low"] * k / (1 - interval["ci_low"]), interval["ci_high"] * k / (1 - interval["ci_high"]))
    assert stats.ncf.cdf(F, d1, nu, low) == pytest.approx(0.975, abs=1e-8)
    assert stats.ncf.cdf(F, d1, nu, high) == pytest.approx(0.025, abs=1e-8)
    g = G.g_summary(study)["G"]
    assert interval["ci_low"] < g < interval["ci_high"]


def test_the_noncentral_f_interval_covers_the_true_g_on_incomplete_designs():
    """Monte Carlo coverage on the incomplete designs of the bootstrap's coverage test above (same components,
    same truth): the noncentral-F interval needs no refit, so 60 designs take the time of a few bootstraps. The
    bar (0.85) is about three binomial SDs below 0.95; 120 designs gave 0.958, and simulations from the real
    designs' own fits are compared with the bootstrap's in tests/reference/g_interval_comparison.json."""
    var, b = COVERAGE_COMPONENTS, COVERAGE_EFFECTS
    k = len(b)
    hits, n_sim = 0, 60
    for i in range(n_sim):
        data = simulate_incomplete(16, k, 6, raters_per_item=3, components=var, seed=500 + i)
        study = G.fit_gstudy(data)
        truth = _true_g(study, var, b)
        ci = G.g_noncentral_ci(study)
        hits += ci["ci_low"] <= truth <= ci["ci_high"]
    assert hits / n_sim >= 0.85, hits / n_sim


@pytest.mark.numerics  # against values pinned from R or recorded: rerun under the narrow CPU profile
def test_the_recorded_comparison_of_gs_intervals_on_the_real_designs_is_current():
    """tests/reference/g_interval_comparison.json (written by the script beside it) sets the noncentral-F interval
    beside the 200- and 1,000-refit parametric bootstraps on every real incomplete design, with both intervals'
    coverage in simulations from each design's own fit. The noncentral-F ends are recomputed here and must equal
    the record; the record must keep showing what the README says of it: the noncentral-F interval covers close
    to 95 % everywhere, and never less often than the bootstrap by more than simulation noise."""
    from compendium.data import real

    record = json.loads((REFERENCE / "g_interval_comparison.json").read_text(encoding="utf-8"))
    designs = {f"SQuALITY {p}": lambda p=p: real.load_squality(p) for p in real.SQUALITY_PROPERTIES}
    designs.update({"WMT23 en-de MQM": lambda: real.load_mqm("ende"), "WMT23 zh-en MQM": lambda: real.load_mqm("zhen")})
    assert set(record) == set(designs)
    for name, row in record.items():
        study = G.fit_gstudy(designs[name](), item="item", rater="rater")
        assert study.n_judgements == row["n_judgements"]
        ncf = G.g_noncentral_ci(study)
        # rel 1e-5: on SQuALITY two components sit at the boundary, where the optimum is found to a few 1e-7 in
        # theta; rearranging the factorisation's arithmetic moved the lower end by 2.7e-6 of itself.
        assert [ncf["ci_low"], ncf["ci_high"]] == pytest.approx(row["noncentral_f"]["ci"], rel=1e-5), name
        coverage = row["coverage"]
        assert coverage["noncentral_f"] >= 0.88 and coverage["noncentral_f"] >= coverage["bootstrap"] - 0.05, name
        assert row["noncentral_f"]["ci"][0] <= row["G"] <= row["noncentral_f"]["ci"][1]


def test_leaving_any_set_of_raters_out_scores_the_remaining_ratings_means_on_a_complete_design():
    """leave_raters_out (the explorer's leaderboards, issue 70) on a complete design: whatever raters leave, the
    rest is still complete, so each GLS score is the plain mean of the remaining ratings (pandas), whatever
    components are held; one-rater sets give leave_one_rater_out's panels."""
    data = simulate_crossed(30, 4, 4, seed=3)
    study = G.fit_gstudy(data)
    raters = sorted(data["annotator"].unique())
    removed = [(), (raters[0], raters[2]), tuple(raters[1:])]
    boards = G.leave_raters_out(study, removed)
    assert boards["panel"].unique().tolist() == ["all", f"without {raters[0]}, {raters[2]}",
                                                 "without " + ", ".join(raters[1:])]
    for left_out, (_, board) in zip(removed, boards.groupby("panel", sort=False)):
        means = data[~data["annotator"].isin(left_out)].groupby("system", observed=True)["rating"].mean()
        np.testing.assert_allclose(board["estimate"], means.loc[board["system"]].to_numpy(), rtol=1e-9)
        assert board["winner"].iloc[0] == str(means.idxmax())
    single = G.leave_raters_out(study, [(), *[(r,) for r in raters]])
    pd.testing.assert_frame_equal(single, G.leave_one_rater_out(study))
    for bad in ([("nobody",)], [tuple(raters)]):
        with pytest.raises(ValueError, match="cannot leave out"):
            G.leave_raters_out(study, bad)


def test_raters_needed_answers_at_once_when_the_systems_barely_exceed_the_item_noise():
    """The components of a 10 x 3 x 3 simulated audit (simulate_crossed seed 1) whose decision study hung: the
    item x system term took exactly the budget G = 0.8 leaves, so the budget was 4e-19 of rounding, the first
    guess 2e17 raters, and raters_needed walked down from it one by one. G(n) >= t exactly when
    n >= per_rater / budget (Brennan 2001, eq. 4.4 solved for n_r), so a need beyond max_raters is None at once:
    G reaches 0.8 only with infinitely many raters."""
    vc = {"system": 0.014074074074074074, "system:annotator": 0.03888888888888883,
          "item:system": 0.035185185185185174, "residual": 0.5277777777777779}
    assert gtheory.raters_needed(vc, 10, 0.8) is None
    assert gtheory.g_coefficient(vc, 10, 10**9) < 0.8 + 1e-9  # a billion raters only touch it
