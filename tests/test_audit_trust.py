"""Issue 25: the audit as a tool people install and trust.

* Missing values are explicit: only an empty field by default, ``--missing`` for others; anything else that is not
  a number is rejected with the file, column, line and value; the summary says how many and which.
* The terminal summary has G with its interval, G observed, the raters for 0.8 and 0.9, every panel's winner.
* ``audit.json`` keeps one type per key (null + ``reasons`` when not computable) and validates against the
  published JSON Schema (``jsonschema``, Draft 2020-12) on a complete and on an incomplete design.
* G has an interval on incomplete designs (parametric bootstrap from the REML fit), also on WMT23 MQM.
* Files are written 0644; the wording fixes; constant ratings give no RuntimeWarning and no "nan" in the checklist.
* The HTML report: no code, admonitions rendered, one provenance line (renderer unit test; the browser test is
  tests/test_audit_browser.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import jsonschema
import nbformat
import pandas as pd
import pytest

from compendium.audit import core as audit
from compendium.audit import report as audit_report
from compendium.data._files import write_text_atomic
from compendium.data.errors import DataError
from compendium.simulate.crossed import simulate_crossed, simulate_incomplete

ROOT = Path(__file__).resolve().parents[1]
MQM = ROOT / "data" / "real" / "wmt23_mqm_ende.csv"
COLS = dict(item="item", system="system", rater="rater", rating="rating")


@pytest.fixture(scope="module")
def complete():
    return audit.audit(simulate_crossed(20, 4, 3, seed=3, scale=(1, 5)), n_boot=100, seed=1)


@pytest.fixture(scope="module")
def incomplete():
    # 40 replicates of G's parametric bootstrap: enough for its interval to exist (its coverage: tests/test_gstudy.py)
    return audit.audit(simulate_incomplete(24, 4, 6, raters_per_item=3, seed=3, scale=(1, 5)), n_boot=100, n_boot_g=40,
                       seed=1)


def _csv(path: Path, ratings: list[str]) -> Path:
    rows = ["item,system,rater,rating"]
    cells = [(i, s, r) for i in (1, 2) for s in ("a", "b") for r in ("r1", "r2")]
    for (i, s, r), v in zip(cells, ratings):
        rows.append(f"{i},{s},{r},{v}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- missing values
@pytest.mark.parametrize("token", ["n/a", "None", "NA", "-nan", "nan", "good"])
def test_by_default_only_an_empty_field_is_missing_anything_else_is_named(tmp_path, token):
    path = _csv(tmp_path / "r.csv", ["1", "2", "3", "4", "5", token, "2", "3"])
    with pytest.raises(DataError) as error:
        audit.read_judgements(path, **COLS)
    text = str(error.value)
    assert f"{path}, column 'rating': ratings that are not numbers on 1 line: line 7 {token!r}" in text
    assert "--missing" in text


def test_missing_lists_the_strings_that_mean_missing_and_the_summary_counts_them(tmp_path):
    path = _csv(tmp_path / "r.csv", ["1", "2", "NA", "4", "5", "", "2", " NA "])
    with pytest.raises(DataError):
        audit.read_judgements(path, **COLS)
    judgements = audit.read_judgements(path, **COLS, missing=["NA"])
    assert int(judgements["rating"].isna().sum()) == 3
    assert judgements.attrs["missing_read"] == {"NA": 2, "": 1}
    summary = audit.audit(judgements, n_boot=20, seed=1, **COLS)
    assert summary["missing_ratings"] == 3 and summary["missing_cells"] == 3
    assert summary["missing_values"] == ["", "NA"] and summary["missing_read"] == {"NA": 2, "": 1}
    line = audit.summary_lines(summary)[1]
    assert line.startswith("missing: 3 of 8 cells have no rating; 3 ratings read as missing (")
    assert "read as missing: an empty field, 'NA'" in line


def test_command_takes_missing(tmp_path):
    path = _csv(tmp_path / "r.csv", ["1", "2", "n/a", "4", "5", "3", "2", "3"])
    cli = [sys.executable, "-m", "compendium.cli", "audit", str(path), "--item", "item", "--system", "system",
           "--rater", "rater", "--format", "json", "--n-boot", "20", "--out", str(tmp_path / "out")]
    refused = subprocess.run(cli, capture_output=True, text=True)
    assert refused.returncode == 2 and "line 4 'n/a'" in refused.stderr
    done = subprocess.run(cli + ["--missing", "n/a"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "1 rating read as missing ('n/a': 1)" in done.stdout
    assert json.loads((tmp_path / "out" / "audit.json").read_text())["missing_values"] == ["", "n/a"]


# ----------------------------------------------------------------------------- the terminal
@pytest.mark.parametrize("design", ["complete", "incomplete"])
def test_terminal_summary_gives_g_its_interval_raters_needed_and_every_panels_winner(design, request):
    summary = request.getfixturevalue(design)
    text = "\n".join(audit.summary_lines(summary))
    low, high = summary["G_ci"]
    random = (f"; systems random: {summary['G_systems_random']:.3f}" if design == "complete" else "")
    assert (f"G {summary['G']:.3f} [{low:.3f}, {high:.3f}] (systems fixed, unbiased{random}; observed, as in the "
            f"paper: {summary['G_observed']:.3f})") in text
    for target, key in ((0.8, "raters_for_G80"), (0.9, "raters_for_G90")):
        n = summary[key]
        assert (f"{n} for G >= {target}" if n is not None else f"none reaches {target} at") in text
    for panel, winner in summary["loao"]["winners"].items():
        if panel != "all":
            assert f"  {panel}: {winner}" in text
    assert f"winner: {summary['loao']['winners']['all']} (all raters)" in text


# ----------------------------------------------------------------------------- stable JSON and its schema
def _schema():
    return json.loads(audit.SCHEMA.read_text(encoding="utf-8"))


@pytest.mark.parametrize("design", ["complete", "incomplete"])
def test_audit_json_validates_against_the_published_schema(design, request, tmp_path):
    summary = json.loads(audit.write_json(request.getfixturevalue(design), tmp_path / "a.json").read_text())
    jsonschema.Draft202012Validator.check_schema(_schema())
    jsonschema.validate(summary, _schema(), cls=jsonschema.Draft202012Validator)
    for key in audit.STATISTICS:  # null always comes with its reason, and a reason only with null
        assert (summary[key] is None) == (key in summary["reasons"]), key
    assert all(isinstance(r, str) and r for r in summary["reasons"].values())


def test_the_schema_rejects_a_string_where_a_statistic_belongs(complete):
    broken = dict(complete, icc_2_1="not computable: incomplete design (4 missing cells)")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, _schema(), cls=jsonschema.Draft202012Validator)


def test_every_key_keeps_one_type_across_designs(complete, incomplete):
    def kind(v):
        return (
            "null"
            if v is None
            else "number"
            if isinstance(v, (int, float)) and not isinstance(v, bool)
            else type(v).__name__
        )

    for key in audit.STATISTICS:
        kinds = {kind(complete[key]), kind(incomplete[key])} - {"null"}
        assert len(kinds) <= 1, (key, complete[key], incomplete[key])
    assert incomplete["icc_2_1"] is None and ("needs every (item, system, rater) "
                                              "cell") in incomplete["reasons"]["icc_2_1"]
    assert isinstance(incomplete["G_ci"], list) and isinstance(complete["G_ci"], list)


def test_schema_is_package_data():
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][
        "compendium.audit"
    ]
    assert "*.schema.json" in data and audit.SCHEMA.is_file()


# ----------------------------------------------------------------------------- G interval, incomplete designs
# G's interval on the real WMT23 MQM file (incomplete: 3 of 10 raters per item) is checked where the audit runs on it
# as a user runs it, from the installed wheel: tests/test_wheel.py,
# test_the_light_install_has_no_book_stack_and_audits_real_mqm_from_elsewhere.


# ----------------------------------------------------------------------------- small fixes
def test_files_are_written_0644(tmp_path):
    old = os.umask(0o077)
    try:
        path = write_text_atomic(tmp_path / "x.json", "{}\n")
        from compendium.build import sweep

        sweep._write_atomic(tmp_path / "y.csv", "a\n1\n")
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "y.csv").stat().st_mode & 0o777 == 0o644


def test_rerun_outputs_are_0644(tmp_path):
    from compendium.build import rerun

    claims = pd.DataFrame({name: pd.Series(dtype=object) for name in rerun.MOVED_FIELDS}).assign(
        moved=pd.Series(dtype=bool)
    )
    comparison = rerun.Comparison(claims=claims, tables=pd.DataFrame({"table": []}), rtol=1e-6)
    old = os.umask(0o077)
    try:
        written = comparison.write(tmp_path)
    finally:
        os.umask(old)
    assert {p.stat().st_mode & 0o777 for p in written.values()} == {0o644}


def test_wording_one_rater_the_cells_sentence_and_no_python_in_a_command_error(tmp_path):
    from compendium.audit.checklist import checklist

    base = {"G": 0.85, "n_items": 30, "n_raters": 3, "raters_for_G80": 1, "raters_for_G90": 2, "G_observed": 0.9}
    reason = next(c["reason"] for c in checklist(base) if c["id"] == 3)
    assert "1 rater for G >= 0.8" in reason and "2 raters for G >= 0.9" in reason and "1 raters" not in reason
    data = simulate_incomplete(6, 2, 3, missing=0.2, seed=1)
    design = audit.check_design(data)
    assert (f"{design.n_items} items x 2 systems x 3 raters = {design.n_cells} cells, of which {design.n_missing} have "
            "no rating") \
        in design.describe()
    path = _csv(tmp_path / "r.csv", ["1"] * 8)
    with pytest.raises(DataError) as error:
        audit.read_judgements(path, item="segment")
    assert "--item, --system, --rater, --rating" in str(error.value) and "keyword" not in str(error.value)


def test_constant_ratings_warn_nothing_and_say_why():
    data = simulate_crossed(10, 3, 3, seed=1, scale=(1, 5)).assign(rating=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        summary = audit.audit(data, n_boot=20, seed=1)
    reasons = " ".join(c["reason"] for c in summary["checklist"])
    assert "nan" not in reasons.lower().replace("nan ", "")  # no "The F tests are nan."
    assert "every rating is the same value" in reasons
    assert summary["F_vs_interaction"] is None and "same value" in summary["reasons"]["F_vs_interaction"]


# ----------------------------------------------------------------------------- the HTML renderer
def test_renderer_shows_no_code_renders_admonitions_and_one_provenance_line(tmp_path):
    nb = nbformat.v4.new_notebook()
    provenance = ('<small class="compendium-provenance">Table `a` · `08_audit.ipynb`, cell [3] · r.csv · '
                  "parameters seed=1 · revision `abc`</small>")
    code = nbformat.v4.new_code_cell("secret_code = 1", metadata={"tags": ["hide-input"]})
    code.outputs = [
        nbformat.v4.new_output("display_data", data={"text/markdown": ":::{admonition} Data\n:class: note\nEvery "
                                                                      "number.\n:::"}),
        nbformat.v4.new_output("display_data", data={"text/html": "<table><tr><td>1</td></tr></table>"}),
        nbformat.v4.new_output("display_data", data={"text/markdown": provenance}),
        nbformat.v4.new_output("display_data", data={"text/markdown": provenance.replace("`a`", "`b`")}),
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("# Title\n\nSee {ref}`the appendix <build-provenance>`."), code]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    page = audit_report.render_html(path, tmp_path / "out.html").read_text()
    assert "secret_code" not in page and ":::" not in page and '<p class="admonition-title">Data</p>' in page
    assert page.count("Provenance:") == 1 and "cell [3]" not in page and "revision" in page
    assert "{ref}" not in page and "the appendix" in page
    assert "<script" not in page and "http" not in page.replace("http-equiv", "")
