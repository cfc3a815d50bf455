"""Read and check a table of judgements: one row per (item, system, rater) rating.

The one reader and validator of judgement tables. The audit
(:mod:`compendium.audit.core`, which re-exports the public names) reads a user's
file with it; the real-data loader (:mod:`compendium.data.real`) reads
``data/real/`` with it; and the benchmark loader (:mod:`compendium.data.benchmark`)
checks that its ratings are fully crossed with :func:`missing_cells`.

* :func:`read_judgements` and :func:`read_lengths` read a CSV (``.csv``,
  ``.tsv``, optionally gzipped), JSON Lines (``.jsonl``, ``.ndjson``, one
  object per line, optionally gzipped), a JSON list of records (``.json``;
  messages name the record, from 0) or Parquet (``.parquet``, ``.pq``)
  table and check it; :func:`read_judgements` also reads a *wide* table, one
  column per rater (``raters`` or ``rater_pattern``), as annotation tools
  export it. :func:`table_columns` lists a file's columns without its
  rows. Errors are :class:`compendium.data.errors.DataError` with the
  file, the column and the offending rows (CSV and JSON Lines: line numbers of
  the file, a CSV's header = line 1; Parquet rows from 1): missing columns, an
  empty file, an unreadable file, a line that is not a JSON object, ratings
  that are not numbers, duplicated judgements (listed), a single rater, a
  single system, a single item;
* :func:`validate_judgements` applies the same checks to a table in memory;
* :func:`check_design` lists the (item, system, rater) cells that have no
  rating (:class:`Design`).
"""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.data.errors import DataError, row_error, show_value
from compendium.data.schema import COLUMNS, RATINGS_FILE

__all__ = [
    "ITEM",
    "SYSTEM",
    "RATER",
    "RATING",
    "MAX_LISTED",
    "Design",
    "read_judgements",
    "read_lengths",
    "validate_judgements",
    "check_design",
    "missing_cells",
    # for the audit, which reads a study once and checks it here
    "IN_MEMORY",
    "Source",
    "column_roles",
    "validate_table",
    "check_lengths",
    "table_columns",
]

#: The compendium's default column names (those of the benchmark's ratings.csv).
ITEM, SYSTEM, RATER, RATING = COLUMNS[RATINGS_FILE]
#: How many offending rows or cells an error message shows.
MAX_LISTED = 10

#: The largest rating in size: squares of up to 10^9 ratings this large still sum to a finite float.
MAX_MAGNITUDE = 1e100

#: The strings read as a missing rating by default: only an empty field (``--missing`` lists others).
DEFAULT_MISSING = ("",)
_CSV_SUFFIXES = {".csv": ",", ".tsv": "\t"}
_PARQUET_SUFFIXES = {".parquet", ".pq"}
_JSONL_SUFFIXES = {".jsonl", ".ndjson"}
_JSON_SUFFIXES = {".json"}
#: A design with more cells than this is far from crossed; it is not enumerated.
_MAX_CELLS = 200_000_000


# --------------------------------------------------------------------------- sources
@dataclass(frozen=True)
class Source:
    """Where a table came from, for the messages: label and row numbering."""

    label: str
    unit: str = "row"  # "line" (CSV, header = line 1; JSON Lines), "row" (1-based) or "record" (a JSON list, from 0)
    offset: int = 1
    file: str | None = None
    lines: tuple[int, ...] | None = None  # the line of each row, where rows are not consecutive lines
    header: bool = True

    @property
    def note(self) -> str:
        if self.unit == "record":
            return "records of the JSON list, counted from 0"
        if self.unit != "line":
            return "rows counted from 1"
        return "line numbers of the file; the header is line 1" if self.header else "line numbers of the file"

    def numbers(self, positions: np.ndarray) -> list[int]:
        if self.lines is not None:
            return [self.lines[int(p)] for p in positions]
        return [int(p) + self.offset for p in positions]


#: The source of a table given in memory rather than read from a file.
IN_MEMORY = Source("the judgements")


def _more(n_total: int, n_shown: int) -> str:
    return f" and {n_total - n_shown} more" if n_total > n_shown else ""


def _row_error(
    source: Source, column: str | None, problem: str, positions: np.ndarray, values: list, advice: str = ""
) -> DataError:
    """A DataError naming the file, the column and the offending rows with their values."""
    return row_error(source.label, source.file, column, problem, source.numbers(positions), values,
                     unit=source.unit, note=source.note, advice=advice, limit=MAX_LISTED)


def column_roles(item: str, system: str, rater: str, rating: str) -> dict[str, str]:
    """The four roles and the column that plays each; a column with no name or with two roles is refused."""
    roles = {"item": item, "system": system, "rater": rater, "rating": rating}
    for role, column in roles.items():
        if not isinstance(column, str) or not column:
            raise DataError(f"the {role} column must be named by a non-empty string, got {column!r}")
    used = list(roles.values())
    if len(set(used)) != len(used):
        raise DataError(
            f"one column is given two roles: item={item!r}, system={system!r}, rater={rater!r}, rating={rating!r}"
        )
    return roles


_OPTIONS = "--item, --system, --rater, --rating"


def _missing_columns(source: Source, present: list, wanted: Mapping[str, str], what: str = "judgements",
                     options: str | None = None) -> None:
    missing = [f"{role} column {col!r}" for role, col in wanted.items() if col not in present]
    if missing:
        options = options or (_OPTIONS if what == "judgements" else "--item, --system, --length")
        raise DataError(
            f"{source.label}: no {', no '.join(missing)}; the {what} table has the columns "
            f"{[str(c) for c in present]}. Name the columns with {options}.",
            file=source.file,
            column=", ".join(col for col in wanted.values() if col not in present),
        )


# --------------------------------------------------------------------------- reading
def _format_of(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    if last in _CSV_SUFFIXES:
        return last
    if last in _PARQUET_SUFFIXES:
        return "parquet"
    if last in _JSONL_SUFFIXES:
        return "jsonl"
    if last in _JSON_SUFFIXES:
        return "json"
    raise DataError(
        f"{path}: unknown table format {path.suffix!r}; give a CSV (.csv, .tsv), JSON Lines (.jsonl, .ndjson), a "
        "JSON list of records (.json), each optionally .gz, or a Parquet (.parquet, .pq) file",
        file=str(path),
    )


def _json_text(path: Path, kind: str) -> str:
    opener = gzip.open if path.suffix.lower() == ".gz" else open
    try:
        with opener(path, "rb") as handle:
            return handle.read().decode("utf-8-sig")
    except (UnicodeDecodeError, gzip.BadGzipFile, EOFError) as error:
        raise DataError(f"{path}: cannot be decoded as UTF-8 {kind} ({error})", file=str(path)) from None


def _json_records(path: Path, what: str) -> tuple[list[dict], Source]:
    """The records of a JSON Lines file (one object per non-blank line, numbered by line) or of a JSON list of
    objects (numbered from 0, as ``record N``)."""
    if _format_of(path) == "json":
        try:
            records = json.loads(_json_text(path, "JSON"))
        except json.JSONDecodeError as error:
            raise DataError(f"{path}: not well-formed JSON ({error.msg}, line {error.lineno}, column "
                            f"{error.colno})", file=str(path)) from None
        if not isinstance(records, list):
            raise DataError(f"{path}: a JSON {type(records).__name__} where a list of records belongs; a .json "
                            "table is a list of objects, one per " + what[:-1], file=str(path))
        for number, record in enumerate(records):
            if not isinstance(record, dict):
                raise DataError(f"{path}, record {number}: a JSON {type(record).__name__} where an object belongs",
                                file=str(path), rows=[number], unit="record")
        if not records:
            raise DataError(f"{path}: the list holds no record; expected one object per {what[:-1]}", file=str(path))
        return records, Source(str(path), "record", 0, str(path))
    text = _json_text(path, "JSON Lines")
    records, lines = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise DataError(f"{path}, line {number}: not a JSON object ({error.msg}, column {error.colno}); JSON "
                            "Lines holds one object per line", file=str(path), rows=[number], unit="line") from None
        if not isinstance(record, dict):
            raise DataError(f"{path}, line {number}: a JSON {type(record).__name__} where an object belongs; JSON "
                            "Lines holds one object per line", file=str(path), rows=[number], unit="line")
        records.append(record)
        lines.append(number)
    if not records:
        raise DataError(f"{path}: the file holds no JSON object; expected one object per {what[:-1]}, one per line",
                        file=str(path))
    return records, Source(str(path), "line", 1, str(path), lines=tuple(lines), header=False)


def _read_json(path: Path, wanted: Mapping[str, str], what: str, options: str | None) -> tuple[pd.DataFrame, Source]:
    """The wanted keys of a JSON Lines file or a JSON list of records, as strings (a JSON number as Python writes
    it, null as empty), one row per record; every row keeps its line or record number for the messages."""
    records, source = _json_records(path, what)
    _missing_columns(source, list(dict.fromkeys(key for record in records for key in record)), wanted, what, options)
    numbers = source.numbers(np.arange(len(records)))
    columns = {}
    for column in wanted.values():
        values = []
        for record, number in zip(records, numbers):
            value = record.get(column)
            if value is None:
                values.append("")
            elif isinstance(value, str):
                values.append(value)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                values.append(repr(value))
            else:
                where = f"line {number}" if source.unit == "line" else f"record {number}"
                raise DataError(f"{path}, {where}, column {column!r}: a JSON {type(value).__name__} "
                                f"({show_value(value)}); give a string, a number or null", file=str(path),
                                column=column, rows=[number], values=[value], unit=source.unit)
        columns[column] = values
    return pd.DataFrame(columns, dtype=object), source


def wide_header(path: Path) -> list[str]:
    """The columns of a wide table, or a DataError saying the header cannot be read."""
    _format_of(path)  # an unknown format is refused with the formats read
    header = table_columns(path)
    if not header:
        raise DataError(f"{path}: cannot read the columns of the wide table", file=str(path))
    return header


def table_columns(path: str | os.PathLike) -> list[str]:
    """The columns of a table file of any format read here, without reading its rows (a JSON file's keys, in order
    of first appearance): what :func:`compendium.data.names.recognise` looks among."""
    path = Path(path)
    if not path.is_file():
        return []  # the reader says what is wrong with the path
    fmt = _format_of(path)
    if fmt in ("jsonl", "json"):
        if path.stat().st_size == 0:
            return []
        records, _ = _json_records(path, "records")
        return [str(k) for k in dict.fromkeys(key for record in records for key in record)]
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            return [str(c) for c in pq.read_schema(path).names]
        except Exception:  # noqa: BLE001 - the reader names the damage
            return []
    try:
        return [str(c) for c in pd.read_csv(path, sep=_CSV_SUFFIXES[fmt], nrows=0, encoding="utf-8-sig").columns]
    except (pd.errors.EmptyDataError, UnicodeDecodeError, gzip.BadGzipFile, EOFError, pd.errors.ParserError,
            ValueError):
        return []


def _read_raw(
    path: Path, wanted: Mapping[str, str], what: str, options: str | None = None
) -> tuple[pd.DataFrame, Source]:
    """The wanted columns of a CSV (as strings) or Parquet file (as stored); ``options`` names the command-line
    options that map the columns, for the message when one is missing."""
    if path.is_dir():
        raise DataError(f"{path}: is a directory; give the table's file", file=str(path))
    if path.exists() and not path.is_file():
        raise DataError(f"{path}: is not a regular file (a device or a pipe); give the table's file, a CSV or "
                        "Parquet file on disk", file=str(path))
    if not path.is_file():
        raise DataError(f"{path}: no such file", file=str(path))
    fmt = _format_of(path)
    columns = list(wanted.values())
    if fmt in ("jsonl", "json"):
        if path.stat().st_size == 0:
            raise DataError(f"{path}: the file is empty (0 bytes); expected one JSON object per {what[:-1]}",
                            file=str(path))
        return _read_json(path, wanted, what, options)
    if fmt == "parquet":
        source = Source(str(path), "row", 1, str(path))
        import pyarrow.parquet as pq

        try:
            present = list(pq.read_schema(path).names)
        except Exception as error:  # pyarrow raises several types for a damaged file
            raise DataError(
                f"{path}: cannot be read as a Parquet file ({type(error).__name__}: {error})", file=str(path)
            ) from None
        _missing_columns(source, present, wanted, what, options)
        try:
            raw = pd.read_parquet(path, columns=columns)
        except Exception as error:
            raise DataError(
                f"{path}: cannot be read as a Parquet file ({type(error).__name__}: {error})", file=str(path)
            ) from None
        return raw, source
    source = Source(str(path), "line", 2, str(path))
    if path.stat().st_size == 0:
        raise DataError(
            f"{path}: the file is empty (0 bytes); expected a header line and one row per {what[:-1]}", file=str(path)
        )
    sep = _CSV_SUFFIXES[fmt]
    try:
        header = pd.read_csv(path, sep=sep, nrows=0, encoding="utf-8-sig")
        _missing_columns(source, list(header.columns), wanted, what, options)
        raw = pd.read_csv(
            path, sep=sep, usecols=columns, dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8-sig"
        )
    except DataError:
        raise
    except pd.errors.EmptyDataError:
        raise DataError(f"{path}: the file is empty (no header line)", file=str(path)) from None
    except (UnicodeDecodeError, gzip.BadGzipFile, EOFError) as error:
        raise DataError(f"{path}: cannot be decoded as UTF-8 {fmt[1:].upper()} ({error})", file=str(path)) from None
    except (pd.errors.ParserError, ValueError) as error:
        raise DataError(f"{path}: not a well-formed {fmt[1:].upper()} file ({error})", file=str(path)) from None
    return raw[columns], source


def _blank(values: pd.Series) -> np.ndarray:
    """Missing or empty (after stripping) entries of a column."""
    missing = values.isna().to_numpy()
    if values.dtype == object or pd.api.types.is_string_dtype(values.dtype):
        text = values.astype(str).str.strip()
        missing = missing | (text.fillna("") == "").to_numpy()
    return missing


def _missing_tokens(missing) -> tuple[str, ...]:
    """The strings that mean missing, stripped, in the caller's order (an empty field always among them)."""
    tokens = [str(t).strip() for t in (DEFAULT_MISSING if missing is None else missing)]
    return tuple(dict.fromkeys(["", *tokens]))


def _numbers(values: pd.Series, column: str, source: Source, what: str = "rating", missing=None) -> pd.Series:
    """The column as numbers; NaN for a missing value; DataError for anything else.

    ``missing`` lists the strings (matched exactly after stripping spaces) that mean a missing value; by default
    only an empty field. Anything else that is not a number -- ``n/a``, ``None``, ``-nan``, ``good`` unless listed --
    is an error naming the file, the column, the lines and the values. The result's ``attrs["missing_read"]`` counts
    the entries read as missing, per string.
    """
    tokens = _missing_tokens(missing)
    if pd.api.types.is_bool_dtype(values.dtype):
        bad = np.arange(len(values))
        raise _row_error(source, column, f"{what}s must be numbers, not True/False", bad, values.tolist())
    if pd.api.types.is_numeric_dtype(values.dtype):
        out = pd.to_numeric(values)
    else:
        null = values.isna().to_numpy()
        text = values.astype(object).where(~null, "").astype(str).str.strip()
        blank = text.isin(tokens).to_numpy() | null
        # to_numeric reads "nan", "-nan" and "NaN" as NaN: they are not numbers, so only what is not blank may parse
        out = pd.to_numeric(text.where(~blank).astype(object), errors="coerce")
        bad = (out.isna().to_numpy() & ~blank)
        if bad.any():
            where = np.flatnonzero(bad)
            listed = ", ".join(repr(t) for t in tokens if t) or "none"
            raise _row_error(
                source, column, f"{what}s that are not numbers", where, values.iloc[where].tolist(),
                advice=f"Every {what} must be a number; a missing one is an empty field, or one of the strings given "
                       f"with --missing (given: {listed}), e.g. --missing NA.",
            )
        read = text[blank].value_counts()
        out.attrs["missing_read"] = {str(k): int(v) for k, v in read.items()}
    array = out.to_numpy(dtype=float, na_value=np.nan)
    infinite = np.isinf(array)
    if infinite.any():
        where = np.flatnonzero(infinite)
        raise _row_error(source, column, f"infinite {what}s", where, values.iloc[where].tolist())
    huge = np.abs(np.nan_to_num(array)) > MAX_MAGNITUDE
    if huge.any():
        where = np.flatnonzero(huge)
        raise _row_error(source, column, f"{what}s too large to compute with", where, values.iloc[where].tolist(),
                         advice=f"Every {what} must be at most {MAX_MAGNITUDE:g} in size: beyond that the sums of "
                                "squares behind every variance overflow. Rescale the column (e.g. divide by a power "
                                "of ten) and audit again.")
    if "missing_read" not in out.attrs:
        n = int(out.isna().sum())
        out.attrs["missing_read"] = {"": n} if n else {}
    return out


def _integer_like(values: pd.Series) -> bool:
    text = values.astype(str)
    if not text.str.fullmatch(r"[+-]?[0-9]{1,18}").all():
        return False
    return bool((pd.to_numeric(text).astype("int64").astype(str) == text).all())


def _first_appearance(values: pd.Series) -> pd.Categorical:
    return pd.Categorical(values, categories=pd.unique(values))


def validate_table(
    raw: pd.DataFrame, roles: Mapping[str, str], source: Source, *, convert: bool, missing=None
) -> pd.DataFrame:
    """Check a judgements table whose columns ``roles`` names, read from ``source``; with ``convert`` return it
    with typed columns. Every error names the source, the column and the rows (:class:`DataError`)."""
    _missing_columns(source, list(raw.columns), roles)
    item, system, rater, rating = (roles[k] for k in ("item", "system", "rater", "rating"))
    if len(raw) == 0:
        raise DataError(
            f"{source.label}: no judgements (the table has its columns but no rows)", file=source.file
        )
    keys = [item, system, rater]
    frame = raw
    if convert:
        frame = pd.DataFrame(
            {
                c: (
                    raw[c].astype(str).str.strip()
                    if raw[c].dtype == object or pd.api.types.is_string_dtype(raw[c].dtype)
                    else raw[c]
                )
                for c in keys
            }
        )
    for column in keys:
        blank = _blank(frame[column])
        if blank.any():
            where = np.flatnonzero(blank)
            raise _row_error(source, column, "missing values", where, raw[column].iloc[where].tolist(),
                             advice=f"Every judgement needs its {', '.join(keys)}.")
    values = _numbers(raw[rating], rating, source, missing=missing)
    if convert:
        frame[rating] = values
    duplicated = frame.duplicated(keys, keep=False).to_numpy()
    if duplicated.any():
        raise _duplicates_error(frame, keys, duplicated, source)
    if values.isna().all():
        raise DataError(f"{source.label}, column {rating!r}: no rating is a number (all {len(values)} are missing)",
                        file=source.file, column=rating)
    for role, column, why in (
        (
            "rater",
            rater,
            "agreement, the system x rater interaction and the leave-one-rater-out leaderboards are all between raters",
        ),
        (
            "system",
            system,
            "there is nothing to compare, and the system effect the audit tests needs at least two systems",
        ),
        ("item", item, "the item facet of the ANOVA and of the decision study needs at least two items"),
    ):
        levels = pd.unique(frame[column])
        if len(levels) < 2:
            raise DataError(
                f"{source.label}, column {column!r}: a single {role} ({show_value(levels[0])}) in all "
                f"{len(frame)} judgements; "
                f"the audit needs at least two {role}s: {why}.",
                file=source.file,
                column=column,
                values=[levels[0]],
            )
    if not convert:
        return raw
    out = pd.DataFrame(index=pd.RangeIndex(len(frame)))
    out[item] = (
        frame[item].astype("int64") if frame[item].dtype != "int64" and _integer_like(frame[item]) else frame[item]
    )
    for column in (system, rater):
        out[column] = (
            frame[column] if isinstance(frame[column].dtype, pd.CategoricalDtype) else _first_appearance(frame[column])
        )
    out[rating] = values.to_numpy()
    out.attrs["missing_values"] = list(_missing_tokens(missing))
    out.attrs["missing_read"] = dict(values.attrs.get("missing_read", {}))
    return out


def _duplicates_error(frame: pd.DataFrame, keys: list[str], duplicated: np.ndarray, source: Source,
                      advice: str = "Each rater rates each system's output for each item once; remove or merge "
                                    "the repeats.") -> DataError:
    where = np.flatnonzero(duplicated)
    sub = frame.iloc[where][keys].copy()
    sub["_pos"] = where
    groups = sub.groupby(keys, sort=False, observed=True)["_pos"].agg(list)
    parts = []
    for key, positions in list(groups.items())[:MAX_LISTED]:
        numbers = ", ".join(str(n) for n in source.numbers(np.asarray(positions)))
        parts.append(f"{show_value(tuple(key))} on {source.unit}s {numbers}")
    names = "(" + ", ".join(keys) + ")"
    return DataError(
        f"{source.label}: {len(groups)} duplicated judgement{'s' if len(groups) != 1 else ''} -- the same {names} "
        f"rated more than once: {'; '.join(parts)}{_more(len(groups), MAX_LISTED)} ({source.note}). {advice}",
        file=source.file, column=", ".join(keys), rows=source.numbers(where),
        values=[tuple(k) for k in groups.index], unit=source.unit if source.unit == "line" else "row",
    )


def read_judgements(
    path: str | os.PathLike,
    *,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    missing=None,
    raters=None,
    rater_pattern: str | None = None,
) -> pd.DataFrame:
    """Read and check a table of judgements, one row per rating (or, *wide*, one row per output).

    Parameters
    ----------
    path : path-like
        A CSV (``.csv``; ``.tsv`` tab-separated; either optionally ``.gz``)
        with a header line, or a Parquet file (``.parquet``, ``.pq``). Other
        columns are ignored.
    item, system, rater, rating : str
        Column names (default the compendium's ``sentence_id, system,
        annotator, rating``).
    missing : sequence of str, optional
        The strings that mean a missing rating (matched exactly, after
        stripping spaces). Default: only an empty field. Anything else that
        is not a number is an error.
    raters : sequence of str, optional
        A *wide* CSV: one row per (item, system), one column per rater, named
        here; each cell is that rater's rating (an empty cell: not rated).
        ``rater`` and ``rating`` then name the columns of the long table
        returned, and the rater is the column's name.
    rater_pattern : str, optional
        A wide CSV whose rater columns are those whose whole name matches this
        regular expression (``re.fullmatch``), in the file's order.

    Returns
    -------
    pandas.DataFrame
        The four columns: ``item`` (integers if every id is a plain integer,
        else strings), ``system`` and ``rater`` categorical in order of first
        appearance, ``rating`` numeric (NaN where missing: an empty field,
        or one of ``missing``). ``attrs["missing_values"]`` lists the strings
        that meant missing and ``attrs["missing_read"]`` counts the ratings
        read as missing, per string.

    Raises
    ------
    compendium.data.errors.DataError
        Naming the file, the column and the offending rows (CSV line numbers
        with the header as line 1; Parquet rows from 1): no such file, an
        unknown suffix, an empty file, an unreadable Parquet or CSV file,
        missing columns (listing the ones there are), missing keys, ratings
        that are not numbers, duplicated (item, system, rater) judgements
        (each listed with its lines), and a single rater, system or item.
        Missing cells are not an error here; see :func:`check_design`.

    Examples
    --------
    >>> from compendium.audit.wording import EXAMPLE
    >>> from compendium.data.judgements import read_judgements
    >>> j = read_judgements(EXAMPLE["ratings"], item="segment_id", rater="rater", rating="score")
    >>> j.shape, list(j.columns)
    ((4320, 4), ['segment_id', 'system', 'rater', 'score'])
    """
    roles = column_roles(item, system, rater, rating)
    if raters is not None or rater_pattern is not None:
        raw, source = _read_wide(Path(path), roles, raters, rater_pattern)
    else:
        raw, source = _read_raw(Path(path), roles, "judgements")
    return validate_table(raw, roles, source, convert=True, missing=missing)


def _read_wide(path: Path, roles: Mapping[str, str], raters, pattern: str | None) -> tuple[pd.DataFrame, Source]:
    """A wide table (one column per rater, any format read here) as the long table of ``roles``; each row keeps
    its line for the messages (rater r of line l is row ``l``)."""
    if raters is not None and pattern is not None:
        raise DataError("give the rater columns by name or by a pattern, not both")
    if not path.is_file():
        return _read_raw(path, roles, "judgements")  # its message: no such file, a directory, a device
    header = wide_header(path)
    if pattern is not None:
        try:
            matcher = re.compile(pattern)
        except re.error as error:
            raise DataError(f"the rater pattern {pattern!r} is not a regular expression ({error})") from None
        columns = [c for c in header if matcher.fullmatch(str(c)) and c not in (roles["item"], roles["system"])]
        if not columns:
            raise DataError(f"{path}: no column matches the rater pattern {pattern!r}; the columns are "
                            f"{[str(c) for c in header]}", file=str(path))
    else:
        columns = [str(c) for c in ([raters] if isinstance(raters, str) else raters)]
        if len(columns) != len(set(columns)) or not columns:
            raise DataError(f"the rater columns must be distinct and at least one, got {columns}")
    if len(columns) < 2:
        raise DataError(f"{path}: a single rater column ({columns[0]!r}); the audit needs at least two raters",
                        file=str(path), column=columns[0])
    keys = {"item": roles["item"], "system": roles["system"]}
    wanted = {**keys, **{f"rater {c}": c for c in columns}}
    raw, source = _read_raw(path, wanted, "judgements", options="--item, --system, --wide")
    n, k = len(raw), len(columns)
    long = pd.DataFrame({
        roles["item"]: np.repeat(raw[keys["item"]].to_numpy(dtype=object), k),
        roles["system"]: np.repeat(raw[keys["system"]].to_numpy(dtype=object), k),
        roles["rater"]: np.tile(np.asarray(columns, dtype=object), n),
        roles["rating"]: raw[columns].to_numpy(dtype=object).ravel(),
    })
    lines = tuple(int(line) for line in np.repeat(np.arange(n) + source.offset, k))
    return long, Source(source.label, "line", source.offset, source.file, lines=lines)


def read_lengths(
    path: str | os.PathLike,
    *,
    item: str = ITEM,
    system: str = SYSTEM,
    length: str = "length",
    judgements: pd.DataFrame | None = None,
    rating: str = RATING,
) -> pd.DataFrame:
    """Read and check a table of output lengths, one row per (item, system).

    Parameters
    ----------
    path : path-like
        CSV or Parquet, as :func:`read_judgements`.
    item, system, length : str
        Column names.
    judgements : pandas.DataFrame, optional
        The judgements (:func:`read_judgements`); if given, item ids are
        typed like theirs and every rated output must have a length.
    rating : str
        The rating column of ``judgements``.

    Returns
    -------
    pandas.DataFrame
        ``item, system, length`` (numeric).

    Raises
    ------
    compendium.data.errors.DataError
        Missing columns or file, non-numeric or negative or missing lengths,
        duplicated (item, system) rows, rated outputs without a length.
    """
    wanted = {"item": item, "system": system, "length": length}
    if len(set(wanted.values())) != 3:
        raise DataError(f"one column is given two roles: item={item!r}, system={system!r}, length={length!r}")
    raw, source = _read_raw(Path(path), wanted, "lengths")
    return check_lengths(raw, item, system, length, source, judgements=judgements, rating=rating)


def check_lengths(
    raw: pd.DataFrame, item: str, system: str, length: str, source: Source, *, judgements=None, rating: str = RATING
) -> pd.DataFrame:
    """Check a table of output lengths (one row per item and system) read from ``source``, against the rated
    outputs of ``judgements`` when given: each rated output needs one length."""
    _missing_columns(source, list(raw.columns), {"item": item, "system": system, "length": length}, "lengths")
    if len(raw) == 0:
        raise DataError(f"{source.label}: no lengths (the table has its columns but no rows)", file=source.file)
    out = pd.DataFrame(index=pd.RangeIndex(len(raw)))
    for column in (item, system):
        values = raw[column]
        if values.dtype == object or pd.api.types.is_string_dtype(values.dtype):
            values = values.astype(str).str.strip()
        blank = _blank(values)
        if blank.any():
            where = np.flatnonzero(blank)
            raise _row_error(source, column, "missing values", where, raw[column].iloc[where].tolist())
        out[column] = values.to_numpy()
    numbers = _numbers(raw[length], length, source, what="length")
    bad = numbers.isna().to_numpy() | (numbers.to_numpy(dtype=float, na_value=np.nan) < 0)
    if bad.any():
        where = np.flatnonzero(bad)
        raise _row_error(source, length, "missing or negative lengths", where, raw[length].iloc[where].tolist())
    out[length] = numbers.to_numpy()
    duplicated = out.duplicated([item, system], keep=False).to_numpy()
    if duplicated.any():
        raise _duplicates_error(out, [item, system], duplicated, source)
    if judgements is not None:
        j_item = judgements[item]
        if pd.api.types.is_integer_dtype(j_item.dtype) and not pd.api.types.is_integer_dtype(out[item].dtype):
            if _integer_like(out[item]):
                out[item] = out[item].astype(str).astype("int64")
        elif pd.api.types.is_string_dtype(j_item.dtype) and not pd.api.types.is_string_dtype(out[item].dtype):
            out[item] = out[item].astype(str)
        rated = judgements.loc[judgements[rating].notna(), [item, system]]
        rated = pd.DataFrame({"i": rated[item].astype(str).to_numpy(), "s": rated[system].astype(str).to_numpy()})
        have = pd.DataFrame({"i": out[item].astype(str).to_numpy(), "s": out[system].astype(str).to_numpy()})
        merged = rated.drop_duplicates().merge(have, how="left", on=["i", "s"], indicator=True)
        lacking = merged[merged["_merge"] == "left_only"]
        if len(lacking):
            cells = [tuple(r) for r in lacking[["i", "s"]].itertuples(index=False)]
            raise DataError(
                f"{source.label}: {len(cells)} rated output{'s' if len(cells) != 1 else ''} ({item}, {system}) "
                f"{'have' if len(cells) != 1 else 'has'} no length: "
                f"{', '.join(show_value(c) for c in cells[:MAX_LISTED])}"
                f"{_more(len(cells), MAX_LISTED)}. Give one length per rated output.",
                file=source.file,
                column=f"{item}, {system}",
                values=cells,
            )
    return out


# --------------------------------------------------------------------------- design
@dataclass(frozen=True)
class Design:
    """Shape of a judgements table and the cells it lacks.

    Attributes
    ----------
    n_items, n_systems, n_raters : int
        Levels present in the table.
    n_judgements : int
        Rows with a rating (a row whose rating is missing does not count).
    missing : pandas.DataFrame
        The (item, system, rater) cells with no rating, in order of first
        appearance of the levels; columns named as in the table.
    """

    n_items: int
    n_systems: int
    n_raters: int
    n_judgements: int
    missing: pd.DataFrame
    columns: tuple[str, str, str]

    @property
    def n_cells(self) -> int:
        return self.n_items * self.n_systems * self.n_raters

    @property
    def n_missing(self) -> int:
        return len(self.missing)

    @property
    def complete(self) -> bool:
        return self.n_missing == 0

    def missing_cells(self, limit: int | None = MAX_LISTED) -> list[tuple]:
        """The first ``limit`` missing cells as (item, system, rater) tuples."""
        rows = self.missing if limit is None else self.missing.head(limit)
        return [
            tuple(v.item() if isinstance(v, np.generic) else v for v in row) for row in rows.itertuples(index=False)
        ]

    def describe(self) -> str:
        """One sentence: the design, and the missing cells if any."""
        shape = (
            f"{self.n_items:,} items x {self.n_systems:,} systems x {self.n_raters:,} raters = {self.n_cells:,} cells"
        )
        if self.complete:
            return f"Fully crossed: {shape}, each rated once ({self.n_judgements:,} judgements)."
        cells = ", ".join(show_value(c) for c in self.missing_cells())
        names = "(" + ", ".join(self.columns) + ")"
        return (
            f"Not fully crossed: {shape}, of which {self.n_missing:,} have no rating: {names} = {cells}"
            f"{_more(self.n_missing, MAX_LISTED)}."
        )


def _gaps(codes: list[np.ndarray], levels: list, names: tuple, present: np.ndarray) -> pd.DataFrame:
    """Combinations of ``levels`` that no present row's ``codes`` reach, in the levels' order."""
    sizes = tuple(len(u) for u in levels)
    lin = np.ravel_multi_index(tuple(c[present].astype(np.int64) for c in codes), sizes) if sizes else np.array([], int)
    gap = np.flatnonzero(np.bincount(lin, minlength=int(np.prod(sizes))) == 0)
    where = np.unravel_index(gap, sizes)
    return pd.DataFrame({name: np.asarray(u, dtype=object)[w] for name, u, w in zip(names, levels, where)})


def missing_cells(frame: pd.DataFrame, levels: Mapping[str, list]) -> list[tuple]:
    """The combinations of ``levels`` (column -> expected values) that have no row in ``frame``.

    Rows whose keys fall outside the levels are ignored (check them
    separately). The benchmark loader uses this for its fully crossed
    ratings and its generations; :func:`check_design` for any judgements.

    >>> f = pd.DataFrame({"i": ["a", "a", "b"], "s": ["x", "y", "x"]})
    >>> missing_cells(f, {"i": ["a", "b"], "s": ["x", "y"]})
    [('b', 'y')]
    """
    codes, wanted = [], []
    for column, values in levels.items():
        values = list(values)
        lookup = pd.Index(values)
        codes.append(
            lookup.get_indexer(np.asarray(frame[column].astype(str) if lookup.dtype == object else frame[column]))
        )
        wanted.append(values)
    present = np.logical_and.reduce([c >= 0 for c in codes]) if codes else np.zeros(len(frame), bool)
    gaps = _gaps(codes, wanted, tuple(levels), present)
    return list(gaps.itertuples(index=False, name=None))


def check_design(
    judgements: pd.DataFrame,
    *,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    require_complete: bool = False,
    source: str | None = None,
) -> Design:
    """The design of a judgements table and its missing (item, system, rater) cells.

    A cell is missing when no row has it, or its rating is missing.

    Parameters
    ----------
    judgements : pandas.DataFrame
        Checked judgements (:func:`read_judgements`, or any frame with the
        columns).
    item, system, rater, rating : str
        Column names.
    require_complete : bool
        Raise :class:`~compendium.data.errors.DataError` listing the missing cells
        instead of returning them.
    source : str, optional
        What to call the table in messages (the file name).

    Returns
    -------
    Design

    Examples
    --------
    >>> import pandas as pd
    >>> from compendium.data.judgements import check_design
    >>> d = pd.DataFrame({"sentence_id": [1, 1, 1, 2, 2, 2, 2], "system": list("aabaabb"),
    ...                   "annotator": list("xyxxyxy"), "rating": [1, 2, 3, 4, 5, 1, 2]})
    >>> check_design(d).missing_cells()
    [(1, 'b', 'y')]
    """
    label = source or IN_MEMORY.label
    _missing_columns(Source(label, file=source), list(judgements.columns), column_roles(item, system, rater, rating))
    codes, levels = [], []
    for column in (item, system, rater):
        c, u = pd.factorize(judgements[column], sort=False)
        codes.append(c)
        levels.append(u)
    n_p, n_s, n_r = (len(u) for u in levels)
    n_cells = n_p * n_s * n_r
    if n_cells > _MAX_CELLS:
        raise DataError(
            f"{label}: {n_p:,} items x {n_s:,} systems x {n_r:,} raters would be {n_cells:,} cells for "
            f"{len(judgements):,} judgements: the table is far from a crossed design"
        )
    present = judgements[rating].notna().to_numpy() & (codes[0] >= 0) & (codes[1] >= 0) & (codes[2] >= 0)
    missing = _gaps(codes, levels, (item, system, rater), present)
    design = Design(n_p, n_s, n_r, int(present.sum()), missing, (item, system, rater))
    if require_complete and not design.complete:
        raise DataError(
            f"{label}: the design is not fully crossed. {design.describe()} The ANOVA, the variance components, "
            "the decision study and the leave-one-rater-out leaderboards need every rater to rate every system's "
            "output for every item.",
            file=source, column=f"{item}, {system}, {rater}", values=design.missing_cells(None),
        )
    return design


def validate_judgements(
    judgements: pd.DataFrame,
    *,
    item: str = ITEM,
    system: str = SYSTEM,
    rater: str = RATER,
    rating: str = RATING,
    source: str | None = None,
) -> pd.DataFrame:
    """Check a judgements table in memory as :func:`read_judgements` checks a file.

    Rows are numbered from 1. Returns the table unchanged.

    Raises
    ------
    compendium.data.errors.DataError
    """
    roles = column_roles(item, system, rater, rating)
    src = Source(source, file=source) if source else IN_MEMORY
    return validate_table(judgements, roles, src, convert=False)
