"""The audit in a notebook: one call on a DataFrame, in the style of pingouin (issue 71).

:func:`audit` takes a table already in memory -- ratings, pairwise preferences or categorical labels -- with the
command line's column convention and its recognition of common names (:mod:`compendium.data.names`), checks it as
the command line checks a file, and returns an :class:`Audit`: the summary ``audit.json`` holds (``.summary``), the
report's tables as DataFrames (``.tables``), an inline HTML view in Jupyter and ``.to_html(path)``.

The page of a rated study is the command line's (:mod:`compendium.audit.page`: every section, table and figure),
rendered in this process; a pairwise or label study's is :func:`compendium.audit.categorical.render_page`'s.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

__all__ = ["Audit", "audit"]

#: The rated audit's column convention (the pairwise and label ones are :mod:`compendium.data.pairwise`'s).
RATED = {"item": "item", "system": "system", "rater": "rater", "rating": "rating"}


@dataclass
class Audit:
    """What :func:`audit` returns.

    Attributes
    ----------
    kind : str
        ``"rated"``, ``"pairwise"`` or ``"labels"``.
    summary : dict
        The JSON summary, as ``audit.json`` holds it (with ``checklist``).
    tables : dict of str to pandas.DataFrame
        The report's tables by name.
    columns : dict
        The column of each role, as read (``summary["columns"]``).
    result : compendium.audit.core.AuditResult or None
        A rated study's whole result (with its design), from which its page is drawn.
    """

    kind: str
    summary: dict
    tables: dict = field(repr=False)
    columns: dict = field(default_factory=dict)
    result: object = field(default=None, repr=False)

    def lines(self) -> list[str]:
        """The terminal's summary: the design, the headline numbers and the checklist."""
        from compendium.audit import categorical, checklist

        return (checklist.summary_lines(self.summary) if self.kind == "rated"
                else categorical.summary_lines(self.summary))

    def page(self) -> str:
        """The report as one inert HTML page (names from the data escaped; checked by
        :func:`~compendium.audit.report.check_inert`)."""
        if self.kind == "rated":
            from compendium.audit import page

            return page.render(page.Report(self.result, "a DataFrame"))
        from compendium.audit import categorical

        return categorical.render_page(self.summary, self.tables)

    def to_html(self, path: str | os.PathLike) -> Path:
        """Write :meth:`page` to ``path`` (whole or not at all) and return the path."""
        from compendium.data._files import write_text_atomic

        path = Path(path)
        write_text_atomic(path, self.page())
        return path

    def _repr_html_(self) -> str:
        page = self.page()
        return page[page.index("<body>") + len("<body>"):page.index("</body>")]

    def __str__(self) -> str:
        return "\n".join(self.lines())


def _roles(frame: pd.DataFrame, defaults: Mapping[str, str], given: Mapping[str, str | None]) -> dict[str, str]:
    from compendium.data import names

    roles, found = names.recognise(list(frame.columns), defaults, given, source="the DataFrame",
                                   options={role: f"{role}=" for role in defaults})
    for role, column in found.items():
        warnings.warn(f"reading {column!r} as the {role.replace('_', ' ')} column (the default is "
                      f"{defaults[role]!r}; {role}= names it)", UserWarning, stacklevel=3)
    return roles


def audit(frame: pd.DataFrame, *, item: str | None = None, system: str | None = None, rater: str | None = None,
          rating: str | None = None, pairwise: bool = False, labels: bool = False, system_a: str | None = None,
          system_b: str | None = None, winner: str | None = None, label: str | None = None,
          lengths: pd.DataFrame | None = None, seed: int | None = 20260929, n_boot: int = 2000,
          higher_is_better: bool = True, level: str | None = None) -> Audit:
    """Audit a rating study, a pairwise preference study or a labelling study held in a DataFrame.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per judgement: ``item, system, rater, rating``; with ``pairwise=True`` ``item, system_a,
        system_b, rater, winner`` (``a``, ``b`` or ``tie``); with ``labels=True`` ``item, rater, label``.
    item, system, rater, rating, system_a, system_b, winner, label : str, optional
        The columns, where they are named otherwise. A column left unnamed is the convention's, else a common
        name for it (:data:`compendium.data.names.SYNONYMS`), with a :class:`UserWarning` saying which.
    pairwise, labels : bool
        The kind of study (default: ratings).
    lengths : pandas.DataFrame, optional
        Ratings only: one length per (item, system), for the length analyses.
    seed, n_boot : int
        The bootstraps' seed and replicates (the command line's defaults).
    higher_is_better : bool
        Ratings only: the direction of the scale.
    level : str, optional
        Ratings only: alpha's level of measurement (default: from the scale).

    Returns
    -------
    Audit

    Raises
    ------
    compendium.data.errors.DataError
        A table the command line would refuse, with the same message (the column and the rows named).

    Examples
    --------
    >>> from compendium.audit import audit
    >>> from compendium.simulate.crossed import simulate_crossed
    >>> ratings = simulate_crossed(12, 3, 3, seed=2, scale=(1, 5))   # sentence_id, system, annotator, rating
    >>> result = audit(ratings, item="sentence_id", rater="annotator", n_boot=50)
    >>> result.kind, result.summary["n_items"], sorted(result.tables)[:3]
    ('rated', 12, ['alpha', 'alpha_cluster', 'anova'])
    >>> "<table>" in result._repr_html_()
    True
    """
    if pairwise and labels:
        raise ValueError("a study is pairwise or labels, not both")
    if pairwise or labels:
        from compendium.audit import categorical
        from compendium.data import pairwise as readers

        if lengths is not None:
            raise ValueError("lengths apply to a rated study")
        if pairwise:
            roles = _roles(frame, readers.PAIRWISE, {"item": item, "system_a": system_a, "system_b": system_b,
                                                     "rater": rater, "winner": winner})
            checked = readers.validate_pairwise(frame, roles)
            summary, tables = categorical.audit_pairwise(checked, roles, seed=seed, n_boot=n_boot,
                                                         source="a DataFrame")
        else:
            roles = _roles(frame, readers.LABELS, {"item": item, "rater": rater, "label": label})
            checked = readers.validate_labels(frame, roles)
            summary, tables = categorical.audit_labels(checked, roles, seed=seed, n_boot=n_boot,
                                                       source="a DataFrame")
        return Audit("pairwise" if pairwise else "labels", summary, tables, dict(roles))
    from compendium.audit import core

    roles = _roles(frame, RATED, {"item": item, "system": system, "rater": rater, "rating": rating})
    result = core.run_audit(frame, lengths, seed=seed, n_boot=n_boot, higher_is_better=higher_is_better,
                            level=level, source="a DataFrame", **roles)
    return Audit("rated", result.summary, result.tables, dict(result.columns), result)
