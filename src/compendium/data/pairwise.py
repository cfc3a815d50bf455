"""Read and check pairwise preference tables and categorical label tables.

The readers behind ``compendium audit --pairwise FILE`` and ``compendium audit --labels FILE``; a rated
table is :mod:`compendium.data.judgements`'s. Both read any format it reads (CSV, JSON Lines, a JSON list of
records, Parquet), long or *wide* (one column per rater), take their column names as options, and raise
:class:`compendium.data.errors.DataError` naming the file, the column, the lines (CSV, header = line 1; Parquet
rows from 1; JSON records from 0) and the values. :func:`read_pairwise` also maps a file's winner codes
(``codes``, :func:`parse_codes`) and splits a column naming both systems (``pair``):

* :func:`read_pairwise` -- one judgement per row, ``item, system_a, system_b, rater, winner`` with
  ``winner`` one of ``a``, ``b``, ``tie`` (any case). Refused: missing keys, an unknown winner code, a
  system compared with itself, the same rater judging the same pair of systems on the same item twice
  (in either order), a rater with one judgement, fewer than two raters or systems;
* :func:`read_labels` -- one label per row, ``item, rater, label`` (nominal). Refused: missing keys, an
  empty label, the same rater labelling an item twice, a rater with one label, fewer than two raters;
* :func:`validate_pairwise` and :func:`validate_labels` apply the same checks to a table in memory.

Other columns are ignored. Text is stripped of surrounding spaces and kept as text.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.data.errors import DataError, show_value
from compendium.data.judgements import (
    _blank,
    _duplicates_error,
    _missing_columns,
    _read_raw,
    _row_error,
    IN_MEMORY,
    Source,
)

__all__ = ["PAIRWISE", "LABELS", "WINNER_CODES", "read_pairwise", "read_labels", "validate_pairwise",
           "validate_labels", "parse_codes"]

#: Default column names (role -> column) of a pairwise table.
PAIRWISE = {"item": "item", "system_a": "system_a", "system_b": "system_b", "rater": "rater", "winner": "winner"}
#: Default column names (role -> column) of a label table.
LABELS = {"item": "item", "rater": "rater", "label": "label"}
#: The accepted winner codes, after stripping and lower-casing.
WINNER_CODES = ("a", "b", "tie")
_PAIRWISE_OPTIONS = "--item, --system-a, --system-b, --rater, --winner"
_LABEL_OPTIONS = "--item, --rater, --label"


def _roles(roles: Mapping[str, str]) -> dict[str, str]:
    for role, column in roles.items():
        if not isinstance(column, str) or not column:
            raise DataError(f"the {role} column must be named by a non-empty string, got {column!r}")
    used = list(roles.values())
    if len(set(used)) != len(used):
        named = ", ".join(f"{role}={column!r}" for role, column in roles.items())
        raise DataError(f"one column is given two roles: {named}")
    return dict(roles)


def _text(raw: pd.DataFrame, roles: Mapping[str, str], source: Source, what: str) -> pd.DataFrame:
    """Every role's column as stripped text; an error for a table without rows or with a missing key."""
    if len(raw) == 0:
        raise DataError(f"{source.label}: no {what} (the table has its columns but no rows)", file=source.file)
    frame = pd.DataFrame(index=pd.RangeIndex(len(raw)))
    for column in roles.values():
        values = raw[column]
        blank = _blank(values)
        if blank.any():
            where = np.flatnonzero(blank)
            kind = "empty labels" if what == "labels" and column == roles.get("label") else "missing values"
            raise _row_error(source, column, kind, where, values.iloc[where].tolist(),
                             advice=f"Every row needs its {', '.join(roles.values())}.")
        frame[column] = values.astype(str).str.strip().to_numpy()
    return frame


def _at_least_two(frame: pd.DataFrame, column: str, role: str, source: Source, why: str) -> None:
    levels = pd.unique(frame[column])
    if len(levels) < 2:
        raise DataError(f"{source.label}, column {column!r}: a single {role} ({show_value(levels[0])}) in all "
                        f"{len(frame)} rows; the audit needs at least two {role}s: {why}.",
                        file=source.file, column=column, values=[levels[0]])


def _lone_raters(frame: pd.DataFrame, rater: str, source: Source, what: str) -> None:
    """A rater with a single judgement cannot be compared with anyone or left out meaningfully."""
    counts = frame[rater].value_counts()
    lone = counts.index[counts.to_numpy() == 1]
    if len(lone):
        where = np.flatnonzero(frame[rater].isin(lone).to_numpy())
        raise _row_error(source, rater, f"raters with a single {what[:-1]}", where, frame[rater].iloc[where].tolist(),
                         advice=f"Agreement and leaving one rater out compare each rater's {what} with the others'; "
                                "remove these rows or give these raters more.")


def validate_pairwise(
    raw: pd.DataFrame, roles: Mapping[str, str] | None = None, source: Source = IN_MEMORY
) -> pd.DataFrame:
    """Check a pairwise table and return it as text columns, the winner lower-cased (``a``, ``b``, ``tie``)."""
    roles = _roles({**PAIRWISE, **(roles or {})})
    _missing_columns(source, list(raw.columns), roles, "judgements", _PAIRWISE_OPTIONS)
    item, a, b, rater, winner = (roles[k] for k in ("item", "system_a", "system_b", "rater", "winner"))
    frame = _text(raw, roles, source, "judgements")
    code = frame[winner].str.lower()
    unknown = ~code.isin(WINNER_CODES).to_numpy()
    if unknown.any():
        where = np.flatnonzero(unknown)
        raise _row_error(source, winner, "unknown winner codes", where, raw[winner].iloc[where].tolist(),
                         advice="The winner is 'a' (the response of the system in the first system column), 'b' "
                                "(the second) or 'tie'.")
    frame[winner] = code.to_numpy()
    same = (frame[a] == frame[b]).to_numpy()
    if same.any():
        where = np.flatnonzero(same)
        raise _row_error(source, f"{a}, {b}", "a system compared with itself", where,
                         frame[a].iloc[where].tolist(), advice="Each judgement compares two different systems.")
    # The same rater, item and pair of systems twice -- in either order -- is one comparison judged twice.
    low = np.minimum(frame[a].to_numpy(dtype=object), frame[b].to_numpy(dtype=object))
    high = np.maximum(frame[a].to_numpy(dtype=object), frame[b].to_numpy(dtype=object))
    keyed = pd.DataFrame({item: frame[item], "pair": [f"{x} vs {y}" for x, y in zip(low, high)], rater: frame[rater]})
    duplicated = keyed.duplicated(keep=False).to_numpy()
    if duplicated.any():
        raise _duplicates_error(keyed, [item, "pair", rater], duplicated, source,
                                "Each rater judges each pair of systems on an item once (in either order); remove "
                                "or merge the repeats.")
    _lone_raters(frame, rater, source, "judgements")
    _at_least_two(frame, rater, "rater", source, "agreement and leaving one rater out are between raters")
    systems = pd.unique(np.concatenate([frame[a].to_numpy(), frame[b].to_numpy()]))
    if len(systems) < 2:  # pragma: no cover - two different systems in any row already make two
        raise DataError(f"{source.label}: fewer than two systems", file=source.file)
    return frame


def validate_labels(
    raw: pd.DataFrame, roles: Mapping[str, str] | None = None, source: Source = IN_MEMORY
) -> pd.DataFrame:
    """Check a label table and return it as text columns."""
    roles = _roles({**LABELS, **(roles or {})})
    _missing_columns(source, list(raw.columns), roles, "labels", _LABEL_OPTIONS)
    item, rater = roles["item"], roles["rater"]
    frame = _text(raw, roles, source, "labels")
    duplicated = frame.duplicated([item, rater], keep=False).to_numpy()
    if duplicated.any():
        raise _duplicates_error(frame, [item, rater], duplicated, source,
                                "Each annotator labels each item once; remove or merge the repeats.")
    _lone_raters(frame, rater, source, "labels")
    _at_least_two(frame, rater, "rater", source, "agreement and leaving one annotator out are between annotators")
    return frame


def _wide(path: Path, keys: Mapping[str, str], columns, rater: str, value: str, what: str, options: str,
          row_items: str | None = None) -> tuple[pd.DataFrame, Source]:
    """A wide table -- one row per unit, one column per rater, any format :func:`_read_raw` reads -- as a long one:
    the ``keys`` columns repeated for each rater column, ``rater`` the column's name, ``value`` its cell. With
    ``row_items`` (an item column the table lacks), each row is an item, numbered from 0 (zero-padded)."""
    columns = [str(c).strip() for c in ([columns] if isinstance(columns, str) else columns) if str(c).strip()]
    if len(columns) != len(set(columns)) or len(columns) < 2:
        raise DataError(f"--wide names the rater columns, at least two and each once; got {columns}")
    read = {role: column for role, column in keys.items() if column != row_items}
    raw, source = _read_raw(path, {**read, **{f"rater {c}": c for c in columns}}, what, options + ", --wide")
    n, k = len(raw), len(columns)
    long = {column: np.repeat(raw[column].to_numpy(dtype=object), k) for column in read.values()}
    if row_items is not None:  # zero-padded, so that the items sort in the rows' order wherever they are sorted
        width = len(str(max(n - 1, 0)))
        long[row_items] = np.repeat(np.asarray([str(i).zfill(width) for i in range(n)], dtype=object), k)
    long[rater] = np.tile(np.asarray(columns, dtype=object), n)
    long[value] = raw[columns].to_numpy(dtype=object).ravel()
    numbers = source.numbers(np.repeat(np.arange(n), k))  # each rater's cell keeps its row's line or record
    return pd.DataFrame(long), Source(source.label, source.unit, source.offset, source.file,
                                      lines=tuple(int(x) for x in numbers), header=source.header)


def parse_codes(text: str | Mapping[str, str] | None) -> dict[str, str]:
    """``--codes``: how a file's winner values map to ``a``, ``b`` and ``tie``.

    >>> parse_codes("0=tie,1=a,2=b")
    {'0': 'tie', '1': 'a', '2': 'b'}
    """
    if text is None:
        return {}
    pairs = dict(text) if isinstance(text, Mapping) else dict(
        part.split("=", 1) if "=" in part else (part, "") for part in text.split(",") if part.strip())
    codes = {str(k).strip(): str(v).strip().lower() for k, v in pairs.items()}
    bad = {k: v for k, v in codes.items() if v not in WINNER_CODES or not k}
    if bad:
        raise DataError(f"--codes maps a file's value to a, b or tie as VALUE=CODE, comma-separated (e.g. "
                        f"0=tie,1=a,2=b); cannot read {', '.join(f'{k}={v}' for k, v in bad.items())}")
    return codes


def _split_pairs(raw: pd.DataFrame, pair: str, sep: str, a: str, b: str, source: Source) -> pd.DataFrame:
    """The two systems of each row from one column naming the pair (``--pair cmp_key --pair-sep _``)."""
    parts = raw[pair].astype(str).str.strip().str.split(sep, regex=False)
    bad = np.flatnonzero((parts.str.len() != 2).to_numpy() | parts.map(lambda p: "" in p).to_numpy())
    if bad.size:
        raise _row_error(source, pair, f"pairs that do not split into two systems at {sep!r}", bad,
                         raw[pair].iloc[bad].tolist(), advice="Each value names two systems, e.g. 'x_y' with "
                         "--pair-sep _; a system name that holds the separator needs another one.")
    return raw.assign(**{a: parts.str[0].to_numpy(), b: parts.str[1].to_numpy()})


def read_pairwise(path: str | os.PathLike, *, item: str = "item", system_a: str = "system_a",
                  system_b: str = "system_b", rater: str = "rater", winner: str = "winner", wide=None,
                  codes: str | Mapping[str, str] | None = None, pair: str | None = None,
                  pair_sep: str = "_") -> pd.DataFrame:
    """Read and check a pairwise preference table; see the module's documentation.

    One judgement per row, or with ``wide`` (the rater columns) one comparison per row and one column per rater
    holding the winner. ``codes`` maps the file's winner values to ``a``, ``b`` and ``tie`` (:func:`parse_codes`);
    ``pair`` names one column holding both systems, split at ``pair_sep`` (PandaLM's ``cmp_key``,
    ``"bloom-7b_llama-7b"``), instead of ``system_a`` and ``system_b``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "prefs.csv"
    >>> rows = "1,x,y,r1,a\\n1,y,x,r2,B\\n2,x,y,r1,tie\\n2,x,y,r2,a\\n"
    >>> _ = path.write_text("item,system_a,system_b,rater,winner\\n" + rows)
    >>> read_pairwise(path)["winner"].tolist()
    ['a', 'b', 'tie', 'a']
    >>> _ = path.write_text("id,pair,ann1,ann2\\n1,x_y,1,2\\n2,x_y,0,1\\n")
    >>> read_pairwise(path, item="id", pair="pair", wide="ann1,ann2", codes="0=tie,1=a,2=b")["winner"].tolist()
    ['a', 'b', 'tie', 'a']
    """
    roles = _roles({"item": item, "system_a": system_a, "system_b": system_b, "rater": rater, "winner": winner})
    keys = {"item": item, **({"pair": pair} if pair else {"system_a": system_a, "system_b": system_b})}
    path = Path(path)
    if wide is not None:
        raw, source = _wide(path, keys, wide.split(",") if isinstance(wide, str) else wide, rater, winner,
                            "judgements", _PAIRWISE_OPTIONS)
    else:
        raw, source = _read_raw(path, {**keys, "rater": rater, "winner": winner}, "judgements", _PAIRWISE_OPTIONS)
    if pair:
        raw = _split_pairs(raw, pair, pair_sep, system_a, system_b, source)
    mapping = parse_codes(codes)
    if mapping:
        raw = raw.assign(**{winner: raw[winner].astype(str).str.strip().map(lambda v: mapping.get(v, v))})
    return validate_pairwise(raw[list(roles.values())], roles, source)


def read_labels(path: str | os.PathLike, *, item: str = "item", rater: str = "rater", label: str = "label",
                wide=None, row_items: bool = False) -> pd.DataFrame:
    """Read and check a table of categorical labels; see the module's documentation.

    One label per row, or with ``wide`` (the rater columns) one item per row and one column per annotator. With
    ``row_items`` a wide table without an item column numbers its rows from 0 as the items.
    """
    roles = _roles({"item": item, "rater": rater, "label": label})
    path = Path(path)
    if wide is not None:
        raw, source = _wide(path, {"item": item}, wide.split(",") if isinstance(wide, str) else wide, rater, label,
                            "labels", _LABEL_OPTIONS, row_items=item if row_items else None)
    else:
        raw, source = _read_raw(path, roles, "labels", _LABEL_OPTIONS)
    return validate_labels(raw, roles, source)
