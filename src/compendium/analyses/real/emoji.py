"""Emoji segmentation on the real emoji inventory and real usage (paper section 3 and appendix B).

The simulated chapter 1 counts emoji graphemes in simulated model outputs. Here
the same segmentation (:mod:`compendium.analyses.emoji`) is applied to two real
populations of emoji:

* the **RGI inventory**: every entry of the pinned ``emoji`` package's
  ``EMOJI_DATA`` whose status is ``fully_qualified`` (UTS #51
  ``emoji-test.txt``; :func:`rgi_inventory`). Each sequence counts once, so
  rare ZWJ and skin-tone sequences weigh as much as 😂;
* **real usage**: emoji2vec's Twitter-wide usage counts
  (:func:`compendium.data.corpora.load_emoji_frequencies`), each string as
  people typed it, weighted by its count. Strings that are not fully-qualified
  RGI entries (e.g. ``❤`` without U+FE0F, ``1⃣``) are kept and reported by
  :func:`usage_outside_inventory`, not dropped.

Units
-----
``codepoints``
    ``len(s)``, every code point (ZWJ, U+FE0F, modifiers, tags included);
``naive``
    :func:`compendium.analyses.emoji.count_codepoints`, appendix B's naive
    per-codepoint emoji count (non-ASCII, non-space code points; the ASCII
    digit of a keycap does not count);
``graphemes``
    :func:`compendium.analyses.emoji.count_graphemes`, the paper's unit.

*Inflation* is ``sum(naive) / sum(graphemes) - 1`` (in %), the quantity of
appendix B ("naive per-codepoint segmentation inflates the mean emoji count
by 15.0%"), computed over a population of single emoji rather than over model
responses.

Tokens per emoji grapheme (:func:`emoji_tokens`) are counted on each emoji
string alone, without special tokens: the floor of what emitting it costs
(a completion also pays for separators and an end token).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

import emoji as _emoji

from compendium.analyses import emoji as seg
from compendium.analyses.real import DOES_NOT_HOLD, NOT_TESTABLE, Rule
from compendium.data import tokenizers as tk

__all__ = [
    "SKIN_TONES",
    "rgi_inventory",
    "sequence_features",
    "segmentation_summary",
    "usage_frame",
    "usage_outside_inventory",
    "emoji_tokens",
    "tokens_per_emoji",
    "RULE_INFLATION_RANGE",
    "verdict_inflation_range",
]

#: The five Fitzpatrick skin-tone modifiers U+1F3FB..U+1F3FF.
SKIN_TONES = frozenset(chr(c) for c in range(0x1F3FB, 0x1F400))
_ZWJ, _KEYCAP = "\u200d", "\u20e3"


def rgi_inventory() -> pd.Series:
    """The RGI emoji inventory: the ``emoji`` package's fully-qualified entries.

    Returns
    -------
    Series of str
        Named ``emoji``, in the package's order; 3,963 entries for ``emoji``
        2.16.0 (Unicode 16.0).
    """
    status = _emoji.STATUS["fully_qualified"]
    return pd.Series([e for e, d in _emoji.EMOJI_DATA.items() if d["status"] == status], name="emoji")


def sequence_features(emojis: Sequence[str] | pd.Series) -> pd.DataFrame:
    """Per-string segmentation features.

    Parameters
    ----------
    emojis : sequence of str

    Returns
    -------
    DataFrame
        ``emoji``, ``codepoints`` (``len``), ``naive``
        (:func:`~compendium.analyses.emoji.count_codepoints`), ``graphemes``
        (:func:`~compendium.analyses.emoji.count_graphemes`), and booleans
        ``multi_codepoint`` (more than one code point), ``zwj`` (contains
        U+200D), ``skin_tone`` (contains a modifier U+1F3FB-U+1F3FF), ``flag``
        (regional-indicator pair or tag sequence), ``keycap`` (U+20E3).

    Examples
    --------
    >>> sequence_features(["😂", "👍🏽"])[["codepoints", "naive", "graphemes", "skin_tone"]].to_dict("list")
    {'codepoints': [1, 2], 'naive': [1, 2], 'graphemes': [1, 1], 'skin_tone': [False, True]}
    """
    values = [str(e) for e in emojis]
    return pd.DataFrame({
        "emoji": values,
        "codepoints": np.array([len(e) for e in values], dtype=np.int64),
        "naive": np.array([seg.count_codepoints(e) for e in values], dtype=np.int64),
        "graphemes": np.array([seg.count_graphemes(e) for e in values], dtype=np.int64),
        "multi_codepoint": [len(e) > 1 for e in values],
        "zwj": [_ZWJ in e for e in values],
        "skin_tone": [any(c in SKIN_TONES for c in e) for e in values],
        "flag": [any(0x1F1E6 <= ord(c) <= 0x1F1FF or 0xE0020 <= ord(c) <= 0xE007F for c in e) for e in values],
        "keycap": [_KEYCAP in e for e in values],
    })


def segmentation_summary(features: pd.DataFrame, weights: np.ndarray | pd.Series | None = None) -> dict:
    """Code points per grapheme, inflation and sequence shares of a population of emoji.

    Parameters
    ----------
    features : DataFrame
        Output of :func:`sequence_features`.
    weights : array-like, optional
        One non-negative weight per row (usage counts); None weighs each row once.

    Returns
    -------
    dict
        ``strings`` (rows), ``weight`` (sum of weights), ``codepoints_per_grapheme``
        (``sum(w*codepoints) / sum(w*graphemes)``), ``naive_per_grapheme``,
        ``inflation_pct`` (``100 * (naive_per_grapheme - 1)``), and the
        weighted shares ``multi_codepoint_share``, ``zwj_share``,
        ``skin_tone_share``, ``flag_share``, ``keycap_share`` (of strings, or
        of uses when weighted).

    Examples
    --------
    >>> f = sequence_features(["😂", "👍🏽"])
    >>> segmentation_summary(f)["inflation_pct"]
    50.0
    >>> round(segmentation_summary(f, weights=[3, 1])["inflation_pct"], 6)
    25.0
    """
    w = np.ones(len(features)) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (len(features),) or (w < 0).any() or w.sum() <= 0:
        raise ValueError("weights must be one non-negative number per row, not all zero")
    graphemes = float(w @ features["graphemes"].to_numpy(float))
    out = {
        "strings": int(len(features)),
        "weight": float(w.sum()),
        "codepoints_per_grapheme": float(w @ features["codepoints"].to_numpy(float)) / graphemes,
        "naive_per_grapheme": float(w @ features["naive"].to_numpy(float)) / graphemes,
    }
    out["inflation_pct"] = 100.0 * (out["naive_per_grapheme"] - 1.0)
    for column in ("multi_codepoint", "zwj", "skin_tone", "flag", "keycap"):
        out[f"{column}_share"] = float(w @ features[column].to_numpy(float)) / float(w.sum())
    return out


def usage_frame(frequencies: pd.DataFrame, inventory: pd.Series | None = None) -> pd.DataFrame:
    """The usage counts with each string's status in the inventory.

    Parameters
    ----------
    frequencies : DataFrame
        Columns ``emoji, count`` (:func:`compendium.data.corpora.load_emoji_frequencies`).
    inventory : Series of str, optional
        Defaults to :func:`rgi_inventory`.

    Returns
    -------
    DataFrame
        ``emoji``, ``count``, ``share`` (of all uses), ``in_inventory``,
        ``status`` (the ``emoji`` package's status name, or ``"not listed"``)
        and ``graphemes`` (emoji graphemes the segmentation finds in the string).
    """
    inventory = rgi_inventory() if inventory is None else inventory
    names = {v: k for k, v in _emoji.STATUS.items()}
    known = set(inventory)
    frame = frequencies[["emoji", "count"]].copy()
    frame["share"] = frame["count"] / frame["count"].sum()
    frame["in_inventory"] = frame["emoji"].isin(known)
    frame["status"] = [names[_emoji.EMOJI_DATA[e]["status"]] if e in _emoji.EMOJI_DATA else "not listed"
                       for e in frame["emoji"]]
    frame["graphemes"] = [seg.count_graphemes(e) for e in frame["emoji"]]
    return frame.reset_index(drop=True)


def usage_outside_inventory(usage: pd.DataFrame) -> pd.DataFrame:
    """The used strings that are not fully-qualified RGI entries, grouped by status.

    Parameters
    ----------
    usage : DataFrame
        Output of :func:`usage_frame`.

    Returns
    -------
    DataFrame
        One row per status: ``status``, ``strings``, ``uses``, ``share_of_uses``,
        ``examples`` (up to eight, most used first).
    """
    outside = usage[~usage["in_inventory"]]
    rows = []
    for status, part in outside.groupby("status", sort=True):
        part = part.sort_values("count", ascending=False)
        rows.append((status, len(part), int(part["count"].sum()), float(part["share"].sum()),
                     " ".join(part["emoji"].head(8))))
    return pd.DataFrame(rows, columns=["status", "strings", "uses", "share_of_uses", "examples"])


def emoji_tokens(emojis: Sequence[str], names: Sequence[str] = tk.TOKENIZERS) -> pd.DataFrame:
    """Tokens of each emoji string alone, per tokenizer (no special tokens).

    Parameters
    ----------
    emojis : sequence of str
    names : sequence of str
        Tokenizer names (:data:`compendium.data.tokenizers.TOKENIZERS`).

    Returns
    -------
    DataFrame
        Wide: ``emoji`` and one int column per tokenizer.
    """
    texts = tuple(str(e) for e in emojis)
    return pd.DataFrame({"emoji": list(texts), **{name: tk.stored_counts(name, texts) for name in names}})


def tokens_per_emoji(tokens: pd.DataFrame, weights: np.ndarray | pd.Series | None = None,
                     graphemes: np.ndarray | pd.Series | None = None) -> pd.Series:
    """Mean tokens per emoji grapheme, per tokenizer (ratio of weighted sums).

    Parameters
    ----------
    tokens : DataFrame
        Output of :func:`emoji_tokens`.
    weights : array-like, optional
        Usage counts; None weighs each string once.
    graphemes : array-like, optional
        Graphemes per string (default one each).

    Returns
    -------
    Series
        Indexed by tokenizer: ``sum(w * tokens) / sum(w * graphemes)``.

    Examples
    --------
    >>> t = pd.DataFrame({"emoji": ["a", "b"], "x": [1, 3]})
    >>> tokens_per_emoji(t, weights=[3, 1]).round(3).to_dict()
    {'x': 1.5}
    """
    n = len(tokens)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    g = np.ones(n) if graphemes is None else np.asarray(graphemes, dtype=float)
    columns = [c for c in tokens.columns if c != "emoji"]
    return pd.Series({c: float(w @ tokens[c].to_numpy(float)) / float(w @ g) for c in columns}, name="tokens_per_emoji")


RULE_INFLATION_RANGE = Rule(
    quantity="inflation of the mean emoji count by naive per-code-point counting, %, on two real populations: the "
             "usage-weighted emoji of real text and the unweighted RGI inventory",
    paper="15.0 % overall, from 5.4 % to 31.5 % per system",
    rule="a plausibility check (the benchmark's outputs are not public), which can only exclude the paper's values: "
         "does not hold if the paper's 5.4-31.5 % lies outside the range the two real populations span (no stream of "
         "real emoji could show it); not testable here (plausibility only) if it lies within, since the range is too "
         "wide to confirm a value. Both are whole populations, so there is no interval",
)


def verdict_inflation_range(usage_pct: float, inventory_pct: float, paper_lo: float, paper_hi: float) -> str:
    """Can real emoji streams exclude the paper's per-codepoint inflation?

    Rule: the real usage-weighted inflation (the emoji people use most) and
    the unweighted RGI-inventory inflation (every sequence equally likely)
    bracket the inflation a stream of real emoji can show. A range that wide
    can rule the paper's values out but never confirm them, so the check
    never says **holds**: it **does not hold** if the paper's range
    ``[paper_lo, paper_hi]`` (5.4-31.5% per system) reaches outside
    ``[min, max]`` of the two real values, and is **not testable here**
    (plausibility only) if it lies within. NaN inputs give **not testable
    here** too. The benchmark's outputs are not public.

    Examples
    --------
    >>> verdict_inflation_range(3.0, 200.0, 5.4, 31.5)
    'not testable here'
    >>> verdict_inflation_range(8.0, 200.0, 5.4, 31.5)
    'does not hold'
    """
    values = (usage_pct, inventory_pct, paper_lo, paper_hi)
    if any(v is None or not np.isfinite(v) for v in values):
        return NOT_TESTABLE
    lo, hi = min(usage_pct, inventory_pct), max(usage_pct, inventory_pct)
    return NOT_TESTABLE if lo <= paper_lo and paper_hi <= hi else DOES_NOT_HOLD
