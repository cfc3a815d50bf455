"""The error every reader of the compendium raises, and how it quotes offending rows.

:class:`DataError` names the file, the column and the rows (with their
values) of a table that breaks its contract. The benchmark loader
(:mod:`compendium.data.benchmark`), the reader of judgement tables
(:mod:`compendium.data.judgements`, used by the audit and the real-data loader)
and the real-data loader (:mod:`compendium.data.real`) all build their messages
with :func:`row_error`, so a bad row reads the same wherever it is found.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DataError", "LINE_NOTE", "MAX_SHOWN", "Raw", "listing", "row_error", "show_value"]

#: How many offending rows an error message shows before "and N more".
MAX_SHOWN = 5
#: How rows are numbered in a CSV file's messages.
LINE_NOTE = "line numbers of the file; the header is line 1"


class Raw(str):
    """A value shown as is, without quotes, in an error message."""

    def __repr__(self) -> str:
        return str(self)




class DataError(ValueError):
    """A data file does not meet the contract of :mod:`compendium.data.benchmark`.

    The message says which file, which column and which rows are wrong, with
    the offending values (the first :data:`MAX_SHOWN`, then a count of the
    rest), and what to do about it.

    Parameters
    ----------
    message : str
        The full, human-readable message.
    file : str, optional
        The offending file, relative to the data directory
        (e.g. ``"ratings.csv"``).
    column : str, optional
        The offending column. For ``.npy`` matrices, the (0-based) matrix
        column; for checks over several columns, their names joined by
        ``", "``.
    rows : sequence of int, optional
        All offending locations, numbered as ``unit`` says.
    values : sequence, optional
        The offending values, aligned with ``rows`` (or, for cells missing from
        a crossed design, the missing cells themselves).
    unit : {"line", "row", None}, optional
        ``"line"``: line numbers of a text file, the header of a CSV being
        line 1 (a record spanning several lines is numbered by its first).
        ``"row"``: 1-based rows of an embedding matrix.

    Attributes
    ----------
    file, column, rows, values, unit
        As passed; ``rows`` and ``values`` are tuples.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        column: str | None = None,
        rows: Sequence[int] = (),
        values: Sequence[Any] = (),
        unit: str | None = None,
    ) -> None:
        super().__init__(message)
        self.file = file
        self.column = column
        self.rows = tuple(int(r) for r in rows)
        self.values = tuple(values)
        self.unit = unit

    def __reduce__(self):  # keep the attributes when pickled (e.g. by joblib)
        state = {k: getattr(self, k) for k in ("file", "column", "rows", "values", "unit")}
        return (_rebuild_error, (str(self), state))


def _rebuild_error(message: str, state: dict[str, Any]) -> DataError:
    return DataError(message, **state)


def show_value(value: Any, width: int = 40) -> str:
    """Short printable form of one offending value, as error messages quote it."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(show_value(v, width) for v in value) + ")"
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= width else text[: width - 4] + "...'"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, np.generic):
        return str(value.item())
    return str(value)


def listing(rows: Sequence[int] | None, values: Sequence[Any], unit: str, limit: int = MAX_SHOWN) -> str:
    """``"line 5 'five', line 9 '3.5' and 3 more"``: the first ``limit`` offending values."""
    if rows is None:
        items = [show_value(v) for v in values[:limit]]
    else:
        items = [f"{unit} {r} {show_value(v)}" for r, v in zip(rows[:limit], values[:limit])]
    more = len(values) - limit
    return ", ".join(items) + (f" and {more} more" if more > 0 else "")


def row_error(
    path: Path | str,
    file: str | None,
    column: str | None,
    problem: str,
    rows: Sequence[int],
    values: Sequence[Any],
    *,
    unit: str = "line",
    note: str = LINE_NOTE,
    advice: str = "",
    limit: int = MAX_SHOWN,
) -> DataError:
    """A :class:`DataError` for offending rows of one file: the file, the column, the rows and their values.

    ``path`` labels the table in the message (a file path, or e.g. "the
    judgements" for a table in memory); ``file`` is stored on the error.
    """
    n = len(rows)
    where = f"{path}, column {column!r}" if column is not None else f"{path}"
    message = (
        f"{where}: {problem} on {n} {unit}{'s' if n != 1 else ''}: "
        f"{listing(rows, values, unit, limit)} ({note})."
    )
    if advice:
        message += " " + advice
    return DataError(message, file=file, column=column, rows=rows, values=values, unit=unit)
