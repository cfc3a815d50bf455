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
# # Robustness across seeds
#
# Two kinds of seed move the book's numbers. The **analysis seed** (each
# chapter's `seed` parameter) draws cross-validation folds, bootstrap
# resamples, permutations, subsamples and the simulated larger panels; the
# data stay fixed. The **data seed** draws the simulated benchmark itself:
# a fresh set of judgements, outputs and embeddings from the same
# `data/simulation.yml`. A number that holds on the default data seed only
# says little. This chapter shows both spreads side by side and, for every
# *free* claim (one no simulation parameter was tuned to) how often it lands
# in the paper's band when the data are drawn again.
#
# ```bash
# compendium sweep --seeds 0-9        # analysis seeds: about ten times the book's execution time
# compendium sweep --data-seeds 0-9   # data seeds: a fresh benchmark per seed under _build/data-sweep/
# compendium build                    # or: make book (make sweep runs all three)
# ```
#
# A plain `make book` runs a small data-seed sweep by itself (three data
# seeds of the two chapters that finish in seconds). It also runs a small
# analysis-seed sweep (two analysis seeds of the reliability chapter, whose
# bootstraps and simulated panels depend on the seed), so no section of this page
# is empty; `make sweep` replaces both with the full ones. The page says below which
# ones it shows.
#
# `compendium sweep` writes the executed chapters to `_build/sweep/seed-N/` and
# one row per seed and claim to `_build/sweep/sweep_claims.csv`; a
# `dask.distributed` scheduler can run the tasks (`--scheduler ADDRESS`). The
# paper's own statement to hold the spread against: EAD is "stable to ±0.003
# macro-F1 across seeds" (section 6; largest per-system SD over ten seeds 0.0033).

# %% tags=["parameters"]
seed = 20260929  # unused: this chapter draws nothing; kept for a uniform interface
data_dir = None  # unused: the sweep records which data each run read
sweep_file = None  # None: _build/sweep/sweep_claims.csv; a relative path is taken from the repository root
data_sweep_dir = None  # None: _build/data-sweep (the data-seed sweep); a relative path is taken from the repository root
claims_file = None  # None: _build/claims.json of the book build

# %% tags=["hide-input"]
from pathlib import Path

import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from compendium.analyses.ledger import claims, robustness
from compendium.book import report
from compendium.build import runner, sweep
from compendium.build import sweep as sweep_module
from compendium.build import sweep as data_seeds

report.setup_plots()
sweep_path = runner.ROOT / sweep_file if sweep_file else sweep.SWEEP_DIR / sweep.SWEEP_CLAIMS
book_path = runner.ROOT / claims_file if claims_file else runner.CLAIMS_FILE
data_dir_path = runner.ROOT / data_sweep_dir if data_sweep_dir else data_seeds.DATA_SWEEP_DIR
out = report.Outputs("97_robustness", parameters={"sweep_file": sweep_file, "data_sweep_dir": data_sweep_dir})
book_rows = claims.read_ledger(book_path)
data_sweep = data_seeds.read_data_sweep(data_dir_path)
data_info = data_seeds.read_info(data_dir_path) or {}
have_sweep = Path(sweep_path).exists()

# %% tags=["hide-input"]
if have_sweep:
    sweep = robustness.read_sweep(sweep_path)
    spread = robustness.beside_book(robustness.spread(sweep), book_rows)
    seeds = sorted(sweep["seed"].unique())
    data = " and ".join(sorted(sweep["data"].dropna().unique()))
    small = (sweep_module.read_analysis_info(Path(sweep_path).parent) or {}).get("kind") == "small"
    text = (f"This page summarises {'the default build' + chr(39) + 's small analysis-seed sweep' if small else 'an analysis-seed sweep'} "
            f"over **{len(seeds)} seeds** ({', '.join(str(s) for s in seeds)}) of "
            f"{sweep['notebook'].nunique()} chapters: {spread['id'].nunique()} claims, "
            f"{int(spread['seed_dependent'].sum())} of which change with the seed. Computed on **{data} data**.")
else:
    sweep = None
    text = (":::{admonition} No analysis-seed sweep in this build\n:class: note\n"
            "This build has not run an analysis-seed sweep. Run `compendium sweep --seeds 0-9` (or `make sweep`) "
            "and then `make book`; the analysis-seed sections below then show the spread of every claim over "
            "the seeds. The book's own ten-seed stability analysis of EAD is in chapter 4.\n:::")
kinds = {"small": "the default build's **small** data-seed sweep", "full": "the **full** data-seed sweep of `make sweep`",
         "custom": "a data-seed sweep run by hand"}
if data_sweep is not None:
    text += (f"\n\nThe data-seed sections show {kinds.get(data_info.get('kind'), 'a data-seed sweep')}: "
             f"**{data_sweep['seed'].nunique()} simulated benchmarks** (data seeds "
             f"{', '.join(str(s) for s in sorted(data_sweep['seed'].unique()))}) of "
             f"{', '.join(sorted(data_sweep['notebook'].unique()))}, {data_sweep['id'].nunique()} claims.")
else:
    text += "\n\n*No data-seed sweep in this build (the book was built from other data than the shipped simulation).*"
Markdown(text)

# %% [markdown]
# ## Free claims when the data are drawn again
#
# A free claim is one no parameter of `data/simulation.yml` lists under
# `targets:`: the simulation was not tuned to it, so its agreement with the
# paper says that the paper's numbers are mutually consistent under the
# simulation's model. The share of data seeds on which it lands in the band
# says how firmly the model ties it to the numbers the simulation was tuned
# to. Lowest share first; `book` is the value on the default data seed.

# %% tags=["hide-input"]
if data_sweep is not None:
    free = robustness.free_claims_over_data_seeds(data_sweep, book_rows)
    number = report.format_number
    out.table(free, "free_claims_over_data_seeds",
              caption="Free claims over the data seeds: share of simulated benchmarks in the paper's band (simulated data)",
              styler=free.style.hide(axis="index").format(
                  {"paper": number, "lo": number, "hi": number, "book": number, "mean": number, "min": number,
                   "max": number, "in_band": "{:.0%}"}, na_rep="—"))
else:
    display(Markdown("*No data-seed sweep: no table.*"))

# %% [markdown]
# ## Analysis seeds beside data seeds
#
# For every claim either sweep computed: its standard deviation and range over
# the analysis seeds (data fixed) and over the data seeds (analysis fixed), and
# the share of seeds in band under each. A claim that is stable over analysis
# seeds but moves over data seeds rests on the particular simulated draw, not
# on the analysis. A dash: that sweep did not run the claim's chapter.

# %% tags=["hide-input"]
both = robustness.side_by_side(sweep, data_sweep)
if len(both):
    number = report.format_number
    out.table(both, "analysis_and_data_seed_spread",
              caption="Spread over analysis seeds and over data seeds (simulated data)",
              styler=both.style.hide(axis="index").format(
                  {"paper": number, "lo": number, "hi": number, "analysis_n_seeds": report.format_number, "data_n_seeds": report.format_number,
                   "analysis_sd": number, "data_sd": number, "analysis_range": number, "data_range": number,
                   "analysis_in_band": "{:.0%}", "data_in_band": "{:.0%}"}, na_rep="—"))
else:
    display(Markdown("*Neither sweep ran: no table.*"))

# %% [markdown]
# ## Claims that move with the analysis seed
#
# For each claim that changes between seeds, the table gives its value in the
# book's run, the mean, standard deviation and range over the sweep, and the share
# of seeds whose value lies in the paper's band. It also gives the SD as a share of
# the band's width: a claim whose SD is a large share of its band can leave it by
# chance alone.
# Claims that do not move at all (counts, closed-form statistics) are listed
# after.

# %% tags=["hide-input"]
if have_sweep:
    moving = spread[spread["seed_dependent"]].sort_values(["in_band", "sd_over_band_width"], ascending=[True, False])
    shown = moving[["id", "what", "paper", "book", "mean", "sd", "min", "max", "in_band", "sd_over_band_width"]]
    number = report.format_number
    out.table(shown.reset_index(drop=True), "claims_that_move_with_the_seed",
              caption="Claims whose value depends on the analysis seed (simulated data)",
              styler=shown.style.hide(axis="index").format(
                  {"paper": number, "book": number, "mean": number, "sd": number, "min": number, "max": number,
                   "in_band": "{:.0%}", "sd_over_band_width": "{:.2f}"}, na_rep="–"))
else:
    display(Markdown("*No sweep: no table.*"))

# %% [markdown]
# ## Every claim on its band
#
# Each dot is one seed's value of one claim, placed on the claim's band: 0 is
# the band's lower edge, 1 its upper edge, so dots outside the shaded strip lie
# outside the band. Only claims that move with the seed are drawn.

# %% tags=["hide-input"] mystnb={"image": {"alt": "Strip plot: one row per seed-dependent claim, dots for the seeds placed on a scale where the shaded strip from 0 to 1 is the paper's acceptance band"}}
if have_sweep and spread["seed_dependent"].any():
    positions = robustness.band_position(sweep)
    moving_ids = list(spread.loc[spread["seed_dependent"], "id"])
    positions = positions[positions["id"].isin(moving_ids)]
    order = [i for i in moving_ids if i in set(positions["id"])]
    fig, ax = plt.subplots(figsize=(7, max(2.5, 0.22 * len(order))))
    ax.axvspan(0, 1, color="#56B4E9", alpha=0.2, label="paper's band")
    rows = {claim: number for number, claim in enumerate(order)}
    ax.scatter(positions["position"], positions["id"].map(rows), s=12, color="#000000", label="one seed")
    ax.set_yticks(range(len(order)), order, fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel("position in the band (0 = lower edge, 1 = upper edge)")
    ax.legend(loc="lower right", fontsize=8)
    out.figure(fig, "claims_on_their_bands", caption="Seed-dependent claims on their bands, one dot per seed (simulated data)")
else:
    display(Markdown("*No sweep, or no claim moves with the seed: no figure.*"))

# %% [markdown]
# ## EAD against the paper's stated stability
#
# The paper's stability statement concerns each system's EAD across seeds.
# The sweep's `ead.*` claims are summaries over systems (the highest Hindi
# EAD, the best emoji channel at n≈400, ...); their SD over the seeds is set
# beside the paper's largest per-system SD.

# %% tags=["hide-input"]
if have_sweep:
    check = robustness.ead_stability_check(sweep)
    if len(check):
        out.table(check.reset_index(drop=True), "ead_seed_stability",
                  caption="EAD claims over the seeds against the paper's stated seed SD (simulated data)",
                  styler=check.style.hide(axis="index").format({"mean": report.format_number, "sd": report.format_number, "paper_seed_sd": report.format_number}))
    else:
        # The default build's small sweep leaves chapter 4 out (it takes minutes): say what the book's own run
        # measured instead, from the ledger (the chapter's ten-seed SD of each system's EAD).
        own = {row["id"]: row for row in book_rows}.get("ead.seed_sd_max")
        if own is not None and own.get("reproduced") is not None:
            display(Markdown(
                f"This sweep did not run chapter 4 (decodability; `make sweep` does). The chapter itself "
                f"re-runs its cross-validation over seeds: the largest per-system SD of EAD there is "
                f"**{report.format_number(own['reproduced'])}** against the paper's "
                f"{report.format_number(robustness.PAPER_EAD_SEED_SD)} (claim `ead.seed_sd_max`, {own['status']})."))
        else:
            display(Markdown("This sweep did not run chapter 4 (decodability), and the book's run recorded no "
                             "seed SD of EAD; `make sweep` runs it."))

# %% [markdown]
# ## Claims the seed does not touch

# %% tags=["hide-input"]
if have_sweep:
    fixed = spread.loc[~spread["seed_dependent"], "id"]
    # the ids in a folded list: a list of 35 names is not a sentence a reader finishes (issue 69)
    display(Markdown(f"{len(fixed)} claims take the same value under every seed.\n\n:::{{dropdown}} The {len(fixed)} "
                     "claims\n" + ", ".join(f"`{i}`" for i in fixed) + "\n:::"))

# %% [markdown]
# ## What moves, and by how much
#
# The summary of both sweeps, computed from the table "Spread over analysis
# seeds and over data seeds" above.

# %% tags=["hide-input"]
Markdown(report.closing_summary(both))
