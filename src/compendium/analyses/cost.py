"""Cost accounting (paper section 8): token rates per unit of text, tokens per emoji.

Section 8 makes three points, each computed here from the ``generations``
table's token counts:

1. *The normalising unit decides the sign of a per-language premium.* In
   prompt tokens per source **byte** (UTF-8) Bangla is the cheapest language
   (1.108 vs 1.450 English, 1.557 Hindi); per source **character** it is
   the dearest (2.93 vs 1.45), because Bangla averages 2.64 UTF-8 bytes per
   character (:func:`token_rates`).
2. *Completion tokens conflate output with reasoning.* Grok-4-Fast bills
   294.7 completion tokens per Bangla item for 2.60 emojis; the other seven
   systems spend 1.4-4.4 tokens per emoji (:func:`completion_costs`,
   :func:`tokens_per_emoji_range`).
3. *No cost measure predicts quality*: Spearman rho of EAD with total
   tokens, completion tokens and tokens per emoji is -0.14, -0.12, -0.14,
   none significant (:func:`cost_ead_correlations`).

Units
-----
*Byte* is the length of the sentence encoded as UTF-8; *character* is a
Unicode code point (Python's ``len``), not a grapheme cluster: a Bangla
conjunct or a Devanagari syllable with a vowel sign is several characters.
Bengali (U+0980-U+09FF) and Devanagari (U+0900-U+097F) code points take 3
bytes each, ASCII 1, so 2.64 bytes per character means about 82% of Bangla
characters are Bengali letters and signs and the rest spaces and punctuation.
Emojis are counted as graphemes with :func:`compendium.analyses.emoji.count_series`
(appendix B).

Ratio of sums and mean of ratios
--------------------------------
Every rate is given both ways, because they answer different questions and
the paper does not always say which it reports:

* *ratio of sums* (the headline columns, e.g. ``tokens_per_byte``):
  ``sum(tokens) / sum(bytes)`` over the rows of a group -- the cost of the
  whole corpus per unit of text. The identity ``tokens_per_char =
  tokens_per_byte * bytes_per_char`` holds exactly only in this form, and
  the paper's numbers satisfy it (1.108 x 2.64 = 2.93), so section 8's
  token rates are ratios of sums.
* *mean of per-item ratios* (columns ending ``_item_mean``):
  ``mean(tokens_i / bytes_i)`` -- the typical item's rate, which weights a
  short sentence as much as a long one, and so is pulled up by the fixed
  prompt template on short items.

The prompt counted in ``prompt_tokens`` is the whole Appendix A template
(about 60 tokens) plus the sentence, while the denominator is the sentence
alone. No tokenizer spends more than one token per byte of plain text, so a
rate above 1 token per byte (as the paper reports for all three languages)
means the template is counted in the numerator. :func:`estimate_template_tokens`
estimates the template's size per system, and ``token_rates(...,
template_tokens=...)`` reports net rates with it removed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from compendium.analyses import emoji
from compendium.data import schema

__all__ = [
    "text_units",
    "token_rates",
    "estimate_template_tokens",
    "completion_costs",
    "tokens_per_emoji_range",
    "cost_ead_correlations",
]


# --- helpers -----------------------------------------------------------------------------


def text_units(texts: pd.Series) -> pd.DataFrame:
    """UTF-8 bytes and Unicode code points of each text.

    Parameters
    ----------
    texts : Series of str

    Returns
    -------
    DataFrame
        Indexed like ``texts``: ``bytes`` (``len(t.encode("utf-8"))``) and
        ``chars`` (``len(t)``, code points), int64.

    Examples
    --------
    >>> text_units(pd.Series(["ab", "\\u0986\\u09ae\\u09bf", "\\u0928\\u092e\\u0938\\u094d\\u0924\\u0947"]))
       bytes  chars
    0      2      2
    1      9      3
    2     18      6
    """
    values = texts.astype(str).tolist()  # Python strings: iterating an Arrow-backed column boxes each value slowly
    return pd.DataFrame(
        {
            "bytes": np.fromiter((len(t.encode("utf-8")) for t in values), dtype=np.int64, count=len(values)),
            "chars": np.fromiter((len(t) for t in values), dtype=np.int64, count=len(values)),
        },
        index=texts.index,
    )


def _as_keys(by: str | Sequence[str]) -> list[str]:
    keys = [by] if isinstance(by, str) else list(by)
    unknown = set(keys) - {"system", "language"}
    if not keys or unknown:
        raise ValueError(f"'by' must name 'system' and/or 'language', got {by!r}")
    return keys


def _joined(
    sentences: pd.DataFrame, generations: pd.DataFrame, columns: Sequence[str] = ("language", "text")
) -> pd.DataFrame:
    """One row per generation with its sentence's ``columns`` (system and language as plain str)."""
    info = sentences[["sentence_id", *columns]].assign(language=lambda f: f["language"].astype(str))
    frame = generations.assign(system=generations["system"].astype(str)).merge(
        info, on="sentence_id", how="left", validate="many_to_one", sort=False, indicator=True
    )
    missing = frame.pop("_merge") == "left_only"
    if missing.any():
        first = frame.loc[missing, "sentence_id"].iloc[0]
        raise ValueError(f"{int(missing.sum())} generation(s) refer to unknown sentences, e.g. {first!r}")
    return frame


def _sorted(table: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Rows in schema order of systems and languages (unknown names last)."""
    order = {"system": list(schema.SYSTEMS), "language": list(schema.LANGUAGES)}

    def rank(column: pd.Series) -> pd.Series:
        known = order[column.name]
        return column.map(lambda v: (known.index(v), "") if v in known else (len(known), v))

    return table.sort_values(keys, key=rank).reset_index(drop=True)


# --- prompt tokens per unit of text -----------------------------------------------------------


def token_rates(
    sentences: pd.DataFrame,
    generations: pd.DataFrame,
    *,
    by: str | Sequence[str] = "language",
    template_tokens: float | Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Prompt tokens per source byte and per source character, and bytes per character.

    Every generation row contributes its ``prompt_tokens`` and the UTF-8
    bytes and code points of its sentence; by default the rows of all
    systems are pooled within each language (section 8 reports one number
    per language).

    Parameters
    ----------
    sentences : DataFrame
        Columns ``sentence_id, language, text``.
    generations : DataFrame
        Columns ``sentence_id, system, prompt_tokens``.
    by : str or sequence of str, default "language"
        Grouping: ``"language"``, ``"system"`` or ``("system", "language")``.
    template_tokens : float or mapping of system to float, optional
        Tokens of the fixed prompt template (e.g. the ``template_tokens``
        column of :func:`estimate_template_tokens`). If given, the
        ``net_*`` columns report rates of ``prompt_tokens - template``.

    Returns
    -------
    DataFrame
        One row per group (schema order), the grouping columns, then
        ``rows``, ``items``, ``prompt_tokens``, ``bytes``, ``chars`` (sums
        over rows) and

        * ratios of sums: ``tokens_per_byte``, ``tokens_per_char``,
          ``bytes_per_char`` -- the paper's quantities (bn 1.108 per byte,
          2.93 per character, 2.64 bytes per character; en 1.450 and 1.45;
          hi 1.557 per byte);
        * means of per-row ratios: ``tokens_per_byte_item_mean``,
          ``tokens_per_char_item_mean``, ``bytes_per_char_item_mean``
          (rows with an empty sentence are left out of these);
        * with ``template_tokens``: ``net_tokens_per_byte``,
          ``net_tokens_per_char`` (ratios of sums).

        ``tokens_per_char == tokens_per_byte * bytes_per_char`` exactly.

    Notes
    -----
    A ``tokens_per_byte`` above 1 cannot be a tokenizer's rate on the
    sentence: it means the fixed template is in the numerator (see the
    module docstring).

    Examples
    --------
    >>> s = pd.DataFrame({"sentence_id": ["b", "e"], "language": ["bn", "en"],
    ...                   "text": ["\\u0986\\u09ae\\u09bf", "hi there"]})
    >>> g = pd.DataFrame({"sentence_id": ["b", "b", "e", "e"], "system": ["x", "y", "x", "y"],
    ...                   "prompt_tokens": [12, 15, 10, 14]})
    >>> rates = token_rates(s, g)
    >>> rates[["language", "tokens_per_byte", "tokens_per_char", "bytes_per_char"]].to_dict("records")
    [{'language': 'bn', 'tokens_per_byte': 1.5, 'tokens_per_char': 4.5, 'bytes_per_char': 3.0},
     {'language': 'en', 'tokens_per_byte': 1.5, 'tokens_per_char': 1.5, 'bytes_per_char': 1.0}]
    """
    keys = _as_keys(by)
    frame = _joined(sentences, generations[["sentence_id", "system", "prompt_tokens"]])
    frame = pd.concat([frame, text_units(frame["text"])], axis=1)
    frame["prompt_tokens"] = frame["prompt_tokens"].astype(np.float64)
    if template_tokens is not None:
        if isinstance(template_tokens, Mapping):
            template = frame["system"].map(template_tokens)
            if template.isna().any():
                first = frame.loc[template.isna(), "system"].iloc[0]
                raise ValueError(f"template_tokens has no value for system {first!r}")
        else:
            template = float(template_tokens)
        frame["net_tokens"] = frame["prompt_tokens"] - template
    nonempty = frame["chars"] > 0
    frame["tpb"] = (frame["prompt_tokens"] / frame["bytes"]).where(nonempty)
    frame["tpc"] = (frame["prompt_tokens"] / frame["chars"]).where(nonempty)
    frame["bpc"] = (frame["bytes"] / frame["chars"]).where(nonempty)
    aggregations = dict(
        rows=("sentence_id", "size"),
        items=("sentence_id", "nunique"),
        prompt_tokens=("prompt_tokens", "sum"),
        bytes=("bytes", "sum"),
        chars=("chars", "sum"),
        tokens_per_byte_item_mean=("tpb", "mean"),
        tokens_per_char_item_mean=("tpc", "mean"),
        bytes_per_char_item_mean=("bpc", "mean"),
    )
    if template_tokens is not None:
        aggregations["net_tokens"] = ("net_tokens", "sum")
    table = frame.groupby(keys, sort=False).agg(**aggregations).reset_index()
    table["tokens_per_byte"] = table["prompt_tokens"] / table["bytes"]
    table["tokens_per_char"] = table["prompt_tokens"] / table["chars"]
    table["bytes_per_char"] = table["bytes"] / table["chars"]
    columns = [*keys, "rows", "items", "prompt_tokens", "bytes", "chars", "tokens_per_byte", "tokens_per_char",
               "bytes_per_char", "tokens_per_byte_item_mean", "tokens_per_char_item_mean", "bytes_per_char_item_mean"]
    if template_tokens is not None:
        table["net_tokens_per_byte"] = table["net_tokens"] / table["bytes"]
        table["net_tokens_per_char"] = table["net_tokens"] / table["chars"]
        columns += ["net_tokens_per_byte", "net_tokens_per_char"]
    return _sorted(table[columns], keys)


def estimate_template_tokens(sentences: pd.DataFrame, generations: pd.DataFrame) -> pd.DataFrame:
    """Estimate each system's fixed prompt overhead by least squares.

    For each system, ``prompt_tokens`` is regressed on the sentence's
    length in characters with one slope per language and a common
    intercept::

        prompt_tokens_i = template + sum_L slope_L * chars_i * [language_i = L] + e_i

    The intercept estimates the tokens spent on the fixed Appendix A
    template (and the chat format) whatever the sentence; the slopes are
    the sentence-only tokens per character. It is a diagnostic for
    :func:`token_rates`, not a quantity the paper reports.

    Parameters
    ----------
    sentences : DataFrame
        Columns ``sentence_id, language, text``.
    generations : DataFrame
        Columns ``sentence_id, system, prompt_tokens``.

    Returns
    -------
    DataFrame
        One row per system (schema order): ``system``, ``rows``,
        ``template_tokens`` (intercept) and ``tokens_per_char_<language>``
        for each language present.

    Examples
    --------
    >>> s = pd.DataFrame({"sentence_id": list("abcd"), "language": ["bn", "bn", "en", "en"],
    ...                   "text": ["xx", "xxxx", "xxx", "xxxxxx"]})
    >>> g = pd.DataFrame({"sentence_id": list("abcd"), "system": "s", "prompt_tokens": [64, 68, 61, 62]})
    >>> estimate_template_tokens(s, g).round(3).to_dict("records")
    [{'system': 's', 'rows': 4, 'template_tokens': 60.0, 'tokens_per_char_bn': 2.0, 'tokens_per_char_en': 0.333}]
    """
    frame = _joined(sentences, generations[["sentence_id", "system", "prompt_tokens"]])
    frame = pd.concat([frame, text_units(frame["text"])], axis=1)
    present = set(frame["language"].unique().tolist())
    languages = [lang for lang in schema.LANGUAGES if lang in present]
    languages += sorted(present - set(languages))
    rows = []
    for system, part in frame.groupby("system", sort=False):
        chars = part["chars"].to_numpy(float)
        design = np.column_stack(
            [np.ones(len(part))] + [chars * (part["language"] == lang).to_numpy() for lang in languages]
        )
        coef, *_ = np.linalg.lstsq(design, part["prompt_tokens"].to_numpy(float), rcond=None)
        rows.append({"system": system, "rows": len(part), "template_tokens": coef[0],
                     **{f"tokens_per_char_{lang}": c for lang, c in zip(languages, coef[1:])}})
    return _sorted(pd.DataFrame(rows), ["system"])


# --- completion tokens and emojis ------------------------------------------------------------------


def completion_costs(
    sentences: pd.DataFrame, generations: pd.DataFrame, *, by: str | Sequence[str] = ("system", "language")
) -> pd.DataFrame:
    """Completion tokens, emojis and completion tokens per emoji, by system and language.

    Emojis are emoji graphemes of the raw output
    (:func:`compendium.analyses.emoji.count_series`, appendix B). Tokens per emoji is
    given both ways:

    * ``tokens_per_emoji`` -- ratio of means, ``mean(completion_tokens) /
      mean(emojis)`` over all items of the group (equivalently the ratio of
      sums): the billed cost of the group's emojis;
    * ``tokens_per_emoji_item_mean`` -- mean of per-item ratios,
      ``mean(completion_tokens_i / emojis_i)`` over the items with at least
      one emoji (items without one have no ratio; ``zero_emoji_items``
      counts them).

    The paper's Grok-4-Fast figures (294.7 tokens, 2.60 emojis per Bangla
    item) give 294.7 / 2.60 = 113 as a ratio of means, so its "124 tokens
    per emoji" can only be a mean of per-item ratios (by Jensen's inequality
    the latter exceeds the former when token counts do not grow with the
    emoji count, as reasoning tokens do not).

    Parameters
    ----------
    sentences : DataFrame
        Columns ``sentence_id, language``.
    generations : DataFrame
        Columns ``sentence_id, system, output, prompt_tokens, completion_tokens``.
    by : str or sequence of str, default ("system", "language")

    Returns
    -------
    DataFrame
        One row per group (schema order): the grouping columns, ``items``,
        ``mean_prompt_tokens``, ``mean_completion_tokens``,
        ``mean_total_tokens`` (prompt + completion), ``mean_emojis``,
        ``zero_emoji_items``, ``tokens_per_emoji`` and
        ``tokens_per_emoji_item_mean``.

    Examples
    --------
    >>> s = pd.DataFrame({"sentence_id": ["a", "b", "c"], "language": "bn", "text": "x"})
    >>> g = pd.DataFrame({"sentence_id": ["a", "b", "c"], "system": "grok-4-fast",
    ...                   "output": ["\\U0001F602\\U0001F602", "\\U0001F602", "no emoji"],
    ...                   "prompt_tokens": 60, "completion_tokens": [10, 20, 3]})
    >>> c = completion_costs(s, g)
    >>> c.loc[0, ["mean_completion_tokens", "mean_emojis", "tokens_per_emoji", "tokens_per_emoji_item_mean"]].to_dict()
    {'mean_completion_tokens': 11.0, 'mean_emojis': 1.0, 'tokens_per_emoji': 11.0, 'tokens_per_emoji_item_mean': 12.5}
    """
    keys = _as_keys(by)
    frame = _joined(sentences, generations, columns=("language",))
    frame["emojis"] = emoji.count_series(frame["output"])["graphemes"].to_numpy()
    frame["completion_tokens"] = frame["completion_tokens"].astype(np.float64)
    frame["total_tokens"] = frame["prompt_tokens"].astype(np.float64) + frame["completion_tokens"]
    frame["per_emoji"] = (frame["completion_tokens"] / frame["emojis"]).where(frame["emojis"] > 0)
    table = (
        frame.groupby(keys, sort=False)
        .agg(
            items=("sentence_id", "size"),
            mean_prompt_tokens=("prompt_tokens", "mean"),
            mean_completion_tokens=("completion_tokens", "mean"),
            mean_total_tokens=("total_tokens", "mean"),
            mean_emojis=("emojis", "mean"),
            zero_emoji_items=("emojis", lambda e: int((e == 0).sum())),
            tokens_per_emoji_item_mean=("per_emoji", "mean"),
        )
        .reset_index()
    )
    table["mean_prompt_tokens"] = table["mean_prompt_tokens"].astype(np.float64)
    table["tokens_per_emoji"] = table["mean_completion_tokens"] / table["mean_emojis"]
    columns = [*keys, "items", "mean_prompt_tokens", "mean_completion_tokens", "mean_total_tokens", "mean_emojis",
               "zero_emoji_items", "tokens_per_emoji", "tokens_per_emoji_item_mean"]
    return _sorted(table[columns], keys)


def tokens_per_emoji_range(
    costs: pd.DataFrame, *, language: str | None = "bn", exclude: Sequence[str] = ("grok-4-fast",)
) -> pd.DataFrame:
    """Lowest and highest completion tokens per emoji among systems, both definitions.

    Section 8 contrasts Grok-4-Fast (which bills its reasoning trace) with
    "the other seven systems", which spend 1.4-4.4 completion tokens per
    emoji.

    Parameters
    ----------
    costs : DataFrame
        Output of :func:`completion_costs` (with a ``system`` column, and a
        ``language`` column unless ``language`` is None).
    language : str or None, default "bn"
        Restrict to one language; None if ``costs`` has one row per system.
    exclude : sequence of str, default ("grok-4-fast",)
        Systems left out.

    Returns
    -------
    DataFrame
        Index ``definition`` (``ratio_of_means`` = column
        ``tokens_per_emoji``, ``mean_of_ratios`` = column
        ``tokens_per_emoji_item_mean``); columns ``systems`` (how many),
        ``min``, ``min_system``, ``max``, ``max_system``.

    Examples
    --------
    >>> c = pd.DataFrame({"system": ["a", "b", "grok-4-fast"], "language": "bn",
    ...                   "tokens_per_emoji": [1.5, 4.0, 113.0], "tokens_per_emoji_item_mean": [1.6, 4.4, 124.0]})
    >>> tokens_per_emoji_range(c)[["min", "min_system", "max", "max_system"]]
                    min min_system  max max_system
    definition
    ratio_of_means  1.5          a  4.0          b
    mean_of_ratios  1.6          a  4.4          b
    """
    part = costs if language is None else costs[costs["language"].astype(str) == language]
    part = part.set_index(part["system"].astype(str).to_numpy())
    part = part[~part.index.isin(list(exclude))]
    if part.empty:
        raise ValueError("no systems left after the language filter and the exclusions")
    rows = []
    definitions = (("ratio_of_means", "tokens_per_emoji"), ("mean_of_ratios", "tokens_per_emoji_item_mean"))
    for definition, column in definitions:
        values = part[column].astype(float)
        rows.append((definition, len(values), values.min(), values.idxmin(), values.max(), values.idxmax()))
    return pd.DataFrame(rows, columns=["definition", "systems", "min", "min_system", "max", "max_system"]).set_index(
        "definition"
    )


# --- cost versus quality ------------------------------------------------------------------------------

#: Cost measures correlated with EAD: row name -> column of :func:`completion_costs`.
COST_MEASURES: dict[str, str] = {
    "total_tokens": "mean_total_tokens",
    "completion_tokens": "mean_completion_tokens",
    "tokens_per_emoji": "tokens_per_emoji",
    "tokens_per_emoji_item_mean": "tokens_per_emoji_item_mean",
}


def _ead_by_system(ead: pd.Series | pd.DataFrame, language: str | None, value: str) -> pd.Series:
    if isinstance(ead, pd.Series):
        return ead.astype(float).set_axis(ead.index.astype(str))
    frame = ead
    if "system" not in frame.columns:
        frame = frame.reset_index()
    if language is not None and "language" in frame.columns:
        frame = frame[frame["language"].astype(str) == language]
    if frame["system"].astype(str).duplicated().any():
        raise ValueError("ead has more than one value per system; pass one language")
    return pd.Series(frame[value].astype(float).to_numpy(), index=frame["system"].astype(str).to_numpy())


def cost_ead_correlations(
    costs: pd.DataFrame, ead: pd.Series | pd.DataFrame, *, language: str | None = "bn", value: str = "ead"
) -> pd.DataFrame:
    """Spearman correlation of EAD with each cost measure, over systems.

    Parameters
    ----------
    costs : DataFrame
        Output of :func:`completion_costs` (``system`` column; ``language``
        column unless ``language`` is None).
    ead : Series or DataFrame
        Emoji-affect decodability per system: a Series indexed by system, or
        a DataFrame with columns ``system``, ``value`` and optionally
        ``language`` (then filtered to ``language``).
    language : str or None, default "bn"
        Language of the comparison (EAD is compared within a language only).
    value : str, default "ead"
        Column of ``ead`` holding the metric when it is a DataFrame.

    Returns
    -------
    DataFrame
        Index ``measure``: ``total_tokens`` (mean prompt + completion tokens
        per item), ``completion_tokens``, ``tokens_per_emoji`` (ratio of
        means) and ``tokens_per_emoji_item_mean`` (mean of ratios); columns
        ``rho``, ``p`` (two-sided, :func:`scipy.stats.spearmanr`'s t
        approximation) and ``n`` (systems with both values). Paper: -0.14,
        -0.12, -0.14, none significant.

    Examples
    --------
    >>> c = pd.DataFrame({"system": list("abcd"), "language": "bn", "mean_total_tokens": [70, 80, 90, 400],
    ...                   "mean_completion_tokens": [8, 9, 12, 300], "tokens_per_emoji": [2, 3, 4, 110],
    ...                   "tokens_per_emoji_item_mean": [2, 3, 4, 120]})
    >>> e = pd.Series({"a": 0.6, "b": 0.55, "c": 0.65, "d": 0.5})
    >>> cost_ead_correlations(c, e)["rho"].round(2).tolist()  # 1 - 6 * (4 + 0 + 1 + 9) / (4 * 15)
    [-0.4, -0.4, -0.4, -0.4]
    """
    part = costs if language is None else costs[costs["language"].astype(str) == language]
    if part["system"].astype(str).duplicated().any():
        raise ValueError("costs has more than one row per system; pass a language")
    part = part.set_index(part["system"].astype(str).to_numpy())
    quality = _ead_by_system(ead, language, value)
    rows = []
    for measure, column in COST_MEASURES.items():
        pair = pd.concat(
            [part[column].astype(float).rename("cost"), quality.rename("ead")], axis=1, join="inner"
        ).dropna()
        if len(pair) < 3:
            raise ValueError("a rank correlation with a p-value needs at least three systems with both values")
        result = stats.spearmanr(pair["ead"], pair["cost"])
        rows.append((measure, float(result.statistic), float(result.pvalue), len(pair)))
    return pd.DataFrame(rows, columns=["measure", "rho", "p", "n"]).set_index("measure")
