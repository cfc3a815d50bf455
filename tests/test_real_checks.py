"""The real-data checks: recorded by chapters, gathered by the build, written to claims.json."""

from __future__ import annotations

import json
import re
import stat

import nbformat
import pytest

from compendium.book import claims, real_checks

CHECK = dict(section="8", data="NTREX-128 (real), o200k_base (exact)", paper="not about tokenizer fairness",
             computed="Bangla 1.9x the English tokens", verdict="does not hold", claims=["cost.tokens_per_char_bn"])


def test_a_check_is_recorded_with_its_fields():
    rec = real_checks.Recorder("06_cost", display=False)
    row = rec.record("cost.parallel_premium", **CHECK)
    assert list(row) == list(claims.REAL_CHECK_FIELDS)
    assert row["claims"] == ["cost.tokens_per_char_bn"] and row["verdict"] == "does not hold"
    assert list(rec.table().columns)[0] == "verdict"


@pytest.mark.parametrize("change, message", [
    ({"verdict": "holds mostly"}, "not one of"),
    ({"claims": ["no.such_claim"]}, "unknown claim"),
    ({"paper": " "}, "paper must be a non-empty string"),
])
def test_a_bad_check_is_refused(change, message):
    rec = real_checks.Recorder("06_cost", display=False)
    with pytest.raises(real_checks.RealCheckError, match=message):
        rec.record("cost.parallel_premium", **{**CHECK, **change})


def test_a_malformed_check_id_is_refused():
    with pytest.raises(real_checks.RealCheckError, match="dotted"):
        real_checks.Recorder("06_cost", display=False).record("Parallel premium", **CHECK)


def _notebook(path, rows):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [nbformat.v4.new_output("display_data", data={real_checks.REAL_CHECK_MIME: r}) for r in rows]
    nb.cells = [cell]
    nbformat.write(nb, path)
    return path


def test_checks_are_gathered_in_section_order_and_written_to_the_ledger(tmp_path):
    a = {**CHECK, "check": "cost.parallel_premium", "section": "8"}
    b = {**CHECK, "check": "length.mqm_slope", "section": "5", "verdict": "holds", "claims": []}
    c = {**CHECK, "check": "leakage.mqm_inflation", "section": "10", "verdict": "not testable here", "claims": []}
    rows = real_checks.collect([_notebook(tmp_path / "x.ipynb", [a, c]), _notebook(tmp_path / "y.ipynb", [b])])
    assert [r["check"] for r in rows] == ["length.mqm_slope", "cost.parallel_premium", "leakage.mqm_inflation"]
    path = claims.write_ledger(tmp_path / "claims.json", [], rows)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert [list(r) for r in document["real_data_checks"]] == [list(claims.REAL_CHECK_FIELDS)] * 3
    assert document["summary"]["real_data_checks"] == {"holds": 1, "does not hold": 1, "not testable here": 1}
    assert claims.read_real_checks(path) == document["real_data_checks"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_ledger_without_checks_has_no_list(tmp_path):
    path = claims.write_ledger(tmp_path / "claims.json", [])
    assert "real_data_checks" not in json.loads(path.read_text(encoding="utf-8"))
    assert claims.read_real_checks(path) == []


def test_the_doctest_runs():
    import doctest

    assert doctest.testmod(real_checks).failed == 0


def test_the_analyses_spell_the_verdicts_as_the_ledger_does():
    from compendium.analyses import real

    assert (real.HOLDS, real.DOES_NOT_HOLD, real.NOT_TESTABLE) == claims.VERDICTS


#: How the README and the introduction state a verdict: "**holds** (`id`" or "(**holds**, `id`".
STATED = re.compile(r"\*\*(holds|does not hold|not testable here)\*\*,?\s+\(?`([a-z0-9_]+\.[a-z0-9_.]+)`")


@pytest.mark.book
@pytest.mark.parametrize("page", ["README.md", "book/intro.md"])
def test_the_front_pages_state_every_real_data_verdict_as_computed(page):
    """The README and the introduction name each check with its verdict; both must be the build's."""
    from compendium.book import runner

    computed = {c["check"]: c["verdict"] for c in claims.read_real_checks(runner.CLAIMS_FILE)}
    text = (runner.ROOT / page).read_text(encoding="utf-8")
    section = text.split("## The paper's claims on real data", 1)[1].split("\n## ", 1)[0]
    stated = dict((check, verdict) for verdict, check in STATED.findall(section))
    assert computed, "the build recorded no real-data checks"
    assert stated == computed
