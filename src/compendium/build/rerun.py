"""What a re-run moved: its claims and its tables against the book's.

``compendium run CHAPTER --seed 7 --out DIR`` executes chapters away from the
book. A seed moves more than the paper's claims: bootstrap intervals, the
simulated panels of section 2.6 and their winners, the rater splits. This
module compares everything a re-run wrote with the book's run:

* the claims (:func:`compendium.analyses.ledger.claims.compare`), of which only the moved
  ones go to ``claims_moved.csv`` (with the band and values formatted for
  reading) and all to ``claims_compared.csv``;
* every table the re-run's chapters stored (``report.Outputs.table``), cell by
  cell against ``_build/tables/<chapter>/<name>.csv``: numbers whose relative
  change exceeds a tolerance, and text that changed (a different winner), go
  to ``tables_moved.csv``, one row per changed cell;
* every sentence the chapters computed (their Markdown outputs), against the
  book's executed chapter (:func:`compare_sentences`): a sentence whose words
  changed, not only its numbers, may state another conclusion ("the winner
  changes" becoming "every panel size has the same winner"), so those are
  reported first; all go to ``sentences_changed.csv``.

Nothing here computes a statistic; it only diffs two runs.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.analyses.ledger import claims
from compendium.data.escape import csv_frame

#: Default relative tolerance: a number moved when ``|new - old| > RTOL * max(|old|, |new|)``.
#: The table CSVs keep ten significant digits, so 1e-6 is far above their rounding.
RTOL = 1e-6

#: Columns of ``tables_moved.csv``.
TABLE_FIELDS = ("notebook", "table", "row", "column", "book", "rerun", "relative_change", "kind")

#: Columns of ``sentences_changed.csv``.
SENTENCE_FIELDS = ("notebook", "kind", "book", "rerun")

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
    moved = compared.loc[compared["moved"].astype(bool)]  # .loc: an empty object column would select columns
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


def _is_key_like(values: pd.Series) -> bool:
    return not pd.api.types.is_float_dtype(values) or bool((values.dropna() % 1 == 0).all())


def key_column(book: pd.DataFrame, rerun: pd.DataFrame) -> str | None:
    """The column that names a table's rows in both runs, or None (rows are then matched by position).

    Candidates are the columns unique in each run: text columns, then whole-number ones that are not
    positions (a rank 1..n names no row: ``system`` names a leaderboard's rows), each in the table's order.
    The first whose values are the same set in both runs is the key; failing that, the first whose values
    mostly recur (rows were added or removed).
    """
    shared = [c for c in book.columns if c in rerun.columns]
    text = [c for c in shared if not pd.api.types.is_numeric_dtype(book[c])]
    whole = [c for c in shared if pd.api.types.is_numeric_dtype(book[c]) and _is_key_like(book[c])
             and pd.api.types.is_numeric_dtype(rerun[c]) and _is_key_like(rerun[c])]
    def position(values: pd.Series) -> bool:  # 1..n or 0..n-1: a rank or a row number names no row
        if values.isna().any():
            return False
        ordered = sorted(values.astype(int))
        return ordered in (list(range(1, len(values) + 1)), list(range(len(values))))

    whole = [c for c in whole if not (position(book[c]) and position(rerun[c]))]
    candidates = [c for c in text + whole if book[c].notna().all() and rerun[c].notna().all()
                  and book[c].is_unique and rerun[c].is_unique]
    for column in candidates:
        if set(book[column].astype(str)) == set(rerun[column].astype(str)):
            return column
    for column in candidates:
        common = set(book[column].astype(str)) & set(rerun[column].astype(str))
        if len(common) * 2 > max(len(book), len(rerun)):
            return column
    return None


def compare_table(book: pd.DataFrame, rerun: pd.DataFrame, *, rtol: float = RTOL) -> list[dict]:
    """Cells of one table that differ between two runs, rows matched by the table's key.

    Rows are matched by :func:`key_column` (two systems that swap ranks keep their own rows, and their
    ranks are what changed); without a key, by position.

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
        ``kind`` is ``"number"``, ``"text"`` (``relative_change`` is 1), ``"added"`` or ``"removed"`` (a row
        only one run has, by key) or ``"shape"`` (the tables differ in their columns, or in their number of
        rows without a key; one entry, ``relative_change`` is infinite).
    """
    if list(book.columns) != list(rerun.columns):
        return [_shape(book, rerun)]
    key = key_column(book, rerun)
    changes = []
    if key is not None:
        old_keys, new_keys = book[key].astype(str), rerun[key].astype(str)
        for label, frame, other, kind in ((old_keys, book, new_keys, "removed"), (new_keys, rerun, old_keys, "added")):
            for i in np.flatnonzero(~label.isin(set(other)).to_numpy()):
                shown = ", ".join(f"{c}={fmt(frame[c].iloc[i])}" for c in frame.columns[:4] if c != key)
                changes.append({"row": f"{key}={fmt(frame[key].iloc[i])}", "column": "",
                                "book": shown if kind == "removed" else "", "rerun": shown if kind == "added" else "",
                                "relative_change": math.inf, "kind": kind})
        common = [k for k in old_keys if k in set(new_keys)]
        book = book.set_index(old_keys).loc[common].reset_index(drop=True)
        rerun = rerun.set_index(new_keys).loc[common].reset_index(drop=True)
    elif len(book) != len(rerun):
        return [_shape(book, rerun)]
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
            label = f"{key}={fmt(book[key].iloc[i])}" if key is not None else _row_label(book, i)
            changes.append({"row": label, "column": str(column), "book": fmt(a), "rerun": fmt(b),
                            "relative_change": size, "kind": kind})
    return changes


def _shape(book: pd.DataFrame, rerun: pd.DataFrame) -> dict:
    return {"row": "", "column": "", "book": f"{len(book)} rows x {len(book.columns)} columns",
            "rerun": f"{len(rerun)} rows x {len(rerun.columns)} columns", "relative_change": math.inf,
            "kind": "shape"}


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
    order = frame["kind"].map({"shape": 0, "added": 1, "removed": 1, "text": 1, "number": 2})
    return (
        frame.assign(_order=order)
        .sort_values(["_order", "relative_change"], ascending=[True, False], kind="stable")
        .drop(columns="_order")
        .reset_index(drop=True)
    )


_MARKUP = (re.compile(r'<small class="compendium-provenance">.*?</small>', re.S),
           re.compile(r'<span class="compendium-figure-text"[^<>]*></span>'))
#: A number as the chapters write it: signs, thousands separators, decimals, exponents, percent.
_NUMBER = re.compile(r"[-+\u2212]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?%?")
_SENTENCE_END = re.compile(r"(?<=[.!?:])\s+(?=[A-Z*_(\[`\u0391-\u03a9])")


def computed_sentences(notebook: Path | str | Mapping) -> list[str]:
    """The sentences of an executed chapter's Markdown outputs, in order: what its code wrote in words.

    Provenance lines and figure markers are taken out; each line (a list item) is split at sentence ends.
    """
    cells = (json.loads(Path(notebook).read_text(encoding="utf-8")) if not isinstance(notebook, Mapping)
             else notebook)["cells"]
    out = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs", []):
            text = output.get("data", {}).get("text/markdown")
            if text is None:
                continue
            text = "".join(text) if isinstance(text, list) else text
            for pattern in _MARKUP:
                text = pattern.sub("", text)
            for line in text.splitlines():
                line = re.sub(r"\s+", " ", line).strip()
                out.extend(part for part in _SENTENCE_END.split(line) if part.strip(" -*:"))
    return out


def _only_numbers_differ(a: str, b: str) -> bool:
    return _NUMBER.sub("#", a) == _NUMBER.sub("#", b)


def compare_sentences(book: Path | str | Mapping, rerun: Path | str | Mapping, notebook: str = "") -> pd.DataFrame:
    """Every computed sentence that differs between the book's executed chapter and a re-run's.

    Sentences are aligned in order (:class:`difflib.SequenceMatcher`); a replaced sentence is paired with its
    counterpart. ``kind`` is ``"words"`` when more than its numbers changed (a conclusion may have changed),
    ``"numbers"`` when only numbers did, ``"added"`` or ``"removed"`` for a sentence with no counterpart.
    Words first, then added and removed, then numbers; within a kind, in the chapter's order.
    """
    old, new = computed_sentences(book), computed_sentences(rerun)
    rows = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        for k in range(max(a2 - a1, b2 - b1)):
            a = old[a1 + k] if a1 + k < a2 else None
            b = new[b1 + k] if b1 + k < b2 else None
            kind = ("added" if a is None else "removed" if b is None
                    else "numbers" if _only_numbers_differ(a, b) else "words")
            rows.append({"notebook": notebook, "kind": kind, "book": a or "", "rerun": b or ""})
    frame = pd.DataFrame(rows, columns=list(SENTENCE_FIELDS))
    order = frame["kind"].map({"words": 0, "added": 1, "removed": 1, "numbers": 2})
    return frame.assign(_order=order).sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)


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
    sentences: pd.DataFrame = None

    def __post_init__(self):
        if self.sentences is None:
            self.sentences = pd.DataFrame(columns=list(SENTENCE_FIELDS))

    def sentence_lines(self, kinds: tuple[str, ...]) -> list[str]:
        out = []
        for row in self.sentences[self.sentences["kind"].isin(kinds)].itertuples():
            out.append(f"  {row.notebook}:" + (f" [{row.kind}]" if row.kind in ("added", "removed") else ""))
            if row.book:
                out.append(f"    book:  {row.book}")
            if row.rerun:
                out.append(f"    rerun: {row.rerun}")
        return out

    def lines(self) -> list[str]:
        """The report ``compendium run`` prints: sentences whose words changed first (a conclusion may have
        reversed), then the claims, the tables, and the sentences in which only numbers changed."""
        words = self.sentences[self.sentences["kind"] != "numbers"]
        out = []
        if len(words):
            out.append(f"{len(words)} computed sentence{'s' if len(words) != 1 else ''} changed in words, not only "
                       "numbers -- a conclusion may have changed:")
            out += self.sentence_lines(("words", "added", "removed"))
        moved = self.claims.loc[self.claims["moved"].astype(bool)]
        out.append(f"{len(moved)} of {len(self.claims)} claims moved against the book's run:")
        for row in moved.itertuples():
            book = "not run" if row.book is None or row.book != row.book else fmt(row.book)
            out.append(f"  {row.id}: {book} -> {fmt(row.rerun)}, band [{fmt(row.lo)}, {fmt(row.hi)}], "
                       f"{row.book_status} -> {row.rerun_status}")
        per_table = largest_per_table(self.tables)
        out.append(f"{len(per_table)} tables changed beyond a relative tolerance of {self.rtol:g} "
                   "(largest change per table):")
        for row in per_table.itertuples():
            where = f"{row.row} / {row.column}" if row.kind != "shape" else "shape"
            size = (row.kind if row.kind in ("text", "added", "removed") else "" if row.kind == "shape"
                    else f"{row.relative_change:.2%}")
            out.append(f"  {row.notebook}/{row.table}: {row.cells} cells; {where}: {row.book} -> {row.rerun}"
                       + (f" ({size})" if size else ""))
            # Text that changed (a winner, a label) is listed whole: no relative size ranks one above another.
            texts = self.tables[(self.tables["notebook"] == row.notebook) & (self.tables["table"] == row.table)
                                & (self.tables["kind"] == "text")]
            for change in texts.iloc[1:].itertuples():
                out.append(f"    also {change.row} / {change.column}: {change.book} -> {change.rerun}")
        numbers = self.sentences[self.sentences["kind"] == "numbers"]
        out.append(f"{len(numbers)} computed sentence{'s' if len(numbers) != 1 else ''} changed in numbers only"
                   + (":" if len(numbers) else ""))
        out += self.sentence_lines(("numbers",))
        return out

    def write(self, out_dir: Path) -> dict[str, Path]:
        """Write ``claims_moved.csv``, ``claims_compared.csv``, ``tables_moved.csv`` and ``sentences_changed.csv``
        into ``out_dir``."""
        out_dir = Path(out_dir)
        paths = {name: out_dir / f"{name}.csv"
                 for name in ("claims_moved", "claims_compared", "tables_moved", "sentences_changed")}
        # Text cells quote the tables (a system's name, say): none may run as a formula in a spreadsheet.
        csv_frame(moved_claims(self.claims)).to_csv(paths["claims_moved"], index=False, lineterminator="\n")
        csv_frame(self.claims).to_csv(paths["claims_compared"], index=False, lineterminator="\n", float_format="%.10g")
        csv_frame(self.tables).to_csv(paths["tables_moved"], index=False, lineterminator="\n", float_format="%.6g")
        csv_frame(self.sentences).to_csv(paths["sentences_changed"], index=False, lineterminator="\n")
        for path in paths.values():  # 0644 whatever the umask, as the re-run's claims.json (claims.write_ledger)
            os.chmod(path, 0o644)
        return paths


def compare_run(book_ledger: list[dict], rerun_ledger: list[dict], book_tables_dir: Path,
                rerun_tables: Iterable[Mapping], *, rtol: float = RTOL,
                notebooks: Mapping[str, tuple[Path, Path]] | None = None) -> Comparison:
    """Compare a re-run's ledger and stored tables with the book's.

    Parameters
    ----------
    book_ledger, rerun_ledger : list of dict
        Ledger rows (:func:`compendium.analyses.ledger.claims.read_ledger`).
    book_tables_dir : Path
        The book's ``_build/tables``.
    rerun_tables : iterable of mapping
        Table records of the re-run (:func:`compendium.build.pipeline.collect_tables`).
    rtol : float
        Relative tolerance for numbers in tables.
    notebooks : mapping of chapter to (book's executed notebook, re-run's), optional
        Whose computed sentences to compare (:func:`compare_sentences`); a chapter the book has not run is
        left out.
    """
    records = {(r["notebook"], r["name"]): r["csv"] for r in rerun_tables}
    book = book_tables(book_tables_dir, sorted({k[0] for k in records}))
    sentences = [compare_sentences(old, new, name) for name, (old, new) in (notebooks or {}).items()
                 if Path(old).exists()]
    sentences = (pd.concat(sentences, ignore_index=True) if sentences else pd.DataFrame(columns=list(SENTENCE_FIELDS)))
    order = sentences["kind"].map({"words": 0, "added": 1, "removed": 1, "numbers": 2})
    sentences = sentences.assign(_o=order).sort_values("_o", kind="stable").drop(columns="_o").reset_index(drop=True)
    return Comparison(claims.compare(book_ledger, rerun_ledger), compare_tables(book, records, rtol=rtol), rtol,
                      sentences)
