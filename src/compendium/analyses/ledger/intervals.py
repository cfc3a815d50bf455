"""What the book's intervals are worth: every kind of interval a verdict rests on, with its measured coverage.

An interval that says 95 % and covers 90 % makes a verdict look firmer than it is, and a reader cannot see it.
This module lists each kind of interval the book's verdicts and audits rest on (:data:`KINDS`), measures how
often it covers in simulation from the design it was used on, and stores the result as a record the build reads
(:data:`RECORD`, written by ``make bench`` -- ``compendium bench --sections coverage`` -- and committed). The
ledger chapter shows it as a table (:func:`table`), and a verdict box says so where the interval its check rests
on covered less than :data:`compendium.stats.coverage.RANGE`'s lower end (:func:`box_note`).

How each kind is measured (:mod:`compendium.stats.coverage`):

* G and each system's mean: studies simulated from the design's own REML fit on its observed cells, each
  interval recomputed as the audit computes it (:func:`compendium.stats.coverage.measure`);
* the length slope: responses simulated from the fitted mixed model, refitted, the Satterthwaite t interval
  recomputed (:func:`compendium.stats.coverage.lmm_coefficient_coverage`);
* the percentile bootstraps over rows (decodability, the token ratios): the bootstrap's own world, the
  observed rows taken as the population (:func:`compendium.stats.coverage.resampling_coverage`);
* the Wilson intervals of a share: exactly, from the binomial distribution
  (:func:`compendium.stats.coverage.wilson_coverage`).

A kind that is not measured says why (``not_measured``); it is listed all the same.

The decision study's raters needed is a point estimate with no interval, so it has no coverage; the record's
``promises`` hold how often a panel of the recommended size reaches the target under each complete design's own
fit (:func:`measure_raters_needed`), which the ledger shows and the audit report quotes.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.stats import coverage

__all__ = ["Kind", "KINDS", "RECORD", "SEED", "build_record", "write_record", "load_record", "table", "summary_table",
           "kind_of", "box_note", "design_coverage", "replaced_text", "raters_needed_table", "raters_needed_span"]

#: The committed record (``make bench`` writes it; the build reads it).
RECORD = Path(__file__).with_name("interval_coverage.json")
#: The record's seed: the same simulations on every run.
SEED = 72
#: The number of panels the section-4 winner-change probability is estimated from (its Wilson interval's n).
PANELS = 2000


@dataclasses.dataclass(frozen=True)
class Kind:
    """One kind of interval: ``key`` (the record's), ``name`` and ``method`` in words, ``checks`` (the prefixes of
    the real-data checks and tables it serves), ``measured`` (how its coverage is measured, in words)."""

    key: str
    name: str
    method: str
    checks: tuple[str, ...]
    measured: str


_SIMULATED_FIT = "studies simulated from the design's own REML fit on its observed cells"
_BOOTSTRAP_WORLD = ("the bootstrap's own world: samples of the study's size drawn from its observed rows, the "
                    "truth the value on all of them")
KINDS: tuple[Kind, ...] = (
    Kind("G", "G of the system means", "noncentral-F interval, systems fixed (mean squares on a complete design, "
         "the REML fit with Satterthwaite's df on an incomplete one)", ("audit: G",), _SIMULATED_FIT),
    Kind("system_mean", "each system's mean rating", "t interval with items and raters random, Satterthwaite's df",
         ("audit: system means",), _SIMULATED_FIT + "; coverage over every system of the design"),
    Kind("variance_ratio", "rater over system variance, and G of three raters",
         "generalized confidence interval, 2,000 draws, on a complete design; REML parametric-bootstrap "
         "percentile interval, 2,000 replicates, on an incomplete one",
         ("vc.real_raters_exceed_systems", "dstudy.real_three_raters_below_g80"),
         _SIMULATED_FIT + " (SummEval's four dimensions, complete; the incomplete designs' refitted bootstrap "
         "is not measured)"),
    Kind("panel_probability", "probability that a removal changes the winner",
         f"Wilson interval over {PANELS:,} resampled panels", ("loao.real_winner_changes",),
         "exactly, from the binomial distribution of the panels, over the range of probabilities"),
    Kind("length_slope", "length slope of quality", "mixed-model t interval, Satterthwaite's df (lmerTest)",
         ("length.real_mqm_tracks_length", "length.real_mqm_survives_per_word"),
         "responses simulated from the fitted mixed model, refitted"),
    Kind("share", "share of judgements the longer response wins", "Wilson interval",
         ("length.real_pandalm_longer_wins",), "exactly, from the binomial distribution at the observed share"),
    Kind("ead", "decodability (macro-F1 of out-of-fold predictions)",
         "percentile bootstrap over rows, 2,000 replicates, predictions fixed",
         ("ead.human_decodable", "ead.human_language_specific"), _BOOTSTRAP_WORLD),
    Kind("ead_difference", "emoji decodability minus the best encoder's probe",
         "paired percentile bootstrap over rows, 2,000 replicates, predictions fixed",
         ("ead.real_emoji_vs_embedding",), _BOOTSTRAP_WORLD),
    Kind("token_ratio", "tokens of a translation over tokens of its English source",
         "percentile bootstrap over sentences of a ratio of sums, 2,000 replicates",
         ("cost.real_parallel_premium",), _BOOTSTRAP_WORLD),
    Kind("leakage", "row-wise minus grouped macro-F1 (leakage optimism)",
         "corrected resampled t (Nadeau and Bengio 2003), 6 replicates", ("leakage.real_mqm_rowwise_inflation",),
         "not measured"),
)
_BY_KEY = {k.key: k for k in KINDS}

#: Why a kind is not measured (the record repeats it).
NOT_MEASURED = {
    "leakage": "each simulated study would need 12 decoder fits on a simulated MQM corpus, and no fitted model "
               "defines the population's optimism to cover; the corrected resampled t is known to hold its level "
               "better than the plain one (Nadeau and Bengio 2003; Bouckaert and Frank 2004), not to keep 95 %",
}


def kind_of(check: str) -> Kind | None:
    """The kind of interval a real-data check rests on (by its id's prefix), or None."""
    for kind in KINDS:
        if any(check == c or check.startswith(c + ".") or check.startswith(c + "_") for c in kind.checks):
            return kind
    return None


# --- measuring ---------------------------------------------------------------------------------------------


def _rated_designs() -> dict[str, tuple[pd.DataFrame, int]]:
    """The rated evaluations the book audits, each with its number of simulations (400 on the MQM designs)."""
    from compendium.data import real
    from compendium.data.paths import project_root

    out = {f"SQuALITY {p}": (real.load_squality(p), 1000) for p in real.SQUALITY_PROPERTIES}
    out["WMT23 en-de MQM"] = (real.load_mqm("ende"), 400)
    out["WMT23 zh-en MQM"] = (real.load_mqm("zhen"), 400)
    for dimension in real.SUMMEVAL_DIMENSIONS:
        out[f"SummEval {dimension}"] = (real.load_summeval(dimension), 1000)
    bench = pd.read_csv(project_root() / "data" / "ratings.csv")
    out["simulated benchmark"] = (bench.rename(columns={"sentence_id": "item", "annotator": "rater"}), 1000)
    return out


def _row(design: str, frame: pd.DataFrame, seconds: float, **extra) -> dict:
    s = coverage.summarise(frame).iloc[0]
    return {"design": design, "n_sim": int(s["n_sim"]), "coverage": float(s["coverage"]),
            "mc_error": float(s["mc_error"]), "below": float(s["below"]), "above": float(s["above"]),
            "median_width": float(s["median_width"]), "seconds": round(seconds, 1), **extra}


def measure_rated(executor: Executor | None = None, *, only: Sequence[str] = ()) -> tuple[list[dict], list[dict]]:
    """G's and the system means' coverage on every rated design (:func:`_rated_designs`)."""
    from compendium.stats import gstudy

    g_rows, mean_rows = [], []
    for design, (data, n_sim) in _rated_designs().items():
        if only and design not in only:
            continue
        study = gstudy.fit_gstudy(data, item="item", rater="rater")
        complete = study.n_judgements == study.n_items * len(study.systems) * study.n_raters
        started = time.perf_counter()
        frame = coverage.measure(study, n_sim, complete=complete, seed=SEED, executor=executor)
        seconds = time.perf_counter() - started
        g_rows.append(_row(design, frame[frame["interval"] == "G"], seconds, complete=bool(complete)))
        means = frame[frame["interval"].str.startswith("mean ")]
        per = coverage.summarise(means)
        row = _row(design, means.assign(interval="system mean"), seconds, complete=bool(complete), systems=len(per),
                   lowest=float(per["coverage"].min()), lowest_system=str(per["coverage"].idxmin())[len("mean "):])
        # one simulated study gives every system's interval: the study is the unit of the Monte Carlo error
        hit = (means["low"] <= means["truth"]) & (means["truth"] <= means["high"])
        share = hit.groupby(means["sim"]).mean()
        row.update(n_sim=len(share), mc_error=float(share.std(ddof=1) / np.sqrt(len(share))))
        mean_rows.append(row)
    return g_rows, mean_rows


def variance_ratio_intervals(study, *, complete: bool, n_boot: int, seed: int | None, refit=None) -> dict:
    """Section 4's two intervals on one (simulated) study, as the book computes them
    (:func:`compendium.stats.rater_variance.log_ratio_ci`, its 2,000 draws): the log ratio of the rater main
    effect to the systems, and G of three raters as the items grow. For :func:`compendium.stats.coverage.measure`."""
    from compendium.stats import rater_variance

    out = rater_variance.log_ratio_ci(refit if refit is not None else study, seed=seed)
    return {"log ratio": tuple(out["ci"]["annotator"]), "G of three raters": tuple(out["g_limit_3_ci"])}


def percentile_intervals(study, *, complete: bool, n_boot: int, seed: int | None, refit=None) -> dict:
    """The candidate the generalized interval replaced on complete designs: percentiles of ``n_boot``
    parametric-bootstrap replicates (:func:`compendium.stats.rater_variance.balanced_replicates`)."""
    from compendium.stats import rater_variance

    reps = rater_variance.balanced_replicates(refit if refit is not None else study, n_boot, seed)
    ratios = np.array([rater_variance.log_ratios(row)["annotator"] for _, row in reps.iterrows()])
    limits = np.array([rater_variance.g_limit(row) for _, row in reps.iterrows()])
    ratios, limits = ratios[np.isfinite(ratios)], limits[np.isfinite(limits)]
    return {"log ratio": tuple(np.quantile(ratios, [0.025, 0.975]).tolist()),
            "G of three raters": tuple(np.quantile(limits, [0.025, 0.975]).tolist())}


def variance_ratio_truths(study) -> dict[str, float]:
    """What :func:`variance_ratio_intervals` should hold under the fit: its rater variance over the variance of
    its fixed system means (``b' C b / k``, which the unbiased system variance estimates), and G of three."""
    from compendium.stats import rater_variance

    comps = rater_variance.components(study)
    beta = np.asarray(study.fit.beta, dtype=float)
    truth = {**comps, "system": float(np.sum((beta - beta.mean()) ** 2)) / len(beta)}
    return {"log ratio": rater_variance.log_ratios(truth)["annotator"],
            "G of three raters": rater_variance.g_limit(truth)}


#: The candidate a kind's interval replaced, by kind: its name in words and how it was measured.
CANDIDATES = {"variance_ratio": "parametric-bootstrap percentile interval"}


def measure_variance_ratio(executor: Executor | None = None, *, n_sim: int = 1000,
                           candidate_sims: int = 400, n_boot: int = 400) -> tuple[list[dict], list[dict]]:
    """Section 4's intervals on SummEval's four dimensions (complete designs): ``n_sim`` studies simulated from
    each dimension's fit, each given the book's generalized interval (2,000 draws); and the first
    ``candidate_sims`` of them the percentile interval it replaced (:data:`CANDIDATES`).

    The candidate takes ``n_boot`` replicates, not 2,000: each replicate is a REML optimisation, and 2,000 x 400
    of them per dimension take 20 minutes on two cores. Fewer replicates move the interval's ends by their Monte
    Carlo error, which adds a little spread and so lowers coverage a little; its 0.74-0.76 is far below that.

    Returns
    -------
    tuple of list of dict
        The book's rows and the candidate's, one per dimension and interval.
    """
    from compendium.data import real
    from compendium.stats import gstudy

    out: tuple[list[dict], list[dict]] = ([], [])
    for dimension in real.SUMMEVAL_DIMENSIONS:
        study = gstudy.fit_gstudy(real.load_summeval(dimension), item="item", rater="rater")
        truth = variance_ratio_truths(study)
        for rows, sims, intervals in ((out[0], n_sim, variance_ratio_intervals),
                                      (out[1], candidate_sims, percentile_intervals)):
            if not sims:
                continue
            started = time.perf_counter()
            frame = coverage.measure(study, sims, complete=True, seed=SEED, n_boot=n_boot, executor=executor,
                                     intervals=intervals, truth=truth)
            seconds = time.perf_counter() - started
            for name, part in frame.groupby("interval", sort=False):
                check = ("vc.real_raters_exceed_systems" if name == "log ratio"
                         else "dstudy.real_three_raters_below_g80")
                extra = ({"checks": [f"{check}.summeval_{dimension}"]} if intervals is variance_ratio_intervals
                         else {"n_boot": n_boot, "method": CANDIDATES["variance_ratio"]})
                rows.append(_row(f"SummEval {dimension}: {name}", part, seconds, **extra))
    return out


def measure_raters_needed(n_sim: int = 1000) -> list[dict]:
    """The decision study's raters needed on every complete rated design (:func:`_rated_designs`): how often a
    panel of the recommended size reaches G >= 0.8 and 0.9 under the design's own fit
    (:func:`compendium.stats.coverage.raters_needed_promise`). An incomplete design's decision study needs a
    REML refit of every simulated study; it is not measured here."""
    from compendium.stats import gstudy

    rows = []
    for design, (data, _) in _rated_designs().items():
        study = gstudy.fit_gstudy(data, item="item", rater="rater")
        if study.n_judgements != study.n_items * len(study.systems) * study.n_raters:
            continue
        started = time.perf_counter()
        table = coverage.raters_needed_promise(study, n_sim, seed=SEED)
        seconds = round(time.perf_counter() - started, 1)
        for target, row in table.iterrows():
            rows.append({"design": design, "target": float(target), "n_sim": int(row["n_sim"]),
                         "true_needed": None if np.isnan(row["true_needed"]) else int(row["true_needed"]),
                         **{k: float(row[k]) for k in ("reaches", "mc_error", "short", "none", "median_needed")},
                         "seconds": seconds})
    return rows


def measure_length(n_sim: int = 1000) -> list[dict]:
    """The sounder model's length slope on WMT23 en-de MQM, for each outcome and length the verdicts use."""

    from compendium.analyses.length import _inputs
    from compendium.analyses.real import length as real_length
    from compendium.data import mqm_texts, real
    from compendium.stats import mixed

    rows = mqm_texts.load_mqm_rows()
    judgements = real_length.mqm_judgements(
        real.load_mqm(), real_length.mqm_lengths(mqm_texts.texts_from_rows(rows)),
        real_length.mqm_scores(rows, without=real_length.OMISSION_CATEGORIES))
    out = []
    for outcome, length, check in (("quality", "chars100", "tracks_length"), ("quality", "tokens100",
                                                                             "tracks_length_tokens"),
                                   ("quality_no_omission", "chars100", "tracks_length_no_omission"),
                                   ("quality_per_word", "chars100", "survives_per_word")):
        lengths = judgements[["item", "system", length]].drop_duplicates(["item", "system"])
        j, _ = _inputs._judgements(judgements, lengths, item="item", system="system", rater="rater", rating=outcome,
                                   length=length)
        x = j[_inputs._X].to_numpy(dtype=float)
        X = np.column_stack([np.ones(len(j)), x])
        I, S, R = (j[c].to_numpy() for c in (_inputs._I, _inputs._S, _inputs._R))
        terms = [mixed.RandomTerm("item", I), mixed.RandomTerm("output", (I, S)), mixed.RandomTerm("rater", R),
                 mixed.RandomTerm("rater_slope", R, covariate=x)]
        fit = mixed.fit_lmm(j[_inputs._Y].to_numpy(dtype=float), X, terms)
        started = time.perf_counter()
        frame = coverage.lmm_coefficient_coverage(fit, X, terms, 1, n_sim=n_sim, seed=SEED, name="slope")
        out.append(_row(f"WMT23 en-de MQM, {outcome} on {length}", frame, time.perf_counter() - started,
                        n_requested=n_sim, checks=[f"length.real_mqm_{check}"]))
    return out


def measure_shares() -> tuple[list[dict], list[dict]]:
    """The Wilson intervals: each PandaLM annotator's longer-wins share at its n and observed share, and the
    winner-change probability over :data:`PANELS` panels across the range of probabilities."""
    from compendium.analyses.real import length as real_length
    from compendium.data import real

    wins = real_length.longer_wins(real.load_pandalm(), real.load_pandalm_responses())
    shares = [{"design": f"PandaLM, annotator {r.rater}", "n": int(r.n), "at": float(r.rate),
               "checks": [f"length.real_pandalm_longer_wins.{str(r.rater).lower()}"],
               "coverage": coverage.wilson_coverage(int(r.n), float(r.rate)), "mc_error": 0.0}
              for r in wins.itertuples() if r.rater != "all"]
    grid = np.linspace(0.001, 0.999, 999)
    cover = np.array([coverage.wilson_coverage(PANELS, p) for p in grid])
    inner = (grid >= 0.01) & (grid <= 0.99)
    panels = [{"design": f"{PANELS:,} panels, any probability in [0.01, 0.99]", "n": PANELS,
               "coverage": float(cover[inner].min()), "median": float(np.median(cover[inner])), "mc_error": 0.0,
               "at": float(grid[inner][np.argmin(cover[inner])])},
              {"design": f"{PANELS:,} panels, probability below 0.01 or above 0.99", "n": PANELS,
               "coverage": float(cover[~inner].min()), "median": float(np.median(cover[~inner])), "mc_error": 0.0,
               "at": float(grid[~inner][np.argmin(cover[~inner])])}]
    return shares, panels


def measure_ead(n_sim: int = 1000, *, only: Sequence[str] = ()) -> list[dict]:
    """The decodability interval on each human corpus (or those named in ``only``), in the bootstrap's world of
    its out-of-fold rows."""
    from sklearn.metrics import f1_score

    from compendium.analyses.ead import core, inference
    from compendium.analyses.real import ead as real_ead
    from compendium.data import corpora

    corpora_rows = {"GoEmotions": real_ead.select_goemotions(corpora.load_goemotions()),
                    "EmoMix-3L": real_ead.select_emomix3l(corpora.load_emomix3l()),
                    "SentMix-3L": real_ead.select_sentmix3l(corpora.load_sentmix3l())}
    out = []
    for name, rows in corpora_rows.items():
        if only and name not in only:
            continue
        oof = core.ead(rows["text"], rows["label"], seed=SEED, items=rows["item"]).oof[["label", "predicted"]]
        started = time.perf_counter()
        frame = coverage.resampling_coverage(
            oof.reset_index(drop=True), lambda d: f1_score(d["label"], d["predicted"], average="macro"),
            lambda d, s: tuple(inference.bootstrap_ci(d, n_boot=2000, seed=s)[["lo", "hi"]]),
            n_sim=n_sim, seed=SEED, name="ead")
        out.append(_row(f"{name} ({len(oof)} rows)", frame, time.perf_counter() - started,
                        checks=[f"ead.human_decodable_{name.lower().replace('-', '')}"]))
    return out


def measure_ead_difference(n_sim: int = 1000) -> list[dict]:
    """The paired interval of emoji EAD minus the best real encoder's probe, on GoEmotions and EmoMix-3L, in the
    bootstrap's world of their rows (each row's label and both out-of-fold predictions, fixed)."""
    from compendium.analyses.ead import core, inference
    from compendium.analyses.geometry import probe_predictions
    from compendium.analyses.real import ead as real_ead
    from compendium.data import corpora, encoded, encoders

    def f1(labels, predicted):
        return float(inference.bootstrap_macro_f1(labels, predicted, np.arange(len(labels))[None, :])[0])

    def truth(d):
        return f1(d["label"].to_numpy(str), d["emoji"].to_numpy(str)) - f1(d["label"].to_numpy(str),
                                                                           d["probe"].to_numpy(str))

    def interval(d, seed):
        labels = d["label"].to_numpy(str)
        indices = inference.bootstrap_indices(len(d), 2000, seed)
        diff = (inference.bootstrap_macro_f1(labels, d["emoji"].to_numpy(str), indices)
                - inference.bootstrap_macro_f1(labels, d["probe"].to_numpy(str), indices))
        return tuple(np.quantile(diff, [0.025, 0.975]))

    out = []
    for name, corpus, rows in (("GoEmotions", "goemotions", real_ead.select_goemotions(corpora.load_goemotions())),
                               ("EmoMix-3L", "emomix3l", real_ead.select_emomix3l(corpora.load_emomix3l()))):
        labels = np.asarray(rows["label"].tolist(), dtype=str)
        oof = core.ead(rows["text"], rows["label"], seed=SEED, items=rows["item"]).oof
        emoji = oof.set_index("item").loc[rows["item"], "predicted"].to_numpy(str)
        probes = {}
        for encoder in encoders.ENCODERS:
            X = encoded.load_human_embeddings(corpus, encoder).loc[rows["item"].astype(str)].to_numpy()
            probes[encoder] = probe_predictions(X, labels, seed=SEED, C=1.0, n_splits=5)
        best = max(probes, key=lambda e: f1(labels, probes[e]))
        population = pd.DataFrame({"label": labels, "emoji": emoji, "probe": probes[best]})
        started = time.perf_counter()
        frame = coverage.resampling_coverage(population, truth, interval, n_sim=n_sim, seed=SEED, name="difference")
        out.append(_row(f"{name} ({len(population)} rows; best probe with these folds: {best})", frame,
                        time.perf_counter() - started, checks=["ead.real_emoji_vs_embedding"]))
    return out


def measure_tokens(n_sim: int = 500) -> list[dict]:
    """The token-ratio interval for each exact tokenizer and language, in the bootstrap's world of NTREX."""
    from compendium.analyses.real import cost as real_cost
    from compendium.data import corpora

    per = real_cost.sentence_tokens(real_cost.ntrex_units(corpora.load_ntrex()))
    exact = set(real_cost.tokenizer_systems(list(dict.fromkeys(per["tokenizer"]))).query("exact")["tokenizer"])
    wide = per[per["tokenizer"].isin(exact)].pivot_table(index=["tokenizer", "sentence"], columns="language",
                                                          values="tokens", aggfunc="sum")
    out = []
    for tokenizer, part in wide.groupby(level="tokenizer", sort=False):
        for language in ("bn", "hi"):
            pair = pd.DataFrame({"num": part[language].to_numpy(float), "den": part["en"].to_numpy(float)})

            def interval(d, s):
                return real_cost.bootstrap_ratio(d["num"], d["den"], indices=real_cost.bootstrap_indices(
                    len(d), 2000, s))[1:]

            started = time.perf_counter()
            frame = coverage.resampling_coverage(pair, lambda d: d["num"].sum() / d["den"].sum(), interval,
                                                 n_sim=n_sim, seed=SEED, name="ratio")
            out.append(_row(f"NTREX {language}/en, {tokenizer} ({len(pair)} sentences)", frame,
                            time.perf_counter() - started,
                            checks=["cost.real_parallel_premium" + ("_hi" if language == "hi" else "")]))
    return out


#: What one measuring run covers: the kinds measured together (one simulation serves G and the system means).
MEASURED = {"G and the system means": ("G", "system_mean"), "the variance ratio": ("variance_ratio",),
            "the length slope": ("length_slope",), "the Wilson intervals": ("share", "panel_probability"),
            "decodability": ("ead", "ead_difference"), "the token ratios": ("token_ratio",),
            "the raters needed": ("raters_needed",)}


def build_record(executor: Executor | None = None, *, kinds: Sequence[str] = ()) -> dict:
    """Measure every kind (or ``kinds``) and return the record (merged into the stored one by
    :func:`write_record`)."""
    wanted = set(kinds) or {k.key for k in KINDS} | {"raters_needed"}
    measured: dict[str, list[dict]] = {}
    if wanted & {"G", "system_mean"}:
        measured["G"], measured["system_mean"] = measure_rated(executor)
    candidates: dict[str, list[dict]] = {}
    if "variance_ratio" in wanted:
        measured["variance_ratio"], candidates["variance_ratio"] = measure_variance_ratio(executor)
    if "length_slope" in wanted:
        measured["length_slope"] = measure_length()
    if wanted & {"share", "panel_probability"}:
        measured["share"], measured["panel_probability"] = measure_shares()
    if "ead" in wanted:
        measured["ead"] = measure_ead()
    if "ead_difference" in wanted:
        measured["ead_difference"] = measure_ead_difference()
    if "token_ratio" in wanted:
        measured["token_ratio"] = measure_tokens()
    promises = {"raters_needed": measure_raters_needed()} if "raters_needed" in wanted else {}
    return {"seed": SEED, "nominal": coverage.NOMINAL, "range": list(coverage.RANGE), "promises": promises,
            "kinds": {key: {"designs": rows, **({"candidates": candidates[key]} if key in candidates else {})}
                      for key, rows in measured.items()}}


def write_record(executor: Executor | None = None, *, kinds: Sequence[str] = (), path: Path = RECORD) -> dict:
    """:func:`build_record`, merged kind by kind into the stored record, written atomically."""
    new = build_record(executor, kinds=kinds)
    record = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"kinds": {}}
    record.update({k: v for k, v in new.items() if k not in ("kinds", "promises")})
    record["kinds"].update(new["kinds"])
    record.setdefault("promises", {}).update(new["promises"])
    record["kinds"] = {k.key: record["kinds"][k.key] for k in KINDS if k.key in record["kinds"]}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
    return record


def load_record(path: Path = RECORD) -> dict:
    """The stored record (``{"kinds": {}}`` when there is none yet)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"kinds": {}}


# --- showing -----------------------------------------------------------------------------------------------


def _coverage_text(row: Mapping) -> str:
    if row.get("mc_error"):
        return f"{row['coverage']:.3f} ± {row['mc_error']:.3f}"
    return f"{row['coverage']:.3f} (exact)"


def table(record: Mapping | None = None) -> pd.DataFrame:
    """The appendix's detail: one row per kind and design it was measured on (a kind not measured has one row
    saying why): ``interval, design, simulations, coverage, below, above``."""
    record = load_record() if record is None else record
    rows = []
    for kind in KINDS:
        designs = record["kinds"].get(kind.key, {}).get("designs", [])
        if not designs:
            rows.append({"interval": kind.name, "design": "not measured", "simulations": "",
                         "coverage": NOT_MEASURED.get(kind.key, "not measured yet"), "below": "", "above": ""})
        candidates = record["kinds"].get(kind.key, {}).get("candidates", [])
        for row in [*designs, *candidates]:
            exact = not row.get("mc_error")
            design = (f"{row['design']} ({row['method']}, {row['n_boot']:,} replicates; replaced)" if "method" in row
                      else row["design"])
            rows.append({"interval": kind.name, "design": design,
                         "simulations": "exact" if exact else f"{row['n_sim']:,}", "coverage": _coverage_text(row),
                         **{side: "" if exact else f"{row[side]:.3f}" for side in ("below", "above")}})
    return pd.DataFrame(rows)


def raters_needed_table(record: Mapping | None = None) -> pd.DataFrame:
    """The decision study's promise on each design it was measured on: ``design, target, simulations, raters the
    fit needs, recommended (median), reaches the target, too few, none recommended``."""
    record = load_record() if record is None else record
    rows = [{"design": r["design"], "target": f"G ≥ {r['target']:.1f}", "simulations": f"{r['n_sim']:,}",
             "raters the fit needs": "none reaches it" if r["true_needed"] is None else r["true_needed"],
             "recommended (median)": "none" if np.isnan(r["median_needed"]) else f"{r['median_needed']:.0f}",
             "reaches the target": f"{r['reaches']:.3f} ± {r['mc_error']:.3f}", "too few": f"{r['short']:.3f}",
             "none recommended": f"{r['none']:.3f}"}
            for r in record.get("promises", {}).get("raters_needed", [])]
    return pd.DataFrame(rows)


def raters_needed_span(record: Mapping | None = None, target: float = 0.8) -> tuple[float, float] | None:
    """The lowest and highest share of simulated studies whose recommended panel reached ``target``, over the
    designs measured, or None where none was."""
    record = load_record() if record is None else record
    shares = [r["reaches"] for r in record.get("promises", {}).get("raters_needed", []) if r["target"] == target]
    return (min(shares), max(shares)) if shares else None


def replaced_text(record: Mapping | None = None) -> str:
    """A sentence for each interval the book replaced after measuring it: the candidate's coverage (lowest to
    highest over its designs) and the interval that replaced it with its own, from the record; empty where
    none was replaced."""
    record = load_record() if record is None else record
    out = []
    for kind in KINDS:
        entry = record["kinds"].get(kind.key, {})
        if not entry.get("candidates") or not entry.get("designs"):
            continue
        old = [r["coverage"] for r in entry["candidates"]]
        new = [r["coverage"] for r in entry["designs"]]
        out.append(f"Replaced after measuring: the interval of the {kind.name} was a "
                   f"{entry['candidates'][0]['method']}, which covered {min(old):.3f} to "
                   f"{max(old):.3f}. On a complete design it is now a {kind.method.split(',')[0]}, which covered "
                   f"{min(new):.3f} to {max(new):.3f} on the same designs.")
    return " ".join(out)


def summary_table(record: Mapping | None = None) -> pd.DataFrame:
    """The appendix's table: one row per kind of interval, ``interval, method, measured (how, on how many
    designs), coverage`` (the lowest and highest over its designs) and ``below 0.935`` (the designs that missed
    the range from below, or "none")."""
    record = load_record() if record is None else record
    rows = []
    for kind in KINDS:
        designs = record["kinds"].get(kind.key, {}).get("designs", [])
        if not designs:
            rows.append({"interval": kind.name, "method": kind.method, "measured": "not measured",
                         "coverage": NOT_MEASURED.get(kind.key, "not measured yet"), "below 0.935": ""})
            continue
        values = [d["coverage"] for d in designs]
        span = f"{min(values):.3f}" if len(values) == 1 else f"{min(values):.3f} to {max(values):.3f}"
        low = [d["design"] for d in designs if d["coverage"] < coverage.RANGE[0]]
        rows.append({"interval": kind.name, "method": kind.method,
                     "measured": f"{kind.measured}; {len(designs)} design{'s' if len(designs) > 1 else ''}",
                     "coverage": span, "below 0.935": "; ".join(low) or "none"})
    return pd.DataFrame(rows)


#: Names of the record's designs in other places of the book (chapter 10 calls WMT23 en-de MQM "WMT23 MQM").
ALIASES = {"WMT23 MQM": "WMT23 en-de MQM"}


def design_coverage(kind: str, design: str, record: Mapping | None = None) -> str | None:
    """The measured coverage of ``kind``'s interval on ``design`` as text ("0.930 ± 0.008"), or None where the
    record has no such design."""
    record = load_record() if record is None else record
    design = ALIASES.get(design, design)
    for row in record["kinds"].get(kind, {}).get("designs", []):
        if row["design"] == design:
            return _coverage_text(row)
    return None


def box_note(check: Mapping, record: Mapping | None = None) -> str | None:
    """What a verdict box adds where an interval a real-data check rests on covered less than 0.935 in
    simulation from the design it was used on: the record's rows that name the check, or, for a check that pools
    others (an evaluation's panels, the evaluations), the rows of the checks it pools (their ids extend its id).
    A Wilson interval of a panel probability is measured exactly, at the check's estimate. None where every such
    interval covered 0.935 or more, or none was measured (the appendix says which)."""
    kind = kind_of(check["check"])
    if kind is None:
        return None
    low = coverage.RANGE[0]
    if kind.key == "panel_probability":
        if check.get("interval") is None or not isinstance(check.get("estimate"), (int, float)):
            return None
        c = coverage.wilson_coverage(PANELS, float(check["estimate"]))
        return (f"a Wilson interval over {PANELS:,} panels at {float(check['estimate']):.3g} covers {c:.3f} "
                f"(exact), below {low}" if c < low else None)
    record = load_record() if record is None else record
    designs = record["kinds"].get(kind.key, {}).get("designs", [])
    own = [r for r in designs if check["check"] in r.get("checks", ())]
    pooled = [r for r in designs if any(c.startswith((check["check"] + ".", check["check"] + "_"))
                                        for c in r.get("checks", ()))]
    worst = min(own or pooled, key=lambda r: r["coverage"], default=None)
    if worst is None or worst["coverage"] >= low:
        return None
    method = kind.method.split(",")[0]
    if own:
        return f"its interval ({method}) covered {_coverage_text(worst)} in simulation from this design, below {low}"
    return (f"the intervals it pools ({method}) covered as little as {_coverage_text(worst)} in simulation "
            f"({worst['design']}), below {low}")
