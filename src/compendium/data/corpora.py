"""Loaders of the vendored real sources of ``data/real/``: parallel text, emoji inventories, labelled posts.

Every loader checks its files against ``data/real/MANIFEST`` (SHA-256) first,
parses them without network access, and raises :class:`~compendium.data.errors.DataError`
naming the file, the column and the rows of anything malformed. The
sources, their licences and their caveats are in ``data/real/README.md``.

================  ===========================================  =====================================
loader            source (folder)                              returns
================  ===========================================  =====================================
load_ntrex        NTREX-128 newstest2019 (``ntrex/``)          ``sentence, language, text``
load_emoji2vec    emoji2vec (``emoji2vec/emoji2vec.bin``)      (emojis, 1661 x 300 float64 array)
load_emoji_...    emoji2vec's Twitter counts                   ``emoji, count``
load_emotag       EmoTag1200 (``emotag/``)                     ``emoji, unicode, name`` + 8 emotions
load_goemotions   GoEmotions, Ekman labels (``goemotions/``)   ``split, id, text, labels``
load_emomix3l     EmoMix-3L (``emomix3l/``)                    ``id, text, label``
load_sentmix3l    SentMix-3L (``sentmix3l/``)                  ``id, text, label``
================  ===========================================  =====================================
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.data.errors import DataError, row_error
from compendium.data.real import real_data_dir, verify

__all__ = [
    "NTREX_FILES",
    "NTREX_SENTENCES",
    "EMOJI2VEC_SHAPE",
    "PLUTCHIK",
    "GOEMOTIONS_SPLITS",
    "EMOMIX3L_LABELS",
    "SENTMIX3L_LABELS",
    "THREE_L_ROWS",
    "load_ntrex",
    "load_emoji2vec",
    "load_emoji_frequencies",
    "load_emotag",
    "load_goemotions",
    "load_emomix3l",
    "load_sentmix3l",
]

#: Language code -> NTREX file (relative to ``data/real/``); line i is the same sentence in each.
NTREX_FILES = {
    "en": "ntrex/newstest2019-src.eng.txt",
    "bn": "ntrex/newstest2019-ref.ben.txt",
    "hi": "ntrex/newstest2019-ref.hin.txt",
}
#: Sentences per NTREX file.
NTREX_SENTENCES = 1997
#: (emojis, dimensions) of emoji2vec.
EMOJI2VEC_SHAPE = (1661, 300)
#: Plutchik's eight emotions, the columns of EmoTag1200.
PLUTCHIK = ("anger", "anticipation", "disgust", "fear", "joy", "sadness", "surprise", "trust")
#: GoEmotions split -> rows.
GOEMOTIONS_SPLITS = {"train": 43410, "dev": 5426, "test": 5427}
#: The label sets of the two 3L corpora.
EMOMIX3L_LABELS = ("Angry", "Happy", "Neutral", "Sad", "Surprise")
SENTMIX3L_LABELS = ("Negative", "Neutral", "Positive")
#: Rows of the two 3L corpora (their README).
THREE_L_ROWS = {"emomix3l/emo_1k.csv": 1071, "sentmix3l/sen_1k.csv": 1007}
#: The single-file sources: loader -> (file relative to ``data/real/``, the columns a table must have). Every
#: loader opens its file with :func:`_open` (checked against the MANIFEST first) and checks a table's columns
#: with :func:`_require_columns`.
SOURCES = {
    "emoji2vec": ("emoji2vec/emoji2vec.bin", ()),
    "emoji_frequencies": ("emoji2vec/frequencies_w_emoji.txt", ()),
    "emotag": ("emotag/EmoTag1200-scores.csv", ("unicode", "emoji", "name", *PLUTCHIK)),
    "emomix3l": ("emomix3l/emo_1k.csv", ("text", "label")),
    "sentmix3l": ("sentmix3l/sen_1k.csv", ("text", "label")),
    "banemo": ("banemo/BANEmo_Dataset.csv", ("Ankon", "Rizvi", "Sourov", "FinalTag")),
}


def _bytes(root: Path, relative: str, verify_checksum: bool) -> bytes:
    if verify_checksum:
        verify(root, [relative])
    path = root / relative
    if not path.is_file():
        raise DataError(f"{path}: no such file", file=relative)
    return path.read_bytes()


def _text(root: Path, relative: str, verify_checksum: bool) -> str:
    data = _bytes(root, relative, verify_checksum)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise row_error(root / relative, relative, None, "bytes that are not UTF-8", [line],
                        [data[exc.start:exc.start + 8]]) from exc


def _open(source: str, real_dir, verify_checksum: bool, *, binary: bool = False) -> tuple[Path, str, str | bytes]:
    """A source of :data:`SOURCES`: its path, its name relative to ``data/real/``, and its text (or bytes)."""
    relative = SOURCES[source][0]
    root = real_data_dir(real_dir)
    read = _bytes if binary else _text
    return root / relative, relative, read(root, relative, verify_checksum)


def _require_columns(raw: pd.DataFrame, source: str, path: Path) -> None:
    """A table of :data:`SOURCES` has every column it must have, or the error names the missing ones."""
    relative, wanted = SOURCES[source]
    missing = [c for c in wanted if c not in raw.columns]
    if missing:
        raise DataError(f"{path}: missing columns {', '.join(missing)} (found {', '.join(raw.columns)})",
                        file=relative, column=", ".join(missing))


def _lines(text: str) -> list[str]:
    """The lines of a text file (``\\n`` or ``\\r\\n``), without a final empty line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


# --------------------------------------------------------------------------- NTREX
def load_ntrex(*, real_dir: str | os.PathLike | None = None, verify_checksum: bool = True) -> pd.DataFrame:
    """NTREX-128's newstest2019 in English, Bangla and Hindi, one row per (sentence, language).

    Parameters
    ----------
    real_dir : path-like, optional
        The real-data directory (see :func:`compendium.data.real.real_data_dir`).
    verify_checksum : bool
        Check the files against the MANIFEST first.

    Returns
    -------
    pandas.DataFrame
        ``sentence`` (0-based line number, 0..1996), ``language`` (``en``,
        ``bn``, ``hi``), ``text``; sorted by language (en, bn, hi) then sentence.

    Raises
    ------
    DataError
        A changed file, files of different lengths, or empty lines.
    """
    root = real_data_dir(real_dir)
    texts = {lang: _lines(_text(root, rel, verify_checksum)) for lang, rel in NTREX_FILES.items()}
    lengths = {lang: len(lines) for lang, lines in texts.items()}
    if len(set(lengths.values())) != 1:
        raise DataError(
            f"{root / 'ntrex'}: the three NTREX files must have the same number of lines (line i is one sentence "
            f"in each language), found {', '.join(f'{NTREX_FILES[k]} {v}' for k, v in lengths.items())}",
            file=NTREX_FILES["en"])
    for lang, lines in texts.items():
        empty = [i + 1 for i, line in enumerate(lines) if not line.strip()]
        if empty:
            raise row_error(root / NTREX_FILES[lang], NTREX_FILES[lang], "text", "empty lines", empty,
                            [lines[i - 1] for i in empty], note="line numbers of the file")
    n = lengths["en"]
    return pd.DataFrame({
        "sentence": np.tile(np.arange(n, dtype=np.int64), len(texts)),
        "language": np.repeat(list(texts), n),
        "text": [line for lines in texts.values() for line in lines],
    })


# --------------------------------------------------------------------------- emoji2vec
def load_emoji2vec(*, real_dir: str | os.PathLike | None = None,
                   verify_checksum: bool = True) -> tuple[list[str], np.ndarray]:
    """emoji2vec's pre-trained vectors: 1,661 emoji x 300 dimensions.

    The file is in word2vec's binary format: a header line ``"1661 300"``,
    then per entry the UTF-8 token, a space and 300 little-endian float32.

    Parameters
    ----------
    real_dir : path-like, optional
    verify_checksum : bool

    Returns
    -------
    emojis : list of str
        In the file's order.
    vectors : numpy.ndarray
        ``float64``, shape ``(1661, 300)``; row i is ``emojis[i]``.

    Raises
    ------
    DataError
        A changed file, a bad header, a truncated entry, a token that is not
        UTF-8, a duplicate token or a non-finite value (the row is named, 1-based).
    """
    path, relative, data = _open("emoji2vec", real_dir, verify_checksum, binary=True)
    end = data.find(b"\n")
    try:
        n, dim = (int(v) for v in data[:end].decode("ascii").split())
    except ValueError:
        raise DataError(f"{path}: the first line must be '<count> <dimensions>', found {data[:40]!r}",
                        file=relative) from None
    width = 4 * dim
    emojis: list[str] = []
    vectors = np.empty((n, dim), dtype=np.float64)
    pos = end + 1
    for i in range(n):
        while data[pos:pos + 1] == b"\n":  # some writers end each vector with a newline
            pos += 1
        space = data.find(b" ", pos)
        if space < 0 or space + 1 + width > len(data):
            raise DataError(f"{path}: entry {i + 1} of {n} is truncated (the file ends at byte {len(data)})",
                            file=relative, rows=[i + 1], unit="row")
        try:
            emojis.append(data[pos:space].decode("utf-8"))
        except UnicodeDecodeError:
            raise row_error(path, relative, "token", "tokens that are not UTF-8", [i + 1], [data[pos:space]],
                            unit="row", note="entries of the file, 1-based") from None
        vectors[i] = np.frombuffer(data, dtype="<f4", count=dim, offset=space + 1)
        pos = space + 1 + width
    if data[pos:].strip(b"\n"):
        raise DataError(f"{path}: {len(data) - pos} bytes after the {n} entries the header announces",
                        file=relative)
    bad = np.flatnonzero(~np.isfinite(vectors).all(axis=1))
    if bad.size:
        raise row_error(path, relative, "vector", "non-finite values", (bad + 1).tolist(),
                        [emojis[i] for i in bad], unit="row", note="entries of the file, 1-based")
    seen: dict[str, int] = {}
    dupes = [i + 1 for i, e in enumerate(emojis) if seen.setdefault(e, i) != i]
    if dupes:
        raise row_error(path, relative, "token", "duplicate tokens", dupes, [emojis[i - 1] for i in dupes],
                        unit="row", note="entries of the file, 1-based")
    return emojis, vectors


def load_emoji_frequencies(*, real_dir: str | os.PathLike | None = None,
                           verify_checksum: bool = True) -> pd.DataFrame:
    """emoji2vec's Twitter-wide emoji usage counts (``frequencies_w_emoji.txt``).

    Parameters
    ----------
    real_dir : path-like, optional
    verify_checksum : bool

    Returns
    -------
    pandas.DataFrame
        ``emoji`` (str), ``count`` (int64), in the file's order (most used first).

    Raises
    ------
    DataError
        A changed file, a line that is not ``<emoji>\\t<count>``, or a duplicate emoji.
    """
    path, relative, text = _open("emoji_frequencies", real_dir, verify_checksum)
    lines = _lines(text)
    fields = [line.split("\t") for line in lines]
    bad = [i + 1 for i, f in enumerate(fields) if len(f) != 2 or not f[0] or not f[1].isdigit()]
    if bad:
        raise row_error(path, relative, "count", "lines that are not '<emoji>\\t<count>'", bad,
                        [lines[i - 1] for i in bad], note="line numbers of the file (no header)")
    frame = pd.DataFrame({"emoji": [f[0] for f in fields], "count": np.array([int(f[1]) for f in fields], np.int64)})
    dupes = np.flatnonzero(frame["emoji"].duplicated().to_numpy())
    if dupes.size:
        raise row_error(path, relative, "emoji", "duplicate emoji", (dupes + 1).tolist(),
                        frame["emoji"].iloc[dupes].tolist(), note="line numbers of the file (no header)")
    return frame


# --------------------------------------------------------------------------- EmoTag
def load_emotag(*, real_dir: str | os.PathLike | None = None, verify_checksum: bool = True) -> pd.DataFrame:
    """EmoTag1200: crowd-rated association of 150 emoji with Plutchik's eight emotions.

    Parameters
    ----------
    real_dir : path-like, optional
    verify_checksum : bool

    Returns
    -------
    pandas.DataFrame
        One row per emoji: ``emoji``, ``unicode`` (code points as in the file,
        e.g. ``1F308``), ``name``, then one float column per emotion of
        :data:`PLUTCHIK`, scores in [0, 1].

    Raises
    ------
    DataError
        A changed file, missing columns, a score that is not a number in
        [0, 1], or a duplicate emoji (the line is named).
    """
    path, relative, text = _open("emotag", real_dir, verify_checksum)
    raw = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    _require_columns(raw, "emotag", path)
    frame = raw[["emoji", "unicode", "name"]].copy()
    for emotion in PLUTCHIK:
        scores = pd.to_numeric(raw[emotion], errors="coerce").astype(np.float64)
        bad = np.flatnonzero(~((scores >= 0) & (scores <= 1)).to_numpy())
        if bad.size:
            raise row_error(path, relative, emotion, "scores that are not numbers in [0, 1]", (bad + 2).tolist(),
                            raw[emotion].iloc[bad].tolist())
        frame[emotion] = scores.to_numpy()
    dupes = np.flatnonzero(frame["emoji"].duplicated().to_numpy() | (frame["emoji"] == "").to_numpy())
    if dupes.size:
        raise row_error(path, relative, "emoji", "empty or duplicate emoji", (dupes + 2).tolist(),
                        frame["emoji"].iloc[dupes].tolist())
    return frame


# --------------------------------------------------------------------------- GoEmotions
def load_goemotions(split: str | None = None, *, real_dir: str | os.PathLike | None = None,
                    verify_checksum: bool = True) -> pd.DataFrame:
    """GoEmotions' Reddit comments with their labels mapped to Ekman's six emotions and neutral.

    Parameters
    ----------
    split : {"train", "dev", "test"}, optional
        One split; all three (in that order) if None.
    real_dir : path-like, optional
    verify_checksum : bool

    Returns
    -------
    pandas.DataFrame
        ``split``, ``id`` (the Reddit comment id), ``text``, ``labels`` (a
        tuple of label names from ``labels.txt``, in the file's order; a
        comment may have several).

    Raises
    ------
    ValueError
        An unknown split.
    DataError
        A changed file, a line without three tab-separated fields, or a label
        index outside ``labels.txt``.
    """
    if split is not None and split not in GOEMOTIONS_SPLITS:
        raise ValueError(f"unknown GoEmotions split {split!r}; one of {', '.join(GOEMOTIONS_SPLITS)}")
    root = real_data_dir(real_dir)
    names = _lines(_text(root, "goemotions/labels.txt", verify_checksum))
    if not names or any(not n.strip() for n in names) or len(set(names)) != len(names):
        raise DataError(f"{root / 'goemotions/labels.txt'}: expected one distinct label name per line, found {names!r}",
                        file="goemotions/labels.txt")
    frames = []
    for name in [split] if split is not None else list(GOEMOTIONS_SPLITS):
        relative = f"goemotions/{name}.tsv"
        path = root / relative
        lines = _lines(_text(root, relative, verify_checksum))
        fields = [line.split("\t") for line in lines]
        bad = [i + 1 for i, f in enumerate(fields) if len(f) != 3]
        if bad:
            raise row_error(path, relative, None, "lines without exactly three tab-separated fields "
                            "(text, labels, id)", bad, [lines[i - 1] for i in bad],
                            note="line numbers of the file (no header)")
        labels, bad = [], []
        for i, f in enumerate(fields):
            try:
                indices = [int(v) for v in f[1].split(",")]
                if any(not 0 <= k < len(names) for k in indices):
                    raise ValueError
                labels.append(tuple(names[k] for k in indices))
            except ValueError:
                bad.append(i + 1)
                labels.append(())
        if bad:
            raise row_error(path, relative, "labels", f"label indices that are not comma-separated integers "
                            f"0-{len(names) - 1}", bad, [fields[i - 1][1] for i in bad],
                            note="line numbers of the file (no header)")
        frames.append(pd.DataFrame({"split": name, "id": [f[2] for f in fields], "text": [f[0] for f in fields],
                                    "labels": labels}))
    return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------- 3L corpora
def _record_lines(text: str) -> list[int]:
    """The file line on which each data record of a CSV starts (the header is line 1)."""
    reader = csv.reader(io.StringIO(text, newline=""))
    next(reader, None)
    starts, previous = [], reader.line_num
    for _ in reader:
        starts.append(previous + 1)
        previous = reader.line_num
    return starts


def _read_records(path: Path, text: str, relative: str) -> pd.DataFrame:
    """A CSV's records as strings; quoted fields may span lines (the csv engine reads them as one record)."""
    try:
        return pd.read_csv(io.StringIO(text, newline=""), dtype=str, keep_default_na=False, engine="python")
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError(f"{path}: not a readable CSV file ({exc})", file=relative) from exc


def _three_l(source: str, labels: tuple[str, ...], real_dir, verify_checksum: bool) -> pd.DataFrame:
    path, relative, text = _open(source, real_dir, verify_checksum)
    raw = _read_records(path, text, relative)
    if list(raw.columns) != ["text", "label"]:
        raise DataError(f"{path}: expected the columns text, label; found {', '.join(map(str, raw.columns))}",
                        file=relative, column=", ".join(map(str, raw.columns)))
    expected = THREE_L_ROWS[relative]
    if len(raw) != expected:
        raise DataError(f"{path}: {len(raw)} rows, expected {expected} (as the corpus's README says); a quoted "
                        "field may be broken", file=relative)
    bad = np.flatnonzero(~raw["label"].isin(labels).to_numpy())
    if bad.size:
        starts = _record_lines(text)
        raise row_error(path, relative, "label", f"labels other than {', '.join(labels)}",
                        [starts[i] for i in bad], raw["label"].iloc[bad].tolist())
    empty = np.flatnonzero((raw["text"].str.strip() == "").to_numpy())
    if empty.size:
        starts = _record_lines(text)
        raise row_error(path, relative, "text", "empty texts", [starts[i] for i in empty],
                        raw["text"].iloc[empty].tolist())
    return pd.DataFrame({"id": np.arange(len(raw), dtype=np.int64), "text": raw["text"].to_numpy(),
                         "label": raw["label"].to_numpy()})


def load_emomix3l(*, real_dir: str | os.PathLike | None = None, verify_checksum: bool = True) -> pd.DataFrame:
    """EmoMix-3L: 1,071 code-mixed Bangla-Hindi-English posts with one emotion label each.

    Parameters
    ----------
    real_dir : path-like, optional
    verify_checksum : bool

    Returns
    -------
    pandas.DataFrame
        ``id`` (0-based record number: the file has no ids), ``text``,
        ``label`` (one of :data:`EMOMIX3L_LABELS`).

    Raises
    ------
    DataError
        A changed file, other columns, another row count, an unknown label or
        an empty text (the line on which the record starts; the header is line 1).
    """
    return _three_l("emomix3l", EMOMIX3L_LABELS, real_dir, verify_checksum)


def load_sentmix3l(*, real_dir: str | os.PathLike | None = None, verify_checksum: bool = True) -> pd.DataFrame:
    """SentMix-3L: 1,007 code-mixed Bangla-Hindi-English posts with one sentiment label each.

    Parameters
    ----------
    real_dir : path-like, optional
    verify_checksum : bool

    Returns
    -------
    pandas.DataFrame
        ``id`` (0-based record number), ``text``, ``label`` (one of
        :data:`SENTMIX3L_LABELS`).

    Raises
    ------
    DataError
        As :func:`load_emomix3l`.
    """
    return _three_l("sentmix3l", SENTMIX3L_LABELS, real_dir, verify_checksum)


# --------------------------------------------------------------------------- BANEmo (labels)
#: BANEmo (Bangla comments, 8 emotions, 3 named annotators), vendored unchanged. CC BY-NC-SA 4.0.
BANEMO_FILE = SOURCES["banemo"][0]
BANEMO_ANNOTATORS = SOURCES["banemo"][1][:3]
BANEMO_LABELS = ("Anger", "Disgust", "Fear", "Happiness", "Sadness", "Sarcasm", "Surprise", "Undefined")


def load_banemo(*, real_dir: str | os.PathLike | None = None, verify_checksum: bool = True) -> pd.DataFrame:
    """BANEmo's labels as one label per row: ``item, rater, label``, plus each item's ``final`` tag.

    14,999 Bangla comments (``item`` = the record's number, from 0), each labelled with one of
    :data:`BANEMO_LABELS` by the three annotators of :data:`BANEMO_ANNOTATORS`.

    Raises
    ------
    DataError
        A changed file, missing columns, or an empty or unknown label: the file, the column and the line
        on which the record starts are named.
    """
    path, relative, text = _open("banemo", real_dir, verify_checksum)
    raw = _read_records(path, text, relative)
    raw.columns = [str(c).strip() for c in raw.columns]
    _require_columns(raw, "banemo", path)
    for column in (*BANEMO_ANNOTATORS, "FinalTag"):
        bad = np.flatnonzero(~raw[column].str.strip().isin(BANEMO_LABELS).to_numpy())
        if bad.size:
            starts = _record_lines(text)
            raise row_error(path, BANEMO_FILE, column, f"empty labels or labels other than {', '.join(BANEMO_LABELS)}",
                            [starts[i] for i in bad], raw[column].iloc[bad].tolist())
    items = np.arange(len(raw), dtype=np.int64)
    long = pd.DataFrame({"item": np.tile(items, len(BANEMO_ANNOTATORS)),
                         "rater": np.repeat(BANEMO_ANNOTATORS, len(raw)),
                         "label": np.concatenate([raw[c].str.strip().to_numpy() for c in BANEMO_ANNOTATORS])})
    long = long.sort_values(["item", "rater"], kind="stable").reset_index(drop=True)
    long["final"] = raw["FinalTag"].str.strip().to_numpy()[long["item"].to_numpy()]
    return long
