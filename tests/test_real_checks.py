"""The real-data checks: recorded by chapters, gathered by the build, written to claims.json."""

from __future__ import annotations

import json
from pathlib import Path
import re
import stat

import nbformat
import pytest

from compendium.analyses.ledger import claims, real_checks

from compendium.analyses.real import Rule

RULE = Rule(quantity="tokens of the translation / tokens of the source", paper="no premium",
            rule="does not hold if the interval lies wholly above 1", smallest_effect=None)
CHECK = dict(section="8", data="NTREX-128 (real), o200k_base (exact)", paper="not about tokenizer fairness",
             computed="Bangla 1.9x the English tokens", verdict="does not hold", claims=["cost.tokens_per_char_bn"],
             rule=RULE, estimate=1.9, interval=(1.8, 2.0))


def test_a_check_is_recorded_with_its_fields():
    rec = real_checks.Recorder("06_cost", display=False)
    row = rec.record("cost.parallel_premium", **CHECK)
    assert list(row) == list(claims.REAL_CHECK_FIELDS)
    assert row["claims"] == ["cost.tokens_per_char_bn"] and row["verdict"] == "does not hold"
    assert (row["quantity"], row["paper_value"], row["rule"]) == (RULE.quantity, RULE.paper, RULE.rule)
    assert (row["estimate"], row["interval"], row["no_interval"]) == (1.9, [1.8, 2.0], None)
    assert list(rec.table().columns)[0] == "verdict"


@pytest.mark.parametrize("change, message", [
    ({"verdict": "holds mostly"}, "not one of"),
    ({"claims": ["no.such_claim"]}, "unknown claim"),
    ({"paper": " "}, "paper must be a non-empty string"),
    ({"rule": "holds if it holds"}, "rule must be a compendium.analyses.real.Rule"),
    ({"rule": Rule(quantity="x", paper="", rule="r")}, "rule must be"),
    ({"estimate": float("nan")}, "estimate nan is not finite"),
    ({"estimate": None}, "estimate None is not a number"),
    ({"estimate": " "}, "estimate must be a number or a non-empty count"),
    ({"interval": (2.0, 1.0)}, "low <= high"),
    ({"interval": (1.0, float("inf"))}, "finite"),
    ({"interval": (1.0,)}, "two numbers"),
    ({"interval": None}, "say why it has none"),
    ({"no_interval": "a count"}, "not both"),
    ({"interval": None, "no_interval": ""}, "must say why"),
])
def test_a_bad_check_is_refused(change, message):
    rec = real_checks.Recorder("06_cost", display=False)
    with pytest.raises(real_checks.RealCheckError, match=message):
        rec.record("cost.parallel_premium", **{**CHECK, **change})


def test_a_check_without_an_interval_says_why():
    rec = real_checks.Recorder("06_cost", display=False)
    row = rec.record("cost.parallel_premium", **{**CHECK, "interval": None, "no_interval": "a count over tokenizers",
                                                 "estimate": "3 of 4 exact tokenizers"})
    assert (row["interval"], row["no_interval"], row["estimate"]) == (None, "a count over tokenizers",
                                                                      "3 of 4 exact tokenizers")


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
    rec = real_checks.Recorder("06_cost", display=False)
    a = rec.record("cost.parallel_premium", **CHECK)
    b = rec.record("length.mqm_slope", **{**CHECK, "section": "5", "verdict": "holds", "claims": []})
    c = rec.record("leakage.mqm_inflation", **{**CHECK, "section": "10", "verdict": "not testable here", "claims": []})
    d = rec.record("leakage.mqm_other", **{**CHECK, "section": "10", "verdict": "inconclusive", "claims": []})
    rows = real_checks.collect([_notebook(tmp_path / "x.ipynb", [a, c, d]), _notebook(tmp_path / "y.ipynb", [b])])
    assert [r["check"] for r in rows] == ["length.mqm_slope", "cost.parallel_premium", "leakage.mqm_inflation",
                                         "leakage.mqm_other"]
    path = claims.write_ledger(tmp_path / "claims.json", [], rows)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert [list(r) for r in document["real_data_checks"]] == [list(claims.REAL_CHECK_FIELDS)] * 4
    assert document["summary"]["real_data_checks"] == {"holds": 1, "does not hold": 1, "inconclusive": 1,
                                                       "not testable here": 1}
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

    assert (real.HOLDS, real.DOES_NOT_HOLD, real.INCONCLUSIVE, real.NOT_TESTABLE) == real.VERDICTS == claims.VERDICTS


#: How the README and the introduction state a verdict: "**holds** (`id`" or "(**holds**, `id`".
STATED = re.compile(r"\*\*(holds|does not hold|inconclusive|not testable here)\*\*,?\s+\(?`([a-z0-9_]+\.[a-z0-9_.]+)`")


def test_the_readme_states_real_data_verdicts_only_in_its_computed_table():
    """Issue 69: the README's verdicts on real data are the claims table the build writes between its markers
    (tests/test_verdicts.py checks it against the build); no hand-written sentence outside it states a check's
    verdict, which could drift from the computed one."""
    from compendium.book import verdicts
    from compendium.build import runner

    text = (runner.ROOT / "README.md").read_text(encoding="utf-8")
    outside = text.replace(verdicts.readme_table(text).strip(), "")
    assert STATED.findall("**holds** (`cost.real_sign_flip`, section 8)"), "the scan finds a stated verdict"
    assert not STATED.findall(outside)


@pytest.mark.book
def test_every_built_check_states_its_rule_estimate_interval_and_the_papers_value():
    """claims.json: each real-data check carries its decision rule and the result the rule decided on."""
    from compendium.build import runner

    built = claims.read_real_checks(runner.CLAIMS_FILE)
    assert len(built) >= 16
    for check in built:
        assert list(check) == list(claims.REAL_CHECK_FIELDS), check["check"]
        for field in ("quantity", "paper_value", "rule", "computed"):
            assert isinstance(check[field], str) and check[field].strip(), (check["check"], field)
        assert check["estimate"] not in (None, ""), check["check"]
        assert (check["interval"] is None) != (check["no_interval"] is None), check["check"]
        if check["interval"] is not None:
            low, high = check["interval"]
            assert low <= high, check["check"]
        assert check["verdict"] in claims.VERDICTS


def test_every_chapter_shows_its_check_ids_breakable():
    """A long check id would widen its column past a laptop's width; each chapter's table of checks breaks it
    after its dots and underscores (<wbr> copies as nothing, so the id is unchanged for a reader who copies it)."""
    import pandas as pd

    frame = pd.DataFrame({"check": ["cost.real_parallel_premium_hi"], "verdict": ["holds"]})
    rendered = real_checks.styled(frame).to_html()
    assert "cost.<wbr>real_<wbr>parallel_<wbr>premium_<wbr>hi" in rendered
    assert "<th" not in rendered.split("<tbody>")[1].split("</tr>")[0]  # no index column
    notebooks = Path(__file__).resolve().parents[1] / "notebooks"
    shown = [p for p in sorted(notebooks.glob("0*.py")) if "checks.table()" in p.read_text(encoding="utf-8")]
    assert len(shown) >= 6
    for notebook in shown:
        assert "styler=real_checks.styled(checks.table())" in notebook.read_text(encoding="utf-8"), notebook.name
