"""Emoji versus sentence embeddings (paper section 6): the embedding probe, the matched comparison,
the learning curve, and EAD against mean opinion scores.

Part of :mod:`compendium.analyses.ead` (which re-exports every public name).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.preprocessing import normalize
from sklearn.utils.parallel import Parallel, delayed

from compendium.stats import _workers as workers
from compendium.data import schema
from compendium.analyses.ead.core import EADResult, _cross_validate, _result, _shared_items, cell_data, ead
from compendium.data.cache import cached


# --------------------------------------------------------------------------- embeddings


def embedding_probe(
    X: pd.DataFrame | np.ndarray,
    labels,
    *,
    seed: int,
    C: float = 1.0,
    n_splits: int = 5,
    items: Sequence | None = None,
) -> EADResult:
    """The EAD protocol on sentence embeddings (paper section 6, *Matched comparison*).

    Rows are L2-normalised (a per-row operation, so doing it before the
    split leaks nothing); then the class-balanced multinomial logistic
    regression with ``C = 1`` (appendix B) under the same stratified k-fold
    CV, scored by pooled out-of-fold macro-F1. No TF-IDF.

    Parameters
    ----------
    X : DataFrame or ndarray, shape (n, dim)
        Embeddings; a DataFrame's index gives the item ids.
    labels : array-like of str
        Aligned with the rows of ``X``.
    seed, C, n_splits, items
        As in :func:`ead` (``C`` defaults to 1).

    Returns
    -------
    EADResult
    """
    if items is None and isinstance(X, pd.DataFrame):
        items = X.index.to_numpy()
    matrix = normalize(np.asarray(X, dtype=np.float64), norm="l2")
    y = np.asarray(labels.to_numpy() if isinstance(labels, pd.Series) else list(labels), dtype=object)
    items = np.arange(len(y)) if items is None else np.asarray(items)
    if not matrix.shape[0] == len(y) == len(items):
        raise ValueError("X, labels and items differ in length")
    predicted, fold = _cross_validate(lambda tr, te: (matrix[tr], matrix[te]), y, seed=seed, n_splits=n_splits, C=C)
    return _result(items, y, predicted, fold, seed=seed, n_splits=n_splits, C=C)


def _matched_items(sentences, embeddings, language, encoders) -> pd.Series:
    """Geometry-sample shared_single items of a language that every encoder embeds."""
    labels = _shared_items(sentences, language, geometry=True)
    index = labels.index
    for enc in encoders:
        index = index.intersection(embeddings[enc].index.astype(str))
    return labels.loc[index.sort_values()]


def _matched_job(language, channel, name, items, data, y, seed, n_splits, C):
    if channel == "emoji":
        res = ead(list(data), y, seed=seed, n_splits=n_splits, C=C, items=items)
    else:
        res = embedding_probe(data, y, seed=seed, C=C, n_splits=n_splits, items=items)
    return {"language": language, "channel": channel, "name": name, "n_items": len(y), "macro_f1": res.macro_f1}


@cached("compendium", ignore=("n_jobs",))  # a build artefact: nbval's re-execution reads it
def emoji_vs_embedding(
    sentences: pd.DataFrame,
    generations: pd.DataFrame,
    embeddings: Mapping[str, pd.DataFrame],
    *,
    seed: int,
    languages: Sequence[str] = schema.LANGUAGES,
    systems: Sequence[str] = schema.SYSTEMS,
    encoders: Sequence[str] = tuple(schema.ENCODERS),
    C_emoji: float = 4.0,
    C_embedding: float = 1.0,
    n_splits: int = 5,
    n_jobs: int = 2,
) -> pd.DataFrame:
    """Emoji channels and sentence encoders on identical items (paper section 6).

    The items of a language are its geometry-sample sentences that are
    ``shared_single`` (the geometry sample is stratified over each corpus's
    own labels, so this subset is smaller than the 400/401 sampled; its
    size is reported as ``n_items``). Every system is scored with
    :func:`ead` and every encoder with :func:`embedding_probe` on exactly
    these items, with the same seed and hence the same folds.

    Returns
    -------
    DataFrame
        One row per language x channel x name: ``language, channel``
        (``"emoji"`` or ``"embedding"``), ``name`` (system or encoder),
        ``n_items, macro_f1``. :func:`best_channels` takes the best of each.
    """
    jobs = []
    for lang in languages:
        labels = _matched_items(sentences, embeddings, lang, encoders)
        ids = labels.index.to_numpy()
        y = labels.to_numpy(dtype=object)
        for system in systems:
            cell = cell_data(sentences, generations, language=lang, system=system)
            jobs.append(delayed(_matched_job)(lang, "emoji", system, ids, cell.loc[ids, "output"].to_numpy(), y,
                                              seed, n_splits, C_emoji))
        for enc in encoders:
            emb = embeddings[enc]
            emb = emb.set_axis(emb.index.astype(str), axis=0)
            jobs.append(delayed(_matched_job)(lang, "embedding", enc, ids, emb.loc[ids].to_numpy(), y,
                                              seed, n_splits, C_embedding))
    return pd.DataFrame(Parallel(n_jobs=n_jobs, **workers.options())(jobs))


def best_channels(table: pd.DataFrame) -> pd.DataFrame:
    """Best emoji channel and best encoder per language of :func:`emoji_vs_embedding`.

    Returns
    -------
    DataFrame
        Indexed by ``language``: ``n_items, emoji_best, emoji_system,
        embedding_best, embedding_encoder``.
    """
    rows = []
    for lang, part in table.groupby("language", sort=False):
        emo = part[part["channel"] == "emoji"].sort_values("macro_f1", ascending=False, kind="stable").iloc[0]
        emb = part[part["channel"] == "embedding"].sort_values("macro_f1", ascending=False, kind="stable").iloc[0]
        rows.append({"language": lang, "n_items": int(part["n_items"].iloc[0]),
                     "emoji_best": emo["macro_f1"], "emoji_system": emo["name"],
                     "embedding_best": emb["macro_f1"], "embedding_encoder": emb["name"]})
    return pd.DataFrame(rows).set_index("language")


def _subsample(y: np.ndarray, size: int, seed: int) -> np.ndarray:
    """Sorted positions of a stratified random subsample of ``size`` items.

    Each class gets ``size * share`` items rounded by largest remainder (ties
    to the earlier class in sorted order), drawn without replacement with
    ``numpy.random.default_rng(seed)``. Unlike ``train_test_split`` this
    works when ``size`` is within a few items of ``len(y)``.
    """
    n = len(y)
    if size >= n:
        return np.arange(n)
    classes, codes = np.unique(np.asarray(y, dtype=str), return_inverse=True)
    counts = np.bincount(codes, minlength=len(classes))
    quota = counts * size / n
    take = np.floor(quota).astype(int)
    extra = size - take.sum()
    order = np.argsort(-(quota - take), kind="stable")
    take[order[:extra]] += 1
    rng = np.random.default_rng(seed)
    parts = [rng.choice(np.flatnonzero(codes == c), take[c], replace=False) for c in range(len(classes))]
    return np.sort(np.concatenate(parts))


@cached("compendium")  # a build artefact: nbval's re-execution reads it
def learning_curve(
    sentences: pd.DataFrame,
    generations: pd.DataFrame,
    embeddings: Mapping[str, pd.DataFrame],
    *,
    language: str,
    system: str,
    encoder: str,
    seed: int,
    sizes: Sequence[int] = (100, 200, 400),
    n_repeats: int = 5,
    C_emoji: float = 4.0,
    C_embedding: float = 1.0,
    n_splits: int = 5,
) -> pd.DataFrame:
    """Macro-F1 against training-set size, emoji channel vs embedding (paper section 6).

    For each size ``n`` and repeat, a stratified random subsample of ``n``
    items is drawn (seeded by ``(seed, n, repeat)``) and the probe is
    cross-validated *inside* it (so ``n`` counts train + test items). The
    emoji channel subsamples all shared_single items of the language; the
    embedding can only subsample its geometry-sample shared_single items,
    the only embedded ones. Each channel also gets its full pool as one
    deterministic point (``repeat = 0``): for the emoji channel that is the
    full EAD (paper: 0.657 at n = 4,206 in Bangla), for the embedding the
    matched set of :func:`emoji_vs_embedding`. Sizes at or above a
    channel's pool are not subsampled.

    Returns
    -------
    DataFrame
        ``channel, name, size, pool, repeat, macro_f1``; average over
        ``repeat`` per ``channel, size`` for the curve.
    """
    pools = {
        "emoji": (system, _shared_items(sentences, language)),
        "embedding": (encoder, _matched_items(sentences, embeddings, language, [encoder])),
    }
    cell = cell_data(sentences, generations, language=language, system=system)
    emb = embeddings[encoder].set_axis(embeddings[encoder].index.astype(str), axis=0)
    rows = []
    for channel, (name, labels) in pools.items():
        ids = labels.index.to_numpy()
        y = labels.to_numpy(dtype=object)
        if channel == "emoji":
            ids = ids[np.isin(ids, cell.index.to_numpy())]
            y = labels.loc[ids].to_numpy(dtype=object)
            data = cell.loc[ids, "output"].to_numpy(dtype=object)
        else:
            data = emb.loc[ids].to_numpy()

        def score(pos):
            if channel == "emoji":
                return ead(list(data[pos]), y[pos], seed=seed, n_splits=n_splits, C=C_emoji).macro_f1
            return embedding_probe(data[pos], y[pos], seed=seed, C=C_embedding, n_splits=n_splits).macro_f1

        pool = len(y)
        for size in sorted(set(int(s) for s in sizes)):
            if size >= pool:
                continue
            for r in range(n_repeats):
                sub_seed = int(np.random.SeedSequence([seed, size, r]).generate_state(1)[0])
                rows.append((channel, name, size, pool, r, score(_subsample(y, size, sub_seed))))
        rows.append((channel, name, pool, pool, 0, score(np.arange(pool))))
    return pd.DataFrame(rows, columns=["channel", "name", "size", "pool", "repeat", "macro_f1"])


# --------------------------------------------------------------------------- MOS


def ead_mos_correlation(ead_by_system: pd.Series | pd.DataFrame, ratings: pd.DataFrame, *,
                        language: str = "bn") -> pd.DataFrame:
    """Spearman correlation between EAD and mean opinion score over systems (paper section 6).

    Parameters
    ----------
    ead_by_system : Series or DataFrame
        EAD per system: a Series indexed by system, or a table with columns
        ``system, macro_f1`` (and ``language``: only ``language`` rows are
        used), e.g. :func:`ead_table`.
    ratings : DataFrame
        Columns ``system, annotator, rating`` (the Bangla human study).
    language : str, default "bn"
        The language of the human study.

    Returns
    -------
    DataFrame
        One row for all annotators together (``rater = "all"``: MOS = mean
        of every rating of the system) and one per annotator (MOS = that
        annotator's mean): ``rater, rho, pvalue, n_systems``. The paper
        reports -0.19 overall and +0.07, +0.76, -0.40 per annotator.
    """
    if isinstance(ead_by_system, pd.DataFrame):
        frame = ead_by_system
        if "language" in frame.columns:
            frame = frame[frame["language"].astype(str) == language]
        ead_by_system = pd.Series(frame["macro_f1"].to_numpy(), index=frame["system"].astype(str).to_numpy())
    ead_by_system = ead_by_system.set_axis(ead_by_system.index.astype(str))
    r = ratings.assign(system=ratings["system"].astype(str), annotator=ratings["annotator"].astype(str))
    mos = {"all": r.groupby("system")["rating"].mean()}
    for annotator, part in r.groupby("annotator", sort=True):
        mos[annotator] = part.groupby("system")["rating"].mean()
    rows = []
    for rater, m in mos.items():
        common = ead_by_system.index.intersection(m.index)
        rho, p = stats.spearmanr(ead_by_system.loc[common].to_numpy(), m.loc[common].to_numpy())
        rows.append({"rater": rater, "rho": float(rho), "pvalue": float(p), "n_systems": len(common)})
    return pd.DataFrame(rows)
