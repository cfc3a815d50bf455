# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Audit your own benchmark
#
# *Paper sections 4, 5 and 10, as a tool.* The analyses that took the paper's
# leaderboard apart need nothing specific to emojis or to Bangla: a study in
# which raters rated systems' outputs for a set of items. This chapter runs them
# on any such study: any numbers of items, systems and raters, any numeric
# scale, fully crossed or not (each item rated by only some of the raters, as in
# WMT's MQM). It ends with the paper's six recommendations, each marked met,
# not met or not applicable for the study, with the reason. What a design does not
# allow is omitted with one sentence of why.
#
# To audit your own judgements, give a CSV or Parquet table with one row per
# rating (and, optionally, one length per output):
#
# ```bash
# compendium audit ratings.csv --item segment --system model --rater judge --rating score \
#     --lengths lengths.csv --out audit-report
# ```
#
# The command checks the table first: ratings that are not numbers, duplicated
# judgements, a single rater or system and missing cells each get their own message
# (only an empty field means a missing rating unless `--missing NA` names others).
# It then writes `audit.html`, the sections of this chapter on your data, drawn in
# its own process; `audit.json`, the summary with the checklist; and `checklist.csv`.
# With `--notebook` it executes this notebook with papermill instead and keeps it
# beside the page. Every number
# comes from the same functions as chapters 2 and 3 (`compendium.stats`,
# `compendium.analyses.length`): on the book's own ratings the audit reproduces chapter 2
# exactly.

# %% tags=["parameters"]
seed = 20260929  # seeds the unit bootstrap of alpha and the item bootstrap of MOS
data_dir = None  # unused: kept for the uniform interface of the chapters (this one reads ratings_path)
ratings_path = None  # None: the demonstration dataset, data/examples/mt_direct_assessment.csv
lengths_path = None  # one length per (item, system); with ratings_path None, the demonstration's lengths
item = None  # column names; None: the demonstration's (segment_id, system, rater, score, tokens) or,
system = None  # for your own file, the compendium's (sentence_id, system, annotator, rating, length)
rater = None
rating = None
length = None
n_boot = 2000  # unit-bootstrap replicates of the alpha CI (paper: 2,000)
n_boot_g = 200  # with g_interval = "bootstrap": replicates of G's interval (each a REML refit)
g_interval = "noncentral-f"  # incomplete designs: G's interval, "noncentral-f" (no refit) or "bootstrap"
higher_is_better = True  # False for error scores (e.g. MQM): every leaderboard ranks the lowest mean first
summary_json = None  # also write the JSON summary here (None: don't)
missing = None  # strings that mean a missing rating, e.g. ["NA"] (None: only an empty field)
level = None  # alpha's level of measurement: ordinal, interval or nominal (None: from the scale)
wide_raters = None  # a wide CSV, one column per rater: those columns (None: one row per rating)
wide_pattern = None  # a wide CSV: a regular expression the rater columns' names match
scheduler = None  # a dask.distributed scheduler's address: an incomplete design's REML refits run there
coverage = None  # a number N: measure the intervals' coverage in N studies simulated from this study's fit

# %%
# %matplotlib inline
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from compendium.audit import core as audit
from compendium.audit import wording
from compendium.audit.checklist import LOW_AGREEMENT, STATUSES
from compendium.book import report
from compendium.data.escape import markdown_text

report.setup_plots()
inputs = wording.resolve_inputs(ratings_path, lengths_path, item=item, system=system, rater=rater, rating=rating, length=length)
out = report.Outputs("08_audit", parameters={
    "seed": seed, "ratings_path": ratings_path, "lengths_path": lengths_path, "item": item, "system": system,
    "rater": rater, "rating": rating, "length": length, "n_boot": n_boot, "n_boot_g": n_boot_g, "g_interval": g_interval, "higher_is_better": higher_is_better,
    "summary_json": summary_json, "missing": missing, "level": level, "wide_raters": wide_raters,
    "wide_pattern": wide_pattern, "coverage": coverage},
    data=report.file_label(inputs["ratings"]), environment_link=False)
cols = inputs["columns"]
keys = {k: cols[k] for k in ("item", "system", "rater", "rating")}
study = audit.read_study(inputs["ratings"], **keys, missing=missing, raters=wide_raters, rater_pattern=wide_pattern)
judgements = study.judgements
lengths = None
if inputs["lengths"] is not None:
    lengths = audit.read_lengths(inputs["lengths"], item=cols["item"], system=cols["system"], length=cols["length"],
                                 judgements=judgements, rating=cols["rating"])
result = audit.run_audit(study, lengths, seed=seed, n_boot=n_boot, n_boot_g=n_boot_g, g_interval=g_interval,
                         length=cols["length"], higher_is_better=higher_is_better, level=level,
                         scheduler=scheduler, coverage=coverage)
summary, tables, design = result.summary, result.tables, result.design
SYSTEM = cols["system"]
if ratings_path is None:
    display(Markdown(":::{admonition} Simulated data\n:class: warning\nThe demonstration study in this chapter is a "
                     "**simulated** machine-translation evaluation (`data/examples/README.md`), not real judgements: "
                     "it shows what the audit reports. Run `compendium audit` on your own table to audit a real study.\n:::"))
wording.banner(inputs)

# %% [markdown]
# ## The design
#
# Which cells were rated, which ratings were read as missing, and so which
# analyses this study allows.

# %%
display(Markdown(markdown_text(design.describe())))
display(wording.missing_note(summary))
display(wording.design_note(summary))
if not design.complete:
    missing_cells = design.missing.head(20)
    out.table(missing_cells, "missing_cells", caption="The first missing (item, system, rater) cells",
              styler=missing_cells.style.format(escape="html").format_index(escape="html"))

# %% [markdown]
# ## Agreement (paper section 4.1)
#
# Pearson's *r* between raters is invariant to each rater's location and spread
# on the scale, so it is not agreement. Krippendorff's α and the Shrout–Fleiss
# intraclass correlations penalise systematic differences between raters; the
# raters' means and SDs are reported beside them. The α is ordinal for a scale of
# at most 11 whole numbers and interval otherwise (or the level `--level` names),
# with a unit-bootstrap CI over (item, system) outputs.

# %%
rater_means = wording.shown(tables["raters"])
note = wording.cut_note(tables["raters"], "raters", "rater_summary")
out.table(rater_means, "rater_means", caption="Each rater's mean and SD on the scale",
          styler=rater_means.style.format({"mean": "{:.2f}", "sd": "{:.2f}"}).hide(axis="index"))
if note:
    display(note)
pairs = wording.shown(tables.get("pairwise_alpha", tables["pearson"]))
note = wording.cut_note(tables.get("pairwise_alpha", tables["pearson"]), "pairs of raters", "pearson")
out.table(pairs, "pairwise_agreement", caption="Agreement of each pair of raters: Pearson's r and, where computable, Krippendorff's α",
          styler=pairs.style.format({"alpha": "{:.3f}", "r": "{:.3f}", "pval": "{:.2g}"}).hide(axis="index"))
if note:
    display(note)
if summary["rater_pairs"]["sampled"]:
    display(Markdown(summary["rater_pairs"]["note"]))
if "alpha" in tables:
    out.table(tables["alpha"], "krippendorff_alpha",
              caption=f"Krippendorff's α ({summary['alpha_level']}) over all (item, system) units, with a unit-bootstrap CI",
              styler=tables["alpha"].style.format(precision=3).hide(axis="index"))
display(Markdown(f"α is computed at the **{summary['alpha_level']}** level: {summary['settings']['alpha_level']}."))
if "icc" in tables:
    out.table(tables["icc"], "intraclass_correlations", caption="Shrout–Fleiss intraclass correlations, the (item, system) output as the target",
              styler=tables["icc"].style.format({"ICC": "{:.3f}", "F": "{:.2f}", "pval": "{:.2g}", "ci_low": "{:.3f}", "ci_high": "{:.3f}"}))
else:
    display(wording.omitted(summary, "icc", "The intraclass correlation"))

# %% [markdown]
# ### Each rater against the rest, and each system's mean
#
# For each rater, Pearson's *r* between their rating of an output and the mean of
# the other raters' ratings of it, and the mean offset between the two (positive:
# more lenient than the rest). Each system's mean comes with a 95% *t* interval
# that treats items and raters as samples (random effects, Satterthwaite's degrees
# of freedom), so it is wide when a different panel could have rated differently.
# On an incomplete design the mean is the REML estimate over the cells the system has.

# %% mystnb={"image": {"alt": "Scatter plot, one labelled point per rater: mean offset from the other raters on the x axis, Pearson's r with the others' mean on the y axis"}}
rest = tables["rater_vs_rest"]
rest_shown = wording.shown(rest)
note = wording.cut_note(rest, "raters", "rater_vs_rest")
out.table(rest_shown, "rater_vs_rest", caption="Each rater against the mean of the others on the outputs both rated",
          styler=rest_shown.style.format({"r": "{:.3f}", "offset": "{:+.3f}"}, na_rep="").hide(axis="index"))
if note:
    display(note)
fig, ax = plt.subplots(figsize=(6.5, 3.4))
ax.scatter(rest["offset"], rest["r"], color=report.PALETTE[4], s=36 if len(rest) <= wording.MAX_SHOWN else 6)
for row in (rest.itertuples(index=False) if len(rest) <= wording.MAX_SHOWN else ()):  # labels: for a legible few
    ax.annotate(str(row[0]), (row.offset, row.r), textcoords="offset points", xytext=(4, 3), fontsize=9)
ax.axvline(0, color="grey", lw=0.8)
ax.set_xlabel("mean offset from the other raters (positive: more lenient)")
ax.set_ylabel("r with the others' mean")
ax.set_title("Each rater against the rest")
out.figure(fig, "rater_vs_rest_figure", caption="Each rater's mean offset from the other raters against the "
           "correlation of their ratings with the others' mean")
means = tables["system_means"]
out.table(means, "system_means",
          caption="Each system's mean rating with its 95% t interval, items and raters random (Satterthwaite df)",
          styler=means.style.format({c: "{:.3f}" for c in ("mean", "estimate", "se", "ci_low", "ci_high")
                                     if c in means}, na_rep="").format({"df": "{:.1f}"}).hide(axis="index"))

# %% [markdown]
# ## The system effect against the right error term (Table 1)
#
# Against the residual, the system effect is tested as if these raters were the
# only raters of interest -- what a paired test over items on panel means does.
# Against the system × rater interaction it is tested for raters in general, the
# question a benchmark usually asks. (The quasi-F treats items as random too.)

# %%
if design.complete:
    anova, f_tests = tables["anova"], tables["f_tests"]
    out.table(anova, "table_1_anova", caption="Table 1: three-way crossed ANOVA (item × system × rater)",
              styler=anova.style.format({"SS": "{:.2f}", "df": "{:.0f}", "MS": "{:.2f}", "share": "{:.1%}"}, na_rep=""))
    out.table(f_tests, "table_1_system_f_tests",
              caption="Table 1: the system effect, each F test against its error mean square (named in the last column)",
              styler=f_tests.style.format({"F": "{:.2f}", "df1": "{:.0f}", "df2": "{:.1f}", "pval": "{:.3g}", "error_MS": "{:.3f}"}))
    bigger = anova.loc["system:annotator", "MS"] > anova.loc["system", "MS"]
    display(Markdown(
        f"The system × rater mean square ({anova.loc['system:annotator', 'MS']:.2f}) is "
        + ("larger" if bigger else "smaller") + f" than the system mean square ({anova.loc['system', 'MS']:.2f}): "
        + ("raters disagree about the systems more than the systems differ." if bigger else "the systems differ more than raters disagree about them.")
    ))
else:
    display(wording.omitted(summary, "F_vs_interaction", "Table 1 (the classical F tests)"))

# %% [markdown]
# ## The REML system test
#
# With cells missing, the system effect is tested with items and raters random
# by the REML fit: an F test of "all systems equal" whose error term is the
# system means' covariance under the fitted components, with Satterthwaite's
# degrees of freedom (as lmerTest). It needs no complete design.

# %%
reml_test = summary.get("system_test_reml")
if isinstance(reml_test, dict):
    reml_table = pd.DataFrame([{k: reml_test.get(k) for k in ("F", "df1", "df2", "p", "error")}])
    out.table(reml_table, "reml_system_test", caption="The system effect by REML, items and raters random (Satterthwaite df)",
              styler=reml_table.style.format({"F": "{:.2f}", "df1": "{:.0f}", "df2": "{:.1f}", "p": "{:.3g}"}).hide(axis="index"))
else:
    display(wording.omitted(summary, "system_test_reml", "The REML system test"))

# %% [markdown]
# ## Variance components and the decision study (Figure 1a, 1c)
#
# The random components are expected-mean-square estimates on a complete design
# (negative estimates set to zero) and REML estimates on an incomplete one. The
# generalisability coefficient G of the system means comes with its 95% interval,
# the systems fixed: the noncentral F of the system means inverted (their quasi-F
# on a complete design, their REML F on an incomplete one). The decision study says how many raters
# a crossed panel would need for G ≥ 0.8 and 0.9 at the study's number of items,
# and whether more items alone could get there.

# %% mystnb={"image": {"alt": "Two panels. Left: horizontal bars of each random variance component's share of the random-effect variance, rater terms in red and the others in blue. Right: vertical bars of the system, rater and item shares of the total sum of squares"}}
if design.complete:
    components = tables["components"]
    out.table(components, "variance_components", caption="Expected-mean-square variance components (negative estimates set to zero)",
              styler=components.style.format({"raw": "{:.4f}", "variance": "{:.4f}", "share": "{:.1%}"}, na_rep=""))
    fig = report.variance_components_figure(components["share"].dropna(), tables["anova"]["share"], rater_word="rater")
    out.figure(fig, "figure_1a_variance_components",
               caption="As Figure 1a: variance components, and the system beside rater and item on the sum-of-squares scale")
elif "components" in tables:
    out.table(tables["components"], "reml_variance_components",
              caption="REML variance components (systems fixed; the system row is the unbiased variance of the system means)",
              styler=tables["components"].style.format({"raw": "{:.4f}", "variance": "{:.4f}", "share": "{:.1%}"}, na_rep=""))
    needs = pd.DataFrame({"statistic": list(summary["needs_complete_design"]),
                          "why it needs the complete design": list(summary["needs_complete_design"].values())})
    out.table(needs, "needs_complete_design", caption="What REML cannot replace", styler=needs.style.hide(axis="index"))
    display(wording.omitted(summary, "anova", "Figure 1a (the sums of squares)"))
else:
    display(wording.omitted(summary, "variance_components", "The variance components"))

# %% mystnb={"image": {"alt": "Line chart of the generalisability coefficient G of the system mean against the number of items on a log scale, two lines per panel size, solid for G from the unbiased system variance and dashed for the paper's G from the observed variance of the system means; grey dashed horizontal lines mark G = 0.8 and 0.9 and a dotted vertical line the study's number of items"}}
if design.complete:
    out.table(tables["dstudy"], "decision_study",
              caption="Decision study under both definitions of the system variance: G at this design (unbiased, with its 95% "
              "interval) and the panel sizes G ≥ 0.8 and 0.9 need",
              styler=tables["dstudy"].style.format(escape="html").format_index(escape="html"))
    display(wording.raters_needed_note())
    fig = report.decision_study_figure(tables["decision"], solid=("G", "unbiased"), dashed=("G_observed", "observed (paper)"),
                                       n_items=design.n_items, n_raters=design.n_raters, targets=(0.8, 0.9),
                                       xlabel="number of items (log scale); dotted: this study")
    out.figure(fig, "figure_1c_decision_study",
               caption="As Figure 1c: decision study, G against the number of items for at most four panel sizes (the "
               "smallest, the largest, this study's and others between). Solid: unbiased system variance (the "
               "checklist's); dashed: the paper's observed variance of the system means")
elif "dstudy" in tables:
    display(wording.g_interval_note(summary))
    out.table(tables["dstudy"], "reml_decision_study",
              caption="G of the design as run (unbiased, with its 95% interval; and observed), and "
              "the crossed panel sizes G ≥ 0.8 and 0.9 need",
              styler=tables["dstudy"].style.format(escape="html").format_index(escape="html"))
    display(wording.raters_needed_note())
    curves = tables["decision"]
    unbiased = curves[curves["definition"] == "unbiased"].reset_index(drop=True)
    unbiased["G_observed"] = curves.loc[curves["definition"] == "observed", "G"].to_numpy()
    fig = report.decision_study_figure(unbiased, solid=("G", "unbiased"), dashed=("G_observed", "observed (paper)"),
                                       n_items=design.n_items, n_raters=design.n_raters, targets=(0.8, 0.9),
                                       xlabel="number of items (log scale); dotted: this study")
    out.figure(fig, "reml_decision_study_figure",
               caption="Decision study from the REML components: G of a crossed panel against the number of items for "
               "at most four panel sizes (the smallest, the largest, this study's and others between); solid: unbiased "
               "system variance, dashed: the paper's observed variance of the system means")
else:
    display(wording.omitted(summary, "G", "The decision study"))

# %% [markdown]
# ## Does the winner depend on who is on the panel? (Table 2, Figure 1b)
#
# The leaderboard (rank 1 best) of the full panel and of each panel without one
# rater ranks the systems by mean rating on a complete design. On an incomplete one
# it ranks them by their REML (GLS) estimates over the ratings each panel has. A
# complete design also gets Kendall's τ between the raters' own orderings of the
# systems.

# %% mystnb={"image": {"alt": "Line chart of each system's rank, one line per system, across the panels that leave out one rater; rank 1 is at the top"}}
if design.complete:
    ranks = wording.shown(tables["loao_ranks"].sort_values("all"), axis=1)
    note = wording.cut_note(tables["loao_ranks"], "panels", "loao.panels", axis=1)
    out.table(ranks, "table_2_leave_one_out_ranks", caption="As Table 2: system ranks with all raters and with each rater left out (1 = best)",
              styler=ranks.style.format_index(escape="html").format_index(escape="html", axis=1))
    if note:
        display(note)
    kendall = wording.shown(tables["kendall"])
    note = wording.cut_note(tables["kendall"], "pairs of raters", "loao.kendall")
    out.table(kendall, "kendall_tau_between_raters", caption="Kendall's τ between the raters' orderings of the systems",
              styler=kendall.style.format({"tau": "{:.2f}", "pval": "{:.2f}"}).hide(axis="index"))
    if note:
        display(note)
    loao = summary["loao"]
    display(Markdown(f"Leaving one rater out changes the winner ({markdown_text(loao['winner_all'])}) in "
                     f"{loao['winner_changes']} of {loao['n_panels']} panels."))
    fig = report.leave_one_out_figure(ranks, rater_word="rater")
    out.figure(fig, "figure_1b_leave_one_out_ranks", caption="As Figure 1b: system rank by which rater is left out")
elif "loao_ranks" in tables:
    reml_ranks = tables["loao_ranks"].sort_values("all")
    out.table(reml_ranks, "reml_leave_one_out_ranks",
              caption="System ranks with all raters and with each rater left out (GLS estimates over the ratings each panel has; 1 = best)",
              styler=reml_ranks.style.format_index(escape="html").format_index(escape="html", axis=1))
    loao = summary["loao"]
    display(Markdown(f"Leaving one rater out changes the winner ({markdown_text(loao['winner_all'])}) in "
                     f"{loao['winner_changes']} of {loao['n_panels']} panels. Kendall's τ between raters is omitted: "
                     "with cells missing, two raters' orderings rest on different items."))
    fig = report.leave_one_out_figure(reml_ranks, rater_word="rater")
    out.figure(fig, "reml_leave_one_out_figure", caption="System rank (REML) by which rater is left out")
else:
    display(wording.omitted(summary, "loao", "The leave-one-rater-out leaderboards"))

# %% [markdown]
# ## What the ratings track: output length (paper section 5)
#
# With one length per output, a judgement-level mixed model (crossed random
# intercepts for item and rater) estimates what one more unit of length is worth,
# per rater as well. A comparison that conditions on nothing at the system level
# gives length-matched win rates (95% Wilson intervals) to set beside the mean
# ratings: for every item, every pair of systems whose outputs have *the same*
# length, the one with the higher panel-mean rating wins.

# %%
if lengths is None:
    display(Markdown("No lengths were given (`--lengths FILE`), so this section is skipped."))
elif not design.complete:
    display(wording.omitted(summary, "length_slope", "The length analysis"))
else:
    if "length_model" in tables:
        out.table(tables["length_model"], "length_mixed_model", caption="Mixed model of every judgement on output length (random item and rater intercepts)",
                  styler=tables["length_model"].style.format(precision=4).hide(axis="index"))
    if "length_per_rater" in tables:
        out.table(tables["length_per_rater"], "length_slope_by_rater", caption="Each rater's length slope",
                  styler=tables["length_per_rater"].style.format(precision=3).hide(axis="index"))
    out.table(tables["systems"], "systems_length_and_rating", caption="Per system: mean rating with its CI, mean length and length-matched win rate",
              styler=tables["systems"].style.format(precision=3).hide(axis="index"))

# %% mystnb={"image": {"alt": "Scatter plot of each system's mean rating against the mean length of its rated outputs, one labelled point per system; beside it, when win rates are available, a dot plot of each system's length-matched win rate with 95% Wilson interval bars and a dotted line at one half"}}
if lengths is not None and design.complete:
    systems = tables["systems"]
    n_plots = 2 if "win_rates" in tables else 1
    fig, axes = plt.subplots(1, n_plots, figsize=(5.5 * n_plots, 3.8), squeeze=False)
    ax = axes[0, 0]
    ax.scatter(systems["mean_count"], systems["mos"], color=report.PALETTE[4], zorder=3)
    for name, x, y in zip(systems[SYSTEM], systems["mean_count"], systems["mos"]):  # any column name, not just identifiers
        ax.annotate(str(name), (x, y), textcoords="offset points", xytext=(4, 3), fontsize=8)
    ax.set_xlabel(f"mean {cols['length']} of the rated outputs")
    ax.set_ylabel("mean rating")
    ax.set_title("Mean output length against mean rating")
    if "win_rates" in tables:
        ordered = tables["win_rates"].sort_values("win_rate")
        ax = axes[0, 1]
        ax.errorbar(ordered["win_rate"], ordered[SYSTEM].astype(str),
                    xerr=[ordered["win_rate"] - ordered["ci_low"], ordered["ci_high"] - ordered["win_rate"]],
                    fmt="o", color=report.PALETTE[4], ecolor="grey", capsize=3)
        ax.axvline(0.5, color="grey", linestyle=":")
        ax.set_xlabel("length-matched win rate (95% Wilson CI)")
        ax.set_title(f"Length-matched win rates ({summary['matched_comparisons']:,} comparisons)")
    fig.tight_layout()
    out.figure(fig, "length_vs_rating", caption="As Figures 2a and 2c: mean output length against mean rating, and length-matched win rates")

# %% [markdown]
# ## How often these intervals cover
#
# An interval that says 95 % may cover less on a small or incomplete design.
# With `--coverage N` the audit simulates N studies from this study's own fit,
# on the cells it has, recomputes G's interval and each system's mean interval
# as above, and counts how often each holds the value the fit makes true. The
# count comes with its Monte Carlo error.

# %%
measured = summary.get("coverage")
if isinstance(measured, dict):
    covered = pd.DataFrame(measured["intervals"])[["interval", "system", "coverage", "mc_error", "below", "above", "median_width"]]
    out.table(covered, "interval_coverage", caption=f"Coverage of the 95% intervals in {measured['n_measured']} studies simulated from this study's fit",
              styler=covered.style.format({"coverage": "{:.3f}", "mc_error": "{:.3f}", "below": "{:.3f}", "above": "{:.3f}"}, na_rep="").hide(axis="index"))
    display(Markdown(wording.coverage_text(summary)))
else:
    display(wording.omitted(summary, "coverage", "The measured coverage"))

# %% [markdown]
# ## The checklist (paper section 10)
#
# Each recommendation, judged for this study. "Met" is a statement about the
# data read through the recommendation: for instance, "treat annotators as a
# random factor" is met when the system effect survives the system × rater error
# term, and "run a decision study" when the study already reaches G ≥ 0.8.

# %%
checks = tables["checklist"]
counts = checks["status"].value_counts()
shown = [s for s in STATUSES if counts.get(s) or s != LOW_AGREEMENT]  # the low-agreement one when it occurs
display(Markdown(", ".join(f"**{counts.get(s, 0)}** {s}" for s in shown) + "."))
out.table(checks, "checklist", caption="The paper's six recommendations, judged for this study",
          styler=checks.style.format(escape="html").hide(axis="index").set_properties(**{"text-align": "left", "white-space": "normal"}))

# %% [markdown]
# ## The summary
#
# The headline numbers of `audit.json` (the file also holds every table above,
# the leave-one-out leaderboards and the checklist).

# %%
headline = {k: summary[k] for k in audit.SUMMARY_KEYS if not isinstance(summary[k], (dict, list)) or k == "alpha_ci"}
headline_table = pd.Series({k: ", ".join(report.format_number(x) for x in v) if isinstance(v, list) else
                            (f"not computable: {summary['reasons'][k]}" if v is None and k in summary["reasons"] else v)
                            for k, v in headline.items()}, name="value", dtype=object).to_frame()
out.table(headline_table, "summary", caption="The headline numbers of audit.json", styler=headline_table.style.format(escape="html"))
if summary_json is not None:
    audit.write_json(summary, summary_json)
