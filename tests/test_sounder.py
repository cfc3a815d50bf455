"""Tests for the side-by-side recorder (compendium.analyses.ledger.sounder) and the one
multiple-comparison helper (compendium.stats.multiplicity).

References: statsmodels' ``multipletests`` and Holm's step-down worked by
hand; the recorder is checked by storing rows in a notebook and reading them
back, as the build does.
"""

from __future__ import annotations

import doctest

import nbformat
import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from compendium.stats import multiplicity
from compendium.analyses.ledger import sounder


# ------------------------------------------------------------ multiplicity
def test_holm_by_hand():
    """Holm (1979) on p = .01, .04, .03, .005: sorted .005, .01, .03, .04 are
    multiplied by 4, 3, 2, 1 -> .02, .03, .06, .04, then made monotone by a
    running maximum -> .02, .03, .06, .06."""
    out = multiplicity.adjust([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(out, [0.03, 0.06, 0.06, 0.02])


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_adjust_equals_statsmodels_and_keeps_missing_values_out_of_the_family(method):
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 0.2, 12)
    p[[2, 7]] = np.nan
    out = multiplicity.adjust(p, method)
    ok = ~np.isnan(p)
    np.testing.assert_allclose(out[ok], multipletests(p[ok], method=method)[1])
    assert np.isnan(out[~ok]).all()


def test_adjust_rejects_bad_input():
    with pytest.raises(ValueError, match="method"):
        multiplicity.adjust([0.1], "sidak-ish")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        multiplicity.adjust([1.5])
    assert multiplicity.describe("holm", 28) == "Holm-adjusted over 28 comparisons (family-wise error rate)"


def test_pairwise_system_tests_use_the_helper():
    from compendium.simulate.crossed import simulate_crossed
    from compendium.stats import panels

    out = panels.pairwise_system_tests(simulate_crossed(30, 5, 3, seed=1))
    np.testing.assert_allclose(out["pval_holm"], multipletests(out["pval"], method="holm")[1])


# ---------------------------------------------------------------- recorder
def _row(recorder, **kw):
    args = dict(analysis="G study", claim="dstudy.G", paper_method="observed", paper_value=0.336,
                sounder_method="unbiased", sounder_value=0.0, conclusion_changes=True, note="G falls to 0.")
    args.update(kw)
    return recorder.record(**args)


def test_recorder_rows_and_validation():
    rec = sounder.Recorder("02_reliability", data="simulated", display=False)
    row = _row(rec)
    assert row["notebook"] == "02_reliability" and row["data"] == "simulated" and row["conclusion_changes"] is True
    _row(rec, sounder_value="[0, 0.4]", conclusion_changes=np.bool_(False))  # same key: replaces
    assert len(rec.table()) == 1 and rec.table()["sounder_value"].iloc[0] == "[0, 0.4]"
    assert list(rec.table().columns) == list(sounder.FIELDS)
    with pytest.raises(ValueError, match="conclusion_changes"):
        _row(rec, conclusion_changes="yes")
    with pytest.raises(ValueError, match="finite"):
        _row(rec, sounder_value=float("nan"))
    with pytest.raises(ValueError, match="analysis"):
        _row(rec, analysis="")


def test_collect_reads_rows_back_from_executed_notebooks(tmp_path):
    """Rows stored under SOUNDER_MIME come back in notebook order; text outputs are ignored."""
    paths = []
    for name, rows in [
        ("02_reliability", [("G study", True), ("alpha CI", False)]),
        ("04_decodability", [("EAD tiers", False)]),
    ]:
        rec = sounder.Recorder(name, display=False)
        nb = nbformat.v4.new_notebook()
        cell = nbformat.v4.new_code_cell("")
        cell.outputs = [nbformat.v4.new_output("display_data", data={"text/plain": "x"})]
        for analysis, changes in rows:
            row = _row(rec, analysis=analysis, conclusion_changes=changes)
            cell.outputs.append(
                nbformat.v4.new_output("display_data", data={sounder.SOUNDER_MIME: row, "text/plain": "x"})
            )
        nb.cells.append(cell)
        path = tmp_path / f"{name}.ipynb"
        nbformat.write(nb, path)
        paths.append(path)
    table = sounder.collect(paths)
    assert table["analysis"].tolist() == ["G study", "alpha CI", "EAD tiers"]
    assert table["conclusion_changes"].tolist() == [True, False, False]
    assert table["notebook"].tolist() == ["02_reliability", "02_reliability", "04_decodability"]
    assert sounder.collect([]).columns.tolist() == list(sounder.FIELDS)


def test_doctests():
    for module in (sounder, multiplicity):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0


def test_table_options_give_out_table_its_styler_and_caption():
    rec = sounder.Recorder("07_leakage", data="real", display=False)
    _row(rec, sounder_value="t = 3.1, p = 0.03", conclusion_changes=False)
    args = rec.table_options()
    assert set(args) == {"styler", "caption"}
    assert "(real)" in args["caption"]
    html = args["styler"].to_html()
    assert "t = 3.1, p = 0.03" in html and ">no<" in html and "0.336" in html
