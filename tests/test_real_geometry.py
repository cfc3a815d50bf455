"""Anisotropy of emoji2vec (compendium.analyses.real.geometry) against a direct numpy computation."""

from __future__ import annotations

import numpy as np
import pytest

from compendium.analyses.real import DOES_NOT_HOLD, HOLDS, NOT_TESTABLE
from compendium.analyses.real import geometry as real_geometry
from compendium.data import corpora

# Compares floats from CPU-dispatched code with outside values (anisotropy of real embeddings against direct
# numpy computations); make test runs this module again under the narrow CPU profile (tests/narrow_cpu.py).
pytestmark = pytest.mark.numerics


def _pairwise(M):
    """Mean cosine over all ordered pairs i != j, from the full cosine matrix."""
    U = M / np.linalg.norm(M, axis=1, keepdims=True)
    S = U @ U.T
    n = len(M)
    return (S.sum() - np.trace(S)) / (n * (n - 1))


@pytest.fixture(scope="module")
def emoji2vec():
    _, vectors = corpora.load_emoji2vec()
    return vectors


def test_anisotropy_row_against_all_pairs(emoji2vec):
    sub = emoji2vec[:400]
    row = real_geometry.anisotropy_row(sub, "sub")
    assert row["raw"] == pytest.approx(_pairwise(sub), abs=1e-12)
    assert row["centred"] == pytest.approx(_pairwise(sub - sub.mean(axis=0)), abs=1e-12)
    assert row["removed_share"] == pytest.approx((row["raw"] - row["centred"]) / row["raw"])
    mean = sub.mean(axis=0)
    assert row["mean_energy_share"] == pytest.approx(mean @ mean / np.mean(np.sum(sub ** 2, axis=1)))


def test_rotation_is_orthogonal_and_leaves_anisotropy_unchanged(emoji2vec):
    q = real_geometry.random_rotation(300, seed=4)
    np.testing.assert_allclose(q.T @ q, np.eye(300), atol=1e-10)
    table = real_geometry.anisotropy_checks(emoji2vec, seed=4).set_index("space")
    assert table.loc["emoji2vec rotated", "raw"] == pytest.approx(table.loc["emoji2vec", "raw"], abs=1e-10)
    assert table.loc["emoji2vec rotated", "centred"] == pytest.approx(table.loc["emoji2vec", "centred"], abs=1e-10)
    # a per-dimension rescaling is not a rotation: the raw value moves
    assert abs(table.loc["emoji2vec rescaled", "raw"] - table.loc["emoji2vec", "raw"]) > 1e-3
    assert table.loc["emoji2vec", "n"] == 1661 and table.loc["emoji2vec", "dim"] == 300


def test_random_rotation_is_seeded():
    np.testing.assert_array_equal(real_geometry.random_rotation(5, seed=1), real_geometry.random_rotation(5, seed=1))
    assert not np.allclose(real_geometry.random_rotation(5, seed=1), real_geometry.random_rotation(5, seed=2))


def test_verdict_mean_offset_both_sides():
    assert real_geometry.verdict_mean_offset(0.2, 0.01) == HOLDS  # 95 % removed
    assert real_geometry.verdict_mean_offset(0.2, 0.03) == DOES_NOT_HOLD  # 85 % removed
    assert real_geometry.verdict_mean_offset(0.2, -0.0004) == HOLDS
    assert real_geometry.verdict_mean_offset(0.04, 0.0) == NOT_TESTABLE


def test_a_space_whose_anisotropy_centring_does_not_remove():
    # two tight clusters on opposite-but-not-symmetric directions: the anisotropy is between-cluster
    # structure, not one offset; centring leaves most of it (the verdict can fail)
    rng = np.random.default_rng(0)
    a = np.array([1.0, 0.0]) + 0.01 * rng.standard_normal((90, 2))
    b = np.array([0.0, 1.0]) * 5 + 0.01 * rng.standard_normal((10, 2))
    X = np.vstack([a, b])
    row = real_geometry.anisotropy_row(X, "toy")
    assert real_geometry.verdict_mean_offset(row["raw"], row["centred"]) == DOES_NOT_HOLD


# --------------------------------------------------------------------------- real encoders on parallel text


def _parallel_cloud(n=60, dim=8, offset=3.0, language_offsets=0.0, seed=0):
    """n sentences in three languages: a shared meaning per sentence, a common offset, per-language offsets."""
    rng = np.random.default_rng(seed)
    meaning = rng.normal(size=(n, dim))
    common = np.full(dim, offset)
    rows, languages, sentences = [], [], []
    for k, language in enumerate(["en", "bn", "hi"]):
        shift = np.zeros(dim)
        shift[k] = language_offsets
        rows.append(meaning + common + shift + 0.3 * rng.normal(size=(n, dim)))
        languages += [language] * n
        sentences += list(range(n))
    return np.vstack(rows), np.array(languages), np.array(sentences)


def _brute_anisotropy(M):
    U = M / np.linalg.norm(M, axis=1, keepdims=True)
    S = U @ U.T
    n = len(M)
    return (S.sum() - n) / (n * (n - 1))


def test_centring_table_agrees_with_brute_force_cosines():
    X, languages, sentences = _parallel_cloud()
    table = real_geometry.centring_table(X, languages, sentences, seed=3, n_splits=5).set_index("subset")
    assert list(table.index) == ["all", "en", "bn", "hi"]
    assert table.loc["all", "raw"] == pytest.approx(_brute_anisotropy(X), abs=1e-12)
    en = X[languages == "en"]
    assert table.loc["en", "centred"] == pytest.approx(_brute_anisotropy(en - en.mean(axis=0)), abs=1e-12)
    assert table.loc["en", "other_languages"] == pytest.approx(
        _brute_anisotropy(en - X[languages != "en"].mean(axis=0)), abs=1e-12)
    assert table.loc["all", "floor"] == pytest.approx(-1 / (len(X) - 1))
    # One half by hand: the rows of the other half's sentences, centred with this half's mean.
    rng = np.random.default_rng(3)
    chosen = rng.permutation(np.unique(sentences))[:30]
    a = np.isin(sentences, chosen)
    first = _brute_anisotropy(X[~a] - X[a].mean(axis=0))
    assert table.loc["all", "held_out_low"] <= first <= table.loc["all", "held_out_high"]
    assert table.loc["all", "raw"] > 0.5 and table.loc["all", "removed_held_out"] > 0.9


def test_a_mean_from_another_language_leaves_anisotropy_when_languages_have_their_own_offsets():
    """The held-out and other-language columns can tell spaces apart; the in-sample column cannot."""
    X, languages, sentences = _parallel_cloud(language_offsets=6.0)
    table = real_geometry.centring_table(X, languages, sentences, seed=1, n_splits=5).set_index("subset")
    assert abs(table.loc["en", "centred"] - table.loc["en", "floor"]) < 0.02  # in sample: the identity
    assert table.loc["en", "other_languages"] > 0.3  # the other languages' mean is not this language's


def test_retrieval_matches_scikit_learns_ranking_metrics():
    from sklearn.metrics import label_ranking_average_precision_score, top_k_accuracy_score

    X, languages, sentences = _parallel_cloud(n=40, seed=5)
    table = real_geometry.retrieval_table(X, languages, sentences)
    assert len(table) == 12 and set(table["space"]) == {"raw", "centred per language"}
    en, bn = X[languages == "en"], X[languages == "bn"]
    unit = lambda M: M / np.linalg.norm(M, axis=1, keepdims=True)  # noqa: E731
    scores = unit(en) @ unit(bn).T
    truth = np.eye(len(en), dtype=int)
    row = table[(table["direction"] == "en→bn") & (table["space"] == "raw")].iloc[0]
    assert row["mrr"] == pytest.approx(label_ranking_average_precision_score(truth, scores), abs=1e-12)
    assert row["top1"] == pytest.approx(top_k_accuracy_score(np.arange(len(en)), scores, k=1,
                                                             labels=np.arange(len(en))), abs=1e-12)
    centred = unit(bn - bn.mean(axis=0)) @ unit(en - en.mean(axis=0)).T
    row = table[(table["direction"] == "bn→en") & (table["space"] == "centred per language")].iloc[0]
    assert row["mrr"] == pytest.approx(label_ranking_average_precision_score(truth, centred), abs=1e-12)


def test_retrieval_refuses_text_that_is_not_parallel():
    X, languages, sentences = _parallel_cloud(n=10)
    sentences = sentences.copy()
    sentences[languages == "bn"] += 100
    with pytest.raises(ValueError, match="parallel"):
        real_geometry.retrieval_table(X, languages, sentences)


def test_language_divergence_is_zero_for_identical_language_means_and_grows_with_offsets():
    X, languages, _ = _parallel_cloud(offset=0.0, seed=2)
    shifted, _, _ = _parallel_cloud(offset=0.0, language_offsets=5.0, seed=2)
    assert real_geometry.language_divergence(X, languages) < 0.1 < real_geometry.language_divergence(shifted, languages)
    same = np.vstack([X[languages == "en"]] * 3)
    assert real_geometry.language_divergence(same, languages) == pytest.approx(0.0, abs=1e-12)


def test_the_heldout_centring_verdict_counts_the_encoders_that_count():
    assert real_geometry.verdict_heldout_centring([(0.79, 0.99), (0.36, 0.95)]) == ("holds", 2, 2)
    assert real_geometry.verdict_heldout_centring([(0.79, 0.99), (0.36, 0.80)]) == ("does not hold", 2, 1)
    assert real_geometry.verdict_heldout_centring([(0.01, 0.2)]) == ("not testable here", 0, 0)
    assert real_geometry.verdict_heldout_centring([(0.02, 0.1), (0.5, 0.95)]) == ("holds", 1, 1)


@pytest.mark.parametrize("statistic,alignment,verdict", [
    ([0.1, 0.2, 0.3, 0.4], [0.9, 0.8, 0.7, 0.1], "does not hold"),  # lower statistic, better retrieval: always
    ([0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3, 0.9], "holds"),
    ([0.1, 0.2, 0.3, 0.4], [0.9, 0.7, 0.8, 0.1], "inconclusive"),
    ([0.1, 0.2], [0.9, 0.1], "not testable here"),
])
def test_the_not_alignment_verdict_follows_kendalls_tau(statistic, alignment, verdict):
    from scipy.stats import kendalltau

    found, tau = real_geometry.verdict_not_alignment(statistic, alignment)
    assert found == verdict
    if len(statistic) >= 3:
        assert tau == pytest.approx(kendalltau(statistic, alignment).statistic)


def test_the_alignment_rules_rank_only_encoders_that_read_the_languages_and_state_the_chance_of_a_perfect_order():
    """Issue 67: two of the four encoders barely retrieve Bangla (en->bn MRR 0.013 and 0.053); a rank statistic
    over encoders that cannot read the languages says nothing of alignment, and tau = -1 over n encoders
    arises by chance one time in n!."""
    import math

    for rule in (real_geometry.RULE_SEPARABILITY_NOT_ALIGNMENT, real_geometry.RULE_DIVERGENCE_NOT_ALIGNMENT):
        assert "encoders that read Bangla and Hindi" in rule.rule and "Fewer than three such encoders" in rule.rule
        assert f"1/{math.factorial(3)} for three, 1/{math.factorial(4)} for four" in rule.smallest_effect


def test_nonparallel_samples_share_no_sentence_across_languages():
    _, languages, sentences = _parallel_cloud(n=61)
    for non_parallel, parallel in real_geometry.nonparallel_samples(languages, sentences, seed=2, n_splits=4):
        owners = {}
        for language, sentence in zip(languages[non_parallel], sentences[non_parallel]):
            assert owners.setdefault(sentence, language) == language  # a sentence in one language only
        assert non_parallel.sum() == parallel.sum() == 3 * (61 // 3)
        for language in ("en", "bn", "hi"):  # each language keeps the same number of rows
            assert (non_parallel & (languages == language)).sum() == 61 // 3
        kept = sentences[parallel]
        assert all((kept == s).sum() == 3 for s in np.unique(kept))  # the control: every sentence in every language


def test_topic_alone_separates_languages_only_when_the_samples_are_not_parallel():
    """Rows that are a sentence's topic vector plus noise, the same in every language: on parallel samples the
    languages' means coincide up to the noise; on non-parallel ones they differ by the sentences each holds."""
    rng = np.random.default_rng(0)
    n = 300
    topic = rng.normal(size=(n, 8)) * 3
    languages = np.repeat(["en", "bn", "hi"], n)
    sentences = np.tile(np.arange(n), 3)
    X = topic[sentences] + rng.normal(scale=0.01, size=(3 * n, 8))
    table = real_geometry.nonparallel_table(X, languages, sentences, seed=1, n_splits=5).set_index("sample")
    assert table.loc["parallel", "fisher"] < 1e-3 < table.loc["non-parallel", "fisher"]
    assert table.loc["parallel", "divergence"] < table.loc["non-parallel", "divergence"]
    # One split by hand with the chapter's Fisher ratio, on unit rows as language_separability uses them.
    from compendium.analyses.geometry import fisher_ratio

    non_parallel, _ = real_geometry.nonparallel_samples(languages, sentences, seed=1, n_splits=5)[0]
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    first = fisher_ratio(U[non_parallel], languages[non_parallel])
    assert table.loc["non-parallel", "fisher_low"] <= first <= table.loc["non-parallel", "fisher_high"]
