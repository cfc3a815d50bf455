"""Robustness across seeds: how much each reproduced claim moves with the analysis seed.

``compendium sweep --seeds A-B`` executes the chapters once per seed and
writes one row per (seed, claim) (:func:`compendium.pipeline.sweep`). This
module summarises that table: the spread of every claim over the seeds, how
often it stays in the paper's band, and how the spread compares with the
stability the paper states. The paper (section 6, abstract) says EAD is
"stable to +/-0.003 macro-F1 across seeds" (largest per-system SD over ten
seeds 0.0033, claim ``ead.seed_sd_max``).

Only the analysis seed varies in a sweep (cross-validation folds,
bootstraps, permutations, subsamples, simulated panels); the data is fixed.
A claim with zero spread does not depend on the seed at all (design counts,
closed-form statistics).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

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
    table = spread(sweep[sweep["id"].str.startswith("ead.")])
    table = table[table["seed_dependent"]].copy()
    table["paper_seed_sd"] = paper_sd
    table["within_paper_stability"] = table["sd"] <= paper_sd
    return table[["id", "what", "n_seeds", "mean", "sd", "paper_seed_sd", "within_paper_stability"]]
