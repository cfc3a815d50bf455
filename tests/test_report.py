"""How the chapters show tables: number formats, folded code, the short provenance line."""

from __future__ import annotations

import doctest
import re

import nbformat
import numpy as np
import pandas as pd

from compendium.book import figures, report


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
    unescaped = re.sub(r"\\(.)", r"\1", standalone)  # parameter values are Markdown-escaped (issue 48)
    assert "seed=1" in unescaped and "None" not in standalone and "revision" in standalone


def test_a_chapter_counts_its_claims_by_group_never_as_one_headline():
    """Issue 13: targeted, free and design claims are counted apart, and a difference is named."""
    import pandas as pd

    from compendium.analyses.ledger import claims
    from compendium.book import report

    calibration = claims.calibration_of()
    free = next(c for c, (cal, _) in calibration.items() if cal == "free")
    targeted = next(c for c, (cal, _) in calibration.items() if cal == "targeted")
    table = pd.DataFrame(
        {"id": ["design.n_sentences", targeted, free], "status": ["reproduced", "reproduced", "differs"]}
    )
    lead = report._claims_lead(table)
    assert "1 free data claims (not used to set the simulation), 0 in band" in lead
    assert "1 targeted data claims (in band by construction), 1 in band" in lead
    assert "1 design claims, 1 in band" in lead and lead.endswith("1 differs from the paper's band:")
    assert "All" not in lead


# --- Figure 1, drawn once for the reliability chapter and the audit ----------------------------


def _legend(ax) -> list[str]:
    return [text.get_text() for text in ax.get_legend().get_texts()]


def test_decision_study_figure_draws_each_panel_size_solid_and_dashed():
    curves = pd.DataFrame({"n_raters": [1, 1, 3, 3], "n_items": [10, 100, 10, 100],
                           "G": [0.1, 0.2, 0.3, 0.6], "G_observed": [0.2, 0.4, 0.5, 0.8]})
    fig = report.decision_study_figure(curves, solid=("G", "unbiased"), dashed=("G_observed", "observed (paper)"),
                                       n_items=40, targets=(0.8, 0.9), xlabel="items")
    ax = fig.axes[0]
    assert _legend(ax) == ["1 rater, unbiased", "1 rater, observed (paper)", "3 raters, unbiased", "3 raters, observed "
                                                                                                   "(paper)"]
    drawn = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert [line.get_linestyle() for line in drawn] == ["-", "--", "-", "--"]
    assert drawn[3].get_ydata().tolist() == [0.5, 0.8] and drawn[3].get_color() == report.PALETTE[1]
    guides = [line for line in ax.get_lines() if line.get_label().startswith("_")]
    assert sorted(line.get_ydata()[0] for line in guides[:2]) == [0.8, 0.9] and guides[2].get_xdata()[0] == 40
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "items"


def test_decision_study_figure_draws_at_most_four_panel_sizes_the_studys_among_them():
    sizes = [1, 2, 3, 5, 8, 13, 21, 34]
    curves = pd.DataFrame([{"n_raters": r, "n_items": n, "G": r / (r + 40) * n / (n + 5), "G_observed": r / (r + 30)}
                           for r in sizes for n in (10, 100)])
    fig = report.decision_study_figure(curves, solid=("G", "unbiased"), dashed=("G_observed", "observed (paper)"),
                                       n_items=40, n_raters=5)
    legend = _legend(fig.axes[0])
    assert len(legend) == 8 and [t for t in legend if t.endswith("unbiased")] == [
        "1 rater, unbiased", "5 raters, unbiased", "8 raters, unbiased", "34 raters, unbiased"]
    assert figures.shown_panels([1, 3, 9], study=3) == [1, 3, 9]


def test_log_axes_label_their_ticks_as_plain_numbers_under_the_books_style():
    """The book turns mathtext off (names from the data stay text); matplotlib's own log ticks are mathtext and
    printed their source, ``$\\mathdefault{10^{1}}$``."""
    import matplotlib.pyplot as plt

    report.setup_plots()
    curves = pd.DataFrame({"n_raters": [1, 1], "n_items": [10, 100_000], "G": [0.1, 0.2], "G_observed": [0.2, 0.4]})
    fig = report.decision_study_figure(curves, solid=("G", "unbiased"), dashed=("G_observed", "observed"), n_items=40)
    fig.canvas.draw()
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels() if t.get_text()]
    assert labels and not any("$" in t or "mathdefault" in t for t in labels)
    assert "1,000" in labels
    plt.close(fig)


def test_variance_components_figure_marks_rater_terms_and_names_the_raters():
    shares = pd.Series({"item": 0.2, "annotator": 0.1, "item:annotator": 0.3, "residual": 0.4})
    ss = pd.Series({"system": 0.05, "annotator": 0.15, "item": 0.5, "total": 1.0})
    left, right = report.variance_components_figure(shares, ss, rater_word="rater").axes
    bars = sorted(left.patches, key=lambda bar: bar.get_width())
    assert [round(bar.get_width(), 9) for bar in bars] == [10.0, 20.0, 30.0, 40.0]
    red = [
        bar.get_width()
        for bar in left.patches
        if bar.get_facecolor()[:3] == (0.8352941176470589, 0.3686274509803922, 0.0)
    ]
    assert sorted(round(w) for w in red) == [10, 30]  # the two terms that name the annotators
    assert [tick.get_text() for tick in right.get_xticklabels()] == ["system", "rater", "item"]
    assert [round(bar.get_height(), 9) for bar in right.patches] == [5.0, 15.0, 50.0]
    assert left.get_title() == "(a) Variance components; rater terms in red"


def test_leave_one_out_figure_draws_one_line_per_system_over_the_reduced_panels():
    ranks = pd.DataFrame({"all": [1, 2], "without A1": [2, 1], "without A2": [1, 2]}, index=["x", "y"])
    ax = report.leave_one_out_figure(ranks, colours={"x": "#000000", "y": "#E69F00"}).axes[0]
    assert _legend(ax) == ["x", "y"] and ax.yaxis_inverted()
    x_line = ax.get_lines()[0]
    assert list(x_line.get_xdata()) == ["without A1", "without A2"] and list(x_line.get_ydata()) == [2, 1]
    assert x_line.get_color() == "#000000" and ax.get_title() == "(b) System rank by which annotator is left out"
