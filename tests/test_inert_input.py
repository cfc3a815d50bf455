"""Issue 48: a name from a rating file is data, never code; an output never overwrites an input.

* :mod:`compendium.data.escape` against an outside reference: markdown-it-py (the CommonMark parser MyST builds on),
  with raw HTML *on* as in the book, renders every escaped hostile name as exactly its characters; a CSV cell is
  guarded as OWASP prescribes, numbers stay numbers.
* The book's tables: their CSV (``_build/tables``) guards formula cells in values, labels and names; their HTML
  escapes index and column names; a table caption is text.
* The report's last line of defence (:func:`compendium.audit.report.check_inert`) refuses an active page.
* Figures draw a mathtext-looking name as plain text.
* ``compendium audit`` refuses an ``--out`` that is a file, a ``--json`` that is a directory and an output that is an
  input (by name, symbolic link or hard link), with exit code 2 and nothing written; a write that fails part-way
  leaves the previous report whole and no staging folder behind.

The same names in a real report, opened in Chromium: tests/test_audit_browser.py.
"""

from __future__ import annotations

import csv
import errno
import html
import io
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from compendium import cli
from compendium.audit import core as audit
from compendium.audit import outputs
from compendium.audit.report import UnsafeReport, check_inert
from compendium.book import report
from compendium.data.escape import FORMULA_START, csv_cell, markdown_code, markdown_text
from compendium.simulate.crossed import simulate_crossed

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "[click](javascript:alert(3))",
    "**bold** _it_ `code` ~~x~~",
    ":::{admonition} Verdict\n:class: tip\nholds\n:::",
    "{ref}`label`",
    "$\\frac{$",
    "a\\b & <c> \"d\" 'e'",
    "# heading",
    "1. list",
    "| a | b |",
    "&lt;escaped&gt; &amp;",
    "<!-- comment -->",
    "trailing backslash\\",
]


def _rendered_text(markdown: str) -> str:
    """What a reader sees of ``markdown`` rendered by markdown-it-py with raw HTML on (the book's MyST setting)."""
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark", {"html": True}).renderInline(markdown)
    assert "<" not in rendered.replace("<code>", "").replace("</code>", ""), rendered
    return html.unescape(rendered.replace("<code>", "").replace("</code>", ""))


def test_doctests():
    import doctest

    from compendium.data import escape

    for module in (escape, outputs):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0, module.__name__


@pytest.mark.parametrize("name", HOSTILE)
def test_markdown_text_renders_as_exactly_its_characters(name):
    assert _rendered_text(markdown_text(name)) == " ".join(name.splitlines())


@pytest.mark.parametrize("name", [*HOSTILE, "a`b", "``x``", " spaced "])
def test_markdown_code_renders_as_exactly_its_characters(name):
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark", {"html": True}).renderInline(markdown_code(name))
    assert rendered.startswith("<code>") and rendered.endswith("</code>")
    assert html.unescape(rendered[len("<code>"):-len("</code>")]) == " ".join(name.splitlines())


@pytest.mark.parametrize("cell, expected", [
    ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
    ("+1+2", "'+1+2"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("-0.5", "-0.5"), ("+3", "+3"), ("-1e-3", "-1e-3"), ("plain", "plain"), ("a=b", "a=b"), ("", ""),
    (-3, -3), (-0.25, -0.25), (None, None),
])
def test_csv_cell_follows_owasp(cell, expected):
    assert csv_cell(cell) == expected


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text, newline="")) for cell in row]


def test_table_csv_guards_values_labels_and_names_and_keeps_numbers():
    frame = pd.DataFrame(
        {"=value": ["=1+1", "plain", "@x"], "score": [-0.5, 1.25, -3.0], "count": [-1, 2, 3]},
        index=pd.Index(["-system", "+b", "c"], name="=index"),
    )
    cells = _cells(report.table_csv(frame))
    assert [c for c in cells if c.startswith(FORMULA_START) and not _is_number(c)] == []
    assert {"'=1+1", "'@x", "'-system", "'+b", "'=index", "'=value"} <= set(cells)
    assert {"-0.5", "-3", "-1"} <= set(cells)
    wide = pd.DataFrame([[1.0, -2.0]], index=pd.MultiIndex.from_tuples([("=a", "-b")], names=["+l1", "l2"]),
                        columns=pd.Index(["@c", "d"], name="-cols"))
    cells = _cells(report.table_csv(wide))
    assert [c for c in cells if c.startswith(FORMULA_START) and not _is_number(c)] == []
    assert {"'=a", "'-b", "'+l1", "'@c"} <= set(cells)
    safe = pd.DataFrame({"system": ["a", "b"], "x": [-1.0, 2.0]})
    assert report.table_csv(safe) == safe.to_csv(index=False, lineterminator="\n", float_format=report.CSV_FLOAT_FORMAT)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_a_table_escapes_its_names_and_caption(monkeypatch):
    import IPython.display

    frame = pd.DataFrame(
        {"<b>col</b>": [1.0]}, index=pd.Index(["<script>alert(1)</script>"], name="<img src=x onerror=y>")
    )
    frame.columns.name = "<svg onload=z>"
    shown = report.present(frame.style)
    for raw in ("<script>", "<img ", "<svg ", "<b>"):
        assert raw not in shown
    assert "&lt;img src=x onerror=y&gt;" in shown and "&lt;svg onload=z&gt;" in shown
    assert frame.index.name == "<img src=x onerror=y>"  # only the shown copy is escaped
    bundles = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False: bundles.append(obj))
    report.Outputs("test", parameters={"rating": "<script>alert('p')</script>"}, environment_link=False).table(
        frame, "t", caption="<script>alert('caption')</script>")
    page = bundles[0]["text/html"]
    assert "<script>" not in page and html.escape("<script>alert('caption')</script>") in page
    provenance = bundles[1].data
    assert "<script>" not in provenance and _rendered_text(provenance.split("parameters ", 1)[1].split(" · ")[0]) \
        == "rating=\"<script>alert('p')</script>\""


@pytest.mark.parametrize("page", [
    "<p>x</p><script>alert(1)</script>",
    '<p><img src="x" onerror="alert(1)"></p>',
    '<a href="javascript:alert(1)">x</a>',
    '<iframe src="https://example.com"></iframe>',
    '<a href=" JavaScript:alert(1)">x</a>',
])
def test_check_inert_refuses_an_active_page(page):
    with pytest.raises(UnsafeReport, match="not be inert"):
        check_inert(f"<!DOCTYPE html><html><body>{page}</body></html>")


def test_check_inert_keeps_an_inert_page():
    page = ('<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">'
            '<style>p{}</style></head><body><p>&lt;script&gt;</p><img alt="f" src="data:image/png;base64,AAAA">'
            '<a href="#x">x</a><a href="https://example.org">y</a></body></html>')
    assert check_inert(page) == page


def test_a_mathtext_name_is_drawn_as_text():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    report.setup_plots()
    fig, ax = plt.subplots()
    ax.bar(["$\\frac{$", "$x^2$"], [1, 2])
    fig.canvas.draw()  # mathtext would raise on the first name
    assert [t.get_text() for t in ax.get_xticklabels()] == ["$\\frac{$", "$x^2$"]
    plt.close(fig)


# ------------------------------------------------------------------ the audit's outputs
@pytest.fixture
def study(tmp_path):
    path = tmp_path / "ratings.csv"
    simulate_crossed(8, 3, 3, seed=1, scale=(1, 5)).to_csv(path, index=False)
    return path


def _run(*args) -> int:
    return cli.main(["audit", *map(str, args), "--format", "json", "--n-boot", "20"])


def _tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_json_naming_the_ratings_is_refused(study, capsys):
    before = _tree(study.parent)
    assert _run(study, "--json", study, "--out", study.parent / "report") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"compendium audit: --json {study}:")
    assert "input" in err
    assert _tree(study.parent) == before


def test_links_to_an_input_are_refused(study, tmp_path, capsys):
    link = tmp_path / "via-link.json"
    link.symlink_to(study)
    hard = tmp_path / "out" / "audit.json"
    hard.parent.mkdir()
    os.link(study, hard)
    before = _tree(tmp_path)
    assert _run(study, "--json", link, "--out", tmp_path / "r1") == 2
    assert "--json" in capsys.readouterr().err
    assert _run(study, "--out", tmp_path / "out") == 2  # out/audit.json is the ratings under another name
    assert f"--out {hard}:" in capsys.readouterr().err
    assert _tree(tmp_path) == before
    lengths = tmp_path / "lengths.csv"
    lengths.write_text("x\n")
    with pytest.raises(outputs.OutputError, match="--out .*checklist.csv.*--lengths"):
        outputs.plan_outputs(tmp_path, None, {"the ratings file": study, "--lengths": tmp_path / "checklist.csv"})


def test_out_that_is_a_file_and_json_that_is_a_directory_are_refused(study, tmp_path, capsys):
    existing = tmp_path / "notes.txt"
    existing.write_text("keep me\n")
    before = _tree(tmp_path)
    assert _run(study, "--out", existing) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"compendium audit: --out {existing}: is an existing file, not a folder (the report is a folder " \
                  "of files); nothing was written"
    assert _run(study, "--out", tmp_path / "report", "--json", tmp_path) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"compendium audit: --json {tmp_path}: is a directory")
    assert _tree(tmp_path) == before


def test_a_failed_write_leaves_the_previous_report_whole(study, tmp_path, monkeypatch, capsys):
    out = tmp_path / "report"
    assert _run(study, "--out", out) == 0
    previous = _tree(out)
    assert set(previous) == {"audit.json", "checklist.csv"}

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(audit, "write_checklist", full_disk)  # the summary is written, the checklist is not
    capsys.readouterr()
    assert _run(study, "--out", out, "--seed", "2") == 2  # one line, not a traceback
    assert "the disk is full" in capsys.readouterr().err
    assert _tree(out) == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ratings.csv", "report"]  # no staging folder left
    fresh = tmp_path / "fresh"
    assert _run(study, "--out", fresh) == 2
    assert not fresh.exists()


def test_a_failed_report_leaves_the_previous_report_whole(study, tmp_path, monkeypatch):
    """The notebook route: the notebook is written, the page is not; nothing moves into place (no kernel is
    started: the notebook run is stood in for)."""
    from compendium.build import runner

    out = tmp_path / "report"
    out.mkdir()
    (out / "audit.html").write_text("previous report\n")

    def executed(template, folder, parameters, **kwargs):
        assert Path(folder).parent == tmp_path and Path(folder).name.startswith(".report.")
        assert parameters["summary_json"] == "audit.json"  # relative to the kernel's folder: the staging one
        path = Path(folder) / "08_audit.ipynb"
        path.write_text("{}")
        (Path(folder) / "audit.json").write_text("{}")
        return runner.RunResult("08_audit", path, dict(parameters))

    def fail(*args, **kwargs):
        raise UnsafeReport("the audit report would not be inert, so it was not written: <script>")

    monkeypatch.setattr(runner, "execute", executed)
    monkeypatch.setattr(audit, "render_html", fail)
    with pytest.raises(UnsafeReport):
        cli.main(["audit", str(study), "--out", str(out), "--n-boot", "20", "--notebook"])
    assert _tree(out) == {"audit.html": b"previous report\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ratings.csv", "report"]


def test_a_page_refused_here_leaves_the_previous_report_whole(study, tmp_path, monkeypatch):
    """The default route: the page is refused after the audit is computed and before anything is written."""
    from compendium.audit import page

    out = tmp_path / "report"
    out.mkdir()
    (out / "audit.html").write_text("previous report\n")

    def fail(*args, **kwargs):
        raise UnsafeReport("the audit report would not be inert, so it was not written: <script>")

    monkeypatch.setattr(page, "check_inert", fail)
    with pytest.raises(UnsafeReport):
        cli.main(["audit", str(study), "--out", str(out), "--n-boot", "20"])
    assert _tree(out) == {"audit.html": b"previous report\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ratings.csv", "report"]


def test_json_elsewhere_is_written_with_the_report(study, tmp_path):
    out, summary = tmp_path / "report", tmp_path / "elsewhere" / "summary.json"
    assert _run(study, "--out", out, "--json", summary) == 0
    assert sorted(_tree(out)) == ["checklist.csv"] and summary.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "ratings.csv", "report"]


def test_every_report_file_is_planned():
    assert f"{audit.NOTEBOOK}.ipynb" in outputs.OUT_FILES


def test_lengths_with_a_system_column_that_is_no_identifier(tmp_path):
    data = simulate_crossed(8, 3, 3, seed=1, scale=(1, 5)).rename(columns={"system": "my system"})
    data["my system"] = data["my system"].map({"S1": "$\\frac{$", "S2": "=1+1", "S3": "<b>c</b>"})
    lengths = data[["sentence_id", "my system"]].drop_duplicates().assign(
        length=lambda d: np.random.default_rng(0).integers(1, 6, len(d)))
    data.to_csv(tmp_path / "r.csv", index=False)
    lengths.to_csv(tmp_path / "l.csv", index=False)
    assert (
        _run(tmp_path / "r.csv", "--system", "my system", "--lengths", tmp_path / "l.csv", "--out", tmp_path / "o") == 0
    )
    cells = _cells((tmp_path / "o" / "checklist.csv").read_text(encoding="utf-8"))
    assert [c for c in cells if c.startswith(FORMULA_START) and not _is_number(c)] == []


def test_a_sweep_table_reads_back_what_was_guarded(tmp_path):
    from compendium.analyses.ledger import robustness
    from compendium.data.escape import csv_frame, csv_unguard

    frame = pd.DataFrame([{"seed": 0, "id": "=x.claim", "section": "§4", "what": "-a claim", "paper": 0.5, "lo": -1.0,
                           "hi": 1.0, "value": -0.25, "status": "holds", "notebook": "@nb", "data": "simulated"}])
    path = tmp_path / "sweep.csv"
    csv_frame(frame).to_csv(path, index=False)
    assert "'=x.claim" in path.read_text() and ",-0.25," in path.read_text()
    pd.testing.assert_frame_equal(robustness.read_sweep(path), frame, check_dtype=False)
    assert csv_unguard("'plain") == "'plain" and csv_unguard(float("nan")) != csv_unguard(float("nan"))
