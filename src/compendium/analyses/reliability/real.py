"""Section 4 on real data: every rated evaluation with rater identity, its statistics and its verdicts.

The real twin of chapter 2's simulated analysis. :func:`section4_panels` loads each public evaluation as one
panel (SummEval's four expert dimensions, WMT23 en-de and zh-en MQM, SQuALITY's three properties with and
without the human reference); :func:`evaluation_row` gathers one panel's section-4 statistics -- the F test of
the systems with raters random and fixed, each rater term's variance over the systems' with its bootstrap
interval (:func:`compendium.stats.rater_variance.log_ratio_ci`), G, leave-one-rater-out and the winner's
stability on resampled three-rater panels (:func:`compendium.stats.winner_stability.winner_change_probability`)
-- from the panel and its audit summary; :func:`section4_checks` decides the verdicts by the rules of
:mod:`compendium.analyses.reliability.rules`, one per independent evaluation (:func:`evaluation_of`).

The audit of each panel is run above this wing (:mod:`compendium.book.real_benchmarks`), because the audit
itself builds on :mod:`compendium.analyses`; here its summary is read as a plain mapping.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from compendium.data.cache import cached
from compendium.data.derive import SUMMEVAL_DIMENSIONS
from compendium.data.real import COLUMNS, load_summeval, verify
from compendium.stats import panels


#: Parametric-bootstrap replicates of the interval of each rater term's variance over the systems'
#: (:func:`compendium.stats.rater_variance.log_ratio_ci`): enough for a Monte Carlo error of a few hundredths.
RATIO_N_BOOT = 2000


#: Chapter 10's default seed and bootstrap replicates: chapter 2's verdict box reads section 4's checks
#: computed with them (the same cached result as chapter 10's, whichever chapter runs first).
SECTION4_SEED, SECTION4_N_BOOT = 20260929, 2000


# --------------------------------------------------------------------------- the top of the MQM leaderboard
def top_conditions(mqm: pd.DataFrame, k: int = 4) -> tuple[list[str], pd.DataFrame]:
    """The ``k`` conditions with the lowest mean MQM, and paired t-tests between them over segments.

    Each segment's score of a condition is the mean of its raters' scores
    (the same raters score every condition of a segment, so the pairs are
    matched); the tests are :func:`compendium.stats.panels.pairwise_system_tests`
    with segments as the unit, Holm-corrected over the ``k (k - 1) / 2`` pairs.

    Returns
    -------
    (list of str, pandas.DataFrame)
        The conditions, best first, and one row per pair.
    """
    means = mqm.groupby("system", observed=True)["rating"].mean().sort_values(kind="stable")
    best = [str(s) for s in means.index[:k]]
    part = mqm[mqm["system"].astype(str).isin(best)].copy()
    part["system"] = pd.Categorical(part["system"].astype(str), categories=best)
    tests = panels.pairwise_system_tests(part, unit="item", **COLUMNS)
    return best, tests


def best_probability(mqm: pd.DataFrame, systems: list[str], *, n_boot: int = 2000,
                     seed: int | None = SECTION4_SEED) -> pd.DataFrame:
    """How often each system has the lowest mean MQM when segments are resampled (percentile bootstrap).

    Segments are drawn with replacement ``n_boot`` times; each draw ranks the
    systems by their mean over the drawn segments' rater-averaged scores.
    Ties count for every tied system.

    Returns
    -------
    pandas.DataFrame
        ``system, mean, p_best, ci_low, ci_high`` (95 % bootstrap interval of
        the system's mean).
    """
    part = mqm[mqm["system"].astype(str).isin(systems)]
    wide = part.groupby(["item", "system"], observed=True)["rating"].mean().unstack("system")[systems]
    if wide.isna().any().any():
        raise ValueError("every segment needs a score for every system compared")
    scores = wide.to_numpy()  # segments x systems
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, scores.shape[0], size=(n_boot, scores.shape[0]))
    boot = scores[idx].mean(axis=1)  # n_boot x systems
    wins = (boot == boot.min(axis=1, keepdims=True)).mean(axis=0)
    low, high = np.quantile(boot, [0.025, 0.975], axis=0)
    return pd.DataFrame(
        {"system": systems, "mean": scores.mean(axis=0), "p_best": wins, "ci_low": low, "ci_high": high}
    )


def section4_panels(real_dir: str | os.PathLike | None = None) -> dict[str, pd.DataFrame]:
    """Every rated real evaluation with rater identity, as one panel each (higher is better).

    SummEval's four expert dimensions; WMT23 en-de and zh-en MQM (as ``-MQM``); SQuALITY's three properties with
    the human reference as a responder, and again without it (a benchmark compares systems).
    """
    from compendium.data import real

    root = verify(real_dir)
    out = {f"SummEval {d}": load_summeval(d, real_dir=root, verify_checksum=False) for d in SUMMEVAL_DIMENSIONS}
    out["WMT23 MQM"] = real.load_mqm(real_dir=root, verify_checksum=False)
    out["WMT23 zh-en MQM"] = real.load_mqm("zhen", real_dir=root, verify_checksum=False)
    for prop in real.SQUALITY_PROPERTIES:
        out[f"SQuALITY {prop}"] = real.load_squality(prop, real_dir=root)
        out[f"SQuALITY {prop}, systems only"] = real.load_squality(prop, include_human=False, real_dir=root,
                                                                   verify_checksum=False)
    return out


def slug(name: str) -> str:
    """A panel's name as a check-id word: ``"SQuALITY overall, systems only"`` -> ``squality_overall_systems_only``."""
    return "_".join("".join(c if c.isalnum() else " " for c in name.lower()).split())


#: Judgements from which an incomplete design's bootstrap refits are spread over this machine's cores: the
#: refits of WMT23 zh-en (11,310 judgements, 0.15 s each) would take five minutes on one.
SPREAD_FROM = 5000


@cached("compendium")
def _ratios(frame: pd.DataFrame, seed: int | None, n_boot: int) -> dict:
    """:func:`compendium.stats.rater_variance.log_ratio_ci` of one panel; a large incomplete design's refits
    spread over a process pool (the same replicates, so the same interval)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from compendium.stats import gstudy, rater_variance

    study = gstudy.fit_gstudy(frame, **COLUMNS)
    if len(frame) < SPREAD_FROM or rater_variance.is_complete(study) or (os.cpu_count() or 1) < 2:
        return rater_variance.log_ratio_ci(study, n_boot=n_boot, seed=seed)
    with ProcessPoolExecutor(max_workers=os.cpu_count(), mp_context=multiprocessing.get_context("spawn")) as pool:
        return rater_variance.log_ratio_ci(study, n_boot=n_boot, seed=seed, executor=pool)


@cached("compendium")
def _stability(frame: pd.DataFrame, seed: int | None, n_boot: int) -> dict:
    from compendium.stats import winner_stability

    return winner_stability.winner_change_probability(frame, n_boot=n_boot, seed=seed, **COLUMNS)


@cached("compendium")
def _fixed_rater_test(frame: pd.DataFrame) -> dict:
    from compendium.stats import gstudy

    return gstudy.fixed_rater_test(gstudy.fit_gstudy(frame, **COLUMNS))


def evaluation_row(name: str, frame: pd.DataFrame, summary: Mapping, *, seed: int | None = SECTION4_SEED,
                   n_boot: int = RATIO_N_BOOT) -> dict:
    """One row of the cross-benchmark table: the design and section 4's statistics of one rated evaluation.

    ``frame`` as audited (higher is better); ``summary`` its audit's summary (``AuditResult.summary``). Each rater
    term's variance over the systems'
    (log ratio) and its interval come from the REML G study
    (:func:`compendium.stats.rater_variance.log_ratio_ci`: a generalized confidence interval on a complete design,
    a parametric bootstrap of REML refits on an incomplete one).
    """
    s = summary
    ratios = _ratios(frame, seed, int(n_boot))
    if s["design_complete"]:
        test = {"F": s["F_vs_interaction"], "df1": s["df_vs_interaction"][0], "df2": s["df_vs_interaction"][1],
                "p": s["p_vs_interaction"], "error": "system x rater mean square"}
        fixed = {"F": s["F_vs_residual"], "df1": s["df_vs_residual"][0], "df2": s["df_vs_residual"][1],
                 "p": s["p_vs_residual"]}
    else:
        test = dict(s["system_test_reml"])
        fixed = _fixed_rater_test(frame)
    alpha = s.get("alpha")  # None or a reason where the audit could not compute it
    loao = s["loao"]
    return {
        "evaluation": name, "design": "complete" if s["design_complete"] else "incomplete",
        "items": s["n_items"], "systems": s["n_systems"], "raters": s["n_raters"],
        "alpha": alpha if isinstance(alpha, float) else "not computed (continuous scale)",
        "components": ratios["components"], "log_ratio": ratios["log_ratio"], "log_ratio_ci": ratios["ci"],
        "log_ratio_mc": ratios["mc_error"], "ratio_n_boot": min(ratios["n_boot"].values()),
        "g_limit_3": ratios["g_limit_3"], "g_limit_3_ci": ratios["g_limit_3_ci"],
        "G": s["G"], "raters_for_G80": s["raters_for_G80"],
        "loao_changes": loao["winner_changes"], "loao_panels": loao["n_panels"], "winner": loao["winner_all"],
        "stability": _stability(frame, seed, int(n_boot)),
        "F_random": test["F"], "df_random": [test["df1"], test["df2"]], "p_random": test["p"],
        "F_fixed": fixed["F"] if fixed else None, "p_fixed": fixed["p"] if fixed else None,
    }


#: The pairwise and the labelled real evaluations, as the cross-benchmark table names them.
PAIRWISE_EVALUATION = "PandaLM (pairwise)"


LABELS_EVALUATION = "BANEmo (labels)"


def pairwise_row(name: str, summary: Mapping) -> dict:
    """A row of the cross-benchmark table from a pairwise audit (:func:`compendium.audit.categorical.audit_pairwise`).

    Its "shares" are the variances of the raters' own Bradley-Terry strengths (system, and rater x system:
    a rater's leniency cancels in a comparison), and its raters-random test is the systems against that
    interaction; the winner is the Bradley-Terry winner.
    """
    spread, loro = summary["rater_system_spread"], summary["loro"]
    return {
        "evaluation": name, "kind": "pairwise", "design": "pairwise", "items": summary["n_items"],
        "systems": summary["n_systems"], "raters": summary["n_raters"],
        "alpha": summary["alpha_nominal"]["alpha"], "alpha_ci": summary["alpha_nominal"]["ci"],
        "rater_x_system_var": spread["rater_x_system_var"], "rater_x_system_var_ci": spread["rater_x_system_var_ci"],
        "system_var": spread["system_var"], "system_var_ci": spread["system_var_ci"],
        "G": None, "raters_for_G80": None, "raters_for_stable_winner": summary["stable_winner"]["raters_needed"],
        "loao_changes": loro["winner_changes"], "loao_panels": loro["n_panels"], "winner": loro["winner_all"],
        "stability": summary["loro_resampled"],
        "F_random": spread["F"], "df_random": spread["df"], "p_random": spread["p"], "F_fixed": None, "p_fixed": None,
    }


def labels_row(name: str, summary: Mapping) -> dict:
    """A row of the cross-benchmark table from a label audit: no systems, so agreement and the majority label."""
    kappa, changes = summary["fleiss_kappa"], summary["majority_changes"]
    return {
        "evaluation": name, "kind": "labels", "design": "labels", "items": summary["n_items"],
        "raters": summary["n_raters"], "categories": len(summary["categories"]),
        "alpha": summary["alpha_nominal"]["alpha"], "alpha_ci": summary["alpha_nominal"]["ci"],
        "kappa": kappa["kappa"], "kappa_ci": [kappa["ci_low"], kappa["ci_high"]],
        "majority_changed": changes["changed_by_some_annotator"],
        "majority_units": changes["units_with_majority"],
    }


def changes_text(row: Mapping) -> str:
    """How often the winner changes on panels of the paper's size, and the count over all of the evaluation's
    raters beside it."""
    st = row["stability"]
    whole = f"all raters: {row['loao_changes']} of {row['loao_panels']}"
    if not st.get("testable"):
        return f"no 3-rater panel of 20 items ({whole})"
    return f"{st['p_every']:.0%} / {st['p_some']:.0%} ({whole})"


def cross_benchmark_table(rows: list[Mapping]) -> pd.DataFrame:
    """The chapter's opening table, shown as text: one row per real evaluation -- rated (:func:`evaluation_row`),
    pairwise (:func:`pairwise_row`: α nominal, variances of the raters' strengths) or labelled
    (:func:`labels_row`: no systems)."""
    def ci(v, lo_hi, digits=2):
        return f"{v:.{digits}f} [{lo_hi[0]:.{digits}f}, {lo_hi[1]:.{digits}f}]"

    def row(r):
        kind = r.get("kind", "rated")
        if kind == "labels":
            return {
                "evaluation": r["evaluation"],
                "items × systems × raters": f"{r['items']} × no systems × {r['raters']} ({r['categories']} labels)",
                "ordinal α": f"{r['alpha']:.3f} (nominal)",
                "annotator ÷ system variance": "no systems", "G": "no systems",
                "raters for G ≥ 0.8": "no systems",
                "winner changes, 3-rater panels: every / some removal":
                    f"no winner; the majority label changes on {r['majority_changed'] / r['majority_units']:.1%} of "
                    "items",
            }
        if kind == "pairwise":
            needed = r["raters_for_stable_winner"]
            return {
                "evaluation": r["evaluation"],
                "items × systems × raters": f"{r['items']} × {r['systems']} × {r['raters']} (pairwise)",
                "ordinal α": f"{r['alpha']:.3f} (nominal)",
                "annotator ÷ system variance": "leniency cancels in a comparison",
                "G": "no G for preferences",
                "raters for G ≥ 0.8": f"{needed} for a stable winner" if needed is not None else "no stable winner",
                "winner changes, 3-rater panels: every / some removal": changes_text(r),
            }
        return {
            "evaluation": r["evaluation"],
            "items × systems × raters": f"{r['items']} × {r['systems']} × {r['raters']}"
                                        + ("" if r["design"] == "complete" else " (incomplete)"),
            "ordinal α": f"{r['alpha']:.3f}" if isinstance(r["alpha"], float) else r["alpha"],
            "annotator ÷ system variance": ratio_text(r["log_ratio"]["annotator"], r["log_ratio_ci"]["annotator"]),
            "G": f"{r['G']:.3f}",
            "raters for G ≥ 0.8": r["raters_for_G80"] if r["raters_for_G80"] is not None else "none",
            "winner changes, 3-rater panels: every / some removal": changes_text(r),
        }

    return pd.DataFrame([row(r) for r in rows]).set_index("evaluation")


def ratio_text(log_ratio: float, interval) -> str:
    """A variance ratio and its interval from their logs; an end at :data:`~compendium.stats.rater_variance.LOG_BOUND`
    (a variance estimated at 0) reads 0 or ∞.

    >>> ratio_text(np.log(0.48), (-np.log(1e4), np.log(1.7)))
    '0.48 [0, 1.7]'
    """
    from compendium.stats.rater_variance import LOG_BOUND

    def one(v):
        if not np.isfinite(v):
            return "undefined"
        if v <= -LOG_BOUND:
            return "0"
        return "∞" if v >= LOG_BOUND else f"{np.exp(v):.2g}"

    return f"{one(log_ratio)} [{one(interval[0])}, {one(interval[1])}]"


def ratio_lines(row: Mapping) -> str:
    """Each rater term over the systems, as a ratio with its interval, and the annotator's log ratio with the
    Monte Carlo error of each end: the computed column of the variance check."""
    from compendium.stats.rater_variance import LOG_BOUND as bound

    lr, ci, mc = row["log_ratio"], row["log_ratio_ci"], row["log_ratio_mc"]
    lo, hi = ci["annotator"]
    terms = "; ".join(f"{name} {ratio_text(lr[term], ci[term])}" for term, name in
                      (("item:annotator", "item x rater"), ("system:annotator", "system x rater")))
    return (f"annotator (rater main effect) / system variance {ratio_text(lr['annotator'], ci['annotator'])}, "
            f"log {lr['annotator']:.2f} [{lo:.2f} +- {mc['annotator'][0]:.2f}, {hi:.2f} +- {mc['annotator'][1]:.2f}] "
            f"(each end's Monte Carlo error; {row['ratio_n_boot']} replicates"
            + ("; an end at -9.21 or 9.21 is the bound, a variance estimated at 0" if max(abs(lo), abs(hi)) >= bound
               else "") + f"); apart, over the system variance: {terms}")


def stability_text(st: Mapping) -> str:
    """The winner-change probabilities and the top-two gap, as the computed column says them."""
    def p(key):
        lo, hi = st[f"{key}_ci"]
        return f"{st[key]:.1%} [{lo:.1%}, {hi:.1%}]"

    gap_lo, gap_hi = st["gap_ci"]
    low, high = st["panel_items"]
    panels = (f"{st['n_panels']} triples of raters, {low}-{high} items each" if st["n_panels"] > 1
              else f"one triple, {low} items")
    return (f"{st['n_boot']} resampled 3-rater panels ({panels}): the winner changes with every removal "
            f"{p('p_every')}, with some {p('p_some')}; top-two gap {st['gap_median']:.3g} {st['unit']} "
            f"(95% of panels {gap_lo:.3g} to {gap_hi:.3g})")


def _panel_data(r: Mapping) -> str:
    """The data column of a panel's check: the evaluation and its design."""
    if r.get("kind") == "pairwise":
        return (f"{r['evaluation'].split(' (')[0]} (real): {r['items']} items x {r['systems']} systems x "
                f"{r['raters']} raters, pairwise preferences (its authors kept only comparisons with good agreement)")
    return (f"{r['evaluation']} (real): {r['items']} items x {r['systems']} "
            f"{'responders' if 'SQuALITY' in r['evaluation'] and 'systems only' not in r['evaluation'] else 'systems'}"
            f" x {r['raters']} raters, {r['design']} design")


def _pooled_checks(per_claim: Mapping[str, list[tuple[str, str]]]) -> list[dict]:
    """Each claim's verdict per independent evaluation (where it has several panels) and pooled over them."""
    from compendium.analyses.reliability import rules as rel

    papers = {"anova.real_random_raters": rel.RULE_RANDOM_RATERS.paper,
              "vc.real_raters_exceed_systems": rel.RULE_RATERS_EXCEED.paper,
              "loao.real_winner_changes": rel.RULE_WINNER_WHENEVER.paper,
              "loao.real_winner_changes_some": rel.RULE_WINNER_SOME.paper,
              "dstudy.real_three_raters_below_g80": rel.RULE_THREE_RATERS_G.paper}
    checks = []
    for base, verdicts in per_claim.items():
        by_evaluation: dict[str, list[tuple[str, str]]] = {}
        for name, verdict in verdicts:
            by_evaluation.setdefault(evaluation_of(name), []).append((name, verdict))
        decided = {}
        for evaluation, its_panels in by_evaluation.items():
            decided[evaluation] = rel.evaluation_verdict([v for _, v in its_panels])
            if len(its_panels) == 1:  # its panel's check is the evaluation's
                continue
            checks.append({
                "check": f"{base}.{slug(evaluation)}", "section": "4", "paper": papers[base],
                "rule": rel.RULE_EVALUATION,
                "data": f"{evaluation} (real): " + "; ".join(name for name, _ in its_panels),
                "computed": "; ".join(f"{name}: {v}" for name, v in its_panels) + " (each panel is a check of its own)",
                "estimate": f"{decided[evaluation]} on its panels",
                "no_interval": "the verdicts of the evaluation's panels, each decided by its own rule",
                "verdict": decided[evaluation],
            })
        checks.append({
            "check": base, "section": "4", "paper": papers[base], "rule": rel.RULE_POOLED,
            "data": f"{len(decided)} independent real evaluations: " + "; ".join(decided),
            "computed": "each evaluation's verdict (in the estimate column), and each panel's, is a check of its own",
            "estimate": "; ".join(f"{evaluation} {v}" for evaluation, v in decided.items()),
            "no_interval": "the independent evaluations' verdicts, each decided by its own rule",
            "verdict": rel.pooled_verdict(list(decided.values())),
        })
    return checks


def section4_checks(rows: list[Mapping]) -> list[dict]:
    """Section 4's three claims (four readings) per evaluation and pooled: keyword arguments for
    :meth:`compendium.analyses.ledger.real_checks.Recorder.record`, check id first (``check``)."""
    from compendium.analyses.real import NOT_TESTABLE
    from compendium.analyses.reliability import rules as rel

    per_claim: dict[str, list[tuple[str, str]]] = {}
    checks = []

    def add(base, r, **fields):
        check = {"check": f"{base}.{slug(r['evaluation'])}", "section": "4", "data": _panel_data(r), **fields}
        checks.append(check)
        per_claim.setdefault(base, []).append((r["evaluation"], check["verdict"]))

    for r in rows:
        if r.get("kind") == "labels":  # no systems: none of section 4's claims has a meaning
            continue
        pairwise = r.get("kind") == "pairwise"
        p_fixed = r["p_fixed"] if r["p_fixed"] is not None else float("nan")
        fixed = (f"; raters fixed{' (additive model)' if r['design'] == 'incomplete' else ''}: "
                 f"F = {r['F_fixed']:.2f}, p = {r['p_fixed']:.2g}" if r["F_fixed"] is not None
                 else "; the raters' Bradley-Terry strengths, systems against system x rater; no fixed-rater test")
        add("anova.real_random_raters", r, paper=rel.RULE_RANDOM_RATERS.paper, rule=rel.RULE_RANDOM_RATERS,
            computed=f"raters random: F({r['df_random'][0]:.0f}, {r['df_random'][1]:.1f}) = {r['F_random']:.2f}, "
                     f"p = {r['p_random']:.2g}{fixed}",
            estimate=r["p_random"], no_interval="a test's p value; F and its df are in the computed column",
            verdict=rel.verdict_random_raters(r["p_random"], p_fixed), claims=["anova.p_vs_interaction"])
        if pairwise:
            add("vc.real_raters_exceed_systems", r, paper=rel.RULE_RATERS_EXCEED.paper, rule=rel.RULE_RATERS_EXCEED,
                computed=(f"a rater's leniency cancels in a comparison; rater x system variance of the raters' own "
                          f"Bradley-Terry strengths {r['rater_x_system_var']:.4f} "
                          f"[{r['rater_x_system_var_ci'][0]:.4f}, {r['rater_x_system_var_ci'][1]:.4f}], systems "
                          f"{r['system_var']:.3f} [{r['system_var_ci'][0]:.3f}, {r['system_var_ci'][1]:.3f}] "
                          "(item bootstrap)"),
                estimate="no annotator main effect in preferences",
                no_interval="a preference has no rater leniency to estimate", verdict=NOT_TESTABLE)
        else:
            lo, hi = r["log_ratio_ci"]["annotator"]
            add("vc.real_raters_exceed_systems", r, paper=rel.RULE_RATERS_EXCEED.paper, rule=rel.RULE_RATERS_EXCEED,
                computed=ratio_lines(r), estimate=r["log_ratio"]["annotator"], interval=(lo, hi),
                verdict=rel.verdict_raters_exceed(lo, hi, r["log_ratio_mc"]["annotator"]))
        if pairwise:
            add("dstudy.real_three_raters_below_g80", r, paper=rel.RULE_THREE_RATERS_G.paper,
                rule=rel.RULE_THREE_RATERS_G, computed="preferences have no G; the raters a stable winner needs: "
                f"{r['raters_for_stable_winner']}", estimate="no G for preferences",
                no_interval="pairwise preferences have no G", verdict=NOT_TESTABLE)
        else:
            lo, hi = r["g_limit_3_ci"]
            add("dstudy.real_three_raters_below_g80", r, paper=rel.RULE_THREE_RATERS_G.paper,
                rule=rel.RULE_THREE_RATERS_G,
                computed=f"G of three raters as the items grow without bound {r['g_limit_3']:.3f} [{lo:.3f}, {hi:.3f}] "
                         f"({r['ratio_n_boot']} replicates); G of this panel as run {r['G']:.3f}",
                estimate=r["g_limit_3"], interval=(lo, hi), verdict=rel.verdict_three_raters_g(lo, hi))
        st = r["stability"]
        whole = f"all raters: {r['loao_changes']} of {r['loao_panels']} removals change the winner ({r['winner']})"
        for base, rule, verdict, key in (
                ("loao.real_winner_changes", rel.RULE_WINNER_WHENEVER, rel.verdict_winner_whenever, "p_every"),
                ("loao.real_winner_changes_some", rel.RULE_WINNER_SOME, rel.verdict_winner_some, "p_some")):
            if not st.get("testable"):
                add(base, r, paper=rule.paper, rule=rule, computed=f"{st['reason']}; {whole}",
                    estimate="no panel of the paper's size", no_interval=st["reason"], verdict=NOT_TESTABLE)
                continue
            add(base, r, paper=rule.paper, rule=rule, computed=stability_text(st) + f"; {whole}",
                estimate=st[key], interval=tuple(st[f"{key}_ci"]), verdict=verdict(*st[f"{key}_ci"]))
    return checks + _pooled_checks(per_claim)


def evaluation_of(panel: str) -> str:
    """The independent evaluation a section-4 panel belongs to: its panels share raters and items.

    >>> evaluation_of("SummEval coherence"), evaluation_of("SQuALITY overall, systems only"), evaluation_of("WMT23 MQM")
    ('SummEval', 'SQuALITY', 'WMT23 en-de MQM')
    """
    if panel.startswith("SummEval"):
        return "SummEval"
    if panel.startswith("SQuALITY"):
        return "SQuALITY"
    if panel == "WMT23 MQM":
        return "WMT23 en-de MQM"
    return panel.split(" (")[0]
