"""The explorer's incomplete and pairwise panels (issue 70): the audit's own numbers, panel by panel."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from compendium.book import explorer, explorer_designs as designs
from compendium.simulate.crossed import simulate_crossed
from compendium.stats import gtheory


def test_doctests():
    for module in (designs, explorer):
        assert doctest.testmod(module).failed == 0


def test_small_panels_hold_every_subset_and_large_ones_state_their_rule():
    subsets, rule = designs.held_subsets(["A", "B", "C", "D"])
    assert len(subsets) == 15 and subsets[0] == ("A", "B", "C", "D") and rule == explorer.EVERY_SUBSET
    subsets, rule = designs.held_subsets([f"R{i}" for i in range(8)])
    assert len(subsets) == 1 + 8 + 28 and min(map(len, subsets)) == 6
    assert "without at most 2 of the 8 raters" in rule and "(37 panels)" in rule


@pytest.fixture(scope="module")
def crossed():
    return simulate_crossed(30, 4, 4, seed=11, scale=(1, 5))


def test_on_a_complete_design_the_reml_panels_rank_by_the_anova_panels_means(crossed):
    """On a complete design every panel stays complete, so the GLS score the incomplete explorer ranks by is
    the plain mean the complete explorer (pandas, ANOVA) shows: the same ranks, winners and means on every
    subset; and the full panel's REML F, items and raters random, is the ANOVA quasi-F
    MS_s / (MS_ps + MS_sr - MS_psr) (REML equals ANOVA on a complete design with no component truncated)."""
    reml = designs.precompute_incomplete(crossed)
    anova = explorer.precompute_panels(crossed)
    assert [s["annotators"] for s in reml["subsets"]] == [s["annotators"] for s in anova["subsets"]]
    for mine, theirs in zip(reml["subsets"], anova["subsets"]):
        assert [(e["system"], e["rank"]) for e in mine["leaderboard"]] == [
            (e["system"], e["rank"]) for e in theirs["leaderboard"]]
        # both rounded to 4 decimals from one number computed two ways (GLS solve against a groupby mean)
        assert [e["estimate"] for e in mine["leaderboard"]] == pytest.approx(
            [e["mean"] for e in theirs["leaderboard"]], abs=1e-4)
        assert mine["winners"] == theirs["winners"]
    # REML's optimum against ANOVA's closed form agree to about 1e-6 relative (tests/test_gstudy.py); F is
    # rounded to 4 decimals
    ms = gtheory.anova_table(crossed)["MS"]
    assert (gtheory.variance_components(crossed)["raw"] > 0).all()  # no truncation: the identity applies
    quasi = ms["system"] / (ms["item:system"] + ms["system:annotator"] - ms["residual"])
    # the explorer keeps F to 4 decimals: half a unit of the fourth, plus REML's 1e-6 relative
    assert reml["subsets"][0]["F_random"] == pytest.approx(quasi, abs=1e-4)
    assert all(s["G"] is None for s in reml["subsets"] if s["n_raters"] == 1)
    assert reml["design"] == "incomplete" and [c[0] for c in reml["columns"]] == ["estimate", "mean"]


@pytest.fixture(scope="module")
def real_entries():
    return designs.real_evaluations()  # the build's, from its store under make test


@pytest.fixture(scope="module")
def real_panels(real_entries):
    return {name: data for name, _, _, data in real_entries}


#: The audit's names of the explorer's incomplete evaluations (the audit reads -MQM, as the explorer).
RATED = {"SQuALITY overall": ("squality", "overall"), "WMT23 en-de MQM": ("mqm", "ende"),
         "WMT23 zh-en MQM": ("mqm", "zhen")}


@pytest.mark.parametrize("name", sorted(RATED))
def test_every_incomplete_real_panel_without_one_rater_is_the_audits_leave_one_out_panel(real_panels, name):
    """Issue 70: the explorer's subsets come from the audit's functions, so the subset without each rater is that
    rater's leave-one-rater-out panel in the audit's JSON (core.audit, which rounds nothing; the explorer keeps 4
    decimals, hence half a unit in the fourth), and the full panel's statistics are the audit's."""
    from compendium.audit import core
    from compendium.data import real

    kind, which = RATED[name]
    ratings = real.load_squality(which) if kind == "squality" else real.load_mqm(which)
    if kind == "mqm":
        ratings = ratings.assign(rating=-ratings["rating"])
    summary = core.audit(ratings, n_boot=20, item="item", rater="rater")
    data = real_panels[name]
    theirs = {p["panel"]: p for p in summary["loao"]["panels"]}
    assert len(theirs) == 1 + len(data["annotators"])
    for left_out in [None, *data["annotators"]]:
        keep = [a for a in data["annotators"] if a != left_out]
        mine = explorer.find_subset(data, keep)
        panel = theirs["all" if left_out is None else f"without {left_out}"]
        assert set(mine["winners"]) == set(panel["winner"].split(" / ")), left_out
        board = {e["system"]: e for e in panel["leaderboard"]}
        assert {e["system"]: e["rank"] for e in mine["leaderboard"]} == {s: e["rank"] for s, e in board.items()}
        for e in mine["leaderboard"]:
            # the explorer's 4 decimals against the audit's unrounded values: half a unit of the fourth
            assert e["mean"] == pytest.approx(board[e["system"]]["mean"], abs=5e-5)
            assert e["estimate"] == pytest.approx(board[e["system"]]["estimate"], abs=5e-5)
    full = data["subsets"][0]
    # the explorer's 4 decimals against the audit's unrounded F and G
    assert full["F_random"] == pytest.approx(summary["system_test_reml"]["F"], abs=5e-5)
    assert full["G"] == pytest.approx(summary["G"], abs=5e-5)
    # every held subset is a panel of the evaluation's raters, each statistic line filled in
    assert all(len(s["statistics"]) == 3 and all(line[2] for line in s["statistics"]) for s in data["subsets"])


def test_the_pairwise_panel_without_one_rater_is_the_pairwise_audits(real_panels):
    """PandaLM: the subset without each annotator names the winner and the order of that annotator's
    leave-one-out panel in the pairwise audit's JSON; the full panel's F is the audit's raters-random F."""
    from compendium.audit import categorical
    from compendium.data import real

    summary, _ = categorical.audit_pairwise(real.load_pandalm(), n_boot=20, n_boot_raters=5)
    data = real_panels["PandaLM"]
    assert data["design"] == "pairwise" and summary["loro"]["n_panels"] == len(data["annotators"]) == 3
    for panel in summary["loro"]["panels"]:
        mine = explorer.find_subset(data, [a for a in data["annotators"] if a != panel["left_out"]])
        assert mine["winners"] == [panel["winner"]]
        assert [e["system"] for e in sorted(mine["leaderboard"], key=lambda e: e["rank"])] == panel["order"]
    full = data["subsets"][0]
    assert full["winners"] == [summary["winner"]]
    assert [e["system"] for e in full["leaderboard"]] == summary["order"]
    # the explorer's 4 decimals against the audit's unrounded F and shares won
    assert full["F_vs_interaction"] == pytest.approx(summary["rater_system_spread"]["F"], abs=5e-5)
    shares = {row["system"]: row["win_rate"] for row in summary["systems"]}
    assert all(e["mean"] == pytest.approx(shares[e["system"]], abs=5e-5) for e in full["leaderboard"])
    alone = [s for s in data["subsets"] if s["n_raters"] == 1]
    assert len(alone) == 3 and all(explorer.ONE_RATER in s["statistics"][0][2] for s in alone)


def test_the_real_panels_open_on_real_data_and_fit_the_page(real_entries, real_panels):
    chosen = explorer.evaluation_set(real_entries)
    assert {e["kind"] for e in chosen["evaluations"]} == {"real"}
    assert len(explorer.to_json(chosen).encode()) < 500_000  # the page's budget is 1 MB for every panel
    for name, data in real_panels.items():
        assert data["subsets"][0]["n_raters"] == len(data["annotators"]), name
        assert all(np.isfinite(e["estimate" if data["design"] != "complete" else "mean"])
                   for e in data["subsets"][0]["leaderboard"]), name
