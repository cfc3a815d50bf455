"""The audit on the real human evaluations: chapter 10's tables and figure, and the audits section 4 reads.

This module runs :func:`compendium.audit.core.run_audit` on each real judgement table that
:mod:`compendium.data.real` loads (SummEval's four expert dimensions and crowd ratings; WMT23 en-de and
zh-en MQM; SQuALITY), the pairwise and label audits on PandaLM and BANEmo, and turns the summaries into the
side-by-side tables of chapter 10. Nothing statistical is re-implemented here: agreement, ANOVA, variance
components, G, the decision study and leave-one-rater-out come from the audit (:mod:`compendium.stats`).
Section 4's statistics and verdicts on these panels are :mod:`compendium.analyses.reliability`'s;
:func:`section4` feeds it the audits, once for chapters 2 and 10.

The tables read what :func:`~compendium.audit.core.audit` returns *generically*:
every key it reports (``G``, and any other ``G_*`` or ``raters_for_*`` key)
is shown, and a statistic the audit reports as "not computable" is shown as
such. So when the audit learns to estimate an incomplete design, the MQM
column fills in without a change here or in the chapter.

MQM scores are errors (lower is better). The audit ranks systems by their
mean rating, higher is better, so MQM is audited as ``quality = -MQM``: a
sign flip, which leaves every agreement coefficient, variance component and
G unchanged and makes the leaderboards rank the fewest errors first.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from compendium.analyses.reliability.real import (
    LABELS_EVALUATION,
    PAIRWISE_EVALUATION,
    RATIO_N_BOOT,
    SECTION4_N_BOOT,
    SECTION4_SEED,
    evaluation_row,
    labels_row,
    pairwise_row,
    section4_checks,
    section4_panels,
)
from compendium.audit import core as _audit
from compendium.audit.checklist import ALPHA_TENTATIVE
from compendium.data.cache import cached
from compendium.data.derive import SUMMEVAL_DIMENSIONS
from compendium.data.real import COLUMNS, load_summeval, load_summeval_crowd, verify
from compendium.stats import agreement

__all__ = [
    "PUBLISHED_ALPHA",
    "audit_all",
    "summeval_published_agreement",
    "agreement_table",
    "components_table",
    "g_table",
    "f_table",
    "loro_table",
    "rank_ranges",
    "checklist_table",
    "value",
    "cross_benchmark_figure",
    "preference_and_label_audits",
    "section4",
    "section4_for_box",
]

#: Krippendorff's alpha that Fabbri et al. (2021) report for SummEval (section on
#: the human annotations): interval alpha over all four dimensions pooled, for the
#: crowd and for the experts after their second round of annotation.
PUBLISHED_ALPHA = {"crowd": 0.4920, "expert": 0.7127}


def audit_all(benchmarks: Mapping[str, pd.DataFrame], *, seed: int | None = _audit.DEFAULT_SEED,
              n_boot: int = _audit.DEFAULT_N_BOOT) -> dict[str, _audit.AuditResult]:
    """:func:`compendium.audit.core.run_audit` on each benchmark (MQM as ``-MQM``, so that higher is better).

    Each audit is a build artefact (:mod:`compendium.data.cache`, keyed by the judgements, the seed, the
    replicates and the source of the whole package): the MQM audit's REML bootstrap of G refits the model
    200 times, and nbval's re-execution of the chapter reads the build's audits instead.
    """
    results = {}
    for name, frame in benchmarks.items():
        if "MQM" in name:
            frame = frame.assign(rating=-frame["rating"])
        results[name] = _audit_one(frame, seed, int(n_boot), name)
    return results


@cached("compendium")  # the audit draws on most of the package's statistics
def _audit_one(frame: pd.DataFrame, seed: int | None, n_boot: int, name: str) -> _audit.AuditResult:
    # Ordinal alpha on every benchmark, as the paper reports it, so that the cross-benchmark table compares one
    # statistic (the audit's default follows each scale; agreement_table sets interval alpha beside it).
    return _audit.run_audit(frame, seed=seed, n_boot=n_boot, source=name, level="ordinal", **COLUMNS)


# --------------------------------------------------------------------------- published agreement
def summeval_published_agreement(real_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """SummEval's agreement recomputed as the paper defines it, beside the published values.

    Krippendorff's alpha, interval level, for the crowd (5 ratings per
    summary) and for the experts (3), over each dimension and pooled over
    all four -- a unit is then one (summary, dimension), which is how
    SummEval reports one alpha per group.

    Returns
    -------
    pandas.DataFrame
        ``annotators, dimension, alpha`` (recomputed), ``published`` (pooled
        rows only, :data:`PUBLISHED_ALPHA`), ``difference`` (recomputed minus
        published).
    """
    root = verify(real_dir, None)
    crowd = load_summeval_crowd(real_dir=root, verify_checksum=False)
    experts = pd.concat([load_summeval(d, real_dir=root, verify_checksum=False).assign(dimension=d)
                         for d in SUMMEVAL_DIMENSIONS], ignore_index=True)
    rows = []
    for group, frame in (("crowd", crowd), ("expert", experts)):
        for dimension in ("pooled", *SUMMEVAL_DIMENSIONS):
            part = frame if dimension == "pooled" else frame[frame["dimension"] == dimension]
            unit = ["dimension", "item", "system"] if dimension == "pooled" else ["item", "system"]
            alpha = agreement.krippendorff_alpha(part, unit=unit, rater="rater", rating="rating", level="interval")
            published = PUBLISHED_ALPHA[group] if dimension == "pooled" else np.nan
            rows.append({"annotators": group, "dimension": dimension, "alpha": alpha, "published": published,
                         "difference": alpha - published})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- side-by-side tables
def value(summary: Mapping, key: str):
    """A summary value: the number, or the audit's "not computable ..." text (missing keys too)."""
    if summary.get(key) is None and key in (summary.get("reasons") or {}):  # audit.json: null, with its reason
        return _audit.not_computable(summary["reasons"][key])
    return summary.get(key, _audit.not_computable(f"the audit does not report {key}"))


def agreement_table(
    benchmarks: Mapping[str, pd.DataFrame],
    results: Mapping[str, _audit.AuditResult],
    *,
    seed: int | None = _audit.DEFAULT_SEED,
    n_boot: int = _audit.DEFAULT_N_BOOT,
) -> pd.DataFrame:
    """Agreement per benchmark: Pearson's r between raters, ordinal and interval alpha with CIs, ICCs.

    Ordinal alpha and its CI are the audit's; interval alpha and its CI come
    from :func:`compendium.stats.agreement.alpha_bootstrap_ci` with the audit's
    seed and replicates.
    """
    rows = []
    for name, result in results.items():
        s = result.summary
        r = [p["r"] for p in s["pearson"] if p.get("r") is not None]
        interval = agreement.alpha_bootstrap_ci(
            benchmarks[name],
            unit=["item", "system"],
            rater="rater",
            rating="rating",
            level="interval",
            n_boot=n_boot,
            seed=seed,
        )
        ci = s["alpha_ci"] if isinstance(s.get("alpha_ci"), list) else [np.nan, np.nan]
        rows.append({
            "benchmark": name,
            "pearson_r_min": min(r) if r else np.nan,
            "pearson_r_max": max(r) if r else np.nan,
            "alpha_level": s.get("alpha_level"), "alpha": value(s, "alpha"),
            "alpha_ci_low": ci[0], "alpha_ci_high": ci[1],
            "alpha_interval": float(interval["alpha"].iloc[0]),
            "alpha_interval_ci_low": float(interval["ci_low"].iloc[0]),
            "alpha_interval_ci_high": float(interval["ci_high"].iloc[0]),
            "icc_2_1": value(s, "icc_2_1"),
            "icc_2_k": value(s, "icc_2_k"),
        })
    return pd.DataFrame(rows)


def components_table(results: Mapping[str, _audit.AuditResult]) -> pd.DataFrame:
    """Variance components side by side: one row per component, one column per benchmark.

    Each cell is the component's share of the random-effect variance, as the
    audit reports it (``variance_components[c]["share"]``; the fixed system
    effect has none and is left out), or the audit's "not computable" text.
    """
    columns = {}
    for name, result in results.items():
        components = result.summary.get("variance_components")
        if isinstance(components, Mapping):
            columns[name] = {c: v.get("share") for c, v in components.items() if v.get("share") is not None}
        else:
            columns[name] = components
    names = list(dict.fromkeys(c for v in columns.values() if isinstance(v, Mapping) for c in v))
    table = pd.DataFrame(index=pd.Index(names, name="component"))
    for name, shares in columns.items():
        table[name] = pd.Series(shares if isinstance(shares, Mapping) else {c: shares for c in names}, dtype=object)
    return table


def _g_keys(summaries: list[Mapping]) -> list[str]:
    keys = ["G"]
    for summary in summaries:
        keys += [k for k in summary if (k.startswith("G_") or k.startswith("G ")) and k not in keys]
    keys += ["raters_for_G80", "raters_for_G90"]
    for summary in summaries:
        keys += [k for k in summary if k.startswith("raters_for_") and k not in keys]
    return keys


#: The row of :func:`g_table` with the measured coverage of G's interval on each benchmark's design.
G_COVERAGE = "G_ci covers (in simulation)"


def g_table(results: Mapping[str, _audit.AuditResult],
            coverage: Mapping[str, str | None] | None = None) -> pd.DataFrame:
    """G and the decision study per benchmark: every ``G*`` and ``raters_for_*`` key the audit reports, and with
    ``coverage`` (benchmark -> text, :func:`compendium.analyses.ledger.intervals.design_coverage`) a row
    :data:`G_COVERAGE` under ``G_ci``: how often that interval covered in simulation from the benchmark's fit."""
    summaries = {n: r.summary for n, r in results.items()}
    keys = _g_keys(list(summaries.values()))

    def shown(summary, key):  # an interval ([low, high]) reads as one cell, to 3 decimals
        v = value(summary, key)
        if isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, (int, float)) for x in v):
            return f"[{v[0]:.3f}, {v[1]:.3f}]"
        return v

    table = pd.DataFrame({n: [shown(s, k) for k in keys] for n, s in summaries.items()},
                         index=pd.Index(keys, name="statistic"), dtype=object)
    if coverage is not None and "G_ci" in table.index:
        row = pd.DataFrame([{n: coverage.get(n) or "not measured" for n in summaries}],
                           index=pd.Index([G_COVERAGE], name="statistic"), dtype=object)
        at = table.index.get_loc("G_ci") + 1
        table = pd.concat([table.iloc[:at], row, table.iloc[at:]])
    return table


def f_table(results: Mapping[str, _audit.AuditResult]) -> pd.DataFrame:
    """The system effect against each error term: F, its degrees of freedom and p, per benchmark."""
    rows = []
    for name, result in results.items():
        s = result.summary
        for term, label in (("residual", "residual (raters fixed)"), ("interaction", "system x rater (raters random)"),
                            ("quasi", "quasi-F (items and raters random)")):
            df = s.get(f"df_vs_{term}")
            rows.append({"benchmark": name, "error term": label, "F": value(s, f"F_vs_{term}"),
                         "df1": df[0] if isinstance(df, list) else None, "df2": df[1] if isinstance(df, list) else None,
                         "p": value(s, f"p_vs_{term}")})
    return pd.DataFrame(rows)


def loro_table(results: Mapping[str, _audit.AuditResult]) -> pd.DataFrame:
    """Leave-one-rater-out per benchmark: the full panel's winner, each panel's, how many changed."""
    rows = []
    for name, result in results.items():
        loao = result.summary.get("loao")
        if isinstance(loao, Mapping):
            others = {k: v for k, v in loao["winners"].items() if k != "all"}
            rows.append({"benchmark": name, "winner (all raters)": loao["winner_all"],
                         "winner changes": loao["winner_changes"], "panels": loao["n_panels"],
                         "winners without one rater": ", ".join(f"{v} ({k})" for k, v in others.items())})
        else:
            rows.append({"benchmark": name, "winner (all raters)": loao, "winner changes": None, "panels": None,
                         "winners without one rater": loao})
    table = pd.DataFrame(rows)
    return table.astype({"winner changes": "Int64", "panels": "Int64"})


def rank_ranges(result: _audit.AuditResult, top: int | None = None) -> pd.DataFrame:
    """Each system's rank with all raters and its range over the leave-one-rater-out panels.

    Returns an empty frame when the audit reports no leaderboards.
    """
    loao = result.summary.get("loao")
    if not isinstance(loao, Mapping):
        return pd.DataFrame(columns=["system", "rank_all", "rank_best", "rank_worst", "mean_all"])
    rows = []
    for panel in loao["panels"]:
        for entry in panel["leaderboard"]:
            rows.append(
                {"panel": panel["panel"], "system": entry["system"], "rank": entry["rank"], "mean": entry["mean"]}
            )
    long = pd.DataFrame(rows)
    full = long[long["panel"] == "all"].set_index("system")
    out = long.groupby("system")["rank"].agg(rank_best="min", rank_worst="max")
    out.insert(0, "rank_all", full["rank"])
    out["mean_all"] = full["mean"]
    out = out.sort_values(["rank_all", "rank_best"]).reset_index()
    return out.head(top) if top else out


def checklist_table(results: Mapping[str, _audit.AuditResult]) -> pd.DataFrame:
    """The paper's recommendations (section 10) per benchmark: status of each, as the audit judges it."""
    table = {}
    for name, result in results.items():
        table[name] = {f"{c['id']}. {c['recommendation']}": c["status"] for c in result.summary["checklist"]}
    return pd.DataFrame(table).rename_axis("recommendation")


# --------------------------------------------------------------------------- the figure
def cross_benchmark_figure(results: Mapping[str, _audit.AuditResult], agreement: pd.DataFrame):
    """One row per benchmark, four panels: ordinal alpha with its CI, G, the variance shares, the LORO winner changes.

    Reads the audit's summaries generically: a statistic the audit reports
    as not computable is written as such in its panel.
    """
    import matplotlib.pyplot as plt

    from compendium.book import report

    components = components_table(results)
    loro = loro_table(results)
    names = list(results)
    y = np.arange(len(names))[::-1]
    # Two by two, not one row of four: at the book's column width a row of four read at about 5 px.
    fig, axes = plt.subplots(2, 2, figsize=(9, 6.5), sharey=True)
    axes = axes.ravel()
    ax = axes[0]
    for yi, row in zip(y, agreement.itertuples()):
        if isinstance(row.alpha, float):
            error = [[row.alpha - row.alpha_ci_low], [row.alpha_ci_high - row.alpha]]
            ax.errorbar(row.alpha, yi, xerr=error, fmt="o", color=report.PALETTE[4], capsize=3)
    ax.axvline(ALPHA_TENTATIVE, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(y, names)
    ax.set_xlabel(f"ordinal α, 95% CI (dashed {ALPHA_TENTATIVE})")
    ax.set_title("Agreement")
    ax = axes[1]
    for yi, name in zip(y, names):
        g = value(results[name].summary, "G")
        if isinstance(g, float):
            ax.barh(yi, g, color=report.PALETTE[2])
        else:
            ax.text(0.02, yi, "not computable", va="center", fontsize=10, color="grey")
    for target in _audit.G_TARGETS:
        ax.axvline(target, color="grey", linestyle="--", linewidth=1)
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"G (dashed {', '.join(map(str, _audit.G_TARGETS))})")
    ax.set_title("Dependability")
    ax = axes[2]
    for yi, name in zip(y, names):
        shares = components[name]
        left = 0.0
        if all(isinstance(v, float) or v is None for v in shares):
            for component, share in shares.dropna().items():
                colour = report.PALETTE[5] if "annotator" in component or "rater" in component else report.PALETTE[4]
                ax.barh(yi, share, left=left, color=colour, edgecolor="white")
                left += share
        else:
            ax.text(0.02, yi, "not computable", va="center", fontsize=10, color="grey")
    ax.set_xlim(0, 1)
    ax.set_xlabel("variance share (rater terms red)")
    ax.set_title("Variance components")
    ax = axes[3]
    for yi, row in zip(y, loro.itertuples()):
        if row[3] is None or pd.isna(row[3]):
            ax.text(0.05, yi, "not computable", va="center", fontsize=10, color="grey")
        else:
            ax.barh(yi, row[3], color=report.PALETTE[5])
            ax.text(row[3] + 0.05, yi, f"{int(row[3])} of {int(row[4])}", va="center", fontsize=10)
    ax.set_xlim(0, 3.5)
    ax.set_xlabel("winner changes")
    ax.set_title("Leave one rater out")
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- section 4 on every rated evaluation


@cached("compendium")
def preference_and_label_audits(seed: int | None, n_boot: int, real_dir: str | None = None) -> dict[str, dict]:
    """``compendium audit --pairwise`` on PandaLM and ``--labels`` on BANEmo: the two summaries (JSON-ready)."""
    from compendium.audit import categorical
    from compendium.data import corpora, real

    root = verify(real_dir)
    pandalm = real.load_pandalm(real_dir=root, verify_checksum=False)
    banemo = corpora.load_banemo(real_dir=root, verify_checksum=False)[["item", "rater", "label"]]
    return {
        PAIRWISE_EVALUATION: categorical.audit_pairwise(pandalm, seed=seed, n_boot=n_boot,
                                                        source="PandaLM test set (data/real/pandalm/)")[0],
        LABELS_EVALUATION: categorical.audit_labels(banemo, seed=seed, n_boot=n_boot,
                                                    source="BANEmo (data/real/banemo/)")[0],
    }


@cached("compendium")
def section4(seed: int | None, n_boot: int, ratio_n_boot: int,
             real_dir: str | None = None) -> tuple[list[dict], list[dict]]:
    """Every real evaluation audited -- rated, PandaLM's preferences, BANEmo's labels: the cross-benchmark rows
    and section 4's checks (none for BANEmo, which compares no systems).

    One call, shared by chapter 2 (its verdict box) and chapter 10 (the tables and the records); a build
    artefact, so whichever chapter runs second reads the first's result.
    """
    rated = section4_panels(real_dir)
    results = audit_all(rated, seed=seed, n_boot=n_boot)
    rows = []
    for name, frame in rated.items():
        audited = frame.assign(rating=-frame["rating"]) if "MQM" in name else frame
        rows.append(evaluation_row(name, audited, results[name].summary, seed=seed, n_boot=ratio_n_boot))
    other = preference_and_label_audits(seed, n_boot, real_dir)
    rows.append(pairwise_row(PAIRWISE_EVALUATION, other[PAIRWISE_EVALUATION]))
    rows.append(labels_row(LABELS_EVALUATION, other[LABELS_EVALUATION]))
    return rows, section4_checks(rows)


def section4_for_box() -> list[dict]:
    """Section 4's checks for chapter 2's verdict box, with chapter 10's defaults; none without the build's cache.

    The box is glued for the book, which the build makes with its cache on (:mod:`compendium.data.cache`),
    so chapter 2 reads the checks chapter 10 computes (or waits on the same computation). An interactive
    session without the cache (JupyterLab) shows no box and skips the minute or two of audits.
    """
    from compendium.data import cache

    if cache.location() is None:
        return []
    return section4(SECTION4_SEED, SECTION4_N_BOOT, RATIO_N_BOOT)[1]
