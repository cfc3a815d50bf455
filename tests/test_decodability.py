"""Tests for compendium.analyses.ead: EAD, its floors, bootstrap, transfer and probes.

Every expected value that is not a property (at the floor, near 1, equal
to a reference implementation) is computed by hand in a comment next to it.
Data are tiny synthetic benchmarks built here, with fixed seeds.
"""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.dummy import DummyClassifier
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold

from compendium.analyses.ead import (
    core as ead_core,
    inference as ead_inference,
    probes as ead_probes,
    transfer as ead_transfer,
)
from compendium.stats import decoder
from compendium.analyses.emoji import emoji_analyzer
from compendium.data.schema import SHARED_EMOTIONS

WOMAN_TECHNOLOGIST_MEDIUM = "\U0001f469\U0001f3fd\u200d\U0001f4bb"  # woman, tone 4, ZWJ, laptop
JOY, SOB, ANGRY, SCREAM, ASTONISHED = "\U0001f602", "\U0001f62d", "\U0001f621", "\U0001f631", "\U0001f632"
PARTY, HEART, FIRE, STAR, SUN = "\U0001f389", "\u2764\ufe0f", "\U0001f525", "\u2b50", "\u2600\ufe0f"
#: One signature emoji per shared emotion (anger, fear, joy, sadness, surprise).
SIGNATURE = dict(zip(SHARED_EMOTIONS, [ANGRY, SCREAM, JOY, SOB, ASTONISHED], strict=True))
NOISE = [PARTY, HEART, FIRE, STAR, SUN, WOMAN_TECHNOLOGIST_MEDIUM]


def _labels(counts: dict[str, int], seed: int = 0) -> np.ndarray:
    y = np.concatenate([[lab] * n for lab, n in counts.items()]).astype(object)
    return np.random.default_rng(seed).permutation(y)


def _informative_outputs(y, *, p_signal: float, seed: int) -> list[str]:
    """Each item: with probability ``p_signal`` its label's signature emoji, plus 1-3 noise emojis."""
    rng = np.random.default_rng(seed)
    out = []
    for lab in y:
        parts = list(rng.choice(NOISE, size=rng.integers(1, 4)))
        if rng.random() < p_signal:
            parts.insert(int(rng.integers(0, len(parts) + 1)), SIGNATURE[lab])
        out.append("".join(parts))
    return out


def _benchmark(n: dict[str, int], systems: dict[str, float], seed: int = 0):
    """Tiny sentences/generations tables: systems map to their signal probability."""
    rng = np.random.default_rng(seed)
    sentences, generations = [], []
    for lang, size in n.items():
        y = rng.choice(list(SHARED_EMOTIONS), size=size, p=[0.15, 0.15, 0.3, 0.25, 0.15])
        ids = [f"{lang}-{i:04d}" for i in range(size)]
        geometry = rng.random(size) < 0.5
        for i, lab in enumerate(y):
            sentences.append((ids[i], lang, lab, True, bool(geometry[i])))
        # a few items outside the EAD set (multi-label) that must be ignored
        sentences.append((f"{lang}-x", lang, "joy;love", False, False))
        for k, (system, p) in enumerate(systems.items()):
            outs = _informative_outputs(y, p_signal=p, seed=seed * 1000 + 17 * k + len(lang) + size)
            generations += [(sid, system, o) for sid, o in zip(ids, outs, strict=True)]
            generations.append((f"{lang}-x", system, JOY))
    s = pd.DataFrame(sentences, columns=["sentence_id", "language", "labels", "shared_single", "geometry_sample"])
    g = pd.DataFrame(generations, columns=["sentence_id", "system", "output"])
    return s, g


# ------------------------------------------------------------------ the metric


def test_constant_generator_scores_at_the_floor():
    y = _labels({"anger": 30, "fear": 30, "joy": 60, "sadness": 50, "surprise": 30})
    res = ead_core.ead([PARTY + HEART + JOY] * len(y), y, seed=1)
    fl = ead_inference.floors(y, seed=1)
    # Identical rows: every fold predicts one class for all its items, so
    # macro-F1 cannot exceed the stratified floor (1/k = 0.2) by much.
    assert res.macro_f1 <= max(fl["majority"], fl["stratified_analytic"]) + 0.02
    assert res.macro_f1 < 0.25


def test_label_determined_generator_scores_near_one():
    y = _labels({"anger": 30, "fear": 30, "joy": 60, "sadness": 50, "surprise": 30})
    res = ead_core.ead(_informative_outputs(y, p_signal=1.0, seed=2), y, seed=1)
    assert res.macro_f1 > 0.97
    noisy = ead_core.ead(_informative_outputs(y, p_signal=0.5, seed=2), y, seed=1)
    assert 0.3 < noisy.macro_f1 < res.macro_f1


def test_result_layout_and_pooled_score():
    y = _labels({"joy": 20, "sadness": 20, "anger": 15})
    out = pd.Series(_informative_outputs(y, p_signal=0.7, seed=3), index=[f"s{i}" for i in range(len(y))])
    res = ead_core.ead(out, y, seed=4)
    assert list(res.oof.columns) == ["item", "label", "predicted", "fold"]
    assert list(res.oof["item"]) == list(out.index)
    assert sorted(res.oof["fold"].unique()) == [0, 1, 2, 3, 4] and len(res.folds) == 5
    assert res.macro_f1 == pytest.approx(f1_score(res.oof["label"], res.oof["predicted"], average="macro"))
    assert res["macro_f1"] == res.macro_f1
    per_fold = [f1_score(p["label"], p["predicted"], average="macro") for _, p in res.oof.groupby("fold")]
    np.testing.assert_allclose(res.folds["macro_f1"], per_fold)


def test_multi_codepoint_emoji_is_one_feature():
    dsg = decoder.design([WOMAN_TECHNOLOGIST_MEDIUM, WOMAN_TECHNOLOGIST_MEDIUM + " " + JOY, JOY + JOY], emoji_analyzer)
    assert dsg.unique.shape == (3, 2)  # two types: the ZWJ sequence and JOY, not 4 + 1 code points
    assert sorted(dsg.vocabulary) == sorted([WOMAN_TECHNOLOGIST_MEDIUM, JOY])
    vec = TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True).fit([WOMAN_TECHNOLOGIST_MEDIUM])
    assert list(vec.vocabulary_) == [WOMAN_TECHNOLOGIST_MEDIUM]
    # The whole sequence is the feature: class a's ZWJ sequence vs class b's
    # loose parts are separable only if the sequence is kept intact.
    y = np.array(["a", "b"] * 20, dtype=object)
    out = ["\U0001f469\u200d\U0001f4bb" if lab == "a" else "\U0001f469 \U0001f4bb" for lab in y]
    assert ead_core.ead(out, y, seed=0).macro_f1 == 1.0


def test_cv_is_stratified_and_seeded():
    y = _labels({"anger": 23, "fear": 31, "joy": 57, "sadness": 44, "surprise": 19})
    out = _informative_outputs(y, p_signal=0.5, seed=5)
    a, b = ead_core.ead(out, y, seed=11), ead_core.ead(out, y, seed=11)
    assert a.macro_f1 == b.macro_f1
    pd.testing.assert_frame_equal(a.oof, b.oof)
    per_fold = a.oof.groupby(["fold", "label"]).size().unstack()
    expected = pd.Series(y).value_counts() / 5
    assert ((per_fold - expected).abs() < 1).all().all()  # each class split evenly over the folds
    others = [ead_core.ead(out, y, seed=s) for s in (12, 13, 14)]
    assert not (a.oof["fold"] == others[0].oof["fold"]).all()
    assert len({round(r.macro_f1, 12) for r in [a, *others]}) > 1


def test_fold_tfidf_via_transformer_equals_fold_vectorizer():
    y = _labels({"anger": 15, "joy": 25, "sadness": 20})
    out = _informative_outputs(y, p_signal=0.6, seed=6)
    # rare emojis that some folds' training parts never see
    for i, rare in zip((3, 17, 41), ("\U0001f984", "\U0001f47b", "\U0001f1e7\U0001f1e9"), strict=True):
        out[i] += rare + rare
    out[8] = "no emoji at all"
    dsg = decoder.design(ead_inference._texts(out), emoji_analyzer)
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=3)
    reference = np.empty(len(y), dtype=object)
    texts = np.array(out, dtype=object)
    for train, test in cv.split(np.zeros(len(y)), y):
        vec = TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True).fit(texts[train])
        ref_train, ref_test = vec.transform(texts[train]), vec.transform(texts[test])
        weight = np.bincount(dsg.inverse[train], minlength=dsg.unique.shape[0]).astype(float)
        features = decoder.fold_tfidf(dsg.unique, weight)
        columns = [list(dsg.vocabulary).index(e) for e in vec.get_feature_names_out()]
        x_train, x_test = features[dsg.inverse[train]], features[dsg.inverse[test]]
        np.testing.assert_allclose(x_train[:, columns].toarray(), ref_train.toarray(), rtol=0, atol=1e-15)
        np.testing.assert_allclose(x_test[:, columns].toarray(), ref_test.toarray(), rtol=0, atol=1e-15)
        unseen = np.setdiff1d(np.arange(len(dsg.vocabulary)), columns)
        assert x_train[:, unseen].nnz == 0 and x_test[:, unseen].nnz == 0
        # scikit-learn run to its optimum (its default tol = 1e-4 stops short of it)
        model = LogisticRegression(C=4.0, class_weight="balanced", solver="lbfgs", max_iter=100_000, tol=1e-12)
        reference[test] = model.fit(ref_train, y[train]).predict(ref_test)
    res = ead_core.ead(out, y, seed=3)
    assert list(res.oof["predicted"]) == list(reference)


# ------------------------------------------------------------------ bootstrap and tiers


def test_vectorised_bootstrap_equals_plain_loop():
    rng = np.random.default_rng(7)
    classes = np.array(["anger", "fear", "joy", "sadness", "surprise"])
    y = rng.choice(classes[1:], size=60, p=[0.15, 0.4, 0.35, 0.1])
    pred = np.where(rng.random(60) < 0.6, y, rng.choice(classes[1:], size=60))
    y[0], pred[1] = "anger", "anger"  # rare anger (one true, one predicted): absent from many replicates
    idx = ead_inference.bootstrap_indices(60, 600, seed=9)
    assert idx.shape == (600, 60)
    fast = ead_inference.bootstrap_macro_f1(y, pred, idx)
    slow = np.array([f1_score(y[i], pred[i], average="macro", zero_division=0) for i in idx])
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)
    assert any("anger" not in set(y[i]) | set(pred[i]) for i in idx)  # the edge case was exercised
    oof = pd.DataFrame({"item": range(60), "label": y, "predicted": pred})
    ci = ead_inference.bootstrap_ci(oof, n_boot=600, seed=9)
    lo, hi = np.quantile(slow, [0.025, 0.975])
    assert ci["lo"] == pytest.approx(lo) and ci["hi"] == pytest.approx(hi)
    assert ci["width"] == pytest.approx(hi - lo)
    assert ci["macro_f1"] == pytest.approx(f1_score(y, pred, average="macro"))


def test_tiers_follow_the_non_overlap_rule():
    table = pd.DataFrame({
        "system": ["a", "b", "c", "d", "e"],
        "macro_f1": [0.65, 0.64, 0.60, 0.59, 0.50],
        "ci_lo": [0.63, 0.62, 0.58, 0.575, 0.48],
        "ci_hi": [0.67, 0.66, 0.625, 0.605, 0.52],
    })
    out = ead_inference.tiers(table.iloc[::-1])
    # b overlaps a; c's upper .625 < lowest lower .62? no -> .625 >= .62: same tier;
    # d's upper .605 < .58? no -> tier 1; e's upper .52 < .575 -> tier 2.
    assert list(out["system"]) == ["a", "b", "c", "d", "e"]
    assert list(out["tier"]) == [1, 1, 1, 1, 2]
    table.loc[2, "ci_hi"] = 0.615  # now c (.615 < .62) opens tier 2 and d joins it
    assert list(ead_inference.tiers(table)["tier"]) == [1, 1, 2, 2, 3]
    # leader rule: the reference is the tier's first lower bound (.63 for a):
    # b .66 joins; c .615 < .63 opens tier 2 (lo .58); d .605 joins; e .52 < .58 opens 3
    table.loc[2, "ci_hi"] = 0.625
    assert list(ead_inference.tiers(table, rule="leader")["tier"]) == [1, 1, 2, 2, 3]
    assert list(ead_inference.tiers(table, rule="lowest")["tier"]) == [1, 1, 1, 1, 2]
    with pytest.raises(ValueError):
        ead_inference.tiers(table, rule="median")


# ------------------------------------------------------------------ tables


def test_parallel_equals_serial_and_row_order_does_not_matter():
    s, g = _benchmark({"bn": 80, "en": 70}, {"sys-a": 0.8, "sys-b": 0.4})
    kwargs = dict(seed=5, languages=["bn", "en"], systems=["sys-a", "sys-b"], n_boot=200, n_permutations=2)
    serial, oof_serial = ead_core.ead_table(s, g, n_jobs=1, return_oof=True, **kwargs)
    parallel, oof_parallel = ead_core.ead_table(s, g, n_jobs=2, return_oof=True, **kwargs)
    pd.testing.assert_frame_equal(serial, parallel)
    pd.testing.assert_frame_equal(oof_serial, oof_parallel)
    shuffled = ead_core.ead_table(
        s.sample(frac=1, random_state=1), g.sample(frac=1, random_state=2), n_jobs=1, **kwargs
    )
    pd.testing.assert_frame_equal(serial, shuffled)
    assert list(serial["n_items"]) == [80, 80, 70, 70]  # the multi-label items are excluded
    assert (serial.loc[0, "macro_f1"] > serial.loc[1, "macro_f1"]) and (serial["macro_f1"] > serial["null_p95"]).all()
    # the table's cell equals the stand-alone functions on the same items
    cell = ead_core.cell_data(s, g, language="en", system="sys-b")
    single = ead_core.ead(cell["output"], cell["label"], seed=5)
    assert serial.loc[3, "macro_f1"] == single.macro_f1
    assert serial.loc[3, "ci_width"] == ead_inference.bootstrap_ci(single.oof, n_boot=200, seed=5)["width"]
    # systems of a language share folds (paired evaluation)
    bn = oof_serial[oof_serial["language"] == "bn"]
    folds = bn.pivot(index="item", columns="system", values="fold")
    assert (folds["sys-a"] == folds["sys-b"]).all()


def test_stability_over_seeds():
    s, g = _benchmark({"bn": 90}, {"sys-a": 0.6})
    st = ead_core.ead_stability(s, g, seeds=[0, 1, 2], languages=["bn"], systems=["sys-a"], n_jobs=1)
    cell = ead_core.cell_data(s, g, language="bn", system="sys-a")
    scores = [ead_core.ead(cell["output"], cell["label"], seed=k).macro_f1 for k in (0, 1, 2)]
    assert st.loc[0, "n_seeds"] == 3
    assert st.loc[0, "mean"] == pytest.approx(np.mean(scores))
    assert st.loc[0, "sd"] == pytest.approx(np.std(scores, ddof=1))
    assert st.loc[0, "sd"] > 0


# ------------------------------------------------------------------ floors and tests


def test_majority_floor_equals_hand_value():
    y = _labels({"joy": 50, "sadness": 30, "anger": 20})
    fl = ead_inference.floors(y, seed=0, n_sim=4000)
    # k = 3, p = 0.5: majority F1 = 2 * 0.5 / 1.5 = 2/3, others 0 -> macro 2/9
    assert fl["majority"] == pytest.approx(2 / 9)
    dummy = DummyClassifier(strategy="most_frequent").fit(np.zeros((100, 1)), y).predict(np.zeros((100, 1)))
    assert fl["majority"] == pytest.approx(f1_score(y, dummy, average="macro"))
    assert fl["stratified_analytic"] == pytest.approx(1 / 3)
    # A Monte Carlo mean over 4,000 draws: its standard error here is below 0.005, so 0.02 is four of them.
    assert fl["stratified"] == pytest.approx(1 / 3, abs=0.02)
    assert (
        ead_inference.floors(y, seed=0, n_sim=50)["stratified"]
        == ead_inference.floors(y, seed=0, n_sim=50)["stratified"]
    )


def test_permutation_null_sits_at_the_floor():
    y = _labels({"anger": 25, "joy": 35, "sadness": 30})
    out = _informative_outputs(y, p_signal=0.8, seed=8)
    observed = ead_core.ead(out, y, seed=2).macro_f1
    null = ead_inference.permutation_null(out, y, seed=2, n_permutations=12, observed=observed)
    assert abs(null["null_mean"] - 1 / 3) < 0.1  # chance for three classes
    assert null["null_p95"] < observed
    assert null["p_value"] == pytest.approx(1 / 13)  # no permutation reaches the observed score
    again = ead_inference.permutation_null(out, y, seed=2, n_permutations=12, observed=observed)
    pd.testing.assert_series_equal(null, again)


def _oof_pair(both, a_only, b_only, neither):
    rows_a, rows_b = [], []
    for i, (ca, cb) in enumerate([(1, 1)] * both + [(1, 0)] * a_only + [(0, 1)] * b_only + [(0, 0)] * neither):
        rows_a.append((i, "joy", "joy" if ca else "fear"))
        rows_b.append((i, "joy", "joy" if cb else "anger"))
    cols = ["item", "label", "predicted"]
    return pd.DataFrame(rows_a, columns=cols), pd.DataFrame(rows_b, columns=cols).iloc[::-1]


def test_mcnemar_on_hand_made_tables():
    a, b = _oof_pair(40, 2, 8, 10)
    res = ead_inference.mcnemar(a, b)
    assert (res["both_correct"], res["a_only"], res["b_only"], res["both_wrong"]) == (40, 2, 8, 10)
    # exact: 2 * P(X <= 2 | n = 10, 1/2) = 2 * (1 + 10 + 45) / 1024
    assert res["exact"] and res["pvalue"] == pytest.approx(112 / 1024)
    a, b = _oof_pair(100, 10, 30, 5)
    res = ead_inference.mcnemar(a, b)
    # chi-square with continuity correction: (|10 - 30| - 1)^2 / 40 = 361 / 40
    assert not res["exact"] and res["statistic"] == pytest.approx(9.025)
    assert res["pvalue"] == pytest.approx(stats.chi2.sf(9.025, 1))
    bad = b.assign(label="fear")
    with pytest.raises(ValueError):
        ead_inference.mcnemar(a, bad)


# ------------------------------------------------------------------ union and transfer


def test_union_of_complementary_systems_decodes_what_neither_does():
    labels = ["anger", "fear", "joy", "sadness"] * 15
    # system A tells {anger, fear} from {joy, sadness}; B tells {anger, joy} from {fear, sadness}
    a = {"anger": FIRE, "fear": FIRE, "joy": SUN, "sadness": SUN}
    b = {"anger": STAR, "joy": STAR, "fear": HEART, "sadness": HEART}
    ids = [f"bn-{i:03d}" for i in range(len(labels))]
    s = pd.DataFrame({"sentence_id": ids, "language": "bn", "labels": labels, "shared_single": True,
                      "geometry_sample": False})
    g = pd.DataFrame([(i, "A", a[lab]) for i, lab in zip(ids, labels, strict=True)]
                     + [(i, "B", b[lab]) for i, lab in zip(ids, labels, strict=True)],
                     columns=["sentence_id", "system", "output"])
    u = ead_transfer.union_outputs(s, g, language="bn", systems=["A", "B"])
    assert u.loc["bn-000", "output"] == FIRE + " " + STAR  # anger: A's then B's emojis
    single = [
        ead_core.ead(ead_core.cell_data(s, g, language="bn", system=k)["output"], labels, seed=0).macro_f1 for k in "AB"
    ]
    union = ead_transfer.union_ead(s, g, language="bn", seed=0, systems=["A", "B"])
    assert max(single) < 0.7 and union.macro_f1 == 1.0


def test_vocabulary_coverage_by_hand():
    cov = ead_transfer.vocabulary_coverage(
        [JOY + JOY, SOB, None], [JOY + " " + ANGRY, SOB + WOMAN_TECHNOLOGIST_MEDIUM + JOY]
    )
    # test tokens: JOY, ANGRY, SOB, WOMAN_TECH, JOY (5); in {JOY, SOB}: JOY, SOB, JOY -> 3/5
    assert cov["token_coverage"] == pytest.approx(3 / 5)
    # test types: JOY, ANGRY, SOB, WOMAN_TECH (4); covered JOY, SOB -> 2/4
    assert cov["type_coverage"] == pytest.approx(2 / 4)
    assert (cov["n_test_tokens"], cov["n_test_types"], cov["n_train_types"]) == (5, 4, 2)


def test_transfer_direction_cost_and_coverage_on_a_hand_made_case():
    # bn: joy -> JOY, sadness -> SOB. en: the code is reversed, and every en item adds PARTY.
    rows, gens = [], []
    for lang in ("bn", "en"):
        for i in range(20):
            lab = "joy" if i % 2 == 0 else "sadness"
            sid = f"{lang}-{i:02d}"
            rows.append((sid, lang, lab, True, False))
            emo = {"joy": JOY, "sadness": SOB}[lab] if lang == "bn" else {"joy": SOB, "sadness": JOY}[lab] + PARTY
            gens.append((sid, "sys", emo))
    s = pd.DataFrame(rows, columns=["sentence_id", "language", "labels", "shared_single", "geometry_sample"])
    g = pd.DataFrame(gens, columns=["sentence_id", "system", "output"])
    m = ead_transfer.transfer_matrix(s, g, seed=0, languages=["bn", "en"], systems=["sys"], n_jobs=1).set_index(
        ["source", "target"])
    assert list(m.index) == [("bn", "en"), ("en", "bn")]
    # within-language CV decodes perfectly; the transferred decoder gets every item wrong
    assert m["within_f1"].tolist() == [1.0, 1.0]
    assert m["transfer_f1"].tolist() == [0.0, 0.0]
    assert m["cost"].tolist() == [1.0, 1.0]
    # train bn, test en: en tokens 20 x (one of JOY/SOB) + 20 x PARTY = 40, of which 20 in {JOY, SOB}
    assert m.loc[("bn", "en"), "token_coverage"] == pytest.approx(20 / 40)
    assert m.loc[("bn", "en"), "type_coverage"] == pytest.approx(2 / 3)
    # train en, test bn: every bn token (JOY or SOB) is in the en vocabulary
    assert m.loc[("en", "bn"), "token_coverage"] == 1.0
    summary = ead_transfer.transfer_summary(m.reset_index())
    assert summary["min_token_coverage"].tolist() == [0.5, 1.0]


# ------------------------------------------------------------------ embeddings and MOS


def _embeddings(s: pd.DataFrame, dim: int, signal: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    geo = s[s["geometry_sample"]]
    centres = {lab: rng.normal(size=dim) for lab in SHARED_EMOTIONS}
    x = np.stack([signal * centres.get(lab, np.zeros(dim)) + rng.normal(size=dim) for lab in geo["labels"]])
    return pd.DataFrame(x.astype(np.float32), index=geo["sentence_id"].to_numpy())


def test_embedding_probe_uses_l2_normalised_rows():
    y = _labels({"joy": 30, "sadness": 30, "anger": 30})
    rng = np.random.default_rng(4)
    centres = {lab: rng.normal(size=8) * 3 for lab in ("joy", "sadness", "anger")}
    x = np.stack([centres[lab] + rng.normal(size=8) for lab in y])
    res = ead_probes.embedding_probe(x, y, seed=0)
    assert res.macro_f1 > 0.9
    scaled = ead_probes.embedding_probe(x * rng.uniform(0.01, 100, size=(len(y), 1)), y, seed=0)
    assert list(scaled.oof["predicted"]) == list(res.oof["predicted"])  # row scale is normalised away


def test_emoji_vs_embedding_and_learning_curve_on_matched_items():
    s, g = _benchmark({"bn": 240}, {"sys-a": 0.9, "sys-b": 0.3}, seed=3)
    emb = {"enc-weak": _embeddings(s, 12, 0.2, 1), "enc-strong": _embeddings(s, 12, 2.0, 2)}
    table = ead_probes.emoji_vs_embedding(s, g, emb, seed=0, languages=["bn"], systems=["sys-a", "sys-b"],
                                   encoders=list(emb), n_jobs=1)
    n_matched = int((s["geometry_sample"] & s["shared_single"]).sum())
    assert (table["n_items"] == n_matched).all() and len(table) == 4
    best = ead_probes.best_channels(table)
    assert best.loc["bn", "emoji_system"] == "sys-a" and best.loc["bn", "embedding_encoder"] == "enc-strong"
    curve = ead_probes.learning_curve(s, g, emb, language="bn", system="sys-a", encoder="enc-strong", seed=0,
                               sizes=(60, 100, 1000), n_repeats=2)
    sizes = curve.groupby("channel")["size"].apply(lambda v: sorted(set(v))).to_dict()
    assert sizes == {"emoji": [60, 100, 240], "embedding": [60, 100, n_matched]}
    full = curve[(curve["channel"] == "emoji") & (curve["size"] == 240)]["macro_f1"].item()
    assert full == ead_core.ead(ead_core.cell_data(s, g, language="bn", system="sys-a")["output"],
                           ead_core.cell_data(s, g, language="bn", system="sys-a")["label"], seed=0).macro_f1
    matched = table.set_index("name").loc["enc-strong", "macro_f1"]
    assert curve[(curve["channel"] == "embedding") & (curve["size"] == n_matched)]["macro_f1"].item() == matched


def test_stratified_subsample_keeps_class_shares():
    y = _labels({"anger": 40, "joy": 100, "sadness": 60, "fear": 1})
    idx = ead_probes._subsample(y, 100, seed=1)
    assert len(set(idx)) == 100
    # quotas 100 * (40, 100, 60, 1) / 201 = 19.90, 49.75, 29.85, 0.50: floors 97 items,
    # the 3 left go to the largest remainders (anger .90, sadness .85, joy .75)
    assert pd.Series(y[idx]).value_counts().to_dict() == {"joy": 50, "sadness": 30, "anger": 20}
    assert len(ead_probes._subsample(y, 200, seed=1)) == 200  # one short of the pool still works
    assert (ead_probes._subsample(y, 100, seed=1) == idx).all() and not (
        ead_probes._subsample(y, 100, seed=2) == idx
    ).all()


def test_ead_mos_correlation_overall_and_per_annotator():
    systems = ["s1", "s2", "s3", "s4"]
    table = pd.DataFrame({"language": ["bn"] * 4 + ["en"] * 4, "system": systems * 2,
                          "macro_f1": [0.60, 0.62, 0.64, 0.66, 0.9, 0.1, 0.5, 0.3]})
    a1 = {"s1": 1, "s2": 2, "s3": 3, "s4": 4}  # same order as bn EAD: rho = +1
    a2 = {"s1": 4, "s2": 3, "s3": 2, "s4": 1}  # reversed: rho = -1
    ratings = pd.DataFrame([(f"i{i}", sname, ann, r[sname]) for i in range(3) for ann, r in (("A1", a1), ("A2", a2))
                            for sname in systems], columns=["sentence_id", "system", "annotator", "rating"])
    ratings.loc[(ratings["annotator"] == "A1") & (ratings["system"] == "s4"), "rating"] = 5  # A1 s4 MOS 5
    res = ead_probes.ead_mos_correlation(table, ratings).set_index("rater")
    assert res.loc["A1", "rho"] == pytest.approx(1.0) and res.loc["A2", "rho"] == pytest.approx(-1.0)
    # overall MOS: s1 2.5, s2 2.5, s3 2.5, s4 3.0 -> ranks 2,2,2,4 vs 1,2,3,4: rho = 0.7746
    assert res.loc["all", "rho"] == pytest.approx(stats.spearmanr([1, 2, 3, 4], [2, 2, 2, 4])[0])
    assert res.loc["all", "rho"] == pytest.approx(3 / np.sqrt(15))
    assert (res["n_systems"] == 4).all()


def test_doctests():
    for module in (ead_core, ead_inference, ead_probes, ead_transfer):
        assert doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0, module.__name__


def test_seed_scores_are_the_results_scores():
    """``_scores`` (the stability analysis's seeds) gives the floats ``_result`` gives, folds missing classes
    included."""
    from compendium.analyses.ead import core

    rng = np.random.default_rng(1)
    for _ in range(200):
        k, n = int(rng.integers(2, 10)), int(rng.integers(20, 200))
        y = np.array([f"c{i}" for i in rng.integers(0, k, n)], dtype=object)
        predicted = np.array([f"c{i}" for i in rng.integers(0, k + 1, n)], dtype=object)
        fold = rng.integers(0, int(rng.integers(2, 6)), n)
        full = core._result(np.arange(n), y, predicted, fold, seed=0, n_splits=5, C=4.0)
        expected = (full.macro_f1, full.fold_mean, full.fold_sd)
        np.testing.assert_array_equal(core._scores(y, predicted, fold), expected)


@pytest.mark.parametrize("values", [
    ["joy", "fear", "anger", "joy"],
    [3, 1, 10, 2],
    ["joy", None, float("nan"), "None"],
    ["ü", "u", "z", "ä"],
], ids=["labels", "integers", "missing", "non-ascii"])
def test_label_codes_are_numpys_codes_of_the_labels_as_strings(values):
    from compendium.analyses.ead.inference import _encode

    rng = np.random.default_rng(0)
    y_true = pd.Series(np.array(values, dtype=object)[rng.integers(0, len(values), 50)])
    y_pred = np.array(values, dtype=object)[rng.integers(0, len(values), 50)][::-1]
    classes, codes = np.unique(np.concatenate([np.asarray(y_true, dtype=str), np.asarray(y_pred, dtype=str)]),
                               return_inverse=True)
    true, pred, k = _encode(y_true, y_pred)
    assert k == len(classes)
    np.testing.assert_array_equal(true, codes[:50])
    np.testing.assert_array_equal(pred, codes[50:])
