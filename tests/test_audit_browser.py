"""The audit's HTML report in a real browser, with the network cut off (issue 25).

``compendium audit`` writes the report of a small simulated complete study and of a small simulated incomplete one (the
two at once); headless Chromium (``/usr/bin/chromium`` driven by Playwright's Python package: the test process's one
Chromium, shared with tests/test_browser.py through tests/browser_pages.py) opens each from ``file://``. Every request
that is not ``file://`` or ``data:`` is aborted and counted, as in the book's browser test. Each page must: make no
outside request, show no code (no source line of the notebook is in its text), show no raw MyST (``:::``), carry one
provenance line, and follow its design (the complete one no "incomplete" section and no REML test; the incomplete one
no "fully crossed" claim, the REML system test as its own section, and an interval for G).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import jupytext
import pytest

from compendium.simulate.crossed import simulate_crossed, simulate_incomplete

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path(os.environ.get("COMPENDIUM_CHROMIUM", "/usr/bin/chromium"))
#: Replicates of G's parametric bootstrap in the incomplete report: its interval must be shown, not be precise.
N_BOOT_G = 20


def _start_report(tmp_path: Path, name: str, data) -> tuple[subprocess.Popen, Path, Path]:
    """Start ``compendium audit`` on ``data``: the process, the report it writes, and the log of its stderr."""
    path = tmp_path / f"{name}.csv"
    data.to_csv(path, index=False)
    log_path = tmp_path / f"{name}.stderr"
    with open(log_path, "w", encoding="utf-8") as log:
        process = subprocess.Popen([sys.executable, "-m", "compendium.cli", "audit", str(path), "--n-boot", "50",
                                    "--n-boot-g", str(N_BOOT_G), "--out", str(tmp_path / name)], stdout=subprocess.DEVNULL, stderr=log,
                                   env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    return process, tmp_path / name / "audit.html", log_path


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    base = tmp_path_factory.mktemp("reports")
    started = {  # the two reports are written at once
        "complete": _start_report(base, "complete", simulate_crossed(16, 3, 3, seed=2, scale=(1, 5))),
        "incomplete": _start_report(base, "incomplete",
                                    simulate_incomplete(18, 3, 5, raters_per_item=3, seed=2, scale=(1, 5))),
    }
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
    return {design: report for design, (_, report, _) in started.items()}


def _open(browser, path: Path) -> dict:
    outside, errors = [], []
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
        page.goto(path.as_uri(), wait_until="load")
        page.wait_for_timeout(300)
        text = page.inner_text("body")
        headings = page.eval_on_selector_all("h1, h2, h3", "els => els.map(e => e.textContent.trim())")
        admonitions = page.eval_on_selector_all(".admonition-title", "els => els.map(e => e.textContent)")
        code_blocks = page.eval_on_selector_all(".input, pre code.language-python", "els => els.length")
        images = page.eval_on_selector_all("img", "els => els.map(e => e.complete && e.naturalWidth > 0)")
    finally:
        context.close()
    return {"outside": outside, "errors": errors, "text": text, "headings": headings, "admonitions": admonitions,
            "code_blocks": code_blocks, "images": images}


def _code_lines() -> list[str]:
    notebook = jupytext.read(ROOT / "notebooks" / "08_audit.py")
    lines = []
    for cell in notebook.cells:
        if cell.cell_type == "code":
            lines += [l.strip() for l in cell.source.splitlines() if len(l.strip()) > 25 and not l.strip().startswith("#")]
    return lines


@pytest.mark.parametrize("design", ["complete", "incomplete"])
def test_report_shows_no_code_no_raw_myst_and_requests_nothing(pages, browser, design):
    seen = _open(browser, pages[design])
    assert seen["outside"] == [], seen["outside"]
    assert seen["errors"] == []
    assert ":::" not in seen["text"] and ":class:" not in seen["text"]
    assert seen["code_blocks"] == 0
    leaked = [line for line in _code_lines() if line in seen["text"]]
    assert leaked == []
    assert "Data" in seen["admonitions"]
    assert seen["text"].count("Provenance:") == 1
    assert all(seen["images"]) and seen["images"]
    text, headings = seen["text"], seen["headings"]
    assert "The REML system test" in headings
    summary = json.loads((pages[design].parent / "audit.json").read_text())
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
