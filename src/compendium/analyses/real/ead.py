"""Emoji-affect decodability of *human* emojis (paper section 6, put to real data).

The paper measures EAD on the emojis eight systems emitted for labelled
sentences. Its corpora and outputs are not public, but three public corpora
carry human-written text with emojis and a label: GoEmotions (English Reddit
comments, Ekman labels), EmoMix-3L (code-mixed Bangla-Hindi-English posts,
five emotion labels) and SentMix-3L (the same kind of posts, three sentiment
labels). Decoding the label from the emojis of the text alone is EAD applied
to a human emoji channel, computed with exactly the systems' protocol
(:func:`compendium.analyses.ead.core.ead`: emoji graphemes, sublinear TF-IDF,
class-balanced L2 multinomial logistic regression, 5-fold stratified CV,
pooled out-of-fold macro-F1; floors, bootstrap CI and permutation null from
:mod:`compendium.analyses.ead.inference`).

What it can and cannot show
---------------------------
* The labels were given from the whole text, emojis included, so a human EAD
  measures how much of the annotators' reading the emojis carry; a system's
  EAD measures how much of a sentence's label survives in emojis produced
  for it. Same statistic, different question.
* The 3L posts were *elicited* (written on request by students), not
  collected; GoEmotions is emoji-poor (about 2 % of comments have one), so
  only a few hundred rows qualify per corpus.
* The corpora differ from the paper's in text, domain and label scheme, so
  a human EAD beside a system EAD is a comparison of magnitudes, not a test
  of the paper's numbers.

Rows (:func:`select_goemotions`, :func:`select_emomix3l`,
:func:`select_sentmix3l`) are single-label rows with at least one emoji
grapheme (:func:`compendium.analyses.emoji.graphemes`) whose label is one of
the paper's shared emotions (:data:`compendium.data.schema.SHARED_EMOTIONS`),
or, for SentMix-3L, one of its three sentiments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.metrics import f1_score

from compendium.analyses.ead import core as ead_core
from compendium.analyses.ead import inference as ead_inference
from compendium.analyses.ead.inference import _macro_f1
from compendium.analyses.ead.transfer import vocabulary_coverage
from compendium.analyses.emoji import emoji_analyzer, graphemes
from compendium.analyses.real import DOES_NOT_HOLD, HOLDS, INCONCLUSIVE, NOT_TESTABLE, Rule
from compendium.data import schema
from compendium.data.cache import cached
from compendium.stats import decoder

__all__ = [
    "EMOMIX3L_TO_SHARED",
    "PLUTCHIK_TO_SHARED",
    "TABLE_COLUMNS",
    "has_emoji",
    "select_goemotions",
    "select_emomix3l",
    "select_sentmix3l",
    "human_ead",
    "human_ead_table",
    "transfer",
    "lexicon_baseline",
    "PAPER_TRANSFER_COST",
    "MIN_TRANSFER_COST",
    "RULE_DECODABLE",
    "RULE_LANGUAGE_SPECIFIC",
    "RULE_EMOJI_VS_EMBEDDING",
    "emoji_vs_embedding",
    "verdict_emoji_vs_embedding",
    "verdict_decodable",
    "verdict_language_specific",
]

#: EmoMix-3L's labels on the paper's shared emotions; ``Neutral`` has none and is dropped.
EMOMIX3L_TO_SHARED = {"Happy": "joy", "Sad": "sadness", "Angry": "anger", "Surprise": "surprise"}

#: EmoTag1200's Plutchik emotions that are shared emotions (anticipation, disgust and trust are not).
PLUTCHIK_TO_SHARED = {"anger": "anger", "fear": "fear", "joy": "joy", "sadness": "sadness", "surprise": "surprise"}

#: The columns of :func:`human_ead_table`.
TABLE_COLUMNS = ["dataset", "language", "labels", "n", "ead", "ci_low", "ci_high", "floor", "permutation_p"]


# --------------------------------------------------------------------------- rows


def has_emoji(texts: Sequence[str]) -> np.ndarray:
    """Whether each text holds at least one emoji grapheme (the unit of EAD).

    An ASCII-only text holds none (emoji graphemes need a non-ASCII code
    point; :mod:`compendium.analyses.emoji` drops ASCII), so only the others
    are segmented: GoEmotions has 54,263 comments of which about 2 % qualify.
    """
    return np.array([(not t.isascii()) and bool(graphemes(t)) for t in texts], dtype=bool)


def _rows(ids, texts, labels) -> pd.DataFrame:
    frame = pd.DataFrame({"item": np.asarray(ids).astype(str), "text": list(texts), "label": list(labels)})
    return frame.reset_index(drop=True)


def select_goemotions(frame: pd.DataFrame, *, emotions: Sequence[str] = schema.SHARED_EMOTIONS) -> pd.DataFrame:
    """GoEmotions rows for human EAD: one Ekman label, a shared emotion, at least one emoji.

    Parameters
    ----------
    frame : DataFrame
        :func:`compendium.data.corpora.load_goemotions` (columns ``split, id,
        text, labels``; ``labels`` a tuple). Pass all splits to pool them.
    emotions : sequence of str
        The labels kept (default: the paper's five shared emotions).

    Returns
    -------
    DataFrame
        ``item`` (``split:id``), ``text``, ``label``, in the input's order.
    """
    labels = frame["labels"].map(tuple)
    single = (labels.map(len) == 1).to_numpy()
    label = labels.map(lambda t: t[0] if len(t) == 1 else "")
    keep = single & label.isin(list(emotions)).to_numpy(dtype=bool)
    keep[keep] = has_emoji(frame["text"].to_numpy()[keep].tolist())
    part = frame[keep]
    return _rows(part["split"].astype(str) + ":" + part["id"].astype(str), part["text"], label[keep])


def select_emomix3l(frame: pd.DataFrame, *, mapping: Mapping[str, str] = EMOMIX3L_TO_SHARED) -> pd.DataFrame:
    """EmoMix-3L rows for human EAD: a label that maps to a shared emotion, at least one emoji.

    Parameters
    ----------
    frame : DataFrame
        :func:`compendium.data.corpora.load_emomix3l` (``id, text, label``).
    mapping : mapping of str to str
        EmoMix-3L label -> shared emotion (default :data:`EMOMIX3L_TO_SHARED`;
        ``Neutral`` is not mapped, so it is dropped).

    Returns
    -------
    DataFrame
        ``item``, ``text``, ``label`` (the shared emotion).
    """
    keep = frame["label"].isin(list(mapping)).to_numpy().copy()
    keep[keep] = has_emoji(frame["text"].to_numpy()[keep].tolist())
    part = frame[keep]
    return _rows(part["id"], part["text"], part["label"].map(dict(mapping)))


def select_sentmix3l(frame: pd.DataFrame) -> pd.DataFrame:
    """SentMix-3L rows for human EAD: every row with at least one emoji, its sentiment lower-cased.

    SentMix-3L has sentiments (negative, neutral, positive), not emotions:
    its EAD is reported separately and labelled so.
    """
    keep = has_emoji(frame["text"].tolist())
    part = frame[keep]
    return _rows(part["id"], part["text"], part["label"].str.lower())


# --------------------------------------------------------------------------- EAD


def human_ead(rows: pd.DataFrame, *, seed: int, C: float = 4.0, n_splits: int = 5, n_boot: int = 2000,
              n_permutations: int = 200, ci: float = 0.95) -> dict:
    """EAD of one human corpus's emojis, with floor, bootstrap interval and permutation p.

    Parameters
    ----------
    rows : DataFrame
        ``item, text, label`` (:func:`select_goemotions` and the like).
    seed : int
        Seed of the folds, the bootstrap, the floors and the permutations.
    C, n_splits : as in :func:`compendium.analyses.ead.core.ead`
    n_boot : int
        Item-bootstrap replicates of the interval
        (:func:`compendium.analyses.ead.inference.bootstrap_ci`).
    n_permutations : int
        Label permutations of the null
        (:func:`compendium.analyses.ead.inference.permutation_null`).
    ci : float

    Returns
    -------
    dict
        ``n, k, ead, ci_low, ci_high, floor`` (majority-class macro-F1),
        ``stratified_floor``, ``null_p95``, ``permutation_p``, and ``oof``
        (the out-of-fold predictions).
    """
    return _human_ead(np.asarray(rows["text"].tolist(), dtype=str), np.asarray(rows["label"].tolist(), dtype=str),
                      np.asarray(rows["item"].tolist(), dtype=str), int(seed), float(C), int(n_splits), int(n_boot),
                      int(n_permutations), float(ci))


@cached("compendium.analyses.ead.core", "compendium.analyses.ead.inference", "compendium.stats.decoder",
        "compendium.analyses.emoji")
def _human_ead(texts, labels, items, seed, C, n_splits, n_boot, n_permutations, ci) -> dict:
    """:func:`human_ead` on arrays; a build artefact (:mod:`compendium.data.cache`) when caching is on."""
    rows = pd.DataFrame({"item": items, "text": texts, "label": labels})
    result = ead_core.ead(rows["text"], rows["label"], seed=seed, C=C, n_splits=n_splits, items=rows["item"])
    boot = ead_inference.bootstrap_ci(result.oof, n_boot=n_boot, seed=seed, ci=ci)
    floor = ead_inference.floors(rows["label"].to_numpy(), seed=seed)
    null = ead_inference.permutation_null(rows["text"], rows["label"], seed=seed, n_permutations=n_permutations,
                                          n_splits=n_splits, C=C, observed=result.macro_f1)
    return {"n": len(rows), "k": int(floor["k"]), "ead": result.macro_f1, "ci_low": float(boot["lo"]),
            "ci_high": float(boot["hi"]), "floor": float(floor["majority"]),
            "stratified_floor": float(floor["stratified"]), "null_p95": float(null["null_p95"]),
            "permutation_p": float(null["p_value"]), "oof": result.oof}


def human_ead_table(datasets: Sequence[tuple[str, str, str, pd.DataFrame]], *, seed: int, C: float = 4.0,
                    n_boot: int = 2000, n_permutations: int = 200) -> pd.DataFrame:
    """:func:`human_ead` of several corpora as one tidy table.

    Parameters
    ----------
    datasets : sequence of (dataset, language, labels, rows)
        ``labels`` describes the label set (e.g. ``"emotion: anger, joy"``).

    Returns
    -------
    DataFrame
        :data:`TABLE_COLUMNS`, one row per corpus, then ``k, stratified_floor, null_p95``.
    """
    out = []
    for dataset, language, labels, rows in datasets:
        r = human_ead(rows, seed=seed, C=C, n_boot=n_boot, n_permutations=n_permutations)
        out.append({"dataset": dataset, "language": language, "labels": labels,
                    **{k: v for k, v in r.items() if k != "oof"}})
    return pd.DataFrame(out, columns=TABLE_COLUMNS + ["k", "stratified_floor", "null_p95"])


# --------------------------------------------------------------------------- transfer


def transfer(corpora: Mapping[str, pd.DataFrame], *, seed: int, C: float = 4.0, n_splits: int = 5,
             n_boot: int = 2000) -> pd.DataFrame:
    """Train the emoji decoder on one human corpus, test it on another, over the labels they share.

    For each ordered pair (source, target) the corpora are restricted to
    their common labels; the decoder (:mod:`compendium.stats.decoder`,
    TF-IDF fitted on the source rows only) is fitted on every source row and
    predicts every target row. ``within_f1`` is the target's own
    cross-validated EAD on the same labels, with its bootstrap interval;
    ``cost = within_f1 - transfer_f1`` as in
    :func:`compendium.analyses.ead.transfer.transfer_matrix`.

    Parameters
    ----------
    corpora : mapping of str to DataFrame
        Name -> ``item, text, label`` rows.

    Returns
    -------
    DataFrame
        One row per direction: ``source, target, labels, n_train, n_test,
        transfer_f1, within_f1, within_ci_low, within_ci_high, cost,
        target_floor`` (majority class), ``token_coverage, type_coverage``.
    """
    names = list(corpora)
    rows = []
    for src in names:
        for tgt in names:
            if src == tgt:
                continue
            shared = sorted(set(corpora[src]["label"]) & set(corpora[tgt]["label"]))
            a = corpora[src][corpora[src]["label"].isin(shared)]
            b = corpora[tgt][corpora[tgt]["label"].isin(shared)]
            texts = a["text"].tolist() + b["text"].tolist()
            labels = np.concatenate([a["label"].to_numpy(dtype=object), b["label"].to_numpy(dtype=object)])
            both = decoder.design(texts, emoji_analyzer)
            train, test = np.arange(len(a)), np.arange(len(a), len(texts))
            predicted = decoder.train_test_predict(both, labels, train, test, C=C)
            score = _macro_f1(b["label"].to_numpy(dtype=str), predicted)
            within = ead_core.ead(b["text"], b["label"], seed=seed, C=C, n_splits=n_splits)
            boot = ead_inference.bootstrap_ci(within.oof, n_boot=n_boot, seed=seed)
            cov = vocabulary_coverage(a["text"], b["text"])
            rows.append({"source": src, "target": tgt, "labels": ", ".join(shared), "n_train": len(a),
                         "n_test": len(b), "transfer_f1": score, "within_f1": within.macro_f1,
                         "within_ci_low": float(boot["lo"]), "within_ci_high": float(boot["hi"]),
                         "cost": within.macro_f1 - score,
                         "target_floor": float(ead_inference.floors(b["label"].to_numpy(), seed=seed,
                                                                    n_sim=0)["majority"]),
                         "token_coverage": cov["token_coverage"], "type_coverage": cov["type_coverage"]})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- lexicon


def _strip_vs(e: str) -> str:
    return e.replace("\ufe0f", "")


def lexicon_baseline(rows: pd.DataFrame, lexicon: pd.DataFrame, *,
                     mapping: Mapping[str, str] = PLUTCHIK_TO_SHARED) -> pd.Series:
    """Untrained emoji-affect lexicon baseline: the label with the highest summed association.

    Each row's emoji graphemes are looked up in the lexicon (EmoTag1200,
    :func:`compendium.data.corpora.load_emotag`; variation selectors ignored
    on both sides); the association scores of the lexicon's emotions that
    are mapped (``mapping``) to one of the rows' labels are summed over the
    row's emojis, and the label with the highest sum is predicted (ties: the
    first in sorted order). A row without a lexicon emoji, or whose sum is
    zero for every label, gets no prediction and counts as wrong.

    Returns
    -------
    Series
        ``macro_f1`` (``sklearn.metrics.f1_score(average="macro")`` over the
        rows' labels), ``coverage`` (share of rows with a prediction),
        ``n``, ``labels`` (the label set scored).
    """
    labels = sorted(set(rows["label"]))
    columns = [e for e, s in mapping.items() if s in labels]
    if not columns:
        raise ValueError("no lexicon emotion maps to the rows' labels")
    target = [mapping[e] for e in columns]
    table = {_strip_vs(e): lexicon.loc[i, columns].to_numpy(dtype=float) for i, e in lexicon["emoji"].items()}
    order = sorted(set(target))
    predicted = []
    for text in rows["text"]:
        total = np.zeros(len(columns))
        for g in graphemes(text):
            total += table.get(_strip_vs(g), 0.0)
        per_label = np.array([total[[j for j, t in enumerate(target) if t == lab]].sum() for lab in order])
        predicted.append(order[int(np.argmax(per_label))] if per_label.max() > 0 else "(none)")
    predicted = np.array(predicted, dtype=object)
    score = f1_score(rows["label"].to_numpy(dtype=object), predicted, labels=labels, average="macro", zero_division=0)
    return pd.Series({"macro_f1": float(score), "coverage": float(np.mean(predicted != "(none)")), "n": len(rows),
                      "labels": ", ".join(labels)})


# --------------------------------------------------------------------------- verdicts


#: The paper's mean transfer cost (section 6), macro-F1; the rule's smallest cost of interest is 40 % of it.
PAPER_TRANSFER_COST = 0.252
MIN_TRANSFER_COST = 0.10

RULE_DECODABLE = Rule(
    quantity="EAD: 5-fold cross-validated macro-F1 of the affect labels from the text's emojis, with a 95% bootstrap "
             "interval over rows, against the majority-class floor",
    paper="affect is decodable from the emoji channel (EAD measures how much of it survives)",
    rule="not testable here with fewer than 50 rows; holds if the permutation p < 0.05 and the interval lies wholly "
         "above the majority-class floor; does not hold if the interval lies wholly at or below the floor; "
         "inconclusive otherwise",
    smallest_effect="any gain over the majority-class floor (the macro-F1 of always predicting the commonest label)",
)
RULE_LANGUAGE_SPECIFIC = Rule(
    quantity="macro-F1 lost when the decoder is trained on one human corpus and tested on the other (transfer cost), "
             "against the target's within-corpus EAD and its 95% interval, in both directions",
    paper=f"the emoji code is language-specific: a mean transfer cost of {PAPER_TRANSFER_COST}",
    rule="not testable here with fewer than 2 shared labels or 50 rows a side; holds if in every direction the "
         f"transfer macro-F1 lies below the within-corpus interval and the mean cost is at least {MIN_TRANSFER_COST}; "
         "does not hold if no direction falls below the interval, or every direction does but the mean cost is "
         f"below {MIN_TRANSFER_COST}; inconclusive otherwise (the directions disagree)",
    smallest_effect=f"a mean cost of {MIN_TRANSFER_COST} macro-F1, about 40 % of the paper's {PAPER_TRANSFER_COST} "
                    "(a cost that a different domain and label set could still shrink, yet not to nothing)",
)


def verdict_decodable(*, n: int, ci_low: float, ci_high: float, floor: float, permutation_p: float,
                      alpha: float = 0.05, min_n: int = 50) -> str:
    """Is affect decodable from this corpus's human emojis above chance? :data:`RULE_DECODABLE`.

    >>> verdict_decodable(n=100, ci_low=0.3, ci_high=0.5, floor=0.2, permutation_p=0.01)
    'holds'
    >>> verdict_decodable(n=100, ci_low=0.1, ci_high=0.2, floor=0.2, permutation_p=0.5)
    'does not hold'
    >>> verdict_decodable(n=100, ci_low=0.15, ci_high=0.3, floor=0.2, permutation_p=0.2)
    'inconclusive'
    """
    if n < min_n:
        return NOT_TESTABLE
    if permutation_p < alpha and ci_low > floor:
        return HOLDS
    return DOES_NOT_HOLD if ci_high <= floor else INCONCLUSIVE


def verdict_language_specific(directions: pd.DataFrame, *, min_cost: float = MIN_TRANSFER_COST, min_labels: int = 2,
                              min_n: int = 50) -> str:
    """Is the human emoji code corpus-specific? :data:`RULE_LANGUAGE_SPECIFIC`.

    ``directions`` is :func:`transfer`'s table.
    """
    if directions.empty:
        return NOT_TESTABLE
    n_labels = directions["labels"].map(lambda s: len([p for p in str(s).split(", ") if p])).min()
    if n_labels < min_labels or min(directions["n_train"].min(), directions["n_test"].min()) < min_n:
        return NOT_TESTABLE
    below = directions["transfer_f1"] < directions["within_ci_low"]
    if bool(below.all()):
        return HOLDS if directions["cost"].mean() >= min_cost else DOES_NOT_HOLD
    return DOES_NOT_HOLD if not bool(below.any()) else INCONCLUSIVE


# --------------------------------------------------------------------------- emoji against embedding

#: How far below the embedding probe the emoji channel may lie and still be "competitive" (macro-F1): the
#: largest gap the paper itself calls competitive (English, 0.613 against 0.736, section 6).
COMPETITIVE_GAP = 0.125


@cached("compendium")  # a build artefact: nbval's re-execution reads it
def emoji_vs_embedding(rows: pd.DataFrame, emoji_predicted, embeddings: Mapping[str, pd.DataFrame], *, seed: int,
                       C: float = 1.0, n_splits: int = 5, n_boot: int = 2000, ci: float = 0.95) -> pd.DataFrame:
    """The human emoji channel beside each real encoder's embedding probe, on the same items.

    Parameters
    ----------
    rows : DataFrame
        ``item, text, label`` of one corpus (:func:`select_goemotions`, :func:`select_emomix3l`).
    emoji_predicted : array-like of str
        The emoji decoder's out-of-fold prediction of each row (:func:`human_ead`'s ``oof``).
    embeddings : mapping of str to DataFrame
        Per encoder, the texts' embeddings indexed by item
        (:func:`compendium.data.encoded.load_human_embeddings`).
    seed, C, n_splits
        The embedding probe of appendix B (:func:`compendium.analyses.geometry.probe_predictions`: L2-normalised
        rows, class-balanced multinomial logistic regression, ``C = 1``, stratified 5-fold).
    n_boot, ci
        The paired item bootstrap: the same resampled items score both channels
        (:func:`compendium.analyses.ead.inference.bootstrap_indices`, seeded by ``seed``), and the interval is
        the percentile interval of the replicates' differences.

    Returns
    -------
    DataFrame
        One row per encoder: ``encoder, n, emoji_ead, embedding_f1, difference`` (emoji minus embedding) and
        ``ci_low, ci_high``.
    """
    from compendium.analyses.ead.inference import bootstrap_indices, bootstrap_macro_f1
    from compendium.analyses.geometry import probe_predictions

    labels = np.asarray(rows["label"].tolist(), dtype=str)
    emoji_predicted = np.asarray(emoji_predicted, dtype=str)
    indices = bootstrap_indices(len(labels), n_boot, seed)
    emoji_boot = bootstrap_macro_f1(labels, emoji_predicted, indices)
    emoji_point = float(bootstrap_macro_f1(labels, emoji_predicted, np.arange(len(labels))[None, :])[0])
    out = []
    for name, frame in embeddings.items():
        X = frame.loc[rows["item"].astype(str)].to_numpy()
        predicted = probe_predictions(X, labels, seed=seed, C=C, n_splits=n_splits)
        point = float(bootstrap_macro_f1(labels, predicted, np.arange(len(labels))[None, :])[0])
        diff = emoji_boot - bootstrap_macro_f1(labels, predicted, indices)
        low, high = np.quantile(diff, [(1 - ci) / 2, (1 + ci) / 2])
        out.append({"encoder": name, "n": len(labels), "emoji_ead": emoji_point, "embedding_f1": point,
                    "difference": emoji_point - point, "ci_low": float(low), "ci_high": float(high)})
    return pd.DataFrame(out)


RULE_EMOJI_VS_EMBEDDING = Rule(
    quantity="macro-F1 of the human emoji channel (EAD, emojis only) minus that of the best real encoder's embedding "
             "probe (the whole text, appendix B's probe) on the same items, with a 95 % paired item-bootstrap "
             "interval, per human corpus",
    paper="we claim only that the emoji channel is competitive at matched sample size, not that it is superior",
    rule=f"per corpus: holds if the interval's lower bound is at least -{COMPETITIVE_GAP}; does not hold if its "
         f"upper bound is below -{COMPETITIVE_GAP}; inconclusive otherwise. Over the corpora: holds if it holds on "
         "every one, does not hold if it fails on any, inconclusive otherwise",
    smallest_effect=f"{COMPETITIVE_GAP} macro-F1 below the embedding: the largest gap the paper itself calls "
                    "competitive (English, 0.613 against 0.736)",
)


def verdict_emoji_vs_embedding(intervals: Sequence[tuple[float, float]], *,
                               gap: float = COMPETITIVE_GAP) -> tuple[str, int]:
    """:data:`RULE_EMOJI_VS_EMBEDDING` over corpora: ``intervals`` of the difference (emoji minus the best
    embedding), one per corpus. Returns the verdict and the number of corpora on which it holds."""
    per = [HOLDS if low >= -gap else DOES_NOT_HOLD if high < -gap else INCONCLUSIVE for low, high in intervals]
    if not per:
        return NOT_TESTABLE, 0
    held = per.count(HOLDS)
    if DOES_NOT_HOLD in per:
        return DOES_NOT_HOLD, held
    return (HOLDS if held == len(per) else INCONCLUSIVE), held
