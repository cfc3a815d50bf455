"""Section 8 on real data: production tokenizers on professionally translated parallel text.

The simulated chapter 6 recomputes the paper's per-byte and per-character token
rates from simulated token counts. Here the seven vendored production
tokenizers (:mod:`compendium.data.tokenizers`; exact or proxy for the paper's
systems, none for Grok-4-Fast) count the tokens of NTREX-128's newstest2019:
1,997 English news sentences and their professional Bangla and Hindi
translations (:func:`compendium.data.corpora.load_ntrex`). Because line *i* is
the same content in the three languages, the per-sentence ratio of token counts
is a *paired* measure of what a tokenizer charges for the same content, which
no per-byte or per-character rate is.

Units
-----
Every text is NFC-normalised first (``unicodedata.normalize("NFC", t)``; 1,185
Bangla and 473 Hindi NTREX lines are not NFC as shipped), and then:

``tokens``
    the tokenizer's count without special tokens;
``characters``
    Unicode code points of the NFC text (``len``), not grapheme clusters;
``bytes``
    UTF-8 bytes of the NFC text.

Rates are ratios of sums over the 1,997 sentences (section 8's rates are ratios
of sums; see :mod:`compendium.analyses.cost`). The *premium* of a language on a
unit is its rate divided by English's rate on the same unit. On the sentence
unit the premium is ``sum(tokens_L) / sum(tokens_en)`` over the same sentences,
the paired unit; its interval is a percentile bootstrap over sentence triples
(:func:`bootstrap_ratio`).

The paper's prompt
------------------
Section 8's rates are *prompt* tokens per source byte or character: the tokens
of appendix A's English template with the sentence filled in
(:data:`PROMPT_TEMPLATE`, :func:`fill_template`), divided by the sentence's own
bytes or characters. The template adds about 50-63 tokens whatever the
sentence, so a template-inclusive rate depends on how long the sentences are:
the paper's English rate of 1.45 prompt tokens per byte implies sentences of
about 43-51 bytes under the exact tokenizers (:func:`implied_sentence_bytes`),
NTREX's average about 124. The unit-direction checks count prompt tokens as the
paper does, on NTREX's sentences; the size of the per-character premium is
compared only where the corpus's sentences are as long as the paper's
(:func:`comparable_length`). Bare sentence tokens (no template) stay beside
them: the paired per-sentence premium counts the sentence alone, since the
template is the same English text for every language.

Tokenizers and systems
----------------------
One row per tokenizer. ``gemma3`` is exact for gemma-3-27b and a proxy for
gemini-2.0-flash: its ``system`` reads ``"gemma-3-27b (exact); gemini-2.0-flash
(proxy)"`` and ``exact`` is True (it is exact for one paper system).
``cl100k_base`` stands for no system (``exact`` False). The verdicts count
*exact* tokenizers: ``o200k_base``, ``gemma3``, ``qwen3``, ``deepseek_v3``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pandas as pd

from compendium.analyses.real import (DOES_NOT_HOLD, HOLDS, NOT_TESTABLE, Rule, both_aggregators,
                                     majority_chance, majority_verdict)
from compendium.data import tokenizers as tk

__all__ = [
    "UNITS",
    "PROMPT_TEMPLATE",
    "fill_template",
    "implied_sentence_bytes",
    "comparable_length",
    "verdict_char_premium_prompt",
    "tokenizer_systems",
    "ntrex_units",
    "sentence_tokens",
    "parallel_tokens",
    "premium_by_unit",
    "bootstrap_ratio",
    "parallel_premium",
    "verdict_cheapest_per_byte",
    "verdict_char_premium",
    "verdict_sign_flip",
    "verdict_parallel_premium",
    "verdict_tokens_per_emoji",
    "verdict_cheapest_per_byte_median",
    "verdict_char_premium_median",
    "verdict_sign_flip_median",
    "verdict_parallel_premium_median",
    "both_aggregators",
    "aggregators_note",
]

#: The units a token count is divided by, and the column of :func:`parallel_tokens` holding each.
UNITS = {"byte": "bytes", "character": "characters", "sentence": "sentences"}


#: Appendix A's prompt, verbatim; ``{sentence}`` is where the sentence goes.
PROMPT_TEMPLATE = ("You MUST respond with 1-5 emojis representing the emotion in this sentence. CRITICAL: Your "
                   "response MUST contain emojis. Empty responses are NOT allowed. Do NOT include any text, words, or "
                   "explanations - ONLY emojis. Sentence: {sentence} Emojis (REQUIRED):")


def fill_template(text: str, template: str = PROMPT_TEMPLATE) -> str:
    """The prompt for one sentence: ``template`` with ``{sentence}`` replaced (literally: braces in the sentence
    stay as they are).

    >>> fill_template("I won {sort of}!", "Say: {sentence} Now:")
    'Say: I won {sort of}! Now:'
    """
    if "{sentence}" not in template:
        raise ValueError("the template has no {sentence} field")
    return template.replace("{sentence}", text)


def implied_sentence_bytes(overhead: float, sentence_rate: float, prompt_rate: float) -> float:
    """The mean sentence length in bytes at which a template of ``overhead`` tokens, on sentences costing
    ``sentence_rate`` tokens per byte, gives ``prompt_rate`` prompt tokens per byte (ratio of sums):
    ``(overhead + sentence_rate * B) / B = prompt_rate``, so ``B = overhead / (prompt_rate - sentence_rate)``.

    >>> implied_sentence_bytes(53.0, 0.21, 1.45)  # about 43 bytes: the paper's English rate on o200k_base
    42.74193548387097
    >>> implied_sentence_bytes(53.0, 1.5, 1.45)
    nan
    """
    gap = prompt_rate - sentence_rate
    return overhead / gap if gap > 0 else float("nan")


def comparable_length(mean_bytes: float, implied: Sequence[float], *, slack: float = 1.2) -> bool:
    """Whether a corpus's mean sentence length (bytes) lies within ``slack`` (a factor) of the range of lengths
    the paper's rate implies (:func:`implied_sentence_bytes` per exact tokenizer): only then is the size of a
    template-inclusive rate comparable with the paper's.

    >>> comparable_length(124.1, [42.7, 50.1]), comparable_length(55.0, [42.7, 50.1])
    (False, True)
    """
    implied = [b for b in implied if np.isfinite(b)]
    if not implied:
        return False
    return min(implied) / slack <= mean_bytes <= max(implied) * slack


def verdict_char_premium_prompt(ratios: Sequence[float], lo: float, hi: float, *, comparable: bool) -> str:
    """:data:`RULE_CHAR_PREMIUM` on prompt tokens: **not testable here** when the corpus's sentences are not as
    long as the paper's (:func:`comparable_length`), else both aggregators (:func:`verdict_char_premium`,
    :func:`verdict_char_premium_median`, :func:`both_aggregators`).

    >>> verdict_char_premium_prompt([1.8, 1.9, 2.0], 1.72, 2.37, comparable=False)
    'not testable here'
    >>> verdict_char_premium_prompt([1.8, 1.9, 2.0], 1.72, 2.37, comparable=True)
    'holds'
    """
    if not comparable:
        return NOT_TESTABLE
    return both_aggregators(verdict_char_premium(ratios, lo, hi), verdict_char_premium_median(ratios, lo, hi))


def tokenizer_systems(names: Sequence[str] = tk.TOKENIZERS) -> pd.DataFrame:
    """One row per tokenizer: the paper system(s) it stands for and whether it is exact.

    Returns
    -------
    DataFrame
        ``tokenizer``, ``system`` (e.g. ``"gemma-3-27b (exact); gemini-2.0-flash
        (proxy)"``, ``"none (reference)"`` for cl100k_base), ``exact`` (True
        if exact for at least one system).

    Examples
    --------
    >>> tokenizer_systems(["gemma3", "cl100k_base"]).to_dict("list")["system"]
    ['gemma-3-27b (exact); gemini-2.0-flash (proxy)', 'none (reference)']
    """
    rows = []
    for name in names:
        entries = [r for r in tk.REGISTRY if r.tokenizer == name and r.system is not None]
        system = "; ".join(f"{r.system} ({'exact' if r.exact else 'proxy'})" for r in entries) or "none (reference)"
        rows.append((name, system, any(r.exact for r in entries)))
    return pd.DataFrame(rows, columns=["tokenizer", "system", "exact"])


def ntrex_units(ntrex: pd.DataFrame) -> pd.DataFrame:
    """NFC text, characters and bytes of each NTREX line.

    Parameters
    ----------
    ntrex : DataFrame
        ``sentence, language, text`` (:func:`compendium.data.corpora.load_ntrex`).

    Returns
    -------
    DataFrame
        ``sentence, language, text`` (NFC), ``characters``, ``bytes``.

    Examples
    --------
    >>> f = ntrex_units(pd.DataFrame({"sentence": [0], "language": ["bn"], "text": ["\\u09c7\\u09be"]}))
    >>> f[["characters", "bytes"]].to_dict("records")  # NFC composes U+09C7 U+09BE to U+09CB
    [{'characters': 1, 'bytes': 3}]
    """
    frame = ntrex[["sentence", "language"]].copy()
    frame["text"] = [unicodedata.normalize("NFC", t) for t in ntrex["text"]]
    frame["characters"] = np.array([len(t) for t in frame["text"]], dtype=np.int64)
    frame["bytes"] = np.array([len(t.encode("utf-8")) for t in frame["text"]], dtype=np.int64)
    return frame.reset_index(drop=True)


def sentence_tokens(units: pd.DataFrame, names: Sequence[str] = tk.TOKENIZERS, *,
                    template: str | None = None) -> pd.DataFrame:
    """Tokens of every line with every tokenizer (long format).

    Parameters
    ----------
    units : DataFrame
        Output of :func:`ntrex_units`.
    names : sequence of str
    template : str, optional
        Count the tokens of the prompt (:func:`fill_template`, e.g. :data:`PROMPT_TEMPLATE`) instead of the
        sentence alone; ``characters`` and ``bytes`` stay the sentence's own.

    Returns
    -------
    DataFrame
        ``tokenizer, sentence, language, tokens, characters, bytes``.
    """
    texts = tuple(units["text"]) if template is None else tuple(fill_template(t, template) for t in units["text"])
    parts = [units[["sentence", "language", "characters", "bytes"]].assign(tokenizer=name,
                                                                           tokens=tk.stored_counts(name, texts))
             for name in names]
    out = pd.concat(parts, ignore_index=True)
    return out[["tokenizer", "sentence", "language", "tokens", "characters", "bytes"]]


def parallel_tokens(per_sentence: pd.DataFrame) -> pd.DataFrame:
    """The table ``real_parallel_tokens``: sums per tokenizer and language.

    Parameters
    ----------
    per_sentence : DataFrame
        Output of :func:`sentence_tokens`.

    Returns
    -------
    DataFrame
        ``tokenizer, system, exact, language, sentences, tokens, characters,
        bytes``, tokenizers in the order given, languages en, bn, hi.
    """
    order = list(dict.fromkeys(per_sentence["tokenizer"]))
    sums = (per_sentence.groupby(["tokenizer", "language"], sort=False)
            .agg(sentences=("sentence", "nunique"), tokens=("tokens", "sum"), characters=("characters", "sum"),
                 bytes=("bytes", "sum")).reset_index())
    sums = sums.merge(tokenizer_systems(order), on="tokenizer")
    languages = [lang for lang in ("en", "bn", "hi") if lang in set(sums["language"])]
    sums["_t"] = sums["tokenizer"].map({n: i for i, n in enumerate(order)})
    sums["_l"] = sums["language"].map({n: i for i, n in enumerate(languages)})
    sums = sums.sort_values(["_t", "_l"]).drop(columns=["_t", "_l"]).reset_index(drop=True)
    return sums[["tokenizer", "system", "exact", "language", "sentences", "tokens", "characters", "bytes"]]


def premium_by_unit(table: pd.DataFrame) -> pd.DataFrame:
    """Tokens per byte, character and sentence, and each language's ratio to English (tidy).

    Parameters
    ----------
    table : DataFrame
        Output of :func:`parallel_tokens`.

    Returns
    -------
    DataFrame
        ``tokenizer, language, unit`` (byte, character, sentence), ``rate``
        (tokens per unit, ratio of sums), ``ratio_to_english`` (the rate over
        English's rate on the same unit and tokenizer; 1 for English).

    Examples
    --------
    >>> t = pd.DataFrame({"tokenizer": "x", "system": "s", "exact": True, "language": ["en", "bn"],
    ...                   "sentences": 2, "tokens": [10, 20], "characters": [40, 20], "bytes": [40, 60]})
    >>> premium_by_unit(t).query("language == 'bn'")["ratio_to_english"].round(3).tolist()
    [1.333, 4.0, 2.0]
    """
    rows = []
    for _, r in table.iterrows():
        for unit, column in UNITS.items():
            rows.append((r["tokenizer"], r["language"], unit, r["tokens"] / r[column]))
    out = pd.DataFrame(rows, columns=["tokenizer", "language", "unit", "rate"])
    english = out[out["language"] == "en"].set_index(["tokenizer", "unit"])["rate"]
    out["ratio_to_english"] = out["rate"].to_numpy() / english.reindex(
        pd.MultiIndex.from_frame(out[["tokenizer", "unit"]])).to_numpy()
    return out


def bootstrap_indices(n: int, replicates: int, seed: int) -> np.ndarray:
    """Resampled row indices, ``(replicates, n)``, from ``numpy.random.default_rng(seed).integers``."""
    return np.random.default_rng(seed).integers(0, n, size=(replicates, n))


def bootstrap_ratio(numerator: np.ndarray, denominator: np.ndarray, *, indices: np.ndarray,
                    level: float = 0.95) -> tuple[float, float, float]:
    """Ratio of sums with a percentile bootstrap interval over paired rows.

    Parameters
    ----------
    numerator, denominator : array of float
        Paired per-row values (tokens of a sentence in language L and in English).
    indices : array of int, shape (replicates, n)
        Resampled rows (:func:`bootstrap_indices`); the same array for every
        tokenizer keeps their intervals on common resamples.
    level : float

    Returns
    -------
    (estimate, lo, hi)
        ``sum(numerator) / sum(denominator)`` and the ``(1-level)/2``,
        ``(1+level)/2`` quantiles (``numpy.quantile``, linear) of the
        replicates' ratios of sums.
    """
    num, den = np.asarray(numerator, float), np.asarray(denominator, float)
    if num.shape != den.shape or indices.ndim != 2 or indices.shape[1] != num.size:
        raise ValueError("numerator, denominator and the index rows must have the same length")
    ratios = num[indices].sum(axis=1) / den[indices].sum(axis=1)
    lo, hi = np.quantile(ratios, [(1 - level) / 2, (1 + level) / 2])
    return float(num.sum() / den.sum()), float(lo), float(hi)


def parallel_premium(per_sentence: pd.DataFrame, *, seed: int, replicates: int = 2000,
                     level: float = 0.95) -> pd.DataFrame:
    """The table ``real_parallel_premium``: per-sentence premium of Bangla and Hindi over English.

    Parameters
    ----------
    per_sentence : DataFrame
        Output of :func:`sentence_tokens`.
    seed : int
        Seeds :func:`bootstrap_indices` (one draw of sentence triples shared by
        every tokenizer and language).
    replicates : int
    level : float

    Returns
    -------
    DataFrame
        ``tokenizer, system, exact, language, sentences, premium, lo, hi,
        replicates``; ``premium`` = summed tokens of the language over summed
        English tokens of the same sentences.
    """
    wide = per_sentence.pivot_table(index=["tokenizer", "sentence"], columns="language", values="tokens",
                                    aggfunc="first", sort=False)
    order = list(dict.fromkeys(per_sentence["tokenizer"]))
    n = per_sentence["sentence"].nunique()
    indices = bootstrap_indices(n, replicates, seed)
    rows = []
    for name in order:
        part = wide.loc[name].sort_index()
        for language in [lang for lang in ("bn", "hi") if lang in part.columns]:
            est, lo, hi = bootstrap_ratio(
                part[language].to_numpy(), part["en"].to_numpy(), indices=indices, level=level
            )
            rows.append((name, language, len(part), est, lo, hi, replicates))
    out = pd.DataFrame(rows, columns=["tokenizer", "language", "sentences", "premium", "lo", "hi", "replicates"])
    out = out.merge(tokenizer_systems(order), on="tokenizer", sort=False)
    return out[["tokenizer", "system", "exact", "language", "sentences", "premium", "lo", "hi", "replicates"]]


# --- verdicts -------------------------------------------------------------------------------


#: The exact tokenizers a majority verdict counts, and what a majority of so few shows: a strict majority falls on
#: one given side by chance (each a fair coin) with probability :func:`compendium.analyses.real.majority_chance`.
N_EXACT = len({r.tokenizer for r in tk.REGISTRY if r.exact})
_CHANCE = (f". Over the {N_EXACT} exact tokenizers, a strict majority falls on one given side by chance (each a "
           f"fair coin) with probability {Fraction(majority_chance(N_EXACT)).limit_denominator(2 ** N_EXACT)}: a "
           "majority shows a pattern, not a "
           "significant one")

#: The rules of the section-8 checks, stated before any result (each beside its verdict function below).
RULE_CHEAPEST_PER_BYTE = Rule(
    quantity="prompt tokens (appendix A's template with the sentence filled in, as the paper counts them) per source "
             "byte, per language, on the same parallel sentences, for each exact tokenizer; on NTREX's sentences, "
             "which are longer than the paper's, so the template weighs less",
    paper="Bangla is the cheapest of the three languages per byte",
    rule="for each exact tokenizer: is Bangla's rate the lowest of bn, en, hi? holds if so for a strict majority of "
         "exact tokenizers; does not hold if not so for a strict majority; inconclusive on a tie"
         "; the same rule on the median exact tokenizer (per language, the median of their rates or "
         "ratios). "
         "The verdict is the two's when they agree, inconclusive when they differ (the aggregator would "
         "decide)" + _CHANCE,
)
RULE_CHAR_PREMIUM = Rule(
    quantity="Bangla / English prompt tokens (appendix A's template with the sentence) per source character, for "
             "each exact tokenizer",
    paper="2.0x (2.93 against 1.45); the registry's bands imply 1.72-2.37 for the ratio",
    rule="the template's fixed tokens make the ratio's size depend on sentence length, so it is compared only if "
         "the corpus's mean English sentence lies within a factor 1.2 of the lengths the paper's 1.45 English "
         "prompt tokens per byte implies under the exact tokenizers; otherwise not testable here (not comparable). "
         "When comparable: for each exact tokenizer, does the ratio lie in 1.72-2.37? holds if a strict majority do; "
         "does not hold "
         "if a strict majority do not; inconclusive on a tie"
         "; the same rule on the median exact tokenizer (per language, the median of their rates or "
         "ratios). "
         "The verdict is the two's when they agree, inconclusive when they differ (the aggregator would "
         "decide)" + _CHANCE,
)
RULE_SIGN_FLIP = Rule(
    quantity="Bangla / English prompt tokens (appendix A's template with the sentence) per source byte and per "
             "character, for each exact tokenizer; on NTREX's sentences",
    paper="the normalising unit decides the direction: Bangla cheaper per byte, dearer per character",
    rule="for each exact tokenizer: is the per-byte ratio below 1 and the per-character ratio above 1? holds if so "
         "for a strict majority; does not hold if not so for a strict majority; inconclusive on a tie"
         "; the same rule on the median exact tokenizer (per language, the median of their rates or "
         "ratios). "
         "The verdict is the two's when they agree, inconclusive when they differ (the aggregator would "
         "decide)" + _CHANCE,
)
RULE_PARALLEL_PREMIUM = Rule(
    quantity="tokens of the translation / tokens of the English source for the same sentences, per exact tokenizer, "
             "with a 95% bootstrap interval over sentences",
    paper="no premium on the same content: the 'token premium' is about Unicode encoding, not tokenizer fairness",
    rule="for each exact tokenizer: a premium when the interval lies wholly above 1. does not hold if a strict "
         "majority show a premium; holds if a strict majority do not; inconclusive on a tie"
         "; the same rule on the median exact tokenizer (per language, the median of their rates or "
         "ratios). "
         "The verdict is the two's when they agree, inconclusive when they differ (the aggregator would "
         "decide)" + _CHANCE,
)
RULE_TOKENS_PER_EMOJI = Rule(
    quantity="usage-weighted tokens per emoji counted alone (the floor of the completion tokens per emoji), per exact "
             "tokenizer",
    paper="1.4-4.4 completion tokens per emoji for the seven systems other than Grok",
    rule="a floor above the paper's 4.4 contradicts it; one below 1.4 does not (a completion also pays for "
         "separators). holds if every exact tokenizer's floor is at most 4.4; does not hold if any exceeds it",
)


def verdict_cheapest_per_byte(rates: pd.DataFrame) -> str:
    """"Per byte Bangla is the cheapest of the three languages."

    Rule: for each exact tokenizer, is Bangla's tokens per byte the lowest
    of the three languages? **holds** if so for a strict majority of exact
    tokenizers, **does not hold** if not so for a strict majority,
    **inconclusive** on a tie, **not testable here** with no exact tokenizer.

    Parameters
    ----------
    rates : DataFrame
        ``tokenizer, exact, language, unit, rate`` (:func:`premium_by_unit`
        merged with ``exact``).
    """
    part = rates[(rates["unit"] == "byte") & rates["exact"].astype(bool)]
    return majority_verdict([g.set_index("language")["rate"].idxmin() == "bn" for _, g in part.groupby("tokenizer")])


def verdict_char_premium(ratios: Sequence[float], lo: float, hi: float) -> str:
    """"Per character Bangla costs 2.93 against English's 1.45, a 2.0x premium."

    Rule: each exact tokenizer's Bangla/English tokens-per-character ratio is
    compared with the band the registry's bands imply for the ratio,
    ``[lo, hi]`` = [2.7 / 1.57, 3.15 / 1.33] = [1.72, 2.37]. **holds** if a
    strict majority lie in the band, **does not hold** if a strict majority
    lie outside, **inconclusive** on a tie, **not testable here** with none.
    """
    return majority_verdict([lo <= r <= hi for r in ratios])


def verdict_sign_flip(byte_ratios: Sequence[float], char_ratios: Sequence[float]) -> str:
    """"Cost accounting changes sign with the unit."

    Rule: for an exact tokenizer the sign flips when Bangla is cheaper than
    English per byte (ratio < 1) and dearer per character (ratio > 1).
    **holds** if it flips for a strict majority of exact tokenizers, **does not
    hold** if it does not for a strict majority, **inconclusive** on a tie.
    """
    return majority_verdict([b < 1 < c for b, c in zip(byte_ratios, char_ratios, strict=True)])


def verdict_parallel_premium(lo: Sequence[float], hi: Sequence[float]) -> str:
    """"The token premium is a statement about Unicode encoding, not about tokenizer fairness."

    Put to the paired unit: Bangla tokens over English tokens for the same
    sentences. If a tokenizer were fair in the paper's sense, the same content
    would cost about the same in both languages. Rule, over the exact
    tokenizers' 95% intervals ``[lo, hi]`` of the per-sentence premium:
    **does not hold** if the interval lies entirely above 1 (``lo > 1``) for a
    strict majority; **holds** if it does not (``lo <= 1``) for a strict
    majority; **inconclusive** on a tie, **not testable here** with none.

    Examples
    --------
    >>> verdict_parallel_premium([1.8, 1.2, 0.9], [2.0, 1.3, 1.1])
    'does not hold'
    >>> verdict_parallel_premium([0.9, 0.95, 1.2], [1.1, 1.05, 1.3])
    'holds'
    """
    lo, hi = list(lo), list(hi)
    if len(lo) != len(hi):
        raise ValueError("lo and hi must have the same length")
    return majority_verdict([x <= 1 for x in lo])


def verdict_tokens_per_emoji(floors: Sequence[float], paper_hi: float) -> str:
    """"The other seven systems average 1.4-4.4 [completion tokens per emoji]."

    The tokens of an emoji alone (usage-weighted) are the floor of its
    completion cost: a completion also pays for separators and an end token,
    so a floor below the paper's 1.4 is compatible with it, but a floor above
    its 4.4 is not. Rule: **holds** if every exact tokenizer's usage-weighted
    floor is at most ``paper_hi``, **does not hold** if any exceeds it,
    **not testable here** with no exact tokenizer.

    Examples
    --------
    >>> verdict_tokens_per_emoji([1.0, 1.6], 4.4)
    'holds'
    >>> verdict_tokens_per_emoji([1.0, 5.0], 4.4)
    'does not hold'
    """
    floors = list(floors)
    if not floors:
        return NOT_TESTABLE
    return HOLDS if max(floors) <= paper_hi else DOES_NOT_HOLD


def verdict_cheapest_per_byte_median(rates: pd.DataFrame) -> str:
    """:func:`verdict_cheapest_per_byte` on the median exact tokenizer: is Bangla's median rate per byte the
    lowest of the three languages' medians?

    >>> r = pd.DataFrame({"tokenizer": list("xxxyyy"), "exact": True, "unit": "byte",
    ...                   "language": ["bn", "en", "hi"] * 2, "rate": [1.0, 1.2, 1.5, 1.3, 1.2, 1.6]})
    >>> verdict_cheapest_per_byte_median(r)
    'holds'
    """
    part = rates[(rates["unit"] == "byte") & rates["exact"].astype(bool)]
    if part.empty:
        return NOT_TESTABLE
    return HOLDS if part.groupby("language")["rate"].median().idxmin() == "bn" else DOES_NOT_HOLD


def verdict_char_premium_median(ratios: Sequence[float], lo: float, hi: float) -> str:
    """:func:`verdict_char_premium` on the median exact tokenizer's ratio.

    >>> verdict_char_premium_median([1.5, 1.8, 1.9, 2.6], 1.72, 2.37), verdict_char_premium_median([1.5], 1.72, 2.37)
    ('holds', 'does not hold')
    """
    ratios = list(ratios)
    if not ratios:
        return NOT_TESTABLE
    return HOLDS if lo <= float(np.median(ratios)) <= hi else DOES_NOT_HOLD


def verdict_sign_flip_median(byte_ratios: Sequence[float], char_ratios: Sequence[float]) -> str:
    """:func:`verdict_sign_flip` on the median exact tokenizer: the median per-byte ratio below 1 and the median
    per-character ratio above 1.

    >>> verdict_sign_flip_median([0.8, 0.9, 1.1], [1.5, 2.0, 2.5])
    'holds'
    """
    if not len(byte_ratios):
        return NOT_TESTABLE
    return HOLDS if float(np.median(byte_ratios)) < 1 < float(np.median(char_ratios)) else DOES_NOT_HOLD


def verdict_parallel_premium_median(lo: Sequence[float]) -> str:
    """:func:`verdict_parallel_premium` on the median exact tokenizer: a premium (**does not hold**) when the median
    of the intervals' lower ends lies above 1.

    >>> verdict_parallel_premium_median([0.9, 1.2, 1.3]), verdict_parallel_premium_median([0.9, 0.95, 1.2])
    ('does not hold', 'holds')
    """
    lo = list(lo)
    if not lo:
        return NOT_TESTABLE
    return DOES_NOT_HOLD if float(np.median(lo)) > 1 else HOLDS


def aggregators_note(by_majority: str, by_median: str) -> str:
    """The two aggregators' verdicts in words, for a check's ``computed`` field.

    >>> aggregators_note("does not hold", "holds")
    'majority of the exact tokenizers: does not hold; median exact tokenizer: holds'
    """
    return f"majority of the exact tokenizers: {by_majority}; median exact tokenizer: {by_median}"
