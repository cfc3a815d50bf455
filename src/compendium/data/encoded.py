"""NTREX-128 and the human emoji corpora embedded by each real encoder: derived data under ``data/real/encoded/``.

Embedding the 5,991 NTREX sentences (1,997 triples in English, Bangla and
Hindi, :func:`compendium.data.corpora.load_ntrex`) with multilingual-e5
takes minutes on two cores, more than a chapter's budget in a cold build. So
the vectors are derived data, like the judgement tables of
:mod:`compendium.data.derive`: ``python data/real/derive.py --embeddings``
(:func:`derive_encoded`, written by :func:`compendium.data.derive.derive`) recreates them from the
vendored text with the pinned encoders (:mod:`compendium.data.encoders`), ``data/real/MANIFEST`` pins their
SHA-256, and a test re-embeds a sample of sentences and checks them against
the stored rows.

One file per encoder, ``encoded/ntrex_<encoder>.npy``: rows in the order of
:func:`~compendium.data.corpora.load_ntrex` (English, Bangla, Hindi; sentence
0..1996 within each). The human corpora of chapter 4 (:data:`HUMAN`:
GoEmotions and EmoMix-3L) are embedded the same way, every comment that holds
an emoji by the ``emoji`` package's count (a superset of the rows chapter 4
selects, which a test checks): ``encoded/<corpus>_items.npy`` holds the
comments' ids (``split:id`` for GoEmotions, as chapter 4 names them) and
``encoded/<corpus>_<encoder>.npy`` their vectors. Every matrix is the encoder's
own output stored as float16 -- half
the size of float32, with 11 significant bits, far below what moves a cosine
by 1e-3; the analyses compute in float64. Texts are embedded in batches of
:data:`BATCH` in that order: the C engines give the same bits for the same
batches, and a different batching moves a value by about 1e-8.
"""

from __future__ import annotations

import io
import os

import numpy as np

from compendium.data.errors import DataError

__all__ = ["SUBDIR", "BATCH", "DTYPE", "HUMAN", "file_name", "embed_ntrex", "human_texts", "derive_encoded",
           "load_ntrex_embeddings", "load_human_embeddings"]

#: Folder of ``data/real/`` holding the embeddings.
SUBDIR = "encoded"
#: Texts per call of an encoder when the files are derived.
BATCH = 64
#: The stored dtype.
DTYPE = np.float16


#: The human corpora embedded for chapter 4's emoji-against-embedding comparison.
HUMAN = ("goemotions", "emomix3l")


def file_name(encoder: str, corpus: str = "ntrex") -> str:
    """The embeddings' path within ``data/real/`` (``encoded/ntrex_e5-small.npy``)."""
    return f"{SUBDIR}/{corpus}_{encoder}.npy"


def human_texts(corpus: str, real_dir: str | os.PathLike | None = None) -> tuple[np.ndarray, list[str]]:
    """The ids and texts of a human corpus's comments that hold an emoji (``emoji.emoji_count`` > 0)."""
    import emoji

    from compendium.data import corpora

    if corpus == "goemotions":
        frame = corpora.load_goemotions(real_dir=real_dir)
        ids = (frame["split"].astype(str) + ":" + frame["id"].astype(str)).to_numpy()
    elif corpus == "emomix3l":
        frame = corpora.load_emomix3l(real_dir=real_dir)
        ids = frame["id"].astype(str).to_numpy()
    else:
        raise KeyError(f"unknown corpus {corpus!r}; known: {', '.join(HUMAN)}")
    texts = frame["text"].tolist()
    keep = np.array([emoji.emoji_count(text) > 0 for text in texts], dtype=bool)
    return ids[keep].astype(str), [text for text, kept in zip(texts, keep) if kept]


def embed_ntrex(encoder: str, real_dir: str | os.PathLike | None = None, *, rows=None) -> np.ndarray:
    """Embed NTREX's sentences (all, or the row positions ``rows`` of :func:`load_ntrex`) with ``encoder``."""
    from compendium.data.corpora import load_ntrex
    from compendium.data.encoders import get_encoder

    texts = load_ntrex(real_dir=real_dir)["text"].tolist()
    if rows is not None:
        texts = [texts[i] for i in rows]
    return get_encoder(encoder).embed(texts, batch=BATCH)


def _npy(matrix: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(matrix, dtype=DTYPE), allow_pickle=False)
    return buffer.getvalue()


def derive_encoded(directory: str | os.PathLike, encoders=None, corpora=("ntrex", *HUMAN)) -> dict[str, bytes]:
    """The ``.npy`` bytes of every encoder's embeddings (:data:`compendium.data.encoders.ENCODERS`) of NTREX
    and the human corpora, and the human corpora's ids, by path."""
    from compendium.data.encoders import ENCODERS, get_encoder

    names = list(ENCODERS) if encoders is None else list(encoders)
    out = {}
    for corpus in corpora:
        if corpus == "ntrex":
            texts = None
        else:
            ids, texts = human_texts(corpus, directory)
            buffer = io.BytesIO()
            np.save(buffer, ids, allow_pickle=False)
            out[f"{SUBDIR}/{corpus}_items.npy"] = buffer.getvalue()
        for name in names:
            print(f"embedding {corpus} with {name} ...", flush=True)
            matrix = embed_ntrex(name, directory) if texts is None else get_encoder(name).embed(texts, batch=BATCH)
            out[file_name(name, corpus)] = _npy(matrix)
    return out


def load_ntrex_embeddings(encoder: str, *, real_dir: str | os.PathLike | None = None,
                          verify_checksum: bool = True) -> np.ndarray:
    """The stored NTREX embeddings of ``encoder``, float64, rows as :func:`load_ntrex`.

    Raises
    ------
    DataError
        The file is missing, changed (MANIFEST), or not a float16 matrix of 5,991 rows and the encoder's width.
    """
    from compendium.data.encoders import ENCODERS
    from compendium.data.real import real_data_dir, verify

    root = real_data_dir(real_dir)
    relative = file_name(encoder)
    if verify_checksum:
        verify(root, [relative])
    path = root / relative
    try:
        matrix = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise DataError(f"{path}: cannot be read as a NumPy array ({error}); recreate it with "
                        "`python data/real/derive.py --embeddings`", file=relative) from None
    dim = ENCODERS[encoder].dim if encoder in ENCODERS else None
    if matrix.dtype != DTYPE or matrix.ndim != 2 or (dim is not None and matrix.shape[1] != dim):
        raise DataError(f"{path}: expected a {np.dtype(DTYPE).name} matrix of width {dim}, found "
                        f"{matrix.dtype} of shape {matrix.shape}", file=relative)
    return matrix.astype(np.float64)


def load_human_embeddings(corpus: str, encoder: str, *, real_dir: str | os.PathLike | None = None,
                          verify_checksum: bool = True):
    """A human corpus's stored embeddings by ``encoder``: a float64 DataFrame indexed by the comments' ids
    (``item``, as chapter 4 names them)."""
    import pandas as pd

    from compendium.data.real import real_data_dir, verify

    root = real_data_dir(real_dir)
    items, matrix = f"{SUBDIR}/{corpus}_items.npy", file_name(encoder, corpus)
    if verify_checksum:
        verify(root, [items, matrix])
    ids = np.load(root / items, allow_pickle=False)
    vectors = np.load(root / matrix, allow_pickle=False)
    if vectors.dtype != DTYPE or vectors.shape[0] != len(ids):
        raise DataError(f"{root / matrix}: expected a {np.dtype(DTYPE).name} matrix of {len(ids)} rows, one per id "
                        f"of {items}, found {vectors.dtype} of shape {vectors.shape}", file=matrix)
    return pd.DataFrame(vectors.astype(np.float64), index=pd.Index(ids.astype(str), name="item"))
