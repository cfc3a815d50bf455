"""Presentation helpers shared by the chapters: the data banner and the plot style.

Nothing here computes a statistic; it only says where numbers come from and
makes every figure look alike (a colour-blind-safe palette, labelled axes).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from IPython.display import Markdown

from . import schema

#: Colour-blind-safe qualitative palette (Okabe and Ito, 2008), one colour per system.
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
SYSTEM_COLOURS = dict(zip(schema.SYSTEMS, PALETTE))


def data_label(benchmark) -> str:
    """``"simulated"`` for the shipped simulation, ``"real"`` otherwise (used beside every number)."""
    return "simulated" if benchmark.is_simulated else "real"


def manifest_digest(data_dir: str | Path) -> str:
    """Short SHA-256 of the data directory's MANIFEST (``"none"`` without one)."""
    manifest = Path(data_dir) / schema.MANIFEST_FILE
    if not manifest.exists():
        return "none"
    return hashlib.sha256(manifest.read_bytes()).hexdigest()[:12]


def data_banner(benchmark) -> Markdown:
    """A note that opens every chapter: which data the numbers below come from."""
    digest = manifest_digest(benchmark.data_dir)
    if benchmark.is_simulated:
        seed = (benchmark.manifest or {}).get("seed", "?")
        text = (
            ":::{admonition} Simulated data\n:class: warning\n"
            "Every number and figure in this chapter is computed from the **simulated benchmark** "
            f"(simulation seed {seed}, MANIFEST `{digest}`), a synthetic dataset with the paper's design whose "
            "parameters are calibrated to the paper's published figures. Agreement with the paper shows that "
            "the pipeline computes the paper's quantities the paper's way, not that the paper's data says so.\n:::"
        )
    else:
        text = (
            ":::{admonition} Data\n:class: note\n"
            f"Numbers in this chapter are computed from the data in `{benchmark.data_dir}` (MANIFEST `{digest}`).\n:::"
        )
    return Markdown(text)


def setup_plots() -> None:
    """Use one legible, colour-blind-safe style for every figure."""
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(context="notebook", style="whitegrid", palette=list(PALETTE))
    mpl.rcParams.update({"figure.dpi": 110, "savefig.dpi": 110, "figure.figsize": (7.0, 3.6), "axes.titleweight": "bold"})
