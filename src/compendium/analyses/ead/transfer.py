"""EAD across systems and languages (paper section 6): the union of all systems, cross-lingual
transfer and vocabulary coverage.

Part of :mod:`compendium.analyses.ead` (which re-exports every public name); see its docstring
for why transfer is per system.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.utils.parallel import Parallel, delayed

from compendium.stats import _workers as workers
from compendium.stats import decoder
from compendium.data import schema
from compendium.analyses.ead.core import EADResult, _keyed, _oof, cell_data, ead
from compendium.analyses.ead.inference import _macro_f1, _texts
from compendium.analyses.emoji import emoji_analyzer, graphemes
from compendium.data.cache import cached


# --------------------------------------------------------------------------- union


def union_outputs(sentences: pd.DataFrame, generations: pd.DataFrame, *, language: str,
                  systems: Sequence[str] = schema.SYSTEMS) -> pd.DataFrame:
    """Per item, the concatenation of all ``systems``' outputs (space-separated, schema order).

    Returns
    -------
    DataFrame
        Like :func:`cell_data`: indexed by ``sentence_id``, columns
        ``output`` and ``label``; only items with an output from every system.
    """
    cells = [cell_data(sentences, generations, language=language, system=s) for s in systems]
    common = cells[0].index
    for c in cells[1:]:
        common = common.intersection(c.index)
    common = common.sort_values()
    columns = [_texts(c.loc[common, "output"]) for c in cells]
    outputs = [" ".join(parts) for parts in zip(*columns, strict=True)]
    return pd.DataFrame({"output": outputs, "label": cells[0].loc[common, "label"].to_numpy()},
                        index=pd.Index(common, name="sentence_id"))


def union_ead(sentences: pd.DataFrame, generations: pd.DataFrame, *, language: str, seed: int,
              systems: Sequence[str] = schema.SYSTEMS, n_splits: int = 5, C: float = 4.0) -> EADResult:
    """EAD of the union of all systems' emojis per item (paper section 6: Bangla 0.686).

    The outputs of the systems are concatenated per item, so an item's
    features are the TF-IDF of the multiset union of the emojis of all
    systems; the protocol is :func:`ead`'s.
    """
    u = union_outputs(sentences, generations, language=language, systems=systems)
    return ead(u["output"], u["label"], seed=seed, n_splits=n_splits, C=C)


# --------------------------------------------------------------------------- transfer


def vocabulary_coverage(train_outputs, test_outputs) -> pd.Series:
    """Share of the test emojis that occur in the training vocabulary.

    Parameters
    ----------
    train_outputs, test_outputs : iterable of str or None
        Raw responses; emojis are :func:`compendium.analyses.emoji.graphemes`.

    Returns
    -------
    Series
        ``token_coverage``: share of test emoji *tokens* (occurrences) whose
        type occurs in the training outputs -- the share of the test signal
        the decoder has a weight for; this is the paper's "vocabulary
        coverage". ``type_coverage``: the same over distinct test emojis
        (lower: rare emojis weigh as much as frequent ones).
        ``n_test_tokens, n_test_types, n_train_types``.

    Examples
    --------
    >>> float(vocabulary_coverage(["😂😂", "😢"], ["😂 😡", "😢😂"])["token_coverage"])
    0.75
    """
    vocab = {g for o in _texts(train_outputs) for g in graphemes(o)}
    tokens = [g for o in _texts(test_outputs) for g in graphemes(o)]
    types = set(tokens)
    covered = sum(t in vocab for t in tokens)
    return pd.Series({
        "token_coverage": covered / len(tokens) if tokens else float("nan"),
        "type_coverage": len(types & vocab) / len(types) if types else float("nan"),
        "n_test_tokens": len(tokens),
        "n_test_types": len(types),
        "n_train_types": len(vocab),
    })


def _transfer_job(system, cells, languages, seed, n_splits, C):
    """All directions of one system (joblib worker)."""
    texts = {lang: _texts(cells[lang]["output"]) for lang in languages}
    labels = {lang: cells[lang]["label"].to_numpy(dtype=object) for lang in languages}
    within = {}
    for lang in languages:
        pred, _ = _oof(*_keyed(texts[lang], labels[lang]), int(seed), int(n_splits), float(C))
        within[lang] = _macro_f1(labels[lang], pred)
    rows = []
    for src in languages:
        for tgt in languages:
            if src == tgt:
                continue
            both = decoder.design(texts[src] + texts[tgt], emoji_analyzer)
            n_src = len(texts[src])
            train, test = np.arange(n_src), np.arange(n_src, both.n_rows)
            predicted = decoder.train_test_predict(both, np.concatenate([labels[src], labels[tgt]]), train, test, C=C)
            score = _macro_f1(labels[tgt], predicted)
            cov = vocabulary_coverage(texts[src], texts[tgt])
            rows.append({
                "system": system, "source": src, "target": tgt, "n_train": n_src, "n_test": len(test),
                "transfer_f1": score, "within_f1": within[tgt], "cost": within[tgt] - score,
                "token_coverage": cov["token_coverage"], "type_coverage": cov["type_coverage"],
            })
    return rows


@cached("compendium", ignore=("n_jobs",))  # a build artefact: nbval's re-execution reads it
def transfer_matrix(
    sentences: pd.DataFrame,
    generations: pd.DataFrame,
    *,
    seed: int,
    languages: Sequence[str] = schema.LANGUAGES,
    systems: Sequence[str] = schema.SYSTEMS,
    C: float = 4.0,
    n_splits: int = 5,
    n_jobs: int = 2,
) -> pd.DataFrame:
    """Cross-lingual transfer of the emoji decoder (paper section 6, *language-specific*).

    For each system and each ordered pair of languages (source != target),
    the TF-IDF + logistic-regression decoder is fitted on all of the
    system's source-language items and evaluated on all of its
    target-language items (the five shared emotions make the label sets
    the same). The cost is the within-language EAD of the target (the
    cross-validated :func:`ead` with the same seed) minus the transfer
    macro-F1. Per system, not pooled over systems: see the module docstring.

    Returns
    -------
    DataFrame
        One row per system x direction: ``system, source, target, n_train,
        n_test, transfer_f1, within_f1, cost, token_coverage,
        type_coverage`` (:func:`vocabulary_coverage` of the target outputs
        by the source vocabulary). The paper's numbers are ``cost.mean()``
        (0.252) and ``token_coverage.min()`` (> 0.997).
    """
    jobs = []
    for system in systems:
        cells = {lang: cell_data(sentences, generations, language=lang, system=system) for lang in languages}
        jobs.append(delayed(_transfer_job)(system, cells, list(languages), seed, n_splits, C))
    rows = [row for part in Parallel(n_jobs=n_jobs, **workers.options())(jobs) for row in part]
    return pd.DataFrame(rows)


def transfer_summary(matrix: pd.DataFrame) -> pd.DataFrame:
    """Per direction, the mean over systems of :func:`transfer_matrix` and the lowest coverage.

    Returns
    -------
    DataFrame
        One row per ``source, target``: ``transfer_f1, within_f1, cost``
        (means over systems), ``min_token_coverage``, ``n_systems``.
    """
    return matrix.groupby(["source", "target"], sort=False).agg(
        transfer_f1=("transfer_f1", "mean"),
        within_f1=("within_f1", "mean"),
        cost=("cost", "mean"),
        min_token_coverage=("token_coverage", "min"),
        n_systems=("system", "nunique"),
    ).reset_index()
