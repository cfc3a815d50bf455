"""The built book in a real browser, with the network cut off.

Headless Chromium (Debian's ``/usr/bin/chromium``, driven by Playwright's Python package; no browser download) opens
``_build/html`` from ``file://``, one Chromium for all the browser tests of a test process (tests/browser_pages.py).
Every request that is not ``file://`` (or an inline ``data:``/``blob:`` URL) is aborted and recorded, so a page that
needs anything from another host fails here. For every page of ``_toc.yml`` it checks: no request left the machine,
no console error or uncaught exception, every image loaded and has alt text, every piece of math typeset by the
book's own MathJax, every internal link (and its ``#anchor``) resolves; and that it reads well: no table cut off,
no code cell unfolded, no ``nan``/``None`` or over-long number in the results, emojis in tables drawn in colour.
Each page is opened once at 1280 px for these checks and for tests/test_book_layout.py's, and what they read is
kept for the process (``book_pages``). Then: the search page finds a chapter for "decodability", and the
reliability chapter's kernel-free explorer shows the leave-one-out leaderboard of Table 2 when an annotator is
unticked.

The book must have been built (``make book``; ``make test`` builds it first).
"""

from __future__ import annotations

import functools
import hashlib
import html as html_lib
import json
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

from browser_pages import HTML, LAPTOP, PAGES, ROOT, Visit
from browser_pages import tab as browser_tab
from browser_pages import url as _url

pytestmark = pytest.mark.book

RELIABILITY = "book/02_reliability"


@pytest.fixture
def visit(browser):
    v = Visit(browser)
    yield v
    v.close()


@functools.lru_cache(maxsize=None)
def _anchors(path: Path) -> frozenset[str]:
    """The ids and names an HTML file defines (the targets of #fragments)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    return frozenset(html_lib.unescape(m) for m in re.findall(r'\s(?:id|name)="([^"]+)"', text))


@pytest.mark.parametrize("name", PAGES)
def test_page_is_complete_offline(built_book, book_pages, name):
    page = book_pages.laptop(name)
    assert not page["blocked_at_load"], f"{name}: the page asked another host for {page['blocked_at_load']}"
    # images: every <img> has loaded with a real size
    images = page["images"]
    broken = [i["src"] for i in images if not (i["complete"] and i["width"] > 0)]
    assert not broken, f"{name}: images that did not load: {broken}"
    # figures: every image of the content carries alt text (the theme's logo is not content)
    no_alt = [i["src"] for i in images if not i["alt"] and not i["logo"]]
    assert not no_alt, f"{name}: images without alt text: {no_alt}"
    # math: typeset by the local MathJax, no TeX errors
    math = page["math"]
    if math:
        assert page["math_started"], f"{name}: has math but MathJax did not start"
        math = page["math_after"]
        untypeset = [m["text"] for m in math if not m["typeset"]]
        assert not untypeset, f"{name}: math not typeset: {untypeset[:5]}"
        assert not [m for m in math if m["error"]], f"{name}: MathJax reported TeX errors"
        fonts = page["failed_fonts"]
        assert not fonts, f"{name}: fonts that failed to load: {fonts}"
        src = page["mathjax_scripts"]
        assert src and all(s.startswith("file://") for s in src), f"{name}: MathJax not loaded locally: {src}"
    # internal links: the file exists and so does the #anchor
    dead = []
    for raw, absolute in page["links"]:
        if not absolute.startswith("file://") or raw in ("#", ""):
            continue
        parts = urlsplit(absolute)
        target = Path(unquote(parts.path))
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            dead.append(raw)
        elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _anchors(target):
            dead.append(raw)
    assert not dead, f"{name}: internal links that do not resolve: {sorted(set(dead))}"
    # nothing fetched from elsewhere, nothing logged as an error (recorded 200 ms after the last step)
    assert not page["blocked"], f"{name}: the page asked another host for {page['blocked']}"
    assert not page["errors"], f"{name}: console errors: {page['errors']}"


def test_a_tab_records_each_page_it_opens_on_its_own(browser, tmp_path):
    """The pages are read in turn in one tab per width: what a page fetched from elsewhere and logged is its own,
    not carried over to the page opened after it, and a page's own requests and errors are recorded."""
    bad, clean = tmp_path / "bad.html", tmp_path / "clean.html"
    bad.write_text('<!doctype html><script src="https://cdn.example.org/lib.js"></script>'
                   '<script>console.error("broken")</script><p>bad</p>', encoding="utf-8")
    clean.write_text("<!doctype html><p>clean</p>", encoding="utf-8")
    visit = browser_tab(browser, LAPTOP)
    visit.open(bad.as_uri())
    assert visit.blocked == ["https://cdn.example.org/lib.js"]
    assert any("broken" in e for e in visit.errors), visit.errors
    assert browser_tab(browser, LAPTOP) is visit
    visit.open(clean.as_uri())
    assert visit.blocked == [] and visit.errors == []


def test_the_rank_picture_shows_names_as_text(browser, tmp_path):
    """Issue 70: a system named like markup is drawn in the rank picture as its characters, and runs nothing."""
    from compendium.book import explorer
    from compendium.simulate.crossed import simulate_crossed

    data = simulate_crossed(12, 3, 3, seed=1, scale=(1, 5))
    hostile = {"S1": '<img src=x onerror="window.hit=1"><b>bold</b>'}
    page_file = tmp_path / "explorer.html"
    page_file.write_text("<!doctype html><meta charset='utf-8'><body>" + explorer.explorer_html(
        explorer.precompute_panels(data, labels=hostile)) + "</body>", encoding="utf-8")
    visit = browser_tab(browser, LAPTOP)
    page = visit.open(page_file.as_uri())
    page.uncheck('input[data-annotator="A1"]')
    assert page.locator("#explorer-ranks svg line").count() == 3
    assert page.locator("#explorer-ranks img, #explorer-ranks b").count() == 0
    assert hostile["S1"] in page.inner_text("#explorer-ranks")
    assert page.evaluate("window.hit") is None and not visit.errors, visit.errors


def test_some_page_has_figures_and_math(built_book):
    """Guard against the per-page checks passing vacuously."""
    texts = {name: (HTML / f"{name}.html").read_text(encoding="utf-8") for name in PAGES}
    assert sum(len(re.findall(r"<img\b", t)) for t in texts.values()) >= 3
    assert any('class="math' in t for t in texts.values())
    assert "cdn" not in "".join(re.findall(r"<script[^>]*>", "".join(texts.values()))).lower()


def test_search_finds_a_chapter_offline(built_book, visit):
    page = visit.open(_url("search", "?q=decodability"))
    results = page.locator("#search-results ul.search li a")
    results.first.wait_for(state="attached")
    hrefs = [unquote(urlsplit(h).path) for h in results.evaluate_all("els => els.map(e => e.href)")]
    chapters = [h for h in hrefs if any(h.endswith(f"/{p}.html") for p in PAGES)]
    assert chapters, f"search for 'decodability' found no chapter; results: {hrefs}"
    assert any(h.endswith("/book/04_decodability.html") for h in hrefs), hrefs
    assert not visit.blocked and not visit.errors, (visit.blocked, visit.errors)


def _rows(page, table: str = "#explorer-leaderboard") -> list[tuple[int, str, float]]:
    cells = page.eval_on_selector_all(
        f"{table} tbody tr", "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent.trim()))")
    return [(int(c[0]), c[1], float(c[2])) for c in cells]


def _expected_leave_one_out() -> dict[str, list[tuple[int, str, float]]]:
    """Table 2 recomputed from the data the chapter was executed on."""
    from compendium.data import schema
    from compendium.stats import panels
    from compendium.data.benchmark import load_benchmark, resolve_data_dir

    executed = ROOT / f"{RELIABILITY}.ipynb"
    meta = nbformat.read(executed, as_version=4).metadata.get("compendium", {})
    data_dir = resolve_data_dir((meta.get("parameters") or {}).get("data_dir"))
    manifest = data_dir / "MANIFEST"
    if meta.get("data_manifest_sha256") and manifest.exists():
        if hashlib.sha256(manifest.read_bytes()).hexdigest() != meta["data_manifest_sha256"]:
            pytest.fail(f"{data_dir} changed since {executed.name} was executed: rebuild the book (`make book`)")
    loao = panels.leave_one_annotator_out(load_benchmark(data_dir, embeddings=False).ratings)
    return _boards(loao, schema.SYSTEM_LABELS)


def _expected_real_leave_one_out(dimension: str = "coherence") -> dict[str, list[tuple[int, str, float]]]:
    """SummEval's leave-one-expert-out panels, as the audit computes them (the explorer opens on them)."""
    from compendium.data import real
    from compendium.stats import panels

    return _boards(panels.leave_one_annotator_out(real.load_summeval(dimension), rater="rater"), {})


def _boards(loao, labels) -> dict[str, list[tuple[int, str, float]]]:
    return {
        panel: [(int(r.rank), labels.get(str(r.system), str(r.system)), float(r.mean)) for r in part.itertuples()]
        for panel, part in loao.groupby("panel", sort=False)
    }


def _same_board(shown, expected) -> bool:
    """The same ranks and means (to the page's three decimals); systems tied on a rank may come in any order."""
    shown, expected = sorted(shown, key=lambda r: r[:2]), sorted(expected, key=lambda r: r[:2])
    return [(r, s) for r, s, _ in shown] == [(r, s) for r, s, _ in expected] and all(
        abs(a - b) <= 6e-4 for (_, _, a), (_, _, b) in zip(shown, expected))


def _rank_picture(page) -> dict[str, tuple[int, float]]:
    """The rank picture's lines: each system's rank with the ticked panel and the line's width."""
    lines = page.eval_on_selector_all("#explorer-ranks svg line", "els => els.map(e => [e.dataset.system, "
                                      "Number(e.dataset.rank), Number(e.getAttribute('stroke-width'))])")
    return {system: (rank, width) for system, rank, width in lines}


def _unticking_each_in_turn_shows_its_panel(page, expected) -> None:
    annotators = page.locator("input[data-annotator]").evaluate_all("els => els.map(e => e.dataset.annotator)")
    assert annotators == sorted(a.removeprefix("without ") for a in expected if a != "all")
    full = _rows(page)
    assert _same_board(full, expected["all"]), f"full panel shown {full}, expected {expected['all']}"
    picture = _rank_picture(page)
    assert len(picture) == len(full) and all(rank == (picture[s][0]) for rank, s, _ in full)
    for annotator in annotators:
        page.uncheck(f'input[data-annotator="{annotator}"]')
        shown = _rows(page)
        assert _same_board(shown, expected[f"without {annotator}"]), (
            f"without {annotator}: shown {shown}, expected {expected[f'without {annotator}']}")
        # the picture follows the ticked panel: each system at its new rank, the winners' lines thick
        now = _rank_picture(page)
        assert {s: r for r, s, _ in shown} == {s: r for s, (r, _) in now.items()}
        assert {s for s, (_, width) in now.items() if width == 3} == {s for r, s, _ in shown if r == 1}
        page.check(f'input[data-annotator="{annotator}"]')
    assert _rank_picture(page) == picture


def test_explorer_updates_without_a_kernel(built_book, visit, tmp_path):
    page = visit.open(_url(RELIABILITY))
    root = page.locator("#compendium-explorer")
    root.wait_for(state="attached")
    assert root.get_attribute("data-ready") == "1", "the explorer's inline script did not run in the built page"
    # Issue 70: the explorer opens on a real panel, SummEval's experts, and says so; the paper's design (simulated)
    # is one choice among the evaluations
    chooser = page.locator("#explorer-evaluation")
    assert chooser.input_value() == "0" and "(real)" in chooser.locator("option").first.inner_text()
    assert page.inner_text("#explorer-evaluation-note").startswith("Real: SummEval")
    assert not page.locator("#explorer-sim").is_visible()  # the larger simulated panels belong to the simulated one
    _unticking_each_in_turn_shows_its_panel(page, _expected_real_leave_one_out("coherence"))
    simulated = [o for o in chooser.locator("option").all_inner_texts() if o.endswith("(simulated)")]
    assert len(simulated) == 1, chooser.locator("option").all_inner_texts()
    chooser.select_option(label=simulated[0])
    assert page.inner_text("#explorer-evaluation-note").startswith("Simulated")

    expected = _expected_leave_one_out()
    boxes = page.locator("input[data-annotator]")
    annotators = boxes.evaluate_all("els => els.map(e => e.dataset.annotator)")
    assert annotators == sorted(a.removeprefix("without ") for a in expected if a != "all")

    full = _rows(page)
    assert _same_board(full, expected["all"]), f"full panel shown {full}, expected {expected['all']}"
    g_full = page.inner_text("#explorer-g")

    for annotator in annotators:
        page.uncheck(f'input[data-annotator="{annotator}"]')
        shown = _rows(page)
        assert _same_board(shown, expected[f"without {annotator}"]), (
            f"without {annotator}: shown {shown}, expected {expected[f'without {annotator}']}")
        assert f"without {annotator}" in page.inner_text("#explorer-panel")
        page.check(f'input[data-annotator="{annotator}"]')
        assert _rows(page) == full
    page.uncheck(f'input[data-annotator="{annotators[0]}"]')
    assert page.inner_text("#explorer-g") != g_full or _rows(page) != full  # the statistics follow too
    page.screenshot(path=str(tmp_path / "explorer.png"))  # kept by pytest for a look on failure

    for annotator in annotators[1:-1]:
        page.uncheck(f'input[data-annotator="{annotator}"]')
    assert "undefined with one annotator" in page.inner_text("#explorer-f-interaction")
    page.uncheck(f'input[data-annotator="{annotators[-1]}"]')
    assert page.locator("#explorer-empty").is_visible()
    assert not page.locator("#explorer-leaderboard").is_visible()
    page.click("#explorer-all")
    assert _rows(page) == full and page.inner_text("#explorer-g") == g_full

    size = page.locator("#explorer-size")
    if size.count():  # simulated data: the larger panels by size
        largest = int(size.get_attribute("max"))
        before = _rows(page, "#explorer-sim-leaderboard")
        size.fill("2")
        assert page.inner_text("#explorer-size-value") == "2"
        assert page.inner_text("#explorer-sim-panel").startswith("The first 2 of the ")
        size.fill(str(largest))
        assert _rows(page, "#explorer-sim-leaderboard") == before
    assert not visit.blocked and not visit.errors, (visit.blocked, visit.errors)


def _scored_rows(page) -> list[dict]:
    """The leaderboard's rows by its own column headers (an incomplete design shows a score and a mean)."""
    heads = page.eval_on_selector_all("#explorer-leaderboard thead th", "ths => ths.map(t => t.textContent.trim())")
    cells = page.eval_on_selector_all(
        "#explorer-leaderboard tbody tr", "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent.trim()))")
    return [dict(zip(heads, row)) for row in cells]


def test_students_take_raters_off_a_real_incomplete_panel(built_book, visit, tmp_path):
    """Issue 70, done when: on WMT23 zh-en MQM, unticking each rater in turn shows the winner and the system
    means of that rater's leave-one-rater-out panel in the audit's JSON; the rank picture follows and changes;
    a panel the build did not compute says which ones it did; no console error, no outside request."""
    from compendium.audit import core
    from compendium.data import real

    mqm = real.load_mqm("zhen")
    summary = core.audit(mqm.assign(rating=-mqm["rating"]), n_boot=20, item="item", rater="rater")
    expected = {p["panel"]: p for p in summary["loao"]["panels"]}
    page = visit.open(_url(RELIABILITY))
    page.locator("#compendium-explorer").wait_for(state="attached")
    page.locator("#explorer-evaluation").select_option(label="WMT23 zh-en MQM (real)")
    assert page.inner_text("#explorer-evaluation-note").startswith("Real: WMT23 zh-en MQM")
    raters = page.locator("input[data-annotator]").evaluate_all("els => els.map(e => e.dataset.annotator)")
    assert len(raters) == 8 and len(expected) == 9
    full_picture = _rank_picture(page)
    for rater in raters:
        page.uncheck(f'input[data-annotator="{rater}"]')
        theirs = expected[f"without {rater}"]
        shown = _scored_rows(page)
        assert page.inner_text("#explorer-winner") == theirs["winner"], rater
        means = {e["system"]: e["mean"] for e in theirs["leaderboard"]}
        assert {r["System"] for r in shown} == set(means)
        # the page shows three decimals of the explorer's four (half a unit of each): 5.5e-4 at most
        off = {r["System"]: (r["Mean rating"], means[r["System"]]) for r in shown
               if abs(float(r["Mean rating"]) - means[r["System"]]) > 5.5e-4}
        assert not off, (rater, off)
        assert {r["System"]: int(r["Rank"]) for r in shown} == {e["system"]: e["rank"] for e in theirs["leaderboard"]}
        picture = _rank_picture(page)
        assert {s: rank for s, (rank, _) in picture.items()} == {r["System"]: int(r["Rank"]) for r in shown}
        assert "F = " in page.inner_text("#explorer-f-random") and page.inner_text("#explorer-g")
        page.check(f'input[data-annotator="{rater}"]')
    assert _rank_picture(page) == full_picture
    # No single removal moves a rank on zh-en; some pairs of removals do, and the picture shows it: the first held
    # panel whose ranks differ from the full panel's, from the page's own data
    data = json.loads(page.inner_text("script.explorer-data"))
    held = next(e["data"] for e in data["evaluations"] if e["name"] == "WMT23 zh-en MQM")
    ranks = [{e["system"]: e["rank"] for e in s["leaderboard"]} for s in held["subsets"]]
    moved = next(s for s, r in zip(held["subsets"], ranks) if r != ranks[0])
    for rater in set(raters) - set(moved["annotators"]):
        page.uncheck(f'input[data-annotator="{rater}"]')
    picture = _rank_picture(page)
    assert picture != full_picture
    assert {s: rank for s, (rank, _) in picture.items()} == {e["system"]: e["rank"] for e in moved["leaderboard"]}
    page.click("#explorer-all")
    for rater in raters[:3]:  # three off: beyond the build's rule of at most two removals
        page.uncheck(f'input[data-annotator="{rater}"]')
    assert page.locator("#explorer-empty").is_visible()
    assert "at most 2 of the 8 raters" in page.inner_text("#explorer-empty")
    page.screenshot(path=str(tmp_path / "explorer-mqm.png"))
    assert not visit.blocked and not visit.errors, (visit.blocked, visit.errors)


def test_explorer_data_is_embedded_in_the_page(built_book):
    text = (HTML / f"{RELIABILITY}.html").read_text(encoding="utf-8")
    payload = re.search(r'<script type="application/json" class="explorer-data">(.*?)</script>', text, re.S)
    assert payload, "the explorer's data is not in the built reliability chapter"
    evaluations = json.loads(payload.group(1))["evaluations"]
    assert [e["kind"] for e in evaluations][0] == "real" and "simulated" in [e["kind"] for e in evaluations]
    for evaluation in evaluations:
        data = evaluation["data"]
        every = 2 ** len(data["annotators"]) - 1
        assert len(data["subsets"]) == every or "is held (" in data["rule"], evaluation["name"]
    assert len(payload.group(1).encode()) < 1_000_000  # issue 70: the panels' data add at most 1 MB to the page


# --- reading: folded code, tables that scroll, tidy numbers, emoji in colour --------------

_MISSING = re.compile(r"(?<![A-Za-z])(nan|NaN|None)(?![A-Za-z])")
_DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?:[eE][-+]?\d+)?(?![\w.])")


def _long_floats(text: str, limit: int = 8) -> list[str]:
    """Decimal numbers in ``text`` shown with more than ``limit`` significant digits."""
    found = []
    for match in _DECIMAL.finditer(text):
        digits = re.sub(r"[eE].*$", "", match.group()).replace(".", "").lstrip("0")
        if len(digits) > limit:
            found.append(match.group())
    return found


def test_long_float_detection():
    assert _long_floats("0.6185272222 and 19.0 and 0.898 and v1.0.4 and 12345678.9") == ["0.6185272222", "12345678.9"]
    assert _MISSING.search("value nan here") and _MISSING.search("None") and not _MISSING.search("Nonesuch")


@pytest.mark.parametrize("name", PAGES)
def test_page_reads_well(built_book, book_pages, name):
    page = book_pages.laptop(name)
    clipped = page["clipped"]
    assert not clipped, f"{name}: tables cut off at the right with no scroll bar: {clipped}"
    unfolded = page["unfolded"]
    assert not unfolded, f"{name}: code cells shown unfolded: {unfolded[:3]}"
    text = page["result_text"]
    missing = sorted({m.group() for m in _MISSING.finditer(text)})
    assert not missing, (f"{name}: results show {missing}: "
                         f"{[text[max(0, m.start() - 40):m.end() + 20] for m in _MISSING.finditer(text)][:3]}")
    long = _long_floats(text)
    assert not long, f"{name}: numbers with more than 8 significant digits: {long[:5]}"
    for drawn in page["emoji"]:
        assert drawn["coloured"] >= 40 and drawn["width"] > 0, (f"{name}: the emoji {drawn['emoji']} does not render "
                                                                "in "
                                                                f"colour: {drawn}")
    assert not page["reading_errors"], f"{name}: console errors: {page['reading_errors']}"


def test_the_reading_checks_are_not_vacuous(built_book, book_pages):
    """Some page has folded code cells, and some table shows an emoji that draws in colour."""
    assert book_pages.laptop(RELIABILITY)["code_cells"] >= 10
    emoji_pages = [p for p in PAGES if book_pages.laptop(p)["emoji"]]
    assert emoji_pages, "no page shows an emoji in a table"


def test_every_widget_cell_points_to_its_kernel_free_twin(built_book):
    for name in PAGES:
        text = (HTML / f"{name}.html").read_text(encoding="utf-8")
        assert "application/vnd.jupyter.widget-view+json" not in text, f"{name}: an empty widget view is rendered"
    for name in (RELIABILITY, "book/03_length"):
        text = (HTML / f"{name}.html").read_text(encoding="utf-8")
        assert "This is a live widget" in text and "which needs none" in text, name
    assert 'id="compendium-length-explorer"' in (HTML / "book/03_length.html").read_text(encoding="utf-8")


def test_the_emoji_font_files_named_by_the_css_exist():
    css = (ROOT / "assets" / "emoji.css").read_text(encoding="utf-8")
    files = re.findall(r"url\(([^)]+)\)", css)
    assert files
    missing = [f for f in files if not (ROOT / "node_modules" / f).exists()]
    assert not missing, f"assets/emoji.css names font files that node_modules lacks (npm ci): {missing}"
    package = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    assert package["dependencies"]["twemoji-colr-font"] == "15.0.3"
    ranges = re.search(r"unicode-range:([^;]+);", css).group(1)
    assert "U+30" not in ranges and "U+0" not in ranges  # digits and ASCII stay in the text font
