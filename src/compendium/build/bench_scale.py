"""``make bench``'s ``scale`` section: the audit at leaderboard scale (issue 57), and its peer in R.

Every probe runs in a fresh interpreter under a memory cap and a time limit
(:data:`LIMIT_BYTES`, :data:`LIMIT_SECONDS`: a slow case can exhaust the
machine's memory), and a probe that overruns them is reported as such, not
waited for. The rows:

* REML variance components and G of the item x system x rater model
  (:func:`compendium.stats.gstudy.fit_gstudy`) on simulated incomplete
  studies of 10^5 and 10^6 judgements (:data:`REML_SCALE`: 1,800 and 18,000
  items x 8 systems x 10 raters, 30 % of cells missing), each the median of
  :data:`RUNS` runs with the process's peak resident memory, and the ratio of
  their times against the ratio of their judgements.
* ``compendium audit`` (the HTML report) on 10 items x 2 systems x 10^4
  raters (:data:`RATERS_DESIGN`), whose pairwise rater statistics are
  computed on a seeded sample of 20,000 of the 5 x 10^7 pairs.
* ``compendium audit --pairwise`` on 10^6 simulated votes
  (:data:`VOTES_DESIGN`: 10^5 items x 8 systems x 50 raters): Bradley-Terry
  with its bootstraps over items and raters.
* lme4's ``lmer`` on the same 10^6 study, where ``Rscript`` and lme4 are
  installed (otherwise a row says why not): the median of :data:`RUNS` fits,
  each in a fresh R process, the ratio to this package's median, and the
  largest relative difference between the two sets of variance components.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Memory cap (address space, bytes) and time limit of one probe.
LIMIT_BYTES, LIMIT_SECONDS = 4_000_000_000, 300
#: The lme4 peer's time limit per fit (lme4 takes about 40 s on 10^5 judgements here).
PEER_SECONDS = 900
#: Runs of each timed case; the table gives their median.
RUNS = 3
#: Incomplete REML studies: items x systems x raters, share of cells missing (10^5 and 10^6 judgements).
REML_SCALE = ((1800, 8, 10, 0.3), (18000, 8, 10, 0.3))
#: Issue 57's goals for the 10^6 study.
REML_GOAL_SECONDS, REML_GOAL_MB = 60.0, 1500.0
#: Many raters: items x systems x raters (2 x 10^5 judgements), and the goal of the whole command.
RATERS_DESIGN = (10, 2, 10_000)
RATERS_GOAL_SECONDS, RATERS_GOAL_MB = 60.0, 2000.0
#: Pairwise votes: votes, items, systems, raters; and the goal of the whole command.
VOTES_DESIGN = (1_000_000, 100_000, 8, 50)
VOTES_GOAL_SECONDS = 30.0

#: The peer: the same model in lme4, one fit per process, timed around ``lmer`` alone.
LME4_SCRIPT = r"""
args <- commandArgs(TRUE)
suppressMessages(library(lme4))
d <- read.csv(args[1], colClasses = c(item = "factor", system = "factor", rater = "factor"))
seconds <- system.time(fit <- lmer(rating ~ 0 + system + (1 | item) + (1 | rater) + (1 | item:system) +
                                     (1 | item:rater) + (1 | system:rater), data = d, REML = TRUE))[["elapsed"]]
cat("versions", as.character(packageVersion("lme4")), paste(R.version$major, R.version$minor, sep = "."), "\n")
cat("seconds", seconds, "\n")
vc <- as.data.frame(VarCorr(fit))
for (j in seq_len(nrow(vc))) cat("variance", vc$grp[j], format(vc$vcov[j], digits = 15), "\n")
cat("deviance", format(REMLcrit(fit), digits = 15), "\n")
"""
#: lme4's names of the components, and this package's.
LME4_NAMES = {"item": "item", "rater": "annotator", "item:system": "item:system", "item:rater": "item:annotator",
              "system:rater": "system:annotator", "Residual": "residual"}


def _study(n_items: int, n_systems: int, n_raters: int, missing: float, seed: int = 0):
    from compendium.simulate.crossed import simulate_incomplete

    return simulate_incomplete(n_items, n_systems, n_raters, missing=missing, seed=seed, scale=(1, 5),
                               item="item", rater="rater")


def reml_probe(n_items: int, n_systems: int, n_raters: int, missing: float, *, seed: int = 0) -> dict:
    """Time the REML variance components and G (:mod:`compendium.stats.gstudy`) on an incomplete study, in
    this process; the peak resident memory is the process's (interpreter, simulated study and fit)."""
    from compendium.stats import gstudy

    data = _study(n_items, n_systems, n_raters, missing, seed)
    start, cpu = time.perf_counter(), time.process_time()
    study = gstudy.fit_gstudy(data, item="item", rater="rater")
    g = gstudy.g_summary(study)
    return {"judgements": len(data), "seconds": round(time.perf_counter() - start, 3),
            "cpu_seconds": round(time.process_time() - cpu, 3), "G": round(g["G"], 4),
            "evaluations": study.fit.n_evaluations, "deviance": study.fit.deviance,
            "variances": {k: float(v) for k, v in study.fit.variances.items()},
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))


def probe(call: str, seconds: float = LIMIT_SECONDS) -> dict:
    """Run ``compendium.build.bench_scale.<call>`` in a fresh interpreter under the memory cap and time limit;
    its JSON, or ``{"failed": why}``."""
    from compendium.build import runner

    code = f"import json, compendium.build.bench_scale as b; print(json.dumps(b.{call}))"
    env = {**os.environ, **runner.KERNEL_ENVIRONMENT}
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                              timeout=seconds, preexec_fn=_cap)
    except subprocess.TimeoutExpired:
        return {"failed": f"not done after {seconds:.0f} s"}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return {"failed": f"exit {done.returncode} under a {LIMIT_BYTES / 1e9:.0f} GB cap: {last}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(results: list[dict]) -> dict:
    """The run of median time (the first of the runs for everything else), with every run's seconds."""
    ordered = sorted(results, key=lambda r: r["seconds"])
    middle = dict(ordered[len(ordered) // 2])
    middle["runs_seconds"] = [r["seconds"] for r in results]
    middle["seconds"] = statistics.median(r["seconds"] for r in results)
    return middle


def _print(row: dict) -> None:
    notes = [row["note"]] if row.get("note") else []
    if row.get("peak_rss_mb") is not None:
        notes.append(f"peak RSS {row['peak_rss_mb']:,.0f} MB")
    seconds = f"{row['seconds']:>9.2f} s" if row.get("seconds") is not None else f"{'-':>9}  "
    print(f"{row['stage']:<62} {seconds}   {'; '.join(notes)}", flush=True)


def reml_rows(rows: list[dict], designs=REML_SCALE, runs: int = RUNS) -> dict | None:
    """REML at each size (median of ``runs``), then the scaling ratio; returns the largest study's median."""
    medians = []
    for design in designs:
        results = [probe(f"reml_probe{tuple(design)}") for _ in range(runs)]
        failed = [r["failed"] for r in results if "failed" in r]
        label = f"REML components + G, {design[0]:,} items x {design[1]} x {design[2]}, {design[3]:.0%} missing"
        if failed:
            rows.append({"stage": label, "section": "scale", "design": list(design), "seconds": None,
                         "note": failed[0]})
            _print(rows[-1])
            return None
        median = _median(results)
        goal = ""
        if median["judgements"] >= 1_000_000:
            met = median["seconds"] < REML_GOAL_SECONDS and median["peak_rss_mb"] < REML_GOAL_MB
            goal = f"; goal {REML_GOAL_SECONDS:.0f} s and {REML_GOAL_MB:,.0f} MB: {'met' if met else 'NOT met'}"
        note = (f"{median['judgements']:,} judgements, median of {runs} "
                f"({', '.join(f'{s:.1f}' for s in median['runs_seconds'])} s), "
                f"{median['evaluations']} deviance evaluations{goal}")
        rows.append({"stage": label, "section": "scale", "design": list(design), **median, "note": note})
        _print(rows[-1])
        medians.append(median)
    if len(medians) >= 2:
        small, large = medians[0], medians[-1]
        size, cost = large["judgements"] / small["judgements"], large["seconds"] / small["seconds"]
        rows.append({"stage": "REML scaling, largest study against the smallest", "section": "scale",
                     "seconds": None, "judgements_ratio": round(size, 2), "time_ratio": round(cost, 2),
                     "note": f"{size:.1f}x the judgements, {cost:.1f}x the time ({cost / size:.2f} per unit of "
                             "linear growth)"})
        _print(rows[-1])
    return medians[-1] if medians else None


def _audit_command(arguments: list[str], scratch: str) -> tuple[float, dict, float]:
    """Run ``compendium audit ARGUMENTS --out SCRATCH/report`` in a fresh interpreter: its seconds, its
    ``audit.json`` and the peak resident memory of the largest of its processes (the command or a kernel)."""
    command = [sys.executable, "-m", "compendium.cli", "audit", *arguments, "--out", str(Path(scratch) / "report")]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    summary = json.loads((Path(scratch) / "report" / "audit.json").read_text(encoding="utf-8"))
    return round(seconds, 3), summary, round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)


def _command_row(rows: list[dict], label: str, probe_name: str, design, describe) -> None:
    """A row of :func:`probe` running ``probe_name(*design, scratch)``, its note from ``describe(result)``."""
    with tempfile.TemporaryDirectory(prefix="compendium-bench-scale-") as scratch:
        result = probe(f"{probe_name}{tuple(design) + (scratch,)!r}")
    if "failed" in result:
        rows.append({"stage": label, "section": "scale", "seconds": None, "note": result["failed"]})
    else:
        rows.append({"stage": label, "section": "scale", "design": list(design), **result, "note": describe(result)})
    _print(rows[-1])


def raters_probe(n_items: int, n_systems: int, n_raters: int, scratch: str, seed: int = 0) -> dict:
    """Time ``compendium audit`` (the HTML report, the default) end to end on a complete study with many raters."""
    from compendium.simulate.crossed import simulate_crossed

    data = simulate_crossed(n_items, n_systems, n_raters, seed=seed, scale=(1, 5), item="item", rater="rater")
    path = Path(scratch) / "raters.csv"
    data.to_csv(path, index=False)
    seconds, summary, peak = _audit_command([str(path), "--item", "item", "--rater", "rater"], scratch)
    return {"judgements": len(data), "seconds": seconds, "peak_rss_mb": peak,
            "pairs_computed": summary["rater_pairs"]["computed"], "pairs_total": summary["rater_pairs"]["pairs"]}


def raters_row(rows: list[dict], design=RATERS_DESIGN) -> None:
    """The audit of a study with many raters, from the command line."""

    def describe(result: dict) -> str:
        met = result["seconds"] < RATERS_GOAL_SECONDS and result["peak_rss_mb"] < RATERS_GOAL_MB
        return (f"{result['judgements']:,} judgements; pairwise statistics on {result['pairs_computed']:,} of "
                f"{result['pairs_total']:,} rater pairs; goal {RATERS_GOAL_SECONDS:.0f} s and "
                f"{RATERS_GOAL_MB:,.0f} MB: {'met' if met else 'NOT met'}")

    _command_row(rows, f"compendium audit, {design[2]:,} raters ({design[0]} items x {design[1]} systems)",
                 "raters_probe", design, describe)


def votes(n_votes: int, n_items: int, n_systems: int, n_raters: int, seed: int = 0):
    """``n_votes`` simulated pairwise votes: a random item, pair of systems and rater each, and the winner from
    Bradley-Terry strengths spread over [-0.6, 0.6] plus each rater's own taste (SD 0.2), 10 % ties; no
    (item, pair, rater) twice."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    n = int(n_votes * 1.01) + 100  # a few are drawn twice and dropped
    strength = np.linspace(-0.6, 0.6, n_systems)
    taste = rng.normal(0, 0.2, (n_raters, n_systems))
    item, rater = rng.integers(0, n_items, n), rng.integers(0, n_raters, n)
    a = rng.integers(0, n_systems, n)
    b = (a + rng.integers(1, n_systems, n)) % n_systems
    p = 1 / (1 + np.exp(-(strength[a] - strength[b] + taste[rater, a] - taste[rater, b])))
    winner = np.where(rng.random(n) < 0.1, "tie", np.where(rng.random(n) < p, "a", "b"))
    key = pd.DataFrame({"i": item, "lo": np.minimum(a, b), "hi": np.maximum(a, b), "r": rater})
    keep = np.flatnonzero(~key.duplicated().to_numpy())[:n_votes]
    return pd.DataFrame({"item": item[keep], "system_a": np.char.add("S", a[keep].astype(str)),
                         "system_b": np.char.add("S", b[keep].astype(str)),
                         "rater": np.char.add("R", rater[keep].astype(str)), "winner": winner[keep]})


def votes_probe(n_votes: int, n_items: int, n_systems: int, n_raters: int, scratch: str) -> dict:
    """Time ``compendium audit --pairwise`` end to end (Bradley-Terry, its bootstraps over items and raters,
    agreement on the outcomes, the report)."""
    path = Path(scratch) / "votes.csv"
    votes(n_votes, n_items, n_systems, n_raters).to_csv(path, index=False)
    seconds, summary, peak = _audit_command(["--pairwise", str(path)], scratch)
    return {"judgements": int(summary["n_judgements"]), "seconds": seconds, "peak_rss_mb": peak,
            "winner": summary["winner"], "n_boot": summary["n_boot"]}


def votes_row(rows: list[dict], design=VOTES_DESIGN) -> None:
    """The pairwise audit of many votes, from the command line."""

    def describe(result: dict) -> str:
        met = result["seconds"] < VOTES_GOAL_SECONDS
        return (f"{design[1]:,} items x {design[2]} systems x {design[3]} raters, {result['n_boot']:,} bootstrap "
                f"replicates over items; goal {VOTES_GOAL_SECONDS:.0f} s: {'met' if met else 'NOT met'}")

    _command_row(rows, f"compendium audit --pairwise, {design[0]:,} votes", "votes_probe", design, describe)


def lme4_available() -> str | None:
    """None when ``Rscript`` and lme4 are here; otherwise why the peer row is skipped."""
    if shutil.which("Rscript") is None:
        return "Rscript is not installed"
    done = subprocess.run(["Rscript", "-e", "suppressMessages(library(lme4))"], capture_output=True, text=True)
    if done.returncode != 0:
        return "R has no lme4 (" + (done.stderr.strip().splitlines() or ["library(lme4) failed"])[-1] + ")"
    return None


def parse_lme4(text: str) -> dict:
    """The seconds, versions and variance components printed by :data:`LME4_SCRIPT`."""
    out: dict = {"variances": {}}
    for line in text.splitlines():
        parts = line.split()
        if parts[:1] == ["seconds"]:
            out["seconds"] = float(parts[1])
        elif parts[:1] == ["versions"]:
            out["lme4"], out["R"] = parts[1], parts[2]
        elif parts[:1] == ["variance"]:
            out["variances"][LME4_NAMES.get(parts[1], parts[1])] = float(parts[2])
        elif parts[:1] == ["deviance"]:
            out["deviance"] = float(parts[1])
    if "seconds" not in out or not out["variances"]:
        raise ValueError(f"the lme4 peer printed no result: {text[-300:]!r}")
    return out


def lme4_row(rows: list[dict], design=REML_SCALE[-1], ours: dict | None = None, runs: int = RUNS) -> None:
    """lme4 on the same study (median of ``runs`` fresh R processes), against ``ours`` (:func:`reml_rows`)."""
    label = f"lme4 lmer, the same {design[0]:,}-item study"
    why = lme4_available()
    if why is not None:
        rows.append({"stage": label, "section": "scale", "seconds": None, "note": f"skipped: {why}"})
        _print(rows[-1])
        return
    with tempfile.TemporaryDirectory(prefix="compendium-bench-lme4-") as scratch:
        data, script = Path(scratch) / "study.csv", Path(scratch) / "peer.R"
        _study(*design).to_csv(data, index=False)
        script.write_text(LME4_SCRIPT, encoding="utf-8")
        results = []
        for _ in range(runs):
            try:
                done = subprocess.run(["Rscript", str(script), str(data)], capture_output=True, text=True,
                                      timeout=PEER_SECONDS, check=True)
            except subprocess.TimeoutExpired:
                rows.append({"stage": label, "section": "scale", "seconds": None,
                             "note": f"lme4 not done after {PEER_SECONDS} s"})
                _print(rows[-1])
                return
            results.append(parse_lme4(done.stdout))
            results[-1]["warned"] = "failed to converge" in done.stderr
    peer = _median(results)
    row = {"stage": label, "section": "scale", **peer}
    note = (f"lme4 {peer['lme4']}, R {peer['R']}, median of {runs} "
            f"({', '.join(f'{s:.1f}' for s in peer['runs_seconds'])} s)")
    if ours is not None:
        names = sorted(set(peer["variances"]) & set(ours["variances"]))
        # As a share of the total variance: a component at the boundary (1e-7 in one, 0 in the other) has no
        # meaningful relative difference.
        total = sum(peer["variances"].values())
        difference = max(abs(peer["variances"][k] - ours["variances"][k]) for k in names) / total
        row.update(ratio=round(peer["seconds"] / ours["seconds"], 2), max_difference_share=difference)
        note += (f"; {row['ratio']}x this package's time; components differ by at most {difference:.1e} of the "
                 "total variance")
        if "deviance" in peer:  # the REML criterion both minimise: the lower found the better optimum
            row["deviance_difference"] = ours["deviance"] - peer["deviance"]
            note += f"; REML criterion this package's minus lme4's {row['deviance_difference']:+.2g}"
    warned = sum(r["warned"] for r in results)
    if warned:  # lme4's own convergence check (checkConv) failed
        note += f"; lme4 warned that the model failed to converge in {warned} of {runs} runs"
    row["note"] = note
    rows.append(row)
    _print(rows[-1])


def scale_rows(rows: list[dict]) -> None:
    """The scale section: REML at 10^5 and 10^6 judgements, the scaling ratio, the lme4 peer, many raters and
    many pairwise votes."""
    ours = reml_rows(rows)
    lme4_row(rows, ours=ours)
    raters_row(rows)
    votes_row(rows)

