"""Tests for compendium.analyses.leakage (paper section 9).

The leak formula is checked against simulated row-wise splits, the
no-split probability against exhaustive enumeration of all assignments, the
grouped split against its one promise (no item on both sides), and the
optimism measurement on a synthetic multi-view table whose views share an
item-specific emoji -- the mechanism that makes row-wise splits leak.
"""

from __future__ import annotations

import doctest
import itertools

import numpy as np
import pandas as pd
import pytest
from emoji import EMOJI_DATA, STATUS
from scipy import stats

from compendium.analyses import leakage
from compendium.analyses.emoji import graphemes
from compendium.analyses.leakage import (
    expected_leaked_fraction,
    grouped_split,
    leaked_share,
    multiview_table,
    optimism_by_ratio,
    prob_no_item_split,
    replicate_seeds,
    rowwise_split,
    split_optimism,
    system_rankings,
)

#: Single-code-point, fully qualified emoji that segment to themselves, in a fixed order.
POOL = [
    e
    for e in sorted(EMOJI_DATA)
    if len(e) == 1 and EMOJI_DATA[e]["status"] == STATUS["fully_qualified"] and graphemes(e) == [e]
]


def ids_table(n_items: int, n_views: int, labels=None, *, names: bool = True) -> pd.DataFrame:
    """A multi-view table of ``n_items`` items with ``n_views`` rows each (integer ids if not ``names``)."""
    items = np.repeat([f"i{k:05d}" for k in range(n_items)] if names else np.arange(n_items), n_views)
    if labels is None:
        labels = np.array(["x", "y", "z"])[np.arange(n_items) % 3]
    return pd.DataFrame({"sentence_id": items, "label": np.repeat(labels, n_views)})


# ------------------------------------------------------------------ the arithmetic
def test_expected_leaked_fraction_values_of_section_9():
    assert expected_leaked_fraction(0.8, 8) == pytest.approx(1 - 0.2**7, abs=1e-15)  # 0.9999872
    assert expected_leaked_fraction(0.8, 5) == pytest.approx(0.9984, abs=1e-12)
    assert expected_leaked_fraction(0.8, 1) == 0.0  # one view: nothing to leak
    grid = expected_leaked_fraction(np.array([[0.5], [0.8]]), np.array([2, 3, 8]))
    assert grid.shape == (2, 3)
    np.testing.assert_allclose(grid[0], [0.5, 0.75, 1 - 0.5**7])
    with pytest.raises(ValueError):
        expected_leaked_fraction(1.2, 3)


@pytest.mark.parametrize("train_fraction, n_views", [(0.5, 3), (0.7, 2), (0.3, 4)])
def test_expected_leaked_fraction_matches_monte_carlo_rowwise_splits(train_fraction, n_views):
    table = ids_table(1200, n_views, names=False)
    shares = np.array(
        [
            leaked_share(table, *rowwise_split(table, train_fraction=train_fraction, seed=seed, label=None))
            for seed in range(120)
        ]
    )
    se = shares.std(ddof=1) / np.sqrt(len(shares))
    expected = expected_leaked_fraction(train_fraction, n_views)
    assert abs(shares.mean() - expected) < 3 * se
    # the check is sharp enough to reject the natural mistake (V instead of V - 1 other views)
    assert abs(shares.mean() - (1 - (1 - train_fraction) ** n_views)) > 3 * se


def enumerate_no_split(rho: float, n_views: int, n_items: int) -> float:
    """P(no item split) by summing over all 2^(N V) Bernoulli(rho) assignments of rows to training."""
    total = 0.0
    for assignment in itertools.product((0, 1), repeat=n_views * n_items):
        rows = np.array(assignment).reshape(n_items, n_views)
        whole = all(len(set(item)) == 1 for item in rows)
        if whole:
            k = rows.sum()
            total += rho**k * (1 - rho) ** (rows.size - k)
    return total


@pytest.mark.parametrize("rho", [0.3, 0.8])
@pytest.mark.parametrize("n_views, n_items", [(1, 3), (2, 1), (2, 3), (3, 2), (4, 3)])
def test_prob_no_item_split_matches_enumeration(rho, n_views, n_items):
    p, log10p = prob_no_item_split(rho, n_views, n_items)
    expected = enumerate_no_split(rho, n_views, n_items)
    assert p == pytest.approx(expected, rel=1e-12)
    assert log10p == pytest.approx(np.log10(expected), rel=1e-12, abs=1e-14)


def test_prob_no_item_split_underflows_but_its_log10_does_not():
    p, log10p = prob_no_item_split(0.8, 8, 4206)
    assert p == 0.0
    assert log10p == pytest.approx(4206 * np.log10(0.8**8 + 0.2**8), rel=1e-12)
    p, log10p = prob_no_item_split(np.array([0.0, 0.5, 1.0]), 3, 10)
    np.testing.assert_allclose(p, [1.0, 0.25**10, 1.0])
    np.testing.assert_allclose(log10p, [0.0, 10 * np.log10(0.25), 0.0], atol=1e-15)


# ------------------------------------------------------------------ the two protocols
@pytest.mark.parametrize("seed", [0, 1, 2, 17, 2026])
@pytest.mark.parametrize("train_fraction", [0.5, 0.8])
def test_grouped_split_never_puts_an_item_on_both_sides(seed, train_fraction):
    table = ids_table(300, 8)
    train, test = grouped_split(table, train_fraction=train_fraction, seed=seed)
    assert len(np.intersect1d(train, test)) == 0 and len(train) + len(test) == len(table)
    ids = table["sentence_id"].to_numpy()
    assert set(ids[train]).isdisjoint(ids[test])
    assert leaked_share(table, train, test) == 0.0
    assert len(set(ids[train])) == int(train_fraction * 300)
    # stratified by the item's label: 100 items per label, so exact shares
    counts = table.iloc[train].drop_duplicates("sentence_id")["label"].value_counts()
    assert counts.tolist() == [int(train_fraction * 100)] * 3
    # the row-wise split of the same table does put items on both sides
    row_train, row_test = rowwise_split(table, train_fraction=train_fraction, seed=seed)
    assert not set(ids[row_train]).isdisjoint(ids[row_test])


def test_grouped_split_needs_one_label_per_item():
    table = ids_table(10, 2)
    table.loc[1, "label"] = "other"
    with pytest.raises(ValueError, match="varies within item 'i00000'"):
        grouped_split(table, seed=0)
    train, test = grouped_split(table, seed=0, label=None)
    assert set(table["sentence_id"].iloc[train]).isdisjoint(table["sentence_id"].iloc[test])


def test_rowwise_split_is_stratified_and_seeded():
    table = ids_table(300, 4, labels=np.array(["x"] * 200 + ["y"] * 100))
    train, test = rowwise_split(table, train_fraction=0.75, seed=5)
    assert len(train) == 900 and len(test) == 300
    assert table["label"].iloc[test].value_counts().to_dict() == {"x": 200, "y": 100}
    again = rowwise_split(table, train_fraction=0.75, seed=5)
    assert np.array_equal(again[0], train) and np.array_equal(again[1], test)
    assert not np.array_equal(rowwise_split(table, train_fraction=0.75, seed=6)[1], test)


def test_replicate_seeds_are_fixed_and_distinct():
    seeds = replicate_seeds(20260929, 6)
    assert seeds == replicate_seeds(20260929, 6)
    assert len(set(seeds)) == 6
    assert replicate_seeds(20260929, 3) == seeds[:3]


def test_multiview_table_keeps_single_shared_items_of_one_language():
    sentences = pd.DataFrame(
        {
            "sentence_id": ["b1", "b2", "b3", "e1"],
            "language": pd.Categorical(["bn", "bn", "bn", "en"]),
            "labels": ["joy", "fear;joy", "love", "joy"],
            "shared_single": [True, False, False, True],
        }
    )
    generations = pd.DataFrame(
        {
            "sentence_id": ["b1", "b1", "b2", "b3", "e1"],
            "system": pd.Categorical(
                ["grok-4-fast", "claude-3-haiku", "claude-3-haiku", "claude-3-haiku", "grok-4-fast"]
            ),
            "output": ["a", "b", "c", "d", "e"],
        }
    )
    table = multiview_table(sentences, generations)
    assert table.to_dict("list") == {
        "sentence_id": ["b1", "b1"],
        "system": ["claude-3-haiku", "grok-4-fast"],
        "output": ["b", "a"],
        "label": ["joy", "joy"],
    }


# ------------------------------------------------------------------ measured optimism
def synthetic_multiview(
    n_items: int = 240, signals: tuple[float, ...] = (0.15, 0.35, 0.55, 0.8), seed: int = 0
) -> pd.DataFrame:
    """Views of an item share one item-specific emoji; the label shows only weakly.

    Every view of item k carries the emoji POOL[k] (unique to the item, like
    the shared topic emoji of the simulated benchmark) plus, with
    probability ``signals[v]`` for system v, the label's own emoji,
    otherwise a random background emoji. A decoder that has seen
    other views of the item learns its label from POOL[k]; one that has not
    must rely on the weak label emoji.
    """
    rng = np.random.default_rng(seed)
    labels = np.array(["anger", "fear", "joy", "sadness"])
    label_emoji = dict(zip(labels, POOL[-4:]))
    background = POOL[-24:-4]
    rows = []
    for k in range(n_items):
        label = labels[k % 4]
        for v, signal in enumerate(signals):
            cue = label_emoji[label] if rng.random() < signal else background[rng.integers(len(background))]
            rows.append((f"i{k:04d}", f"system-{v}", POOL[k] + cue, label))
    return pd.DataFrame(rows, columns=["sentence_id", "system", "output", "label"])


@pytest.fixture(scope="module")
def multiview() -> pd.DataFrame:
    return synthetic_multiview()


@pytest.fixture(scope="module")
def optimism(multiview):
    return split_optimism(multiview, n_replicates=4, seed=11)


def test_rowwise_split_is_more_optimistic_than_grouped(optimism):
    replicates, summary = optimism
    assert len(replicates) == 4
    assert (replicates["rowwise"] > replicates["grouped"] + 0.1).all()
    assert summary["inflation_points"] > 10
    assert summary["rowwise_mean"] > 0.8
    assert summary["relative_pct"] == pytest.approx(
        100 * (summary["rowwise_mean"] / summary["grouped_mean"] - 1)
    )
    # test rows whose item is in training: about 1 - 0.2^3 row-wise, none grouped
    assert (replicates["leaked_share_grouped"] == 0).all()
    # A share over 4 replicates of 48 test rows each: its binomial standard error is about 0.006, so 0.02 is about
    # three of them (measured: 0.984).
    assert summary["leaked_share_rowwise"] == pytest.approx(1 - 0.2**3, abs=0.02)
    assert summary["expected_leaked_share"] == pytest.approx(1 - 0.2**3)


def test_split_optimism_reports_the_paired_t_test(optimism):
    replicates, summary = optimism
    paired = stats.ttest_rel(replicates["rowwise"], replicates["grouped"])
    assert summary["t"] == pytest.approx(paired.statistic)
    assert summary["p"] == pytest.approx(paired.pvalue)
    assert summary["df"] == 3
    independent = stats.ttest_ind(replicates["rowwise"], replicates["grouped"])
    assert summary["t_independent"] == pytest.approx(independent.statistic)
    assert summary["df_independent"] == 6


def test_optimism_by_ratio_reuses_the_same_splits(multiview, optimism):
    by_ratio = optimism_by_ratio(multiview, ratios=(0.6, 0.8), n_replicates=4, seed=11)
    assert list(by_ratio.index) == [0.6, 0.8]
    assert (by_ratio["inflation_points"] > 10).all()
    assert by_ratio.loc[0.8, "rowwise_mean"] == pytest.approx(optimism.summary["rowwise_mean"], abs=1e-12)
    assert by_ratio.loc[0.8, "grouped_mean"] == pytest.approx(optimism.summary["grouped_mean"], abs=1e-12)


def test_system_rankings_per_protocol(multiview):
    rankings = system_rankings(multiview, n_replicates=2, seed=11)
    systems, summary = rankings
    assert list(systems.index) == [f"system-{v}" for v in range(4)]
    assert (systems["rowwise_f1"] > systems["grouped_f1"]).all()
    # the label emoji is most frequent for the last system: it decodes best without leakage
    assert summary["top_grouped"] == "system-3"
    assert systems.loc["system-3", "grouped_rank"] == 1
    expected = stats.spearmanr(systems["rowwise_f1"], systems["grouped_f1"]).statistic
    assert summary["rho"] == pytest.approx(expected)
    assert summary["top_changes"] == int(summary["top_rowwise"] != summary["top_grouped"])
    assert summary["n_systems"] == 4


# ------------------------------------------------------------------ doctests
def test_docstring_examples_run():
    result = doctest.testmod(leakage, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10
    assert result.failed == 0


def test_splits_are_scikit_learns_on_the_label_strings():
    """The splits code the labels as integers; scikit-learn, given the strings, splits the same way."""
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(3)
    table = ids_table(240, 3, labels=rng.choice(["sadness", "anger", "joy", "fear"], size=240))
    positions = np.arange(len(table))
    for seed in (0, 7):
        train, test = train_test_split(positions, train_size=0.8, stratify=table["label"].to_numpy(), random_state=seed)
        got = rowwise_split(table, seed=seed)
        assert np.array_equal(got[0], np.sort(train)) and np.array_equal(got[1], np.sort(test))
        items = table.drop_duplicates("sentence_id").sort_values("sentence_id")
        item_train, _ = train_test_split(items["sentence_id"].to_numpy(), train_size=0.8,
                                         stratify=items["label"].to_numpy(), random_state=seed)
        expected = np.flatnonzero(table["sentence_id"].isin(item_train).to_numpy())
        assert np.array_equal(grouped_split(table, seed=seed)[0], expected)


def test_macro_f1_is_scikit_learns():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(4)
    truth = rng.choice(["a", "b", "c", "d"], size=300)
    predicted = rng.choice(["a", "b", "c"], size=300)  # "d" never predicted
    assert leakage._macro_f1(truth, predicted) == pytest.approx(
        f1_score(truth, predicted, average="macro", zero_division=0), abs=1e-15)


def test_protocol_predictions_do_not_depend_on_the_workers(multiview, monkeypatch):
    monkeypatch.delenv("COMPENDIUM_CACHE", raising=False)
    one = leakage.protocol_predictions(multiview, n_replicates=3, seed=11, n_jobs=1)
    two = leakage.protocol_predictions(multiview, n_replicates=3, seed=11, n_jobs=2)
    pd.testing.assert_frame_equal(one, two)
    # each test row is the split function's, and "leaked" is whether its item has a training row
    for (replicate, protocol), part in one.groupby(["replicate", "protocol"]):
        split = rowwise_split if protocol == "rowwise" else grouped_split
        train, test = split(multiview, seed=int(part["split_seed"].iloc[0]))
        assert np.array_equal(part["row"].to_numpy(), test)
        ids = multiview["sentence_id"].to_numpy()
        assert np.array_equal(part["leaked"].to_numpy(), np.isin(ids[test], ids[train]))
