"""Prose a reader finishes (issue 69): no sentence over 45 words on any page, at most 2,000 words of prose per
section chapter outside folded dropdowns.

Measured on the built HTML (``_build/html``), so computed sentences (a chapter's Markdown outputs) count as
much as written ones. **Prose** is the text of the paragraphs and list items of a page's article, less what a
reader does not read as running text: tables, code (``pre``, a code cell's source), math, folded dropdowns
(``details``: a reader opens them on purpose), the verdict box (quotes and a table, measured by its own tests)
and provenance lines. A sentence ends at ``.``, ``!`` or ``?`` (after any closing quote or bracket) followed by
a space and a capital, an opening quote, bracket or emphasis; "e.g. a" and "Fig. 2" therefore do not end one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
#: Issue 69: the longest sentence a page may have, and a section chapter's prose outside dropdowns (words).
MAX_SENTENCE_WORDS = 45
MAX_CHAPTER_WORDS = 2000
#: Containers whose text is not prose.
NOT_PROSE_TAGS = ("table", "pre", "details", "script", "style", "nav", "math", "figure")
NOT_PROSE_CLASSES = ("cell_input", "verdict-box", "sd-dropdown")
#: The explorers: a control's labels and notes, which change with the reader's choice of evaluation. Their
#: sentences are held to the length limit like any other; a chapter's word budget is for its running text.
CONTROL_CLASSES = ("compendium-explorer",)
SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][”\"’)]))\s+(?=[A-Z“\"(*])")


def prose(html: str, *, controls: bool = True) -> list[str]:
    """The paragraphs and list items of a page's article that are prose (see the module's docstring); with
    ``controls=False``, less the explorers' text (:data:`CONTROL_CLASSES`)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    article = soup.find("article") or soup
    for inline in article.select(".compendium-provenance, .headerlink"):  # a caption's provenance line, a "#"
        inline.decompose()
    out = []
    for element in article.find_all(["p", "li"]):
        skip = NOT_PROSE_CLASSES if controls else NOT_PROSE_CLASSES + CONTROL_CLASSES
        if element.find_parent(NOT_PROSE_TAGS) or any(element.find_parent(class_=c) for c in skip):
            continue
        if element.name == "li" and element.find("p"):
            continue  # a list item's paragraphs are read on their own
        text = " ".join(element.get_text(" ").split())
        if text:
            out.append(text)
    return out


def sentences(texts: list[str]) -> list[str]:
    return [s for text in texts for s in SENTENCE_END.split(text) if s.strip()]


def _pages() -> list[str]:
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return [toc["root"]] + [e["file"] for part in toc.get("parts", []) for e in part.get("chapters", [])]


def test_the_prose_reader_leaves_out_tables_code_dropdowns_and_the_box():
    page = ("<article><p>One two. Three four, e.g. five. “Six seven.” (Eight.)</p><table><tr><td><p>cell text"
            "</p></td></tr></table><pre>code here</pre><details><p>folded</p></details><div class='verdict-box'>"
            "<p>box</p></div><ul><li>an item</li><li><p>a paragraph in an item</p></li></ul><p><strong>A caption"
            "</strong><br/><small class='compendium-provenance'>Figure x · cell [3]</small></p></article>")
    texts = prose(page)
    assert texts == ["One two. Three four, e.g. five. “Six seven.” (Eight.)", "an item", "a paragraph in an item",
                     "A caption"]
    assert sentences(texts[:1]) == ["One two.", "Three four, e.g. five.", "“Six seven.”", "(Eight.)"]
    control = "<article><p>Running text.</p><div class='compendium-explorer'><p>Panel of 2: A1, A2.</p></div></article>"
    assert prose(control) == ["Running text.", "Panel of 2: A1, A2."]
    assert prose(control, controls=False) == ["Running text."]


@pytest.mark.book
def test_no_sentence_on_any_page_is_longer_than_45_words():
    long = {}
    for page in _pages():
        found = [s for s in sentences(prose((HTML / f"{page}.html").read_text(encoding="utf-8")))
                 if len(s.split()) > MAX_SENTENCE_WORDS]
        if found:
            long[page] = [f"{len(s.split())}: {s[:90]}" for s in found]
    assert not long, f"sentences over {MAX_SENTENCE_WORDS} words: {long}"


@pytest.mark.book
def test_no_section_chapter_has_more_than_2000_words_of_prose_outside_dropdowns():
    from compendium.book import verdicts

    def count(name):
        text = (HTML / "book" / f"{name}.html").read_text(encoding="utf-8")
        return sum(len(t.split()) for t in prose(text, controls=False))

    words = {name: count(name) for name in verdicts.CHAPTERS}
    assert all(w > 300 for w in words.values()), words  # the reader finds the prose
    assert not {n: w for n, w in words.items() if w > MAX_CHAPTER_WORDS}, words
