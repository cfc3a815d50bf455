"""How often leaving one of three raters out changes the winner on resampled panels of the paper's size
(compendium.stats.winner_stability), against a loop over the tested leaderboards of
compendium.stats.panels.leave_one_annotator_out on the same resampled items."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

from compendium.stats import panels, winner_stability as ws

COLS = {"item": "item", "system": "system", "rater": "rater", "rating": "rating"}


def _ratings(n_items=25, seed=3, raters=("a", "b", "c")):
    rng = np.random.default_rng(seed)
    leniency = {"a": 0.0, "b": 0.4, "c": -0.3, "d": 0.2}
    taste = rng.normal(0, 0.25, (4, len(raters)))
    rows = [(f"i{i}", f"s{s}", r, 3.0 + 0.1 * s + leniency[r] + taste[s, k] + rng.normal(0, 0.8))
            for i in range(n_items) for s in range(4) for k, r in enumerate(raters)]
    return pd.DataFrame(rows, columns=list(COLS))


def _loop(frame, n_boot, seed):
    """The same draws as winner_change_probability on one panel, each replicate's leaderboards by pandas."""
    rng = np.random.default_rng(seed)
    rng.choice(1, size=n_boot, p=[1.0])
    items = np.array(sorted(frame["item"].unique()))
    every = some = 0
    for _ in range(n_boot):
        drawn = items[rng.integers(0, len(items), len(items))]
        sample = pd.concat([frame[frame["item"] == i] for i in drawn], ignore_index=True)
        board = panels.leave_one_annotator_out(sample, rater="rater")
        winners = board.groupby("panel")["winner"].first()
        full = set(winners["all"].split(" / "))
        changed = [not (set(w.split(" / ")) & full) for p, w in winners.items() if p != "all"]
        every += all(changed)
        some += any(changed)
    return every / n_boot, some / n_boot


def test_the_vectorised_probabilities_are_the_loop_over_leaderboards():
    frame = _ratings()
    out = ws.winner_change_probability(frame, n_boot=120, seed=7, **COLS)
    assert out["testable"] and out["panels"] == "a, b, c (25 items)"
    assert (out["p_every"], out["p_some"]) == pytest.approx(_loop(frame, 120, 7), abs=1e-12)
    assert 0 < out["p_some"] < 1  # the design is chosen so that the answer is not trivial


def test_only_groups_of_three_raters_with_enough_items_are_panels():
    four = _ratings(raters=("a", "b", "c", "d"))
    assert not ws.winner_change_probability(four, n_boot=10, **COLS)["testable"]  # four raters per item
    small = _ratings(n_items=12)
    out = ws.winner_change_probability(small, n_boot=10, **COLS)
    assert not out["testable"] and "12-12 items" in out["reason"] and "at least 20" in out["reason"]
    two = pd.concat([_ratings(seed=1), _ratings(seed=2, raters=("a", "b", "d")).assign(item=lambda d: d["item"] + "x")])
    found, systems, groups = ws.paper_size_panels(two)
    assert [g for g, _ in found] == [("a", "b", "c"), ("a", "b", "d")] and systems == ["s0", "s1", "s2", "s3"]
    assert found[0][1].shape == (25, 4, 3)


def test_lower_is_better_ranks_the_smallest_mean_first():
    frame = _ratings()
    flipped = frame.assign(rating=-frame["rating"])
    a = ws.winner_change_probability(frame, n_boot=80, seed=1, **COLS)
    b = ws.winner_change_probability(flipped, n_boot=80, seed=1, higher_is_better=False, **COLS)
    assert (a["p_every"], a["p_some"], a["gap_median"]) == (b["p_every"], b["p_some"], b["gap_median"])


def test_the_doctests_run():
    assert doctest.testmod(ws).failed == 0


def test_pairwise_preferences_without_strengths_are_not_testable_not_a_crash():
    """A system that wins every comparison has no Bradley-Terry strength: the audit of such a file says so."""
    from compendium.stats import preference

    frame = pd.DataFrame({"item": [i for i in range(6) for _ in range(3)], "system_a": "x", "system_b": "y",
                          "rater": ["p", "q", "r"] * 6, "winner": "a"})
    out = preference.winner_change_probability(preference.comparisons(frame), n_boot=20)
    assert out == {"testable": False, "reason": out["reason"]} and "never" in out["reason"]


def test_the_pairwise_probabilities_are_the_loop_over_bradley_terry_fits():
    """Each replicate's items drawn as the function draws them (one rng.integers call per replicate), the judgements
    repeated accordingly, and preference.bradley_terry (tested against choix) fitted to the panel and to each panel
    without one rater; a removal changes the winner when no system is top in both (ties at the top share it)."""
    from compendium.stats import preference

    rng = np.random.default_rng(4)
    systems = ["u", "v", "w"]
    rows = []
    for i in range(30):
        a, b = rng.choice(3, 2, replace=False)
        for rater, bias in (("p", 0.5), ("q", 0.2), ("r", -0.4)):
            edge = 0.3 * (b - a) + (bias if "u" in (systems[a], systems[b]) else 0.0)
            first_wins = rng.random() < 1 / (1 + np.exp(-edge))
            rows.append((f"i{i:02d}", systems[a], systems[b], rater, "a" if first_wins else "b"))
    frame = pd.DataFrame(rows, columns=["item", "system_a", "system_b", "rater", "winner"])
    c = preference.comparisons(frame)
    out = preference.winner_change_probability(c, n_boot=40, seed=9)

    def top(judgements):
        strength = preference.bradley_terry(judgements)
        return set(strength.index[strength >= strength.max() - ws.TIE])

    draws = np.random.default_rng(9)
    every = some = 0
    for _ in range(40):
        counts = np.bincount(draws.integers(0, len(c.items), len(c.items)), minlength=len(c.items))
        sample = pd.concat([frame[frame["item"] == c.items[i]].assign(item=f"{i}.{k}")
                            for i in range(len(c.items)) for k in range(counts[i])], ignore_index=True)
        full = top(sample)
        changed = [not (top(sample[sample["rater"] != r]) & full) for r in ("p", "q", "r")]
        every += all(changed)
        some += any(changed)
    assert out["n_boot"] == 40 and (out["p_every"], out["p_some"]) == pytest.approx((every / 40, some / 40))
    assert 0 < out["p_some"] < 1  # the design is chosen so that the answer is not trivial
