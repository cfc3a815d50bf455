"""The comparison of a re-run with the book's run (compendium.build.rerun)."""

from __future__ import annotations

import math

import pandas as pd

from compendium.analyses.ledger import claims
from compendium.build import rerun

PANELS = ("annotators,predicted G,F vs interaction,winner\n"
          "3,0.3361,9.2,claude-3-haiku\n9,0.619,9.2,gemini-2.0-flash\n")


def test_a_changed_winner_and_a_moved_statistic_are_reported():
    moved = PANELS.replace("9,0.619,9.2,gemini-2.0-flash", "9,0.619,2.4,gpt-4o")
    table = rerun.compare_tables({("02_reliability", "simulated_panels"): PANELS},
                                 {("02_reliability", "simulated_panels"): moved})
    assert list(table["kind"]) == ["text", "number"]
    text = table.iloc[0]
    assert (text["row"], text["column"], text["book"], text["rerun"]) == (
        "annotators=9",
        "winner",
        "gemini-2.0-flash",
        "gpt-4o",
    )
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
    book = claims.ledger(
        {"design.n_sentences": {"reproduced": 17100}, "agreement.alpha_ordinal": {"reproduced": 0.0123456789}}
    )
    again = claims.ledger(
        {"design.n_sentences": {"reproduced": 17100}, "agreement.alpha_ordinal": {"reproduced": 0.0812345678}}
    )
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


def test_a_chapter_that_records_no_claims_is_compared_without_error(tmp_path):
    """Chapter 10 records no claim: the empty comparison writes its files and says 0 of 0."""
    comparison = rerun.Comparison(claims.compare([], []), rerun.compare_tables({}, {}), 1e-6)
    paths = comparison.write(tmp_path)
    assert list(pd.read_csv(paths["claims_moved"]).columns) == list(rerun.MOVED_FIELDS)
    assert comparison.lines()[0] == "0 of 0 claims moved against the book's run:"


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


LEADERBOARD = "rank,system,mean\n1,alpha,3.9\n2,beta,3.7\n3,gamma,3.1\n"


def test_rows_are_matched_by_key_when_two_systems_swap_ranks():
    swapped = "rank,system,mean\n1,beta,3.8\n2,alpha,3.75\n3,gamma,3.1\n"
    table = rerun.compare_tables({("x", "board"): LEADERBOARD}, {("x", "board"): swapped})
    assert rerun.key_column(pd.read_csv(__import__("io").StringIO(LEADERBOARD)),
                            pd.read_csv(__import__("io").StringIO(swapped))) == "system"
    cells = {(r.row, r.column): (r.book, r.rerun) for r in table.itertuples()}
    assert cells == {("system=alpha", "rank"): ("1", "2"), ("system=beta", "rank"): ("2", "1"),
                     ("system=alpha", "mean"): ("3.9", "3.75"), ("system=beta", "mean"): ("3.7", "3.8")}
    assert "text" not in set(table["kind"])  # no system was "renamed"


def test_rows_only_one_run_has_are_added_or_removed_not_a_change_of_shape():
    fewer = "rank,system,mean\n1,alpha,3.9\n2,gamma,3.1\n3,delta,2.0\n"
    table = rerun.compare_tables({("x", "board"): LEADERBOARD}, {("x", "board"): fewer})
    kinds = {(r.row, r.kind) for r in table.itertuples()}
    assert {("system=beta", "removed"), ("system=delta", "added"), ("system=gamma", "number")} <= kinds
    assert "shape" not in set(table["kind"])


def _notebook(*texts):
    return {"cells": [{"cell_type": "code", "outputs": [{"output_type": "display_data",
                                                         "data": {"text/markdown": text}}]} for text in texts]}


def test_a_sentence_whose_words_changed_comes_before_one_whose_numbers_changed():
    book = _notebook("G is 0.34 at 3 annotators. It underestimates what larger panels achieve.",
                     '- the winner changes with the panel size <small class="compendium-provenance">cell [4]</small>')
    again = _notebook("G is 0.52 at 3 annotators. It predicts the larger panels well.",
                      '- every panel size has the same winner <small class="compendium-provenance">cell [5]</small>')
    table = rerun.compare_sentences(book, again, "02_reliability")
    assert list(table["kind"]) == ["words", "words", "numbers"]
    assert table.iloc[0]["book"] == "It underestimates what larger panels achieve."
    assert table.iloc[1]["rerun"] == "- every panel size has the same winner"  # provenance markup taken out
    assert rerun.compare_sentences(book, book).empty


def test_a_column_whose_values_are_the_same_in_both_runs_is_preferred_as_the_key():
    book = "annotators,winner\n3,alpha\n9,beta\n27,gamma\n"
    again = "annotators,winner\n3,alpha\n9,beta\n27,delta\n"
    table = rerun.compare_tables({("x", "panels"): book}, {("x", "panels"): again})
    assert [(r.row, r.column, r.book, r.rerun) for r in table.itertuples()] == [
        ("annotators=27", "winner", "gamma", "delta")
    ]
