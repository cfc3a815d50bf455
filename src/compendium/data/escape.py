"""Text from a user's data, made safe to put into the Markdown, HTML and CSV the project writes.

Names in a ratings file -- systems, raters, items, columns, the file's own
path -- end up in the book's pages, in the audit's HTML report and in CSV
files a spreadsheet may open. A name is data, never markup: a system called
``<script>alert(1)</script>`` must read as those characters and run nothing.
Every writer that puts a data value into a page passes it through one of
these functions:

- :func:`markdown_text` for Markdown prose (a notebook's ``Markdown`` output):
  every ASCII punctuation character is backslash-escaped, which CommonMark
  (and MyST, which extends it) renders as the character itself, so no tag,
  link, emphasis, role or admonition can start inside the value;
- :func:`markdown_code` for a value shown as code (a file path): a code span
  whose backtick fence is longer than any run of backticks in the value, as
  the CommonMark specification prescribes (section 6.1); HTML is never
  interpreted inside a code span;
- :func:`html_text` for HTML text and attribute values (:func:`html.escape`,
  quotes included);
- :func:`csv_cell` for a CSV cell that a spreadsheet may read as a formula
  (the OWASP "CSV injection" guard: a text cell that starts with ``=``, ``+``,
  ``-``, ``@``, a tab or a carriage return gets a leading apostrophe; numbers
  are left alone), and :func:`csv_frame` for a whole table before
  ``to_csv`` (values, labels and names); :func:`csv_unguard` reads a guarded
  cell back, for the project's own readers of the CSV it writes.

The data files the project writes to read them back as data (the simulated
benchmark under ``data/``, the demonstration study) are not guarded: an
apostrophe would change the data. Their text is the simulator's own.

References
----------
CommonMark Spec 0.31.2, section 2.4 (backslash escapes) and 6.1 (code spans),
https://spec.commonmark.org/0.31.2/. OWASP, "CSV Injection",
https://owasp.org/www-community/attacks/CSV_Injection.
"""

from __future__ import annotations

import html
import re
import string

__all__ = ["markdown_text", "markdown_code", "html_text", "csv_cell", "csv_frame", "csv_unguard", "FORMULA_START"]

#: Every character CommonMark lets a backslash escape (all ASCII punctuation).
_PUNCTUATION = frozenset(string.punctuation)
_BREAKS = re.compile(r"[\r\n\t\f\v\u2028\u2029]+")

#: First characters with which a spreadsheet reads a cell as a formula (OWASP).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def markdown_text(value) -> str:
    """``value`` as Markdown that renders as exactly its characters, on one line.

    Examples
    --------
    >>> markdown_text("<script>alert(1)</script>")
    '\\\\<script\\\\>alert\\\\(1\\\\)\\\\<\\\\/script\\\\>'
    >>> markdown_text("gpt-4 *large*")
    'gpt\\\\-4 \\\\*large\\\\*'
    >>> markdown_text("two\\nlines")
    'two lines'
    """
    text = _BREAKS.sub(" ", str(value))
    return "".join("\\" + c if c in _PUNCTUATION else c for c in text)


def markdown_code(value) -> str:
    """``value`` as a Markdown code span, whatever backticks it holds (one line).

    Examples
    --------
    >>> markdown_code("ratings.csv")
    '`ratings.csv`'
    >>> markdown_code("a`b")
    '`` a`b ``'
    """
    text = _BREAKS.sub(" ", str(value))
    runs = [len(run) for run in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    padded = f" {text} " if runs or text.startswith(" ") or text.endswith(" ") else text
    return f"{fence}{padded}{fence}"


def html_text(value) -> str:
    """``value`` as HTML text, safe in an element and in a quoted attribute.

    >>> html_text('<img src=x onerror="alert(2)">')
    '&lt;img src=x onerror=&quot;alert(2)&quot;&gt;'
    """
    return html.escape(str(value), quote=True)


def csv_cell(value):
    """``value`` as a CSV cell no spreadsheet runs as a formula; anything but text is returned as it is.

    A text cell is guarded unless it is a number as written (``-0.5`` stays
    ``-0.5``: it is not a formula).

    >>> csv_cell('=HYPERLINK("http://example.com")')
    '\\'=HYPERLINK("http://example.com")'
    >>> csv_cell("-0.5"), csv_cell(-3), csv_cell("plain")
    ('-0.5', -3, 'plain')
    """
    if not isinstance(value, str) or not value.startswith(FORMULA_START):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value


def csv_unguard(value):
    """The cell :func:`csv_cell` was given: the guarding apostrophe taken off (anything else as it is).

    A text that itself began with an apostrophe and a formula character reads back without the apostrophe.

    >>> csv_unguard(csv_cell("=1+1")), csv_unguard("'plain"), csv_unguard(-1)
    ('=1+1', "'plain", -1)
    """
    if isinstance(value, str) and value.startswith("'") and value[1:].startswith(FORMULA_START):
        return value[1:]
    return value


def _is_text(values) -> bool:
    import pandas as pd

    return (
        values.dtype == object or pd.api.types.is_string_dtype(values) or isinstance(values.dtype, pd.CategoricalDtype)
    )


def csv_frame(frame):
    """``frame`` with every text value, index label, column label and axis name guarded by :func:`csv_cell`.

    Returns ``frame`` itself when nothing needs a guard (the usual case), else a guarded copy: numbers stay
    numbers, and the caller's frame is never changed.

    >>> import pandas as pd
    >>> csv_frame(pd.DataFrame({"system": ["=1+1", "b"], "x": [-1.5, 2.0]})).to_csv(index=False)
    "system,x\\n'=1+1,-1.5\\nb,2.0\\n"
    """
    import pandas as pd

    def risky(values) -> bool:
        return any(isinstance(v, str) and v.startswith(FORMULA_START) for v in set(values))

    def guard_index(index):
        if isinstance(index, pd.MultiIndex):
            return index.set_levels([guard_index(level) for level in index.levels]).set_names(
                [csv_cell(n) for n in index.names])
        guarded = index.map(csv_cell) if _is_text(index) else index
        return guarded.set_names(csv_cell(index.name))

    text = [c for c in range(frame.shape[1]) if _is_text(frame.iloc[:, c])]
    axes = (frame.index, frame.columns)
    if not (any(risky(frame.iloc[:, c].dropna().astype(object)) for c in text)
            or any(risky(axis.get_level_values(level)) or risky(list(axis.names)) for axis in axes
                   for level in range(axis.nlevels))):
        return frame
    guarded = frame.copy()
    for c in text:
        guarded.isetitem(c, guarded.iloc[:, c].astype(object).map(csv_cell, na_action="ignore"))
    guarded.index = guard_index(guarded.index)
    guarded.columns = guard_index(guarded.columns)
    return guarded
