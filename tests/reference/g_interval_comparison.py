"""G's interval on real incomplete designs: the noncentral-F interval against the parametric bootstrap of REML refits.

Run from the project root (about half an hour on two cores; one design at a time by name):

    .venv/bin/python tests/reference/g_interval_comparison.py                     # every design
    .venv/bin/python tests/reference/g_interval_comparison.py "WMT23 zh-en MQM"   # one, merged into the record

For each real incomplete design shipped in data/real (SQuALITY's three properties, WMT23 en-de MQM and, once
vendored, zh-en MQM) it writes to tests/reference/g_interval_comparison.json:

* the audit's G and its noncentral-F interval (compendium.stats.gstudy.g_noncentral_ci);
* the percentile interval of the parametric bootstrap with 200 REML refits (the audit's interval before issue 56,
  seed 0) and with 1,000 (400 on the MQM designs; the same replicates and more), each end with its Monte Carlo
  error;
* the coverage of both intervals in simulations from the design's own REML fit (new ratings on the observed cells;
  the truth is the fit's G): ``n_sim`` designs (200; 60 on the MQM designs), the bootstrap with ``n_boot_sim``
  replicates each (99; 39).

tests/test_gstudy.py recomputes the noncentral-F intervals and checks them against this record, and the README
shows the table.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from compendium.data import real  # noqa: E402
from compendium.stats import gstudy as G  # noqa: E402

OUT = Path(__file__).with_suffix(".json")


def designs() -> dict[str, pd.DataFrame]:
    out = {f"SQuALITY {p}": real.load_squality(p) for p in real.SQUALITY_PROPERTIES}
    out["WMT23 en-de MQM"] = pd.read_csv(ROOT / "data" / "real" / "wmt23_mqm_ende.csv")
    zhen = ROOT / "data" / "real" / "wmt23_mqm_zhen.csv"
    if zhen.exists():
        out["WMT23 zh-en MQM"] = pd.read_csv(zhen)
    return out


def truth(study: G.GStudy) -> float:
    b, k = study.fit.beta, len(study.fit.beta)
    C = np.eye(k) - 1.0 / k
    s2 = float(b @ C @ b) / k
    return s2 / (s2 + float(np.trace(C @ study.fit.cov_beta)) / (k - 1))


def coverage(study: G.GStudy, n_sim: int, n_boot_sim: int) -> dict:
    g = truth(study)
    hits_ncf = hits_boot = done = 0
    for i, replicate in enumerate(G._replicates(study, n_sim, seed=123)):
        ncf = G.g_noncentral_ci(replicate)
        hits_ncf += ncf["ci_low"] <= g <= ncf["ci_high"]
        boot = G.g_bootstrap_ci(replicate, n_boot=n_boot_sim, seed=i)
        hits_boot += boot["ci_low"] <= g <= boot["ci_high"]
        done += 1
    return {"n_sim": done, "n_boot_sim": n_boot_sim, "true_G": g, "noncentral_f": hits_ncf / done,
            "bootstrap": hits_boot / done}


def main(only: list[str]) -> None:
    record = json.loads(OUT.read_text(encoding="utf-8")) if only and OUT.exists() else {}
    for name, data in designs().items():
        if only and name not in only:
            continue
        start = time.time()
        study = G.fit_gstudy(data, item="item", rater="rater")
        ncf = G.g_noncentral_ci(study)
        small = study.n_judgements < 2000
        most = 1000 if small else 400  # a large design's replicates are tight; each refit costs more
        values = [G.g_summary(r, targets=())["G"] for r in G._replicates(study, most, seed=0)]
        boot = {}
        for n in (200, most):
            v = np.asarray(values[:n])
            boot[str(n)] = {"ci": [float(np.quantile(v, 0.025)), float(np.quantile(v, 0.975))],
                            "mc_error": [G.percentile_mc_error(v, 0.025), G.percentile_mc_error(v, 0.975)]}
        record[name] = {"n_judgements": study.n_judgements, "G": G.g_summary(study, targets=())["G"],
                        "noncentral_f": {"ci": [ncf["ci_low"], ncf["ci_high"]], "df": ncf["df"], "F": ncf["F"]},
                        "bootstrap": boot,
                        "coverage": coverage(study, 200 if small else 60, 99 if small else 39)}
        print(f"{name}: {json.dumps(record[name])} ({time.time() - start:.0f} s)", flush=True)
        OUT.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")  # after each design


if __name__ == "__main__":
    main(sys.argv[1:])
