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
# Every number the paper reports, beside the value the pipeline computed from the
# data and the acceptance band it must land in. A claim is **reproduced** when the
# computed value lies in its band, **differs** when it lies outside, and is
# **not-run** when no chapter computes it yet. Bands come unchanged from the
# paper's claims registry; they are never widened to make a value fit.
#
# The ledger is written by the build to `_build/claims.json` from the executed
# chapters; this page renders that file.

# %% tags=["parameters"]
seed = 20260929  # unused: the ledger draws nothing; kept for a uniform interface
data_dir = None  # unused: the ledger reads the claims the chapters recorded
claims_file = None  # None: _build/claims.json of the book build; a relative path is taken from the repository root

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import Markdown, display

from compendium import claims, pipeline, report

rows = claims.read_ledger(pipeline.ROOT / claims_file if claims_file else pipeline.CLAIMS_FILE)
out = report.Outputs("99_ledger", parameters={"claims_file": claims_file})
ledger = claims.ledger_frame(rows)
counts = claims.summary(rows)
sources = sorted({row["data"] for row in rows if row["data"]})
Markdown(
    f"**{counts['reproduced']} of {len(rows)} claims reproduced**, {counts['differs']} differ, "
    f"{counts['not-run']} not run yet. Computed from **{' and '.join(sources) or 'no'} data**"
    + (" (the shipped simulation: agreement shows the pipeline computes the paper's quantities, not that the paper's data says so)." if "simulated" in sources else ".")
)

# %% [markdown]
# ## Claims outside their band
#
# Each of these is computed, and lies outside the band the paper's registry
# gives. They are listed here rather than hidden; the notes say how they were
# computed.

# %% tags=["hide-input"]
outside = ledger.loc[ledger["status"] == "differs", ["id", "what", "paper", "reproduced", "lo", "hi", "note"]]
if len(outside):
    out.table(outside.reset_index(drop=True), "claims_outside_their_band", caption="Claims outside their band",
              styler=outside.style.hide(axis="index").format({"paper": "{:.6g}", "reproduced": "{:.6g}", "lo": "{:.6g}", "hi": "{:.6g}", "note": lambda v: v or ""}))
else:
    display(Markdown("No claim differs: every computed claim lies in its band."))

# %% [markdown]
# ## All claims, by section

# %% tags=["hide-input"]
def status_colour(status: str) -> str:
    return {"reproduced": "background-color: #d4edda", "differs": "background-color: #f8d7da"}.get(status, "color: #6c757d")


def section_key(section: str) -> tuple:
    head = section.split(".")[0]
    return (0, float(section)) if head.isdigit() else (1, section)


columns = ["id", "what", "paper", "reproduced", "lo", "hi", "status", "note"]
for section in sorted(ledger["section"].unique(), key=section_key):
    part = ledger.loc[ledger["section"] == section, columns]
    label = f"Section {section}" if section[0].isdigit() else f"Appendix {section}"
    done = (part["status"] == "reproduced").sum()
    display(Markdown(f"### {label}: {done} of {len(part)} reproduced"))
    out.table(
        part.reset_index(drop=True),
        "claims_section_" + section.replace(".", "_").lower(),
        styler=part.style.hide(axis="index")
        .format({"paper": "{:.6g}", "reproduced": lambda v: "" if pd.isna(v) else f"{v:.6g}", "lo": "{:.6g}", "hi": "{:.6g}", "note": lambda v: v or ""})
        .map(status_colour, subset=["status"]),
    )

# %% [markdown]
# ## Where the paper disagrees with itself
#
# The registry follows one reading in each case; the arithmetic below is computed,
# not copied.

# %% tags=["hide-input"]
inconsistencies = claims.paper_inconsistencies()
out.table(inconsistencies, "paper_inconsistencies", caption="Where the paper's numbers and its arithmetic part")
