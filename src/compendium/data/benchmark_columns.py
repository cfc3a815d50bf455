"""The column checks of the simulated benchmark's CSV files: each column's kind, converted and checked by pandera.

Part of the loader (:mod:`compendium.data.benchmark`, which re-exports :func:`column_schemas` and the name
columns' dtypes): each file's columns have a kind (:class:`_Kind`: an id, a name from the schema, an integer in a
range, a flag, text), the raw strings are converted to it (:func:`_convert`), and pandera checks the result
(:func:`_validate_columns`), the first failing column becoming one :class:`~compendium.data.errors.DataError`
that names the file, the column and the lines (:func:`_first_failure`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from compendium.data import schema
from compendium.data.errors import MAX_SHOWN, DataError, row_error

__all__ = ["LANGUAGE_DTYPE", "SYSTEM_DTYPE", "ANNOTATOR_DTYPE", "KEYS", "column_schemas"]

_row_error = row_error

#: Categorical dtypes of the name columns, with the schema's category order.
LANGUAGE_DTYPE = pd.CategoricalDtype(list(schema.LANGUAGES))
SYSTEM_DTYPE = pd.CategoricalDtype(list(schema.SYSTEMS))
ANNOTATOR_DTYPE = pd.CategoricalDtype(list(schema.ANNOTATORS))


_BOOL_WORDS = {"True": True, "False": False, "true": True, "false": False,
               "TRUE": True, "FALSE": False, "1": True, "0": False}
_INTEGER = r"[+-]?[0-9]{1,18}"


# --- column checks (pandera) --------------------------------------------------------


@dataclass(frozen=True)
class _Kind:
    """How one column is typed and checked.

    A check is written ``(name, arguments, error)`` and becomes ``pandera.Check.<name>(**arguments,
    error=error)`` in :func:`column_schemas`: pandera is imported only when a file is validated, not
    when a build's kernel reads a benchmark it has validated before (see :func:`_stored_tables`).
    """

    dtype: str  # dtype during validation: "str", "Int64" or "boolean"
    checks: tuple[tuple[str, dict, str], ...] = ()
    type_error: str = ""  # problem text when a value cannot be converted
    final: Any = None  # dtype of the returned column


def _ident() -> _Kind:
    return _Kind("str", (("str_length", {"min_value": 1}, "empty id"),))


def _names(what: str, allowed: Sequence[str], final: pd.CategoricalDtype) -> _Kind:
    error = f"unknown {what} (allowed: {', '.join(allowed)})"
    return _Kind("str", (("isin", {"allowed_values": list(allowed)}, error),), final=final)


def _integer(lo: int | None, hi: int | None) -> _Kind:
    if hi is None:
        check = ("ge", {"min_value": lo}, f"negative value (must be >= {lo})")
    else:
        check = ("in_range", {"min_value": lo, "max_value": hi}, f"value outside {lo}-{hi}")
    return _Kind("Int64", (check,), "not an integer", final="int64")


_TEXT = _Kind("str")
_FLAG = _Kind("boolean", type_error="not a boolean (True or False)", final=bool)

_KINDS: dict[str, dict[str, _Kind]] = {
    schema.SENTENCES_FILE: {
        "sentence_id": _ident(),
        "language": _names("language", schema.LANGUAGES, LANGUAGE_DTYPE),
        "text": _TEXT,
        "labels": _Kind("str", (("str_length", {"min_value": 1}, "empty labels"),)),
        "shared_single": _FLAG,
        "human_study": _FLAG,
        "geometry_sample": _FLAG,
    },
    schema.GENERATIONS_FILE: {
        "sentence_id": _ident(),
        "system": _names("system", schema.SYSTEMS, SYSTEM_DTYPE),
        "output": _TEXT,
        "attempts": _integer(1, schema.MAX_ATTEMPTS),
        "prompt_tokens": _integer(0, None),
        "completion_tokens": _integer(0, None),
    },
    schema.RATINGS_FILE: {
        "sentence_id": _ident(),
        "system": _names("system", schema.SYSTEMS, SYSTEM_DTYPE),
        "annotator": _names("annotator", schema.ANNOTATORS, ANNOTATOR_DTYPE),
        "rating": _integer(schema.RATING_MIN, schema.RATING_MAX),
    },
    schema.EMBEDDING_INDEX_FILE: {"sentence_id": _ident()},
}

#: The columns that identify a row of each table.
KEYS: dict[str, tuple[str, ...]] = {
    schema.SENTENCES_FILE: ("sentence_id",),
    schema.GENERATIONS_FILE: ("sentence_id", "system"),
    schema.RATINGS_FILE: ("sentence_id", "system", "annotator"),
    schema.EMBEDDING_INDEX_FILE: ("sentence_id",),
}


@functools.cache
def column_schemas() -> dict:
    """The pandera schema of each CSV file, as validated after type conversion.

    Integers are checked as nullable ``Int64`` and flags as nullable
    ``boolean``: a value that does not convert becomes missing and fails
    ``nullable=False``.

    Returns
    -------
    dict of str to pandera.DataFrameSchema
        Keyed by file name (:data:`compendium.data.schema.DATA_FILES`).
    """
    import pandera.pandas as pa

    return {
        file: pa.DataFrameSchema(
            {name: pa.Column(kind.dtype, [getattr(pa.Check, check)(**arguments, error=error)
                                          for check, arguments, error in kind.checks], nullable=False)
             for name, kind in kinds.items()},
            unique=list(KEYS[file]),
            strict=True,
            ordered=True,
            name=file,
        )
        for file, kinds in _KINDS.items()
    }


def _convert(raw: pd.DataFrame, file: str) -> pd.DataFrame:
    """Typed copy of a frame of strings; unconvertible values become missing."""
    typed = {}
    for name, kind in _KINDS[file].items():
        column = raw[name]
        if kind.dtype == "Int64":
            typed[name] = column.where(column.str.fullmatch(_INTEGER)).astype("Int64")
        elif kind.dtype == "boolean":
            typed[name] = column.map(_BOOL_WORDS).astype("boolean")
        else:
            typed[name] = column
    return pd.DataFrame(typed)


def _validate_columns(path: Path, file: str, raw: pd.DataFrame, lines: np.ndarray) -> pd.DataFrame:
    """Check types and ranges with pandera; return the frame with final dtypes."""
    from pandera.errors import SchemaErrors

    typed = _convert(raw, file)
    try:
        column_schemas()[file].validate(typed, lazy=True)
    except SchemaErrors as errors:
        raise _first_failure(path, file, raw, lines, errors.failure_cases) from None
    out = {}
    for name, kind in _KINDS[file].items():
        out[name] = typed[name] if kind.final is None else typed[name].astype(kind.final)
    return pd.DataFrame(out)


def _first_failure(path: Path, file: str, raw: pd.DataFrame, lines: np.ndarray,
                   cases: pd.DataFrame) -> DataError:
    """Turn pandera's failure cases into one error: the first column that fails."""
    cases = cases[cases["index"].notna()]
    keys = list(KEYS[file])
    unique = cases["check"].astype(str).str.endswith("uniqueness")
    for name, kind in _KINDS[file].items():
        mine = cases[(cases["column"] == name) & ~unique]
        if mine.empty:
            continue
        nulls = mine["check"] == "not_nullable"
        first = mine[nulls] if nulls.any() else mine[mine["check"] == mine["check"].iloc[0]]
        problem = kind.type_error if nulls.any() else str(first["check"].iloc[0])
        positions = np.unique(first["index"].astype(np.int64).to_numpy())
        return _row_error(path, file, name, problem, lines[positions].tolist(),
                          raw[name].iloc[positions].tolist())
    if unique.any():
        positions = np.unique(cases.loc[unique, "index"].astype(np.int64).to_numpy())
        values = list(raw[keys].iloc[positions].itertuples(index=False, name=None))
        values = [v[0] if len(keys) == 1 else v for v in values]
        label = keys[0] if len(keys) == 1 else "(" + ", ".join(keys) + ")"
        return _row_error(path, file, ", ".join(keys), f"duplicate {label}",
                          lines[positions].tolist(), values,
                          advice="Each must appear once.")
    return DataError(f"{path}: failed validation:\n{cases.head(MAX_SHOWN).to_string()}", file=file)
