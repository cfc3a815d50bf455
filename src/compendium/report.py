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


def file_label(path: str | Path) -> str:
    """``ratings file `name` (SHA-256 `abc...`)``: what a table came from when the data is one file."""
    path = Path(path)
    return f"ratings file `{path.name}` (SHA-256 `{hashlib.sha256(path.read_bytes()).hexdigest()[:12]}`)"


def data_banner(benchmark) -> Markdown:
    """A note that opens every chapter: which data the numbers below come from."""
    digest = manifest_digest(benchmark.data_dir)
    if benchmark.is_simulated:
        seed = (benchmark.manifest or {}).get("seed", "?")
        text = (
            ":::{admonition} Simulated data\n:class: warning\n"
            "Every number and figure in this chapter is computed from the **simulated benchmark** "
            f"(simulation seed {seed}, MANIFEST `{digest}`), a synthetic dataset with the paper's design. "
            "Agreement with the paper on a *targeted* claim (a simulation parameter was tuned to it) shows nothing "
            "about the paper; on a *free* claim it shows that the paper's numbers are mutually consistent under the "
            "simulation's model. Only the paper's numbers checked against one another (the claims ledger) speak "
            "about the paper itself; that the pipeline computes the right quantities is shown by the tests against "
            "independent references (Krippendorff 2011, Shrout & Fleiss 1979, statsmodels, the EMS algebra).\n:::"
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


#: MIME type under which a table's data is stored in a notebook output; the build
#: writes each one to ``_build/tables/<notebook>/<name>.csv``.
TABLE_MIME = "application/vnd.compendium.table+json"

#: Floats in the table CSVs: ten significant digits, enough to diff and reuse,
#: and immune to last-bit differences between BLAS builds.
CSV_FLOAT_FORMAT = "%.10g"


def table_csv(frame) -> str:
    """A table as the CSV text the build writes (``\\n`` line ends, fixed float format)."""
    import pandas as pd

    frame = frame.data if hasattr(frame, "data") and not isinstance(frame, pd.DataFrame) else frame
    index = not isinstance(frame.index, pd.RangeIndex) or frame.index.name is not None
    return frame.to_csv(index=index, lineterminator="\n", float_format=CSV_FLOAT_FORMAT)


def _revision() -> str:
    """The checkout's ``git describe``; outside a checkout (an installed package), the package's version."""
    import subprocess
    from importlib.metadata import version

    from .paths import is_project, project_root

    root = project_root()
    if not is_project(root):
        return f"compendium {version('compendium')}"
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=12"], cwd=root,
                              capture_output=True, text=True, check=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


class Outputs:
    """Shows a chapter's tables and figures, each with where it came from.

    Every table and figure is followed by a provenance line: the notebook and
    cell that made it, the parameters, the data (MANIFEST checksum and whether
    it is simulated) and the revision; the package versions of the run are in
    the appendix "How this book was built". Tables also carry their data under
    :data:`TABLE_MIME`, from which the build writes ``_build/tables/*.csv``.

    Parameters
    ----------
    notebook : str
        The chapter's name, e.g. ``"04_decodability"``.
    benchmark : Benchmark or None
        The loaded data (for its MANIFEST and label); None for chapters that
        read no benchmark (the ledger).
    parameters : mapping
        The chapter's parameters as run.
    data : str, optional
        What the numbers come from, when it is not a benchmark directory
        (the audit names the ratings file and its checksum).
    environment_link : bool
        End each provenance line with a link to the appendix "How this book
        was built"; off for notebooks rendered outside the book (the audit report).
    """

    def __init__(self, notebook: str, benchmark=None, parameters=None, *, data: str | None = None,
                 environment_link: bool = True):
        self.notebook = notebook
        self.parameters = dict(parameters or {})
        if data is None and benchmark is not None:
            data = f"{data_label(benchmark)} data, MANIFEST `{manifest_digest(benchmark.data_dir)}`"
        self.data = data
        self.environment_link = environment_link
        self.revision = _revision()
        self.names: set[str] = set()

    def _cell(self) -> str:
        from IPython import get_ipython

        shell = get_ipython()
        return f"cell [{shell.execution_count}]" if shell is not None else "cell [?]"

    def provenance(self, kind: str, name: str) -> str:
        """The provenance line shown under a table or a figure."""
        shown = ", ".join(f"{k}={v!r}" for k, v in self.parameters.items() if k != "data_dir")
        parts = [f"{kind} `{name}`: `{self.notebook}.ipynb`, {self._cell()}"]
        if shown:
            parts.append(f"parameters {shown}")
        if self.data:
            parts.append(self.data)
        parts.append(f"revision `{self.revision}`")
        if kind == "Table":
            parts.append(f"CSV `_build/tables/{self.notebook}/{name}.csv`")
        if self.environment_link:
            parts.append("{ref}`environment <build-provenance>`")
        return "<small>" + " · ".join(parts) + "</small>"

    def _name(self, name: str) -> str:
        import re

        if not re.fullmatch(r"[a-z0-9][a-z0-9_]*", name):
            raise ValueError(f"table or figure name {name!r} must be lower-case letters, digits and underscores")
        if name in self.names:
            raise ValueError(f"{self.notebook}: the name {name!r} is used twice")
        self.names.add(name)
        return name

    def table(self, frame, name: str, *, caption: str | None = None, styler=None) -> None:
        """Display ``frame`` (through ``styler`` if given) with its provenance, and store it for the CSV.

        Parameters
        ----------
        frame : DataFrame
            The table's data, as written to CSV.
        name : str
            File name of the CSV (``[a-z0-9_]+``), unique within the chapter.
        caption : str, optional
            Shown above the table.
        styler : pandas Styler, optional
            How to show it (formats, hidden index); defaults to ``frame.style`` without the index
            when the index is a plain range.
        """
        import pandas as pd
        from IPython.display import display

        name = self._name(name)
        if styler is None:
            styler = frame.style.format(escape="html")
            if isinstance(frame.index, pd.RangeIndex) and frame.index.name is None:
                styler = styler.hide(axis="index")
        if caption:
            styler = styler.set_caption(caption)
        record = {"notebook": self.notebook, "name": name, "csv": table_csv(frame)}
        display({"text/html": styler.to_html(), "text/plain": frame.to_string(), TABLE_MIME: record}, raw=True)
        display(Markdown(self.provenance("Table", name)))

    def claims(self, recorder, name: str = "claims") -> None:
        """The closing table of a chapter: each claim it recorded, the paper's value, the reproduced value and
        the band (from a :class:`compendium.claims.Recorder`)."""
        claimed = recorder.table()[["id", "what", "paper", "reproduced", "lo", "hi", "status"]]
        styler = (claimed.style.format("{:.6g}", subset=["paper", "reproduced", "lo", "hi"])
                  .format(escape="html", subset=["what"]).hide(axis="index"))
        self.table(claimed, name, styler=styler,
                   caption="Claims of this chapter: the paper's value, the reproduced value and the acceptance band")

    def figure(self, figure, name: str, *, caption: str | None = None) -> None:
        """Display a matplotlib figure with its caption and provenance, then close it.

        The figure's alt text is set in the cell's metadata (``mystnb: image: alt``) so that the
        rendered ``<img>`` carries it; the book's tests check every figure has one.
        """
        import matplotlib.pyplot as plt
        from IPython.display import display

        name = self._name(name)
        display(figure)
        plt.close(figure)
        text = (f"**{caption}**  \n" if caption else "") + self.provenance("Figure", name)
        display(Markdown(text))
