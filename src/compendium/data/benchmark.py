"""Load the benchmark data and check it against the schema.

This module is the only place that reads the data directory. Everything else
(notebooks, analyses, the command line) calls :func:`load_benchmark` and works
on the tables it returns, so a data directory that loads is one the whole
compendium can use.

The contract
------------
A data directory holds the files of :data:`compendium.data.schema.DATA_FILES`:

========================  =====================================================
``sentences.csv``         sentence_id, language, text, labels, shared_single,
                          human_study, geometry_sample
``generations.csv``       sentence_id, system, output, attempts, prompt_tokens,
                          completion_tokens
``ratings.csv``           sentence_id, system, annotator, rating
``embeddings/index.csv``  sentence_id (row *i* of every matrix is this
                          sentence)
``embeddings/<enc>.npy``  one float matrix per encoder of
                          :data:`compendium.data.schema.ENCODERS`, ``n x dim``
``MANIFEST``              optional: ``sha256sum`` lines plus ``# key: value``
                          header comments (generator, seed, ...)
``simulation_truth.json`` optional, simulated data only: the true parameters
========================  =====================================================

The CSV files are UTF-8, comma-separated, with one header line naming exactly
the schema's columns (in any order; they are returned in schema order). The
names (systems, annotators, languages, label schemes, encoder dimensions) come
from :mod:`compendium.data.schema`. On load every rule below is checked, and the
first violation raises :class:`DataError`, whose message names the file, the
column and the first offending rows with their values:

* every needed file exists, is valid UTF-8 and is a well-formed CSV in which
  every record has as many fields as the header (a truncated file usually
  breaks this);
* the columns are exactly the schema's;
* types and ranges (checked with pandera): integers for ``attempts`` (1 to
  :data:`~compendium.data.schema.MAX_ATTEMPTS`), token counts (>= 0) and
  ``rating`` (:data:`~compendium.data.schema.RATING_MIN` to
  :data:`~compendium.data.schema.RATING_MAX`); ``True``/``False`` for the flags;
  known languages, systems and annotators; non-empty ids and labels; no
  duplicate sentence, (sentence, system) or (sentence, system, annotator);
* across columns and tables (plain pandas): labels belong to the language's
  scheme, ``shared_single`` equals "exactly one label, and it is one of the
  shared emotions"; every sentence has a generation from every system;
  ratings only for sentences flagged ``human_study``, and every such sentence
  rated by every annotator for every system (the fully crossed design);
  the embedding index lists exactly the sentences flagged
  ``geometry_sample``, once each; every matrix has one row per index entry,
  the encoder's dimension as its width, and only finite values;
* if a ``MANIFEST`` is present, every file it lists exists and matches its
  SHA-256 checksum, and every data file that is read is listed.

A real release may come without a ``MANIFEST``; it is then loaded without
checksum verification (the schema checks still apply). Loading only reads:
nothing in the data directory is created, changed or locked, so a failed load
leaves nothing half-written behind.

A build loads the same files in every chapter's kernel. With the build's
store on (``$COMPENDIUM_CACHE``), tables that passed every check are kept
there under a key of the files' bytes and the loader's code, and a later load
of the same bytes reads them back (:func:`_stored_tables`); a changed or bad
file is always parsed and checked.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compendium.data import schema
from compendium.data.benchmark_columns import (  # noqa: F401 -- public names of the loader, kept here
    ANNOTATOR_DTYPE,
    KEYS,
    LANGUAGE_DTYPE,
    SYSTEM_DTYPE,
    _validate_columns,
    column_schemas,
)
from compendium.data.cache import code_version, location
from compendium.data.errors import MAX_SHOWN, DataError, Raw, listing, row_error
from compendium.data.judgements import missing_cells
from compendium.data.paths import project_root

__all__ = [
    "ANNOTATOR_DTYPE",
    "DATA_DIR_ENV",
    "DEFAULT_DATA_DIR",
    "KEYS",
    "LANGUAGE_DTYPE",
    "MAX_SHOWN",
    "SIMULATOR",
    "SYSTEM_DTYPE",
    "Benchmark",
    "DataError",
    "column_schemas",
    "load_benchmark",
    "read_manifest",
    "resolve_data_dir",
]

#: Environment variable that points the loader at another data directory.
DATA_DIR_ENV = "COMPENDIUM_DATA_DIR"

#: The project's ``data/`` directory (the project root: see :mod:`compendium.data.paths`).
DEFAULT_DATA_DIR = project_root() / "data"

#: The ``generator`` a MANIFEST of simulated data names.
SIMULATOR = "compendium.simulate"

_EMBEDDING_FILES = frozenset(
    [schema.EMBEDDING_INDEX_FILE, *(schema.embedding_file(e) for e in schema.ENCODERS)]
)


# --- errors (compendium.data.errors) ---------------------------------------------------

_row_error = row_error
_listing = listing
_Raw = Raw


# --- locating the data ---------------------------------------------------------


def resolve_data_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Return the data directory to load.

    Parameters
    ----------
    data_dir : str or path-like, optional
        An explicit directory; it wins over everything else.

    Returns
    -------
    pathlib.Path
        ``data_dir`` if given, else the directory named by the environment
        variable ``COMPENDIUM_DATA_DIR`` if it is set and not empty, else the
        repository's ``data/`` (:data:`DEFAULT_DATA_DIR`). ``~`` is expanded
        and the path made absolute; whether it exists is not checked here.
    """
    if data_dir is None:
        data_dir = os.environ.get(DATA_DIR_ENV) or None
    if data_dir is None:
        return DEFAULT_DATA_DIR
    return Path(data_dir).expanduser().absolute()


# --- MANIFEST --------------------------------------------------------------------

_HEADER_LINE = re.compile(r"#\s*([A-Za-z0-9_.-]+)\s*:\s*(.*?)\s*")
_CHECKSUM_LINE = re.compile(r"([0-9a-fA-F]{64}) [ *](.+)")


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a ``MANIFEST`` in ``sha256sum`` format.

    Parameters
    ----------
    path : str or path-like
        The ``MANIFEST`` file, or the data directory holding it.

    Returns
    -------
    dict
        One entry per header comment of the form ``# key: value`` (values are
        strings, except ``seed``, which is an ``int`` when it is an integer),
        and ``"files"``: a dict from each listed path (relative to the data
        directory, ``./`` removed) to its lower-case SHA-256 hex digest.
        Other comment lines and blank lines are ignored.

    Raises
    ------
    DataError
        If the file is missing, is not UTF-8, or has a line that is neither a
        comment nor ``<64 hex digits>  <relative path>``, an absolute path, a
        path with ``..`` or a path listed twice.

    Examples
    --------
    >>> read_manifest("data")["files"]["ratings.csv"]  # doctest: +SKIP
    '3f1c...'
    """
    path = Path(path)
    if path.is_dir():
        path = path / schema.MANIFEST_FILE
    if not path.is_file():
        raise DataError(f"{path}: no such file.", file=schema.MANIFEST_FILE)
    text = _decode(path, schema.MANIFEST_FILE, path.read_bytes())
    manifest: dict[str, Any] = {}
    files: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if line.startswith("#"):
            match = _HEADER_LINE.fullmatch(line)
            if match and match[1] != "files":
                manifest[match[1]] = match[2]
            continue
        match = _CHECKSUM_LINE.fullmatch(line)
        relative = match[2].removeprefix("./") if match else ""
        if match is None:
            problem = "not a '<sha256>  <path>' line"
        elif relative.startswith("/") or ".." in Path(relative).parts:
            problem = "path outside the data directory"
        elif relative in files:
            problem = "file listed twice"
        else:
            files[relative] = match[1].lower()
            continue
        raise _row_error(
            path, schema.MANIFEST_FILE, None, problem, [number], [line],
            note="line numbers of the MANIFEST",
            advice="Each line must be '# key: value' or what `sha256sum` prints.",
        )
    seed = manifest.get("seed")
    if isinstance(seed, str) and re.fullmatch(r"[+-]?[0-9]+", seed):
        manifest["seed"] = int(seed)
    manifest["files"] = files
    return manifest


def _manifest_advice(manifest: dict[str, Any] | None) -> str:
    """What to do about a missing or changed file, given the directory's MANIFEST."""
    if manifest is not None and _is_simulator(manifest.get("generator")):
        return (
            "This is the simulated benchmark: run `compendium simulate` to "
            "regenerate the data directory."
        )
    if manifest is None:
        return (
            "For the shipped simulated data, run `compendium simulate`; for a real "
            "release, copy the file from the release (see data/README.md)."
        )
    return (
        "Restore the file from the release (for the shipped simulated data, run "
        "`compendium simulate`), then check the whole directory with "
        "`sha256sum -c MANIFEST` run inside it."
    )


def _is_simulator(generator: Any) -> bool:
    if not isinstance(generator, str) or not generator.split():
        return False
    return generator.split()[0] == SIMULATOR


# --- the loaded benchmark ----------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class Benchmark:
    """The benchmark tables, validated.

    Attributes
    ----------
    sentences : pandas.DataFrame
        One row per sentence: ``sentence_id`` (str), ``language``
        (categorical, :data:`LANGUAGE_DTYPE`), ``text`` (str), ``labels``
        (str, ``;``-joined), ``shared_single``, ``human_study``,
        ``geometry_sample`` (bool).
    generations : pandas.DataFrame
        One row per (sentence, system): ``sentence_id`` (str), ``system``
        (categorical, :data:`SYSTEM_DTYPE`), ``output`` (str, the raw
        response, possibly empty), ``attempts``, ``prompt_tokens``,
        ``completion_tokens`` (int64).
    ratings : pandas.DataFrame
        One row per (sentence, system, annotator): ``sentence_id`` (str),
        ``system`` (categorical), ``annotator`` (categorical,
        :data:`ANNOTATOR_DTYPE`), ``rating`` (int64).
    embeddings : dict of str to pandas.DataFrame
        Encoder name -> float32 frame indexed by ``sentence_id`` (the order of
        ``embeddings/index.csv``), one column per dimension (0-based).
        Empty if loaded with ``embeddings=False``.
    manifest : dict or None
        What :func:`read_manifest` returns, or None without a MANIFEST.
    data_dir : pathlib.Path
        The directory the data was read from.
    truth : object or None
        The parsed ``simulation_truth.json`` (simulated data only), else None.

    The tables keep the files' row order, with a fresh ``RangeIndex``.
    """

    sentences: pd.DataFrame
    generations: pd.DataFrame
    ratings: pd.DataFrame
    embeddings: dict[str, pd.DataFrame]
    manifest: dict[str, Any] | None
    data_dir: Path
    truth: Any = None

    @property
    def is_simulated(self) -> bool:
        """True if the MANIFEST names ``compendium.simulate`` as generator."""
        return self.manifest is not None and _is_simulator(self.manifest.get("generator"))

    def __repr__(self) -> str:
        encoders = ", ".join(f"{k} {v.shape[0]}x{v.shape[1]}" for k, v in self.embeddings.items())
        return (
            f"Benchmark({str(self.data_dir)!r}, simulated={self.is_simulated}, "
            f"sentences={len(self.sentences)}, generations={len(self.generations)}, "
            f"ratings={len(self.ratings)}, embeddings=[{encoders}])"
        )


# --- reading files -------------------------------------------------------------------


def _decode(path: Path, file: str, data: bytes) -> str:
    """UTF-8 text of a file (a leading byte-order mark is dropped)."""
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    try:
        return data[start:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = start + error.start
        line = data.count(b"\n", 0, offset) + 1
        bad = data[offset : start + error.end]
        cause = "Save the file as UTF-8."
        if start + error.end == len(data) and "end of data" in error.reason:
            cause = "The file ends inside a character: it is truncated."
        raise DataError(
            f"{path}: not valid UTF-8 at byte offset {offset} (line {line}): "
            f"bytes {bad!r}. {cause}",
            file=file, rows=[line], values=[bad], unit="line",
        ) from None


def _check_header(path: Path, file: str, header: list[str]) -> None:
    """The header names exactly the schema's columns (in any order)."""
    expected = schema.COLUMNS[file]
    repeated = sorted({c for c in header if header.count(c) > 1})
    missing = [c for c in expected if c not in header]
    extra = [c for c in header if c not in expected]
    if repeated or missing or extra:
        parts = [f"{label} column{'s' if len(cols) > 1 else ''} {', '.join(map(repr, cols))}"
                 for label, cols in (("missing", missing), ("unexpected", extra),
                                     ("repeated", repeated)) if cols]
        raise DataError(
            f"{path}: {'; '.join(parts)} in the header (line 1). The header must name "
            f"exactly these columns, in any order: {', '.join(expected)}.",
            file=file, column=(missing + extra + repeated)[0], rows=[1], unit="line",
        )


def _scan_csv(path: Path, file: str, text: str) -> np.ndarray:
    """Check the header and the record structure; return each record's first line."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise DataError(
                f"{path}: the file is empty; expected a header line naming the columns "
                f"{', '.join(schema.COLUMNS[file])}. Was it truncated?",
                file=file,
            )
        _check_header(path, file, header)
        starts: list[int] = []
        bad_rows: list[int] = []
        bad_counts: list[str] = []
        previous = reader.line_num
        width = len(header)
        for record in reader:
            starts.append(previous + 1)
            previous = reader.line_num
            if len(record) != width:
                bad_rows.append(starts[-1])
                bad_counts.append("blank" if not record else f"({len(record)} fields)")
    except csv.Error as error:
        raise DataError(
            f"{path}: unreadable CSV at line {reader.line_num}: {error}. The file is "
            f"truncated (e.g. it ends inside a quoted field) or malformed.",
            file=file, rows=[reader.line_num], unit="line",
        ) from None
    if bad_rows:
        raise _row_error(
            path, file, None, f"wrong number of fields (the header has {width})",
            bad_rows, [_Raw(c) for c in bad_counts],
            advice="The file is truncated, or a field holding a comma is not quoted.",
        )
    return np.asarray(starts, dtype=np.int64)


def _read_csv(path: Path, file: str, data: bytes) -> tuple[pd.DataFrame, np.ndarray]:
    """Parse one CSV into a frame of strings with the schema's columns, in order.

    Returns the frame and, for each of its rows, the file line it starts on.
    """
    text = _decode(path, file, data)
    lines = _scan_csv(path, file, text)
    expected = schema.COLUMNS[file]
    frame = pd.read_csv(
        io.StringIO(text), dtype=str, keep_default_na=False, skip_blank_lines=False,
        index_col=False,
    )
    if len(frame) != len(lines):  # the two parsers disagree: do not guess
        raise DataError(
            f"{path}: ambiguous CSV ({len(lines)} records by one reading, {len(frame)} by "
            f"another); check the quoting.", file=file,
        )
    return frame[list(expected)], lines


# --- checks across columns and tables -------------------------------------------------


def _check_labels(path: Path, frame: pd.DataFrame, lines: np.ndarray) -> None:
    """Labels in the language's scheme; shared_single consistent with them."""
    file = schema.SENTENCES_FILE
    parts = frame["labels"].str.split(schema.LABEL_SEPARATOR)
    exploded = pd.DataFrame({"label": parts.explode()})
    exploded["language"] = frame["language"].astype(str).reindex(exploded.index)
    allowed = {(lang, lab) for lang, labs in schema.LABEL_SCHEMES.items() for lab in labs}
    pairs = list(zip(exploded["language"].tolist(), exploded["label"].tolist()))
    empty = (exploded["label"] == "").to_numpy()
    unknown = np.fromiter((p not in allowed for p in pairs), bool, len(pairs)) & ~empty
    repeated = parts.map(lambda ls: len(set(ls)) != len(ls)).to_numpy()
    for mask, problem in (
        (_rows_with(exploded.index, empty, len(frame)),
         f"empty label in a '{schema.LABEL_SEPARATOR}'-joined list"),
        (_rows_with(exploded.index, unknown, len(frame)), None),
        (repeated, "a label repeated"),
    ):
        if mask.any():
            positions = np.flatnonzero(mask)
            languages = sorted(set(frame["language"].astype(str).iloc[positions]))
            if problem is None:
                problem = "label outside the language's scheme (" + "; ".join(
                    f"{lang}: {', '.join(schema.LABEL_SCHEMES[lang])}" for lang in languages) + ")"
            values = [_Raw(f"{labels!r} ({language})") for labels, language in
                      zip(frame["labels"].iloc[positions], frame["language"].astype(str).iloc[positions])]
            raise _row_error(path, file, "labels", problem, lines[positions].tolist(), values)
    single = parts.str.len() == 1
    expected = single & parts.str[0].isin(schema.SHARED_EMOTIONS)
    wrong = (frame["shared_single"] != expected).to_numpy()
    if wrong.any():
        positions = np.flatnonzero(wrong)
        values = [_Raw(f"{flag} for labels {labels!r}") for flag, labels in
                  zip(frame["shared_single"].iloc[positions], frame["labels"].iloc[positions])]
        raise _row_error(
            path, file, "shared_single",
            "shared_single must be True exactly when the labels are a single one of the "
            f"shared emotions ({', '.join(schema.SHARED_EMOTIONS)})",
            lines[positions].tolist(), values,
        )


def _rows_with(index: pd.Index, flags: np.ndarray, n: int) -> np.ndarray:
    """Rows of an exploded frame's source that have at least one flagged part."""
    mask = np.zeros(n, dtype=bool)
    mask[np.asarray(index)[flags]] = True
    return mask


def _isin(values: pd.Series, reference: pd.Series) -> np.ndarray:
    """``values.isin(reference)`` as a boolean array, by pyarrow's hash lookup: pandas' ``isin`` on
    string columns builds one pyarrow scalar per reference value (0.1 s for the 17,100 sentence ids,
    three times per load). Values pyarrow cannot type go to pandas, and so does everything where
    pyarrow is not installed (the light audit install has no pyarrow)."""
    try:
        import pyarrow
        import pyarrow.compute
    except ImportError:
        return values.isin(reference.tolist()).to_numpy()
    try:
        found = pyarrow.compute.is_in(pyarrow.array(values), value_set=pyarrow.array(reference))
    except (pyarrow.ArrowException, TypeError):
        return values.isin(reference.tolist()).to_numpy()
    return found.to_numpy(zero_copy_only=False)


def _check_known(path: Path, file: str, ids: pd.Series, lines: np.ndarray,
                 sentences: pd.DataFrame, flag: str | None = None) -> None:
    """Every id is a sentence of sentences.csv (with ``flag`` set, if given)."""
    known = _isin(ids, sentences["sentence_id"])
    if not known.all():
        positions = np.flatnonzero(~known)
        raise _row_error(path, file, "sentence_id", f"sentence not in {schema.SENTENCES_FILE}",
                         lines[positions].tolist(), ids.iloc[positions].tolist())
    if flag is not None:
        flagged = _isin(ids, sentences.loc[sentences[flag], "sentence_id"])
        if not flagged.all():
            positions = np.flatnonzero(~flagged)
            raise _row_error(
                path, file, "sentence_id",
                f"sentence not flagged {flag} in {schema.SENTENCES_FILE}",
                lines[positions].tolist(), ids.iloc[positions].tolist())


def _check_complete(path: Path, file: str, frame: pd.DataFrame, levels: dict[str, Sequence[str]],
                    what: str) -> None:
    """Every combination of ``levels`` has a row (duplicates are excluded before)."""
    expected = int(np.prod([len(v) for v in levels.values()]))
    if len(frame) == expected:
        return
    cells = missing_cells(frame, levels)
    keys = ", ".join(levels)
    raise DataError(
        f"{path}: {len(cells)} ({keys}) combination{'s' if len(cells) != 1 else ''} "
        f"{'have' if len(cells) != 1 else 'has'} no row: {_listing(None, cells, '')}. {what}",
        file=file, column=keys, values=cells,
    )


def _load_matrix(path: Path, file: str, encoder: str, data: bytes, ids: pd.Index) -> pd.DataFrame:
    """One encoder's matrix as a float32 frame indexed by sentence_id."""
    dim = schema.ENCODERS[encoder]
    try:
        matrix = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as error:
        raise DataError(f"{path}: not a readable .npy array ({error}); it may be truncated.",
                        file=file) from None
    if not isinstance(matrix, np.ndarray) or matrix.ndim != 2:
        shape = getattr(matrix, "shape", type(matrix).__name__)
        raise DataError(f"{path}: expected a 2-D matrix (sentences x {dim}), found shape {shape}.",
                        file=file)
    if matrix.dtype.kind != "f":
        raise DataError(f"{path}: dtype {matrix.dtype}; expected floating point (float32).",
                        file=file)
    if matrix.shape[0] != len(ids):
        raise DataError(
            f"{path}: {matrix.shape[0]} rows, but {schema.EMBEDDING_INDEX_FILE} lists "
            f"{len(ids)} sentence ids; row i of every matrix must embed the i-th id.",
            file=file, rows=[matrix.shape[0]], unit="row",
        )
    if matrix.shape[1] != dim:
        raise DataError(
            f"{path}: {matrix.shape[1]} columns, but encoder {encoder} has dimension {dim} "
            f"(schema.ENCODERS).", file=file,
        )
    matrix = matrix.astype(np.float32, copy=False)
    finite = np.isfinite(matrix)
    if not finite.all():
        bad_rows = np.flatnonzero(~finite.all(axis=1))
        bad_cols = np.argmax(~finite[bad_rows], axis=1)  # first non-finite column of each
        values = [_Raw(f"(sentence_id {ids[r]!r}, column {c}: {matrix[r, c]})")
                  for r, c in zip(bad_rows, bad_cols)]
        raise _row_error(
            path, file, str(bad_cols[0]), "non-finite values (NaN or infinite)",
            (bad_rows + 1).tolist(), values, unit="row",
            note=f"rows are 1-based and follow {schema.EMBEDDING_INDEX_FILE}; "
                 "columns are 0-based, as in the loaded DataFrame",
        )
    return pd.DataFrame(matrix, index=ids, copy=False)


def _validated_tables(root: Path, contents: dict[str, bytes], embeddings: bool):
    """Parse and check the CSV files (every rule of the module docstring but the matrices').

    Returns ``sentences, generations, ratings`` and the embedding index's ids (None without
    ``embeddings``).
    """

    def table(file: str) -> tuple[pd.DataFrame, np.ndarray]:
        raw, lines = _read_csv(root / file, file, contents[file])
        return _validate_columns(root / file, file, raw, lines), lines

    sentences, s_lines = table(schema.SENTENCES_FILE)
    if sentences.empty:
        raise DataError(f"{root / schema.SENTENCES_FILE}: no sentences (only a header).",
                        file=schema.SENTENCES_FILE)
    _check_labels(root / schema.SENTENCES_FILE, sentences, s_lines)

    generations, g_lines = table(schema.GENERATIONS_FILE)
    _check_known(root / schema.GENERATIONS_FILE, schema.GENERATIONS_FILE,
                 generations["sentence_id"], g_lines, sentences)
    _check_complete(
        root / schema.GENERATIONS_FILE, schema.GENERATIONS_FILE, generations,
        {"sentence_id": sentences["sentence_id"].tolist(), "system": schema.SYSTEMS},
        f"Every sentence of {schema.SENTENCES_FILE} needs one generation per system.",
    )

    ratings, r_lines = table(schema.RATINGS_FILE)
    _check_known(root / schema.RATINGS_FILE, schema.RATINGS_FILE, ratings["sentence_id"],
                 r_lines, sentences, flag="human_study")
    _check_complete(
        root / schema.RATINGS_FILE, schema.RATINGS_FILE, ratings,
        {"sentence_id": sentences.loc[sentences["human_study"], "sentence_id"].tolist(),
         "system": schema.SYSTEMS, "annotator": schema.ANNOTATORS},
        "The design is fully crossed: every sentence flagged human_study is rated by "
        "every annotator for every system.",
    )

    if embeddings:
        index_path = root / schema.EMBEDDING_INDEX_FILE
        index, i_lines = table(schema.EMBEDDING_INDEX_FILE)
        _check_known(index_path, schema.EMBEDDING_INDEX_FILE, index["sentence_id"], i_lines,
                     sentences, flag="geometry_sample")
        absent = ~sentences.loc[sentences["geometry_sample"], "sentence_id"].isin(
            index["sentence_id"].tolist())
        if absent.any():
            positions = np.flatnonzero(sentences["geometry_sample"].to_numpy())[absent.to_numpy()]
            raise _row_error(
                root / schema.SENTENCES_FILE, schema.SENTENCES_FILE, "geometry_sample",
                f"sentence flagged geometry_sample but missing from {schema.EMBEDDING_INDEX_FILE}",
                s_lines[positions].tolist(), sentences["sentence_id"].iloc[positions].tolist(),
            )
        return sentences, generations, ratings, pd.Index(index["sentence_id"], name="sentence_id")
    return sentences, generations, ratings, None


#: Format of the stored tables (:func:`_stored_tables`); a new format stores afresh.
_STORE_FORMAT = b"compendium-benchmark-tables 3"


def _stored_tables(root: Path, contents: dict[str, bytes], embeddings: bool, store: Path | None = None):
    """:func:`_validated_tables`, read back from the build's store when these exact files passed before.

    A build loads the same benchmark in every chapter's kernel, and parsing and checking its CSV files
    takes most of a second each time. With caching on (``$COMPENDIUM_CACHE``, see
    :mod:`compendium.data.cache`), the validated tables are stored under a key of the CSV files' bytes
    (SHA-256), whether the embeddings are loaded, and the source of ``compendium.data``; a later load of
    the same bytes by the same code reads them back instead. Only tables that passed every check are
    stored, so a changed file never meets a stored result: it is parsed and checked, and bad input is
    reported exactly as without the store. The matrices are not stored; they are read and checked on
    every load. A store that cannot be read or written is ignored. ``store`` names the directory in place
    of ``$COMPENDIUM_CACHE``.
    """
    where = location() if store is None else store
    if where is None:
        return _validated_tables(root, contents, embeddings)
    from compendium.data import store as _store

    hasher = hashlib.sha256(_STORE_FORMAT + b"\0" + _store.FORMAT.encode() + b"\0"
                            + code_version("compendium.data").encode()
                            + (b"\0embeddings" if embeddings else b"\0no embeddings"))
    for file in sorted(contents):
        hasher.update(b"\0" + file.encode() + b"\0" + hashlib.sha256(contents[file]).digest())
    folder = where / "benchmark" / hasher.hexdigest()
    # The tables are stored as data (Parquet, JSON: compendium.data.store), sealed with their SHA-256. They are
    # read only when the seal matches and they decode as written: a changed byte, or a file copied in from
    # another store, is parsed again from the CSV files and stored afresh, with one line on stderr naming it.
    if folder.exists():
        try:
            return _store.read(folder)
        except _store.StoreError as error:
            print(f"compendium: {folder}: the stored tables cannot be used ({error}); read again from {root}",
                  file=sys.stderr)
            shutil.rmtree(folder, ignore_errors=True)
    tables = _validated_tables(root, contents, embeddings)
    try:
        _store.write(tables, folder)
    except (OSError, _store.Unstorable):  # a store that cannot be written is no store
        pass
    return tables


# --- the loader -------------------------------------------------------------------------------


def load_benchmark(
    data_dir: str | os.PathLike[str] | None = None,
    *,
    verify_manifest: bool = True,
    embeddings: bool = True,
    store: str | os.PathLike[str] | None = None,
) -> Benchmark:
    """Load and validate a benchmark data directory.

    Parameters
    ----------
    data_dir : str or path-like, optional
        The data directory; by default ``$COMPENDIUM_DATA_DIR`` or the
        repository's ``data/`` (see :func:`resolve_data_dir`).
    verify_manifest : bool, default True
        Check the files against the SHA-256 checksums of ``MANIFEST``, if
        there is one. A directory without ``MANIFEST`` (e.g. a real release)
        is loaded without this check.
    embeddings : bool, default True
        Load ``embeddings/``. With False, the embedding files are neither
        read, validated nor checksummed, and ``Benchmark.embeddings`` is empty.
    store : str or path-like, optional
        Where to keep the validated tables for later loads of the same files
        (see the module docstring); by default ``$COMPENDIUM_CACHE``, and
        none when that is unset.

    Returns
    -------
    Benchmark
        The validated tables, the manifest and, for simulated data, the
        simulation's truth.

    Raises
    ------
    DataError
        On the first violation of the contract described in the module
        docstring: the message names the file, the column and the first
        offending rows (CSV line numbers, header = line 1) with their values.

    Notes
    -----
    Loading only reads files: it never creates, changes or deletes anything
    in ``data_dir``, so a failed load leaves no half-written state behind.
    Checksums are verified before anything is parsed, so a stale or damaged
    file is reported as such rather than as a puzzling schema error.

    Examples
    --------
    >>> bench = load_benchmark()  # doctest: +SKIP
    >>> bench.ratings.groupby("system", observed=True)["rating"].mean()  # doctest: +SKIP
    """
    root = resolve_data_dir(data_dir)
    if not root.is_dir():
        raise DataError(
            f"{root}: no such data directory. Run `compendium simulate` to write the "
            f"simulated benchmark, or point `data_dir` / --data-dir / ${DATA_DIR_ENV} at "
            f"a directory laid out as data/README.md describes.",
        )
    manifest_path = root / schema.MANIFEST_FILE
    manifest = read_manifest(manifest_path) if manifest_path.is_file() else None
    advice = _manifest_advice(manifest)

    needed = [schema.SENTENCES_FILE, schema.GENERATIONS_FILE, schema.RATINGS_FILE]
    if embeddings:
        needed += [schema.EMBEDDING_INDEX_FILE, *(schema.embedding_file(e) for e in schema.ENCODERS)]
    listed = manifest["files"] if manifest is not None and verify_manifest else {}
    if listed:
        for file in listed:
            if (embeddings or file not in _EMBEDDING_FILES) and not (root / file).is_file():
                raise DataError(f"{root / file}: listed in {manifest_path} but missing. {advice}",
                                file=file)
    for file in needed:
        if not (root / file).is_file():
            raise DataError(
                f"{root / file}: no such file; a data directory needs "
                f"{', '.join(f for f in schema.DATA_FILES)}. {advice}",
                file=file,
            )
    if manifest is not None and verify_manifest:
        unlisted = [f for f in needed if f not in listed]
        if unlisted:
            raise DataError(
                f"{manifest_path}: does not list {', '.join(unlisted)}, so "
                f"{'they' if len(unlisted) > 1 else 'it'} cannot be verified. {advice}",
                file=schema.MANIFEST_FILE, values=unlisted,
            )

    contents = {file: (root / file).read_bytes() for file in needed}
    truth_path = root / schema.SIMULATION_TRUTH_FILE
    if truth_path.is_file():
        contents[schema.SIMULATION_TRUTH_FILE] = truth_path.read_bytes()
    if listed:
        for file, digest in listed.items():
            if file in _EMBEDDING_FILES and not embeddings:
                continue
            data = contents[file] if file in contents else (root / file).read_bytes()
            found = hashlib.sha256(data).hexdigest()
            if found != digest:
                raise DataError(
                    f"{root / file}: SHA-256 {found[:12]}... does not match {digest[:12]}... "
                    f"in {manifest_path}: the file changed after the MANIFEST was written. "
                    f"{advice}",
                    file=file,
                )

    sentences, generations, ratings, ids = _stored_tables(
        root, {file: contents[file] for file in needed if file.endswith(".csv")}, embeddings,
        None if store is None else Path(store))

    matrices: dict[str, pd.DataFrame] = {}
    if embeddings:
        for encoder in schema.ENCODERS:
            file = schema.embedding_file(encoder)
            matrices[encoder] = _load_matrix(root / file, file, encoder, contents.pop(file), ids)

    truth = None
    if schema.SIMULATION_TRUTH_FILE in contents:
        text = _decode(truth_path, schema.SIMULATION_TRUTH_FILE, contents[schema.SIMULATION_TRUTH_FILE])
        try:
            truth = json.loads(text)
        except json.JSONDecodeError as error:
            raise DataError(
                f"{truth_path}: not valid JSON (line {error.lineno}: {error.msg}). {advice}",
                file=schema.SIMULATION_TRUTH_FILE, rows=[error.lineno], unit="line",
            ) from None

    return Benchmark(
        sentences=sentences,
        generations=generations,
        ratings=ratings,
        embeddings=matrices,
        manifest=manifest,
        data_dir=root,
        truth=truth,
    )
