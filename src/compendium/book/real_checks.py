"""The paper's claims put to real data: one row per check, with a verdict computed from data.

The simulated chapters can show whether the paper's numbers fit together; only
real data can show whether its claims hold. Where a chapter puts a claim of
the paper to real data (a real tokenizer, real parallel text, real human
judgements, a real embedding space), it records one row here:

``check``
    a short id, unique in the book (``cost.parallel_premium``);
``section``
    the paper's section the claim is from (``"8"``);
``claims``
    the registry ids (:mod:`compendium.book.claims`) the check concerns, possibly none;
``data``
    the real data and instrument used, proxies named as proxies;
``paper``
    the paper's statement, quoted;
``computed``
    what was computed, with its number;
``verdict``
    one of :data:`VERDICTS`, returned by a tested function of the analysis
    (never typed into a chapter).

Rows are stored in the executed notebook under :data:`REAL_CHECK_MIME`, which
is not rendered (the chapter shows its checks in a table), and gathered by the
build into the top-level list ``real_data_checks`` of ``_build/claims.json``;
the ledger chapter shows them as the group "The paper's claims on real data".

Examples
--------
>>> checks = Recorder("06_cost", display=False)
>>> row = checks.record("cost.parallel_premium", section="8", data="NTREX-128, o200k_base",
...                     paper="a statement about Unicode encoding", computed="Bangla 1.9x English",
...                     verdict="does not hold")
>>> row["verdict"]
'does not hold'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
import os

import pandas as pd

from compendium.book.claims import REAL_CHECK_FIELDS as FIELDS
from compendium.book.claims import VERDICTS, NotebookRecorder, registry, stored_outputs

__all__ = ["REAL_CHECK_MIME", "RealCheckError", "Recorder", "collect", "frame"]

#: MIME type under which a check is stored in a notebook output.
REAL_CHECK_MIME = "application/vnd.compendium.real-check+json"

_CHECK_ID = re.compile(r"[a-z0-9_]+(\.[a-z0-9_]+)+")


class RealCheckError(ValueError):
    """A check that cannot be recorded: unknown verdict or claim id, or a missing field."""


def _section_key(section: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.\s]", str(section)))


class Recorder(NotebookRecorder):
    """Records the real-data checks of one chapter.

    Parameters
    ----------
    notebook : str
        The chapter's name.
    display : bool
        Store each check in the notebook's output (default). Off in tests.
    """

    def __init__(self, notebook: str, *, display: bool = True):
        super().__init__(notebook, data="real", display=display)
        self._registry = registry()

    def record(self, check: str, *, section: str, data: str, paper: str, computed: str, verdict: str,
               claims: Sequence[str] = ()) -> dict | None:
        """Record one check; see the module's docstring for the fields.

        Raises
        ------
        RealCheckError
            For a verdict not in :data:`VERDICTS`, a claim id not in the
            registry, a malformed check id or an empty field.
        """
        if not isinstance(check, str) or not _CHECK_ID.fullmatch(check):
            raise RealCheckError(f"check id {check!r}: write it as dotted lower-case words, e.g. 'cost.parallel_premium'")
        if verdict not in VERDICTS:
            raise RealCheckError(f"{check}: verdict {verdict!r} is not one of {', '.join(map(repr, VERDICTS))}")
        for name, value in (("section", section), ("data", data), ("paper", paper), ("computed", computed)):
            if not isinstance(value, str) or not value.strip():
                raise RealCheckError(f"{check}: {name} must be a non-empty string, got {value!r}")
        unknown = [c for c in claims if c not in self._registry]
        if unknown:
            raise RealCheckError(f"{check}: unknown claim id(s) {unknown}")
        row = {"check": check, "section": str(section), "claims": list(claims), "data": data, "paper": paper,
               "computed": computed, "verdict": verdict}
        return self._keep(check, row, _display_check)

    def table(self) -> pd.DataFrame:
        """This chapter's checks so far, the verdict first."""
        return frame(list(self.rows.values()))


def _display_check(row: dict) -> None:
    from IPython.display import display

    display({REAL_CHECK_MIME: row}, raw=True)


def collect(notebooks: Iterable[str | os.PathLike]) -> list[dict]:
    """Every check stored in executed notebooks, ordered by the paper's section, then by check id.

    A check id recorded twice keeps its later row (in the order of ``notebooks``).
    """
    rows = {row["check"]: {k: row.get(k) for k in FIELDS} for row, _ in stored_outputs(notebooks, REAL_CHECK_MIME)}
    return sorted(rows.values(), key=lambda r: (_section_key(r["section"]), r["check"]))


def frame(rows: list[dict]) -> pd.DataFrame:
    """Checks as a table: the verdict first, then what was computed, the paper's words and the data."""
    columns = ["verdict", "section", "check", "computed", "paper", "data", "claims"]
    out = pd.DataFrame(rows, columns=list(FIELDS))[columns]
    out["claims"] = out["claims"].map(lambda c: ", ".join(c) if isinstance(c, (list, tuple)) else "")
    # The paper's words and the data are long: the book lists them as notes under the table, not as columns.
    out.attrs["notes"] = ["paper", "data"]
    return out
