"""The audit's report as one offline HTML page, rendered from the executed notebook as the book renders it.

:func:`render_html` turns the executed chapter ``08_audit`` into a single
self-contained file with the renderer here: markdown-it for the prose, with
MyST admonitions (``:::{admonition} Title`` / ``:class: note``) as boxes and
``{ref}`` roles as plain text; tables, figures (embedded as data URIs) and
text outputs as they are. Markdown is rendered with raw HTML off: a name
from the user's ratings file that slipped through unescaped still reads as
text (the chapter escapes every data value it writes,
:mod:`compendium.data.escape`); the only markup kept from a Markdown output
is the book's own provenance and figure-text markers, which are taken out
before rendering. Before the page is written it is parsed once more, and a
page that would hold a ``<script>``, an event-handler attribute, a
``javascript:`` address or an embedded frame is refused
(:func:`check_inert`). As in the book, code is not shown: every code cell
of the chapter is tagged ``hide-input`` there, and a report has no reader who
could unfold it, so code is absent. The per-table provenance lines of the
chapter become one line per report, at its end. The page loads nothing: no
script, no style sheet, no font, no MathJax (the chapter writes no LaTeX).
nbconvert is not used: its HTML template loads require.js and MathJax from a
CDN. :mod:`compendium.audit.core` computes what the page shows and re-exports
:func:`render_html`.
"""

from __future__ import annotations

import html
import importlib.util
import os
import re
from collections.abc import Mapping
from html.parser import HTMLParser
from pathlib import Path

from compendium.data._files import write_text_atomic

__all__ = ["render_html", "check_inert", "UnsafeReport"]


_ADMONITION = re.compile(r"^:::\{admonition\}\s*(.*?)\n(?::class:\s*(\S+)\n)?(.*?)\n:::\s*$", re.S | re.M)

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;
     line-height:1.5;color:#222}
pre{background:#f6f8fa;padding:.6rem .8rem;overflow-x:auto;font-size:.85rem;border-radius:4px}
.input pre{border-left:3px solid #0072B2}
table{border-collapse:collapse;margin:.6rem 0;font-size:.85rem}
th,td{border:1px solid #ddd;padding:.2rem .5rem;text-align:right}
th{background:#f0f0f0}
img{max-width:100%}
.admonition{border-left:4px solid #E69F00;background:#fff8e6;padding:.4rem .9rem;margin:1rem 0}
.admonition-title{font-weight:bold}
.error{border-left:3px solid #D55E00}
.provenance{color:#555;border-top:1px solid #ddd;margin-top:2rem;padding-top:.5rem;overflow-wrap:anywhere}
.compendium-table{overflow-x:auto;max-width:100%}
.compendium-wide-cue{display:none;font-size:.75em;opacity:.75;margin:0 0 .2em}
@media (max-width:40rem){.compendium-wide .compendium-wide-cue{display:block}}
"""


_REF = re.compile(r"\{ref\}`([^`<]*?)\s*<[^`>]*>`|\{ref\}`([^`]*)`")
_PROVENANCE = re.compile(r'<small class="compendium-provenance">(.*?)</small>', re.S)
#: The hidden marker :meth:`compendium.book.report.Outputs.figure` appends for the book's layout test.
_FIGURE_TEXT = re.compile(r'<span class="compendium-figure-text"[^<>]*></span>')


def _parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table")


def _markdown(text: str) -> str:
    text = _REF.sub(lambda m: (m.group(1) or m.group(2) or "").strip(), text)
    if importlib.util.find_spec("markdown_it") is None:  # markdown-it-py comes with myst-parser; without it,
        return f"<pre>{html.escape(text)}</pre>"  # show the source

    md = _parser()

    def admonition(match: re.Match) -> str:
        title, body = match.group(1), match.group(3)
        return (f'<div class="admonition"><p class="admonition-title">{html.escape(title)}</p>'
                f"{md.render(body)}</div>")

    parts, last = [], 0
    for match in _ADMONITION.finditer(text):
        parts.append(md.render(text[last:match.start()]))
        parts.append(admonition(match))
        last = match.end()
    parts.append(md.render(text[last:]))
    return "".join(parts)


def _markdown_inline(text: str) -> str:
    if importlib.util.find_spec("markdown_it") is None:
        return html.escape(text)
    return _parser().renderInline(text)


def _output_html(output: Mapping) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        return f"<pre>{html.escape(''.join(output.get('text', '')))}</pre>"
    if kind == "error":
        text = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(output.get("traceback", [])))
        return f'<pre class="error">{html.escape(text)}</pre>'
    data = output.get("data", {})

    def joined(key):
        value = data[key]
        return "".join(value) if isinstance(value, list) else value

    if "text/html" in data:
        return joined("text/html")
    if "image/png" in data:
        return f'<img alt="figure" src="data:image/png;base64,{joined("image/png").strip()}">'
    if "image/svg+xml" in data:
        return joined("image/svg+xml")
    if "text/markdown" in data:  # a figure's caption: its provenance line is the report's one line, shown at the end
        return _markdown(_FIGURE_TEXT.sub("", _PROVENANCE.sub("", joined("text/markdown"))))
    if "text/plain" in data:
        return f"<pre>{html.escape(joined('text/plain'))}</pre>"
    return ""


def _provenance(output: Mapping) -> str | None:
    """The text of a provenance line (``Outputs.provenance``), if ``output`` is one."""
    data = output.get("data", {}) if output.get("output_type") in ("display_data", "execute_result") else {}
    text = data.get("text/markdown")
    text = "".join(text) if isinstance(text, list) else text
    if not text:
        return None
    match = _PROVENANCE.search(text)
    return match.group(1) if match and not text[:match.start()].strip() else None


def _report_provenance(line: str) -> str:
    """The per-report part of a provenance line: without its first parts (which table, which cell)."""
    parts = [p.strip() for p in line.split(" · ")]
    kept = [p for p in parts[2:] if p] if len(parts) > 2 else parts
    return " · ".join(kept)


def _builtin_html(notebook) -> str:
    """A self-contained HTML page of an executed notebook (no network, no nbconvert, no code, one provenance line)."""
    title = "Audit report"
    body = []
    provenance = None
    for cell in notebook.cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if "remove-cell" in tags:
            continue
        if cell.cell_type == "markdown":
            if title == "Audit report":
                heading = re.search(r"^#\s+(.+)$", cell.source, re.M)
                title = heading.group(1).strip() if heading else title
            body.append(_markdown(cell.source))
        elif cell.cell_type == "code":  # code is never shown; outputs are, unless the cell removes them
            if "remove-output" in tags:
                continue
            for output in cell.get("outputs", []):
                line = _provenance(output)
                if line is not None:
                    provenance = provenance or _report_provenance(line)
                    continue
                if output.get("output_type") == "stream" and output.get("name") == "stderr":
                    continue
                body.append(_output_html(output))
    if provenance:
        body.append(f'<p class="provenance"><small>Provenance: {_markdown_inline(provenance)}</small></p>')
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_CSS}</style></head>\n<body>\n'
        + "\n".join(body)
        + "\n</body></html>\n"
    )


class UnsafeReport(ValueError):
    """The report's HTML would run script or load a page; it is not written."""


class _Active(HTMLParser):
    """Collects what would make a page active: script or frame elements, ``on*`` attributes, script addresses."""

    ELEMENTS = {"script", "iframe", "frame", "object", "embed", "applet", "base", "form", "meta", "link"}
    URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "srcset", "poster"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.ELEMENTS and not (tag == "meta" and set(dict(attrs)) <= {"charset", "name", "content"}
                                         and dict(attrs).get("name") in (None, "viewport")):
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
            elif (
                name in self.URL_ATTRIBUTES
                and value
                and not re.match(r"\s*(data:image/(png|jpeg|gif|webp);|#|https?:)", value, re.I)
            ):
                self.found.append(f"<{tag} {name}={value[:40]!r}>")

    handle_startendtag = handle_starttag


def check_inert(page: str) -> str:
    """``page`` unchanged if it is inert: no script, frame, form or outside resource element, no ``on*`` attribute,
    no address other than an embedded image, a fragment or a web link.

    Raises
    ------
    UnsafeReport
        Naming what was found (a name in the data that reached the page unescaped is a defect of the project).
    """
    parser = _Active()
    parser.feed(page)
    parser.close()
    if parser.found:
        raise UnsafeReport("the audit report would not be inert, so it was not written: "
                           + ", ".join(sorted(set(parser.found))[:10]))
    return page


def render_html(notebook_path: str | os.PathLike, html_path: str | os.PathLike) -> Path:
    """Render an executed notebook as one self-contained HTML file that loads nothing from anywhere.

    No code (the chapter's cells are ``hide-input``), admonitions as boxes,
    tables, figures and prose as in the book, one provenance line at the end
    (see the module's docstring).
    """
    import nbformat

    notebook = nbformat.read(notebook_path, as_version=4)
    return write_text_atomic(html_path, check_inert(_builtin_html(notebook)))
