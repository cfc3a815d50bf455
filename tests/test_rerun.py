"""The comparison of a re-run with the book's run (compendium.book.rerun)."""

from __future__ import annotations

import math

import pandas as pd

from compendium.book import claims, rerun

PANELS = ("annotators,predicted G,F vs interaction,winner\n"
          "3,0.3361,9.2,claude-3-haiku\n9,0.619,9.2,gemini-2.0-flash\n")


def test_a_changed_winner_and_a_moved_statistic_are_reported():
    moved = PANELS.replace("9,0.619,9.2,gemini-2.0-flash", "9,0.619,2.4,gpt-4o")
    table = rerun.compare_tables({("02_reliability", "simulated_panels"): PANELS},
                                 {("02_reliability", "simulated_panels"): moved})
    assert list(table["kind"]) == ["text", "number"]
    text = table.iloc[0]
    assert (text["row"], text["column"], text["book"], text["rerun"]) == ("annotators=9", "winner", "gemini-2.0-flash", "gpt-4o")
    number = table.iloc[1]
    assert number["column"] == "F vs interaction" and number["book"] == "9.2" and number["rerun"] == "2.4"
    assert math.isclose(number["relative_change"], (9.2 - 2.4) / 9.2)


def test_changes_within_the_tolerance_and_unrun_chapters_are_not_reported():
    nudged = PANELS.replace("0.3361", "0.33610001")
    book = {("02_reliability", "simulated_panels"): PANELS, ("03_length", "table_3"): "a\n1\n"}
    assert rerun.compare_tables(book, {("02_reliability", "simulated_panels"): nudged}, rtol=1e-6).empty
    assert len(rerun.compare_tables(book, {("02_reliability", "simulated_panels"): nudged}, rtol=1e-9)) == 1


def test_a_table_whose_shape_changed_is_reported_once():
    fewer = "annotators,predicted G,F vs interaction,winner\n3,0.3361,9.2,claude-3-haiku\n"
    table = rerun.compare_tables({("x", "t"): PANELS}, {("x", "t"): fewer})
    assert list(table["kind"]) == ["shape"] and table["book"].iloc[0] == "2 rows x 4 columns"


def test_moved_claims_keep_only_moved_rows_with_band_and_readable_numbers(tmp_path):
    book = claims.ledger({"design.n_sentences": {"reproduced": 17100}, "agreement.alpha_ordinal": {"reproduced": 0.0123456789}})
    again = claims.ledger({"design.n_sentences": {"reproduced": 17100}, "agreement.alpha_ordinal": {"reproduced": 0.0812345678}})
    comparison = rerun.Comparison(claims.compare(book, again), rerun.compare_tables({}, {}), 1e-6)
    paths = comparison.write(tmp_path)
    moved = pd.read_csv(paths["claims_moved"], dtype=str)
    assert list(moved["id"]) == ["agreement.alpha_ordinal"]
    assert moved.loc[0, "rerun"] == "0.08123" and moved.loc[0, "book"] == "0.01235"
    band = claims.registry()["agreement.alpha_ordinal"]
    assert moved.loc[0, "lo"] == rerun.fmt(band.lo) and moved.loc[0, "hi"] == rerun.fmt(band.hi)
    assert len(pd.read_csv(paths["claims_compared"])) == 2
    lines = comparison.lines()
    assert lines[0] == "1 of 2 claims moved against the book's run:"
    assert f"band [{rerun.fmt(band.lo)}, {rerun.fmt(band.hi)}]" in lines[1]


def test_fmt_shows_integers_as_integers_and_hides_missing_values():
    assert rerun.fmt(19.0) == "19" and rerun.fmt(0.123456789) == "0.1235" and rerun.fmt(float("nan")) == ""


def test_every_changed_winner_is_printed():
    moved = PANELS.replace("3,0.3361,9.2,claude-3-haiku", "3,0.3361,9.2,gpt-4o").replace(
        "9,0.619,9.2,gemini-2.0-flash", "9,0.619,9.2,gpt-4.1-nano")
    tables = rerun.compare_tables({("02_reliability", "simulated_panels"): PANELS},
                                  {("02_reliability", "simulated_panels"): moved})
    empty = claims.compare([], [])
    lines = rerun.Comparison(empty, tables, 1e-6).lines()
    assert lines[1].startswith("1 tables changed")
    assert "annotators=3 / winner: claude-3-haiku -> gpt-4o (text)" in lines[2]
    assert lines[3] == "    also annotators=9 / winner: gemini-2.0-flash -> gpt-4.1-nano"
