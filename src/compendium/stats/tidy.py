"""Column conventions and input checks shared by the rating-study modules.

Private: :mod:`compendium.stats.agreement`, :mod:`compendium.stats.gtheory`,
:mod:`compendium.stats.panels` and :mod:`compendium.simulate.crossed` share these
helpers so that every statistic reads tidy judgements the same way (the
conventions are described in :mod:`compendium.stats`).
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


def _means_by(data: pd.DataFrame, rows: str, columns: str, rating: str) -> pd.DataFrame:
    """Mean rating of each (rows, columns) cell as a wide table, levels sorted."""
    _check_columns(data, [rows, columns, rating])
    _no_missing_keys(data, [rows, columns])
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
