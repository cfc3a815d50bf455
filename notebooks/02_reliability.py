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
# # 2. Do preference scores identify a winner?
#
# ```{glue:md} verdict_box
# :format: myst
# ```
#
# *Paper section 4.* Three annotators rated all eight systems' emojis for the same
# 290 Bangla sentences. The conventional analysis averages the three ratings and
# compares systems over items (the mean opinion score, {term}`MOS`). This chapter asks what the panel can support once
# the annotators are treated as what they are, a small sample from a population
# of possible annotators. How much do they agree? Does any system differ from any
# other against the right error term? How many annotators would a reliable ranking
# need (the generalizability coefficient {term}`G`)? Does the winner survive
# the removal of one annotator? The {doc}`glossary` spells out the terms.
#
# *No real data in this chapter:* the paper's ratings are not public. The
# verdicts in the box come from {doc}`10_real_benchmarks`, which puts this
# section's claims to every real rated evaluation the book has.

# %% tags=["parameters"]
seed = 20260929  # seeds the bootstraps, the simulated panels and the rater splits
data_dir = None  # None: the shipped simulated benchmark in data/
n_boot = 2000  # unit-bootstrap replicates for the alpha CI (paper: 2,000)
exclude_annotators = []  # annotators to leave out of every analysis, e.g. ["A2"]
panel_sizes = [3, 9, 27]  # simulated panel sizes checked against the decision study

# %%
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from compendium.stats import agreement, gtheory, multiplicity
from compendium.stats import panels
from compendium.analyses.ledger import claims, sounder
from compendium.book import report
from compendium.data import schema
from compendium.data.benchmark import load_benchmark

report.setup_plots()
benchmark = load_benchmark(data_dir, embeddings=False)
ledger = claims.Recorder("02_reliability", data=report.data_label(benchmark))
beside = sounder.Recorder("02_reliability", data=report.data_label(benchmark))  # the sounder analysis beside the paper's
out = report.Outputs("02_reliability", benchmark, parameters={
    "seed": seed, "n_boot": n_boot, "exclude_annotators": exclude_annotators, "panel_sizes": panel_sizes})
ratings = benchmark.ratings[~benchmark.ratings["annotator"].isin(exclude_annotators)]
ratings = ratings.assign(annotator=ratings["annotator"].cat.remove_unused_categories())
UNIT = ["sentence_id", "system"]
report.data_banner(benchmark)

# %% [markdown]
# ## 2.1 Agreement
#
# Pearson's *r* between annotators is the statistic benchmarks usually report.
# It ignores where on the scale each annotator sits, and here the annotators sit
# in very different places.

# %%
raters = agreement.rater_summary(ratings)
pairs = agreement.pairwise_alpha(ratings, unit=UNIT, level="ordinal")
out.table(raters, "annotator_means", caption="Each annotator's mean and SD on the 1–5 scale",
          styler=raters.style.format({"mean": "{:.2f}", "sd": "{:.2f}"}).hide(axis="index"))
out.table(pairs, "pairwise_agreement", caption="Pearson's r and ordinal Krippendorff's α for each pair of annotators",
          styler=pairs.style.format({"alpha": "{:.3f}", "r": "{:.3f}"}).hide(axis="index"))
for row in raters.itertuples():
    if f"agreement.mean_{row.annotator}" in ledger.claims:
        ledger.record(f"agreement.mean_{row.annotator}", row.mean)
if len(pairs):
    ledger.record("agreement.pearson_min", pairs["r"].min())
    ledger.record("agreement.pearson_max", pairs["r"].max())
    ledger.record("agreement.alpha_worst_pair", pairs["alpha"].min())

# %% [markdown]
# Coefficients that penalise systematic differences between raters tell another
# story: Krippendorff's ordinal α over all (item, system) units, with a
# unit-bootstrap CI, and the Shrout–Fleiss intraclass correlations with the
# (item, system) output as the target.

# %%
alpha = agreement.alpha_bootstrap_ci(ratings, unit=UNIT, level="ordinal", n_boot=n_boot, seed=seed)
iccs = agreement.icc(ratings, target=UNIT)
out.table(alpha, "krippendorff_alpha", caption="Ordinal Krippendorff's α over all (item, system) units, with a unit-bootstrap CI",
          styler=alpha.style.format(precision=3).hide(axis="index"))
out.table(iccs, "intraclass_correlations", caption="Shrout–Fleiss intraclass correlations, the (item, system) output as the target",
          styler=iccs.style.format({"ICC": "{:.3f}", "F": "{:.2f}", "pval": "{:.2g}", "ci_low": "{:.3f}", "ci_high": "{:.3f}"}))
ledger.record("agreement.alpha_ordinal", alpha["alpha"].iloc[0])
ledger.record("agreement.alpha_ci_low", alpha["ci_low"].iloc[0], note=f"{n_boot} unit-bootstrap replicates")
ledger.record("agreement.alpha_ci_high", alpha["ci_high"].iloc[0], note=f"{n_boot} unit-bootstrap replicates")
ledger.record("agreement.icc_2_1", iccs.loc["ICC(2,1)", "ICC"])
ledger.record("agreement.icc_2_k", iccs.loc["ICC(2,k)", "ICC"])

# %% [markdown]
# **Beside the paper: the α interval by item clusters.** The unit bootstrap
# resamples (item, system) outputs one by one, as if the eight outputs of one
# sentence were independent; they share the sentence. The item-cluster bootstrap
# resamples sentences with all their outputs (same number of replicates, same
# seed), so its interval carries the between-sentence variability the unit
# bootstrap leaves out. The audit's checklist uses the cluster interval.

# %%
alpha_cluster = agreement.alpha_cluster_bootstrap_ci(ratings, cluster="sentence_id", unit=UNIT, level="ordinal",
                                                     n_boot=n_boot, seed=seed)
alpha_both = pd.concat([alpha.assign(resampled="(item, system) units: the paper's unit bootstrap"),
                        alpha_cluster.drop(columns="n_clusters").assign(resampled="items with all their outputs: cluster bootstrap")],
                       ignore_index=True)
alpha_both["width"] = alpha_both["ci_high"] - alpha_both["ci_low"]
alpha_both = alpha_both[["resampled", "alpha", "ci_low", "ci_high", "width", "n_boot"]]
out.table(alpha_both, "alpha_ci_unit_vs_cluster", caption="Ordinal α with the unit-bootstrap and the item-cluster-bootstrap 95% CI",
          styler=alpha_both.style.format(precision=3).hide(axis="index"))
TENTATIVE = 0.667  # Krippendorff's (2004) lowest alpha for tentative conclusions


def _alpha_verdict(row):
    return (row["ci_low"] > 0, row["ci_high"] >= TENTATIVE)


unit_row, cluster_row = alpha_both.iloc[0], alpha_both.iloc[1]
beside.record(
    "alpha interval", "agreement.alpha_ci_high", "unit bootstrap over (item, system) outputs",
    f"[{unit_row['ci_low']:.3f}, {unit_row['ci_high']:.3f}], width {unit_row['width']:.3f}",
    "item-cluster bootstrap (items resampled with all their outputs)",
    f"[{cluster_row['ci_low']:.3f}, {cluster_row['ci_high']:.3f}], width {cluster_row['width']:.3f}",
    _alpha_verdict(unit_row) != _alpha_verdict(cluster_row),
    f"The cluster interval is {cluster_row['width'] / unit_row['width']:.1f} times as wide; "
    + ("it still excludes" if cluster_row["ci_high"] < TENTATIVE else "it now reaches")
    + f" α = {TENTATIVE}, the lowest value Krippendorff accepts for tentative conclusions, and "
    + ("excludes 0." if cluster_row["ci_low"] > 0 else "includes 0."),
)

# %%
worst = pairs.loc[pairs["alpha"].idxmin()]
Markdown(
    f"The pair {worst['annotator1']}–{worst['annotator2']} correlates at r = {worst['r']:.3f}, "
    f"which looks like weak agreement, yet its ordinal α is {worst['alpha']:.3f}: once their different "
    "use of the scale is accounted for, they agree "
    + ("no better than chance." if worst["alpha"] <= 0 else "only slightly better than chance.")
)

# %% [markdown]
# ## 2.2 The system effect against the right error term (Table 1)
#
# The fully crossed design allows a three-way ANOVA with every interaction. The
# system effect can be tested against four error mean squares, each the right one
# under its own assumptions:
#
# - against the residual (items and annotators fixed);
# - against item × system, which a paired test over items on panel-averaged
#   scores uses (annotators fixed);
# - against system × annotator, the paper's test, with the annotators a sample
#   from a population (items fixed);
# - with items and annotators both random, against the quasi error
#   MS(item × system) + MS(system × annotator) − MS(residual) with Satterthwaite's df.

# %%
anova = gtheory.anova_table(ratings)
f_tests = gtheory.system_f_tests(anova)
out.table(anova, "table_1_anova", caption="Table 1: three-way crossed ANOVA (item × system × annotator)",
          styler=anova.style.format({"SS": "{:.2f}", "df": "{:.0f}", "MS": "{:.2f}", "share": "{:.1%}"}, na_rep=""))
out.table(f_tests, "table_1_system_f_tests",
          caption="Table 1: the system effect, each F test against its error mean square (named in the last column)",
          styler=f_tests.style.format({"F": "{:.2f}", "df1": "{:.0f}", "df2": "{:.1f}", "pval": "{:.3g}", "error_MS": "{:.3f}"}))
ledger.record("anova.F_vs_residual", f_tests.loc["residual", "F"])
ledger.record("anova.p_vs_residual", f_tests.loc["residual", "pval"])
ledger.record("anova.F_vs_interaction", f_tests.loc["system:annotator", "F"])
ledger.record("anova.p_vs_interaction", f_tests.loc["system:annotator", "pval"])
ledger.record("anova.ms_system", anova.loc["system", "MS"])
ledger.record("anova.ms_system_x_rater", anova.loc["system:annotator", "MS"])


def _f_text(row):
    df2 = f"{row['df2']:.0f}" if float(row["df2"]).is_integer() else f"{row['df2']:.1f}"
    return f"F({row['df1']:.0f}, {df2}) = {row['F']:.2f}, p = {row['pval']:.3g}"


quasi, interaction, by_items = f_tests.loc["quasi"], f_tests.loc["system:annotator"], f_tests.loc["item:system"]
beside.record(
    "system effect, annotators random", "anova.p_vs_interaction", "F against MS(system × annotator)",
    _f_text(interaction), "quasi-F against MS(item × system) + MS(system × annotator) − MS(residual), Satterthwaite df",
    _f_text(quasi) if np.isfinite(quasi["F"]) else "undefined (quasi error not positive)",
    bool(np.isfinite(quasi["pval"]) and (quasi["pval"] < 0.05) != (interaction["pval"] < 0.05)),
    "Both treat the annotators as random; the quasi-F also treats the items as random. "
    + ("Neither finds a system effect at .05." if interaction["pval"] >= 0.05 and quasi["pval"] >= 0.05
       else "They agree at .05." if (interaction["pval"] < 0.05) == (quasi["pval"] < 0.05) else "They disagree at .05."),
)
beside.record(
    "system effect, annotators fixed", "anova.F_vs_residual", "F against MS(residual)",
    _f_text(f_tests.loc["residual"]), "F against MS(item × system), the error of the paired test over items",
    _f_text(by_items), bool((by_items["pval"] < 0.05) != (f_tests.loc["residual", "pval"] < 0.05)),
    "Naming the error exactly: the paired-over-items analysis divides by MS(item × system), not the residual; "
    "with the annotators fixed both find a system effect, and both ignore that the annotators disagree about the systems."
    if by_items["pval"] < 0.05 else "With the paired-over-items error the system effect is no longer significant at .05.",
)

# %%
Markdown(
    f"The system × annotator mean square ({anova.loc['system:annotator', 'MS']:.2f}) is "
    + ("larger" if anova.loc["system:annotator", "MS"] > anova.loc["system", "MS"] else "smaller")
    + f" than the system mean square ({anova.loc['system', 'MS']:.2f}): annotators disagree about the systems "
    + ("more than the systems differ." if anova.loc["system:annotator", "MS"] > anova.loc["system", "MS"] else "less than the systems differ.")
)

# %% [markdown]
# ## 2.3 Pairwise comparisons: items or annotators as the unit
#
# The same contrast over the 28 system pairs: a paired *t*-test over items on
# panel means, and a paired *t*-test with the annotator as the unit of replication.

# %%
by_item = panels.pairwise_system_tests(ratings, unit="item")
by_annotator = panels.pairwise_system_tests(ratings, unit="annotator")
signs = panels.sign_consistency(ratings)
pairwise = pd.DataFrame(
    {
        "significant at .05": [by_item["significant"].sum(), by_annotator["significant"].sum()],
        "significant after Holm": [by_item["significant_holm"].sum(), by_annotator["significant_holm"].sum()],
        "pairs": [len(by_item), len(by_annotator)],
    },
    index=["items as the unit", "annotators as the unit"],
)
out.table(pairwise, "pairwise_system_tests",
          caption="Significant system pairs with items or annotators as the unit of replication; "
          f"correction: {multiplicity.describe('holm', len(by_item))}")
ledger.record("pairwise.items_sig_05", by_item["significant"].sum())
ledger.record("pairwise.items_sig_holm", by_item["significant_holm"].sum())
ledger.record("pairwise.annotator_unit_sig", by_annotator["significant"].sum())
ledger.record("pairwise.consistent_sign_pairs", signs["consistent"].sum())
Markdown(f"{signs['consistent'].sum()} of {len(signs)} pairs differ in the same direction for every annotator.")

# %% [markdown]
# ## 2.4 Variance components and the decision study (Figure 1a, 1c)
#
# Expected-mean-square estimates of the random components (negative estimates
# are set to zero; the raw estimate is kept). The system is a fixed factor, so
# it does not appear among them; on the common scale of the sums of squares of
# Table 1 it can be set beside the annotator and the item.
#
# :::{dropdown} Which system variance G uses here
# The system variance used by the generalisability coefficient is that of the
# observed system means, $\sum_s(\mu_s-\mu)^2/n_s$: with that definition the
# paper's own mean squares give its G = 0.336. Because the observed means contain
# sampling error, this G is not zero even when the systems do not differ at all.
# :::

# %%
components = gtheory.variance_components(anova)
out.table(components, "variance_components", caption="Expected-mean-square variance components (negative estimates set to zero)",
          styler=components.style.format({"raw": "{:.4f}", "variance": "{:.4f}", "share": "{:.1%}"}, na_rep=""))
ledger.record("vc.annotator_pct", 100 * components.loc["annotator", "share"])
ledger.record("vc.item_x_annotator_pct", 100 * components.loc["item:annotator", "share"])
ledger.record("vc.residual_pct", 100 * components.loc["residual", "share"])
ledger.record("vc.item_pct", 100 * components.loc["item", "share"])
ledger.record("ss.system_pct", 100 * anova.loc["system", "share"])
ledger.record("ss.annotator_pct", 100 * anova.loc["annotator", "share"])
ledger.record("ss.item_pct", 100 * anova.loc["item", "share"])

# %% mystnb={"image": {"alt": "Two panels. Left: horizontal bars of each random variance component's share of the random-effect variance, annotator terms in red and the others in blue. Right: vertical bars of the system, annotator and item shares of the total sum of squares"}}
fig = report.variance_components_figure(components.loc[list(gtheory.RANDOM_COMPONENTS), "share"], anova["share"])
out.figure(fig, "figure_1a_variance_components",
           caption="Figure 1a: variance components, and the system beside annotator and item on the sum-of-squares scale")

# %%
n_items, n_raters = ratings["sentence_id"].nunique(), ratings["annotator"].nunique()
G = gtheory.g_coefficient(components, n_items, n_raters)
needed_80 = gtheory.raters_needed(components, n_items, 0.8)
needed_90 = gtheory.raters_needed(components, n_items, 0.9)
limit_3 = gtheory.g_limit(components, 3)
decision = pd.Series(
    {"G at this design": G, "raters for G >= 0.8": needed_80, "raters for G >= 0.9": needed_90,
     "G with 3 raters, items -> infinity": limit_3},
    name=f"{n_items} items, {n_raters} raters",
)
decision_table = decision.to_frame()
panel_rows = pd.IndexSlice[["raters for G >= 0.8", "raters for G >= 0.9"], :]
out.table(decision_table, "decision_study", caption="Decision study: G at this design and the panel sizes G ≥ 0.8 and 0.9 need",
          styler=decision_table.style.format("{:.3f}", na_rep="not reachable").format("{:.0f}", subset=panel_rows, na_rep="not reachable")
          .format_index(escape="html"))
ledger.record("dstudy.G", G)
if needed_80 is not None:
    ledger.record("dstudy.raters_for_G80", needed_80)
if needed_90 is not None:
    ledger.record("dstudy.raters_for_G90", needed_90)
ledger.record("dstudy.G_limit_3_raters", limit_3)

# %% [markdown]
# **Beside the paper: G with the unbiased system variance.** The observed
# variance of the system means contains $(n_s-1)/n_s$ times G's own error term,
# so the paper's G is near 0.47 for eight systems even when no system differs.
# The expected-mean-square estimate removes it (and is truncated at 0); its 95%
# interval comes from the quasi-F, of which this G is a monotone function (its
# coverage is checked by simulation in the tests).

# %%
g_both = gtheory.g_study(anova)
out.table(g_both, "g_study_both_definitions",
          caption="G study under both definitions of the system variance: the paper's (observed) and the unbiased one, "
          "with a 95% interval for the unbiased G",
          styler=g_both.style.format("{:.3f}", na_rep="—").format("{:.0f}", subset=["raters_for_G80", "raters_for_G90"],
                                                                 na_rep="not reachable"))
G_unbiased = g_both.loc["unbiased", "G"]
G_ci = (g_both.loc["unbiased", "ci_low"], g_both.loc["unbiased", "ci_high"])


def _raters(value):
    return "not reachable" if not np.isfinite(value) else f"{value:.0f}"


beside.record(
    "G study", "dstudy.G", "G from the observed variance of the system means", float(G),
    "G from the unbiased (expected-mean-square) system variance, truncated at 0; 95% noncentral-F interval, systems fixed",
    f"{G_unbiased:.3f} [{G_ci[0]:.3f}, {G_ci[1]:.3f}]", bool((G >= 0.8) != (G_unbiased >= 0.8)),
    ("Both are below 0.8: the panel is unreliable either way" + (", the unbiased G more so." if G_unbiased < G else "."))
    if max(G, G_unbiased) < 0.8 else "The two definitions disagree about whether the panel reaches G = 0.8.",
)
beside.record(
    "G study", "dstudy.raters_for_G80", "raters for G ≥ 0.8, observed system variance",
    _raters(g_both.loc["observed", "raters_for_G80"]), "raters for G ≥ 0.8, unbiased system variance",
    _raters(g_both.loc["unbiased", "raters_for_G80"]),
    bool(g_both.loc["observed", "raters_for_G80"] != g_both.loc["unbiased", "raters_for_G80"]),
    "A finite panel size for G ≥ 0.8 exists only if the systems differ at all; "
    + ("under the unbiased definition no number of annotators reaches 0.8."
       if not np.isfinite(g_both.loc["unbiased", "raters_for_G80"]) else "the unbiased G needs a different panel."),
)

# %%
reported = {k: ledger.claims[k].paper for k in ("anova.ms_system", "anova.ms_system_x_rater")}
paper_design = {"n_systems": len(schema.SYSTEMS), "n_raters": len(schema.ANNOTATORS)}  # the paper's 8 x 3 ...
paper_design["n_items"] = int(ledger.claims["design.n_judgements"].paper) // (paper_design["n_systems"] * paper_design["n_raters"])
bound = gtheory.unbiased_system_variance_bound(reported["anova.ms_system"], reported["anova.ms_system_x_rater"], **paper_design)
Markdown(
    "**What the paper's own Table 1 gives under the unbiased definition.** The paper reports "
    f"MS(system) = {reported['anova.ms_system']:.2f} and MS(system × annotator) = {reported['anova.ms_system_x_rater']:.2f}. "
    "Whatever MS(item × system) is, as long as it is at least the residual mean square (a non-negative item × system "
    "component), the unbiased system variance is at most "
    f"({paper_design['n_systems'] - 1}/{paper_design['n_systems']})({reported['anova.ms_system']:.2f} − "
    f"{reported['anova.ms_system_x_rater']:.2f})/({paper_design['n_items']} · {paper_design['n_raters']}) = {bound:.4f}"
    + (", which is negative. Truncated at 0 it makes **G = 0 at every number of items and annotators: "
       "no panel, of 27, 70 or any number of annotators, reaches G = 0.8.** The paper's 0.336 and its 27 and 70 "
       "annotators come from the observed variance of the system means, which is sampling error here."
       if bound < 0 else ".")
)

# %% mystnb={"image": {"alt": "Line chart of the generalisability coefficient G of the system mean against the number of items on a log scale, two lines per panel size, solid for the paper's G from the observed system variance and dashed for G from the unbiased system variance; a grey dashed horizontal line marks G = 0.8 and a dotted vertical line the study's number of items"}}
items_grid = np.unique(np.geomspace(10, 500_000, 60).astype(int))
study = gtheory.decision_study(components, items_grid, [3, 9, 27, 70])
study_unbiased = gtheory.decision_study(gtheory.variance_components(anova, system_variance="corrected"),
                                            items_grid, [3, 9, 27, 70])
fig = report.decision_study_figure(study.assign(G_unbiased=study_unbiased["G"].to_numpy()), n_items=n_items,
                                   solid=("G", "observed (paper)"), dashed=("G_unbiased", "unbiased"))
out.figure(fig, "figure_1c_decision_study",
           caption="Figure 1c: decision study; G saturates in the number of items. Solid: the paper's G (observed "
           "variance of the system means); dashed: G from the unbiased system variance")

# %% [markdown]
# ## 2.5 Does the winner depend on who is on the panel? (Table 2, Figure 1b)

# %%
loao = panels.leave_one_annotator_out(ratings)
table2 = loao.pivot(index="system", columns="panel", values="rank").rename(index=schema.SYSTEM_LABELS)
out.table(table2.sort_values("all"), "table_2_leave_one_out_ranks",
          caption="Table 2: system ranks with all annotators and with each annotator left out (1 = best)")
winners = loao.groupby("panel")["winner"].first()
full_winner = winners["all"]
changed = int((winners.drop("all") != full_winner).sum())
claude = loao.loc[(loao["system"] == "claude-3-haiku") & (loao["panel"] != "all"), "rank"]
taus = panels.kendall_between_raters(ratings)
out.table(taus, "kendall_tau_between_annotators", caption="Kendall's τ between the annotators' orderings of the systems",
          styler=taus.style.format({"tau": "{:.2f}", "pval": "{:.2f}"}).hide(axis="index"))
if n_raters == 3:
    ledger.record("loao.winner_changes", changed, note="the abstract says 3 of 3, section 4.4 says 2 of 3")
    ledger.record("loao.claude_best_rank", claude.min())
    ledger.record("loao.claude_worst_rank", claude.max())
    ledger.record("loao.kendall_min", taus["tau"].min())
    ledger.record("loao.kendall_max", taus["tau"].max())
Markdown(f"Leaving one annotator out changes the winner in {changed} of {len(winners) - 1} panels.")

# %% mystnb={"image": {"alt": "Line chart of each system's rank, one line per system in its colour, across the panels that leave out one annotator; rank 1 is at the top"}}
labels = [schema.SYSTEM_LABELS[s] for s in schema.SYSTEMS]
fig = report.leave_one_out_figure(table2.loc[[label for label in labels if label in table2.index]],
                                  colours=dict(zip(labels, report.PALETTE)))
out.figure(fig, "figure_1b_leave_one_out_ranks", caption="Figure 1b: system rank by which annotator is left out")

# %% [markdown]
# ## 2.6 Beyond the paper: larger panels and the truth
#
# The simulator draws annotators from one population, so it can seat larger
# panels on the same outputs. For each panel size the decision study, fitted on
# the three-annotator panel above, predicts G. The simulated panels show what is
# observed: the split-half reliability of the system means over random annotator
# halves (Spearman–Brown corrected) and the split-half class match percentage of
# the Brighter emotion datasets, adapted to a 1–5 scale. The simulator also knows
# the true quality of each system, so we can ask which ordering each analysis
# recovers.

# %%
if benchmark.is_simulated:
    from compendium import simulate

    rows = []
    for size in panel_sizes:
        panel = simulate.simulate_panel(size, seed=seed, data_dir=benchmark.data_dir)
        half = panels.split_half_reliability(panel, n_splits=200, seed=seed)
        match = panels.split_half_class_match(panel, n_splits=200, seed=seed)
        summary = panels.panel_summary(panel)
        rows.append({"annotators": size, "predicted G (decision study)": gtheory.g_coefficient(components, n_items, size),
                     "observed split-half reliability": half["reliability"].mean(),
                     "split-half class match (%)": match["shcmp"].iloc[0],
                     "F vs interaction": summary["F_vs_interaction"], "winner": summary["winner"]})
    panels_table = pd.DataFrame(rows)
    out.table(panels_table, "simulated_panels", caption="Larger simulated panels: predicted G beside observed split-half reliability",
              styler=panels_table.style.format(precision=3).hide(axis="index"))
else:
    display(Markdown("Real data: no larger panels can be drawn, so this section is skipped."))

# %%
if benchmark.is_simulated:
    sized = panels_table.set_index("annotators")
    best_true = max(benchmark.truth["system_quality"], key=benchmark.truth["system_quality"].get) if benchmark.truth else None
    gap_size = sized.index.max()
    gap = sized.loc[gap_size, "observed split-half reliability"] - sized.loc[gap_size, "predicted G (decision study)"]
    lines = [f"At {k} annotators the decision study predicts G = {row['predicted G (decision study)']:.3f} and the "
             f"simulated panels show a split-half reliability of {row['observed split-half reliability']:.3f}; "
             f"F against the interaction is {row['F vs interaction']:.1f} and the winner is "
             f"{schema.SYSTEM_LABELS.get(row['winner'], row['winner'])}." for k, row in sized.iterrows()]
    # the size-by-size reading is the table's in words: folded, for a reader who wants it (issue 69)
    display(Markdown(
        ":::{dropdown} What the table shows, size by size\n" + "\n".join(f"- {line}" for line in lines) + "\n:::\n\n"
        "The decision study extrapolates from three annotators, whose system × annotator variance it takes for the "
        "population's, though it is estimated on two degrees of freedom. "
        + (f"Here it {'underestimates' if gap > 0 else 'overestimates'} what larger panels achieve (by {abs(gap):.2f} "
           f"at {gap_size} annotators): the three annotators disagree about the systems "
           f"{'more' if gap > 0 else 'less'} than the population they are drawn from. " if abs(gap) > 0.05 else
           "Here it predicts the larger panels well. ")
        + "And a reliable panel is not a right one: "
        + ("the winner changes with the panel size" if sized["winner"].nunique() > 1 else "every panel size has the same winner")
        + (f", and the system of highest true quality, {schema.SYSTEM_LABELS.get(best_true, best_true)}, "
           + ("wins none of these panels." if best_true not in set(sized["winner"]) else "wins only some of them.")
           if best_true else ".")
        + " Larger panels agree better with each other about what they all reward, which chapter 3 shows is partly length."
    ))

# %%
if benchmark.truth is not None:
    true_quality = pd.Series(benchmark.truth["system_quality"], name="true quality")
    observed = ratings.groupby("system", observed=True)["rating"].mean().rename("MOS")
    truth_table = pd.concat([true_quality, observed], axis=1)
    truth_table["true rank"] = truth_table["true quality"].rank(ascending=False).astype(int)
    truth_table["MOS rank"] = truth_table["MOS"].rank(ascending=False).astype(int)
    truth_table = truth_table.rename(index=schema.SYSTEM_LABELS).sort_values("true rank")
    out.table(truth_table, "true_quality_vs_mos", caption="The simulator's true system quality beside the observed MOS",
              styler=truth_table.style.format(precision=3))
    top_true, top_mos = truth_table.index[0], truth_table["MOS rank"].idxmin()
    rho_truth = truth_table["true quality"].corr(truth_table["MOS"], method="spearman")
    display(Markdown(
        f"The simulated system of highest true quality, {top_true}, ranks {truth_table.loc[top_true, 'MOS rank']} of "
        f"{len(truth_table)} by MOS, and the MOS leader, {top_mos}, ranks {truth_table.loc[top_mos, 'true rank']} in true "
        f"quality. Over the {len(truth_table)} systems the MOS ordering correlates with the true one at Spearman "
        f"ρ = {rho_truth:.2f}: the panel's mean rating barely recovers the quality it is meant to measure."
    ))

# %% [markdown]
# ## Explore: take annotators off the panel
#
# Choose an evaluation, then tick which annotators stay: the leaderboard, the test of the systems with raters
# random, the raters' variance against the systems' and G follow. The real evaluations come first; the paper's
# design, simulated, is one choice among them.

# %%
from IPython.display import HTML

from compendium.book import explorer
from compendium.book.explorer_designs import real_evaluations

larger = {}
if benchmark.is_simulated and panel_sizes:
    from compendium import simulate

    size = max(panel_sizes)
    larger[f"a simulated panel of {size}"] = simulate.simulate_panel(size, seed=seed, data_dir=benchmark.data_dir)
# Real first (issue 70). Each panel comes from the audit's own functions: the ANOVA of the complete designs,
# REML on the incomplete ones, Bradley-Terry on the preferences; each panel without one rater equals that
# rater's leave-one-out panel in the audit's JSON (tests/test_explorer_designs.py).
panels_data = explorer.precompute_panels(benchmark.ratings, extra_panels=larger)
ours = ("The paper's design" if benchmark.is_simulated else "These data",
        "simulated" if benchmark.is_simulated else "real",
        ("Simulated: the benchmark with the paper's design, 290 items x 8 systems x 3 annotators."
         if benchmark.is_simulated else "The data this chapter was run on."), panels_data)
chosen = explorer.evaluation_set([*real_evaluations(), ours])

# %%
# A live widget on the same panels as the page's explorer below: its view differs between kernels, so nbval
# does not compare it. The answer is an HTML widget whose value the kernel replaces, not an Output widget
# that captures display messages: capturing output into a widget is what makes batch clients (nbclient,
# nbval) wait for a reply that never comes (jupyter/nbclient#312).
# NBVAL_IGNORE_OUTPUT
import ipywidgets as widgets

names = [f"{e['name']} ({e['kind']})" for e in chosen["evaluations"]]
pick = widgets.Dropdown(options=list(zip(names, range(len(names)))), value=0, description="Evaluation")
row, note, answer = widgets.HBox(), widgets.HTML(), widgets.HTML()


def show_panel(_=None):
    evaluation = chosen["evaluations"][pick.value]
    keep = [b.description for b in row.children if b.value]
    note.value = f"<p>{evaluation['note']}</p>"
    answer.value = explorer.panel_html(evaluation["data"], keep)


def choose(_=None):
    row.children = [widgets.Checkbox(value=True, description=a, indent=False)
                    for a in chosen["evaluations"][pick.value]["data"]["annotators"]]
    for box in row.children:
        box.observe(show_panel, names="value")
    show_panel()


pick.observe(choose, names="value")
choose()
out.widget(widgets.VBox([pick, note, row, answer]), twin="the kernel-free explorer below")

# %%
display(Markdown(
    "The same explorer without a kernel, for the rendered book, opens on **real** panels: SummEval's three "
    "experts (one dimension at a time), SQuALITY's four raters, the raters of WMT23 en-de and zh-en MQM, and "
    "PandaLM's three annotators of preferences. The paper's design is one choice among them"
    + (", with every size of the simulated panel of section 2.6" if larger else "")
    + ". Each panel was computed when the chapter ran, so ticking a box only looks the answer up."
))
HTML(explorer.explorer_html(chosen))

# %%
full_panel = panels_data["subsets"][0]
without = {a: explorer.find_subset(panels_data, [b for b in panels_data["annotators"] if b != a])
           for a in panels_data["annotators"]} if len(panels_data["annotators"]) > 2 else {}
if without and full_panel["G"] is not None:
    rise = max(without, key=lambda a: without[a]["G"] if without[a]["G"] is not None else -1)
    g_text = (
        f"With the whole panel G is {full_panel['G']:.2f}; without {rise} it is {without[rise]['G']:.2f}"
        + (", higher with fewer annotators. " if without[rise]["G"] > full_panel["G"] else ". ")
        + f"G counts the system × annotator interaction as error: {rise} orders the systems differently from the "
        "others (the Kendall τ table of section 2.5), so leaving them out removes most of that disagreement. "
        "A high G from the remaining annotators says that they agree with each other, not that their ordering is "
        "right, and the winner without them is "
        + " / ".join(schema.SYSTEM_LABELS.get(w, w) for w in without[rise]["winners"]) + "."
    )
else:
    g_text = "With two or fewer annotators there is no panel to leave one out of."
Markdown(g_text)

# %% [markdown]
# ## The sounder analysis beside the paper's
#
# Each row sets the paper's method and its value on this chapter's data beside a
# sounder method on the same data, and says whether the paper's conclusion changes.

# %%
out.table(beside.table(), "sounder", **beside.table_options())

# %% [markdown]
# ## What to take away

# %%
# Computed from this chapter's tables: the F tests (Table 1), the two G studies and Table 2.
g_unbiased = float(g_both.loc["unbiased", "G"]) if "unbiased" in g_both.index else float("nan")
g_observed = float(g_both.loc["observed", "G"]) if "observed" in g_both.index else float("nan")
p_residual, p_interaction = f_tests.loc["residual", "pval"], f_tests.loc["system:annotator", "pval"]
verdict_f = ("the system effect is significant only against the residual, not against the system × annotator "
             "interaction" if p_residual < 0.05 <= p_interaction else
             "the system effect is significant against both error terms" if p_interaction < 0.05 else
             "the system effect is not significant against either error term")
Markdown(
    f"On these {report.data_label(benchmark)} data, {verdict_f} (p {report.format_p(p_residual)} and {report.format_p(p_interaction)}, "
    f"{{term}}`quasi-F` beside them). The panel's {{term}}`G` is {report.format_number(g_unbiased)} with the "
    f"unbiased system variance ({{term}}`EMS`) and {report.format_number(g_observed)} with the observed variance "
    f"of the system means, the paper's definition. Leaving one annotator out changes the winner in {changed} of "
    f"{len(winners) - 1} panels. A leaderboard built on this panel ranks the annotators' tastes at least as much "
    f"as the systems."
)

# %% [markdown]
# ## Claims of this chapter

# %%
out.claims(ledger)

# %% tags=["remove-cell"]
# The verdict box under the title: built from this chapter's records (compendium.book.verdicts)
from compendium.book import verdicts

from compendium.book import real_benchmarks

_ = verdicts.glue_box("02_reliability", real_checks=real_benchmarks.section4_for_box(),
                      sounder_rows=beside.rows.values(), real_from="10_real_benchmarks")
