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
# # 1. Benchmark and study design
#
# *Paper section 3.* The benchmark has three parts: a corpus of
# {glue:text}`design.n_sentences:,.0f` labelled sentences in three languages,
# eight systems that each answer every sentence with one to five emojis, and a
# fully crossed human study in which three annotators rate 290 Bangla sentences
# for all eight systems. This chapter recomputes every count
# the paper reports about that design from the data, and shows the two
# constraints the later chapters depend on: the corpora do not share a label
# scheme, and the rating design is complete.

# %% tags=["parameters"]
seed = 20260929  # analysis seed (this chapter draws nothing at random; kept for a uniform interface)
data_dir = None  # None: the shipped simulated benchmark in data/

# %%
import matplotlib.pyplot as plt
import seaborn as sns

from compendium.book import claims, report
from compendium.analyses import corpus
from compendium.data import schema
from compendium.data.benchmark import load_benchmark

report.setup_plots()
benchmark = load_benchmark(data_dir, embeddings=False)
ledger = claims.Recorder("01_design", data=report.data_label(benchmark))
out = report.Outputs("01_design", benchmark, parameters={"seed": seed})
report.data_banner(benchmark)

# %% [markdown]
# ## The corpora and their label schemes
#
# The three corpora come from different sources and **do not share a label
# scheme**: Bangla and English use six emotions including *love*; Hindi adds
# *neutral* and *disgust* and has no *love*. Bangla is multi-label. Any
# cross-lingual comparison of label statistics would therefore compare annotation
# guidelines, not models, so every cross-lingual analysis in this book is
# restricted to single-label items over the five emotions the schemes share.

# %%
summary = corpus.corpus_summary(benchmark.sentences)
out.table(summary, "corpus_by_language", caption="The three corpora: sentences, multi-label and shared single-label items",
          styler=summary.style.format({"multi_label_share": "{:.1%}", "shared_single_share": "{:.1%}"}))

# %%
ledger.record("design.n_sentences", summary["sentences"].sum())
for language in schema.LANGUAGES:
    ledger.record(f"design.n_sentences_{language}", summary.loc[language, "sentences"])
ledger.record("design.bn_multilabel_share", summary.loc["bn", "multi_label_share"])
for language in schema.LANGUAGES:
    ledger.record(f"design.shared_single_{language}", summary.loc[language, "shared_single"])

# %% mystnb={"image": {"alt": "Three panels of horizontal bars, one per language, giving each emotion label's share of that language's items; bars are coloured by whether the emotion is one of the five the label schemes share"}}
labels = corpus.label_distribution(benchmark.sentences)
grid = sns.catplot(
    data=labels, x="share", y="label", col="language", hue="shared", kind="bar",
    height=3.2, aspect=0.9, sharey=False, palette=[report.PALETTE[5], report.PALETTE[4]],
)
grid.set_axis_labels("share of the language's items", "")
grid.set_titles("{col_name}")
grid.legend.set_title("shared emotion")
grid.figure.suptitle("Label distribution per corpus (multi-label items count once per label)", y=1.04)
out.figure(grid.figure, "label_distribution_by_language",
           caption="Label distribution of each corpus; only the five shared emotions are comparable across languages")

# %% [markdown]
# ## Generation
#
# Every system answered every sentence with the same English prompt (appendix A).
# A response with no character above U+007F was retried, up to three attempts.
# The table counts emoji graphemes (zero-width-joiner sequences and skin tones kept
# whole, stray ASCII dropped) beside the naive count of non-ASCII code points, the
# distinction appendix B shows matters for chapter 3.

# %%
generation = corpus.generation_summary(benchmark.generations)
out.table(
    generation, "generation_by_system", caption="Generation per system: retries, emoji graphemes, code points and tokens",
    styler=generation.style.format(
        {"retry_rate": "{:.3f}", "mean_emojis": "{:.2f}", "mean_codepoints": "{:.2f}",
         "mean_prompt_tokens": "{:.1f}", "mean_completion_tokens": "{:.1f}"}
    ),
)
ledger.record("design.retry_rate_min", generation["retry_rate"].min())
ledger.record("design.retry_rate_max", generation["retry_rate"].max())

# %% mystnb={"image": {"alt": "Horizontal bar chart of the share of items that needed a retry, one bar per system in its colour, sorted from lowest to highest"}}
fig, ax = plt.subplots(figsize=(7, 3))
rates = generation["retry_rate"].rename(index=schema.SYSTEM_LABELS).sort_values()
ax.barh(rates.index, rates.to_numpy(), color=[report.SYSTEM_COLOURS[s] for s in generation["retry_rate"].sort_values().index])
ax.set_xlabel("share of items that needed a retry")
ax.set_title("Retry rate per system")
out.figure(fig, "retry_rate_by_system", caption="Retry rate per system: the share of items whose first response had no non-ASCII character")

# %% [markdown]
# ## The human study: a completely crossed design
#
# Three annotators rated the same 290 Bangla sentences for all eight systems on a
# 1–5 scale. The picture shows every cell of the item × (system, annotator) design;
# a missing judgement would show as a gap. A complete design is what lets chapter 2
# separate the annotator × system interaction from residual noise.

# %%
human_items = benchmark.sentences.loc[benchmark.sentences["human_study"], "sentence_id"]
design = corpus.rating_design(benchmark.ratings, human_items)
out.table(design.to_frame("value"), "human_study_design", caption="The human study: items, systems, annotators and judgements")
ledger.record("design.n_judgements", design["judgements"])
ledger.record("design.missing_cells", design["missing_cells"])

# %% mystnb={"image": {"alt": "Heat map of the human study's design: items along the horizontal axis, one row per system and annotator grouped by system on the vertical axis, each cell blue where a judgement exists and white where it is missing"}}
cells = corpus.design_cells(benchmark.ratings, human_items)
fig, ax = plt.subplots(figsize=(7, 3.4))
ax.imshow(cells.to_numpy().T, aspect="auto", cmap="Blues", vmin=0, vmax=1, interpolation="nearest")
ax.set_yticks(range(0, cells.shape[1], len(cells.columns.levels[1])))
ax.set_yticklabels([schema.SYSTEM_LABELS[s] for s in cells.columns.get_level_values("system")[:: len(cells.columns.levels[1])]])
ax.set_xlabel(f"item (n = {cells.shape[0]})")
ax.set_title("Judgements per cell: items × (system, annotator); blue = rated")
out.figure(fig, "rating_design_cells", caption="Every cell of the crossed rating design; a gap would be a missing judgement")

# %% [markdown]
# ## The geometry sample
#
# The embedding analyses of chapter 5 use a label-stratified sample of about 400
# sentences per language, embedded by five commercial encoders.

# %%
geometry = corpus.geometry_sample_summary(benchmark.sentences)
out.table(geometry, "geometry_sample_by_label", caption="The geometry sample: sentences per label and language")
ledger.record("design.geometry_sample", geometry.loc["total"].sum())

# %% [markdown]
# ## Claims of this chapter
#
# Every number above that the paper reports, beside the paper's value and its
# acceptance band. The full ledger is the last chapter.

# %%
out.claims(ledger)
