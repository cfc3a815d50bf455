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
# Every chapter draws random numbers only through its `seed` parameter:
# cross-validation folds, bootstrap resamples, permutations, subsamples and
# the simulated larger panels. The data stays fixed. A reviewer's first
# question of any reported number is how much of it is the seed. This chapter
# answers it from a **sweep**: every chapter executed once per seed, each run
# recording the same claims as the book's own run.
#
# ```bash
# compendium sweep --seeds 0-9        # about ten times the book's execution time
# compendium build                    # or: make book
# ```
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
claims_file = None  # None: _build/claims.json of the book build

# %% tags=["hide-input"]
from pathlib import Path

import matplotlib.pyplot as plt
from IPython.display import Markdown, display

from compendium import claims, pipeline, report, robustness

report.setup_plots()
sweep_path = pipeline.ROOT / sweep_file if sweep_file else pipeline.SWEEP_DIR / pipeline.SWEEP_CLAIMS
book_path = pipeline.ROOT / claims_file if claims_file else pipeline.CLAIMS_FILE
out = report.Outputs("97_robustness", parameters={"sweep_file": sweep_file})
have_sweep = Path(sweep_path).exists()
if have_sweep:
    sweep = robustness.read_sweep(sweep_path)
    spread = robustness.beside_book(robustness.spread(sweep), claims.read_ledger(book_path))
    seeds = sorted(sweep["seed"].unique())
    data = " and ".join(sorted(sweep["data"].dropna().unique()))
    text = (f"This page summarises a sweep over **{len(seeds)} seeds** ({seeds[0]}–{seeds[-1]}) of "
            f"{sweep['notebook'].nunique()} chapters: {spread['id'].nunique()} claims, "
            f"{int(spread['seed_dependent'].sum())} of which change with the seed. Computed on **{data} data**.")
else:
    text = (":::{admonition} No sweep in this build\n:class: note\n"
            "This build of the book has not run a sweep, so there is nothing to summarise yet. Run "
            "`compendium sweep --seeds 0-9` and then `make book`; this page then shows the spread of every "
            "claim over the seeds. The book's own ten-seed stability analysis of EAD is in chapter 4.\n:::")
Markdown(text)

# %% [markdown]
# ## Claims that move with the seed
#
# For each claim that changes between seeds: its value in the book's run, the
# mean, standard deviation and range over the sweep, the share of seeds whose
# value lies in the paper's band, and the SD as a share of the band's width (a
# claim whose SD is a large share of its band can leave it by chance alone).
# Claims that do not move at all (counts, closed-form statistics) are listed
# after.

# %% tags=["hide-input"]
if have_sweep:
    moving = spread[spread["seed_dependent"]].sort_values(["in_band", "sd_over_band_width"], ascending=[True, False])
    shown = moving[["id", "what", "paper", "book", "mean", "sd", "min", "max", "in_band", "sd_over_band_width"]]
    number = "{:.4g}"
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
    ax.set_yticks(range(len(order)), order, fontsize=7)
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
                  styler=check.style.hide(axis="index").format({"mean": "{:.4f}", "sd": "{:.4f}", "paper_seed_sd": "{:.4f}"}))
    else:
        display(Markdown("*The sweep did not include chapter 4 (decodability).*"))

# %% [markdown]
# ## Claims the seed does not touch

# %% tags=["hide-input"]
if have_sweep:
    fixed = spread.loc[~spread["seed_dependent"], "id"]
    display(Markdown(f"{len(fixed)} claims take the same value under every seed: " + ", ".join(f"`{i}`" for i in fixed) + "."))
