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
# # Claims ledger
#
# What agreement with the paper shows depends on where the number came from,
# so this page never adds the claims up into one count. It opens with the
# only statements the book can make about the paper itself: the paper's
# numbers checked against one another, with no simulated data. Next come the
# paper's claims put to **real** data (real tokenizers, real parallel text,
# real human judgements and embeddings), each with a verdict computed from the
# data. Then come the paper's reported numbers beside the values the pipeline
# computed on the simulation, in three groups:
#
# 1. **free data claims**: computed from the simulated data, and no parameter
#    of `data/simulation.yml` was tuned to them. Agreement shows that the
#    paper's numbers are mutually consistent under the simulation's model;
#    the share of freshly simulated benchmarks (data seeds) on which each
#    lands in its band shows how firmly.
# 2. **targeted data claims**: some parameter lists them under `targets:`;
#    agreement is by construction and shows nothing about the paper. A miss
#    means the simulator is broken.
# 3. **design and arithmetic claims**: fixed by the study's design or
#    following from other reported numbers.
#
# That the pipeline computes the right quantities is shown elsewhere: by the
# tests against independent references (listed in the appendix "How this
# book was built"). A value outside its band is reported as **differs**,
# with a note. Bands come unchanged from the paper's registry and are never
# widened, and a differing claim is never moved back by retuning a parameter
# that does not list it as a target (`CONTRIBUTING.md`).

# %% tags=["parameters"]
seed = 20260929  # unused: the ledger draws nothing; kept for a uniform interface
data_dir = None  # unused: the ledger reads the claims the chapters recorded
claims_file = None  # None: _build/claims.json of the book build; a relative path is taken from the repository root

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import Markdown, display

from compendium.analyses.ledger import claims, intervals, paper_checks, real_checks
from compendium.book import report
from compendium.build import runner

path = runner.ROOT / claims_file if claims_file else runner.CLAIMS_FILE
rows = claims.read_ledger(path)
summary = claims.read_summary(path)
out = report.Outputs("99_ledger", parameters={"claims_file": claims_file})
ledger = claims.ledger_frame(rows)
ledger["group"] = [claims.group_of(row) for row in rows]
ledger["note"] = ledger["note"].where(ledger["note"].astype(bool), None)  # an empty note shows as a dash
sources = sorted({row["data"] for row in rows if row["data"]})
checks = paper_checks.checks()
on_real = claims.read_real_checks(path)


# %% tags=["hide-input"]
COLOURS = {"reproduced": "background-color: #d4edda", "differs": "background-color: #f8d7da",
           "consistent": "background-color: #d4edda", "inconsistent": "background-color: #f8d7da",
           claims.HOLDS: "background-color: #d4edda", claims.DOES_NOT_HOLD: "background-color: #f8d7da",
           claims.INCONCLUSIVE: "background-color: #fff3cd", claims.NOT_TESTABLE: "background-color: #eeeeee"}


def show(part, columns: list[str], name: str, caption: str, folded: str | None = None, notes=()):
    """One group of the ledger as a table: numbers by the book's one formatter, shares as %, a dash where empty."""
    shown = part[columns].reset_index(drop=True)
    formats = {c: (lambda v: report.format_number(v) if isinstance(v, (int, float)) else v)
               for c in ("paper", "reproduced", "lo", "hi") if c in columns}
    formats.update({c: "{:.0%}" for c in ("data_seed_share_in_band",) if c in columns})
    formats.update({c: real_checks.breakable_id for c in ("check",) if c in columns})  # ids break at . and _
    styler = shown.style.hide(axis="index").format(formats, na_rep="—")
    for column in ("status", "verdict"):
        if column in columns:
            styler = styler.map(lambda v: COLOURS.get(v, ""), subset=[column])
    out.table(shown, name, caption=caption, styler=styler, folded=folded, notes=notes)
    return shown


def group_counts(group: str) -> str:
    c = summary["groups"][group]
    return f"{c['claims']} claims: {c['reproduced']} in band, {c['differs']} differ, {c['not-run']} not run"


Markdown(
    f"Computed from **{' and '.join(sources) or 'no'} data**"
    + (" (the shipped simulation: agreement on a targeted claim shows nothing about the paper)" if "simulated" in sources else "")
    + ". The paper checked against itself and the paper's claims on real data are listed check by check below; "
    "they are not added up, since the checks differ in their data, their rule and what they bear on."
)

# %% tags=["hide-input"]
# The ledger at a glance: one row per group of claims, counted from the ledger file (the tables below
# list every claim, folded).
glance = pd.DataFrame([{"group": words, "claims": summary["groups"][g]["claims"],
                        "in band": summary["groups"][g]["reproduced"], "differ": summary["groups"][g]["differs"],
                        "not run": summary["groups"][g]["not-run"]}
                       for g, words in (("free", "free data claims"), ("targeted", "targeted data claims"),
                                        ("design", "design claims"), ("arithmetic", "arithmetic claims"))
                       if g in summary["groups"]])
out.table(glance, "ledger_at_a_glance",
          caption="The ledger at a glance: the paper's numbers beside the book's, by group (verdicts are not "
                  "counted: the paper's checks and the real-data checks are listed one by one below)",
          styler=glance.style.hide(axis="index"))

# %% [markdown]
# (ledger-paper-checks)=
# ## The paper checked against itself
#
# Each row takes numbers printed in the paper (the section says where) and
# recomputes one of them from the others with a tested function of the
# package or a library (column `how`). It says whether the printed value is
# consistent with the rest within its rounding. No simulated number enters
# here. Inconsistent checks first.

# %% tags=["hide-input"]
shown = show(checks, list(checks.columns), "paper_checked_against_itself",
             "The paper's numbers recomputed from one another (no simulated data)",
             notes=[c for c in ("how",) if c in checks.columns])

# %% [markdown]
# (ledger-real-data)=
# ## The paper's claims on real data
#
# Each row quotes a claim of the paper (the section says where), names the
# **real** data and instrument it was put to, and says what was computed. The
# verdict comes from a tested function of the analysis, applied to the
# numbers by a rule stated before the result (column `rule`, with the
# smallest effect of interest and its source). It reads `holds`, `does not
# hold`, `inconclusive` (the data can test the claim but do not decide it), or
# `not testable here` (they cannot test it).
# A proxy (a tokenizer of the same family, a corpus of another domain) is
# named as one: it can show what the paper's reasoning predicts for such
# data, not what the paper's own data say.

# %% tags=["hide-input"]
if on_real:
    real_table = real_checks.frame(on_real)
    show(real_table, list(real_table.columns), "paper_claims_on_real_data",
         "The paper's claims put to real data, each verdict computed from the data (real data)")
else:
    display(Markdown("No chapter of this build put a claim to real data."))

# %% [markdown]
# (ledger-intervals)=
# ### What the intervals are worth
#
# A verdict that rests on an interval is only as firm as the interval's
# coverage. The table lists every kind of interval behind a verdict or an
# audit here and how often it covered in simulation from the design it was
# used on, with the Monte Carlo error. It is measured in one of three ways.
# G, the system means, the variance ratio and the length slope are measured on
# studies simulated from the design's own fitted model. Decodability and the
# token ratios are measured in the bootstrap's own world, where the observed
# rows stand for the population; that cannot show what the rows leave out.
# The Wilson intervals are measured exactly, by binomial sums. The range asked
# of an interval is 0.935 to 0.965. A verdict
# box names an interval that covered less where it was used. `make bench`
# measures the table again (`compendium bench --sections coverage`).

# %% tags=["hide-input"]
display(Markdown(intervals.replaced_text()))
worth = intervals.summary_table()
out.table(worth, "interval_coverage",
          caption="Every kind of interval a verdict rests on: its method and its coverage, lowest to highest over "
                  "the designs it was used on (nominal 95 %): the real evaluations and, for G and the system "
                  "means, also the simulated benchmark",
          styler=worth.style.hide(axis="index"))
by_design = intervals.table()
out.table(by_design, "interval_coverage_by_design",
          caption="Each interval's coverage on each design, with the Monte Carlo error and the shares of intervals "
                  "wholly below and wholly above the truth; an interval the book replaced is listed with its own "
                  "coverage",
          styler=by_design.style.hide(axis="index"), folded="coverage by design")

# %% [markdown]
# The audit's decision study names the raters a crossed panel needs for
# G ≥ 0.8 and 0.9. That number is a point estimate with no interval, so it
# has no coverage. What it promises is that a panel of that size reaches the
# target. The table measures how often it does in studies simulated from each
# complete design's own fit. The audit report quotes the range.

# %% tags=["hide-input"]
needed = intervals.raters_needed_table()
out.table(needed, "raters_needed_promise",
          caption="How often a panel of the size the decision study recommends reaches the target under the design's "
                  "own fit (complete designs only)",
          styler=needed.style.hide(axis="index"))

# %% [markdown]
# ## Free data claims
#
# No parameter of the simulation was set while looking at these. The column
# `status` is the default data seed's. The column `data_seed_share_in_band` is the share of freshly
# simulated benchmarks (the data-seed sweep shown in "Robustness across
# seeds") on which the claim lands in its band; a dash means that sweep did
# not run the claim's chapter.

# %% tags=["hide-input"]
free = ledger[ledger["group"] == "free"]
display(Markdown(f"**Free data claims**, {group_counts('free')}."))
shown = show(free, ["id", "what", "paper", "reproduced", "lo", "hi", "status", "data_seed_share_in_band", "note"],
     "free_data_claims", "Free data claims: no simulation parameter targets them (simulated data)", folded="all free data claims")

# %% [markdown]
# ## Targeted data claims
#
# A parameter of `data/simulation.yml` lists each of these under `targets:`
# (or `copied_from:`), column `targeted_by`: the simulation was tuned until it
# produced them, so agreement here is by construction and shows nothing about
# the paper. A targeted claim outside its band means the simulator is broken,
# and the tests fail.

# %% tags=["hide-input"]
targeted = ledger[ledger["group"] == "targeted"]
display(Markdown(f"**Targeted data claims**, {group_counts('targeted')}."))
shown = show(targeted, ["id", "what", "paper", "reproduced", "lo", "hi", "status", "targeted_by", "note"],
     "targeted_data_claims", "Targeted data claims: agreement by construction (simulated data)", folded="all targeted data claims")

# %% [markdown]
# ## Design and arithmetic claims
#
# Counts fixed by the study's design (the simulation realises them exactly)
# and numbers that follow from other reported numbers without data.

# %% tags=["hide-input"]
fixed = ledger[ledger["group"].isin(["design", "arithmetic"])]
display(Markdown(f"**Design claims**, {group_counts('design')}; **arithmetic claims**, {group_counts('arithmetic')}."))
shown = show(fixed, ["id", "what", "basis", "paper", "reproduced", "lo", "hi", "status", "note"],
     "design_and_arithmetic_claims", "Design and arithmetic claims", folded="all design and arithmetic claims")

# %% [markdown]
# ## Claims outside their band
#
# Every computed claim outside its band, whatever its group, with the note
# saying how it was computed. They are reported, never hidden, and never
# moved back by retuning a parameter that does not list them as a target.

# %% tags=["hide-input"]
outside = ledger[ledger["status"] == "differs"]
if len(outside):
    shown = show(outside, ["id", "group", "what", "paper", "reproduced", "lo", "hi", "note"], "claims_outside_their_band",
         "Claims outside their band")
else:
    display(Markdown("No claim differs: every computed claim lies in its band."))

# %% [markdown]
# (ledger-sounder)=
# ## Where a sounder analysis changes the paper's conclusion
#
# The ledger above holds the paper's analyses as the paper ran them. Where a
# careful reviewer would run an analysis differently (an unbiased estimator, the
# error term its assumptions call for, resampling that respects clustering, a
# paired comparison, a corrected resampled test), the chapters compute the sounder
# analysis too, on the same data, and record both. This table gathers those rows
# from every chapter; it adds to the ledger and replaces none of the paper's numbers.

# %% tags=["hide-input"]
from compendium.analyses.ledger import sounder

notebook_dir = (runner.ROOT / claims_file).parent if claims_file else runner.BOOK_DIR
executed = [notebook_dir / f"{source.stem}.ipynb" for source in runner.analysis_sources()]
beside = sounder.collect([path for path in executed if path.exists()])
if len(beside):
    display(Markdown(
        "The sounder analyses that change the paper's conclusion come first "
        f"(computed from {' and '.join(sorted(set(beside['data']))) or 'no'} data)."
    ))
    shown = beside[["notebook", "claim", "paper_method", "paper_value", "sounder_method", "sounder_value",
                    "conclusion_changes", "note"]].sort_values("conclusion_changes", ascending=False, kind="stable")
    out.table(shown.reset_index(drop=True), "sounder_analyses",
              caption="Where a sounder analysis changes the paper's conclusion: the paper's method and value beside "
                      "the sounder method and value, on the same data",
              styler=shown.style.hide(axis="index").format(escape="html")
              .format({"conclusion_changes": lambda v: "yes" if v else "no",
                       "paper_value": lambda v: report.format_number(v) if isinstance(v, float) else str(v),
                       "sounder_value": lambda v: report.format_number(v) if isinstance(v, float) else str(v)}))
else:
    display(Markdown("No chapter has recorded a sounder analysis yet."))

# %% [markdown]
# ## What the ledger says

# %% tags=["hide-input"]
# Computed from the counts above: the ledger's groups (verdicts are never counted).
free_counts, targeted_counts = summary["groups"].get("free", {}), summary["groups"].get("targeted", {})
Markdown(
    f"Only the checks of the paper against itself speak about the paper: the inconsistent ones find printed "
    f"numbers that do not fit together. On the {' and '.join(sources) or 'no'} data, "
    f"{free_counts.get('reproduced', 0)} of {free_counts.get('claims', 0)} free claims land in their band, which says "
    f"the paper's numbers are mutually consistent under the simulation's model; the "
    f"{targeted_counts.get('reproduced', 0)} of {targeted_counts.get('claims', 0)} targeted claims in band say "
    f"nothing about the paper (the simulation was tuned to them). Where a sounder analysis is run beside the "
    f"paper's, its table shows, row by row, whether it changes the paper's conclusion. The claims on real data "
    f"are not counted: each has its verdict, by its own rule, in its chapter's box and in the table above."
)
