"""The claims ledger: the paper's reported numbers beside the reproduced ones.

The registry (``paper_claims.csv`` in this package, carried over unchanged
from the paper's ``claims.csv``) lists every number the paper reports, with
an id, the paper's value and an acceptance band ``[lo, hi]``. Bands are
never widened here: a value outside its band is reported as ``differs``.

Notebooks record what they computed through a :class:`Recorder`. A record
is stored in the executed notebook's output under the MIME type
:data:`CLAIM_MIME`, which is not rendered: the chapter shows its claims once,
at its end, through ``report.Outputs.claims``. The build collects those outputs
from the executed notebooks with :func:`collect` and writes the aggregate,
one object per registry id, to ``_build/claims.json`` with
:func:`write_ledger`. The executed notebook is therefore the single source
of every reproduced number: there is no side file to drift out of step.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pandas as pd
from scipy import stats

#: The registry shipped with the package.
REGISTRY_FILE = Path(__file__).with_name("paper_claims.csv")

#: MIME type under which a record is stored in a notebook output.
CLAIM_MIME = "application/vnd.compendium.claim+json"

#: Status values of the ledger.
REPRODUCED, DIFFERS, NOT_RUN = "reproduced", "differs", "not-run"

#: Fields of one ledger row, in order.
LEDGER_FIELDS = ("id", "section", "what", "paper", "reproduced", "lo", "hi", "status", "note", "notebook", "data")


class ClaimError(ValueError):
    """A record names an unknown claim or carries a value that is not a finite number."""


@dataclass(frozen=True)
class Claim:
    """One reported number of the paper with its acceptance band."""

    id: str
    section: str
    priority: str
    paper: float
    lo: float
    hi: float
    what: str

    def status(self, value: float | None) -> str:
        """``reproduced`` if ``lo <= value <= hi``, ``differs`` otherwise, ``not-run`` for None."""
        if value is None:
            return NOT_RUN
        return REPRODUCED if self.lo <= value <= self.hi else DIFFERS


def registry(path: str | os.PathLike | None = None) -> dict[str, Claim]:
    """Read the claims registry.

    Parameters
    ----------
    path : path-like, optional
        A CSV with columns ``id, section, priority, paper, lo, hi, what``;
        the package's copy of the paper's registry by default.

    Returns
    -------
    dict of str to Claim
        In file order.
    """
    table = pd.read_csv(path or REGISTRY_FILE, dtype={"id": str, "section": str, "priority": str, "what": str})
    return {
        row.id: Claim(row.id, row.section, row.priority, float(row.paper), float(row.lo), float(row.hi), row.what)
        for row in table.itertuples(index=False)
    }


def _as_number(claim_id: str, value) -> float:
    if isinstance(value, bool):
        return float(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ClaimError(f"claim {claim_id!r}: value {value!r} is not a number") from None
    if not math.isfinite(number):
        raise ClaimError(f"claim {claim_id!r}: value {value!r} is not finite")
    return number


def _format(value: float) -> str:
    return f"{value:.6g}"


class Recorder:
    """Records the reproduced values of one notebook.

    Parameters
    ----------
    notebook : str
        The notebook's name (e.g. ``"01_design"``); stored with each record.
    data : str
        What the numbers were computed from, shown beside every record
        (``"simulated"`` for the shipped simulation, ``"real"`` otherwise).
    display : bool
        Store each record in the notebook's output (default; it is not
        rendered, the chapter's closing table shows it). Switch off in tests.

    Examples
    --------
    >>> ledger = Recorder("01_design", data="simulated", display=False)
    >>> ledger.record("design.n_sentences", 17100)["status"]
    'reproduced'
    """

    def __init__(self, notebook: str, *, data: str = "simulated", display: bool = True):
        self.notebook = notebook
        self.data = data
        self.display = display
        self.claims = registry()
        self.records: dict[str, dict] = {}

    def record(self, claim_id: str, value, note: str | None = None) -> dict:
        """Record the value computed for one claim.

        Parameters
        ----------
        claim_id : str
            An id of the registry.
        value : number or bool
            The reproduced value (a bool is recorded as 0 or 1).
        note : str, optional
            How the value was computed, or why it may differ.

        Returns
        -------
        dict or None
            The ledger row of this claim; None when the recorder displays
            its records, so that a cell ending in ``record(...)`` shows the
            record once rather than also the dict (a trailing ``;`` would not
            do: nbval re-executes cells without history, where IPython cannot
            see the semicolon). The row is in :attr:`records` either way.
        """
        if claim_id not in self.claims:
            raise ClaimError(f"unknown claim id {claim_id!r}; the registry is {REGISTRY_FILE.name}")
        claim = self.claims[claim_id]
        number = _as_number(claim_id, value)
        row = _ledger_row(claim, number, note, self.notebook, self.data)
        self.records[claim_id] = row
        if self.display:
            _display_record(row)
            return None
        return row

    def table(self) -> pd.DataFrame:
        """This notebook's records so far as a table."""
        return ledger_frame(list(self.records.values()))


def _ledger_row(claim: Claim, value: float | None, note, notebook, data) -> dict:
    return {
        "id": claim.id,
        "section": claim.section,
        "what": claim.what,
        "paper": claim.paper,
        "reproduced": value,
        "lo": claim.lo,
        "hi": claim.hi,
        "status": claim.status(value),
        "note": note,
        "notebook": notebook,
        "data": data,
    }


def _display_record(row: dict) -> None:
    """Store a record in the notebook's output, unseen: the chapter shows its claims once, at its end
    (``report.Outputs.claims``). The output carries only :data:`CLAIM_MIME`, which neither the book nor
    Jupyter renders."""
    from IPython.display import display
    from myst_nb import glue

    display({CLAIM_MIME: row}, raw=True)
    # Let the notebook's prose cite the computed value with {glue:text}`<id>`.
    glue(row["id"], row["reproduced"], display=False)


def collect(notebooks: Iterable[str | os.PathLike]) -> dict[str, dict]:
    """Gather the records stored in executed notebooks.

    Parameters
    ----------
    notebooks : iterable of path-like
        Executed ``.ipynb`` files.

    Returns
    -------
    dict of str to dict
        Claim id to its ledger row. When two notebooks record the same id
        the later one in the iteration order wins.
    """
    return {row["id"]: dict(row) for row, _ in stored_outputs(notebooks, CLAIM_MIME)}


def stored_outputs(notebooks: Iterable[str | os.PathLike], mime: str):
    """Yield ``(data, cell)`` for every output of type ``mime`` in executed notebooks, in order.

    The claims (:data:`CLAIM_MIME`) and the tables (``report.TABLE_MIME``)
    are both stored this way and both read back through here.
    """
    for path in notebooks:
        for cell in nbformat.read(path, as_version=4).cells:
            for output in cell.get("outputs", []):
                data = output.get("data", {}).get(mime)
                if data is not None:
                    yield data, cell


def ledger(recorded: Mapping[str, dict], claims: Mapping[str, Claim] | None = None) -> list[dict]:
    """One row per registry id, in registry order; ids nobody recorded are ``not-run``.

    The status is recomputed from the registry's band, so a stale or
    hand-edited status in a notebook cannot survive aggregation.
    """
    claims = claims or registry()
    rows = []
    for claim_id, claim in claims.items():
        rec = recorded.get(claim_id)
        if rec is None:
            rows.append(_ledger_row(claim, None, None, None, None))
        else:
            value = _as_number(claim_id, rec["reproduced"])
            rows.append(_ledger_row(claim, value, rec.get("note"), rec.get("notebook"), rec.get("data")))
    return rows


def write_ledger(path: str | os.PathLike, rows: list[dict]) -> Path:
    """Write ledger rows as JSON, atomically (a temporary file, then a rename).

    The output is byte-identical for identical rows: fixed key order, fixed
    float formatting by :mod:`json`, a trailing newline.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps([{k: row[k] for k in LEDGER_FIELDS} for row in rows], indent=1, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_ledger(path: str | os.PathLike) -> list[dict]:
    """Read a ledger written by :func:`write_ledger`."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def ledger_frame(rows: list[dict]) -> pd.DataFrame:
    """Ledger rows as a DataFrame with the ledger's columns."""
    return pd.DataFrame(rows, columns=list(LEDGER_FIELDS))


def summary(rows: list[dict]) -> pd.Series:
    """How many claims have each status."""
    counts = pd.Series([row["status"] for row in rows], dtype="object").value_counts()
    return counts.reindex([REPRODUCED, DIFFERS, NOT_RUN], fill_value=0)


def paper_inconsistencies() -> pd.DataFrame:
    """Places where the paper's own statements or arithmetic disagree.

    Each row gives the claim id it concerns, what the paper says, and the
    arithmetic that shows the disagreement, computed here rather than typed.

    Returns
    -------
    DataFrame
        Columns ``id, paper_says, arithmetic``.
    """
    train, views8, views5 = 0.8, 8, 5
    leaked8 = 1 - (1 - train) ** (views8 - 1)
    leaked5 = 1 - (1 - train) ** (views5 - 1)
    completion, emojis = 294.7, 2.60
    t_stat, replicates = 4.97, 6
    p_paired = 2 * stats.t.sf(t_stat, replicates - 1)
    p_two_sample = 2 * stats.t.sf(t_stat, 2 * replicates - 2)
    rows = [
        (
            "loao.winner_changes",
            "Abstract: 'the winning system changes whenever any single annotator is removed' (3 of 3); "
            "section 4.4: 'in two of three cases'.",
            "The two statements count 3 and 2 of the 3 leave-one-out panels; the registry follows section 4.4.",
        ),
        (
            "leakage.expected_fraction_v8",
            "Section 9: 99.998% of test rows leak at V=8, rho=0.8.",
            f"1 - (1 - {train})^({views8} - 1) = {leaked8:.7f} = {leaked8:.5%}, which rounds to 99.999%, "
            f"not 99.998%; at V=5 the formula gives {leaked5:.5%} (paper: 99.84%).",
        ),
        (
            "cost.grok_completion_tokens_bn",
            "Section 8: Grok-4-Fast averages 294.7 completion tokens for 2.60 emojis per Bangla item, '124 tokens per emoji'.",
            f"294.7 / 2.60 = {completion / emojis:.1f} tokens per emoji as a ratio of means; 124 can only be a mean "
            "of per-item ratios. Chapter 6 shows both.",
        ),
        (
            "cost.tokens_per_byte_bn",
            "Section 8: prompt tokens per source byte of 1.108 (bn), 1.450 (en), 1.557 (hi).",
            "No tokenizer spends more than one token per byte of its input on plain text, so a ratio above 1 means "
            "the fixed prompt template is counted in the numerator and only the sentence in the denominator.",
        ),
        (
            "leakage.p",
            "Section 9: t = 4.97, p = 0.0006 from a paired t-test over 6 replicates.",
            f"A paired test over {replicates} replicates has {replicates - 1} df: t = {t_stat} gives p = {p_paired:.4f}. "
            f"p = {p_two_sample:.4f} is what t = {t_stat} gives on {2 * replicates - 2} df, a two-sample test. "
            "Chapter 7 reports both.",
        ),
    ]
    return pd.DataFrame(rows, columns=["id", "paper_says", "arithmetic"])


def compare(reference: list[dict], rerun: list[dict]) -> pd.DataFrame:
    """Which claims moved between a reference ledger (the book's) and a re-run.

    Only claims the re-run computed are compared.

    Returns
    -------
    DataFrame
        ``id, what, paper, lo, hi, book, rerun, change, book_status,
        rerun_status, moved`` (the value changed) and ``status_changed``; claims that moved
        first, by the size of the change relative to the band's width.
    """
    book = {row["id"]: row for row in reference}
    rows = []
    for row in rerun:
        if row["status"] == NOT_RUN:
            continue
        before = book.get(row["id"], {})
        old = before.get("reproduced")
        change = None if old is None else row["reproduced"] - old
        width = (row["hi"] - row["lo"]) or 1.0
        rows.append({
            "id": row["id"], "what": row["what"], "paper": row["paper"], "lo": row["lo"], "hi": row["hi"], "book": old, "rerun": row["reproduced"],
            "change": change, "book_status": before.get("status", NOT_RUN), "rerun_status": row["status"],
            "moved": change is None or change != 0, "status_changed": before.get("status") != row["status"],
            "_size": float("inf") if change is None else abs(change) / width,
        })
    table = pd.DataFrame(rows, columns=["id", "what", "paper", "lo", "hi", "book", "rerun", "change", "book_status",
                                        "rerun_status", "moved", "status_changed", "_size"])
    return table.sort_values(["moved", "_size"], ascending=False, kind="stable").drop(columns="_size").reset_index(drop=True)
