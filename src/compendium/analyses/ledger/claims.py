"""The claims ledger: the paper's reported numbers beside the reproduced ones.

The registry (``paper_claims.csv`` in this package, carried over unchanged
from the paper's ``claims.csv``) lists every number the paper reports, with
an id, the paper's value, an acceptance band ``[lo, hi]`` and a ``basis``:
``design`` (fixed by the study's design), ``arithmetic`` (follows from other
reported numbers) or ``data`` (computed from judgements, outputs, embeddings
or logs). Bands are never widened here: a value outside its band is reported
as ``differs``.

A ``data`` claim is **targeted** when a parameter of ``data/simulation.yml``
lists it under ``targets:`` or ``copied_from:`` (the parameter was set while
looking at it: agreement is by construction and a miss means the simulator is
broken) and **free** otherwise (agreement shows that the paper's numbers are
mutually consistent under the simulation's model). Design and arithmetic
claims have calibration ``n.a.``. The ledger is shown in these groups, never
as one count of claims in band.

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
from importlib import resources
import math
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

#: The registry shipped with the package.
REGISTRY_FILE = Path(str(resources.files(__package__).joinpath("paper_claims.csv")))

#: MIME type under which a record is stored in a notebook output.
CLAIM_MIME = "application/vnd.compendium.claim+json"

#: Status values of the ledger.
REPRODUCED, DIFFERS, NOT_RUN = "reproduced", "differs", "not-run"

#: Fields of one recorded row, in order.
LEDGER_FIELDS = ("id", "section", "what", "paper", "reproduced", "lo", "hi", "status", "note", "notebook", "data")
#: Fields of one row of the book's ledger (``_build/claims.json``): a recorded row and what the build adds.
BOOK_FIELDS = LEDGER_FIELDS + ("basis", "calibration", "targeted_by", "data_seed_share_in_band")

#: The registry's bases.
DESIGN, ARITHMETIC, DATA = "design", "arithmetic", "data"
BASES = (DESIGN, ARITHMETIC, DATA)
#: Calibration of a claim against the simulation (``n.a.`` for design and arithmetic claims).
TARGETED, FREE, NOT_APPLICABLE = "targeted", "free", "n.a."
#: The ledger's groups, in the order the book shows them.
GROUPS = ("free", "targeted", DESIGN, ARITHMETIC)


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
    basis: str = DATA

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
        A CSV with columns ``id, section, priority, paper, lo, hi, what`` and
        optionally ``basis`` (``data`` where absent); the package's copy of
        the paper's registry by default.

    Returns
    -------
    dict of str to Claim
        In file order.

    Raises
    ------
    ClaimError
        Naming the file and the rows whose ``basis`` is not one of :data:`BASES`.
    """
    source = path or REGISTRY_FILE
    table = pd.read_csv(source, dtype={"id": str, "section": str, "priority": str, "what": str, "basis": str})
    if "basis" not in table.columns:
        table["basis"] = DATA
    bad = table.index[~table["basis"].isin(BASES)]
    if len(bad):
        shown = ", ".join(f"row {i + 2} ({table.at[i, 'id']}: {table.at[i, 'basis']!r})" for i in bad[:5])
        raise ClaimError(f"{source}: column 'basis' must be one of {', '.join(BASES)}; {shown}")
    return {
        row.id: Claim(row.id, row.section, row.priority, float(row.paper), float(row.lo), float(row.hi), row.what,
                      row.basis)
        for row in table.itertuples(index=False)
    }


def finite_number(value, what: str, error: type[Exception] = ValueError, hint: str = "") -> float:
    """``float(value)``, or ``error`` saying that ``what`` (shown with the value) is not a finite number.

    ``hint`` is added to the message. The claims ledger and the sounder
    recorder check recorded values through here.

    >>> finite_number("0.5", "value")
    0.5
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise error(f"{what} {value!r} is not a number{hint}") from None
    if not math.isfinite(number):
        raise error(f"{what} {value!r} is not finite{hint}")
    return number


def _as_number(claim_id: str, value) -> float:
    if isinstance(value, bool):
        return float(value)
    return finite_number(value, f"claim {claim_id!r}: value", ClaimError)


def _format(value: float) -> str:
    return f"{value:.6g}"


class NotebookRecorder:
    """What a chapter's recorders share: the notebook and the data they record for, the rows so far, and display.

    A row is kept under its key (a later row of the same key replaces the
    earlier one); when the recorder displays, :meth:`_keep` hands the row to
    the recorder's display function and returns None, so that a cell ending
    in ``record(...)`` shows the record once. :class:`Recorder` (the claims
    ledger) and :class:`compendium.analyses.ledger.sounder.Recorder` (the analyses beside the
    paper's) build on it.

    Parameters
    ----------
    notebook : str
        The chapter's name.
    data : str
        ``"simulated"`` or ``"real"``.
    display : bool
        Display each row where it is recorded (off in tests).
    """

    def __init__(self, notebook: str, *, data: str = "simulated", display: bool = True):
        self.notebook = notebook
        self.data = data
        self.display = display
        self.rows: dict = {}

    def _keep(self, key, row: dict, show) -> dict | None:
        self.rows[key] = row
        if self.display:
            show(row)
            return None
        return row


class Recorder(NotebookRecorder):
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
        super().__init__(notebook, data=data, display=display)
        self.claims = registry()

    @property
    def records(self) -> dict[str, dict]:
        """Claim id to its ledger row, as recorded so far."""
        return self.rows

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
        return self._keep(claim_id, _ledger_row(claim, number, note, self.notebook, self.data), _display_record)

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

    display({CLAIM_MIME: row}, raw=True)
    # Let the notebook's prose cite the computed value with {glue:text}`<id>`.
    glue(row["id"], row["reproduced"])


#: The MIME prefix of a glued, undisplayed value (``myst_nb.ext.glue.GLUE_PREFIX``).
GLUE_PREFIX = "application/papermill.record/"


def glue(name: str, value) -> None:
    """Store ``value`` for ``{glue}`` roles under ``name``, undisplayed: the output ``myst_nb.glue(name, value,
    display=False)`` writes (myst-nb 1.x's glue format: the value's display data under :data:`GLUE_PREFIX`, with
    ``scrapbook`` metadata), which myst-nb reads when it builds the book.

    Written here because importing ``myst_nb``'s glue imports ``nbformat`` and with it ``jsonschema``, whose
    format checkers compile Lark grammars at import (about a second in every chapter's kernel; jsonschema
    issue #1428). tests/test_claims.py checks that the output is the library's, byte for byte.
    """
    from IPython.core.formatters import format_display_data
    from IPython.display import display

    bundle, metadata = format_display_data(value)
    metadata["scrapbook"] = {"name": name, "mime_prefix": GLUE_PREFIX}
    display({GLUE_PREFIX + k: v for k, v in bundle.items()}, raw=True, metadata=metadata)


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
    import nbformat  # here, not at the top: every chapter's kernel imports this module, and nbformat costs ~0.8 s

    for path in notebooks:
        for cell in nbformat.read(path, as_version=4).cells:
            for output in cell.get("outputs", []):
                data = output.get("data", {}).get(mime)
                if data is not None:
                    yield data, cell


def calibration_record(parameters=None) -> pd.DataFrame:
    """Which parameter of the simulation was set by looking at which claim.

    Read from the ``targets:`` and ``copied_from:`` keys of
    ``data/simulation.yml`` (:func:`compendium.simulate.calibration`).

    Returns
    -------
    DataFrame
        ``parameter, claim, how``.
    """
    from compendium.simulate import calibration

    return calibration(parameters)


def calibration_of(
    claims: Mapping[str, Claim] | None = None, record: pd.DataFrame | None = None
) -> dict[str, tuple[str, str]]:
    """Per claim: ``(calibration, targeted_by)``.

    ``calibration`` is ``targeted`` for a ``data`` claim some parameter lists,
    ``free`` for any other ``data`` claim and ``n.a.`` for design and
    arithmetic claims; ``targeted_by`` names the parameters that list the
    claim (``""`` for none), joined by ``", "``.
    """
    claims = claims or registry()
    record = calibration_record() if record is None else record
    by_claim: dict[str, list[str]] = {}
    for parameter, claim in zip(record["parameter"], record["claim"]):
        by_claim.setdefault(claim, [])
        if parameter not in by_claim[claim]:
            by_claim[claim].append(parameter)
    out = {}
    for claim_id, claim in claims.items():
        parameters = ", ".join(by_claim.get(claim_id, []))
        if claim.basis != DATA:
            out[claim_id] = (NOT_APPLICABLE, parameters)
        else:
            out[claim_id] = (TARGETED if parameters else FREE, parameters)
    return out


def ledger(
    recorded: Mapping[str, dict],
    claims: Mapping[str, Claim] | None = None,
    *,
    record: pd.DataFrame | None = None,
    data_seed_share: Mapping[str, float] | None = None,
) -> list[dict]:
    """One row per registry id, in registry order; ids nobody recorded are ``not-run``.

    The status is recomputed from the registry's band, so a stale or
    hand-edited status in a notebook cannot survive aggregation. Each row
    also carries the claim's ``basis``, its ``calibration`` and the
    parameters that target it (:func:`calibration_of`, from ``record``: the
    shipped ``simulation.yml`` by default) and ``data_seed_share_in_band``:
    the share of simulated data sets (a data-seed sweep) on which the claim
    landed in its band, None when no data-seed sweep computed it.
    """
    claims = claims or registry()
    calibrations = calibration_of(claims, record)
    shares = data_seed_share or {}
    rows = []
    for claim_id, claim in claims.items():
        rec = recorded.get(claim_id)
        if rec is None:
            row = _ledger_row(claim, None, None, None, None)
        else:
            value = _as_number(claim_id, rec["reproduced"])
            row = _ledger_row(claim, value, rec.get("note"), rec.get("notebook"), rec.get("data"))
        share = shares.get(claim_id)
        row.update(basis=claim.basis, calibration=calibrations[claim_id][0], targeted_by=calibrations[claim_id][1],
                   data_seed_share_in_band=None if share is None or share != share else float(share))
        rows.append(row)
    return rows


def group_of(row: Mapping) -> str:
    """The ledger group of a row: ``free``, ``targeted``, ``design`` or ``arithmetic``."""
    if row.get("basis", DATA) == DATA:
        return row.get("calibration") if row.get("calibration") in (TARGETED, FREE) else FREE
    return row["basis"]


def ledger_summary(rows: list[dict]) -> dict:
    """Counts per group and status, and the paper's checks against itself.

    Returns
    -------
    dict
        ``{"groups": {group: {"claims": n, "reproduced": .., "differs": ..,
        "not-run": ..}}, "paper_checks": {"consistent": .., "inconsistent":
        ..}, "data_seed_sweep": bool}``. Deliberately no total of claims in
        band: the groups mean different things.
    """
    from compendium.analyses.ledger import paper_checks

    groups = {g: {"claims": 0, REPRODUCED: 0, DIFFERS: 0, NOT_RUN: 0} for g in GROUPS}
    for row in rows:
        counts = groups[group_of(row)]
        counts["claims"] += 1
        counts[row["status"]] += 1
    verdicts = paper_checks.checks()["verdict"].value_counts()
    return {
        "groups": groups,
        "paper_checks": {v: int(verdicts.get(v, 0)) for v in paper_checks.VERDICTS},
        "data_seed_sweep": any(row.get("data_seed_share_in_band") is not None for row in rows),
    }


def summary_line(rows: list[dict]) -> str:
    """One line per group for the build log, e.g. ``free data claims: 30 in band, 2 differ, 0 not run; ...``."""
    names = {"free": "free data claims", "targeted": "targeted data claims", DESIGN: "design claims",
             ARITHMETIC: "arithmetic claims"}
    summary = ledger_summary(rows)
    parts = [f"{names[g]}: {c[REPRODUCED]} in band, {c[DIFFERS]} differ, {c[NOT_RUN]} not run"
             for g, c in summary["groups"].items()]
    checks = summary["paper_checks"]
    return (f"paper checked against itself: {checks['consistent']} consistent, {checks['inconsistent']} inconsistent; "
            + "; ".join(parts))


#: The verdicts of a check of the paper's claims on real data (:mod:`compendium.analyses.ledger.real_checks`).
#: *inconclusive*: the data can test the claim but do not decide it; *not testable here*: they cannot test it.
HOLDS, DOES_NOT_HOLD, INCONCLUSIVE, NOT_TESTABLE = "holds", "does not hold", "inconclusive", "not testable here"
VERDICTS = (HOLDS, DOES_NOT_HOLD, INCONCLUSIVE, NOT_TESTABLE)
#: The keys of such a check in ``claims.json``, in order: what it is, its decision rule (stated before the
#: result: ``quantity, paper_value, rule, smallest_effect``), then the result (``estimate``, its ``interval``
#: or ``no_interval``, the reason it has none, and the verdict).
REAL_CHECK_FIELDS = ("check", "section", "claims", "data", "paper", "quantity", "paper_value", "rule",
                     "smallest_effect", "computed", "estimate", "interval", "no_interval", "verdict")


def verdict_counts(checks: list[dict]) -> dict[str, int]:
    """How many real-data checks have each verdict (every verdict listed, zeros included)."""
    return {v: sum(c["verdict"] == v for c in checks) for v in VERDICTS}


def write_ledger(path: str | os.PathLike, rows: list[dict], real_checks: list[dict] | None = None) -> Path:
    """Write ledger rows as JSON, atomically (a temporary file, then a rename), readable by all (0644).

    The file is ``{"summary": ledger_summary(rows), "claims": [rows],
    "real_data_checks": [checks]}``, each row with the fields
    :data:`BOOK_FIELDS` and each check with those of
    :data:`REAL_CHECK_FIELDS` (the list is left out when
    ``real_checks`` is None). The output is byte-identical for identical rows:
    fixed key order, fixed float formatting by :mod:`json`, a trailing newline.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"summary": ledger_summary(rows), "claims": [{k: row.get(k) for k in BOOK_FIELDS} for row in rows]}
    if real_checks is not None:
        document["summary"]["real_data_checks"] = verdict_counts(real_checks)
        document["real_data_checks"] = [{k: check.get(k) for k in REAL_CHECK_FIELDS} for check in real_checks]
    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; the ledger is for every reader
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def read_ledger(path: str | os.PathLike) -> list[dict]:
    """The rows of a ledger written by :func:`write_ledger` (or of an older plain list of rows)."""
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    return document["claims"] if isinstance(document, dict) else document


def read_real_checks(path: str | os.PathLike) -> list[dict]:
    """The ``real_data_checks`` of a ledger written by :func:`write_ledger` (empty when it has none)."""
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    return document.get("real_data_checks", []) if isinstance(document, dict) else []


def read_summary(path: str | os.PathLike) -> dict:
    """The ``summary`` of a ledger written by :func:`write_ledger`."""
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    return document["summary"] if isinstance(document, dict) else ledger_summary(document)


def ledger_frame(rows: list[dict]) -> pd.DataFrame:
    """Ledger rows as a DataFrame with the ledger's columns (and the book's, when the rows carry them)."""
    fields = BOOK_FIELDS if rows and all("basis" in row for row in rows) else LEDGER_FIELDS
    return pd.DataFrame(rows, columns=list(fields))


def summary(rows: list[dict]) -> pd.Series:
    """How many claims have each status."""
    counts = pd.Series([row["status"] for row in rows], dtype="object").value_counts()
    return counts.reindex([REPRODUCED, DIFFERS, NOT_RUN], fill_value=0)


def paper_inconsistencies() -> pd.DataFrame:
    """Places where the paper's own statements or arithmetic disagree (moved to
    :mod:`compendium.analyses.ledger.paper_checks`)."""
    from compendium.analyses.ledger.paper_checks import paper_inconsistencies

    return paper_inconsistencies()


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
        rows.append(
            {
                "id": row["id"],
                "what": row["what"],
                "paper": row["paper"],
                "lo": row["lo"],
                "hi": row["hi"],
                "book": old,
                "rerun": row["reproduced"],
                "change": change,
                "book_status": before.get("status", NOT_RUN),
                "rerun_status": row["status"],
                "moved": change is None or change != 0,
                "status_changed": before.get("status") != row["status"],
                "_size": float("inf") if change is None else abs(change) / width,
            }
        )
    table = pd.DataFrame(rows, columns=["id", "what", "paper", "lo", "hi", "book", "rerun", "change", "book_status",
                                        "rerun_status", "moved", "status_changed", "_size"])
    return (
        table.sort_values(["moved", "_size"], ascending=False, kind="stable")
        .drop(columns="_size")
        .reset_index(drop=True)
    )
