"""Presentation helpers shared by the chapters: the data banner, tables, numbers in text, and the outputs.

Nothing here computes a statistic; it only says where numbers come from and
shows them alike in every chapter. The palette, the plot style and the shared
figures are in :mod:`compendium.book.figures`, re-exported here.
"""

from __future__ import annotations

import hashlib
import re
from html import escape as html_escape
from pathlib import Path
from typing import TYPE_CHECKING

from IPython.display import Markdown

if TYPE_CHECKING:
    import pandas as pd

from compendium.book.figures import (  # noqa: F401 -- the chapters call them as report.<name>
    PALETTE,
    SYSTEM_COLOURS,
    decision_study_figure,
    leave_one_out_figure,
    log_axis,
    setup_plots,
    smallest_text_px,
    variance_components_figure,
)
from compendium.data import schema
from compendium.data.numbers import _scientific, format_number, format_p  # noqa: F401 -- chapters: report.<name>
from compendium.data.paths import revision as _revision
from compendium.data.escape import csv_frame, markdown_code, markdown_text


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
    return f"ratings file {markdown_code(path.name)} (SHA-256 `{hashlib.sha256(path.read_bytes()).hexdigest()[:12]}`)"


def data_banner(benchmark) -> Markdown:
    """A note that opens every chapter: which data the numbers below come from."""
    digest = manifest_digest(benchmark.data_dir)
    if benchmark.is_simulated:
        seed = (benchmark.manifest or {}).get("seed", "?")
        text = (
            ":::{admonition} Simulated data\n:class: warning\n"
            "Every number and figure in this chapter is computed from the **simulated benchmark** "
            f"(simulation seed {seed}, MANIFEST `{digest}`), a synthetic dataset with the paper's design. "
            "Agreement with the paper on a {term}`targeted <targeted claim>` claim (a simulation parameter was "
            "tuned to it) shows nothing about the paper; on a {term}`free <free claim>` claim it shows that the "
            "paper's numbers are mutually consistent under the simulation's model. Only the paper's numbers "
            "checked against one another (the claims ledger) speak "
            "about the paper itself; that the pipeline computes the right quantities is shown by the tests against "
            "independent references (listed in {ref}`the build appendix <build-provenance>`).\n:::"
        )
    else:
        text = (
            ":::{admonition} Data\n:class: note\n"
            f"Numbers in this chapter are computed from the data in {markdown_code(benchmark.data_dir)} "
            f"(MANIFEST `{digest}`).\n:::"
        )
    return Markdown(text)


#: Cell tags that already say how the book shows a cell's code; :func:`fold_code` leaves such cells alone.
SHOWN_TAGS = {"hide-input", "remove-input", "remove-cell", "hide-cell", "show-input"}


def fold_code(notebook) -> None:
    """Tag every code cell ``hide-input`` (folded in the book; a click unfolds it), in place.

    The pipeline applies this to every chapter before it runs, so the book
    reads as prose, tables and figures while each cell's code stays one click
    away; a cell tagged ``show-input`` (or any tag of :data:`SHOWN_TAGS`)
    keeps its own setting. The paired notebooks in ``notebooks/`` are not
    touched: the tag exists only in the executed copies in ``book/``.
    """
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        tags = list(cell.metadata.get("tags", []))
        if not SHOWN_TAGS & set(tags):
            cell.metadata["tags"] = [*tags, "hide-input"]


#: MIME type under which a table's data is stored in a notebook output; the build
#: writes each one to ``_build/tables/<notebook>/<name>.csv``.
TABLE_MIME = "application/vnd.compendium.table+json"

#: Floats in the table CSVs: ten significant digits, enough to diff and reuse,
#: and immune to last-bit differences between BLAS builds.
CSV_FLOAT_FORMAT = "%.10g"


def table_csv(frame) -> str:
    """A table as the CSV text the build writes (``\\n`` line ends, fixed float format).

    A text cell, label or name that a spreadsheet would run as a formula gets a leading apostrophe
    (:func:`compendium.data.escape.csv_frame`); numbers are written as numbers.
    """
    import pandas as pd

    frame = frame.data if hasattr(frame, "data") and not isinstance(frame, pd.DataFrame) else frame
    index = not isinstance(frame.index, pd.RangeIndex) or frame.index.name is not None
    return csv_frame(frame).to_csv(index=index, lineterminator="\n", float_format=CSV_FLOAT_FORMAT)


_NUMBER_TEXT = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*")
_E_NUMBER = re.compile(r"(?<![\w.])([-+]?\d+\.?\d*[eE][-+]?\d+)(?![\w.])")
_P_EQUALS = re.compile(r"\b(p(?:\s*\([^)]*\))?(?:_\w+)?)\s*=\s*([-+]?\d+\.?\d*(?:[eE][-+]?\d+)?)(?![\w.])")


def format_text(text: str) -> str:
    """Text as a table shows it: a number written as text is formatted like a number, and in a sentence
    ``p = 1.4e-35`` reads ``p < 0.0001`` and any other e-notation ``1.40 × 10⁻³⁵``.

    Examples
    --------
    >>> format_text("F(7, 4046) = 19.41, p = 1.4e-35")
    'F(7, 4046) = 19.41, p < 0.0001'
    >>> [format_text(t) for t in ("1.03587e-25", "-0.0235347", "seed 7", "p = 0.0000")]
    ['1.04 × 10⁻²⁵', '-0.0235', 'seed 7', 'p < 0.0001']
    """
    if _NUMBER_TEXT.fullmatch(text):
        number = float(text)
        return format_number(
            int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
        )

    def p_value(match: re.Match) -> str:
        shown = format_p(float(match.group(2)))
        return f"{match.group(1)} {shown}" if shown.startswith("<") else f"{match.group(1)} = {shown}"

    text = _P_EQUALS.sub(p_value, text)
    return _E_NUMBER.sub(lambda m: format_number(float(m.group(1))), text)


def is_p_column(name) -> bool:
    """Whether a column holds p values, by its name (``p``, ``pval``, ``p_holm``, ``holm_p``, ``p (Wald)``...).

    Examples
    --------
    >>> [is_p_column(n) for n in ("p", "pval", "p_boot_adj", "wald_p", "p-value", "paper", "pairs", "ci_low")]
    [True, True, True, True, True, False, False, False]
    """
    name = str(name).strip().lower()
    return bool(re.fullmatch(r"(p|pval|p[-_ ]?values?|p[_ (].*|.*[_ ]p|.*[_ ]pval|.*p[-_ ]value)", name))


#: How a variable (a column of a table) is named to a reader: one map used by every table of the book.
#: A name not listed reads with its underscores as spaces and its abbreviations spelled as in the text.
COLUMN_LABELS = {
    "conclusion_changes": "changes the conclusion?",
    "paper_value": "paper's value", "paper_method": "paper's method",
    "sounder_value": "sounder value", "sounder_method": "sounder method",
    "multi_label_share": "multi-label share", "shared_single_share": "shared single-label share",
    "mean_count": "mean emoji count", "win_rate": "win rate", "ead": "EAD", "mos": "MOS",
    "ci_low": "CI low", "ci_high": "CI high", "ci_lo": "CI low", "ci_hi": "CI high",
    "lo": "band low", "hi": "band high", "pval": "p", "p_value": "p",
    "n_items": "items", "n_raters": "raters", "n_annotators": "annotators", "n": "n",
    "sd": "SD", "se": "SE", "df": "df", "df1": "df₁", "df2": "df₂", "ss": "SS", "ms": "MS",
    "error_MS": "error MS", "raters_for_G80": "raters for G = 0.8", "raters_for_G90": "raters for G = 0.9",
    "mean_graphemes": "mean graphemes", "mean_codepoints": "mean code points", "inflation_pct": "inflation (%)",
    "notebook": "chapter", "id": "claim",
}

_WORDS = {"ci": "CI", "sd": "SD", "se": "SE", "ead": "EAD", "mos": "MOS", "icc": "ICC", "ems": "EMS", "lo": "low",
          "hi": "high", "pct": "(%)", "pval": "p", "n": "n", "mqm": "MQM", "reml": "REML", "ols": "OLS", "f1": "F1"}


def column_label(name) -> str:
    """The label a reader sees for a column (see :data:`COLUMN_LABELS`); a label that is already words stays.

    Examples
    --------
    >>> [column_label(n) for n in ("conclusion_changes", "G_limit_items_unbounded_observed", "ci_low", "α", 3)]
    ['changes the conclusion?', 'G limit items unbounded observed', 'CI low', 'α', '3']
    """
    name = str(name)
    if name in COLUMN_LABELS:
        return COLUMN_LABELS[name]
    if "_" not in name:
        return name
    return " ".join(_WORDS.get(w.lower(), w) for w in name.split("_") if w)


#: Columns that answer the table's question: shown first, before the keys that name the row.
ANSWER_COLUMNS = ("verdict", "status", "conclusion_changes", "conclusion", "consistent", "holds", "result")
#: Columns of free text that would be squeezed into a narrow column: shown as numbered notes under the table.
NOTE_COLUMNS = ("note", "notes", "comment", "caveat", "why")
#: How the audit words a statistic it cannot compute (``compendium.audit.core.not_computable``).
NOT_COMPUTABLE = "not computable"
#: A table whose estimated width (in characters at the table's font size) exceeds this is marked wide.
WIDE_CHARS = 100


def _integer_columns(frame) -> set:
    """Positions of float columns whose every value is a whole number (counts stored as floats)."""
    import numpy as np
    import pandas as pd

    found = set()
    for j, column in enumerate(frame.columns):
        values = frame.iloc[:, j]
        if pd.api.types.is_float_dtype(values):
            finite = values.dropna().to_numpy(dtype=float)
            if (
                len(finite)
                and np.all(np.isfinite(finite))
                and np.all(finite == np.round(finite))
                and np.abs(finite).max() < 1e15
            ):
                found.add(j)
    return found


def _too_long(shown: str, limit: int = 8) -> bool:
    """Whether a formatted number shows more than ``limit`` significant digits (``"10340.9443"`` does)."""
    import re

    match = re.fullmatch(r"\s*[-+−]?([\d,]*\.?\d*)(?:[eE][-+]?\d+)?\s*%?", shown)
    return bool(match) and len(match.group(1).replace(",", "").replace(".", "").lstrip("0")) > limit


def tidy(styler):
    """Make a Styler read well whatever the chapter set: no NaN or None shown, whole numbers as integers,
    every number without an explicit format at 3 significant digits, text escaped.

    Formats a chapter gave explicitly (``styler.format({...})``) are kept,
    except that a missing value shows blank and a column of whole numbers
    shows integers.
    """
    import math

    import pandas as pd

    frame = styler.data
    # Styler fills a formatter for every cell; a chapter's own format is one whose text differs from pandas' default.
    explicit = dict(styler._display_funcs)
    default = frame.style._display_funcs
    integers = _integer_columns(frame)

    def missing(value) -> bool:
        if value is None:
            return True
        try:
            return bool(pd.isna(value)) if not isinstance(value, (list, tuple, dict)) else False
        except (TypeError, ValueError):
            return False

    pvalues = {
        j for j, column in enumerate(frame.columns) if is_p_column(column[-1] if isinstance(column, tuple) else column)
    }
    plain = {j for j, column in enumerate(frame.columns) if re.search(r"seed|year", str(column), re.I)}

    def make(i: int, j: int):
        chosen = explicit.get((i, j))

        def show(value):
            if missing(value):
                return ""
            if j in pvalues and isinstance(value, (int, float)) and not isinstance(value, bool):
                import html

                return html.escape(format_p(value))
            if j in integers and isinstance(value, float) and math.isfinite(value):
                return format_number(value, separators=j not in plain)
            if chosen is not None:
                shown = chosen(value)
                if shown in ("nan", "None", "NaN", "<NA>"):
                    return ""
                if shown != default[(i, j)](value) and not _too_long(shown) and not re.search(r"\d[eE][-+]\d", shown):
                    return shown
            if isinstance(value, str):
                import html

                return html.escape(format_text(value))
            return format_number(value, separators=j not in plain)

        return show

    for i in range(len(frame.index)):
        for j in range(len(frame.columns)):
            styler._display_funcs[(i, j)] = make(i, j)
    return styler


def _leaf(column) -> str:
    return str(column[-1] if isinstance(column, tuple) else column)


def _reorder(styler, order: list[int]):
    """The same Styler with its columns in ``order`` (positions), formats and hidden columns kept."""
    if order == list(range(len(styler.data.columns))):
        return styler
    new = styler._copy(deepcopy=True)
    new.data = styler.data.iloc[:, order]
    new.columns = new.data.columns
    position = {old: new_j for new_j, old in enumerate(order)}
    new._display_funcs = type(styler._display_funcs)(styler._display_funcs.default_factory) \
        if hasattr(styler._display_funcs, "default_factory") else {}
    for (i, j), func in styler._display_funcs.items():
        new._display_funcs[(i, position[j])] = func
    new.hidden_columns = [position[j] for j in styler.hidden_columns]
    new.cell_context = {(i, position[j]): v for (i, j), v in getattr(styler, "cell_context", {}).items()}
    return new


def _shown_length(value) -> int:
    return len(str(value)) if value is not None else 0


def present(styler, *, wide: bool | None = None, notes=()) -> str:
    """A tidied Styler as the book's HTML: answer columns first, readable labels, notes under the table.

    - the columns of :data:`ANSWER_COLUMNS` (verdict, status, whether the conclusion changes) come first;
    - every column is labelled through :func:`column_label` (one map for the book);
    - a free-text column of :data:`NOTE_COLUMNS` leaves the table and its texts are listed, numbered,
      under it (the row's first cell names the row), so no row is a tall strip of one word per line;
      so do the columns named in ``notes`` (a chapter's long explanations, e.g. the ledger's "how");
    - a table wider than the text column is marked ``compendium-wide``: the page widens it into the
      margin and a cue says it scrolls (see ``assets/compendium.css``).

    The data (and so the CSV) is unchanged: only what the HTML shows.
    """
    import html as html_lib

    import pandas as pd

    frame = styler.data
    notes = set(notes) | set(frame.attrs.get("notes", ()))  # a frame may name its own long-text columns
    hidden = set(styler.hidden_columns)
    names = [_leaf(c) for c in frame.columns]
    answers = [j for j, n in enumerate(names) if n in ANSWER_COLUMNS and j not in hidden]
    order = answers + [j for j in range(len(names)) if j not in answers]
    styler = _reorder(styler, order)
    frame = styler.data
    names = [_leaf(c) for c in frame.columns]
    notes_html = ""
    note_cols = [j for j, n in enumerate(names) if (n.lower() in NOTE_COLUMNS or n in notes)
                 and j not in set(styler.hidden_columns)
                 and frame.iloc[:, j].map(lambda v: isinstance(v, str) and len(v) > 0).any()]
    visible = [j for j in range(len(names)) if j not in set(styler.hidden_columns) and j not in note_cols]
    if note_cols:
        items = []
        key = visible[0] if visible else None
        for i in range(len(frame)):
            for j in note_cols:
                text = frame.iloc[i, j]
                if isinstance(text, str) and text.strip():
                    label = frame.iloc[i, key] if key is not None else frame.index[i]
                    if styler.hide_index_ and key is not None and names[key] in ANSWER_COLUMNS and len(visible) > 1:
                        label = frame.iloc[i, visible[len(answers)] if len(answers) < len(visible) else key]
                    label = styler._display_funcs[(i, key)](label) if key is not None else html_lib.escape(str(label))
                    what = f" ({html_lib.escape(column_label(names[j]))})" if len(note_cols) > 1 else ""
                    items.append(
                        f"<li><strong>{label}</strong>{what}: {html_lib.escape(format_text(text.strip()))}</li>"
                    )
        styler = styler.hide(subset=[frame.columns[j] for j in note_cols], axis="columns")
        if items:
            notes_html = (f'<details class="compendium-notes"><summary>Notes ({len(items)})</summary>'
                          f'<ol>{"".join(items)}</ol></details>')
    # A statistic the audit could not compute carries its reason ("not computable: the design is ..."). In a
    # cell the reason makes the row a tall strip: the cell says "not computable [k]" and reason k is listed below.
    reasons: list[str] = []
    for j in visible:
        for i in range(len(frame)):
            text = frame.iloc[i, j]
            if isinstance(text, str) and text.startswith(NOT_COMPUTABLE) and len(text) > len(NOT_COMPUTABLE) + 2:
                reason = text[len(NOT_COMPUTABLE):].lstrip(" :;,-")
                if reason not in reasons:
                    reasons.append(reason)
                styler._display_funcs[(i, j)] = lambda v, k=reasons.index(reason) + 1: f"{NOT_COMPUTABLE} [{k}]"
    if reasons:
        listed = "".join(f"<li>{html_lib.escape(format_text(r))}</li>" for r in reasons)
        notes_html += (f'<details class="compendium-notes"><summary>Why not computable ({len(reasons)})</summary>'
                       f"<ol>{listed}</ol></details>")
    # Long free text (descriptions, the paper's words) wraps in a column of readable width instead of one word a line.
    long_text = []
    width = 0
    for j in visible:
        values = frame.iloc[:, j]
        lengths = values.map(_shown_length)
        longest = int(lengths.max()) if len(lengths) else 0
        label = column_label(names[j])
        if longest > 40 and values.map(lambda v: isinstance(v, str)).all():
            # wide enough that the longest text takes at most about eight lines
            em = int(min(24, max(12, longest / 13)))
            long_text.append((frame.columns[j], em))
            width += int(em * 1.9)
        else:
            width += max(min(longest, 40), max((len(w) for w in label.split()), default=1)) + 3
    if not styler.hide_index_:
        width += int(pd.Series([len(str(x)) for x in frame.index]).max() if len(frame.index) else 0) + 3
    for column, em in long_text:
        # scaled by --compendium-phone (1 by default), which the phone layout sets higher (assets/compendium.css)
        styler = styler.set_properties(subset=[column], **{
            "min-width": f"calc({em}em * var(--compendium-phone, 1))",
            "max-width": f"calc({em + 8}em * var(--compendium-phone, 1))"})
    styler = _escaped_names(
        styler.format_index(column_label, axis=1, escape="html").format_index(escape="html", axis=0)
    )
    if wide is None:
        wide = width > WIDE_CHARS
    classes = "compendium-table compendium-wide" if wide else "compendium-table"
    cue = '<p class="compendium-wide-cue">Wide table: it scrolls sideways.</p>' if wide else ""
    return f'<div class="{classes}">{cue}{styler.to_html()}</div>{notes_html}'


def _escaped_names(styler):
    """``styler`` with its index and column *names* HTML-escaped: pandas writes them into the header as they are
    (``format_index`` escapes only the labels). The data keeps its names; only the shown copy changes."""
    names = (*styler.data.index.names, *styler.data.columns.names)
    if not any(isinstance(n, str) and html_escape(n) != n for n in names):
        return styler
    shown = styler._copy(deepcopy=False)
    data = styler.data.copy(deep=False)

    def escaped(index):
        return index.set_names([html_escape(n) if isinstance(n, str) else n for n in index.names])

    data.index, data.columns = escaped(data.index), escaped(data.columns)
    shown.data, shown.index, shown.columns = data, data.index, data.columns
    return shown


def _first_part(text: str) -> str:
    """The text up to its first comma outside parentheses: ``"real data (SummEval, WMT23 MQM)"`` stays whole.

    Examples
    --------
    >>> _first_part("real data (SummEval, WMT23 MQM), `data/real/MANIFEST` `abc`")
    'real data (SummEval, WMT23 MQM)'
    >>> _first_part("simulated data, MANIFEST `abc`")
    'simulated data'
    """
    depth = 0
    for k, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            return text[:k]
    return text


class Outputs:
    """Shows a chapter's tables and figures, each with where it came from.

    Every table and figure is followed by one short provenance line: its
    name, the notebook and cell that made it, whether the data is simulated,
    and a link to the appendix "How this book was built", which lists each
    chapter's parameters, data checksum, revision and package versions and
    every table's CSV. Tables are shown through :func:`tidy` (integers as
    integers, 3 significant digits, no NaN or None) in a box that scrolls
    sideways when the table is wider than the page. Tables also carry their
    data under :data:`TABLE_MIME`, from which the build writes
    ``_build/tables/*.csv``.

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
        """The one short provenance line shown under a table or a figure.

        It names the table or figure, the notebook and cell that made it, and
        whether the data is simulated, and links to the appendix "How this
        book was built", which lists for every chapter its parameters, data
        checksum, revision and package versions, and every table's CSV.
        """
        parts = [f"{kind} `{name}`", f"`{self.notebook}.ipynb`, {self._cell()}"]
        if self.data:
            parts.append(_first_part(self.data))
        if self.environment_link:
            parts.append("{ref}`how it was made <build-provenance>`")
        else:
            shown = markdown_text(
                ", ".join(f"{k}={v!r}" for k, v in self.parameters.items() if k != "data_dir" and v is not None)
            )
            parts += [p for p in (f"parameters {shown}" if shown else "", self.data.split(",", 1)[-1].strip()
                                  if self.data and "," in self.data else "", f"revision `{self.revision}`") if p]
        return '<small class="compendium-provenance">' + " · ".join(parts) + "</small>"

    def _name(self, name: str) -> str:
        import re

        if not re.fullmatch(r"[a-z0-9][a-z0-9_]*", name):
            raise ValueError(f"table or figure name {name!r} must be lower-case letters, digits and underscores")
        if name in self.names:
            raise ValueError(f"{self.notebook}: the name {name!r} is used twice")
        self.names.add(name)
        return name

    def table(self, frame, name: str, *, caption: str | None = None, styler=None, wide: bool | None = None,
              folded: str | None = None, notes=()) -> None:
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
        wide : bool, optional
            Mark the table wide (the page widens it and says it scrolls); by default a table is marked
            wide when its estimated width exceeds the text column (:func:`present`).
        folded : str, optional
            Fold the table under a one-line summary that reads "Show <folded>" (a long table that would
            otherwise make the page tens of thousands of pixels tall).
        notes : sequence of str
            Columns of long text to show as numbered notes under the table instead of as columns
            (``note`` and the other :data:`NOTE_COLUMNS` always are).
        """
        import pandas as pd
        from IPython.display import display

        name = self._name(name)
        if styler is None:
            styler = frame.style
            if isinstance(frame.index, pd.RangeIndex) and frame.index.name is None:
                styler = styler.hide(axis="index")
        styler = tidy(styler)
        if caption:  # a caption is text: pandas would put it into the page as HTML
            styler = styler.set_caption(html_escape(caption))
        record = {"notebook": self.notebook, "name": name, "csv": table_csv(frame)}
        shown = present(styler, wide=wide, notes=notes)
        if folded:
            shown = (f'<details class="compendium-claims"><summary>Show {html_escape(folded)} '
                     f'({len(frame)} rows)</summary>{shown}</details>')
        display({"text/html": shown, "text/plain": frame.to_string(), TABLE_MIME: record}, raw=True)
        display(Markdown(self.provenance("Table", name)))

    def claims(self, recorder, name: str = "claims") -> None:
        """Close a chapter with its claims, once: a sentence that counts them, a line for each claim that
        differs from the paper's band, and the full table (paper, reproduced, band, status) folded below.

        The full table is stored as CSV like any other (``_build/tables/<chapter>/claims.csv``).
        """
        from IPython.display import display

        name = self._name(name)
        claimed = recorder.table()[["id", "what", "paper", "reproduced", "lo", "hi", "status", "note"]]
        differs = claimed[claimed["status"] != "reproduced"]
        total = len(claimed)
        if total == 0:
            display(Markdown("This chapter records no claim of the paper."))
            return
        lead = _claims_lead(claimed)
        lines = [lead]
        for row in differs.itertuples():
            note = f" ({row.note})" if isinstance(row.note, str) and row.note else ""
            lines.append(f"- ✗ {row.what} (`{row.id}`): {format_number(row.reproduced)} here, paper "
                         f"{format_number(row.paper)}, band {format_number(row.lo)} to {format_number(row.hi)}{note}")
        display(Markdown("\n".join(lines)))
        shown = claimed.assign(
            band=[f"{format_number(lo)} to {format_number(hi)}" for lo, hi in zip(claimed["lo"], claimed["hi"])],
            status=["✓ reproduced" if s == "reproduced" else "✗ " + s for s in claimed["status"]],
        )[["id", "what", "paper", "reproduced", "band", "status", "note"]]
        body = present(tidy(shown.style.hide(axis="index")))
        record = {"notebook": self.notebook, "name": name, "csv": table_csv(claimed.drop(columns="note"))}
        folded = (f'<details class="compendium-claims"><summary>All {total} claims of this chapter: paper, '
                  f"reproduced value, band and status</summary>"
                  f'{body}</details>')
        display({"text/html": folded, "text/plain": claimed.to_string(), TABLE_MIME: record}, raw=True)
        display(Markdown(self.provenance("Table", name)))

    def widget(self, view, twin: str) -> None:
        """Show an ipywidgets view in Jupyter, and in the static book a sentence pointing to its kernel-free twin.

        The output carries the widget's view (which Jupyter renders) and a
        Markdown sentence; the book's configuration does not render widget
        views, so the book shows the sentence instead of an empty box.

        Parameters
        ----------
        view : ipywidgets.Widget
            The live widget.
        twin : str
            Where the kernel-free version is, e.g. "the explorer below".
        """
        from IPython.display import display

        bundle = dict(view._repr_mimebundle_() or {})
        bundle["text/markdown"] = (
            "*This is a live widget: it needs a running kernel (see \"Explore live\" on the book's page "
            "\"Run, re-run and rebuild the book\"). "
            f"In the rendered book, use {twin}, which needs none.*")
        bundle["text/plain"] = bundle["text/markdown"].strip("*")
        display(bundle, raw=True)

    def figure(self, figure, name: str, *, caption: str | None = None) -> None:
        """Display a matplotlib figure with its caption and provenance, then close it.

        The figure's alt text is set in the cell's metadata (``mystnb: image: alt``) so that the
        rendered ``<img>`` carries it; the book's tests check every figure has one.
        """
        import matplotlib.pyplot as plt
        from IPython import get_ipython
        from IPython.display import display

        name = self._name(name)
        shell = get_ipython()
        if shell is None:  # outside a kernel: nothing draws the figure
            smallest = smallest_text_px(figure)
            display(figure)
        else:  # what display(figure) shows, formatted first: drawing the PNG lays out the tick labels
            data, metadata = shell.display_formatter.format(figure)
            smallest = smallest_text_px(figure, drawn="image/png" in data)
            display(data, metadata=metadata, raw=True)
        plt.close(figure)
        # The smallest text of the figure in pixels of its image: the browser test scales it by how the page
        # shows the image (tests/test_book_layout.py), so a figure whose labels read below 9 px fails there.
        marker = f'<span class="compendium-figure-text" data-min-px="{smallest:.1f}" hidden></span>' if smallest else ""
        text = (f"**{caption}**  \n" if caption else "") + self.provenance("Figure", name) + marker
        display(Markdown(text))


#: How each group of claims reads in a chapter's closing sentence
#: (see :func:`compendium.analyses.ledger.claims.group_of`).
_GROUP_WORDS = {
    "free": "free data claims (not used to set the simulation)",
    "targeted": "targeted data claims (in band by construction)",
    "design": "design claims",
    "arithmetic": "arithmetic claims",
}


def _claims_lead(claimed: pd.DataFrame) -> str:
    """The closing sentence of a chapter's claims: counted per group, never as one headline number.

    A targeted claim agrees by construction and a design claim by the study's design, so the
    sentence counts each group apart (as the ledger does), and names how many differ.
    """
    from compendium.analyses.ledger import claims as _claims

    calibration = _claims.calibration_of()
    registry = _claims.registry()
    groups: dict[str, list[str]] = {}
    for claim_id, status in zip(claimed["id"], claimed["status"]):
        claim = registry[claim_id]
        row = {"basis": claim.basis, "calibration": calibration[claim_id][0]}
        groups.setdefault(_claims.group_of(row), []).append(status)
    parts = []
    for group in ("free", "targeted", "design", "arithmetic"):
        if group in groups:
            statuses = groups[group]
            inside = sum(s == "reproduced" for s in statuses)
            parts.append(f"{len(statuses)} {_GROUP_WORDS[group]}, {inside} in band")
    differs = int((claimed["status"] != "reproduced").sum())
    lead = "The paper's numbers this chapter recomputes: " + "; ".join(parts) + "."
    return lead + (f" {differs} differ{'s' if differs == 1 else ''} from the paper's band:" if differs else "")


def closing_summary(both: pd.DataFrame, *, largest: int = 3) -> str:
    """The robustness appendix's closing paragraph, computed from
    :func:`compendium.analyses.ledger.robustness.side_by_side`: which claims move with the
    analysis seed, which with the data seed, by how much, and which leave their band under either.

    Parameters
    ----------
    both : DataFrame
        From :func:`compendium.analyses.ledger.robustness.side_by_side` (columns ``id, lo, hi`` and
        ``analysis_*``/``data_*`` spreads).
    largest : int
        How many of the most moving claims each sentence names.

    Returns
    -------
    str
        Markdown; says so when neither sweep ran.
    """
    import numpy as np

    if both is None or both.empty:
        return "Neither sweep ran, so this build cannot say which claims move with a seed."
    width = (both["hi"] - both["lo"]).replace(0, np.nan)
    sentences = []
    for prefix, words in (("analysis_", "analysis seed (the data fixed)"), ("data_", "data seed (the analysis fixed)")):
        ran = both[both[prefix + "n_seeds"].notna()]
        if ran.empty:
            sentences.append(f"No sweep over the {words.split(' (')[0]} ran in this build.")
            continue
        seeds = int(ran[prefix + "n_seeds"].max())
        moving = ran[ran[prefix + "range"] > 0]
        share = (moving[prefix + "sd"] / width.loc[moving.index]).rename("share")
        # One sentence per finding, each naming at most ``largest`` claims, so that none runs past what a reader
        # takes in at once (issue 69); the tables above list every claim.
        text = f"Over {seeds} values of the {words}, **{len(moving)} of {len(ran)} claims move**."
        if len(moving):
            top = moving.assign(share=share).sort_values("share", ascending=False, na_position="last").head(largest)
            named = ", ".join(
                f"`{r.id}` (SD {format_number(getattr(r, prefix + 'sd'))}"
                + (f", {format_number(100 * r.share)} % of its band's width)" if np.isfinite(r.share) else ")")
                for r in top.itertuples())
            text += f" The most, relative to their bands: {named}."
        out_of_band = ran[ran[prefix + "in_band"] < 1]
        one = len(out_of_band) == 1
        text += (f" On some seed, {len(out_of_band)} claim{'' if one else 's'} leave{'s' if one else ''} "
                 f"{'its' if one else 'their'} band")
        if len(out_of_band):
            listed = ", ".join(f"`{i}` (in band on {format_number(100 * s)} % of seeds)" for i, s in
                               zip(out_of_band["id"][:largest], out_of_band[prefix + "in_band"][:largest]))
            more = len(out_of_band) - largest
            text += f": {listed}" + (f", and {more} more" if more > 0 else "")
        sentences.append(text + ".")
    both_ran = both[both["analysis_n_seeds"].notna() & both["data_n_seeds"].notna()]
    if len(both_ran):
        data_more = int((both_ran["data_sd"].fillna(0) > both_ran["analysis_sd"].fillna(0)).sum())
        sentences.append(f"Of the {len(both_ran)} claims both sweeps computed, {data_more} move more with the data "
                         f"than with the analysis seed: those rest on the particular simulated draw rather than on "
                         f"the resampling of the analysis.")
    return " ".join(sentences)
