"""Input handling and conventions shared by the :mod:`compendium.analyses.length` modules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from compendium.data import schema


#: Label of the all-systems row of :func:`segmentation_inflation`.
OVERALL = "overall"

#: What :func:`length_matched_comparisons` compares for each output.
SCORES = ("panel_mean", "sum", "per_rater")

#: How :func:`length_matched_comparisons` scores a tie.
TIE_RULES = ("half", "drop", "loss")

#: Two scores closer than this are a tie (panel means are ratios of small
#: integers, so exact ties are common and must not be split by rounding).
_TIE_TOL = 1e-9

# Internal canonical column names.
_I, _S, _R, _Y, _X = "item", "system", "rater", "rating", "count"


# --- input handling -------------------------------------------------------------


def _require(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(
            f"{what} has no column(s) {missing}; it has {list(frame.columns)} "
            "(pass the column names as keyword arguments: item=, system=, rater=, rating=, length=)"
        )


def _plain(s: pd.Series) -> pd.Series:
    """A key column with categoricals turned into their values."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return s.astype(s.cat.categories.dtype)
    return s


def _levels(s: pd.Series) -> list:
    """Order of the systems: categorical order, schema order, or first appearance."""
    present = pd.unique(s.dropna())
    if isinstance(s.dtype, pd.CategoricalDtype):
        keep = set(present)
        return [c for c in s.cat.categories if c in keep]
    if all(v in schema.SYSTEMS for v in present):
        keep = set(present)
        return [v for v in schema.SYSTEMS if v in keep]
    return list(present)


def _lengths(lengths: pd.DataFrame, item: str, system: str, length: str) -> pd.DataFrame:
    _require(lengths, [item, system, length], "lengths")
    out = pd.DataFrame(
        {
            _I: _plain(lengths[item]).to_numpy(),
            _S: _plain(lengths[system]).to_numpy(),
            _X: pd.to_numeric(lengths[length]).astype(float).to_numpy(),
        }
    )
    dup = out.duplicated([_I, _S])
    if dup.any():
        first = out.loc[dup, [_I, _S]].iloc[0].tolist()
        raise ValueError(f"lengths has {int(dup.sum())} duplicated ({item}, {system}) rows, e.g. {first}")
    return out


def _judgements(
    ratings: pd.DataFrame,
    lengths: pd.DataFrame | None,
    *,
    item: str,
    system: str,
    rater: str,
    rating: str,
    length: str,
) -> tuple[pd.DataFrame, list]:
    """Judgement-level frame with canonical columns item, system, rater, rating[, count]."""
    _require(ratings, [item, system, rater, rating], "ratings")
    j = pd.DataFrame(
        {
            _I: _plain(ratings[item]).to_numpy(),
            _S: _plain(ratings[system]).to_numpy(),
            _R: _plain(ratings[rater]).to_numpy(),
            _Y: pd.to_numeric(ratings[rating]).astype(float).to_numpy(),
        }
    )
    order = _levels(ratings[system])
    j = j[j[_Y].notna()].reset_index(drop=True)
    if j.empty:
        raise ValueError("ratings has no non-missing rating")
    if lengths is not None:
        lt = _lengths(lengths, item, system, length)
        j = j.merge(lt, on=[_I, _S], how="left", validate="many_to_one")
        miss = j[_X].isna()
        if miss.any():
            first = j.loc[miss, [_I, _S]].drop_duplicates()
            raise ValueError(
                f"{len(first)} rated outputs have no {length!r} in lengths, "
                f"e.g. ({item}, {system}) = {first.iloc[0].tolist()}"
            )
    return j, order


def _rank(values: pd.Series) -> pd.Series:
    """1 = highest; ties share the smallest rank; NaN stays missing."""
    return values.rank(ascending=False, method="min").astype("Int64")


def _per_system(obj: Any, system: str, columns: Sequence[str], what: str) -> pd.DataFrame:
    """A per-system table (Series, mapping or DataFrame) indexed by system."""
    if isinstance(obj, Mapping):
        obj = pd.Series(dict(obj))
    if isinstance(obj, pd.Series):
        frame = obj.astype(float).rename(columns[0]).to_frame()
    elif isinstance(obj, pd.DataFrame):
        frame = obj.set_index(system) if system in obj.columns else obj
        _require(frame, columns[:1], what)
        frame = frame[[c for c in columns if c in frame.columns]]
    else:
        raise TypeError(f"{what} must be a Series, a mapping or a DataFrame, got {type(obj).__name__}")
    frame.index = pd.Index(_plain(pd.Series(frame.index)).to_numpy())
    return frame


