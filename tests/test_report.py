"""How the chapters show tables: number formats, folded code, the short provenance line."""

from __future__ import annotations

import doctest
import re

import nbformat
import numpy as np
import pandas as pd

from compendium import report


def _cells(html: str) -> list[str]:
    return re.findall(r"<td[^>]*>([^<]*)</td>", html)


def test_doctests():
    assert doctest.testmod(report).failed == 0


def test_tidy_shows_counts_as_integers_statistics_to_three_digits_and_nothing_for_missing_values():
    frame = pd.DataFrame({"count": [19.0, 3.0], "stat": [0.0101234, np.nan], "label": ["a<b", None],
                          "big": [10340.94431, 2.0], "kept": [0.5, 0.25]})
    styler = report.tidy(frame.style.format({"kept": "{:.1%}", "big": "{:.4f}"}).hide(axis="index"))
    assert _cells(styler.to_html()) == ["19", "0.0101", "a&lt;b", "10,341", "50.0%", "3", "", "", "2.0000", "25.0%"]


def test_fold_code_tags_every_code_cell_once_and_respects_a_cell_that_chose():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("y = 2", metadata={"tags": ["remove-input"]}),
        nbformat.v4.new_code_cell("z = 3"),
    ])
    report.fold_code(notebook)
    report.fold_code(notebook)
    assert [c.metadata.get("tags") for c in notebook.cells] == [None, ["parameters", "hide-input"], ["remove-input"],
                                                                 ["hide-input"]]


def test_the_provenance_line_is_short_and_links_to_the_build_appendix():
    out = report.Outputs("02_reliability", parameters={"seed": 1, "n_boot": 2000, "data_dir": None},
                         data="simulated data, MANIFEST `abc`")
    line = out.provenance("Table", "annotator_means")
    assert "`02_reliability.ipynb`, cell [" in line and "simulated data" in line and "<build-provenance>" in line
    assert "n_boot" not in line and "MANIFEST" not in line and len(re.sub(r"<[^>]+>", "", line)) < 140
    standalone = report.Outputs("08_audit", parameters={"seed": 1, "lengths_path": None}, data="ratings file `x.csv`",
                                environment_link=False).provenance("Table", "t")
    assert "seed=1" in standalone and "None" not in standalone and "revision" in standalone


def test_a_chapter_counts_its_claims_by_group_never_as_one_headline():
    """Issue 13: targeted, free and design claims are counted apart, and a difference is named."""
    import pandas as pd

    from compendium import claims, report

    calibration = claims.calibration_of()
    free = next(c for c, (cal, _) in calibration.items() if cal == "free")
    targeted = next(c for c, (cal, _) in calibration.items() if cal == "targeted")
    table = pd.DataFrame({"id": ["design.n_sentences", targeted, free], "status": ["reproduced", "reproduced", "differs"]})
    lead = report._claims_lead(table)
    assert "1 free data claims (not used to set the simulation), 0 in band" in lead
    assert "1 targeted data claims (in band by construction), 1 in band" in lead
    assert "1 design claims, 1 in band" in lead and lead.endswith("1 differs from the paper's band:")
    assert "All" not in lead
