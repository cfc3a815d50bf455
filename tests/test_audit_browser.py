"""The audit's HTML report in a real browser, with the network cut off (issue 25).

``compendium audit`` writes the report of a small simulated complete study and of a small simulated incomplete one, each
twice: written in the command's process (the default) and by the report's notebook in a kernel (``--notebook``; the
four at once); headless Chromium (``/usr/bin/chromium`` driven by Playwright's Python package: the test process's one
Chromium, shared with tests/test_browser.py through tests/browser_pages.py) opens each from ``file://``. Every request
that is not ``file://`` or ``data:`` is aborted and counted, as in the book's browser test. Each page must: make no
outside request, show no code (no source line of the notebook is in its text), show no raw MyST (``:::``), carry one
provenance line, and follow its design (the complete one no "incomplete" section and no REML test; the incomplete one
no "fully crossed" claim, the REML system test as its own section, and an interval for G).

Both studies are hostile (issue 48): every name field holds markup -- the systems, raters and items are named with
``<script>`` elements, event-handler attributes, a spreadsheet formula and a malformed mathtext (``$\\frac{$``); the
complete study's system column is ``my system`` (not a Python identifier) with ``--lengths`` given, and its rating
column is a ``<script>`` element; the incomplete study's system column is an event-handler ``<img>``. Each page must
open no dialog, hold no script element and no ``on*`` attribute, and show every system and rater name as text;
no CSV cell the audit writes may start with a formula character.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import jupytext
import numpy as np
import pandas as pd
import pytest

from compendium.simulate.crossed import simulate_crossed, simulate_incomplete

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path(os.environ.get("COMPENDIUM_CHROMIUM", "/usr/bin/chromium"))
#: The page written in the command's process (the default) and by the report's notebook in a kernel (--notebook).
ROUTES = ("here", "notebook")
#: Replicates of G's parametric bootstrap in the incomplete report: its interval must be shown, not be precise.
N_BOOT_G = 20


#: Hostile names: script, event handlers, a spreadsheet formula, a malformed mathtext, Markdown and MyST syntax.
SYSTEM_NAMES = ("<script>alert('system')</script>", "<img src=x onerror=alert('system')>", '=HYPERLINK("http://x","y")',
                "$\\frac{$")
RATER_NAMES = ("<svg onload=alert('rater')>", "-2+3 [x](javascript:alert(1))", "@SUM(1) **bold**", "\t:::{admonition} "
                                                                                                   "x",
               "+rater")
#: Per design: the columns, each a name the report shows (the system column of the complete design is no identifier).
COLUMNS = {
    "complete": {"system": "my system", "rating": "<script>alert('rating')</script>"},
    "incomplete": {"system": "<img src=y onerror=alert('column')>", "rating": "=1+1"},
}
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def hostile(data: pd.DataFrame, design: str) -> pd.DataFrame:
    """``data`` (sentence_id, system, annotator, rating) with a hostile name in every name field."""
    systems = dict(zip(sorted(data["system"].unique()), SYSTEM_NAMES, strict=False))
    raters = dict(zip(sorted(data["annotator"].unique()), RATER_NAMES, strict=False))
    items = {v: f"<b onmouseover=alert('item')>{k}</b>" for k, v in enumerate(sorted(data["sentence_id"].unique()))}
    data = data.assign(system=data["system"].map(systems), annotator=data["annotator"].map(raters),
                       sentence_id=data["sentence_id"].map(items))
    return data.rename(columns={"system": COLUMNS[design]["system"], "rating": COLUMNS[design]["rating"]})


def _start_report(tmp_path: Path, name: str, route: str, data, lengths=None) -> tuple[subprocess.Popen, Path, Path]:
    """Start ``compendium audit`` on ``data``, its page written here or by the notebook in a kernel (``route``):
    the process, the report it writes, and the log of its stderr."""
    path = tmp_path / f"{name}.csv"
    data.to_csv(path, index=False)
    options = ["--system", COLUMNS[name]["system"], "--rating", COLUMNS[name]["rating"]]
    options += ["--notebook"] if route == "notebook" else []
    if lengths is not None:
        lengths.to_csv(tmp_path / f"{name}_lengths.csv", index=False)
        options += ["--lengths", str(tmp_path / f"{name}_lengths.csv")]
    log_path = tmp_path / f"{name}-{route}.stderr"
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "compendium.cli",
                "audit",
                str(path),
                *options,
                "--n-boot",
                "50",
                "--g-interval",
                "bootstrap",
                "--n-boot-g",
                str(N_BOOT_G),
                "--out",
                str(tmp_path / f"{name}-{route}"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        )
    return process, tmp_path / f"{name}-{route}" / "audit.html", log_path


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    base = tmp_path_factory.mktemp("reports")
    complete = hostile(simulate_crossed(16, 3, 3, seed=2, scale=(1, 5)), "complete")
    outputs = complete[["sentence_id", "my system"]].drop_duplicates().reset_index(drop=True)
    lengths = outputs.assign(length=np.random.default_rng(2).integers(1, 6, len(outputs)))
    incomplete = hostile(simulate_incomplete(18, 3, 5, raters_per_item=3, seed=2, scale=(1, 5)), "incomplete")
    started = {}  # the four reports are written at once
    for route in ROUTES:
        started["complete", route] = _start_report(base, "complete", route, complete, lengths)
        started["incomplete", route] = _start_report(base, "incomplete", route, incomplete)
    deadline = time.monotonic() + 900
    try:
        for process, _, log_path in started.values():
            process.wait(timeout=max(deadline - time.monotonic(), 1))
            assert process.returncode == 0, log_path.read_text(encoding="utf-8")
    finally:
        for process, _, _ in started.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    return {key: report for key, (_, report, _) in started.items()}


def _open(browser, path: Path) -> dict:
    outside, errors, dialogs = [], [], []
    context = browser.new_context()
    try:
        page = context.new_page()

        def route(request_route):
            url = request_route.request.url
            if url.startswith(("file://", "data:", "blob:")):
                request_route.continue_()
            else:
                outside.append(url)
                request_route.abort()

        page.route("**/*", route)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(path.as_uri(), wait_until="load")
        page.wait_for_timeout(300)
        text = page.inner_text("body")
        # the text outside the charts (whose axis labels shorten a long name to its first characters and "…")
        prose = page.evaluate("""() => { const body = document.body.cloneNode(true);
            body.querySelectorAll('svg').forEach(e => e.remove()); return body.textContent; }""")
        headings = page.eval_on_selector_all("h1, h2, h3", "els => els.map(e => e.textContent.trim())")
        admonitions = page.eval_on_selector_all(".admonition-title", "els => els.map(e => e.textContent)")
        code_blocks = page.eval_on_selector_all(".input, pre code.language-python", "els => els.length")
        images = page.eval_on_selector_all("img", "els => els.map(e => e.complete && e.naturalWidth > 0)")
        charts = page.eval_on_selector_all("svg", "els => els.map(e => e.getBoundingClientRect().width > 100)")
        # what would make the page active: script elements, event-handler attributes, script addresses
        active = page.eval_on_selector_all("*", """els => els.flatMap(e => [
            ...(e.tagName === 'SCRIPT' ? ['<script>'] : []),
            ...Array.from(e.attributes).filter(a => a.name.startsWith('on') || /^\\s*javascript:/i.test(a.value))
                 .map(a => `<${e.tagName.toLowerCase()} ${a.name}>`)])""")
        for element in page.query_selector_all("img"):  # an event handler that only a hover or a click would run
            element.hover()
    finally:
        context.close()
    return {"outside": outside, "errors": errors, "text": text, "headings": headings, "admonitions": admonitions,
            "prose": prose, "code_blocks": code_blocks, "images": images, "charts": charts, "dialogs": dialogs, "active": active}


def _code_lines() -> list[str]:
    notebook = jupytext.read(ROOT / "notebooks" / "08_audit.py")
    lines = []
    for cell in notebook.cells:
        if cell.cell_type == "code":
            lines += [
                l.strip() for l in cell.source.splitlines() if len(l.strip()) > 25 and not l.strip().startswith("#")
            ]
    return lines


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("design", ["complete", "incomplete"])
def test_report_shows_no_code_no_raw_myst_and_requests_nothing(pages, browser, design, route):
    seen = _open(browser, pages[design, route])
    assert seen["outside"] == [], seen["outside"]
    assert seen["errors"] == []
    prose = seen["prose"].replace(RATER_NAMES[3].strip(), "")  # a rater's name is MyST, shown as text
    assert ":::" not in prose and ":class:" not in prose
    assert seen["code_blocks"] == 0
    leaked = [line for line in _code_lines() if line in seen["text"]]
    assert leaked == []
    assert "Data" in seen["admonitions"]
    assert seen["text"].count("Provenance:") == 1
    figures = seen["images"] + seen["charts"]  # the kernel's PNGs, or the SVG charts drawn here
    assert all(figures) and len(figures) >= 3
    text, headings = seen["text"], seen["headings"]
    assert "The REML system test" in headings
    summary = json.loads((pages[design, route].parent / "audit.json").read_text())
    if design == "complete":
        assert "An incomplete design" not in text
        assert "The REML system test is omitted: the design is complete" in text
        assert "Table 1: three-way crossed ANOVA" in text
    else:
        assert "fully crossed study" not in text
        assert "The design is incomplete" in text
        assert "Table 1 (the classical F tests) is omitted: the design is incomplete" in text
        assert "The system effect by REML" in text
        low, high = summary["G_ci"]
        assert f"[{low:.3f}, {high:.3f}]" in text
        # the report's notebook took --n-boot-g as its parameter
        assert summary["settings"]["n_boot_g"] == N_BOOT_G and summary["interval_n_boot_G"] <= N_BOOT_G
        assert summary["settings"]["g_interval"] == "bootstrap"  # the report's notebook took the parameter too


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("design", ["complete", "incomplete"])
def test_hostile_names_are_shown_as_text_and_run_nothing(pages, browser, design, route):
    """Issue 48: no dialog, no script, no event handler; every system and rater name is on the page as text."""
    seen = _open(browser, pages[design, route])
    assert seen["dialogs"] == [] and seen["errors"] == []
    assert seen["active"] == []
    text = " ".join(seen["text"].split())
    summary = json.loads((pages[design, route].parent / "audit.json").read_text())
    shown = lambda name: " ".join(name.split()) in text  # noqa: E731  (the browser folds white space)
    assert all(shown(name) for name in SYSTEM_NAMES[:3]), [n for n in SYSTEM_NAMES if not shown(n)]
    raters = [panel["panel"].removeprefix("without ") for panel in summary["loao"]["panels"] if panel["panel"] != "all"]
    assert raters and all(shown(name) for name in raters), [n for n in raters if not shown(n)]
    assert shown(f"winner ({summary['loao']['winner_all']})") or shown(summary["loao"]["winner_all"])
    assert shown(COLUMNS[design]["rating"])  # in the provenance line, among the parameters
    if design == "incomplete":  # the first missing cells are listed by item, system and rater
        assert "<b onmouseover=alert('item')>" in text


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("design", ["complete", "incomplete"])
def test_no_csv_cell_the_audit_writes_starts_a_formula(pages, design, route):
    """Issue 48: the checklist and every table of the report (the CSV records that the book writes to
    ``_build/tables``), read back as CSV, hold the hostile names but no text cell a spreadsheet would run."""
    import csv
    import io

    from compendium.build.pipeline import collect_tables

    folder = pages[design, route].parent
    assert [p.name for p in folder.glob("*.csv")] == ["checklist.csv"]
    texts = [(folder / "checklist.csv").read_text(encoding="utf-8")]
    if route == "notebook":  # the notebook's tables, as the book would write them; the page written here has none
        texts += [record["csv"] for record in collect_tables([folder / "08_audit.ipynb"])]
        assert len(texts) > 5
    cells = [cell for text in texts for row in csv.reader(io.StringIO(text, newline="")) for cell in row]
    guarded = [cell for cell in cells if cell.startswith("'") and cell[1:].startswith(FORMULA_START)]
    if route == "notebook":
        assert SYSTEM_NAMES[2] in {cell[1:] for cell in guarded}, "the formula-named system reached no table unguarded"
    def number(cell: str) -> bool:
        try:
            float(cell)
        except ValueError:
            return False
        return True

    running = [cell for cell in cells if cell.startswith(FORMULA_START) and not number(cell)]
    assert running == []
    if route == "notebook":  # negative numbers stay numbers (the checklist alone has none)
        assert any(cell.startswith("-") and number(cell) for cell in cells)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("design", ["complete", "incomplete"])
def test_the_wide_table_cue_shows_only_where_a_table_scrolls_and_the_page_never_does(pages, browser, design, route):
    """The page has no script to see whether a table overflows: its cue ("Wide table: it scrolls sideways") shows on
    a phone's width only, under the tables the renderer judged wide, and nowhere at laptop width; the page itself
    never scrolls sideways (a long provenance line wraps)."""
    seen = {}
    for width in (1280, 390):
        context = browser.new_context(viewport={"width": width, "height": 900})
        try:
            page = context.new_page()
            page.goto(pages[design, route].as_uri(), wait_until="load")
            seen[width] = page.evaluate("""() => ({
                cues: [...document.querySelectorAll('.compendium-wide-cue')].filter(e => getComputedStyle(e).display !== 'none').length,
                wide: document.querySelectorAll('.compendium-wide').length,
                overflows: document.documentElement.scrollWidth > window.innerWidth + 1})""")
        finally:
            context.close()
    assert seen[1280]["wide"] > 0 and seen[1280]["cues"] == 0
    assert seen[390]["cues"] == seen[390]["wide"]
    assert not seen[1280]["overflows"] and not seen[390]["overflows"]
