"""The kernel-free annotator explorer: precomputed panels and the HTML fragment."""

from __future__ import annotations

import doctest
import itertools
import json
import math
import re

import pandas as pd
import pytest

from compendium.book import explorer
from compendium.simulate.crossed import simulate_crossed
from compendium.stats import panels
from compendium.data import schema


@pytest.fixture(scope="module")
def crossed() -> pd.DataFrame:
    """A crossed 30 items x 8 schema systems x 3 annotators study, categorical like the loader's."""
    data = simulate_crossed(30, len(schema.SYSTEMS), 3, seed=3, scale=(1, 5),
                                        system_means=[0.4, 0.3, 0.35, 0.1, 0.0, 0.2, 0.25, -0.1])
    names = dict(zip([f"S{i + 1}" for i in range(len(schema.SYSTEMS))], schema.SYSTEMS))
    data["system"] = pd.Categorical(data["system"].map(names), categories=list(schema.SYSTEMS))
    data["annotator"] = pd.Categorical(data["annotator"], categories=list(schema.ANNOTATORS))
    data["sentence_id"] = data["sentence_id"].map(lambda i: f"bn-{i:03d}")
    return data


@pytest.fixture(scope="module")
def larger() -> pd.DataFrame:
    return simulate_crossed(25, 4, 6, seed=5, scale=(1, 5))


@pytest.fixture(scope="module")
def precomputed(crossed, larger) -> dict:
    return explorer.precompute_panels(crossed, extra_panels={"6 simulated annotators": larger})


def _subset(data: pd.DataFrame, keep) -> pd.DataFrame:
    return data[data["annotator"].isin(keep)]


# ------------------------------------------------------------------ precompute
def test_every_non_empty_subset_is_present_once_full_panel_first(precomputed):
    assert precomputed["annotators"] == ["A1", "A2", "A3"]
    got = [tuple(s["annotators"]) for s in precomputed["subsets"]]
    expected = [c for k in (3, 2, 1) for c in itertools.combinations(["A1", "A2", "A3"], k)]
    assert got == expected
    assert len(set(got)) == 2**3 - 1


def test_every_subset_matches_panel_summary(crossed, precomputed):
    for entry in precomputed["subsets"]:
        ref = panels.panel_summary(_subset(crossed, entry["annotators"]))
        board = ref["leaderboard"]
        assert [e["system"] for e in entry["leaderboard"]] == list(board["system"])
        assert [e["rank"] for e in entry["leaderboard"]] == list(board["rank"])
        # The page stores means rounded to explorer.MEAN_DECIMALS = 4 places: half a unit of the last is 5e-5.
        assert [e["mean"] for e in entry["leaderboard"]] == pytest.approx(list(board["mean"]), abs=1e-4)
        assert [e["label"] for e in entry["leaderboard"]] == [schema.SYSTEM_LABELS[s] for s in board["system"]]
        assert entry["winner"] == ref["winner"]
        assert entry["winners"] == list(board.loc[board["rank"] == 1, "system"])
        assert entry["n_raters"] == ref["n_raters"] == len(entry["annotators"])
        for key in ("F_vs_residual", "F_vs_interaction", "G"):
            if ref[key] is None:
                assert entry[key] is None
            else:
                # Rounded to explorer.MEAN_DECIMALS = 4 places in the page (half a unit: 5e-5).
                assert entry[key] == pytest.approx(ref[key], abs=1e-4)
        for key in ("p_vs_residual", "p_vs_interaction"):
            if ref[key] is None:
                assert entry[key] is None
            else:
                # p values are kept to explorer.P_DIGITS = 4 significant digits: half a unit of the fourth is at most
                # 5e-4 relative.
                assert entry[key] == pytest.approx(ref[key], rel=1e-3)


def test_single_annotator_panels_have_no_f_or_g(precomputed):
    for entry in precomputed["subsets"]:
        undefined = [entry[k] is None for k in explorer.STATISTICS]
        assert all(undefined) if entry["n_raters"] == 1 else not any(undefined)


def test_leave_one_out_subsets_match_table_2(crossed, precomputed):
    loao = panels.leave_one_annotator_out(crossed)
    for annotator in ["A1", "A2", "A3"]:
        keep = [a for a in ["A1", "A2", "A3"] if a != annotator]
        entry = explorer.find_subset(precomputed, reversed(keep))  # any order finds it
        table = loao[loao["panel"] == f"without {annotator}"]
        assert [(e["system"], e["rank"]) for e in entry["leaderboard"]] == list(
            zip(table["system"].astype(str), table["rank"]))
    with pytest.raises(KeyError, match="no precomputed panel"):
        explorer.find_subset(precomputed, ["A9"])
    with pytest.raises(KeyError):
        explorer.find_subset(precomputed, [])


def test_extra_panels_are_summarised_at_every_size_with_their_first_annotators(larger, precomputed):
    (panel,) = precomputed["panels"]
    assert panel["name"] == "6 simulated annotators"
    assert panel["annotators"] == [f"A{i}" for i in range(1, 7)]
    assert [s["size"] for s in panel["sizes"]] == list(range(1, 7))
    for entry in panel["sizes"]:
        ref = panels.panel_summary(_subset(larger, panel["annotators"][: entry["size"]]))
        assert entry["n_raters"] == entry["size"]
        assert [e["system"] for e in entry["leaderboard"]] == list(ref["leaderboard"]["system"])
        assert entry["winner"] == ref["winner"]
        if entry["size"] > 1:
            # G and F are rounded to explorer.MEAN_DECIMALS = 4 places in the page (half a unit: 5e-5).
            assert entry["G"] == pytest.approx(ref["G"], abs=1e-4)
            assert entry["F_vs_interaction"] == pytest.approx(ref["F_vs_interaction"], abs=1e-4)


def test_panel_sizes_restrict_and_clip_the_sizes(crossed, larger):
    data = explorer.precompute_panels(crossed, extra_panels={"p": larger}, panel_sizes=[9, 3, 1, 3, 0])
    assert [s["size"] for s in data["panels"][0]["sizes"]] == [1, 3]


def test_json_is_deterministic_rounded_and_strict(crossed, larger, precomputed):
    again = explorer.precompute_panels(crossed.sample(frac=1.0, random_state=1),
                                       extra_panels={"6 simulated annotators": larger})
    text = explorer.to_json(precomputed)
    assert explorer.to_json(again) == text  # row order of the input does not matter
    assert json.loads(text) == precomputed  # plain JSON types only
    assert "NaN" not in text and "Infinity" not in text
    for entry in precomputed["subsets"]:
        for row in entry["leaderboard"]:
            assert row["mean"] == round(row["mean"], explorer.MEAN_DECIMALS)
        for key in ("F_vs_residual", "F_vs_interaction", "G"):
            assert entry[key] is None or entry[key] == round(entry[key], explorer.MEAN_DECIMALS)


def test_plain_string_columns_and_other_names_work():
    data = simulate_crossed(12, 3, 3, seed=0, scale=(1, 5)).rename(
        columns={"annotator": "rater", "rating": "score"})
    out = explorer.precompute_panels(data, rater="rater", rating="score")
    assert out["annotators"] == ["A1", "A2", "A3"]
    assert [s["system"] for s in out["systems"]] == ["S1", "S2", "S3"]
    assert out["systems"][0]["label"] == "S1"  # unknown systems keep their name
    assert len(out["subsets"]) == 7


def test_bad_input_is_refused(crossed):
    with pytest.raises(KeyError, match="rating"):
        explorer.precompute_panels(crossed.drop(columns="rating"))
    with pytest.raises(ValueError, match="no ratings"):
        explorer.precompute_panels(crossed.iloc[:0])
    many = simulate_crossed(3, 2, explorer.MAX_SUBSET_ANNOTATORS + 1, seed=0)
    with pytest.raises(ValueError, match="extra_panels"):
        explorer.precompute_panels(many)


def test_non_finite_values_become_null():
    assert explorer._number(float("nan")) is None
    assert explorer._pvalue(float("inf")) is None
    assert explorer._pvalue(3.14159e-40) == 3.142e-40
    assert math.copysign(1, explorer._number(-0.00001)) == 1.0


# ------------------------------------------------------------------ HTML
def test_html_is_self_contained(precomputed):
    page = explorer.explorer_html(precomputed)
    assert not re.search(r"https?://", page), "the fragment must load nothing from another host"
    assert not re.search(r"<script[^>]*\bsrc=", page)
    assert not re.search(r"<link\b", page)
    assert not re.search(r"<img\b|url\(", page)


def test_html_contains_the_data_and_the_hooks(precomputed):
    page = explorer.explorer_html(precomputed)
    payload = re.search(r'<script type="application/json" class="explorer-data">(.*?)</script>', page, re.S)
    assert payload, "the precomputed data is embedded as inline JSON"
    assert json.loads(payload.group(1)) == precomputed
    for annotator in precomputed["annotators"]:
        assert f'<input type="checkbox" data-annotator="{annotator}" checked>' in page
    for hook in ("explorer-leaderboard", "explorer-winner", "explorer-f-residual", "explorer-f-interaction",
                 "explorer-g", "explorer-panel", "explorer-empty", "explorer-size", "explorer-sim-leaderboard"):
        assert f'id="{hook}"' in page
    assert page.count('id="explorer-leaderboard"') == 1
    # the full panel is in the HTML itself (readable without JavaScript), in rank order
    table = re.search(r'<table id="explorer-leaderboard">.*?</table>', page, re.S).group(0)
    full = precomputed["subsets"][0]
    labels = re.findall(r"<tr data-system=\"[^\"]+\"[^>]*><td class=\"num\">\d+</td><td>([^<]+)</td>", table)
    assert labels == [e["label"] for e in full["leaderboard"]]
    assert "No annotator is ticked" in page


def test_html_without_extra_panels_has_no_size_control(crossed):
    page = explorer.explorer_html(explorer.precompute_panels(crossed))
    assert 'id="explorer-size"' not in page and 'id="explorer-leaderboard"' in page


def test_embedded_json_cannot_close_the_script(crossed):
    data = explorer.precompute_panels(crossed, labels={"claude-3-haiku": "</script><b>&"})
    page = explorer.explorer_html(data)
    payload = re.search(r'class="explorer-data">(.*?)</script>', page, re.S).group(1)
    assert "</" not in payload and json.loads(payload) == data
    assert "&lt;/script&gt;&lt;b&gt;&amp;" in page  # and labels are escaped in the table


def test_html_refuses_other_input():
    with pytest.raises(ValueError, match="precompute_panels"):
        explorer.explorer_html({"subsets": []})


def test_p_value_formatting_matches_the_script():
    assert explorer._fmt_p(None) == "p = \u2013"
    assert explorer._fmt_p(0.0) == "p < 1e-300"
    assert explorer._fmt_p(0.3296) == "p = 0.330"
    assert explorer._fmt_p(3.359e-14) == "p = 3.4e-14"  # as JavaScript's toExponential(1)


def test_doctests():
    result = doctest.testmod(explorer, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


# --------------------------------------------------------------------------- length bias (chapter 3)


def test_length_bias_boards_remove_one_slope_by_hand(crossed):
    """Each board is the MOS after rating - slope * (count - that rater's mean count), computed here by hand."""
    lengths = crossed[["sentence_id", "system"]].drop_duplicates().reset_index(drop=True)
    lengths["graphemes"] = [(i * 7) % 5 + 1 for i in range(len(lengths))]
    slopes = {"A1": 0.0, "A2": 0.1, "A3": 0.6}
    data = explorer.precompute_length_bias(crossed, lengths, slopes)
    assert [b["annotator"] for b in data["boards"]] == ["none", "A1", "A2", "A3"]
    joined = crossed.merge(lengths, on=["sentence_id", "system"])
    for board in data["boards"]:
        adjusted = joined["rating"].astype(float).copy()
        if board["annotator"] != "none":
            mine = joined["annotator"] == board["annotator"]
            centred = joined.loc[mine, "graphemes"] - joined.loc[mine, "graphemes"].mean()
            adjusted[mine] -= slopes[board["annotator"]] * centred
        expected = adjusted.groupby(joined["system"].astype(str)).mean().sort_values(ascending=False)
        shown = [(e["system"], e["mean"]) for e in board["leaderboard"]]
        assert [s for s, _ in shown] == list(expected.index), board["annotator"]
        assert all(abs(m - expected[s]) < 1e-4 for s, m in shown)
        assert [e["rank"] for e in board["leaderboard"]] == list(range(1, len(expected) + 1))
    # A1's slope is zero: its board is the unadjusted one
    assert data["boards"][1]["leaderboard"] == data["boards"][0]["leaderboard"]
    page = explorer.length_bias_html(data)
    assert page.count("<option") == 4 and 'id="length-explorer-leaderboard"' in page and "http" not in page
    with pytest.raises(ValueError, match="precompute_length_bias"):
        explorer.length_bias_html({"boards": []})


# ------------------------------------------------------------------ a choice of evaluations (issue 70)
def test_a_set_of_evaluations_opens_on_the_first_and_offers_every_one(crossed, larger, precomputed):
    plain = explorer.precompute_panels(larger, item="sentence_id")
    chosen = explorer.evaluation_set([("Real study", "real", "Real: a study.", plain),
                                      ("Simulated study", "simulated", "Simulated: <the> design.", precomputed)])
    page = explorer.explorer_html(chosen)
    payload = re.search(r'class="explorer-data">(.*?)</script>', page, re.S).group(1)
    assert json.loads(payload) == chosen
    options = re.findall(r'<option value="(\d)">([^<]+)</option>', page.split('id="explorer-evaluation"', 1)[1])
    assert options[:2] == [("0", "Real study (real)"), ("1", "Simulated study (simulated)")]
    assert '<p id="explorer-evaluation-note" class="explorer-note">Real: a study.</p>' in page
    # the page opens on the first evaluation: its raters' boxes, and the larger panels of the other hidden
    boxes = re.search(r'<span id="explorer-boxes">(.*?)</span>', page, re.S).group(1)
    assert re.findall(r'data-annotator="([^"]+)"', boxes) == plain["annotators"]
    assert '<div id="explorer-sim" hidden>' in page and 'id="explorer-size"' in page
    assert "&lt;the&gt;" not in page and "Simulated: \\u003cthe\\u003e design." in payload  # data stay data


def test_a_set_of_evaluations_refuses_what_it_cannot_show(precomputed):
    with pytest.raises(ValueError, match="at least one"):
        explorer.evaluation_set([])
    with pytest.raises(ValueError, match="kind"):
        explorer.evaluation_set([("A", "imagined", "", precomputed)])
    with pytest.raises(ValueError, match="repeat"):
        explorer.evaluation_set([("A", "real", "", precomputed), ("A", "real", "", precomputed)])
    with pytest.raises(ValueError, match="precompute_panels"):
        explorer.evaluation_set([("A", "real", "", {"subsets": []})])


def test_the_slider_caption_says_what_it_shows(crossed, larger):
    page = explorer.explorer_html(explorer.precompute_panels(crossed, extra_panels={"a simulated panel": larger}))
    assert "The first 6 of the 6 annotators of a simulated panel seated." in page
    assert "function seatedText" in page  # the script says it the same way (explorer.seated_text)


@pytest.mark.parametrize("dimension", ["coherence", "consistency", "fluency", "relevance"])
def test_every_real_panel_without_one_rater_is_the_audits_leave_one_out_panel(dimension):
    """Issue 70: the explorer's subsets of SummEval's experts come from the functions the audit uses, so each
    subset that drops one expert equals that expert's leave-one-rater-out panel in the audit's JSON: the same
    winner, the same ranks and the same means (the audit's JSON rounds to 15 significant digits, the
    explorer to 4 decimals, hence the tolerance of half a unit in the fourth)."""
    from compendium.audit import core
    from compendium.data import real

    ratings = real.load_summeval(dimension)
    data = explorer.precompute_panels(ratings, labels={}, item="item", rater="rater")
    summary = core.audit(ratings, n_boot=20, item="item", rater="rater")
    panels_by_name = {p["panel"]: p for p in summary["loao"]["panels"]}
    assert len(panels_by_name) == 1 + len(data["annotators"])
    for left_out in data["annotators"]:
        mine = explorer.find_subset(data, [a for a in data["annotators"] if a != left_out])
        theirs = panels_by_name[f"without {left_out}"]
        assert set(mine["winners"]) == set(theirs["winner"].split(" / "))  # the page shows every tied winner
        ranks = {e["system"]: e["rank"] for e in theirs["leaderboard"]}  # tied systems share a rank, in any order
        assert {e["system"]: e["rank"] for e in mine["leaderboard"]} == ranks
        means = {e["system"]: e["mean"] for e in theirs["leaderboard"]}
        assert all(abs(e["mean"] - means[e["system"]]) <= 5e-5 for e in mine["leaderboard"])
