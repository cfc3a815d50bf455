"""Beside each of the paper's analyses, the sounder one.

The book reproduces the paper's analyses as the paper ran them, including
where a careful reviewer would run them differently. Where a sounder
analysis exists (the unbiased G, the right error term, a resampling unit
that respects clustering, a paired comparison, a corrected resampled t),
the chapter computes it too, and records the pair through a
:class:`Recorder`. Each record is one row:

=====================  ========================================================
``analysis``           short name of the analysis, e.g. ``"G study"``
``claim``              the claim id of the registry it concerns (or a short
                       label when the paper gives no number for it)
``paper_method``       how the paper computes it, in a few words
``paper_value``        the value of the paper's method on this run's data
``sounder_method``     the sounder method, naming its reference
``sounder_value``      its value on the same data
``conclusion_changes`` True when the sounder value changes what the paper
                       concludes from the number (a bool, never a guess:
                       compute it from the two values)
``note``               one sentence saying whether and why the conclusion
                       changes
=====================  ========================================================

plus ``notebook`` and ``data`` (``simulated`` or ``real``), filled in by the
recorder. Values are numbers or short strings (an interval, a count of
tiers); they are shown as given.

How a chapter uses it::

    from compendium.analyses.ledger import sounder
    beside = sounder.Recorder("03_length", data=report.data_label(benchmark))
    beside.record(
        analysis="length slope",
        claim="length.slope",                      # the registry id the row concerns
        paper_method="mixed model, annotators fixed",
        paper_value=f"{fixed.slope:.3f} (p {fixed.p:.2g})",
        sounder_method="random slope per annotator (lme4/lmerTest, Satterthwaite df)",
        sounder_value=f"{rand.slope:.3f} (SE {rand.se:.3f}, df {rand.df:.1f}, p {rand.p:.2g})",
        conclusion_changes=bool((fixed.p < 0.05) != (rand.p < 0.05)),   # computed, not typed
        note="One sentence: whether the paper's conclusion survives, and why.",
    )
    ...
    # %% [markdown]
    # ## The sounder analysis beside the paper's
    # %%
    out.table(beside.table(), "sounder", **beside.table_options())   # the chapter's table

The table name must be spelled out in the ``out.table`` call (the notebook
checks read it from the source), and the section goes just before the
chapter's claims. The ledger chapter re-executes whenever any chapter's rows
change (its build key includes them), so nothing else needs wiring.

Each record is displayed where it is computed (a one-line summary) and
stored in the executed notebook under :data:`SOUNDER_MIME`, which the HTML
book does not render (``_config.yml``, ``nb_mime_priority_overrides``);
:meth:`Recorder.table_options` shows the chapter's table through
:meth:`compendium.book.report.Outputs.table` (so it is also written to
``_build/tables/<notebook>/sounder.csv``). The ledger chapter gathers every
chapter's rows with :func:`collect`. Recording the same ``(analysis,
claim)`` twice in one notebook keeps the later row.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np
import pandas as pd

from compendium.analyses.ledger.claims import NotebookRecorder, finite_number, stored_outputs

__all__ = ["SOUNDER_MIME", "FIELDS", "Recorder", "collect", "frame"]

#: MIME type under which a side-by-side row is stored in a notebook output.
SOUNDER_MIME = "application/vnd.compendium.sounder+json"

#: Fields of one row, in order.
FIELDS = ("analysis", "claim", "paper_method", "paper_value", "sounder_method", "sounder_value",
          "conclusion_changes", "note", "notebook", "data")


def _value(name: str, value):
    """A JSON-safe value: a finite float, an int, or a string."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        if not value.strip():
            raise ValueError(f"{name} is empty")
        return value
    return finite_number(value, name, hint=": give a number, or a string (describe an undefined value in words)")


def _show(value) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


class Recorder(NotebookRecorder):
    """Records one notebook's side-by-side rows (paper's analysis, sounder analysis).

    Parameters
    ----------
    notebook : str
        The notebook's name, e.g. ``"02_reliability"``.
    data : str
        What the numbers were computed from (``"simulated"`` or ``"real"``).
    display : bool
        Display each record where it is made (default); switch off in tests.

    Examples
    --------
    >>> beside = Recorder("02_reliability", display=False)
    >>> row = beside.record("G study", "dstudy.G", "observed variance of system means", 0.336,
    ...                     "unbiased (EMS) system variance", 0.0, True, "G falls to 0.")
    >>> row["conclusion_changes"], beside.table().shape
    (True, (1, 10))
    """

    def record(self, analysis: str, claim: str, paper_method: str, paper_value, sounder_method: str,
               sounder_value, conclusion_changes: bool, note: str = "") -> dict | None:
        """Record one analysis beside the paper's.

        Parameters
        ----------
        analysis, claim, paper_method, paper_value, sounder_method, sounder_value, conclusion_changes, note
            The fields described in the module docstring.

        Returns
        -------
        dict or None
            The row; None when the recorder displays (as
            :meth:`compendium.analyses.ledger.claims.Recorder.record`). The row is in
            :attr:`rows` either way.
        """
        for name, text in (("analysis", analysis), ("claim", claim), ("paper_method", paper_method),
                           ("sounder_method", sounder_method)):
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{name} must be a non-empty string, got {text!r}")
        if isinstance(conclusion_changes, np.bool_):
            conclusion_changes = bool(conclusion_changes)
        if not isinstance(conclusion_changes, bool):
            raise ValueError(f"conclusion_changes must be True or False, got {conclusion_changes!r}")
        row = {
            "analysis": analysis, "claim": claim, "paper_method": paper_method,
            "paper_value": _value("paper_value", paper_value), "sounder_method": sounder_method,
            "sounder_value": _value("sounder_value", sounder_value), "conclusion_changes": conclusion_changes,
            "note": str(note or ""), "notebook": self.notebook, "data": self.data,
        }
        return self._keep((analysis, claim), row, _display_row)

    def table(self) -> pd.DataFrame:
        """This notebook's rows so far, in the order recorded."""
        return frame(list(self.rows.values()))

    def table_options(self) -> dict:
        """How :meth:`compendium.book.report.Outputs.table` shows the chapter's side-by-side table.

        A chapter shows it with ``out.table(beside.table(), "sounder",
        **beside.table_options())``: the keyword arguments ``styler`` (the
        columns a reader needs, values as recorded, "yes"/"no") and
        ``caption``. The table then carries its provenance and is written to
        ``_build/tables/<notebook>/sounder.csv`` like every other table.
        """
        table = self.table()[["analysis", "claim", "paper_method", "paper_value", "sounder_method",
                              "sounder_value", "conclusion_changes", "note"]]
        shown = table.assign(paper_value=table["paper_value"].map(_show),
                             sounder_value=table["sounder_value"].map(_show),
                             conclusion_changes=table["conclusion_changes"].map({True: "yes", False: "no"}))
        return {
            "styler": shown.style.format(escape="html").hide(axis="index"),
            "caption": "Beside the paper's analysis, the sounder one, on the same data "
                       f"({self.data}): does the paper's conclusion change?",
        }


def _display_row(row: dict) -> None:
    from IPython.display import display

    verdict = "changes the paper's conclusion" if row["conclusion_changes"] else ("leaves the paper's conclusion "
                                                                                  "unchanged")
    # The methods are phrases ("unbiased system variance", "when its CI lies below the leader's"), so each is
    # named in parentheses after who uses it rather than made the subject of "gives" (issue 26).
    # Two sentences, one per method: one ran to 58 words (issue 69: none over 45). The note is a sentence of its
    # own, capitalised, so that a reader (and the sentence count) sees where it starts.
    note = row["note"].strip() if isinstance(row.get("note"), str) else ""
    note = f"{note[:1].upper()}{note[1:]}{'' if note.endswith('.') else '.'}" if note else ""
    text = (f"Beside the paper ({row['analysis']}, `{row['claim']}`): the paper's method ({row['paper_method']}) "
            f"gives {_show(row['paper_value'])}. The sounder method ({row['sounder_method']}) gives "
            f"{_show(row['sounder_value'])} on {row['data']} data, which {verdict}. {note}").strip()
    display({SOUNDER_MIME: row, "text/markdown": text, "text/plain": text}, raw=True)


def frame(rows: list[dict]) -> pd.DataFrame:
    """Rows as a DataFrame with the columns :data:`FIELDS`."""
    table = pd.DataFrame(rows, columns=list(FIELDS))
    return table.astype({"conclusion_changes": bool}) if len(table) else table


def collect(notebooks: Iterable[str | os.PathLike]) -> pd.DataFrame:
    """Every side-by-side row stored in executed notebooks, in notebook order.

    Parameters
    ----------
    notebooks : iterable of path-like
        Executed ``.ipynb`` files.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`FIELDS`; within a notebook a later record of the same
        ``(analysis, claim)`` replaces the earlier one.
    """
    rows: dict[tuple[str, str, str], dict] = {}
    for row, _ in stored_outputs(notebooks, SOUNDER_MIME):
        rows[(row.get("notebook"), row["analysis"], row["claim"])] = {k: row.get(k) for k in FIELDS}
    return frame(list(rows.values()))
