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
# # System cards
#
# *Paper sections 4 to 8, one system at a time.* A leaderboard orders the systems
# by one number, the panel's mean opinion score (MOS). The paper shows that this
# number cannot carry the weight put on it: tested against the system × annotator
# interaction the systems do not differ, and the order changes with who sits on
# the panel (chapter 2). What the panel rewards is mostly how many emojis a system
# emits (chapter 3). The measurements that do say something about a system each
# come with a condition attached: emoji–affect decodability only within a
# language and beside its floors (chapter 4), token costs only in a stated unit
# and with reasoning traces set apart (chapter 6).
#
# So instead of a rank, each system gets a card that keeps these measurements side
# by side, with their intervals and floors, in the spirit of model cards and of the
# "affective passport" of the VIBE benchmark for affective profiling of language
# models. A card records what was measured, how completely, how precisely, and where
# the number stops meaning what it seems to. The caveats on a card are not written
# by hand: fixed rules read them off the numbers (listed below the cards), so a
# card says what its own numbers support and no more.

# %% tags=["parameters"]
seed = 20260929  # seeds the EAD folds, bootstraps and permutations, and the MOS bootstraps
data_dir = None  # None: the shipped simulated benchmark in data/
n_boot = 2000  # item-bootstrap replicates of the EAD CIs (paper: 2,000), as in chapter 4
n_boot_mos = 5000  # item-bootstrap replicates of the MOS CIs (paper appendix B: 5,000), as in chapter 3
n_permutations = 0  # label permutations of the EAD null per cell; 0 (default) shows the stratified-random
# floor instead, since each permutation re-runs the cross-validation (chapter 4 has the null; 19 is the fewest
# whose p-value can reach 0.05, and takes 3-5 minutes here)

# %%
from IPython.display import HTML, Markdown

from compendium.book import cards, report
from compendium.analyses.ead import core as ead_core
from compendium.stats import panels
from compendium.analyses import cost, length
from compendium.stats import gtheory
from compendium.data import schema
from compendium.data.benchmark import load_benchmark

benchmark = load_benchmark(data_dir, embeddings=False)
out = report.Outputs("09_system_cards", benchmark, parameters={
    "seed": seed, "n_boot": n_boot, "n_boot_mos": n_boot_mos, "n_permutations": n_permutations})
label = schema.SYSTEM_LABELS
data = report.data_label(benchmark)  # "simulated" for the shipped simulation, shown beside every number
report.data_banner(benchmark)

# %% [markdown]
# ## What a card shows
#
# Every number on a card is computed by the function of the chapter it comes
# from, with the same settings, so a card agrees with that chapter:
#
# - **Outputs** (chapter 1): how many outputs hold the one to five emojis the
#   prompt asks for, how many items needed a retry, and the distribution of the
#   emoji count, counted as graphemes (chapter 3).
# - **Emoji–affect decodability** (chapter 4): EAD in each language with its
#   item-bootstrap interval and the system's tier in that language. Beside it
#   stand two floors: always predicting the majority emotion, and guessing at
#   random in the label proportions (or, with `n_permutations` above 0, the 95th
#   percentile of a label-permutation null, the whole protocol rerun on shuffled
#   labels).
# - **Mean opinion score** (chapter 2): MOS of the whole panel and of each
#   annotator alone, with item-bootstrap intervals that hold the annotators fixed,
#   and the system's rank when each annotator in turn is left out. The reliability
#   of the panel's MOS is the generalisability coefficient G from the unbiased
#   system variance, with its 95% interval; the paper's G (from the observed
#   variance of the system means, which includes their sampling error) is beside it.
# - **Length-matched comparison** (chapter 3): the share of comparisons it wins
#   against another system's output of the same length on the same item, with a
#   Wilson interval, beside its rank by mean emoji count.
# - **Tokens** (chapter 6): prompt tokens per source byte and per source
#   character, and billed completion tokens per item and per emoji.

# %%
lengths = length.emoji_counts(benchmark.generations)
outputs = benchmark.generations[["system", "attempts"]].assign(graphemes=lengths["graphemes"].to_numpy())
ead = ead_core.ead_table(benchmark.sentences, benchmark.generations, seed=seed, n_boot=n_boot,
                             n_permutations=n_permutations)
win_rates = length.matched_win_rates(length.length_matched_comparisons(benchmark.ratings, lengths))
mos = length.system_summary(benchmark.ratings, lengths, win_rates=win_rates, n_boot=n_boot_mos, seed=seed)
annotator_mos = cards.annotator_summaries(benchmark.ratings, lengths, n_boot=n_boot_mos, seed=seed)
loao = panels.leave_one_annotator_out(benchmark.ratings)
g_study = gtheory.g_study(benchmark.ratings)  # the panel's G: unbiased by default, the paper's observed one beside it
rates = cost.token_rates(benchmark.sentences, benchmark.generations, by=("system", "language"))
costs = cost.completion_costs(benchmark.sentences, benchmark.generations)
facts = cards.card_facts(outputs=outputs, ead=ead, mos=mos, annotator_mos=annotator_mos, loao=loao,
                         win_rates=win_rates, rates=rates, costs=costs, g_study=g_study)

# %% [markdown]
# ## The leaderboard the cards qualify
#
# For reference, the ordering a benchmark would usually publish: MOS with its
# interval, best first.

# %%
board = mos[["system", "mos", "mos_ci_low", "mos_ci_high", "rank_mos"]].assign(system=mos["system"].map(label))
out.table(board, "mos_leaderboard", caption=f"MOS leaderboard ({data} data)",
          styler=board.style.format(precision=3).hide(axis="index"))

# %% [markdown]
# ## The cards
#
# One card per system, in the order the paper lists them (not by score). The
# coloured edge of a card is only an accent; the heading names the system.
# Under it, the system's five most frequent emojis over all its outputs, each
# with its share of the system's emojis.

# %%
top = cards.top_emojis(benchmark.generations)  # each system's five most frequent emojis, shown on its card
HTML(cards.cards_html(facts, data_label=data, emojis=top))

# %% [markdown]
# ## The rules behind the caveats
#
# Each rule reads the numbers above and fires for a system when its condition
# holds. The table lists every rule with the thresholds of this run, the paper
# section it rests on, and the systems it fired for.

# %%
systems = set(facts["system"])
fired = facts[facts["section"] == "caveats"].groupby("quantity")["system"].agg(
    lambda names: "every system" if set(names) == systems else ", ".join(label.get(s, s) for s in names))
rules = cards.caveat_rules()
rules["fired for"] = rules["rule"].map(fired).fillna("no system")
out.table(rules, "caveat_rules", caption=f"Caveat rules and the systems they fired for ({data} data)")

# %% [markdown]
# What the rules found, in words (computed from the two tables above):

# %%
every = rules.loc[rules["fired for"] == "every system", "rule"].tolist()
leader = board.iloc[0]
# The leader's overlap count is its mos_ci_overlap caveat's value (the rule does not fire at 0).
leader_id = mos.loc[mos["rank_mos"].idxmin(), "system"]
leader_caveats = facts[(facts["system"] == leader_id) & (facts["section"] == "caveats")]
overlapping = int(leader_caveats.loc[leader_caveats["quantity"] == "mos_ci_overlap", "value"].sum())
Markdown(
    f"On this {data} benchmark, {len(every)} of the {len(rules)} caveat rules fire for every system"
    + (f" ({', '.join(f'`{r}`' for r in every)})" if every else "")
    + f". The MOS leader, {leader['system']} ({leader['mos']:.3f}, 95% CI [{leader['mos_ci_low']:.3f}, "
    f"{leader['mos_ci_high']:.3f}]), has an interval that overlaps those of {overlapping} of the other "
    f"{len(board) - 1} systems."
)

# %% [markdown]
# ## Every fact in one table
#
# The cards are drawn from one long table: a row per fact, with the interval
# where there is one and a note on how it was obtained. Shares are fractions;
# a quantity's language, annotator or panel is in brackets. Its CSV is the
# machine-readable form of the cards.

# %% tags=["hide-output"]
out.table(facts, "system_card_facts",
          caption=f"Every fact of the system cards, caveats included ({data} data)",
          styler=facts.style.format({"value": "{:.6g}", "lo": "{:.6g}", "hi": "{:.6g}"}, na_rep="").hide(axis="index"))
