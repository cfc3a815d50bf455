"""The audit's report as one offline HTML page, rendered from the executed notebook.

:func:`render_html` turns the executed chapter ``08_audit`` into a single
self-contained file: with nbconvert's ``HTMLExporter`` when it is installed,
otherwise with the built-in renderer here (markdown-it for the prose; tables,
figures and text outputs embedded as they are). :mod:`compendium.audit.core`
computes what the page shows and re-exports :func:`render_html`.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping
from pathlib import Path

from compendium.data._files import write_text_atomic

__all__ = ["render_html"]


_ADMONITION = re.compile(r"^:::\{admonition\}\s*(.*?)\n(?::class:\s*(\S+)\n)?(.*?)\n:::\s*$", re.S | re.M)

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}
pre{background:#f6f8fa;padding:.6rem .8rem;overflow-x:auto;font-size:.85rem;border-radius:4px}
.input pre{border-left:3px solid #0072B2}
table{border-collapse:collapse;margin:.6rem 0;font-size:.85rem}
th,td{border:1px solid #ddd;padding:.2rem .5rem;text-align:right}
th{background:#f0f0f0}
img{max-width:100%}
.admonition{border-left:4px solid #E69F00;background:#fff8e6;padding:.4rem .9rem;margin:1rem 0}
.admonition-title{font-weight:bold}
.error{border-left:3px solid #D55E00}
"""


def _markdown(text: str) -> str:
    try:
        from markdown_it import MarkdownIt
    except ImportError:  # markdown-it-py comes with myst-parser; without it, show the source
        return f"<pre>{html.escape(text)}</pre>"

    md = MarkdownIt("commonmark").enable("table")

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
    if "text/markdown" in data:
        return _markdown(joined("text/markdown"))
    if "text/plain" in data:
        return f"<pre>{html.escape(joined('text/plain'))}</pre>"
    return ""


def _builtin_html(notebook) -> str:
    """A self-contained HTML page of an executed notebook (no network, no nbconvert)."""
    title = "Audit report"
    body = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            if title == "Audit report":
                heading = re.search(r"^#\s+(.+)$", cell.source, re.M)
                title = heading.group(1).strip() if heading else title
            body.append(_markdown(cell.source))
        elif cell.cell_type == "code":
            if cell.source.strip():
                body.append(f'<div class="input"><pre><code>{html.escape(cell.source)}</code></pre></div>')
            body.extend(_output_html(o) for o in cell.get("outputs", []))
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><style>{_CSS}</style></head>\n<body>\n'
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def render_html(notebook_path: str | os.PathLike, html_path: str | os.PathLike) -> Path:
    """Render an executed notebook as one HTML file, offline.

    Uses nbconvert's ``HTMLExporter`` (without input prompts) when nbconvert
    and its templates are installed; otherwise a built-in renderer (markdown-it for the prose;
    tables, figures and text outputs embedded as they are), which needs no
    network and gives a self-contained file.
    """
    import nbformat

    notebook = nbformat.read(notebook_path, as_version=4)
    try:
        from nbconvert import HTMLExporter

        exporter = HTMLExporter()
        exporter.exclude_input_prompt = True
        exporter.exclude_output_prompt = True
        text, _ = exporter.from_notebook_node(notebook)
    except (ImportError, ValueError):  # no nbconvert, or its templates are not installed beside it
        text = _builtin_html(notebook)
    return write_text_atomic(html_path, text)
