"""Human emoji EAD (compendium.analyses.real.ead): row selection, the EAD against scikit-learn, verdicts.

The reference of the EAD is scikit-learn run directly in the test:
``TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True)`` +
``LogisticRegression(class_weight="balanced")`` to a tight tolerance under
``StratifiedKFold(5, shuffle=True)``, pooled out-of-fold macro-F1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline

from compendium.analyses.emoji import emoji_analyzer
from compendium.analyses.real import DOES_NOT_HOLD, HOLDS, INCONCLUSIVE, NOT_TESTABLE
from compendium.analyses.real import ead as real_ead
from compendium.data import corpora

# Compares floats from CPU-dispatched code with outside values (the human-emoji EAD against scikit-learn run
# directly); make test runs this module again under the narrow CPU profile (tests/narrow_cpu.py).
pytestmark = pytest.mark.numerics


def test_select_goemotions_keeps_single_shared_labels_with_an_emoji():
    frame = pd.DataFrame({
        "split": ["train", "train", "dev", "test", "test", "train", "dev"],
        "id": ["a", "b", "c", "d", "e", "f", "g"],
        "text": ["so happy 😂", "no emoji here", "sad 😢", "gross 🤢", "mixed 😡", "café", "scared 😱"],
        "labels": [("joy",), ("joy",), ("sadness",), ("disgust",), ("anger", "joy"), ("joy",), ("fear",)],
    })
    rows = real_ead.select_goemotions(frame)
    assert rows["item"].tolist() == ["train:a", "dev:c", "dev:g"]  # no emoji, disgust, two labels, 'é' dropped
    assert rows["label"].tolist() == ["joy", "sadness", "fear"]
    assert list(rows.columns) == ["item", "text", "label"]


def test_select_emomix3l_maps_labels_and_drops_neutral():
    frame = pd.DataFrame({"id": [0, 1, 2, 3, 4, 5],
                          "text": ["😀", "😭 ami", "😡", "😮", "😐 thik", "khushi"],
                          "label": ["Happy", "Sad", "Angry", "Surprise", "Neutral", "Happy"]})
    rows = real_ead.select_emomix3l(frame)
    assert rows["item"].tolist() == ["0", "1", "2", "3"]
    assert rows["label"].tolist() == ["joy", "sadness", "anger", "surprise"]


def test_select_sentmix3l_keeps_sentiments_lower_case():
    frame = pd.DataFrame({"id": [0, 1, 2, 3], "text": ["👍", "👎", "ok", "🙂"],
                          "label": ["Positive", "Negative", "Neutral", "Neutral"]})
    rows = real_ead.select_sentmix3l(frame)
    assert rows["label"].tolist() == ["positive", "negative", "neutral"]


def test_has_emoji_agrees_with_the_analyzer():
    texts = ["abc", "😂", "১২৩ বাংলা", "#", "#️⃣", "❤", "ok 👍🏽", "\u200d"]
    assert real_ead.has_emoji(texts).tolist() == [bool(emoji_analyzer(t)) for t in texts]


def test_the_real_selection_counts():
    assert len(real_ead.select_emomix3l(corpora.load_emomix3l())) == 252
    go = real_ead.select_goemotions(corpora.load_goemotions())
    assert len(go) == 757
    assert set(go["label"]) == {"anger", "fear", "joy", "sadness", "surprise"}


def _sklearn_ead(texts, labels, seed):
    pipe = make_pipeline(TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True),
                         LogisticRegression(C=4.0, class_weight="balanced", max_iter=100_000, tol=1e-12))
    cv = StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
    predicted = cross_val_predict(pipe, np.array(texts, dtype=object), np.array(labels), cv=cv)
    return f1_score(labels, predicted, average="macro"), predicted


def test_human_ead_equals_sklearn_on_a_real_subset():
    rows = real_ead.select_emomix3l(corpora.load_emomix3l()).groupby("label").head(25).reset_index(drop=True)
    result = real_ead.human_ead(rows, seed=3, n_boot=200, n_permutations=5)
    expected, predicted = _sklearn_ead(rows["text"].tolist(), rows["label"].to_numpy(), seed=3)
    np.testing.assert_array_equal(result["oof"]["predicted"].to_numpy(), predicted)
    assert result["ead"] == pytest.approx(expected, abs=1e-12)
    assert result["n"] == len(rows) == 100
    assert result["ci_low"] <= result["ead"] <= result["ci_high"]
    counts = rows["label"].value_counts()
    p = counts.max() / counts.sum()
    assert result["floor"] == pytest.approx(0.25 * 2 * p / (1 + p))
    assert 1 / 6 <= result["permutation_p"] <= 1


def test_human_ead_table_has_the_columns():
    rows = pd.DataFrame({"item": [str(i) for i in range(30)], "text": ["😂", "😢", "😡"] * 10,
                         "label": ["joy", "sadness", "anger"] * 10})
    table = real_ead.human_ead_table([("toy", "xx", "emotion", rows)], seed=0, n_boot=50, n_permutations=9)
    assert list(table.columns[:9]) == real_ead.TABLE_COLUMNS
    assert table.loc[0, "ead"] == 1.0
    assert table.loc[0, "permutation_p"] == pytest.approx(0.1)  # 1 / (1 + 9): no permutation reaches 1.0


def test_transfer_against_sklearn_fit_on_the_source():
    rng = np.random.default_rng(0)
    code_a = {"joy": "😂", "sadness": "😢", "anger": "😡"}
    code_b = {"joy": "😢", "sadness": "😂", "anger": "😡"}  # the same emojis, two meaning something else
    def corpus(code, labels, n):
        y = rng.choice(labels, n)
        return pd.DataFrame(
            {
                "item": [str(i) for i in range(n)],
                "text": [code[v] + rng.choice(["🎉", "🙂", ""]) for v in y],
                "label": y,
            }
        )
    a = corpus(code_a, ["joy", "sadness", "anger"], 90)
    b = corpus({**code_b, "fear": "😱"}, ["joy", "sadness", "anger", "fear"], 90)
    table = real_ead.transfer({"a": a, "b": b}, seed=1, n_boot=100)
    row = table[table["source"] == "a"].iloc[0]
    assert row["labels"] == "anger, joy, sadness"
    shared_b = b[b["label"] != "fear"]
    pipe = make_pipeline(TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True),
                         LogisticRegression(C=4.0, class_weight="balanced", max_iter=100_000, tol=1e-12))
    pipe.fit(a["text"].to_numpy(dtype=object), a["label"].to_numpy())
    expected = f1_score(shared_b["label"], pipe.predict(shared_b["text"].to_numpy(dtype=object)), average="macro")
    assert row["transfer_f1"] == pytest.approx(expected, abs=1e-12)
    assert row["n_test"] == len(shared_b)
    assert row["cost"] == pytest.approx(row["within_f1"] - row["transfer_f1"])
    assert row["cost"] > 0.3  # swapped code: transfer fails, within-corpus decoding does not


def test_lexicon_baseline_on_a_hand_built_lexicon():
    lexicon = pd.DataFrame({"emoji": ["😂", "😢", "❤️"], "unicode": ["", "", ""], "name": ["", "", ""],
                            "anger": [0, 0, 0], "anticipation": [0, 0, 0], "disgust": [0, 0, 0], "fear": [0, 0, 0],
                            "joy": [0.9, 0.0, 0.6], "sadness": [0.1, 0.8, 0.0], "surprise": [0, 0, 0],
                            "trust": [0, 0, 0.9]})
    rows = pd.DataFrame({"item": list("abcd"), "text": ["😂", "😢😢", "❤", "🤷"],
                         "label": ["joy", "sadness", "joy", "sadness"]})
    out = real_ead.lexicon_baseline(rows, lexicon)
    # predictions: joy, sadness, joy (❤ matches ❤️), none -> joy F1 1, sadness F1 2/3
    assert out["coverage"] == 0.75
    assert out["macro_f1"] == pytest.approx((1 + 2 / 3) / 2)


@pytest.mark.parametrize("kwargs, expected", [
    (dict(n=252, ci_low=0.60, ci_high=0.7, floor=0.14, permutation_p=0.005), HOLDS),
    (dict(n=252, ci_low=0.13, ci_high=0.3, floor=0.14, permutation_p=0.005), INCONCLUSIVE),
    (dict(n=252, ci_low=0.60, ci_high=0.7, floor=0.14, permutation_p=0.06), INCONCLUSIVE),
    (dict(n=252, ci_low=0.10, ci_high=0.14, floor=0.14, permutation_p=0.3), DOES_NOT_HOLD),
    (dict(n=49, ci_low=0.60, ci_high=0.7, floor=0.14, permutation_p=0.005), NOT_TESTABLE),
])
def test_verdict_decodable_both_sides(kwargs, expected):
    assert real_ead.verdict_decodable(**kwargs) == expected


def _directions(transfer, within_low, cost, n=300, labels="anger, joy"):
    return pd.DataFrame({"labels": [labels, labels], "n_train": [n, n], "n_test": [n, n],
                         "transfer_f1": transfer, "within_ci_low": within_low, "cost": cost})


def test_verdict_language_specific_both_sides():
    assert real_ead.verdict_language_specific(_directions([0.3, 0.3], [0.5, 0.5], [0.25, 0.11])) == HOLDS
    assert real_ead.verdict_language_specific(_directions([0.3, 0.3], [0.5, 0.5], [0.10, 0.09])) == DOES_NOT_HOLD
    assert real_ead.verdict_language_specific(_directions([0.3, 0.52], [0.5, 0.5], [0.25, 0.20])) == INCONCLUSIVE
    assert real_ead.verdict_language_specific(_directions([0.51, 0.52], [0.5, 0.5], [0.05, 0.04])) == DOES_NOT_HOLD
    assert real_ead.verdict_language_specific(_directions([0.3, 0.3], [0.5, 0.5], [0.25, 0.2], n=49)) == NOT_TESTABLE
    assert real_ead.verdict_language_specific(_directions([0.3, 0.3], [0.5, 0.5], [0.25, 0.2], labels="joy")) \
        == NOT_TESTABLE
    assert real_ead.verdict_language_specific(_directions([0, 0], [0, 0], [0, 0]).iloc[:0]) == NOT_TESTABLE


# --------------------------------------------------------------------------- emoji against embedding


def _emoji_and_embedding_rows(n=120, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.array(["joy", "anger", "sadness"])[rng.integers(0, 3, n)]
    centres = {"joy": [2, 0, 0, 0], "anger": [0, 2, 0, 0], "sadness": [0, 0, 2, 0]}
    X = np.array([centres[label] for label in labels], float) + rng.normal(size=(n, 4)) + 3.0
    items = [f"i{k}" for k in range(n)]
    emoji_predicted = np.where(
        rng.random(n) < 0.6, labels, np.array(["joy", "anger", "sadness"])[rng.integers(0, 3, n)]
    )
    rows = pd.DataFrame({"item": items, "text": ["x"] * n, "label": labels})
    return rows, emoji_predicted, {"space": pd.DataFrame(X, index=items)}


def test_emoji_against_embedding_scores_both_channels_as_scikit_learn_does():
    from compendium.analyses.ead.inference import bootstrap_indices
    from compendium.analyses.geometry import emotion_probe

    rows, emoji_predicted, embeddings = _emoji_and_embedding_rows()
    table = real_ead.emoji_vs_embedding.uncached(rows, emoji_predicted, embeddings, seed=3, n_boot=60)
    row = table.iloc[0]
    labels = rows["label"].to_numpy()
    assert row["emoji_ead"] == pytest.approx(f1_score(labels, emoji_predicted, average="macro"), abs=1e-12)
    assert row["embedding_f1"] == pytest.approx(
        emotion_probe(embeddings["space"].to_numpy(), labels, seed=3)["macro_f1"], abs=1e-12)
    # The paired interval, replicate by replicate with scikit-learn on the same resampled items.
    from compendium.analyses.geometry import probe_predictions

    predicted = probe_predictions(embeddings["space"].to_numpy(), labels, seed=3)
    differences = [f1_score(labels[i], emoji_predicted[i], average="macro", zero_division=0)
                   - f1_score(labels[i], predicted[i], average="macro", zero_division=0)
                   for i in bootstrap_indices(len(labels), 60, 3)]
    low, high = np.quantile(differences, [0.025, 0.975])
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
    assert row["ci_low"] <= row["difference"] <= row["ci_high"]


@pytest.mark.parametrize("intervals,verdict,held", [
    ([(-0.05, 0.10), (-0.12, 0.02)], "holds", 2),
    ([(-0.05, 0.10), (-0.30, -0.13)], "does not hold", 1),
    ([(-0.05, 0.10), (-0.20, 0.02)], "inconclusive", 1),
    ([], "not testable here", 0),
])
def test_the_emoji_against_embedding_verdict(intervals, verdict, held):
    assert real_ead.verdict_emoji_vs_embedding(intervals) == (verdict, held)
