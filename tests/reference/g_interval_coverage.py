"""How often G's interval covers on every pinned design: the record of issue 72 (part 1).

Run from the project root (about 20 minutes on two cores; one design at a time by name):

    .venv/bin/python tests/reference/g_interval_coverage.py                      # every design
    .venv/bin/python tests/reference/g_interval_coverage.py "SQuALITY overall"   # one, merged into the record

For each design -- SQuALITY's three properties and WMT23 en-de and zh-en MQM (real, incomplete), SummEval's four
dimensions (real, complete), the book's simulated benchmark (complete) and two small designs (3 systems x 3
raters x 30 items, complete; and each item rated by 3 of 4 raters) -- it fits the G study by REML, simulates
studies from the fit on its observed cells (:func:`compendium.stats.coverage.measure`; 1,000, or 400 on the MQM
designs, whose refits take a second), and records each candidate interval of G
(:func:`compendium.stats.coverage.g_intervals`: on an incomplete design, three choices of the noncentral F's
denominator df) with its coverage, Monte Carlo error, misses on each side, median width and time per
simulation. ``first_hits`` keeps which of the first 50 simulations each interval
covered, for tests/test_coverage.py to recompute.

The record is tests/reference/g_interval_coverage.json.
"""

from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from compendium.data import real  # noqa: E402
from compendium.simulate.crossed import simulate_crossed, simulate_incomplete  # noqa: E402
from compendium.stats import coverage, gstudy  # noqa: E402

OUT = Path(__file__).with_suffix(".json")
SEED = 72
FIRST = 50


def designs() -> dict:
    """Each design's judgements (item, system, rater, rating), and its number of simulations."""
    out = {f"SQuALITY {p}": (real.load_squality(p), 1000) for p in real.SQUALITY_PROPERTIES}
    for pair in ("ende", "zhen"):
        out[f"WMT23 {pair[:2]}-{pair[2:]} MQM"] = (pd.read_csv(ROOT / "data" / "real" / f"wmt23_mqm_{pair}.csv"), 400)
    for dimension in ("coherence", "consistency", "fluency", "relevance"):
        out[f"SummEval {dimension}"] = (pd.read_csv(ROOT / "data" / "real" / f"summeval_{dimension}.csv"), 1000)
    bench = pd.read_csv(ROOT / "data" / "ratings.csv")
    out["simulated benchmark"] = (bench.rename(columns={"sentence_id": "item", "annotator": "rater"}), 1000)
    out["small, complete (3 x 3 x 30)"] = (
        simulate_crossed(30, 3, 3, seed=1, scale=(1, 5), item="item", rater="rater"), 1000)
    out["small, 3 of 4 raters (3 x 4 x 30)"] = (
        simulate_incomplete(30, 3, 4, raters_per_item=3, seed=1, scale=(1, 5), item="item", rater="rater"), 1000)
    return out


def record_design(data: pd.DataFrame, n_sim: int, executor) -> dict:
    study = gstudy.fit_gstudy(data, item="item", rater="rater")
    complete = study.n_judgements == study.n_items * len(study.systems) * study.n_raters
    frame = coverage.measure(study, n_sim, complete=complete, seed=SEED, executor=executor,
                             intervals=coverage.g_intervals)
    table = coverage.summarise(frame)
    first = frame[frame["sim"] < FIRST]
    hits = (first["low"] <= first["truth"]) & (first["truth"] <= first["high"])
    return {
        "n_judgements": study.n_judgements, "complete": bool(complete), "n_systems": len(study.systems),
        "n_raters": study.n_raters, "raters_per_item": study.raters_per_item, "true_G": coverage.true_g(study),
        "n_sim": n_sim, "seed": SEED, "seconds_per_simulation": frame.attrs["seconds"] / n_sim,
        "intervals": {name: {k: float(v) for k, v in row.items()} for name, row in table.iterrows()},
        "first_hits": {name: {"sims": [int(i) for i in first.loc[part.index, "sim"]], "hit": [bool(h) for h in part]}
                       for name, part in hits.groupby(first["interval"], sort=False)},
    }


def main(only: list[str]) -> None:
    record = json.loads(OUT.read_text(encoding="utf-8")) if OUT.exists() else {}
    with ProcessPoolExecutor(2) as executor:
        for name, (data, n_sim) in designs().items():
            if only and name not in only:
                continue
            start = time.time()
            record[name] = record_design(data, n_sim, executor)
            shown = {k: round(v["coverage"], 3) for k, v in record[name]["intervals"].items()}
            print(f"{name}: {shown} ({time.time() - start:.0f} s)", flush=True)
            OUT.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")  # after each design


if __name__ == "__main__":
    main(sys.argv[1:])


def table_rows(record: dict) -> list[str]:
    """The manual's table of the record (book/audit_manual.md, "How often G's interval covers"), one row per
    design; tests/test_coverage.py checks that the manual holds exactly these rows."""
    def cell(row, name):
        measured = row["intervals"].get(name)
        return "" if measured is None else f"{measured['coverage']:.3f} ± {measured['mc_error']:.3f}"

    rows = []
    for name, row in record.items():
        per_item = "" if row["complete"] else f" ({row['raters_per_item']:.0f} per item)"
        rows.append(f"| {name} | {row['n_systems']} × {row['n_raters']}{per_item} | {row['true_G']:.3f} | "
                    f"{cell(row, 'G noncentral-F')} | {cell(row, 'G noncentral-F, mean squares')} | "
                    f"{cell(row, 'G quasi-F')} |")
    return rows


#: The other denominator df measured on the incomplete designs (:func:`compendium.stats.coverage.g_intervals`).
CANDIDATES = ("G noncentral-F", "G noncentral-F, nu capped at the system x rater df", "G noncentral-F, containment nu")


def candidate_rows(record: dict) -> list[str]:
    """The manual's table of the denominator df tried on the incomplete designs: per design, each candidate's
    coverage with its Monte Carlo error and its median width."""
    rows = []
    for name, row in record.items():
        if row["complete"]:
            continue
        cells = [f"{m['coverage']:.3f} ± {m['mc_error']:.3f} (width {m['median_width']:.3f})"
                 for m in (row["intervals"][c] for c in CANDIDATES)]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return rows
