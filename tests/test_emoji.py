"""Tests for compendium.analyses.emoji: grapheme segmentation and the naive count.

Multi-code-point sequences are spelt out with escapes so that the code points
under test are visible and cannot be silently normalised by an editor. Every
``count_codepoints`` expectation is hand-computed from those escapes.
"""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest
from emoji import EMOJI_DATA, STATUS
from sklearn.feature_extraction.text import TfidfVectorizer

from compendium.analyses import emoji as cemoji
from compendium.analyses.emoji import count_codepoints, count_graphemes, count_series, emoji_analyzer, graphemes

ZWJ = "\u200d"
VS16 = "\ufe0f"  # emoji presentation selector
VS15 = "\ufe0e"  # text presentation selector
KEYCAP = "\u20e3"  # combining enclosing keycap
TONES = ["\U0001f3fb", "\U0001f3fc", "\U0001f3fd", "\U0001f3fe", "\U0001f3ff"]

WOMAN, MAN, GIRL, BOY = "\U0001f469", "\U0001f468", "\U0001f467", "\U0001f466"
PERSON = "\U0001f9d1"
LAPTOP = "\U0001f4bb"
HANDSHAKE = "\U0001f91d"
THUMBS_UP = "\U0001f44d"
RED_HAIR = "\U0001f9b0"
JOY = "\U0001f602"  # face with tears of joy
HEART_EYES = "\U0001f60d"
FIRE = "\U0001f525"
BLUSH = "\U0001f60a"
HEART = "\u2764"  # default text presentation
RI_B, RI_D, RI_I, RI_N = "\U0001f1e7", "\U0001f1e9", "\U0001f1ee", "\U0001f1f3"

FAMILY = ZWJ.join([MAN, WOMAN, GIRL, BOY])  # 4 people + 3 ZWJ = 7 code points
TECHNOLOGIST = WOMAN + TONES[2] + ZWJ + LAPTOP  # 4 code points
RAINBOW_FLAG = "\U0001f3f3" + VS16 + ZWJ + "\U0001f308"  # 4 code points
COUPLE_HEART = WOMAN + ZWJ + HEART + VS16 + ZWJ + MAN  # 6 code points
BD, IN = RI_B + RI_D, RI_I + RI_N
SCOTLAND = "\U0001f3f4" + "".join(chr(0xE0000 + ord(c)) for c in "gbsct") + "\U000e007f"


# ---------------------------------------------------------------- graphemes
# (text, expected graphemes, expected naive code-point count)
CASES = {
    # ZWJ sequences: families and professions are one grapheme each.
    "family": (FAMILY, [FAMILY], 7),
    "profession_with_tone": (TECHNOLOGIST, [TECHNOLOGIST], 4),
    "profession_no_tone": (WOMAN + ZWJ + LAPTOP, [WOMAN + ZWJ + LAPTOP], 3),
    "rainbow_flag": (RAINBOW_FLAG, [RAINBOW_FLAG], 4),
    "couple_with_heart": (COUPLE_HEART, [COUPLE_HEART], 6),
    "family_then_profession": (FAMILY + TECHNOLOGIST, [FAMILY, TECHNOLOGIST], 11),
    # Skin tones: all five on a plain base, and all five inside ZWJ sequences.
    "five_tones_modifier_sequences": (
        "".join(THUMBS_UP + t for t in TONES),
        [THUMBS_UP + t for t in TONES],
        10,
    ),
    "five_tones_in_zwj": (
        " ".join(WOMAN + t + ZWJ + LAPTOP for t in TONES),
        [WOMAN + t + ZWJ + LAPTOP for t in TONES],
        20,
    ),
    "two_tones_handshake": (
        PERSON + TONES[0] + ZWJ + HANDSHAKE + ZWJ + PERSON + TONES[4],
        [PERSON + TONES[0] + ZWJ + HANDSHAKE + ZWJ + PERSON + TONES[4]],
        7,
    ),
    "hair_component_attached": (
        PERSON + TONES[4] + ZWJ + RED_HAIR,
        [PERSON + TONES[4] + ZWJ + RED_HAIR],
        4,
    ),
    # Components with no base do not count.
    "lone_tones": (" ".join(TONES), [], 5),
    "lone_tones_adjacent": ("".join(TONES), [], 5),
    "tone_after_space": (THUMBS_UP + " " + TONES[1], [THUMBS_UP], 2),
    "tone_on_ascii_letter": ("a" + TONES[1], [], 1),
    "double_tone": (THUMBS_UP + TONES[1] + TONES[3], [THUMBS_UP + TONES[1]], 3),
    "tone_on_non_modifier_base": (JOY + TONES[2], [JOY], 2),
    "lone_hair": (RED_HAIR, [], 1),
    # Flags: regional-indicator pairs; an odd one is not an emoji.
    "flag": (BD, [BD], 2),
    "two_flags_adjacent": (BD + IN, [BD, IN], 4),
    "single_regional_indicator": (RI_B, [], 1),
    "odd_regional_indicator": (BD + RI_I, [BD], 3),
    "split_regional_indicators": (RI_B + " " + RI_D, [], 2),
    "tag_flag": (SCOTLAND, [SCOTLAND], 7),
    # Keycaps: digit/#/* + VS16 + U+20E3, also unqualified (no VS16).
    "keycaps": (
        "1" + VS16 + KEYCAP + "#" + VS16 + KEYCAP + "*" + VS16 + KEYCAP + "\U0001f51f",
        ["1" + VS16 + KEYCAP, "#" + VS16 + KEYCAP, "*" + VS16 + KEYCAP, "\U0001f51f"],
        7,
    ),
    "keycap_unqualified": ("1" + KEYCAP, ["1" + KEYCAP], 1),
    "digit_vs16_not_keycap": ("1" + VS16, [], 1),
    "lone_keycap_mark": (KEYCAP, [], 1),
    "digits_and_hash": ("123 #5 *", [], 0),
    # VS16 versus text presentation (the emoji package's view).
    "heart_vs16": (HEART + VS16, [HEART + VS16], 2),
    "heart_text_default": (HEART, [HEART], 1),
    "heart_vs15": (HEART + VS15, [HEART], 2),
    "text_presentation_symbols": ("\u263a \u2122 \u00a9 \u00ae", ["\u263a", "\u2122", "\u00a9", "\u00ae"], 4),
    "superfluous_vs16": (JOY + VS16, [JOY], 2),
    "lone_vs16": (VS16, [], 1),
    "lone_zwj": (ZWJ, [], 1),
    "zwj_vs16_only": (ZWJ + VS16 + " " + ZWJ, [], 3),
    "leading_zwj": (ZWJ + JOY, [JOY], 2),
    "trailing_zwj": (JOY + ZWJ, [JOY], 2),
    # Non-RGI ZWJ sequence: falls back to its parts (UTS #51).
    "non_rgi_zwj": (WOMAN + ZWJ + JOY, [WOMAN, JOY], 3),
    # Adjacency and repeats.
    "adjacent": (JOY + HEART_EYES + FIRE, [JOY, HEART_EYES, FIRE], 3),
    "repeats_kept": (JOY * 3, [JOY, JOY, JOY], 3),
    "vs16_heart_then_emoji": (HEART + VS16 + FIRE, [HEART + VS16, FIRE], 3),
    # Stray ASCII.
    "ok_joy": ("ok " + JOY + "!!", [JOY], 1),
    "label_prefix": ("Emojis: " + JOY + ", " + FIRE + ".", [JOY, FIRE], 2),
    "ascii_only": ("I cannot help with that :)", [], 0),
    # Whitespace and newlines.
    "whitespace": ("\n " + JOY + "\n\n" + HEART_EYES + "\t" + FIRE + "  \r\n", [JOY, HEART_EYES, FIRE], 3),
    "nbsp": (JOY + "\u00a0" + HEART_EYES, [JOY, HEART_EYES], 2),
    "zero_width_space": ("ok\u200b" + JOY, [JOY], 2),
    # Other scripts.
    "bangla": ("\u0996\u09c1\u09b6\u09bf " + BLUSH, [BLUSH], 5),  # khushi
    "devanagari": ("\u0916\u0941\u0936\u0940 " + BLUSH, [BLUSH], 5),  # khushi
    "bangla_mark_after_emoji": (BLUSH + "\u0981", [BLUSH], 2),  # candrabindu is Extend
    "combining_mark_after_emoji": (JOY + "\u0300", [JOY], 2),
    # Empty.
    "empty": ("", [], 0),
    "spaces_only": ("  \n\t", [], 0),
}


@pytest.mark.parametrize("text, expected, _", list(CASES.values()), ids=list(CASES))
def test_graphemes(text, expected, _):
    assert graphemes(text) == expected


@pytest.mark.parametrize("text, expected, _", list(CASES.values()), ids=list(CASES))
def test_count_graphemes(text, expected, _):
    assert count_graphemes(text) == len(expected)


@pytest.mark.parametrize("text, _, n_codepoints", list(CASES.values()), ids=list(CASES))
def test_count_codepoints(text, _, n_codepoints):
    assert count_codepoints(text) == n_codepoints


def test_literal_emoji_match_escapes():
    # The same strings typed as literals, so the escapes above mean what they say.
    assert graphemes("ok 😂!! 👩🏽‍💻👨‍👩‍👧‍👦🏳️‍🌈🇧🇩1️⃣❤️") == [
        JOY, TECHNOLOGIST, FAMILY, RAINBOW_FLAG, BD, "1" + VS16 + KEYCAP, HEART + VS16,
    ]
    assert count_codepoints("ok 😂!! 👩🏽‍💻👨‍👩‍👧‍👦🏳️‍🌈🇧🇩1️⃣❤️") == 1 + 4 + 7 + 4 + 2 + 2 + 2


def test_naive_count_inflates_multi_codepoint_emoji():
    # The appendix-B contrast on one response: 4 emoji, 10 naive "emoji".
    text = TECHNOLOGIST + BD + THUMBS_UP + TONES[4] + "1" + VS16 + KEYCAP
    assert count_graphemes(text) == 4
    assert count_codepoints(text) == 4 + 2 + 2 + 2


@pytest.mark.parametrize("missing", [None, float("nan"), np.nan, pd.NA, np.float64("nan")])
def test_missing_values(missing):
    assert graphemes(missing) == []
    assert count_graphemes(missing) == 0
    assert count_codepoints(missing) == 0
    assert emoji_analyzer(missing) == []


@pytest.mark.parametrize("bad", [5, 1.5, b"\xf0\x9f\x98\x82", [JOY]])
def test_non_string_rejected(bad):
    with pytest.raises(TypeError):
        graphemes(bad)
    with pytest.raises(TypeError):
        count_codepoints(bad)


def test_numpy_str_accepted():
    assert graphemes(np.str_(JOY + "!")) == [JOY]


def test_result_is_a_fresh_list():
    # The cache must not leak: mutating a result cannot change the next one.
    first = graphemes(JOY + FIRE)
    first.append("x")
    assert graphemes(JOY + FIRE) == [JOY, FIRE]


# ------------------------------------------------------- emoji package view
def _listed(status_excluded: int):
    return [e for e, d in EMOJI_DATA.items() if d["status"] != status_excluded]


def test_every_listed_emoji_is_one_grapheme():
    # Fully-, minimally- and unqualified emoji of UTS #51: each is itself.
    emojis = _listed(STATUS["component"])
    assert len(emojis) > 3000
    wrong = [e for e in emojis if graphemes(e) != [e]]
    assert wrong == []


def test_all_listed_emoji_concatenated_without_separator():
    emojis = _listed(STATUS["component"])
    assert graphemes("".join(emojis)) == emojis


def test_components_alone_are_dropped():
    components = [e for e, d in EMOJI_DATA.items() if d["status"] == STATUS["component"]]
    assert sorted(components) == sorted(TONES + ["\U0001f9b0", "\U0001f9b1", "\U0001f9b2", "\U0001f9b3"])
    assert graphemes(" ".join(components)) == []


def test_codepoints_never_below_graphemes_for_emoji_only_text():
    emojis = _listed(STATUS["component"])
    for e in emojis:
        assert count_codepoints(e) >= count_graphemes(e) == 1, e
    multi = [e for e in emojis if count_codepoints(e) > 1]
    assert len(multi) > 1000  # the inflation is not hypothetical


# ------------------------------------------------------------- scikit-learn
def test_tfidf_keeps_multi_codepoint_emoji_whole():
    docs = [
        TECHNOLOGIST + " " + JOY,
        "ok " + TECHNOLOGIST + TECHNOLOGIST,
        BD + FIRE + "!!",
        FAMILY,
    ]
    vec = TfidfVectorizer(analyzer=emoji_analyzer, sublinear_tf=True)
    X = vec.fit_transform(docs)
    assert sorted(vec.get_feature_names_out()) == sorted([TECHNOLOGIST, JOY, BD, FIRE, FAMILY])
    for part in (WOMAN, TONES[2], ZWJ, LAPTOP, RI_B, "o", "!"):
        assert part not in vec.vocabulary_
    assert X.shape == (4, 5)
    # Document 2 holds only the technologist (twice): a single non-zero.
    row = X[1].toarray().ravel()
    assert np.count_nonzero(row) == 1
    assert row[vec.vocabulary_[TECHNOLOGIST]] == pytest.approx(1.0)


# --------------------------------------------------------------- count_series
def test_count_series_matches_scalar_functions_and_keeps_index():
    texts = [text for text, _, _ in CASES.values()]
    s = pd.Series(texts + [None, np.nan, texts[0]], index=[f"r{i}" for i in range(len(texts) + 3)])
    df = count_series(s)
    assert list(df.columns) == ["graphemes", "codepoints"]
    assert df.index.equals(s.index)
    assert (df.dtypes == "int64").all()
    expected_g = [len(g) for _, g, _ in CASES.values()] + [0, 0, len(CASES["family"][1])]
    expected_c = [n for _, _, n in CASES.values()] + [0, 0, CASES["family"][2]]
    assert df["graphemes"].tolist() == expected_g
    assert df["codepoints"].tolist() == expected_c


def test_count_series_accepts_list_string_and_category_dtypes():
    df = count_series([JOY + JOY, TECHNOLOGIST, None])
    assert df.to_dict("list") == {"graphemes": [2, 1, 0], "codepoints": [2, 4, 0]}
    df2 = count_series(pd.Series([FAMILY, None, "ok"], dtype="string"))
    assert df2.to_dict("list") == {"graphemes": [1, 0, 0], "codepoints": [7, 0, 0]}
    df3 = count_series(pd.Series([JOY + JOY, None, TECHNOLOGIST], dtype="category", index=[7, 8, 9]))
    assert df3.index.tolist() == [7, 8, 9]
    assert df3.to_dict("list") == {"graphemes": [2, 0, 1], "codepoints": [2, 0, 4]}
    assert count_series(pd.Series([], dtype=object)).shape == (0, 2)


def test_count_series_rejects_non_strings():
    with pytest.raises(TypeError):
        count_series(pd.Series([JOY, 3]))


def test_count_series_counts_every_row_of_a_benchmark_sized_input():
    # 136,800 outputs (17,100 sentences x 8 systems) with repeats. Speed is
    # measured by `make bench`, not asserted here.
    import random

    rng = random.Random(0)
    vocab = [e for e, d in EMOJI_DATA.items() if d["status"] == STATUS["fully_qualified"]][:400]
    lengths = [rng.randint(1, 5) for _ in range(136_800)]
    outputs = pd.Series(["".join(rng.choice(vocab) for _ in range(n)) for n in lengths])
    cemoji._graphemes.cache_clear()
    df = count_series(outputs)
    assert df["graphemes"].tolist() == lengths


def test_count_series_is_stored_once_per_build(tmp_path, monkeypatch):
    """With the build's store on, the counts of the same outputs are computed once and then read back (equal, with
    their index), even with segmentation made impossible; other outputs are computed."""
    from compendium.data import cache

    outputs = pd.Series(["😂😂", "👩🏽‍💻 ok", None, "😂😂"], index=[5, 6, 7, 8])
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    first = count_series(outputs)

    def refuse(text):
        raise AssertionError("segmented again")

    monkeypatch.setattr(cemoji, "count_graphemes", refuse)
    pd.testing.assert_frame_equal(count_series(outputs), first)
    with pytest.raises(AssertionError, match="segmented again"):
        count_series(outputs.iloc[:2])


def _graphemes_searching_every_cluster(text: str) -> list[str]:
    """:func:`graphemes` as specified, without the shortcut for clusters that hold no emoji code point: rule 2's
    search (``emoji.emoji_list``) runs on every non-ASCII cluster the package does not list as a whole."""
    import emoji
    import regex

    out = []
    for cluster in regex.findall(r"\X", text):
        if cluster.isascii():
            continue
        if cluster in EMOJI_DATA:
            if EMOJI_DATA[cluster]["status"] != STATUS["component"]:
                out.append(cluster)
            continue
        out.extend(m["emoji"] for m in emoji.emoji_list(cluster)
                   if m["emoji"] in EMOJI_DATA and EMOJI_DATA[m["emoji"]]["status"] != STATUS["component"])
    return out


def test_skipping_clusters_without_an_emoji_code_point_changes_no_result():
    """Real multilingual text (NTREX Bangla, Hindi and English, GoEmotions comments, code-mixed EmoMix-3L), every
    listed emoji inside Bangla and Devanagari text, and joiners, selectors and keycap parts in the middle of words:
    :func:`graphemes` gives exactly what the search over every cluster gives."""
    from compendium.data import corpora

    ntrex = corpora.load_ntrex()
    texts = ntrex.groupby("language")["text"].head(300).tolist()
    texts += [t for t in corpora.load_goemotions()["text"].tolist() if not t.isascii()][:2000]
    texts += corpora.load_emomix3l()["text"].head(1000).tolist()
    keys = list(EMOJI_DATA)
    texts += [f"আমি {a}খুশি{b} हूँ{c}।" for a, b, c in zip(keys, keys[1:], keys[2:])]
    texts += ["क्\u200dष", "ক্\u200cষ", "a\ufe0fb", "1\ufe0f", "#\u20e3x", "❤\ufe0e", "é\u200d😀", "\U0001F1E7\u0985",
              "\U000E0067\u0986", "🏽\u09be", "\u200d\u200d", "’“”…"]
    cemoji._graphemes.cache_clear()
    differ = [t for t in texts if graphemes(t) != _graphemes_searching_every_cluster(t)]
    assert not differ, differ[:5]
    assert sum(bool(graphemes(t)) for t in texts) > len(keys) - 3  # the texts do hold emojis


# ------------------------------------------------------------------ doctests
def test_docstring_examples_run():
    result = doctest.testmod(cemoji, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10
    assert result.failed == 0
