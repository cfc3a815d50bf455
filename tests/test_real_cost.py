"""Section 8 on real data: token counts pinned against the libraries called directly, the bootstrap
against a plain loop, and every verdict on both sides of its rule."""

from __future__ import annotations

import base64
import gzip
import unicodedata

import numpy as np
import pandas as pd
import pytest

from compendium.analyses.real import DOES_NOT_HOLD, HOLDS, INCONCLUSIVE, NOT_TESTABLE
from compendium.analyses.real import cost as rc
from compendium.data import corpora, tokenizers as tk
from compendium.data.real import real_data_dir

N = 20  # the first 20 NTREX triples


@pytest.fixture(scope="module")
def subset():
    ntrex = corpora.load_ntrex()
    return ntrex[ntrex["sentence"] < N].reset_index(drop=True)


@pytest.fixture(scope="module")
def per_sentence(subset):
    return rc.sentence_tokens(rc.ntrex_units(subset), names=("o200k_base", "qwen3"))


def _o200k_direct():
    """o200k_base built here from the ranks file with tiktoken, independently of compendium.data.tokenizers."""
    import tiktoken

    path = real_data_dir(None) / "tokenizers" / "o200k_base.tiktoken.gz"
    ranks = {}
    for line in gzip.decompress(path.read_bytes()).splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return tiktoken.Encoding(
        "o200k_direct", pat_str=tk.PATTERNS["o200k_base"], mergeable_ranks=ranks, special_tokens={}
    )


def _qwen3_direct():
    from tokenizers import Tokenizer

    path = real_data_dir(None) / "tokenizers" / "qwen3.tokenizer.json.gz"
    return Tokenizer.from_str(gzip.decompress(path.read_bytes()).decode("utf-8"))


def test_counts_match_libraries_called_directly(subset, per_sentence):
    o200k, qwen = _o200k_direct(), _qwen3_direct()
    table = rc.parallel_tokens(per_sentence).set_index(["tokenizer", "language"])
    for language in ("en", "bn", "hi"):
        texts = [unicodedata.normalize("NFC", t) for t in subset.loc[subset["language"] == language, "text"]]
        assert table.loc[("o200k_base", language), "tokens"] == sum(len(o200k.encode_ordinary(t)) for t in texts)
        assert table.loc[("qwen3", language), "tokens"] == sum(
            len(qwen.encode(t, add_special_tokens=False).ids) for t in texts)
        assert table.loc[("o200k_base", language), "bytes"] == sum(len(t.encode("utf-8")) for t in texts)
        assert table.loc[("o200k_base", language), "characters"] == sum(len(t) for t in texts)
        assert table.loc[("o200k_base", language), "sentences"] == N


def test_pinned_subset_values(per_sentence):
    # Pinned from the direct computation above (first 20 NTREX triples, NFC).
    table = rc.parallel_tokens(per_sentence).set_index(["tokenizer", "language"])
    pinned = {(t, lang): table.loc[(t, lang), "tokens"] for t in ("o200k_base", "qwen3") for lang in ("en", "bn", "hi")}
    assert pinned == PINNED_TOKENS
    ratios = rc.premium_by_unit(rc.parallel_tokens(per_sentence)).set_index(["tokenizer", "language", "unit"])
    en = table.loc[("o200k_base", "en")]
    bn = table.loc[("o200k_base", "bn")]
    assert ratios.loc[("o200k_base", "bn", "byte"), "ratio_to_english"] == pytest.approx(
        (bn["tokens"] / bn["bytes"]) / (en["tokens"] / en["bytes"]))
    assert ratios.loc[("o200k_base", "bn", "sentence"), "ratio_to_english"] == pytest.approx(
        bn["tokens"] / en["tokens"]
    )
    assert ratios.loc[("o200k_base", "en", "character"), "ratio_to_english"] == 1.0


PINNED_TOKENS = {("o200k_base", "en"): 488, ("o200k_base", "bn"): 866, ("o200k_base", "hi"): 811,
                 ("qwen3", "en"): 491, ("qwen3", "bn"): 2572, ("qwen3", "hi"): 2404}


def test_table_shape_and_systems():
    systems = rc.tokenizer_systems().set_index("tokenizer")
    assert len(systems) == 7
    assert systems.loc["gemma3", "system"] == "gemma-3-27b (exact); gemini-2.0-flash (proxy)"
    assert bool(systems.loc["gemma3", "exact"]) and not bool(systems.loc["claude_legacy", "exact"])
    assert not bool(systems.loc["cl100k_base", "exact"])
    assert sorted(systems.index[systems["exact"]]) == ["deepseek_v3", "gemma3", "o200k_base", "qwen3"]


def test_nfc_units():
    frame = pd.DataFrame({"sentence": [0, 0], "language": ["bn", "en"], "text": ["\u09c7\u09be", "ab"]})
    units = rc.ntrex_units(frame)
    assert units["characters"].tolist() == [1, 2] and units["bytes"].tolist() == [3, 2]


def test_bootstrap_matches_plain_loop():
    rng = np.random.default_rng(1)
    num, den = rng.poisson(30, 50).astype(float), rng.poisson(15, 50).astype(float) + 1
    indices = rc.bootstrap_indices(50, 500, seed=7)
    est, lo, hi = rc.bootstrap_ratio(num, den, indices=indices)
    # plain loop over the same resamples, drawn again from the same seed
    again = np.random.default_rng(7)
    ratios = []
    for _ in range(500):
        rows = again.integers(0, 50, size=50)
        ratios.append(sum(num[i] for i in rows) / sum(den[i] for i in rows))
    assert est == pytest.approx(num.sum() / den.sum())
    assert (lo, hi) == pytest.approx(tuple(np.percentile(ratios, [2.5, 97.5])))


def test_bootstrap_agrees_with_scipy():
    from scipy import stats

    rng = np.random.default_rng(2)
    num, den = rng.poisson(30, 200).astype(float), rng.poisson(15, 200).astype(float) + 1
    _, lo, hi = rc.bootstrap_ratio(num, den, indices=rc.bootstrap_indices(200, 4000, seed=3))
    ref = stats.bootstrap((num, den), lambda a, b, axis=-1: a.sum(axis=axis) / b.sum(axis=axis), paired=True,
                          vectorized=True, n_resamples=4000, method="percentile", random_state=4).confidence_interval
    # different resamples: agreement to Monte Carlo error
    assert lo == pytest.approx(ref.low, abs=0.03) and hi == pytest.approx(ref.high, abs=0.03)


def test_parallel_premium_table(per_sentence):
    table = rc.parallel_premium(per_sentence, seed=0, replicates=200)
    assert len(table) == 4 and set(table["language"]) == {"bn", "hi"}
    assert (table["lo"] <= table["premium"]).all() and (table["premium"] <= table["hi"]).all()
    sums = rc.parallel_tokens(per_sentence).set_index(["tokenizer", "language"])["tokens"]
    row = table.set_index(["tokenizer", "language"]).loc[("o200k_base", "bn")]
    assert row["premium"] == pytest.approx(sums[("o200k_base", "bn")] / sums[("o200k_base", "en")])


def test_verdict_cheapest_per_byte():
    def rates(bn_rates):
        rows = []
        for i, bn in enumerate(bn_rates):
            for lang, rate in (("en", 0.3), ("bn", bn), ("hi", 0.25)):
                rows.append((f"t{i}", True, lang, "byte", rate))
        return pd.DataFrame(rows, columns=["tokenizer", "exact", "language", "unit", "rate"])

    assert rc.verdict_cheapest_per_byte(rates([0.2, 0.2, 0.4])) == HOLDS
    assert rc.verdict_cheapest_per_byte(rates([0.2, 0.4, 0.4])) == DOES_NOT_HOLD
    assert rc.verdict_cheapest_per_byte(rates([0.2, 0.4])) == INCONCLUSIVE  # a tie decides nothing
    assert rc.verdict_cheapest_per_byte(rates([])) == NOT_TESTABLE


def test_verdict_char_premium():
    assert rc.verdict_char_premium([2.0, 1.8, 3.0], 1.72, 2.37) == HOLDS
    assert rc.verdict_char_premium([2.0, 1.5, 3.0], 1.72, 2.37) == DOES_NOT_HOLD
    assert rc.verdict_char_premium([], 1.72, 2.37) == NOT_TESTABLE


def test_verdict_sign_flip():
    assert rc.verdict_sign_flip([0.6, 0.7, 1.2], [1.7, 1.9, 3.0]) == HOLDS
    assert rc.verdict_sign_flip([0.6, 1.1, 1.2], [1.7, 1.9, 3.0]) == DOES_NOT_HOLD
    assert rc.verdict_sign_flip([0.6, 1.1], [1.7, 1.9]) == INCONCLUSIVE


def test_verdict_parallel_premium():
    assert rc.verdict_parallel_premium([1.01, 1.5, 0.9], [1.2, 1.6, 1.1]) == DOES_NOT_HOLD
    assert rc.verdict_parallel_premium([1.0, 0.9, 1.5], [1.1, 1.0, 1.6]) == HOLDS  # lo == 1 is not above 1
    assert rc.verdict_parallel_premium([1.2, 0.9], [1.3, 1.1]) == INCONCLUSIVE
    assert rc.verdict_parallel_premium([], []) == NOT_TESTABLE


def test_verdict_tokens_per_emoji():
    assert rc.verdict_tokens_per_emoji([1.0, 4.4], 4.4) == HOLDS
    assert rc.verdict_tokens_per_emoji([1.0, 4.41], 4.4) == DOES_NOT_HOLD
    assert rc.verdict_tokens_per_emoji([], 4.4) == NOT_TESTABLE


# --- two aggregators over the exact tokenizers (issue 67) ---------------------------------------------------


def test_each_section_8_verdict_states_the_majority_and_the_median_and_is_inconclusive_when_they_differ():
    """The paper's 2.0x against four ratios: a majority lie outside its band, the median inside (as on NTREX)."""
    from compendium.analyses.real import both_aggregators

    ratios, lo, hi = [1.5, 1.74, 2.5, 2.6], 1.72, 2.37  # one in the band; the median (2.12) in it
    majority, median = rc.verdict_char_premium(ratios, lo, hi), rc.verdict_char_premium_median(ratios, lo, hi)
    assert (majority, median) == (DOES_NOT_HOLD, HOLDS) and both_aggregators(majority, median) == INCONCLUSIVE
    assert both_aggregators(HOLDS, HOLDS) == HOLDS and both_aggregators(DOES_NOT_HOLD, DOES_NOT_HOLD) == DOES_NOT_HOLD
    assert both_aggregators(NOT_TESTABLE, HOLDS) == NOT_TESTABLE
    assert rc.verdict_sign_flip_median([0.8, 1.2, 0.9], [1.1, 2.0, 0.9]) == HOLDS  # medians 0.9 < 1 < 1.1
    assert rc.verdict_sign_flip_median([1.2, 1.1], [2.0, 3.0]) == DOES_NOT_HOLD
    assert rc.verdict_parallel_premium_median([0.9, 1.1, 1.2]) == DOES_NOT_HOLD  # median lower end 1.1
    assert rc.verdict_parallel_premium_median([0.9, 0.95, 1.2]) == HOLDS
    rates = pd.DataFrame({"tokenizer": list("xxxyyy"), "exact": [True] * 6, "unit": "byte",
                          "language": ["bn", "en", "hi"] * 2, "rate": [1.0, 1.2, 1.5, 1.5, 1.2, 1.6]})
    assert rc.verdict_cheapest_per_byte(rates) == INCONCLUSIVE  # one of two: a tie
    assert rc.verdict_cheapest_per_byte_median(rates) == DOES_NOT_HOLD  # medians bn 1.25, en 1.2
    assert rc.aggregators_note(DOES_NOT_HOLD, HOLDS) == \
        "majority of the exact tokenizers: does not hold; median exact tokenizer: holds"
    for rule in (rc.RULE_CHAR_PREMIUM, rc.RULE_CHEAPEST_PER_BYTE, rc.RULE_SIGN_FLIP, rc.RULE_PARALLEL_PREMIUM):
        assert "median exact tokenizer" in rule.rule and "inconclusive when they differ" in rule.rule


def test_prompt_tokens_are_the_filled_templates_counted_directly(subset):
    """The paper's unit: appendix A's template with each sentence, counted by tiktoken built here; bytes and
    characters stay the sentence's own."""
    o200k = _o200k_direct()
    units = rc.ntrex_units(subset)
    prompt = rc.sentence_tokens(units, names=("o200k_base",), template=rc.PROMPT_TEMPLATE)
    expected = [len(o200k.encode_ordinary(rc.PROMPT_TEMPLATE.replace("{sentence}", t))) for t in units["text"]]
    assert prompt["tokens"].tolist() == expected
    assert prompt["bytes"].tolist() == units["bytes"].tolist()
    bare = rc.sentence_tokens(units, names=("o200k_base",))
    overhead = prompt["tokens"] - bare["tokens"]
    # The template alone is 54 tokens; filled, the spaces either side of the sentence join its first and last
    # words, and a word's pieces may change with the space before it: a few tokens fewer, never more.
    alone = len(o200k.encode_ordinary(rc.PROMPT_TEMPLATE.replace("{sentence}", "")))
    assert alone == 54 and overhead.between(alone - 4, alone).all() and overhead.min() < alone
    assert rc.PROMPT_TEMPLATE.startswith("You MUST respond with 1-5 emojis") and "{sentence}" in rc.PROMPT_TEMPLATE


def test_implied_sentence_length_inverts_the_template_rate():
    # 53 template tokens, 0.21 tokens per byte: sentences of B bytes give (53 + 0.21 B) / B prompt tokens per byte
    for length in (40.0, 124.0):
        rate = (53 + 0.21 * length) / length
        assert rc.implied_sentence_bytes(53, 0.21, rate) == pytest.approx(length)
    assert np.isnan(rc.implied_sentence_bytes(53, 1.5, 1.45))
    assert rc.comparable_length(124.1, [42.7, 50.1]) is False
    assert rc.comparable_length(55.0, [42.7, 50.1]) is True and rc.comparable_length(36.0, [42.7, 50.1]) is True
    assert rc.comparable_length(35.0, [42.7, 50.1]) is False and rc.comparable_length(50.0, [float("nan")]) is False
    with pytest.raises(ValueError, match="no {sentence} field"):
        rc.fill_template("x", "no field here")


def test_the_premium_on_prompt_tokens_is_judged_only_where_the_sentences_compare():
    ratios, lo, hi = [1.23, 1.07, 2.35, 1.30], 2.7 / 1.57, 3.15 / 1.33
    assert rc.verdict_char_premium_prompt(ratios, lo, hi, comparable=False) == NOT_TESTABLE
    assert rc.verdict_char_premium_prompt(ratios, lo, hi, comparable=True) == DOES_NOT_HOLD  # 1 of 4, median 1.27
    assert rc.verdict_char_premium_prompt([1.5, 1.8, 1.9, 2.6], lo, hi, comparable=True) == INCONCLUSIVE
    assert rc.verdict_char_premium_prompt([1.8, 1.9, 2.0], lo, hi, comparable=True) == HOLDS
