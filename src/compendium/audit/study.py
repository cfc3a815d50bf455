"""One rating study, checked once: the judgements, their design and the pivots every statistic of the audit reads.

A :class:`Study` is what the audit computes from. :func:`read_study` reads a
file (any format of :func:`compendium.data.judgements.read_judgements`) and
checks it there, once; :meth:`Study.from_frame` does the same for a table in
memory. The study holds

* the judgements as read, with the user's column names (``judgements``) and
  their roles (``roles``);
* the design facts (``design``: counts of items, systems, raters and
  judgements, complete or not, the missing cells), from
  :func:`compendium.data.judgements.check_design`;
* the rating scale (``scale``: lowest, highest, number of distinct values);
* :class:`compendium.stats.tidy.Ratings` (``ratings``): the same table marked
  as checked, with the item x system x rater cube and the raters x outputs
  matrix computed once and shared by every statistic.

Every statistic :func:`compendium.audit.core.run_audit` computes takes
``study.ratings``, so none checks the columns or pivots the table again
(``tests/test_study.py`` counts them). The statistics keep their DataFrame
form for every other caller.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.data.judgements import (
    Design,
    IN_MEMORY,
    column_roles,
    Source,
    validate_table,
    check_design,
    read_judgements,
)
from compendium.stats import tidy

__all__ = ["Study", "read_study"]


@dataclass(frozen=True, eq=False)
class Study:
    """A rating study checked once (see the module's description).

    Attributes
    ----------
    ratings : compendium.stats.tidy.Ratings
        The checked judgements and their shared pivots.
    design : compendium.data.judgements.Design
    source : str or None
        What the table is called in messages (its file name).
    scale : dict
        ``min``, ``max`` and ``n_values`` of the ratings given.
    """

    ratings: tidy.Ratings
    design: Design
    source: str | None
    scale: dict = field(default_factory=dict)

    @classmethod
    def from_frame(cls, judgements: pd.DataFrame, *, item: str = tidy.ITEM, system: str = tidy.SYSTEM,
                   rater: str = tidy.RATER, rating: str = tidy.RATING, source: str | None = None,
                   checked: bool = False) -> Study:
        """Check ``judgements`` (unless a reader of this package just did: ``checked``) and build the study.

        Bad input raises :class:`compendium.data.errors.DataError` naming the table, the column and the rows.
        """
        roles = column_roles(item, system, rater, rating)
        if not checked:
            validate_table(judgements, roles, Source(source, file=source) if source else IN_MEMORY, convert=False)
        design = check_design(judgements, item=item, system=system, rater=rater, rating=rating, source=source)
        ratings = tidy.Ratings.checked(judgements, item=item, system=system, rater=rater, rating=rating,
                                       by="compendium.data.judgements")
        values = judgements[rating].to_numpy(dtype=float, na_value=np.nan)
        domain = np.unique(values[~np.isnan(values)])
        scale = {"min": float(domain[0]), "max": float(domain[-1]), "n_values": int(len(domain))}
        return cls(ratings=ratings, design=design, source=source, scale=scale)

    @property
    def judgements(self) -> pd.DataFrame:
        """The judgements as read (the user's column names)."""
        return self.ratings.frame

    @property
    def roles(self) -> dict[str, str]:
        """``item, system, rater, rating`` -> the table's column names."""
        return self.ratings.roles

    @property
    def complete(self) -> bool:
        return self.design.complete

    def values(self) -> np.ndarray:
        """The ratings given (missing ones left out), as floats."""
        values = self.judgements[self.ratings.rating].to_numpy(dtype=float, na_value=np.nan)
        return values[~np.isnan(values)]


def read_study(path: str | os.PathLike, *, item: str = tidy.ITEM, system: str = tidy.SYSTEM,
               rater: str = tidy.RATER, rating: str = tidy.RATING, **options) -> Study:
    """Read and check a judgements file once (:func:`compendium.data.judgements.read_judgements`, whose
    ``options`` -- ``missing``, ``raters``, ``rater_pattern`` -- it passes on) and build its :class:`Study`."""
    judgements = read_judgements(path, item=item, system=system, rater=rater, rating=rating, **options)
    return Study.from_frame(judgements, item=item, system=system, rater=rater, rating=rating,
                            source=str(Path(path)), checked=True)
