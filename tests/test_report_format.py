"""Issue 26: one number formatter, one column-label map, answer columns first, notes out of squeezed columns,
wide tables marked; the emojis of the system cards; the small analysis-seed sweep and the robustness summary.

The formatter is checked against Python's own ``format`` (the reference for significant digits) on both sides
of every threshold (1e-4, 1e-3, 1,000, 1e15), so that a changed threshold fails here.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from compendium.book import report


@pytest.mark.parametrize("value", [0.000123456, 0.00099, 0.0101234, 0.5, 3.14159, 12.3456, 999.4])
def test_estimates_show_three_significant_digits_as_python_formats_them(value):
    shown = report.format_number(value)
    assert float(shown) == pytest.approx(float(f"{value:.3g}"))
    assert "e" not in shown.lower()


def test_the_thresholds_of_the_formatter_on_both_sides():
    assert report.format_number(1.0001e-4) == "0.000100"
    assert report.format_number(0.99e-4) == "9.90 × 10⁻⁵"  # below 1e-4: no e-notation, a power of ten
    assert report.format_number(999.4) == "999" and report.format_number(9.99996) == "10.0"
    assert report.format_number(1000.6) == "1,001"
    assert report.format_number(17100.0) == "17,100"  # the robustness appendix's 1.71e+04
    assert report.format_number(4046.0) == "4,046" and report.format_number(6.0) == "6"  # counts as integers
    assert report.format_number(2024, separators=False) == "2024"
    assert report.format_number(1.2e15) == "1.20 × 10¹⁵"
    assert report.format_number(np.nan) == "" and report.format_number(None) == ""


@pytest.mark.parametrize(("p", "shown"), [(0.0, "< 0.0001"), (0.99e-4, "< 0.0001"), (1e-4, "< 0.001"),
                                           (0.00099, "< 0.001"), (0.001, "0.001"), (0.0123, "0.012"), (1.0, "1.000")])
def test_p_values_never_show_as_zero(p, shown):
    assert report.format_p(p) == shown


def test_text_cells_lose_their_e_notation_and_keep_their_words():
    assert report.format_text("F(7, 4046) = 19.41, p = 1.4e-35") == "F(7, 4046) = 19.41, p < 0.0001"
    assert report.format_text("p = 0.0123") == "p = 0.012"
    assert report.format_text("1.03587e-25") == "1.04 × 10⁻²⁵"
    assert report.format_text("-0.0235347") == "-0.0235"
    assert report.format_text("model v1.0.4 on 2 items") == "model v1.0.4 on 2 items"


def test_one_label_map_for_every_column():
    assert report.column_label("conclusion_changes") == "changes the conclusion?"
    assert report.column_label("multi_label_share") == "multi-label share"
    assert report.column_label("G_limit_items_unbounded_observed") == "G limit items unbounded observed"
    assert report.column_label("ead_ci_low") == "EAD CI low"
    assert report.column_label("already words") == "already words"


def _headers(html: str) -> list[str]:
    return re.findall(r'<th [^>]*class="col_heading[^"]*"[^>]*>([^<]*)</th>', html)


def _cells(html: str) -> list[str]:
    return re.findall(r"<td[^>]*>([^<]*)</td>", html)


def test_a_table_shows_its_answer_first_its_labels_and_its_notes_below():
    frame = pd.DataFrame({"analysis": ["G study", "F test"], "paper_value": [0.336, 2e-30], "p_holm": [0.0, 0.0123],
                          "note": ["a long explanation " * 6, ""], "conclusion_changes": ["yes", "no"]})
    html = report.present(report.tidy(frame.style.hide(axis="index")))
    assert _headers(html) == ["changes the conclusion?", "analysis", "paper's value", "p holm"]
    assert _cells(html) == ["yes", "G study", "0.336", "&lt; 0.0001", "no", "F test", "2.00 × 10⁻³⁰", "0.012"]
    notes = re.search(r'<details class="compendium-notes">(.*?)</details>', html, re.S).group(1)
    assert "Notes (1)" in notes and "<strong>G study</strong>: a long explanation" in notes
    assert "compendium-wide" not in html
    # the data, and so the CSV, is untouched
    assert list(frame.columns) == ["analysis", "paper_value", "p_holm", "note", "conclusion_changes"]
    assert report.table_csv(frame).splitlines()[0] == "analysis,paper_value,p_holm,note,conclusion_changes"


def test_a_chapters_formats_survive_the_reordering():
    frame = pd.DataFrame({"x": [0.5, 0.25], "status": ["reproduced", "differs"]})
    html = report.present(report.tidy(frame.style.format({"x": "{:.1%}"}).hide(axis="index")))
    assert _cells(html) == ["reproduced", "50.0%", "differs", "25.0%"]


def test_a_table_wider_than_the_column_is_marked_wide_and_a_narrow_one_is_not():
    wide = pd.DataFrame({f"column_{k}": [123456.789 * k] for k in range(12)})
    narrow = wide.iloc[:, :3]
    assert 'class="compendium-table compendium-wide"' in report.present(report.tidy(wide.style.hide(axis="index")))
    assert "compendium-wide" not in report.present(report.tidy(narrow.style.hide(axis="index")))
    assert "compendium-wide" in report.present(report.tidy(narrow.style), wide=True)


def test_the_provenance_keeps_a_parenthesis_whole():
    out = report.Outputs("10_real_benchmarks", data="real data (SummEval, WMT23 MQM), `data/real/MANIFEST` `abc`")
    assert "real data (SummEval, WMT23 MQM)" in out.provenance("Table", "designs")
    assert "MANIFEST" not in out.provenance("Table", "designs")


def test_the_banner_leaves_the_reference_list_to_the_build_appendix():
    class Simulated:
        is_simulated = True
        manifest = {"seed": 1}
        data_dir = "/nonexistent"

    text = report.data_banner(Simulated()).data
    assert "Krippendorff 2011" not in text and "build-provenance" in text and "{term}`targeted" in text


@pytest.fixture
def small_ticks():
    """A figure at 110 dpi with 8 pt tick labels and a 14 pt title, closed after the test."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(dpi=110)
    ax.plot([0, 1], [0, 1])
    ax.tick_params(labelsize=8)
    ax.set_title("title", fontsize=14)
    yield fig
    plt.close(fig)


def test_figure_text_size_is_measured_in_image_pixels(small_ticks):
    assert report.smallest_text_px(small_ticks) == pytest.approx(8 * 110 / 72)


def test_a_figure_drawn_into_its_png_is_measured_without_drawing_it_again(small_ticks):
    from IPython.core.pylabtools import print_figure

    fig = small_ticks
    # Undrawn, the tick labels have no text yet: only the title counts.
    assert report.smallest_text_px(fig, drawn=True) == pytest.approx(14 * 110 / 72)
    print_figure(fig, "png", bbox_inches="tight")  # what a kernel's display(figure) does
    assert report.smallest_text_px(fig, drawn=True) == pytest.approx(8 * 110 / 72) == report.smallest_text_px(fig)


# --- the system cards' emojis ------------------------------------------------------------------


def test_each_card_shows_its_systems_most_frequent_emojis():
    from compendium.book import cards

    generations = pd.DataFrame({"system": ["a", "a", "b", "b"], "output": ["😂😂🎷", "👍🏽😂", "✨", "✨✨"]})
    top = cards.top_emojis(generations, n=2)
    assert top[top["system"] == "a"][["emoji", "count"]].values.tolist() == [["😂", 3], ["🎷", 1]]
    assert top.groupby("system")["share"].sum().le(1 + 1e-12).all()
    facts = pd.DataFrame({"system": ["a", "b"], "section": "coverage", "quantity": "outputs", "value": [2.0, 2.0],
                          "lo": np.nan, "hi": np.nan, "note": ""})
    page = cards.cards_html(facts, emojis=top)
    assert page.count('class="sc-emojis"') == 2 and "😂" in page and "✨" in page
    assert 'class="sc-emojis"' not in cards.cards_html(facts)


# --- the robustness appendix -------------------------------------------------------------------


def _sweep(values: dict[str, list[float]], lo=0.0, hi=1.0) -> pd.DataFrame:
    rows = [{"seed": s, "id": claim, "section": "4", "what": claim, "paper": 0.5, "lo": lo, "hi": hi, "value": v,
             "status": "reproduced", "notebook": "02_reliability", "data": "simulated"}
            for claim, vs in values.items() for s, v in enumerate(vs)]
    return pd.DataFrame(rows)


def test_the_closing_summary_names_what_moves_with_which_seed():
    from compendium.analyses.ledger import robustness

    analysis = _sweep({"a.moves": [0.4, 0.6, 0.5], "a.fixed": [0.5, 0.5, 0.5]})
    data = _sweep({"a.moves": [0.1, 0.9, 1.2], "a.fixed": [0.5, 0.5, 0.5]})
    text = report.closing_summary(robustness.side_by_side(analysis, data))
    assert "Over 3 values of the analysis seed (the data fixed), **1 of 2 claims move**" in text
    assert "`a.moves` (SD 0.100, 10.0 % of its band's width)" in text
    assert "On some seed, 0 claims leave their band." in text  # over the analysis seeds
    assert "On some seed, 1 claim leaves its band: `a.moves` (in band on 66.7 % of seeds)" in text  # the data seeds
    assert "1 move more with the data than with the analysis seed" in text
    assert report.closing_summary(robustness.side_by_side(None, None)).startswith("Neither sweep ran")


def test_the_default_build_runs_a_small_analysis_seed_sweep_and_keeps_a_full_one(tmp_path, monkeypatch):
    from compendium.build import sweep

    ran = []

    def fake_sweep(seeds, names, out_dir, parameters, executor=None):
        ran.append((tuple(seeds), tuple(names)))
        (out_dir / sweep.SWEEP_CLAIMS).write_text("seed\n", encoding="utf-8")
        return pd.DataFrame()

    monkeypatch.setattr(sweep, "analysis_sweep", fake_sweep)
    assert sweep.default_analysis_sweep({}, tmp_path / "s") is not None
    assert ran == [(sweep.DEFAULT_ANALYSIS_SEEDS, sweep.DEFAULT_ANALYSIS_CHAPTERS)]
    assert sweep.read_analysis_info(tmp_path / "s")["kind"] == sweep.SMALL
    assert len(sweep.DEFAULT_ANALYSIS_SEEDS) <= 2 and len(sweep.DEFAULT_ANALYSIS_CHAPTERS) == 1  # ~20 s budget
    # a hand-run (full) sweep is never overwritten; other data skips the sweep
    full = tmp_path / "full"
    full.mkdir()
    (full / sweep.SWEEP_CLAIMS).write_text("seed\n", encoding="utf-8")
    assert sweep.default_analysis_sweep({}, full) is None
    assert sweep.default_analysis_sweep({"data_dir": "elsewhere"}, tmp_path / "other") is None
    assert len(ran) == 1
