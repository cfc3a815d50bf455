"""Column conventions and input checks shared by the rating-study modules, and :class:`Ratings`.

:mod:`compendium.stats.agreement`, :mod:`compendium.stats.gtheory`,
:mod:`compendium.stats.panels`, :mod:`compendium.stats.diagnostics`,
:mod:`compendium.stats.gstudy` and :mod:`compendium.simulate.crossed` share these
helpers so that every statistic reads tidy judgements the same way (the
conventions are described in :mod:`compendium.stats`).

Each statistic takes a long DataFrame and checks it (:func:`_checked`), or a
:class:`Ratings`: the same table checked once, with the pivots computed once and
shared. An audit computes twenty statistics from one :class:`Ratings`
(``compendium.audit.study.Study`` holds it) and so checks and pivots its table once.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

#: Default column names: one row per rating, the columns of the benchmark's ``ratings.csv``
#: (:data:`compendium.data.schema.COLUMNS`; a test checks that the two agree). Every
#: statistic takes other names through its ``item=``, ``system=``, ``rater=``, ``rating=``.
ITEM, SYSTEM, RATER, RATING = "sentence_id", "system", "annotator", "rating"


def _as_list(columns: str | Sequence[str]) -> list[str]:
    if isinstance(columns, str):
        return [columns]
    out = list(columns)
    if not out:
        raise ValueError("at least one column is needed")
    return out


def _check_columns(data: pd.DataFrame, columns: Sequence[str]) -> None:
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(data).__name__}")
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"column(s) {missing} not in the data (columns: {list(data.columns)})")
    key = [c for c in columns]
    if len(set(key)) != len(key):
        raise ValueError(f"the same column is used for two roles: {key}")


class Ratings:
    """Tidy judgements checked once, and the pivots the statistics read, computed once.

    Build it with :meth:`from_frame`. Every statistic of this wing that takes a DataFrame takes a ``Ratings``
    in its place: it skips the checks (:func:`_checked`) and reads the cached raters x units matrix
    (:meth:`wide`) instead of pivoting the table again. The column arguments a statistic is given must be
    the roles the ``Ratings`` was built with.

    Attributes
    ----------
    frame : pandas.DataFrame
        The judgements (not copied).
    item, system, rater, rating : str
        The columns' roles.
    checks, pivots : int
        How often the table was checked and pivoted: once each, whatever computes from it.
    """

    def __init__(self, frame: pd.DataFrame, *, item: str, system: str, rater: str, rating: str):
        self.frame, self.item, self.system, self.rater, self.rating = frame, item, system, rater, rating
        self.checked_by = "unchecked"
        self._wide: dict[tuple, tuple[np.ndarray, pd.Index]] = {}
        self._cubes: dict[bool, tuple] = {}
        self.checks = self.pivots = 0

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, item: str = ITEM, system: str = SYSTEM, rater: str = RATER,
                   rating: str = RATING) -> Ratings:
        """Check ``frame`` (columns present and distinct, keys complete, ratings numeric and finite, each
        (item, system, rater) rated at most once) and pivot it by (item, system)."""
        out = cls(frame, item=item, system=system, rater=rater, rating=rating)
        _check_columns(frame, [item, system, rater, rating])
        _no_missing_keys(frame, [item, system, rater])
        _numeric(frame[rating], rating)
        out.checks += 1
        out.checked_by = "compendium.stats.tidy.Ratings.from_frame"
        out.wide((item, system))  # the duplicate check, and the pivot most statistics read
        return out

    @classmethod
    def checked(cls, frame: pd.DataFrame, *, item: str, system: str, rater: str, rating: str,
                by: str) -> Ratings:
        """Judgements another reader has already checked as :meth:`from_frame` would (``by`` names it): no check
        runs again."""
        out = cls(frame, item=item, system=system, rater=rater, rating=rating)
        out.checked_by = by
        return out

    def derived(self, frame: pd.DataFrame) -> Ratings:
        """A table made from this one's rows (a subset, a compact copy), checked as this one was."""
        out = Ratings(frame, **self.roles)
        out.checked_by = "derived from checked ratings"
        return out

    def cube(self, *, sort: bool = False) -> tuple[np.ndarray, pd.Index, pd.Index, pd.Index]:
        """The items x systems x raters array (NaN where there is no rating) and the three label indexes:
        in sorted order (``sort=True``, the order of :func:`_codes`) or in order of first appearance. Cached."""
        if sort not in self._cubes:
            self._cubes[sort] = _cube(self.frame, self.item, self.system, self.rater, self.rating, sort=sort)
            self.pivots += 1
        return self._cubes[sort]

    @property
    def roles(self) -> dict[str, str]:
        return {"item": self.item, "system": self.system, "rater": self.rater, "rating": self.rating}

    def require(self, columns: Sequence[str]) -> None:
        """Refuse columns this table was not built with (a statistic called with other names)."""
        unknown = [c for c in columns if c not in self.roles.values()]
        if unknown:
            raise ValueError(f"column(s) {unknown} are not roles of these ratings ({self.roles})")

    def wide(self, unit: str | Sequence[str]) -> tuple[np.ndarray, pd.Index]:
        """Ratings matrix (raters x units, NaN where a rater did not rate a unit) and the raters, cached."""
        units = tuple(_as_list(unit))
        self.require(units)
        if units not in self._wide:
            self._wide[units] = _pivot(self.frame, list(units), self.rater, self.rating)
            self.pivots += 1
        return self._wide[units]


def _checked(data: pd.DataFrame | Ratings, columns: Sequence[str], keys: Sequence[str] = ()) -> pd.DataFrame:
    """The frame a statistic computes on: a :class:`Ratings`' own (checked when it was built), or ``data``
    after the checks (``columns`` present and distinct, ``keys`` without missing values)."""
    if isinstance(data, Ratings):
        data.require(columns)
        return data.frame
    _check_columns(data, columns)
    if keys:
        _no_missing_keys(data, keys)
    return data


def _pivot(data: pd.DataFrame, units: list[str], rater: str, rating: str) -> tuple[np.ndarray, pd.Index]:
    """Ratings matrix (raters x units), NaN where a rater did not rate a unit; refuses a unit rated twice by
    one rater."""
    y = _numeric(data[rating], rating)
    ucode, keys = _unit_codes(data, units)
    rcode, raters = _codes(data[rater])
    n_units, n_raters = len(keys), len(raters)
    lin = rcode.astype(np.int64) * n_units + ucode
    counts = np.bincount(lin, minlength=n_raters * n_units)
    if (counts > 1).any():
        r, u = np.divmod(np.flatnonzero(counts > 1), n_units)
        examples = [(_py(raters[i]), tuple(_py(v) for v in keys.iloc[j])) for i, j in zip(r[:5], u[:5])]
        raise ValueError(
            f"{int((counts > 1).sum())} (unit, rater) cell(s) have more than one rating, "
            f"e.g. (rater, unit {tuple(units)}) = {examples}"
        )
    matrix = np.full(n_raters * n_units, np.nan)
    matrix[lin] = y
    return matrix.reshape(n_raters, n_units), raters


def _cube(data: pd.DataFrame, item: str, system: str, rater: str, rating: str, *, sort: bool):
    """Ratings as an (items, systems, raters) array, NaN where missing, and the three label indexes."""
    if sort:
        (i, items), (s, systems), (r, raters) = (_codes(data[c]) for c in (item, system, rater))
    else:
        items, systems, raters = (pd.Index(pd.unique(data[c])) for c in (item, system, rater))
        i, s, r = (levels.get_indexer(data[c]) for levels, c in ((items, item), (systems, system), (raters, rater)))
    cube = np.full((len(items), len(systems), len(raters)), np.nan)
    cube[i, s, r] = data[rating].to_numpy(dtype=float, na_value=np.nan)
    return cube, items, systems, raters


def _numeric(values: pd.Series, name: str) -> np.ndarray:
    try:
        out = pd.to_numeric(values, errors="raise").to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"column {name!r} must be numeric") from exc
    if np.isinf(out).any():
        raise ValueError(f"column {name!r} contains infinite values")
    return out


def _no_missing_keys(data: pd.DataFrame, columns: Sequence[str]) -> None:
    bad = data[list(columns)].isna().any(axis=1)
    if bad.any():
        raise ValueError(
            f"{int(bad.sum())} row(s) have a missing value in {list(columns)}, "
            f"e.g. row {data.index[bad.to_numpy()][0]!r}"
        )


def _codes(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes and sorted levels (categoricals in category order)."""
    codes, levels = pd.factorize(values, sort=True)
    return codes, pd.Index(levels)


def _text_codes(values) -> tuple[np.ndarray, list[str]]:
    """Integer codes of ``values`` read as text, levels sorted: what ``numpy.unique(values.astype(str),
    return_inverse=True)`` gives, from a hash of the values and a sort of the distinct ones only (sorting
    10^6 strings took seconds)."""
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    levels, inverse = np.unique(np.array([str(u) for u in uniques], dtype=str), return_inverse=True)
    return inverse.ravel()[codes], levels.tolist()


def _unit_codes(data: pd.DataFrame, units: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Codes of the (possibly multi-column) unit and the table of unit keys."""
    if len(units) == 1:
        codes, levels = _codes(data[units[0]])
        return codes, pd.DataFrame({units[0]: np.asarray(levels)})
    grouped = data.groupby(units, sort=True, observed=True)
    codes = grouped.ngroup().to_numpy()
    keys = grouped.size().reset_index()[units]
    return codes, keys


def _py(value):
    """A numpy scalar as the Python scalar, for readable messages."""
    return value.item() if isinstance(value, np.generic) else value


def _pairs(levels: Sequence) -> list[tuple]:
    return list(itertools.combinations(list(levels), 2))


def _means_by(data: pd.DataFrame | Ratings, rows: str, columns: str, rating: str) -> pd.DataFrame:
    """Mean rating of each (rows, columns) cell as a wide table, levels sorted."""
    data = _checked(data, [rows, columns, rating], keys=[rows, columns])
    r_codes, r_levels = _codes(data[rows])
    c_codes, c_levels = _codes(data[columns])
    y = _numeric(data[rating], rating)
    ok = ~np.isnan(y)
    sums = np.zeros((len(r_levels), len(c_levels)))
    counts = np.zeros_like(sums)
    np.add.at(sums, (r_codes[ok], c_codes[ok]), y[ok])
    np.add.at(counts, (r_codes[ok], c_codes[ok]), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / counts, np.nan)
    return pd.DataFrame(
        means, index=pd.Index(r_levels, name=rows), columns=pd.Index(c_levels, name=columns)
    )
