"""Issue 71, part 1: the rated audit's ``audit.html`` written in the command's own process, with no kernel.

``compendium audit FILE`` now renders its page from the one study it read (:mod:`compendium.audit.page`), and
``--notebook`` executes the report's notebook in a kernel as before. On the real WMT23 en-de MQM file the two
routes must write the same ``audit.json`` (floats to their last bits) and ``checklist.csv``, and pages with the
same sections and as many figures; the page's prose renderer is checked against markdown-it (CommonMark) on the
notebook's own prose. The browser checks (no code, no outside request, hostile names as text) are in
``tests/test_audit_browser.py``, for both routes; the light install's in ``tests/test_wheel.py``; the time of a
10^3-judgement audit with its page is a row of ``make bench``.
"""

from __future__ import annotations

import doctest
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from importlib.util import find_spec
from pathlib import Path

import pytest

from compendium.audit import page, svg, wording
from compendium.data import numbers
from compendium.data.escape import markdown_text

ROOT = Path(__file__).resolve().parents[1]
MQM = ROOT / "data" / "real" / "wmt23_mqm_ende.csv"


def _audit(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compendium.cli", "audit", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


class _Outline(HTMLParser):
    """The headings (h2, h3) of a page, and its figures: the kernel route's <img> and this route's <svg>."""

    def __init__(self):
        super().__init__()
        self.headings, self.figures, self._in = [], 0, None

    def handle_starttag(self, tag, attrs):
        if tag in ("h2", "h3"):
            self._in, self.headings = tag, self.headings + [""]
        if tag in ("img", "svg"):
            self.figures += 1

    def handle_endtag(self, tag):
        if tag == self._in:
            self._in = None

    def handle_data(self, data):
        if self._in:
            self.headings[-1] += data


def _outline(path: Path) -> _Outline:
    outline = _Outline()
    outline.feed(path.read_text(encoding="utf-8"))
    return outline


@pytest.fixture(scope="module")
def ende(tmp_path_factory):
    """WMT23 en-de MQM audited both ways: here (the default) and in a kernel (``--notebook``)."""
    if find_spec("papermill") is None:
        pytest.skip("--notebook needs the book's stack")
    base = tmp_path_factory.mktemp("ende")
    for route, extra in (("here", []), ("kernel", ["--notebook"])):
        done = _audit(str(MQM), "--lower-is-better", "--n-boot", "300", "--out", route, *extra, cwd=base)
        assert done.returncode == 0, done.stderr
    return base


def _same(ours, theirs, where: str = "audit.json") -> None:
    """Equal keys, lengths, strings, integers and booleans; floats equal to 1e-12 relative. The kernel runs with the
    book's thread settings (``runner.KERNEL_ENVIRONMENT``), so BLAS may sum in another order: 5.050814886566148
    against 5.0508148865661475 in one bootstrap interval end, the last bit."""
    if isinstance(ours, dict):
        assert isinstance(theirs, dict) and list(ours) == list(theirs), where
        for key in ours:
            _same(ours[key], theirs[key], f"{where}.{key}")
    elif isinstance(ours, list):
        assert isinstance(theirs, list) and len(ours) == len(theirs), where
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{where}[{k}]")
    elif isinstance(ours, float) and isinstance(theirs, float):
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-15), where
    else:
        assert type(ours) is type(theirs) and ours == theirs, where


def test_the_page_written_here_comes_with_the_kernel_runs_json_and_checklist_to_the_last_bits(ende):
    here, kernel = ende / "here", ende / "kernel"
    assert sorted(p.name for p in here.iterdir()) == ["audit.html", "audit.json", "checklist.csv"]
    assert sorted(p.name for p in kernel.iterdir()) == ["08_audit.ipynb", "audit.html", "audit.json", "checklist.csv"]
    summary = json.loads((here / "audit.json").read_text(encoding="utf-8"))
    _same(summary, json.loads((kernel / "audit.json").read_text(encoding="utf-8")))
    assert (here / "checklist.csv").read_bytes() == (kernel / "checklist.csv").read_bytes()
    assert summary["n_items"] == 104 and summary["design_complete"] is False  # the real incomplete design


def test_the_page_has_the_notebooks_sections_figures_and_numbers(ende):
    here, kernel = _outline(ende / "here" / "audit.html"), _outline(ende / "kernel" / "audit.html")
    assert here.headings == kernel.headings and len(here.headings) == 11
    assert here.figures == kernel.figures == 3  # rater against the rest, the decision study, the ranks (no lengths)
    text = (ende / "here" / "audit.html").read_text(encoding="utf-8")
    summary = json.loads((ende / "here" / "audit.json").read_text(encoding="utf-8"))
    reml = summary["system_test_reml"]
    for shown in (f"{summary['G']:.3f} [{summary['G_ci'][0]:.3f}, {summary['G_ci'][1]:.3f}]",  # the decision study
                  f"<td>{reml['F']:.2f}</td><td>{reml['df1']:.0f}</td><td>{reml['df2']:.1f}</td>",
                  f"changes the winner ({summary['loao']['winner_all']}) in 0 of 10 panels",
                  "Table 1 (the classical F tests) is omitted: the design is incomplete",
                  "SHA-256 <code>" + __import__("hashlib").sha256(MQM.read_bytes()).hexdigest()[:12]):
        assert shown in text, shown
    for entry in summary["checklist"]:  # every reason of the checklist, escaped as the page escapes it
        assert __import__("html").escape(entry["reason"]) in text


def test_the_prose_renderer_agrees_with_markdown_it_on_every_paragraph_the_page_writes():
    """The outside reference: markdown-it-py (CommonMark) on the notebook's prose and on the wording's sentences,
    names with Markdown and HTML in them included."""
    markdown_it = pytest.importorskip("markdown_it")
    reference = markdown_it.MarkdownIt("commonmark")

    def same(text: str) -> None:
        ours = " ".join(page.markdown(text).split())  # a line break inside a paragraph is a space to both
        theirs = " ".join(reference.render(text).replace("&quot;", '"').split())
        assert ours == theirs, text

    sections = page.prose()
    assert [heading for _, heading, _ in sections][:2] == ["The design", "Agreement (paper section 4.1)"]
    for _, heading, body in sections:
        same(heading)
        same(body)
    hostile = "<img src=x onerror=alert(1)> *a* `b` [c](javascript:d) \\e"
    summary = {"reasons": {"icc": f"rater {hostile} is alone"}, "design_complete": False, "raters_per_item": 2.5,
               "missing_cells": 3, "n_cells": 12}
    for text in (wording.omitted_text(summary, "icc", hostile), wording.design_text(summary),
                 f"Leaving one rater out changes the winner ({markdown_text(hostile)}) in 1 of 3 panels.",
                 "**2** met, **1** not met."):
        same(text)


def test_the_command_imports_no_plotting_notebook_or_markdown_library(tmp_path):
    """The page needs the base install only: the command that wrote it loaded none of the book's stack."""
    from compendium.simulate.crossed import simulate_crossed

    simulate_crossed(12, 3, 3, seed=1, scale=(1, 5), item="item", rater="rater").to_csv(tmp_path / "r.csv",
                                                                                         index=False)
    code = ("import sys; from compendium import cli; code = cli.main(['audit', 'r.csv', '--n-boot', '50']); "
            "heavy = {'matplotlib', 'IPython', 'nbformat', 'papermill', 'markdown_it', 'seaborn', 'statsmodels'}; "
            "print(code, sorted(heavy & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 []"
    assert sorted(p.name for p in (tmp_path / "audit-report").iterdir()) == ["audit.html", "audit.json",
                                                                             "checklist.csv"]


@pytest.mark.parametrize("options, message", [
    (["--format", "json", "--notebook"], "--notebook executes the report's notebook"),
    (["--pairwise", "p.csv", "--notebook"], "--notebook applies to a ratings file"),
])
def test_notebook_is_refused_where_there_is_no_notebook_to_run(tmp_path, options, message):
    (tmp_path / "r.csv").write_text("item,system,rater,rating\n1,a,x,1\n", encoding="utf-8")
    ratings = [] if "--pairwise" in options else ["r.csv"]
    done = _audit(*ratings, *options, "--out", "out", cwd=tmp_path)
    assert done.returncode != 0 and message in done.stderr
    assert not (tmp_path / "out").exists()


def test_a_hostile_name_in_a_chart_is_text_and_a_table_cue_follows_the_widest_unbroken_cell():
    chart = svg.Chart("<b>t</b>", "alt \"q\"", x=["<script>x</script>", "b"], y=(0.0, 1.0))
    chart.line(["<script>x</script>", "b"], [0.2, 0.9], svg.BLUE, markers=True, label="<img src=x onerror=y>")
    drawn = svg.figure([chart], "caption <i>")
    assert "<script>" not in drawn and "<img" not in drawn and "<b>" not in drawn and "<i>" not in drawn
    assert "&lt;script&gt;x&lt;/script&gt;" in drawn and 'aria-label="alt &quot;q&quot;"' in drawn
    narrow = __import__("pandas").DataFrame({"reason": ["a long sentence that wraps at every space " * 5]})
    wide = narrow.assign(**{f"column_{k}": [123456.789] for k in range(6)})
    assert "compendium-wide" not in page.table(narrow, "n") and "compendium-wide" in page.table(wide, "w")


@pytest.mark.parametrize("module", [page, svg, numbers])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_the_python_entrys_example_runs():
    from compendium.audit import python_api

    result = doctest.testmod(python_api, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 4 and result.failed == 0
    assert re.search(r">>> result = audit\(", python_api.audit.__doc__)
