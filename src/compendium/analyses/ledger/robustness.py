"""Robustness across seeds: how much each reproduced claim moves with the analysis seed.

``compendium sweep --seeds A-B`` executes the chapters once per seed and
writes one row per (seed, claim) (:func:`compendium.build.sweep.analysis_sweep`). This
module summarises that table: the spread of every claim over the seeds, how
often it stays in the paper's band, and how the spread compares with the
stability the paper states. The paper (section 6, abstract) says EAD is
"stable to +/-0.003 macro-F1 across seeds" (largest per-system SD over ten
seeds 0.0033, claim ``ead.seed_sd_max``).

An analysis-seed sweep varies only the analysis seed (cross-validation
folds, bootstraps, permutations, subsamples, simulated panels); the data is
fixed. A claim with zero spread does not depend on the seed at all (design
counts, closed-form statistics). A data-seed sweep
(:mod:`compendium.build.sweep`) draws the simulated benchmark again instead:
:func:`side_by_side` sets the two spreads beside each other, and
:func:`free_claims_over_data_seeds` says how often each free claim (one no
simulation parameter targets) lands in its band.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from compendium.data.escape import csv_unguard

#: Columns of a sweep table (``_build/sweep/sweep_claims.csv``).
SWEEP_COLUMNS = ("seed", "id", "section", "what", "paper", "lo", "hi", "value", "status", "notebook", "data")

#: The paper's stated seed stability of EAD (section 6): largest per-system SD over ten seeds.
PAPER_EAD_SEED_SD = 0.0033


def read_sweep(path) -> pd.DataFrame:
    """Read a sweep table and check it has the sweep's columns.

    Raises
    ------
    ValueError
        Naming the file and the missing columns.
    """
    frame = pd.read_csv(path)
    for column in frame.columns:  # the sweep writes text cells guarded (csv_frame)
        if not pd.api.types.is_numeric_dtype(frame[column]) and not pd.api.types.is_bool_dtype(frame[column]):
            frame[column] = frame[column].map(csv_unguard, na_action="ignore")
    missing = [c for c in SWEEP_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: not a sweep table; missing column(s) {', '.join(missing)}")
    return frame


def spread(sweep: pd.DataFrame) -> pd.DataFrame:
    """Per claim: the spread of its value over the seeds of a sweep.

    Parameters
    ----------
    sweep : DataFrame
        One row per (seed, claim) with columns :data:`SWEEP_COLUMNS`.

    Returns
    -------
    DataFrame
        One row per claim, in registry order of first appearance: ``id,
        section, what, paper, lo, hi, n_seeds, mean, sd`` (sample SD, ddof=1;
        NaN with one seed), ``min, max, range``, ``in_band`` (share of seeds
        whose value lies in the band) and ``seed_dependent`` (the value
        differs between seeds).
    """
    if sweep.empty:
        return pd.DataFrame(columns=["id", "section", "what", "paper", "lo", "hi", "n_seeds", "mean", "sd", "min",
                                     "max", "range", "in_band", "seed_dependent"])
    keys = ["id", "section", "what", "paper", "lo", "hi"]
    value = sweep["value"].astype(float)
    in_band = (value >= sweep["lo"]) & (value <= sweep["hi"])
    grouped = sweep.assign(value=value, in_band=in_band).groupby(keys, sort=False, dropna=False)
    table = grouped.agg(
        n_seeds=("seed", "nunique"),
        mean=("value", "mean"),
        sd=("value", lambda v: v.std(ddof=1) if len(v) > 1 else np.nan),
        min=("value", "min"),
        max=("value", "max"),
        in_band=("in_band", "mean"),
    ).reset_index()
    table["range"] = table["max"] - table["min"]
    table["seed_dependent"] = table["range"] > 0
    order = ["id", "section", "what", "paper", "lo", "hi", "n_seeds", "mean", "sd", "min", "max", "range",
             "in_band", "seed_dependent"]
    return table[order]


def beside_book(table: pd.DataFrame, book_rows: Iterable[Mapping]) -> pd.DataFrame:
    """Add the book's own run of each claim (value and status) and the SD as a share of the band's width.

    Parameters
    ----------
    table : DataFrame
        From :func:`spread`.
    book_rows : iterable of mapping
        The book's ledger (``_build/claims.json`` rows).
    """
    book = pd.DataFrame(list(book_rows))
    book = book[["id", "reproduced", "status"]].rename(columns={"reproduced": "book", "status": "book_status"})
    merged = table.merge(book, on="id", how="left")
    width = (merged["hi"] - merged["lo"]).replace(0, np.nan)
    merged["sd_over_band_width"] = merged["sd"] / width
    return merged


def band_position(sweep: pd.DataFrame) -> pd.DataFrame:
    """Each (seed, claim) value placed on its band: 0 at the band's lower edge, 1 at the upper.

    Values outside [0, 1] lie outside the band. Claims whose band has zero
    width (exact counts) are left out.
    """
    width = sweep["hi"] - sweep["lo"]
    kept = sweep[width > 0].copy()
    kept["position"] = (kept["value"].astype(float) - kept["lo"]) / (kept["hi"] - kept["lo"])
    return kept[["seed", "id", "section", "position"]]


def ead_stability_check(sweep: pd.DataFrame, *, paper_sd: float = PAPER_EAD_SEED_SD) -> pd.DataFrame:
    """The per-language best and worst EAD over the seeds, against the paper's stated seed SD.

    Returns one row per ``ead.*`` claim that varies with the seed, with its
    SD over the seeds, the paper's largest per-system SD and whether the
    sweep's SD is at most that.
    """
    columns = ["id", "what", "n_seeds", "mean", "sd", "paper_seed_sd", "within_paper_stability"]
    ead = sweep[sweep["id"].astype(str).str.startswith("ead.")]
    if ead.empty:  # the sweep did not run chapter 4 (the default build's small sweep)
        return pd.DataFrame(columns=columns)
    table = spread(ead)
    table = table[table["seed_dependent"]].copy()
    table["paper_seed_sd"] = paper_sd
    table["within_paper_stability"] = table["sd"] <= paper_sd
    return table[columns]


# --- data seeds: the simulated benchmark drawn again ------------------------------------------


def side_by_side(analysis: pd.DataFrame | None, data: pd.DataFrame | None) -> pd.DataFrame:
    """Per claim: its spread over analysis seeds beside its spread over data seeds.

    Parameters
    ----------
    analysis, data : DataFrame or None
        An analysis-seed sweep (``compendium sweep --seeds``) and a data-seed
        sweep (``compendium sweep --data-seeds``; ``seed`` is the data seed),
        each with columns :data:`SWEEP_COLUMNS`; either may be None.

    Returns
    -------
    DataFrame
        ``id, what, paper, lo, hi`` and, for each sweep (prefix
        ``analysis_`` / ``data_``), ``n_seeds, sd, range, in_band``; one row
        per claim either sweep computed, in order of first appearance (the
        data-seed sweep's first). A claim one sweep did not run has NaN there.
    """
    keys = ["id", "what", "paper", "lo", "hi"]
    parts = []
    for prefix, frame in (("data_", data), ("analysis_", analysis)):
        if frame is None or frame.empty:
            continue
        table = spread(frame)[keys + ["n_seeds", "sd", "range", "in_band"]]
        parts.append(table.rename(columns={c: prefix + c for c in ("n_seeds", "sd", "range", "in_band")}))
    columns = keys + [p + c for p in ("analysis_", "data_") for c in ("n_seeds", "sd", "range", "in_band")]
    if not parts:
        return pd.DataFrame(columns=columns)
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.merge(part, on=keys, how="outer", sort=False)
    return merged.reindex(columns=columns).reset_index(drop=True)


def free_claims_over_data_seeds(data: pd.DataFrame, book_rows: Iterable[Mapping]) -> pd.DataFrame:
    """How often each free claim lands in its band when the simulated benchmark is drawn again.

    Parameters
    ----------
    data : DataFrame
        A data-seed sweep (columns :data:`SWEEP_COLUMNS`, ``seed`` the data seed).
    book_rows : iterable of mapping
        The book's ledger (``_build/claims.json`` rows, with ``calibration``).

    Returns
    -------
    DataFrame
        One row per free ``data`` claim the sweep computed: ``id, what,
        paper, lo, hi, book`` (the default data seed's value), ``n_seeds,
        mean, min, max, in_band`` (share of data seeds in band), lowest
        share first.
    """
    book = pd.DataFrame(list(book_rows))
    free = book.loc[book["calibration"] == "free", ["id", "reproduced"]].rename(columns={"reproduced": "book"})
    table = spread(data).merge(free, on="id", how="inner")
    columns = ["id", "what", "paper", "lo", "hi", "book", "n_seeds", "mean", "min", "max", "in_band"]
    return table[columns].sort_values(["in_band", "id"], kind="stable").reset_index(drop=True)
