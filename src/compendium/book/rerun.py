"""What a re-run moved: its claims and its tables against the book's.

``compendium run CHAPTER --seed 7 --out DIR`` executes chapters away from the
book. A seed moves more than the paper's claims: bootstrap intervals, the
simulated panels of section 2.6 and their winners, the rater splits. This
module compares everything a re-run wrote with the book's run:

* the claims (:func:`compendium.book.claims.compare`), of which only the moved
  ones go to ``claims_moved.csv`` (with the band and values formatted for
  reading) and all to ``claims_compared.csv``;
* every table the re-run's chapters stored (``report.Outputs.table``), cell by
  cell against ``_build/tables/<chapter>/<name>.csv``: numbers whose relative
  change exceeds a tolerance, and text that changed (a different winner), go
  to ``tables_moved.csv``, one row per changed cell.

Nothing here computes a statistic; it only diffs two runs.
"""

from __future__ import annotations

import os

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.book import claims
from compendium.data.escape import csv_frame

#: Default relative tolerance: a number moved when ``|new - old| > RTOL * max(|old|, |new|)``.
#: The table CSVs keep ten significant digits, so 1e-6 is far above their rounding.
RTOL = 1e-6

#: Columns of ``tables_moved.csv``.
TABLE_FIELDS = ("notebook", "table", "row", "column", "book", "rerun", "relative_change", "kind")

#: Columns of ``claims_moved.csv``.
MOVED_FIELDS = ("id", "what", "book", "rerun", "change", "lo", "hi", "book_status", "rerun_status", "status_changed")


def fmt(value) -> str:
    """A number as people read it: integers as integers, others to 4 significant digits, missing as ``""``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)) or (isinstance(value, (float, np.floating)) and float(value).is_integer()
                                                 and abs(value) < 1e15):
        return f"{int(value):d}"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.4g}"
    return str(value)


def moved_claims(compared: pd.DataFrame) -> pd.DataFrame:
    """The moved rows of :func:`claims.compare`, values formatted as strings (``claims_moved.csv``)."""
    moved = compared[compared["moved"]]
    shown = pd.DataFrame({name: moved[name] for name in MOVED_FIELDS})
    for name in ("book", "rerun", "change", "lo", "hi"):
        shown[name] = [fmt(v) for v in moved[name]]
    return shown.reset_index(drop=True)


def _read(text_or_path) -> pd.DataFrame:
    if isinstance(text_or_path, Path):
        return pd.read_csv(text_or_path, keep_default_na=False, na_values=[""])
    return pd.read_csv(StringIO(text_or_path), keep_default_na=False, na_values=[""])


def _row_label(frame: pd.DataFrame, i: int) -> str:
    """A row's name: its first column's value (the index, when the CSV kept one), e.g. ``annotators=9``."""
    first = frame.columns[0]
    return f"{first}={fmt(frame[first].iloc[i])}" if str(first) and not str(first).startswith("Unnamed") else fmt(
        frame[first].iloc[i])


def _same_text(a, b) -> bool:
    if pd.isna(a) and pd.isna(b):
        return True
    return str(a) == str(b)


def compare_table(book: pd.DataFrame, rerun: pd.DataFrame, *, rtol: float = RTOL) -> list[dict]:
    """Cells of one table that differ between two runs.

    Parameters
    ----------
    book, rerun : DataFrame
        The same table from the book's run and from the re-run, as read from CSV.
    rtol : float
        Relative tolerance for numbers (see :data:`RTOL`).

    Returns
    -------
    list of dict
        ``row, column, book, rerun, relative_change, kind`` per changed cell.
        ``kind`` is ``"number"``, ``"text"`` (``relative_change`` is 1) or
        ``"shape"`` (the tables differ in their columns or number of rows;
        one entry, ``relative_change`` is infinite).
    """
    if list(book.columns) != list(rerun.columns) or len(book) != len(rerun):
        return [{"row": "", "column": "", "book": f"{len(book)} rows x {len(book.columns)} columns",
                 "rerun": f"{len(rerun)} rows x {len(rerun.columns)} columns", "relative_change": math.inf,
                 "kind": "shape"}]
    changes = []
    for column in book.columns:
        old, new = book[column], rerun[column]
        numeric = pd.api.types.is_numeric_dtype(old) and pd.api.types.is_numeric_dtype(new)
        for i in range(len(book)):
            a, b = old.iloc[i], new.iloc[i]
            if numeric:
                a, b = float(a), float(b)
                if math.isnan(a) and math.isnan(b):
                    continue
                if math.isnan(a) or math.isnan(b):
                    size = math.inf
                else:
                    scale = max(abs(a), abs(b))
                    size = 0.0 if a == b else abs(b - a) / scale
                if size <= rtol:
                    continue
                kind = "number"
            else:
                if _same_text(a, b):
                    continue
                size, kind = 1.0, "text"
            changes.append({"row": _row_label(book, i), "column": str(column), "book": fmt(a), "rerun": fmt(b),
                            "relative_change": size, "kind": kind})
    return changes


def compare_tables(book: Mapping[tuple[str, str], Path | str], rerun: Mapping[tuple[str, str], Path | str], *,
                   rtol: float = RTOL) -> pd.DataFrame:
    """Every changed cell of every table the re-run wrote (``tables_moved.csv``).

    Parameters
    ----------
    book, rerun : mapping of (notebook, table name) to CSV path or CSV text
        The book's tables and the re-run's. Tables only the book has (chapters
        that were not re-run) are not compared; a table only the re-run has is
        reported as a change of shape.
    rtol : float
        Relative tolerance for numbers.

    Returns
    -------
    DataFrame
        :data:`TABLE_FIELDS`, text changes first, then by relative change, largest first.
    """
    rows = []
    for key, source in rerun.items():
        new = _read(source)
        if key not in book:
            rows.append({"notebook": key[0], "table": key[1], "row": "", "column": "", "book": "not in the book",
                         "rerun": f"{len(new)} rows", "relative_change": math.inf, "kind": "shape"})
            continue
        for change in compare_table(_read(book[key]), new, rtol=rtol):
            rows.append({"notebook": key[0], "table": key[1], **change})
    frame = pd.DataFrame(rows, columns=list(TABLE_FIELDS))
    order = frame["kind"].map({"shape": 0, "text": 1, "number": 2})
    return (frame.assign(_order=order).sort_values(["_order", "relative_change"], ascending=[True, False], kind="stable")
            .drop(columns="_order").reset_index(drop=True))


def largest_per_table(moved: pd.DataFrame) -> pd.DataFrame:
    """One row per table: how many cells changed, and its largest change (text changes count as largest)."""
    if moved.empty:
        return moved.assign(cells=pd.Series(dtype=int))
    counts = moved.groupby(["notebook", "table"], sort=False).size().rename("cells")
    first = moved.groupby(["notebook", "table"], sort=False).head(1).set_index(["notebook", "table"])
    return first.join(counts).reset_index()


def book_tables(tables_dir: Path, notebooks: Iterable[str]) -> dict[tuple[str, str], Path]:
    """The book's table CSVs of the given chapters."""
    found = {}
    for notebook in notebooks:
        for path in sorted((Path(tables_dir) / notebook).glob("*.csv")):
            found[(notebook, path.stem)] = path
    return found


@dataclass
class Comparison:
    """What a re-run moved against the book's run."""

    claims: pd.DataFrame
    tables: pd.DataFrame
    rtol: float

    def lines(self) -> list[str]:
        """The report ``compendium run --out`` prints."""
        moved = self.claims[self.claims["moved"]]
        out = [f"{len(moved)} of {len(self.claims)} claims moved against the book's run:"]
        for row in moved.itertuples():
            book = "not run" if row.book is None or row.book != row.book else fmt(row.book)
            out.append(f"  {row.id}: {book} -> {fmt(row.rerun)}, band [{fmt(row.lo)}, {fmt(row.hi)}], "
                       f"{row.book_status} -> {row.rerun_status}")
        per_table = largest_per_table(self.tables)
        out.append(f"{len(per_table)} tables changed beyond a relative tolerance of {self.rtol:g} "
                   "(largest change per table):")
        for row in per_table.itertuples():
            where = f"{row.row} / {row.column}" if row.kind != "shape" else "shape"
            size = "text" if row.kind == "text" else ("" if row.kind == "shape" else f"{row.relative_change:.2%}")
            out.append(f"  {row.notebook}/{row.table}: {row.cells} cells; {where}: {row.book} -> {row.rerun}"
                       + (f" ({size})" if size else ""))
            # Text that changed (a winner, a label) is listed whole: no relative size ranks one above another.
            texts = self.tables[(self.tables["notebook"] == row.notebook) & (self.tables["table"] == row.table)
                                & (self.tables["kind"] == "text")]
            for change in texts.iloc[1:].itertuples():
                out.append(f"    also {change.row} / {change.column}: {change.book} -> {change.rerun}")
        return out

    def write(self, out_dir: Path) -> dict[str, Path]:
        """Write ``claims_moved.csv``, ``claims_compared.csv`` and ``tables_moved.csv`` into ``out_dir``."""
        out_dir = Path(out_dir)
        paths = {name: out_dir / f"{name}.csv" for name in ("claims_moved", "claims_compared", "tables_moved")}
        # Text cells quote the tables (a system's name, say): none may run as a formula in a spreadsheet.
        csv_frame(moved_claims(self.claims)).to_csv(paths["claims_moved"], index=False, lineterminator="\n")
        csv_frame(self.claims).to_csv(paths["claims_compared"], index=False, lineterminator="\n", float_format="%.10g")
        csv_frame(self.tables).to_csv(paths["tables_moved"], index=False, lineterminator="\n", float_format="%.6g")
        for path in paths.values():  # 0644 whatever the umask, as the re-run's claims.json (claims.write_ledger)
            os.chmod(path, 0o644)
        return paths


def compare_run(book_ledger: list[dict], rerun_ledger: list[dict], book_tables_dir: Path,
                rerun_tables: Iterable[Mapping], *, rtol: float = RTOL) -> Comparison:
    """Compare a re-run's ledger and stored tables with the book's.

    Parameters
    ----------
    book_ledger, rerun_ledger : list of dict
        Ledger rows (:func:`compendium.book.claims.read_ledger`).
    book_tables_dir : Path
        The book's ``_build/tables``.
    rerun_tables : iterable of mapping
        Table records of the re-run (:func:`compendium.book.pipeline.collect_tables`).
    rtol : float
        Relative tolerance for numbers in tables.
    """
    records = {(r["notebook"], r["name"]): r["csv"] for r in rerun_tables}
    book = book_tables(book_tables_dir, sorted({k[0] for k in records}))
    return Comparison(claims.compare(book_ledger, rerun_ledger), compare_tables(book, records, rtol=rtol), rtol)
