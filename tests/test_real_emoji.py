"""Section 3 / appendix B on real emoji: inflation on hand-built sequences, tokens against the library, verdicts."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from compendium.analyses.real import DOES_NOT_HOLD, HOLDS, NOT_TESTABLE
from compendium.analyses.real import emoji as re_
from compendium.data.real import real_data_dir

FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"  # 👨‍👩‍👧‍👦: 7 code points
THUMB = "\U0001F44D\U0001F3FD"  # 👍🏽: 2
FLAG = "\U0001F1E7\U0001F1E9"  # 🇧🇩: 2
KEYCAP = "1\ufe0f\u20e3"  # 1️⃣: 3 code points, 2 naive (the ASCII digit does not count)
JOY = "\U0001F602"  # 😂: 1
FIRE_HEART = "\u2764\ufe0f\u200d\U0001F525"  # ❤️‍🔥: 4


def test_features_of_hand_built_sequences():
    f = re_.sequence_features([FAMILY, THUMB, FLAG, KEYCAP, JOY]).set_index("emoji")
    assert f["codepoints"].tolist() == [7, 2, 2, 3, 1]
    assert f["naive"].tolist() == [7, 2, 2, 2, 1]
    assert f["graphemes"].tolist() == [1, 1, 1, 1, 1]
    assert f["zwj"].tolist() == [True, False, False, False, False]
    assert f["skin_tone"].tolist() == [False, True, False, False, False]
    assert f["flag"].tolist() == [False, False, True, False, False]
    assert f["keycap"].tolist() == [False, False, False, True, False]
    assert f["multi_codepoint"].tolist() == [True, True, True, True, False]


def test_summary_by_hand():
    f = re_.sequence_features([FAMILY, THUMB, FLAG, KEYCAP, JOY])
    s = re_.segmentation_summary(f)
    assert s["codepoints_per_grapheme"] == pytest.approx(15 / 5)
    assert s["naive_per_grapheme"] == pytest.approx(14 / 5)
    assert s["inflation_pct"] == pytest.approx(180.0)
    assert s["multi_codepoint_share"] == pytest.approx(0.8)
    assert s["zwj_share"] == pytest.approx(0.2) and s["skin_tone_share"] == pytest.approx(0.2)
    w = re_.segmentation_summary(f, weights=[1, 0, 0, 0, 9])  # family once, 😂 nine times
    assert w["naive_per_grapheme"] == pytest.approx((7 + 9) / 10)
    assert w["zwj_share"] == pytest.approx(0.1)
    with pytest.raises(ValueError):
        re_.segmentation_summary(f, weights=[1, 2])


def test_inventory_and_usage_status():
    inventory = re_.rgi_inventory()
    assert FAMILY in set(inventory) and FIRE_HEART in set(inventory) and "\u2764" not in set(inventory)
    usage = re_.usage_frame(pd.DataFrame({"emoji": [JOY, "\u2764", "x"], "count": [6, 3, 1]}), inventory)
    assert usage["in_inventory"].tolist() == [True, False, False]
    assert usage["status"].tolist() == ["fully_qualified", "unqualified", "not listed"]
    outside = re_.usage_outside_inventory(usage).set_index("status")
    assert outside.loc["unqualified", "share_of_uses"] == pytest.approx(0.3)
    assert outside.loc["not listed", "uses"] == 1


def test_emoji_tokens_against_library():
    from tokenizers import Tokenizer

    path = real_data_dir(None) / "tokenizers" / "gemma3.tokenizer.json.gz"
    direct = Tokenizer.from_str(gzip.decompress(path.read_bytes()).decode("utf-8"))
    emojis = [FAMILY, THUMB, FLAG, KEYCAP, JOY, FIRE_HEART]
    tokens = re_.emoji_tokens(emojis, names=("gemma3", "o200k_base"))
    assert tokens["gemma3"].tolist() == [len(direct.encode(e, add_special_tokens=False).ids) for e in emojis]
    # no tokenizer keeps the ZWJ sequence ❤️‍🔥 as one token
    assert (tokens.loc[tokens["emoji"] == FIRE_HEART, ["gemma3", "o200k_base"]] > 1).all(axis=None)
    per = re_.tokens_per_emoji(tokens, weights=[0, 0, 0, 0, 1, 0])
    assert per["o200k_base"] == pytest.approx(float(tokens.loc[4, "o200k_base"]))


def test_verdict_inflation_range():
    # a plausibility check can exclude the paper's range, never confirm it: inside the bounds is not testable here
    assert re_.verdict_inflation_range(0.2, 212.0, 5.4, 31.5) == NOT_TESTABLE
    assert HOLDS not in {re_.verdict_inflation_range(u, i, 5.4, 31.5) for u in (0.0, 5.4, 6.0) for i in (31.5, 212.0)}
    assert re_.verdict_inflation_range(6.0, 212.0, 5.4, 31.5) == DOES_NOT_HOLD
    assert re_.verdict_inflation_range(0.2, 30.0, 5.4, 31.5) == DOES_NOT_HOLD
    assert re_.verdict_inflation_range(np.nan, 30.0, 5.4, 31.5) == NOT_TESTABLE
