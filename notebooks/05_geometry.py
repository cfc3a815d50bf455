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
# # 5. Does one centring remove the anisotropy differences?
#
# ```{glue:md} verdict_box
# :format: myst
# ```
#
# *Paper section 7.* The paper calls two claims about the five commercial
# sentence encoders common and wrong. First, that their differences in anisotropy
# (how much all embeddings point the same way) say something about quality: the
# paper argues they are a mean offset that one centring removes. Second, that a
# low separability of languages shows cross-lingual alignment: the paper argues
# that without parallel data it cannot. A real embedding space comes first below;
# the paper's analysis follows, reconstructed on simulated data.

# %% tags=["parameters"]
seed = 20260929  # seeds the cross-validation folds of the classifiers
data_dir = None  # None: the shipped simulated benchmark in data/
C_embedding = 1.0  # inverse regularisation of the probes on L2-normalised embeddings

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Markdown, display

from compendium.analyses.ledger import claims
from compendium.book import report
from compendium.analyses import geometry
from compendium.analyses.real import geometry as real_geometry
from compendium.analyses.ledger import real_checks
from compendium.data import corpora
from compendium.data import real as real_data
from compendium.data.benchmark import load_benchmark

report.setup_plots()
benchmark = load_benchmark(data_dir)
ledger = claims.Recorder("05_geometry", data=report.data_label(benchmark))
out = report.Outputs("05_geometry", benchmark, parameters={"seed": seed, "C_embedding": C_embedding})
embeddings = benchmark.embeddings

# %% [markdown]
# ## On real data: anisotropy of emoji2vec
#
# The paper's encoders are simulated below. emoji2vec (Eisner et al., 2016) is a
# **real** embedding space: 1,661 emojis × 300 dimensions, trained on emoji
# descriptions (`data/real/README.md`). It is not one of the paper's sentence
# encoders, so it cannot confirm or refute the paper's numbers; one real space can
# confirm or refute the *mechanism* the paper names: raw anisotropy is a common
# displacement vector that one centring removes. The same exact statistic is
# computed raw and after subtracting the mean vector. Two sanity checks go with
# it: a random rotation (an orthogonal matrix from the QR of a seeded Gaussian; cosines,
# hence both values, must not change) and a per-dimension rescaling by seeded
# log-normal factors (not a rotation: the raw value may move).
#
# `removed_share` is the
# share of the raw anisotropy that centring removes, $(A_\text{raw} -
# A_\text{centred}) / A_\text{raw}$, and `mean_energy_share` is the share of the rows'
# squared norm that lies in the mean vector. The rule of the verdict: the claim holds
# for this space if centring removes at least 90% of a raw anisotropy of at least
# 0.05.

# %% tags=["hide-input"]
simulated_provenance = out.data  # the provenance line under the real tables names the real data instead
out.data = f"real data (emoji2vec), data/real/MANIFEST `{report.manifest_digest(real_data.real_data_dir())}`"
emoji_names, emoji_vectors = corpora.load_emoji2vec()
emoji_geometry = real_geometry.anisotropy_checks(emoji_vectors, seed=seed, name="emoji2vec (real)")
out.table(emoji_geometry, "emoji2vec_anisotropy",
          caption="Real data: anisotropy of emoji2vec (1,661 emoji x 300), raw and mean-centred, beside a random "
          "rotation and a per-dimension rescaling of it",
          styler=emoji_geometry.style.format({"raw": "{:.4f}", "centred": "{:.5f}", "equal_norm_floor": "{:.5f}",
                                              "removed_share": "{:.3f}", "mean_energy_share": "{:.3f}"}).hide(axis="index"))
real_row = emoji_geometry.iloc[0]
rotated_row = emoji_geometry.iloc[1]
mean_offset_verdict = real_geometry.verdict_mean_offset(real_row["raw"], real_row["centred"])
checks = real_checks.Recorder("05_geometry")
checks.record(
    "geometry.mean_offset_emoji2vec", section="7", claims=["geometry.centered_max_abs"],
    data="emoji2vec (real; 1,661 emoji x 300): an emoji embedding space, not the paper's sentence encoders",
    paper="The differences are entirely attributable to a common displacement vector, removable by one centring operation",
    computed=f"raw anisotropy {real_row['raw']:.4f}, centred {real_row['centred']:.5f} (equal-norm floor "
             f"{real_row['equal_norm_floor']:.5f}): centring removes {real_row['removed_share']:.1%} of it; the mean "
             f"vector holds {real_row['mean_energy_share']:.1%} of the squared norm; a random rotation changes the raw "
             f"value by {abs(rotated_row['raw'] - real_row['raw']):.1e}",
    rule=real_geometry.RULE_MEAN_OFFSET, estimate=real_row["removed_share"],
    no_interval="a property of one fixed embedding matrix, computed exactly",
    verdict=mean_offset_verdict)
paper_raw = [claim.paper for cid, claim in claims.registry().items() if cid.startswith("geometry.anisotropy_")]
Markdown(f"emoji2vec's raw anisotropy is {real_row['raw']:.3f}, within the range the paper reports for its five encoders "
         f"({min(paper_raw):.3f}–{max(paper_raw):.3f}); after centring it is {real_row['centred']:.5f}, next "
         f"to the equal-norm floor of {real_row['equal_norm_floor']:.5f}. The removed share exceeds 100% because the "
         f"centred value is slightly negative, as a cloud whose rows sum to zero makes it. The random rotation leaves both values unchanged "
         f"(difference {abs(rotated_row['raw'] - real_row['raw']):.1e}), and the rescaled copy moves the raw value to "
         f"{emoji_geometry.iloc[2]['raw']:.3f} while centring again removes {emoji_geometry.iloc[2]['removed_share']:.1%}. "
         f"Verdict on this real space: **{mean_offset_verdict}**.")

# %% [markdown]
# Centring can fail to remove anisotropy only when the centred vectors' lengths
# vary with their direction (the test suite builds such a space). The check is
# therefore weak evidence by design: it shows that this real space behaves as the mechanism
# says, not that the paper's encoders do.
#
# ## On real data: four multilingual encoders on parallel text
#
# Four **real** sentence encoders embed NTREX-128's 1,997 news sentences, each
# professionally translated into Bangla and Hindi (5,991 sentences,
# `data/real/README.md`). None of them is one of the paper's five commercial
# providers, so they cannot confirm or refute the paper's numbers; they can test
# its claims about *how* such spaces behave. They differ in how well they read
# Bangla and Hindi: multilingual-e5-small is a strong space, a 64-dimensional
# static model is usable, and two are weak for these languages (byte fallback and
# unknown tokens) and are kept as contrast. The embeddings are derived data,
# recreated by `python data/real/derive.py --embeddings`.
#
# **Why held out.** After subtracting the mean, the mean pairwise cosine of *n*
# vectors is close to −1/(*n*−1) in every space, good or bad, because the centred
# rows sum to zero. In sample, "anisotropy vanishes under centring" is nearly an
# identity. So the mean is estimated on a random half of the sentences and the
# anisotropy measured on the other half (20 halves), and each language is also
# centred with the mean of the *other two* languages. Rules, stated before the
# result: centring **holds** for an encoder if the held-out centring removes at
# least 90% of a raw anisotropy of at least 0.05, counted over the encoders that
# read Bangla and Hindi. For alignment, the paper's own method: retrieve each
# sentence's translation among all 1,997 by cosine (top-1 accuracy and mean
# reciprocal rank, raw and with each language centred on its own mean). Whether
# language separability, or the divergence of the languages' mean vectors, goes
# with alignment is measured as the paper's corpora would give it, on
# non-parallel samples (each language keeps a disjoint third of the sentences).
# Kendall's τ across the encoders that read Bangla and Hindi, at least three of
# them, decides: **does not hold** if τ = −1 (a lower statistic always
# means better retrieval; chance 1 in *n*! over *n* encoders), **holds** if
# τ ≥ 0, **inconclusive** between.

# %% tags=["hide-input"]
from compendium.data import encoded as encoded_data
from compendium.data import encoders as encoder_registry

out.data = f"real data (NTREX-128 embedded by four real encoders), data/real/MANIFEST " \
    f"`{report.manifest_digest(real_data.real_data_dir())}`"
ntrex = corpora.load_ntrex()
encoder_table = encoder_registry.registry()
out.table(encoder_table, "real_encoders", caption="Real data: the four real encoders (none is one of the paper's "
          "providers), how they read Bangla and Hindi, and their licences", styler=encoder_table.style.hide(axis="index"))
encoder_results = {name: real_geometry.encoder_geometry(encoded_data.load_ntrex_embeddings(name),
                                                        ntrex["language"].to_numpy(), ntrex["sentence"].to_numpy(),
                                                        seed=seed, C=C_embedding)
                   for name in encoder_registry.ENCODERS}
strength = {name: spec.strength for name, spec in encoder_registry.ENCODERS.items()}
centring = pd.concat([result["centring"].assign(encoder=name, strength=strength[name])
                      for name, result in encoder_results.items()], ignore_index=True)
centring = centring[["encoder", "strength", "subset", "n", "raw", "centred", "floor", "held_out", "held_out_low",
                     "held_out_high", "removed_held_out", "other_languages"]]
out.table(centring, "encoder_centring",
          caption="Real data: anisotropy of NTREX (en, bn, hi) per encoder and language: raw, centred in sample beside "
          "its floor -1/(n-1), centred with the mean of a held-out half (median and range over 20 halves), the share "
          "removed held out, and each language centred with the other languages' mean",
          styler=centring.style.format({"raw": "{:.3f}", "centred": "{:.5f}", "floor": "{:.5f}", "held_out": "{:.5f}",
                                        "held_out_low": "{:.5f}", "held_out_high": "{:.5f}",
                                        "removed_held_out": "{:.1%}", "other_languages": "{:.3f}"},
                                       na_rep="").hide(axis="index"))
pooled = centring[centring["subset"] == "all"].set_index("encoder")
reads_both = [name for name in encoder_registry.ENCODERS if strength[name] in ("strong", "usable")]
centring_verdict, n_testable, n_removed = real_geometry.verdict_heldout_centring(
    [(pooled.loc[name, "raw"], pooled.loc[name, "removed_held_out"]) for name in reads_both])

# %% tags=["hide-input"]
retrieval = pd.concat([result["retrieval"].assign(encoder=name) for name, result in encoder_results.items()],
                      ignore_index=True)
retrieval_wide = retrieval.pivot_table(index=["encoder", "direction"], columns="space", values=["top1", "mrr"],
                                       sort=False)
retrieval_wide.columns = [f"{measure} ({space})" for measure, space in retrieval_wide.columns]
retrieval_wide = retrieval_wide.reset_index()
out.table(retrieval_wide, "encoder_retrieval",
          caption="Real data: cross-lingual retrieval on NTREX's 1,997 triples: top-1 accuracy (chance 1/1,997) and mean "
          "reciprocal rank of the translation, raw and with each language centred on its own mean",
          styler=retrieval_wide.style.format(precision=3).hide(axis="index"))

# %% tags=["hide-input"]
summary = pd.DataFrame([{
    "encoder": name, "strength": strength[name],
    "raw anisotropy": pooled.loc[name, "raw"],
    "language classifier accuracy": result["separability"]["accuracy"],
    "Fisher ratio": result["separability"]["fisher"],
    "language divergence": result["divergence"],
    "Fisher ratio (non-parallel)": result["nonparallel"].set_index("sample").loc["non-parallel", "fisher"],
    "language divergence (non-parallel)": result["nonparallel"].set_index("sample").loc["non-parallel", "divergence"],
    "retrieval MRR (raw)": result["retrieval"].query("space == 'raw'")["mrr"].mean(),
    "retrieval MRR (centred)": result["retrieval"].query("space != 'raw'")["mrr"].mean(),
} for name, result in encoder_results.items()])
out.table(summary, "encoder_alignment_summary",
          caption="Real data: per encoder, raw anisotropy, language separability (linear classifier, 5-fold; Fisher "
          "ratio), the divergence of the languages' mean vectors, both again on non-parallel samples (each language a "
          "disjoint third of the sentences, median of 20 splits), and retrieval MRR over the six directions",
          styler=summary.style.format(precision=3).hide(axis="index"))

# %% tags=["hide-input"]
# The verdicts rank only the encoders that read Bangla and Hindi (the rule); τ over all four is a description.
readers = summary[summary["encoder"].isin(reads_both)]
separability_verdict, _ = real_geometry.verdict_not_alignment(readers["Fisher ratio (non-parallel)"],
                                                              readers["retrieval MRR (raw)"])
divergence_verdict, _ = real_geometry.verdict_not_alignment(readers["language divergence (non-parallel)"],
                                                            readers["retrieval MRR (raw)"])
_, separability_tau = real_geometry.verdict_not_alignment(summary["Fisher ratio (non-parallel)"],
                                                          summary["retrieval MRR (raw)"])
_, divergence_tau = real_geometry.verdict_not_alignment(summary["language divergence (non-parallel)"],
                                                        summary["retrieval MRR (raw)"])
nonparallel_shift = max(abs(r["nonparallel"]["fisher"].iloc[0] / r["nonparallel"]["fisher"].iloc[1] - 1)
                        for r in encoder_results.values())
best = summary.sort_values("retrieval MRR (raw)", ascending=False).iloc[0]
least_separable = summary.sort_values("Fisher ratio").iloc[0]
Markdown(
    f"Raw anisotropy of the pooled sentences runs from {pooled['raw'].min():.3f} to {pooled['raw'].max():.3f} across "
    f"the four encoders. Centred in sample, the values run from {pooled['centred'].min():.5f} to "
    f"{pooled['centred'].max():.4f}, beside a floor of {pooled['floor'].iloc[0]:.5f}: near zero in every space, "
    "as the identity makes them. With a held-out mean, "
    f"centring removes {pooled['removed_held_out'].min():.1%} to {pooled['removed_held_out'].max():.1%}: "
    f"{n_removed} of the {n_testable} encoders that read Bangla and Hindi pass the 90% rule, so the verdict on the "
    f"paper's claim is **{centring_verdict}**. The weak encoders pass as well, so centring's success says nothing about "
    "a space's quality. Retrieval tells the spaces apart: "
    f"{best['encoder']} finds translations with a mean reciprocal rank of {best['retrieval MRR (raw)']:.3f}, against "
    f"{summary['retrieval MRR (raw)'].min():.3f} for the weakest. The least separable space by the Fisher ratio is "
    f"{least_separable['encoder']} (MRR {least_separable['retrieval MRR (raw)']:.3f}). On non-parallel samples "
    "(each language a disjoint third of the sentences) Kendall's "
    f"τ between the Fisher ratio and retrieval is {separability_tau:.2f} across the four encoders (verdict on the "
    f"paper's claim that “language separability is not alignment”: **{separability_verdict}**). Between the "
    f"languages' divergence and retrieval it is {divergence_tau:.2f} (**{divergence_verdict}**). The rule ranks only "
    f"the {len(reads_both)} encoders that read Bangla and Hindi, and needs three; over all four, τ = −1 would arise "
    "by chance one time in 24. The non-parallel Fisher ratios differ from parallel samples of the same size by at "
    f"most {nonparallel_shift:.1%}: NTREX's thirds are one news corpus, with the same topics in every language, so "
    "they remove shared sentences but not the topic differences of the paper's corpora.")

# %% tags=["hide-input"]
checks.record(
    "geometry.real_centring_removes_anisotropy", section="7", claims=["geometry.centered_max_abs"],
    data="NTREX-128 (real; 1,997 en/bn/hi triples) embedded by multilingual-e5-small and a 64-d static model "
         "(real encoders that read Bangla and Hindi, not the paper's providers); two weak encoders shown as contrast",
    paper="The differences are entirely attributable to a common displacement vector, removable by one centring "
          "operation",
    computed="share of the raw anisotropy removed by centring with the mean of a held-out half of the sentences "
             "(median of 20 halves): " + ", ".join(f"{name} {pooled.loc[name, 'removed_held_out']:.1%} of "
                                                   f"{pooled.loc[name, 'raw']:.3f}" for name in pooled.index),
    rule=real_geometry.RULE_HELDOUT_CENTRING, estimate=f"{n_removed} of {n_testable} encoders that read Bangla and Hindi",
    no_interval="a property of fixed matrices (the range over the 20 halves is in the table)",
    verdict=centring_verdict)

# %% tags=["hide-input"]
checks.record(
    "geometry.real_separability_not_alignment", section="7", claims=[],
    data="NTREX-128 (real) embedded by four real encoders (not the paper's providers); separability on non-parallel "
         "samples (a disjoint third of the sentences per language), retrieval on the parallel text",
    paper="low separability is not a virtue [...] Establishing alignment would require parallel data and a "
          "retrieval evaluation",
    computed=f"{len(reads_both)} encoders read Bangla and Hindi ({', '.join(reads_both)}), too few to rank; over all "
             f"four, a description, Kendall's tau between the languages' Fisher ratio on non-parallel samples and "
             f"retrieval MRR is "
             f"{separability_tau:.2f}; least separable: {least_separable['encoder']}, MRR "
             f"{least_separable['retrieval MRR (raw)']:.3f}; best retrieval: {best['encoder']}, MRR "
             f"{best['retrieval MRR (raw)']:.3f}",
    rule=real_geometry.RULE_SEPARABILITY_NOT_ALIGNMENT,
    estimate=f"{len(reads_both)} encoders read Bangla and Hindi; tau {separability_tau:.2f} over all four",
    no_interval="a rank correlation over encoders", verdict=separability_verdict)
checks.record(
    "geometry.real_retrieval_alignment", section="7", claims=[],
    data="NTREX-128 (real) embedded by four real encoders (not the paper's providers); separability on non-parallel "
         "samples (a disjoint third of the sentences per language), retrieval on the parallel text",
    paper="Our initial analysis reported a cross-lingual divergence of 0.09 for one provider against 0.72 for another "
          "and read the lower value as better alignment. That inference is not available here",
    computed=f"{len(reads_both)} encoders read Bangla and Hindi, too few to rank; over all four, a description, "
             f"Kendall's tau between the divergence of the languages' mean vectors on non-parallel samples and "
             f"retrieval MRR is {divergence_tau:.2f}; divergence from "
             f"{summary['language divergence (non-parallel)'].min():.3f} to "
             f"{summary['language divergence (non-parallel)'].max():.3f}",
    rule=real_geometry.RULE_DIVERGENCE_NOT_ALIGNMENT,
    estimate=f"{len(reads_both)} encoders read Bangla and Hindi; tau {divergence_tau:.2f} over all four",
    no_interval="a rank correlation over encoders", verdict=divergence_verdict)

# %% [markdown]
# What four small encoders can and cannot show: they are real spaces, read the
# same sentences in three languages, and include one strong multilingual model,
# so they test whether centring's success, separability or divergence track
# alignment at all. They are not the paper's providers (commercial encoders of
# 768-4,096 dimensions), four is a small number for a rank correlation, and news
# text is not the benchmark's affect sentences.
#
# ### The paper's claims on real data (section 7)

# %% tags=["hide-input"]
out.table(checks.table(), "real_data_checks", caption="Real-data checks of section 7: the verdict, what was computed, "
          "the paper's words and the data", styler=real_checks.styled(checks.table()))
out.data = simulated_provenance

# %% [markdown]
# ## The paper's analysis, reconstructed on simulated data
#
# From here to the takeaway the chapter reconstructs the paper's analysis on the
# **simulated** benchmark, whose parameters were tuned to the paper's numbers.
# That can show whether the analysis behaves as the paper says and whether the
# paper's numbers fit together; it cannot show whether the paper's claim is
# true, which only the real data above can speak to.

# %%
display(report.data_banner(benchmark))
Markdown(f"The geometry sample holds {len(next(iter(embeddings.values())))} sentences (about 400 per language); "
         "every statistic below is computed on it.")

# %% [markdown]
# ## 5.1 Are the anisotropy differences a mean offset? (Figure 3a)
#
# Anisotropy is the expected cosine between two different embeddings
# (Ethayarajh, 2019), evaluated exactly as $(\lVert\sum_i u_i\rVert^2 - n)/(n(n-1))$
# for the unit-normalised rows $u_i$. The same statistic after subtracting the
# mean embedding shows what is left once the common displacement is removed.

# %%
anisotropy = geometry.anisotropy_table(embeddings)
out.table(anisotropy, "anisotropy_by_encoder", caption="Anisotropy (expected cosine) of each encoder, raw and after mean-centring",
          styler=anisotropy.style.format({"raw": "{:.3f}", "centred": "{:.4f}", "equal_norm_floor": "{:.4f}"}))
for encoder, claim_id in [("openai-3-small", "geometry.anisotropy_openai_small"), ("openai-3-large", "geometry.anisotropy_openai_large"),
                          ("qwen3-embedding-8b", "geometry.anisotropy_qwen3"), ("gemini-embedding-001", "geometry.anisotropy_gemini"),
                          ("mistral-embed-2312", "geometry.anisotropy_mistral")]:
    ledger.record(claim_id, anisotropy.loc[encoder, "raw"])
ledger.record("geometry.centered_max_abs", anisotropy["centred"].abs().max())

# %% mystnb={"image": {"alt": "Two panels stacked, encoders sorted by raw anisotropy. Top: bars of the raw anisotropy of each encoder, with the mean-centred values as a line of points near zero on the same scale. Bottom: the mean-centred anisotropy alone on a scale a thousand times finer, each bar labelled with its value"}}
fig, axes = plt.subplots(2, 1, figsize=(7, 7), gridspec_kw={"height_ratios": [1.2, 1]})
order = anisotropy.sort_values("raw").index
x = np.arange(len(order))
axes[0].bar(x, anisotropy.loc[order, "raw"], width=0.6, label="raw", color=report.PALETTE[5])
axes[0].plot(x, anisotropy.loc[order, "centred"], "o", color=report.PALETTE[4], label="mean-centred", markersize=7)
axes[0].set_xticks(x, order, rotation=20, ha="right")
axes[0].set_ylabel("expected cosine")
axes[0].set_title("(a) Raw anisotropy differs by provider; mean-centred it is zero", loc="left")
axes[0].legend(loc="upper left", frameon=False)
centred = anisotropy.loc[order, "centred"] * 1000
axes[1].bar(x, centred, width=0.6, color=report.PALETTE[4])
for i, value in zip(x, centred):
    axes[1].annotate(f"{value:.2f}", (i, value), textcoords="offset points", xytext=(0, 3 if value >= 0 else -12),
                     ha="center", fontsize=9)
axes[1].axhline(0, color="grey", linewidth=0.8)
axes[1].set_xticks(x, order, rotation=20, ha="right")
axes[1].set_ylabel("mean-centred × 1000")
axes[1].set_title("Mean-centred only, on a 1000× finer scale", loc="left")
axes[1].margins(y=0.25)
fig.tight_layout()
out.figure(fig, "figure_3a_anisotropy", caption="The paper's Figure 3a, reconstructed on the simulated encoders: raw and mean-centred anisotropy per provider")

# %% [markdown]
# The upper panel shows raw anisotropy differing by provider: Gemini's is
# {glue:text}`geometry.anisotropy_gemini:.3f` and OpenAI large's
# {glue:text}`geometry.anisotropy_openai_large:.3f`; after
# mean-centring no encoder exceeds {glue:text}`geometry.centered_max_abs:.2g` in
# absolute value, which the lower panel shows on a scale a thousand times finer.
# The differences between providers are a constant offset shared by all of an
# encoder's vectors, not a difference in how the vectors spread.

# %% [markdown]
# ## 5.2 Does anisotropy predict usefulness?
#
# The pooled emotion probe decodes the five shared emotions from each encoder's
# embeddings (all three languages together; class-balanced logistic regression
# with $C=1$ on $\ell_2$-normalised rows, 5-fold stratified CV). Its correlation
# with raw anisotropy is computed over only five encoders.

# %%
probe = geometry.probe_table(embeddings, benchmark.sentences, seed=seed, C=C_embedding)
correlation = geometry.anisotropy_probe_correlation(anisotropy, probe)
out.table(probe, "emotion_probe_by_encoder", caption="Pooled emotion probe: macro-F1 over the five shared emotions per encoder",
          styler=probe.style.format(precision=3))
ledger.record("geometry.probe_gemini", probe.loc["gemini-embedding-001", "macro_f1"])
ledger.record("geometry.probe_qwen3", probe.loc["qwen3-embedding-8b", "macro_f1"])
ledger.record("geometry.r_anisotropy_probe", correlation["r"], note=f"n = {int(correlation['n'])}, p = {correlation['p']:.2f}")
Markdown(f"Pearson r between raw anisotropy and probe macro-F1: {correlation['r']:.2f} "
         f"(p = {correlation['p']:.2f}, n = {int(correlation['n'])}).")

# %% [markdown]
# ## 5.3 Does language separability show cross-lingual alignment?
#
# The three corpora are not parallel: no Bangla sentence translates any English
# one. A statistic that compares the languages' distributions is therefore
# confounded with topic, register and domain, and cannot measure alignment. What
# can be measured is **separability**: how well a linear classifier tells the
# languages apart, and the Fisher ratio of between-language to within-language
# scatter.

# %%
separability = geometry.separability_table(embeddings, benchmark.sentences, seed=seed)
out.table(separability, "language_separability", caption="Language separability per encoder: classifier accuracy and Fisher ratio",
          styler=separability.style.format(precision=3))
gemini = separability.loc["gemini-embedding-001"]
others = separability.drop(index="gemini-embedding-001")
ledger.record("geometry.lang_acc_gemini", gemini["accuracy"])
ledger.record("geometry.lang_acc_others_min", others["accuracy"].min())
ledger.record("geometry.fisher_gemini", gemini["fisher"])
ledger.record("geometry.fisher_others_min", others["fisher"].min())
ledger.record("geometry.fisher_others_max", others["fisher"].max())

# %% [markdown]
# ## What can and cannot be concluded
#
# - **Can, on the simulated encoders:** anisotropy gaps between providers are a shared displacement vector;
#   after centring, every encoder is isotropic: the largest centred anisotropy is
#   {glue:text}`geometry.centered_max_abs:.2g` in absolute value. Raw anisotropy
#   does not track how well an encoder represents emotion.
# - **Can, on the simulated encoders:** one encoder separates the three languages far less than the others.
#   Low separability goes with the weakest emotion probe here: the space does not
#   so much align languages as fail to represent the distinctions tested.
# - **Cannot, on the simulated corpora:** any statement about cross-lingual *alignment*. That needs parallel
#   sentences and a retrieval evaluation, which these corpora do not support; the real section above runs one on
#   NTREX with four real encoders.

# %% [markdown]
# ## Takeaway

# %% tags=["hide-input"]
Markdown(
    f"**Real.** In emoji2vec, a real space, centring removes {real_row['removed_share']:.1%} of a raw anisotropy of "
    f"{real_row['raw']:.3f} (verdict: {mean_offset_verdict}); a random rotation changes nothing, as it must. One "
    "real space of emoji embeddings supports the mechanism; it says nothing about the paper's sentence encoders' values.\n\n"
    f"**Simulated.** Raw anisotropy runs from {anisotropy['raw'].min():.3f} to {anisotropy['raw'].max():.3f} across the "
    f"five simulated encoders and, after centring, no encoder exceeds {anisotropy['centred'].abs().max():.2g} in "
    f"absolute value; raw anisotropy correlates with the emotion probe at r = {correlation['r']:.2f} over five encoders. "
    "The simulation was set to the paper's raw values (they are targeted claims in the ledger), so this agreement "
    "says nothing about the paper: it shows that the pipeline computes the statistic and that centring removes an "
    "offset the simulation put there."
)

# %% [markdown]
# ## Claims of this chapter

# %%
out.claims(ledger)

# %% tags=["remove-cell"]
# The verdict box under the title: built from this chapter's records (compendium.book.verdicts)
from compendium.book import verdicts

_ = verdicts.glue_box("05_geometry", real_checks=checks.rows.values())
