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
# (build-provenance)=
# # How this book was built
#
# Every table and figure in this book is followed by a line naming the
# notebook and cell that made it, the parameters, the data and the revision.
# This appendix gathers the rest. For each chapter it gives the source it was
# executed from, its parameters, the checksum of the data it read, the revision
# and the package versions of the run, and the key that decides when it must run
# again. Then come every table the book wrote as CSV. All of it is read from the
# metadata the build stores in each executed notebook, not typed.
#
# To rebuild it from a fresh clone: `make book` (it creates `.venv` from
# `requirements.lock`, regenerates the data when `data/MANIFEST` does not
# match, executes the chapters whose inputs changed and builds the HTML).

# %% tags=["parameters"]
seed = 20260929  # unused: this appendix draws nothing; kept for a uniform interface
data_dir = None  # unused: the chapters' metadata records which data each read

# %% tags=["hide-input"]
import hashlib
import json

import pandas as pd
from IPython.display import Markdown, display

from compendium.book import references, report
from compendium.build import pipeline
from compendium.build import runner

executed = [runner.BOOK_DIR / f"{s.stem}.ipynb" for s in runner.analysis_sources()]
chapters = pipeline.chapter_provenance(executed)
out = report.Outputs("98_build")
revisions = sorted({c.get("revision", "unknown") for c in chapters})
manifests = sorted({c.get("data_manifest_sha256") or "none" for c in chapters})
pythons = sorted({c.get("python", "?") for c in chapters})
Markdown(
    f"**{len(chapters)} chapters**, executed at revision{'s' if len(revisions) > 1 else ''} "
    + ", ".join(f"`{r}`" for r in revisions)
    + f" with Python {', '.join(pythons)}, from data whose MANIFEST has SHA-256 "
    + ", ".join(f"`{m[:12]}`" for m in manifests)
    + (" (one data set for every chapter)." if len(manifests) == 1 else " (the chapters read different data!).")
)

# %% [markdown]
# ## Chapters
#
# The build key is the SHA-256 of everything a chapter's result depends on:
# its source, its parameters, the data MANIFEST, the `compendium` package and
# `requirements.lock`. A chapter is executed again only when its key changes.

# %% tags=["hide-input"]
table = pd.DataFrame(
    [
        {
            "notebook": c["notebook"],
            "source": c.get("source"),
            "parameters": json.dumps(c.get("parameters", {}), sort_keys=True),
            "data_manifest_sha256": (c.get("data_manifest_sha256") or "none")[:12],
            "revision": c.get("revision"),
            "build_key": (c.get("build_key") or "")[:12],
        }
        for c in chapters
    ]
)
out.table(table, "chapters", caption="Each chapter's source, parameters, data and build key")

# %% [markdown]
# ## Package versions
#
# The versions each chapter ran with, for every package the book pins directly
# (`pyproject.toml`); the full environment, with every transitive package, is
# `requirements.lock`.

# %% tags=["hide-input"]
versions = pd.DataFrame({c["notebook"]: c.get("packages", {}) for c in chapters}).rename_axis("package")
same = versions.nunique(axis=1, dropna=False) == 1
packages = pd.DataFrame({"package": versions.index, "version": versions.iloc[:, 0].values,
                         "same_in_every_chapter": same.values})
out.table(packages, "package_versions", caption="Package versions of the run")
lock = runner.ROOT / "requirements.lock"
Markdown(f"`requirements.lock` SHA-256 `{hashlib.sha256(lock.read_bytes()).hexdigest()[:12]}`, "
         f"{sum(1 for line in lock.read_text().splitlines() if '==' in line)} pinned packages.")

# %% [markdown]
# ## Tables written as CSV
#
# Each table of the chapters is also written to `_build/tables/<chapter>/<name>.csv`
# (floats to ten significant digits), so that it can be diffed between builds
# and reused. Two builds with the same inputs write byte-identical files.

# %% tags=["hide-input"]
tables = pipeline.collect_tables(executed)
listing = pd.DataFrame(
    [
        {
            "file": f"{t['notebook']}/{t['name']}.csv",
            "cell": t["cell"],
            "rows": max(t["csv"].count("\n") - 1, 0),
            "sha256": hashlib.sha256(t["csv"].encode("utf-8")).hexdigest()[:12],
        }
        for t in tables
    ],
    columns=["file", "cell", "rows", "sha256"],
)
out.table(listing, "csv_tables", caption="Every chapter table written under _build/tables/")

# %% [markdown]
# ## What shows that the pipeline computes the right quantities
#
# Agreement of a simulated number with the paper cannot show this: on a
# targeted claim it holds by construction, on a free one it shows only that
# the paper's numbers are mutually consistent under the simulation's model.
# What shows it is the tests, which check every statistic against something
# that is not itself: published worked examples, other libraries and the
# expected-mean-square algebra. A test (`tests/test_references.py`) checks
# that each file named here uses its reference.

# %% tags=["hide-input"]
listed = references.references()
out.table(listed, "independent_references", caption="The independent references of the tests")
