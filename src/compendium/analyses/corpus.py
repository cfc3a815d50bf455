"""Benchmark and study design (paper section 3): corpus, generation and rating design.

Every function takes the tidy tables of :func:`compendium.data.benchmark.load_benchmark`
and returns a tidy DataFrame. Nothing here is an estimate: these are the
counts that define the study, computed rather than asserted.
"""

from __future__ import annotations

import pandas as pd

from compendium.analyses import emoji
from compendium.data import schema


def split_labels(labels: pd.Series) -> pd.Series:
    """The ``;``-joined label strings as lists of labels."""
    return labels.str.split(schema.LABEL_SEPARATOR)


def corpus_summary(sentences: pd.DataFrame) -> pd.DataFrame:
    """Sentences per language with their label scheme and the shared-emotion restriction.

    Parameters
    ----------
    sentences : DataFrame
        Columns ``language, labels, shared_single``.

    Returns
    -------
    DataFrame
        One row per language (index ``language``): ``sentences``,
        ``label_scheme``, ``multi_label`` (items with more than one label),
        ``multi_label_share``, ``single_label``, ``shared_single`` (single-label
        items over the five shared emotions, the set every cross-lingual
        analysis is restricted to) and ``shared_single_share``.

    Examples
    --------
    >>> s = pd.DataFrame({"language": ["bn", "bn", "en"], "labels": ["joy", "joy;fear", "love"],
    ...                   "shared_single": [True, False, False]})
    >>> table = corpus_summary(s)[["sentences", "multi_label", "shared_single"]]
    >>> table.to_dict("index")  # doctest: +NORMALIZE_WHITESPACE
    {'bn': {'sentences': 2, 'multi_label': 1, 'shared_single': 1}, 'en': {'sentences': 1, 'multi_label': 0,
    'shared_single': 0}}
    """
    n_labels = split_labels(sentences["labels"]).str.len()
    frame = pd.DataFrame(
        {
            "language": sentences["language"].astype(str),
            "multi_label": n_labels > 1,
            "shared_single": sentences["shared_single"].astype(bool),
        }
    )
    table = frame.groupby("language", sort=False).agg(
        sentences=("multi_label", "size"),
        multi_label=("multi_label", "sum"),
        shared_single=("shared_single", "sum"),
    )
    order = [lang for lang in schema.LANGUAGES if lang in table.index]
    table = table.loc[order].astype(int)
    table["single_label"] = table["sentences"] - table["multi_label"]
    table["multi_label_share"] = table["multi_label"] / table["sentences"]
    table["shared_single_share"] = table["shared_single"] / table["sentences"]
    table["label_scheme"] = [", ".join(schema.LABEL_SCHEMES[lang]) for lang in table.index]
    return table[
        [
            "sentences",
            "label_scheme",
            "multi_label",
            "multi_label_share",
            "single_label",
            "shared_single",
            "shared_single_share",
        ]
    ]


def label_distribution(sentences: pd.DataFrame) -> pd.DataFrame:
    """How many items of each language carry each label of its scheme.

    Multi-label items count once for each of their labels, so the shares of
    a multi-label corpus sum to more than one.

    Returns
    -------
    DataFrame
        Columns ``language, label, items, share, shared`` (whether the label
        is one of the five shared emotions), in scheme order.
    """
    long = sentences[["language", "labels"]].assign(label=split_labels(sentences["labels"])).explode("label")
    long["language"] = long["language"].astype(str)
    counts = long.groupby(["language", "label"]).size()
    totals = sentences["language"].astype(str).value_counts()
    rows = []
    for lang in schema.LANGUAGES:
        if lang not in totals.index:
            continue
        for label in schema.LABEL_SCHEMES[lang]:
            n = int(counts.get((lang, label), 0))
            rows.append((lang, label, n, n / totals[lang], label in schema.SHARED_EMOTIONS))
    return pd.DataFrame(rows, columns=["language", "label", "items", "share", "shared"])


def generation_summary(generations: pd.DataFrame) -> pd.DataFrame:
    """Per system: outputs, retries and what the responses contain.

    A retry happens when a response has no character above U+007F
    (appendix A); the retry rate is the share of items that needed more
    than one attempt.

    Returns
    -------
    DataFrame
        One row per system (index ``system``, schema order): ``outputs``,
        ``retry_rate``, ``max_attempts``, ``mean_emojis`` (emoji graphemes,
        :func:`compendium.analyses.emoji.graphemes`), ``mean_codepoints`` (the naive
        count), ``mean_prompt_tokens``, ``mean_completion_tokens``.
    """
    counts = emoji.count_series(generations["output"])
    frame = pd.DataFrame(
        {
            "system": generations["system"].astype(str).to_numpy(),
            "retried": (generations["attempts"] > 1).to_numpy(),
            "attempts": generations["attempts"].to_numpy(),
            "emojis": counts["graphemes"].to_numpy(),
            "codepoints": counts["codepoints"].to_numpy(),
            "prompt_tokens": generations["prompt_tokens"].to_numpy(),
            "completion_tokens": generations["completion_tokens"].to_numpy(),
        }
    )
    table = frame.groupby("system").agg(
        outputs=("retried", "size"),
        retry_rate=("retried", "mean"),
        max_attempts=("attempts", "max"),
        mean_emojis=("emojis", "mean"),
        mean_codepoints=("codepoints", "mean"),
        mean_prompt_tokens=("prompt_tokens", "mean"),
        mean_completion_tokens=("completion_tokens", "mean"),
    )
    return table.reindex([s for s in schema.SYSTEMS if s in table.index])


def design_cells(ratings: pd.DataFrame, items: pd.Index | None = None) -> pd.DataFrame:
    """Judgements per cell of the crossed item x system x annotator design.

    Parameters
    ----------
    ratings : DataFrame
        Columns ``sentence_id, system, annotator``.
    items : Index, optional
        The items that should have been rated (default: those that were).

    Returns
    -------
    DataFrame
        Items as rows, (system, annotator) as columns, the number of
        judgements in each cell: 1 everywhere in a complete design, 0 for a
        missing cell.
    """
    items = pd.Index(sorted(ratings["sentence_id"].unique())) if items is None else pd.Index(items)
    systems = [s for s in schema.SYSTEMS if s in set(ratings["system"].astype(str).unique().tolist())]
    annotators = sorted(set(ratings["annotator"].astype(str).unique().tolist()))
    counts = (
        ratings.assign(system=ratings["system"].astype(str), annotator=ratings["annotator"].astype(str))
        .groupby(["sentence_id", "system", "annotator"])
        .size()
        .unstack(["system", "annotator"])
    )
    columns = pd.MultiIndex.from_product([systems, annotators], names=["system", "annotator"])
    return counts.reindex(index=items, columns=columns).fillna(0).astype(int)


def rating_design(ratings: pd.DataFrame, items: pd.Index | None = None) -> pd.Series:
    """Size and completeness of the human study.

    Returns
    -------
    Series
        ``items, systems, annotators, judgements, cells`` (items x systems x
        annotators), ``missing_cells`` and ``duplicated_cells``.
    """
    cells = design_cells(ratings, items)
    return pd.Series(
        {
            "items": cells.shape[0],
            "systems": cells.columns.get_level_values("system").nunique(),
            "annotators": cells.columns.get_level_values("annotator").nunique(),
            "judgements": int(cells.to_numpy().sum()),
            "cells": cells.size,
            "missing_cells": int((cells.to_numpy() == 0).sum()),
            "duplicated_cells": int((cells.to_numpy() > 1).sum()),
        }
    )


def geometry_sample_summary(sentences: pd.DataFrame) -> pd.DataFrame:
    """The label-stratified geometry sample: sentences per language and label.

    Returns
    -------
    DataFrame
        Rows are labels, columns languages, values sentence counts, with a
        ``total`` row.
    """
    sample = sentences[sentences["geometry_sample"].astype(bool)]
    long = sample.assign(label=split_labels(sample["labels"]).str[0], language=sample["language"].astype(str))
    table = long.pivot_table(index="label", columns="language", values="sentence_id", aggfunc="count", fill_value=0)
    table = table.reindex(columns=[lang for lang in schema.LANGUAGES if lang in table.columns])
    table.loc["total"] = table.sum()
    return table.astype(int)
