"""The built book in headless Chromium, for the browser tests (test_browser, test_book_layout, test_audit_browser).

One Chromium serves a whole test process (:data:`CHROMIUM_SESSION`): it is launched when a test first needs it and
closed once the next test to run is not a browser test (tests/conftest.py, whose xdist scopes keep the three modules
on one worker), because a running Playwright leaves an event loop marked running in the thread, which
``asyncio.run`` and another ``sync_playwright`` (tests/test_lab.py) refuse.

Every page of ``_toc.yml`` is opened once per width, offline (every request that is not ``file://``, ``data:`` or
``blob:`` is aborted and recorded, console errors and uncaught exceptions are recorded), and what the checks read is
kept in :data:`RECORDS`, a page at a time on first use. Each width has one browser tab (:class:`Tab`), and each
page is opened in it in turn, as a reader goes from page to page: a tab and its context cost more to make than
most pages take to load (a fresh context and tab per page doubled the time of the two passes), and every record
was compared byte for byte between the two ways when this was written.

* at 1280 px (:func:`read_at_laptop`), in this order: the requests blocked by the time the page has loaded; the
  reading measures (tables cut off, code cells unfolded, the text of the results), taken as soon as the page has
  loaded; the layout measure :data:`MEASURE` once the fonts are ready and two frames drawn (:data:`SETTLE`); the emojis
  drawn in
  tables; every image made eager and awaited; the math once the book's MathJax has finished; the links; and, 200 ms
  later, every request blocked and every error logged;
* at 390 px (:func:`measure_url`): :data:`MEASURE`, once the fonts are ready and two frames have been drawn.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import pytest
import yaml

from compendium.build import runner

ROOT = runner.ROOT
HTML = ROOT / "_build" / "html"
CHROMIUM = Path(os.environ.get("COMPENDIUM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: How long a page may take to load, typeset its math and run its scripts (ms).
TIMEOUT_MS = 30_000
#: The viewports the book is read at: a laptop's and a phone's (width, height in px).
LAPTOP = (1280, 900)
PHONE = (390, 844)


def toc_pages() -> list[str]:
    """The pages of ``_toc.yml`` (root, the chapters of its parts, its top-level chapters), without suffix."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    pages = [toc["root"]]
    for part in toc.get("parts", []):
        pages += [entry["file"] for entry in part.get("chapters", [])]
    pages += [entry["file"] for entry in toc.get("chapters", [])]
    return [str(Path(p).with_suffix("")) for p in pages]


PAGES = toc_pages()


def url(page: str, query: str = "") -> str:
    """The ``file://`` URL of a page of the built book."""
    return (HTML / f"{page}.html").resolve().as_uri() + query


def check_built_book() -> Path:
    """``_build/html`` if it holds the index, the search page and every page of the book; else the test fails."""
    missing = [p for p in ["index", "search", *PAGES] if not (HTML / f"{p}.html").exists()]
    if missing:
        pytest.fail(
            f"the built book is missing {', '.join(f'{m}.html' for m in missing)} in {HTML}: "
            "run `make book` first (`make test` does)"
        )
    return HTML


def check_chromium() -> Path:
    """The Chromium to run (``COMPENDIUM_CHROMIUM``, else Debian's); the test fails if there is none."""
    if not CHROMIUM.exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: `apt-get install chromium` (.ci/run does), "
                    "or point COMPENDIUM_CHROMIUM at one")
    return CHROMIUM


class ChromiumSession:
    """A headless Chromium launched on first use and kept until :meth:`close`."""

    def __init__(self):
        self._playwright = None
        self._browser = None

    def browser(self):
        """The running Chromium; launched now if there is none (or the last one has gone)."""
        if self._browser is not None and not self._browser.is_connected():
            self.close()
        if self._browser is None:
            check_chromium()
            from playwright.sync_api import sync_playwright

            playwright = sync_playwright().start()
            try:
                self._browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                                          headless=True)
            except BaseException:
                playwright.stop()
                raise
            self._playwright = playwright
        return self._browser

    def close(self):
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = None
        try:
            if browser is not None and browser.is_connected():
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()


#: The test process's Chromium.
CHROMIUM_SESSION = ChromiumSession()


class Visit:
    """One offline browser context; records what each page tried to fetch and logged."""

    def __init__(self, browser, viewport: tuple[int, int] = LAPTOP):
        width, height = viewport
        self.context = browser.new_context(viewport={"width": width, "height": height}, service_workers="block")
        self.context.set_default_timeout(TIMEOUT_MS)
        self.blocked: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)

    def _route(self, route):
        _offline(route, self.blocked)

    def open(self, url: str):
        page = self.context.new_page()
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text} ({m.location})"))
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        page.goto(url, wait_until="load")
        return page

    def close(self):
        self.context.close()


class Tab:
    """One offline browser context with one tab, which opens page after page: what each page tried to fetch and
    logged is recorded from its opening (:meth:`open`) until the next page is opened."""

    def __init__(self, browser, viewport: tuple[int, int]):
        width, height = viewport
        self.browser = browser
        self.context = browser.new_context(viewport={"width": width, "height": height}, service_workers="block")
        self.context.set_default_timeout(TIMEOUT_MS)
        self.blocked: list[str] = []
        self.errors: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(f"console: {m.text} ({m.location})"))
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))

    def _route(self, route):
        _offline(route, self.blocked)

    def open(self, url: str):
        """The tab, once ``url`` has loaded in it; the records start afresh."""
        self.blocked.clear()
        self.errors.clear()
        self.page.goto(url, wait_until="load")
        return self.page

    def usable(self, browser) -> bool:
        return self.browser is browser and browser.is_connected() and not self.page.is_closed()

    def close(self):
        if self.browser.is_connected():
            self.context.close()


#: The tab of each Chromium and viewport (:func:`tab`).
_TABS: dict[tuple[int, int, int], Tab] = {}


def tab(browser, viewport: tuple[int, int]) -> Tab:
    """The offline tab of ``browser`` at ``viewport``, made on first use (and again if it has gone)."""
    key = (id(browser), *viewport)
    found = _TABS.get(key)
    if found is None or not found.usable(browser):
        found = _TABS[key] = Tab(browser, viewport)
    return found


def _in_tab(browser, viewport: tuple[int, int], read):
    """``read(tab)`` in the tab of ``browser`` at ``viewport``; a tab that failed is closed, so that the next page
    opens in a fresh one."""
    current = tab(browser, viewport)
    try:
        return read(current)
    except BaseException:
        _TABS.pop((id(browser), *viewport), None)
        with contextlib.suppress(Exception):  # the error that matters is the reading's
            current.close()
        raise


def offline(route):
    """A route handler that lets ``file://``, ``data:`` and ``blob:`` through and aborts every other request.
    (Playwright passes a handler as many arguments as it takes: this one takes the route only.)"""
    _offline(route, [])


def _offline(route, blocked: list[str]) -> None:
    """:func:`offline`, appending the URL of each aborted request to ``blocked``."""
    url = route.request.url
    if url.startswith(("file://", "data:", "blob:")):
        route.continue_()
    else:
        blocked.append(url)
        route.abort()


# --- what is read on a page -----------------------------------------------------------------------------

WAIT_FOR_MATH = """async () => {
  if (!window.MathJax || !MathJax.startup || !MathJax.startup.promise) { return false; }
  await MathJax.startup.promise;
  if (MathJax.typesetPromise) { await MathJax.typesetPromise(); }
  return true;
}"""

LOAD_IMAGES = """async () => {
  const images = Array.from(document.images);
  images.forEach(i => { i.loading = "eager"; });
  await Promise.all(images.map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })));
  return images.map(i => ({src: i.getAttribute("src"), complete: i.complete, width: i.naturalWidth,
                           alt: (i.getAttribute("alt") || "").trim(), logo: i.closest(".navbar-brand, .sidebar-brand, .logo") !== null}));
}"""

MATH_STATE = """() => Array.from(document.querySelectorAll("span.math, div.math")).map(e => ({
  text: e.textContent.slice(0, 60),
  typeset: e.querySelector("mjx-container") !== null,
  error: e.querySelector("mjx-merror") !== null,
}))"""

FAILED_FONTS = """() => Array.from(document.fonts).filter(f => f.status === 'error').map(f => f.family)"""

MATHJAX_SCRIPTS = """() => Array.from(document.scripts).map(s => s.src).filter(s => /mathjax/i.test(s))"""

LINKS = """els => els.map(e => [e.getAttribute('href'), e.href])"""

#: Tables visible on the page that run past the text column with no scrolling box around them.
CLIPPED_TABLES = """() => {
  const column = document.querySelector(".bd-article-container, main, body");
  const limit = column.getBoundingClientRect().right + 1;
  const clipped = [];
  for (const table of document.querySelectorAll("article table, main table")) {
    if (!table.checkVisibility()) { continue; }
    const right = table.getBoundingClientRect().right;
    let scroller = null;
    for (let el = table.parentElement; el && el !== column; el = el.parentElement) {
      const style = getComputedStyle(el);
      if (["auto", "scroll"].includes(style.overflowX)) { scroller = el; break; }
      if (["hidden", "clip"].includes(style.overflowX) && right > el.getBoundingClientRect().right + 1) {
        clipped.push((table.caption ? table.caption.textContent : table.textContent).trim().slice(0, 60)); break;
      }
    }
    if (!scroller && right > limit) {
      clipped.push((table.caption ? table.caption.textContent : table.textContent).trim().slice(0, 60));
    }
  }
  return clipped;
}"""

#: Code cells whose source is shown when the page opens (the book folds every one).
UNFOLDED_CODE = """() => Array.from(document.querySelectorAll("div.cell div.cell_input"))
  .filter(e => e.checkVisibility()).map(e => e.textContent.trim().slice(0, 60))"""

CODE_CELLS = """() => document.querySelectorAll("div.cell div.cell_input").length"""

#: What a reader sees in results: text of the outputs and of every table, visible parts only.
RESULT_TEXT = """() => Array.from(document.querySelectorAll("div.cell_output, article table"))
  .filter(e => e.checkVisibility()).map(e => e.innerText).join("\\n")"""

#: For up to three emojis shown in tables: how many coloured pixels each draws in the page's own font.
EMOJI_PIXELS = """async () => {
  await document.fonts.ready;
  const found = [];
  for (const cell of document.querySelectorAll("article td, article th")) {
    if (!cell.checkVisibility()) { continue; }
    const match = cell.textContent.match(/\\p{Emoji_Presentation}/u);
    if (match && !found.some(f => f.emoji === match[0])) { found.push({emoji: match[0], cell}); }
    if (found.length >= 3) { break; }
  }
  const results = [];
  for (const {emoji, cell} of found) {
    const family = getComputedStyle(cell).fontFamily;
    await document.fonts.load(`40px ${family}`, emoji);
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 64;
    const ctx = canvas.getContext("2d");
    ctx.font = `40px ${family}`;
    ctx.textBaseline = "top";
    ctx.fillStyle = "#000";
    ctx.fillText(emoji, 8, 8);
    const data = ctx.getImageData(0, 0, 64, 64).data;
    let coloured = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
      if (a > 64 && Math.max(r, g, b) - Math.min(r, g, b) > 40) { coloured += 1; }
    }
    results.push({emoji, coloured, width: ctx.measureText(emoji).width});
  }
  return results;
}"""

#: The layout of a page, everything tests/test_book_layout.py checks, in one pass.
MEASURE = """() => {
  const out = {hidden: [], rows: [], overflow: 0, enote: [], pzero: [], cut: [], figures: [], sections: [],
               text: ""};
  const article = document.querySelector("article") || document.body;
  for (const table of article.querySelectorAll("table")) {
    if (!table.checkVisibility()) { continue; }
    const label = (table.caption ? table.caption.textContent : table.textContent).trim().slice(0, 70);
    let box = table.parentElement;
    while (box && box !== article && !["auto", "scroll"].includes(getComputedStyle(box).overflowX)) { box = box.parentElement; }
    if (box && box !== article && box.scrollWidth > box.clientWidth + 2) {
      out.hidden.push({label, wide: box.closest(".compendium-wide") !== null || table.closest(".compendium-wide") !== null});
    }
    const headers = Array.from(table.querySelectorAll("thead tr:last-child th")).map(th => th.textContent.trim());
    for (const row of table.rows) {
      const height = row.getBoundingClientRect().height;
      // a claims-table row on a phone is a card (assets/compendium.css), meant to be read down, not a strip
      if (height > 0 && getComputedStyle(row).display !== "block") { out.rows.push({height: Math.round(height), text: row.textContent.trim().replace(/\\s+/g, " ").slice(0, 70), label}); }
      Array.from(row.cells).forEach((cell, k) => {
        const text = cell.textContent.trim();
        if (cell.tagName === "TD" && /(^|[^\\w.])\\d+(\\.\\d+)?[eE][-+]?\\d+(?![\\w.])/.test(text)) { out.enote.push({text: text.slice(0, 40), label}); }
        const header = headers[k] || "";
        if (cell.tagName === "TD" && /^(p|p value|p[ (].*|.* p)$/i.test(header) && /^0(\\.0+)?$/.test(text)) {
          out.pzero.push({text, header, label});
        }
      });
    }
  }
  out.overflow = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  for (const line of article.querySelectorAll(".compendium-provenance")) {
    const t = line.textContent;
    const open = (t.match(/\\(/g) || []).length, close = (t.match(/\\)/g) || []).length;
    if (open !== close || /[(·]\\s*$/.test(t.trim())) { out.cut.push(t.trim().slice(0, 90)); }
  }
  for (const marker of article.querySelectorAll(".compendium-figure-text")) {
    const cell = marker.closest(".cell") || marker.parentElement;
    let img = null;
    for (let el = cell; el && !img; el = el.previousElementSibling) { img = el.querySelector ? el.querySelector("img") : null; }
    if (!img || !img.naturalWidth) { continue; }
    const scale = img.getBoundingClientRect().width / img.naturalWidth;
    const natural = parseFloat(marker.dataset.minPx);
    out.figures.push({src: img.getAttribute("src"), natural, shown: natural * scale,
                      enlarge: img.closest("a[href]") !== null && img.closest("a[href]").getAttribute("href") === img.getAttribute("src")});
  }
  for (const section of article.querySelectorAll("section")) {
    const body = Array.from(section.children).filter(e => !/^H[1-6]$/.test(e.tagName) && e.tagName !== "SECTION");
    const words = body.map(e => e.innerText || "").join(" ").trim();
    if (!words && !section.querySelector("section")) {
      const heading = section.querySelector("h1, h2, h3, h4");
      out.sections.push(heading ? heading.textContent.replace("#", "").trim() : "(untitled)");
    }
  }
  const verdict = document.querySelector(".verdict-box");
  out.verdict_top = verdict ? verdict.getBoundingClientRect().top + window.scrollY : null;
  out.verdict_bottom = verdict ? verdict.getBoundingClientRect().bottom + window.scrollY : null;
  // The words a reader sees in the box: a closed dropdown's content is not rendered, so innerText leaves it out.
  out.verdict_words = verdict ? verdict.innerText.split(/\\s+/).filter(w => /[\\p{L}\\p{N}]/u.test(w)).length : null;
  out.claims_words = Array.from(article.querySelectorAll("table.claims-table"))
    .map(t => t.innerText.split(/\\s+/).filter(w => w).length).reduce((a, b) => a + b, 0);
  out.claims = Array.from(article.querySelectorAll("table.claims-table tr.claims-row")).map(row => {
    const badge = row.cells[1].querySelector(".sd-badge");
    return {top: row.getBoundingClientRect().top + window.scrollY, claim: row.cells[0].innerText.trim(),
            verdict: badge ? badge.textContent.trim() : row.cells[1].innerText.trim(),
            in_box: row.closest(".verdict-box") !== null};
  });
  out.text = article.innerText;
  return out;
}"""


#: Resolves once the fonts are ready and two frames have been drawn since: the book's own script
#: (assets/compendium.js) marks wide tables and figures in its load handlers, which have run by the time
#: ``page.goto(wait_until="load")`` returns; the frames are those laid out with its classes.
SETTLE = """async () => {
  await document.fonts.ready;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""


def settle_and_measure(page) -> dict:
    """:data:`MEASURE` of a loaded page, once its fonts are ready and the book's own script has run."""
    page.evaluate(SETTLE)
    return page.evaluate(MEASURE)


def measure_url(browser, url: str, width: int, height: int) -> dict:
    """:func:`settle_and_measure` of ``url`` opened offline at ``width`` x ``height`` px (in that width's tab)."""
    return _in_tab(browser, (width, height), lambda current: settle_and_measure(current.open(url)))


def read_at_laptop(browser, name: str) -> dict:
    """Everything the checks of a page at 1280 px read, from one offline visit (in the laptop's tab).

    Each check reads the page in the state it would on a visit of its own, which fixes the order of the steps
    (see the comments).
    """
    return _in_tab(browser, LAPTOP, lambda current: _read_at_laptop(current, url(name)))


def _read_at_laptop(visit: Tab, address: str) -> dict:
    page = visit.open(address)
    record = {"blocked_at_load": list(visit.blocked)}
    # The reading measures, as soon as the page has loaded (before the waits below).
    record["clipped"] = page.evaluate(CLIPPED_TABLES)
    record["unfolded"] = page.evaluate(UNFOLDED_CODE)
    record["code_cells"] = page.evaluate(CODE_CELLS)
    record["result_text"] = page.evaluate(RESULT_TEXT)
    # The layout once the fonts are ready and the book's script has marked wide tables and figures, and before
    # any lazy image is made eager: an image loaded late could change the heights and widths it measures.
    record["measure"] = settle_and_measure(page)
    # The emojis after the layout: drawing them loads their font.
    record["emoji"] = page.evaluate(EMOJI_PIXELS)
    record["reading_errors"] = list(visit.errors)  # what the reading checks saw logged, up to here
    # Every image made eager and awaited, then the math (awaiting MathJax), then the links.
    record["images"] = page.evaluate(LOAD_IMAGES)
    record["math"] = page.evaluate(MATH_STATE)
    if record["math"]:
        record["math_started"] = page.evaluate(WAIT_FOR_MATH)
        record["math_after"] = page.evaluate(MATH_STATE)
        record["failed_fonts"] = page.evaluate(FAILED_FONTS)
        record["mathjax_scripts"] = page.evaluate(MATHJAX_SCRIPTS)
    record["links"] = page.eval_on_selector_all("a[href]", LINKS)
    page.wait_for_timeout(200)  # let late scripts report
    record["blocked"] = list(visit.blocked)
    record["errors"] = list(visit.errors)
    return record


def read_at_phone(browser, name: str) -> dict:
    """:data:`MEASURE` of a page at 390 px."""
    return {"measure": measure_url(browser, url(name), *PHONE)}


class PageRecords:
    """What :func:`read_at_laptop` and :func:`read_at_phone` read, per page, each visit made at most once.

    A visit that raised is not repeated: each test that needs its record gets the same error.
    """

    def __init__(self, session: ChromiumSession):
        self.session = session
        self._records: dict[tuple[str, str], dict | BaseException] = {}

    def _get(self, name: str, width: str, read) -> dict:
        key = (name, width)
        if key not in self._records:
            browser = self.session.browser()
            try:
                self._records[key] = read(browser, name)
            except Exception as error:
                self._records[key] = error
        found = self._records[key]
        if isinstance(found, BaseException):
            raise RuntimeError(f"{name} could not be read at the {width}'s width: {found}") from found
        return found

    def laptop(self, name: str) -> dict:
        """The page's record at 1280 px (see :func:`read_at_laptop`)."""
        return self._get(name, "laptop", read_at_laptop)

    def phone(self, name: str) -> dict:
        """The page's record at 390 px (see :func:`read_at_phone`)."""
        return self._get(name, "phone", read_at_phone)


#: The test process's records of the book's pages.
RECORDS = PageRecords(CHROMIUM_SESSION)
