"""Tests for compendium.analyses.cost (paper section 8), on tables small enough to do by hand.

Multibyte text is spelt out with escapes so that the code points (and hence
the byte and character counts in the comments) are visible:

* ``AMI``  = আ ম ি (U+0986 U+09AE U+09BF): 3 characters, 9 UTF-8 bytes;
* ``BHAT`` = ভ া ত (U+09AD U+09BE U+09A4): 3 characters, 9 bytes;
* ``NAMASTE`` = न म स ् त े (U+0928 U+092E U+0938 U+094D U+0924 U+0947):
  6 characters, 18 bytes.
"""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium.analyses import cost
from compendium.analyses.cost import (
    completion_costs,
    cost_ead_correlations,
    estimate_template_tokens,
    text_units,
    token_rates,
    tokens_per_emoji_range,
)

AMI = "\u0986\u09ae\u09bf"
BHAT = "\u09ad\u09be\u09a4"
NAMASTE = "\u0928\u092e\u0938\u094d\u0924\u0947"
JOY = "\U0001f602"
ANGRY = "\U0001f621"
TECHNOLOGIST = "\U0001f469\U0001f3fd\u200d\U0001f4bb"  # one grapheme, four code points


@pytest.fixture
def sentences() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "sentence_id": ["b1", "b2", "h1", "e1", "e2"],
            "language": pd.Categorical(["bn", "bn", "hi", "en", "en"], categories=["bn", "en", "hi"]),
            "text": [AMI, f"{AMI} {BHAT}", NAMASTE, "hi there", "ok"],
            #   bytes  9      19           18      8           2
            #   chars  3       7            6      8           2
        }
    )


@pytest.fixture
def generations() -> pd.DataFrame:
    rows = [
        # sentence, system, prompt tokens
        ("b1", "x", 20), ("b1", "y", 25),
        ("b2", "x", 30), ("b2", "y", 31),
        ("h1", "x", 40), ("h1", "y", 44),
        ("e1", "x", 12), ("e1", "y", 12),
        ("e2", "x", 9), ("e2", "y", 11),
    ]
    return pd.DataFrame(rows, columns=["sentence_id", "system", "prompt_tokens"])


def test_text_units_count_utf8_bytes_and_code_points(sentences):
    units = text_units(sentences["text"])
    assert units["bytes"].tolist() == [9, 19, 18, 8, 2]
    assert units["chars"].tolist() == [3, 7, 6, 8, 2]


def test_token_rates_ratio_of_sums_by_language(sentences, generations):
    rates = token_rates(sentences, generations).set_index("language")
    assert list(rates.index) == ["bn", "en", "hi"]
    # bn: tokens 20+25+30+31 = 106; bytes 2*(9+19) = 56; chars 2*(3+7) = 20
    assert rates.loc["bn", ["rows", "items", "prompt_tokens", "bytes", "chars"]].tolist() == [4, 2, 106, 56, 20]
    assert rates.loc["bn", "tokens_per_byte"] == pytest.approx(106 / 56)
    assert rates.loc["bn", "tokens_per_char"] == pytest.approx(106 / 20)
    assert rates.loc["bn", "bytes_per_char"] == pytest.approx(56 / 20)
    # hi: 84 tokens over 2*18 bytes and 2*6 characters
    assert rates.loc["hi", "tokens_per_byte"] == pytest.approx(84 / 36)
    assert rates.loc["hi", "tokens_per_char"] == pytest.approx(7.0)
    assert rates.loc["hi", "bytes_per_char"] == pytest.approx(3.0)
    # en: ASCII, one byte per character: 44 tokens over 20 bytes = 20 characters
    assert rates.loc["en", "tokens_per_byte"] == pytest.approx(2.2)
    assert rates.loc["en", "tokens_per_char"] == pytest.approx(2.2)
    assert rates.loc["en", "bytes_per_char"] == 1.0
    # the identity that only the ratio of sums satisfies
    np.testing.assert_allclose(rates["tokens_per_char"], rates["tokens_per_byte"] * rates["bytes_per_char"])


def test_token_rates_mean_of_item_ratios(sentences, generations):
    rates = token_rates(sentences, generations).set_index("language")
    # bn rows: 20/9, 25/9, 30/19, 31/19
    assert rates.loc["bn", "tokens_per_byte_item_mean"] == pytest.approx((20 / 9 + 25 / 9 + 30 / 19 + 31 / 19) / 4)
    assert rates.loc["bn", "tokens_per_char_item_mean"] == pytest.approx((20 / 3 + 25 / 3 + 30 / 7 + 31 / 7) / 4)
    assert rates.loc["bn", "bytes_per_char_item_mean"] == pytest.approx((3 + 3 + 19 / 7 + 19 / 7) / 4)
    # en rows: 12/8, 12/8, 9/2, 11/2 -- the short item pulls the mean up
    assert rates.loc["en", "tokens_per_byte_item_mean"] == pytest.approx(3.25)
    assert rates.loc["en", "tokens_per_byte_item_mean"] > rates.loc["en", "tokens_per_byte"]


def test_token_rates_by_system_and_language_and_net_of_template(sentences, generations):
    cells = token_rates(sentences, generations, by=("system", "language"))
    bn_x = cells[(cells["system"] == "x") & (cells["language"] == "bn")].iloc[0]
    assert bn_x["tokens_per_byte"] == pytest.approx(50 / 28)
    assert bn_x["tokens_per_char"] == pytest.approx(5.0)
    net = token_rates(sentences, generations, template_tokens={"x": 5, "y": 6}).set_index("language")
    assert net.loc["bn", "net_tokens_per_byte"] == pytest.approx((106 - 5 - 5 - 6 - 6) / 56)
    assert net.loc["en", "net_tokens_per_char"] == pytest.approx((44 - 22) / 20)
    scalar = token_rates(sentences, generations, template_tokens=5).set_index("language")
    assert scalar.loc["hi", "net_tokens_per_byte"] == pytest.approx((84 - 10) / 36)
    with pytest.raises(ValueError, match="system 'y'"):
        token_rates(sentences, generations, template_tokens={"x": 5})


def test_token_rates_rejects_generations_of_unknown_sentences(sentences, generations):
    extra = pd.concat([generations, pd.DataFrame([("zz", "x", 3)], columns=generations.columns)])
    with pytest.raises(ValueError, match="unknown sentences"):
        token_rates(sentences, extra)


def test_estimate_template_tokens_recovers_an_exact_intercept(sentences):
    units = text_units(sentences["text"]).set_index(sentences["sentence_id"])
    slope = {"bn": 2.0, "en": 0.25, "hi": 3.0}
    language = dict(zip(sentences["sentence_id"], sentences["language"].astype(str)))
    rows = []
    for system, template in (("a", 57.0), ("b", 63.0)):
        for sid in sentences["sentence_id"]:
            rows.append((sid, system, template + slope[language[sid]] * units.loc[sid, "chars"]))
    generations = pd.DataFrame(rows, columns=["sentence_id", "system", "prompt_tokens"])
    fit = estimate_template_tokens(sentences, generations).set_index("system")
    assert fit.loc["a", "template_tokens"] == pytest.approx(57.0)
    assert fit.loc["b", "template_tokens"] == pytest.approx(63.0)
    assert fit.loc["b", "tokens_per_char_hi"] == pytest.approx(3.0)


# ------------------------------------------------------------------ completion tokens and emojis
@pytest.fixture
def outputs() -> pd.DataFrame:
    rows = [
        # sentence, system, output, prompt, completion
        ("b1", "claude-3-haiku", JOY + JOY, 60, 10),  # 2 emojis
        ("b2", "claude-3-haiku", TECHNOLOGIST, 60, 6),  # 1 emoji (4 code points)
        ("h1", "claude-3-haiku", ANGRY, 61, 4),  # 1 emoji, Hindi
        ("b1", "gpt-4.1-nano", "ok", 57, 3),  # no emoji
        ("b2", "gpt-4.1-nano", f" {JOY} ", 57, 7),  # 1 emoji
        ("b1", "grok-4-fast", JOY + JOY, 60, 300),  # reasoning tokens do not grow with emojis
        ("b2", "grok-4-fast", JOY + ANGRY + JOY, 60, 300),
    ]
    return pd.DataFrame(rows, columns=["sentence_id", "system", "output", "prompt_tokens", "completion_tokens"])


def test_completion_costs_both_definitions_of_tokens_per_emoji(sentences, outputs):
    costs = completion_costs(sentences, outputs)
    assert costs[["system", "language"]].values.tolist() == [
        ["claude-3-haiku", "bn"], ["claude-3-haiku", "hi"], ["gpt-4.1-nano", "bn"], ["grok-4-fast", "bn"],
    ]
    cells = costs.set_index(["system", "language"])
    claude = cells.loc[("claude-3-haiku", "bn")]
    assert claude["mean_completion_tokens"] == 8.0
    assert claude["mean_emojis"] == 1.5  # graphemes: the technologist is one emoji
    assert claude["tokens_per_emoji"] == pytest.approx(8 / 1.5)  # ratio of means
    assert claude["tokens_per_emoji_item_mean"] == pytest.approx((10 / 2 + 6 / 1) / 2)  # mean of ratios
    assert claude["mean_total_tokens"] == 68.0
    nano = cells.loc[("gpt-4.1-nano", "bn")]
    assert nano["zero_emoji_items"] == 1
    assert nano["mean_emojis"] == 0.5
    assert nano["tokens_per_emoji"] == pytest.approx(5 / 0.5)
    assert nano["tokens_per_emoji_item_mean"] == pytest.approx(7.0)  # the emoji-less item has no ratio
    grok = cells.loc[("grok-4-fast", "bn")]
    # The section 8 pattern (294.7 / 2.60 = 113 vs "124"): 300 / 2.5 = 120 < (150 + 100) / 2 = 125.
    assert grok["tokens_per_emoji"] == pytest.approx(120.0)
    assert grok["tokens_per_emoji_item_mean"] == pytest.approx(125.0)


def test_completion_costs_by_system_only_pools_languages(sentences, outputs):
    costs = completion_costs(sentences, outputs, by="system").set_index("system")
    assert costs.loc["claude-3-haiku", "items"] == 3
    assert costs.loc["claude-3-haiku", "tokens_per_emoji"] == pytest.approx((20 / 3) / (4 / 3))


def test_tokens_per_emoji_range_excludes_grok(sentences, outputs):
    costs = completion_costs(sentences, outputs)
    spread = tokens_per_emoji_range(costs)
    assert spread.loc["ratio_of_means", "systems"] == 2
    assert spread.loc["ratio_of_means", "min_system"] == "claude-3-haiku"
    assert spread.loc["ratio_of_means", "min"] == pytest.approx(8 / 1.5)
    assert spread.loc["ratio_of_means", "max_system"] == "gpt-4.1-nano"
    assert spread.loc["mean_of_ratios", "min_system"] == "claude-3-haiku"
    assert spread.loc["mean_of_ratios", "max"] == pytest.approx(7.0)
    with_grok = tokens_per_emoji_range(costs, exclude=())
    assert with_grok.loc["ratio_of_means", "max_system"] == "grok-4-fast"


def test_cost_ead_correlations_are_spearman_over_systems():
    systems = ["a", "b", "c", "d", "e", "f"]
    costs = pd.DataFrame(
        {
            "system": systems * 2,
            "language": ["bn"] * 6 + ["en"] * 6,
            "mean_total_tokens": [70, 80, 90, 400, 75, 85, 1, 2, 3, 4, 5, 6],
            "mean_completion_tokens": [8, 9, 12, 300, 7, 10, 1, 2, 3, 4, 5, 6],
            "tokens_per_emoji": [2.0, 3.0, 4.0, 110.0, 1.5, 3.5, 1, 2, 3, 4, 5, 6],
            "tokens_per_emoji_item_mean": [2.1, 3.2, 4.1, 120.0, 1.4, 3.3, 1, 2, 3, 4, 5, 6],
        }
    )
    ead = pd.DataFrame(
        {"system": systems * 2, "language": ["bn"] * 6 + ["en"] * 6,
         "ead": [0.60, 0.55, 0.65, 0.58, 0.62, 0.57, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}
    )
    result = cost_ead_correlations(costs, ead)
    bn_cost = costs[costs["language"] == "bn"]
    bn_ead = ead[ead["language"] == "bn"]["ead"]
    for measure, column in cost.COST_MEASURES.items():
        expected = stats.spearmanr(bn_ead, bn_cost[column])
        assert result.loc[measure, "rho"] == pytest.approx(expected.statistic)
        assert result.loc[measure, "p"] == pytest.approx(expected.pvalue)
        assert result.loc[measure, "n"] == 6
    # total tokens ranks a..f as 1 3 5 6 2 4, EAD as 4 1 6 3 5 2: d^2 = 9+4+1+9+9+4 = 36
    assert result.loc["total_tokens", "rho"] == pytest.approx(1 - 6 * 36 / (6 * 35))
    # English: both increase with the system, rho = 1
    assert cost_ead_correlations(costs, ead, language="en")["rho"].tolist() == pytest.approx([1.0] * 4)
    # a Series indexed by system works too
    series = pd.Series(bn_ead.to_numpy(), index=systems)
    assert cost_ead_correlations(costs, series)["rho"].equals(result["rho"])
    with pytest.raises(ValueError, match="more than one row per system"):
        cost_ead_correlations(costs, series, language=None)


# ------------------------------------------------------------------ doctests
def test_docstring_examples_run():
    result = doctest.testmod(cost, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10
    assert result.failed == 0
