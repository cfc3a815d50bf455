"""Tests for compendium.book.cards: facts computed right, caveat rules, the HTML of a card.

The section functions are checked on tables small enough to do by hand; each
caveat rule on a hand-made fact table where it must fire and one where it
must not; the HTML for structure, escaping and self-containment. One test
builds the facts of the tiny benchmark of ``conftest.py`` with the real
module functions and checks them against plain pandas.
"""

from __future__ import annotations

import doctest
import re

import numpy as np
import pandas as pd
import pytest

from compendium.book import cards
from compendium.analyses import cost, length
from compendium.simulate.crossed import simulate_crossed
from compendium.simulate.toy import toy_study
from compendium.stats import panels
from compendium.data import schema

NAN = np.nan


def fact(system, quantity, value, lo=NAN, hi=NAN, section="x"):
    return {"system": system, "section": section, "quantity": quantity, "value": value, "lo": lo, "hi": hi,
            "note": ""}


def facts_of(*rows) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=list(cards.COLUMNS))


def fired(frame: pd.DataFrame, rule: str) -> dict[str, float]:
    part = frame[frame["quantity"] == rule]
    return dict(zip(part["system"], part["value"]))


def value(frame: pd.DataFrame, system: str, quantity: str) -> pd.Series:
    row = frame[(frame["system"] == system) & (frame["quantity"] == quantity)]
    assert len(row) == 1, f"{system} {quantity}: {len(row)} rows"
    return row.iloc[0]


# --------------------------------------------------------------------------- sections


@pytest.fixture
def outputs() -> pd.DataFrame:
    # x: 5 outputs, counts 0 1 3 5 7 -> valid 3/5; attempts 1 1 2 1 3 -> retried 2/5
    # y: 2 outputs, counts 2 2, attempts 1 1
    return pd.DataFrame({
        "system": ["x"] * 5 + ["y"] * 2,
        "attempts": [1, 1, 2, 1, 3, 1, 1],
        "graphemes": [0, 1, 3, 5, 7, 2, 2],
    })


def test_coverage_facts_by_hand(outputs):
    f = cards.coverage_facts(outputs)
    assert list(f.columns) == list(cards.COLUMNS)
    assert set(f["section"]) == {"coverage"}
    assert value(f, "x", "outputs")["value"] == 5
    assert value(f, "x", "valid_share")["value"] == pytest.approx(3 / 5)
    assert value(f, "x", "retry_share")["value"] == pytest.approx(2 / 5)
    assert value(f, "x", "max_attempts")["value"] == 3
    assert value(f, "y", "valid_share")["value"] == 1.0
    assert value(f, "y", "retry_share")["value"] == 0.0
    # a looser prompt makes the 7-emoji output valid
    assert value(cards.coverage_facts(outputs, max_emojis=7), "x", "valid_share")["value"] == pytest.approx(4 / 5)


def test_emoji_profile_facts_by_hand(outputs):
    f = cards.emoji_profile_facts(outputs)
    x = f[f["system"] == "x"].set_index("quantity")["value"]
    assert list(x.index) == ["emojis[0]", "emojis[1]", "emojis[2]", "emojis[3]", "emojis[4]", "emojis[5]",
                             "emojis[>5]", "mean_emojis"]
    assert x[["emojis[0]", "emojis[1]", "emojis[3]", "emojis[5]", "emojis[>5]"]].tolist() == [0.2] * 5
    assert x["emojis[2]"] == 0 and x["emojis[4]"] == 0
    assert x.drop("mean_emojis").sum() == pytest.approx(1.0)
    assert x["mean_emojis"] == pytest.approx((0 + 1 + 3 + 5 + 7) / 5)
    y = f[f["system"] == "y"].set_index("quantity")["value"]
    assert y["emojis[2]"] == 1.0 and y["mean_emojis"] == 2.0


def ead_table(**extra) -> pd.DataFrame:
    # bn: a [0.60, 0.70] leads; b [0.50, 0.65] overlaps a; c [0.45, 0.55] is below a's lower bound but
    # overlaps b (so the "leader" rule of chapter 4 puts c in tier 2, the "lowest" rule would not)
    table = pd.DataFrame({
        "language": ["bn", "bn", "bn", "en", "en", "en"],
        "system": ["a", "b", "c", "a", "b", "c"],
        "n_items": [100] * 3 + [80] * 3,
        "macro_f1": [0.65, 0.60, 0.50, 0.50, 0.52, 0.51],
        "majority_floor": [0.08] * 3 + [0.10] * 3,
        "stratified_floor": [0.20] * 3 + [0.19] * 3,
        "ci_lo": [0.60, 0.50, 0.45, 0.45, 0.47, 0.46],
        "ci_hi": [0.70, 0.65, 0.55, 0.55, 0.57, 0.56],
    })
    return table.assign(**extra)


def test_decodability_facts_carry_ci_floors_and_tiers():
    f = cards.decodability_facts(ead_table(null_mean=0.18, null_p95=[0.2, 0.21, 0.22, 0.19, 0.19, 0.19], null_p=0.05))
    row = value(f, "b", "ead[bn]")
    assert (row["value"], row["lo"], row["hi"]) == (0.60, 0.50, 0.65)
    assert value(f, "c", "majority_floor[bn]")["value"] == 0.08
    assert value(f, "c", "stratified_floor[en]")["value"] == 0.19
    assert value(f, "c", "null_p95[bn]")["value"] == 0.22
    assert "p = 0.05" in value(f, "c", "null_p95[bn]")["note"]
    # tiers by hand: b overlaps the leader a, c does not -> tier 2; all of en overlap
    assert [value(f, s, "tier[bn]")["value"] for s in "abc"] == [1, 1, 2]
    assert [value(f, s, "tier[en]")["value"] for s in "abc"] == [1, 1, 1]
    lowest = cards.decodability_facts(ead_table(), tier_rule="lowest")
    assert [value(lowest, s, "tier[bn]")["value"] for s in "abc"] == [1, 1, 1]
    # languages in schema order within a system
    a = f[f["system"] == "a"]["quantity"].tolist()
    assert a.index("ead[bn]") < a.index("ead[en]")


def test_decodability_facts_without_bootstrap_have_no_interval_and_no_tier():
    f = cards.decodability_facts(ead_table().drop(columns=["ci_lo", "ci_hi"]))
    assert f.loc[f["quantity"].str.startswith("ead["), ["lo", "hi"]].isna().all(axis=None)
    assert not f["quantity"].str.startswith("tier[").any()
    assert not f["quantity"].str.startswith("null_p95[").any()


def test_preference_facts_by_hand():
    mos = pd.DataFrame({"system": ["a", "b"], "n_items": [10, 10], "n_judgements": [30, 30],
                        "mos": [3.2, 2.9], "mos_ci_low": [3.0, 2.7], "mos_ci_high": [3.4, 3.1], "rank_mos": [1, 2]})
    per = pd.DataFrame({"annotator": ["A2", "A1", "A2", "A1"], "system": ["a", "a", "b", "b"],
                        "mos": [4.0, 2.0, 3.5, 2.5], "mos_ci_low": [3.8, 1.8, 3.3, 2.3],
                        "mos_ci_high": [4.2, 2.2, 3.7, 2.7]})
    loao = pd.DataFrame({"panel": ["all", "all", "without A1", "without A1", "without A2", "without A2"],
                         "system": ["a", "b", "a", "b", "b", "a"], "mean": [3.2, 2.9, 4.0, 3.5, 2.5, 2.0],
                         "rank": [1, 2, 1, 2, 1, 2]})
    f = cards.preference_facts(mos, per, loao)
    assert set(f["section"]) == {"preference"}
    row = value(f, "a", "mos")
    assert (row["value"], row["lo"], row["hi"]) == (3.2, 3.0, 3.4)
    assert "30 judgements of 10 items" in row["note"]
    assert value(f, "b", "mos_rank")["value"] == 2
    row = value(f, "b", "mos[A1]")
    assert (row["value"], row["lo"], row["hi"]) == (2.5, 2.3, 2.7)
    assert value(f, "a", "rank[without A2]")["value"] == 2
    assert not (f["quantity"] == "rank[all]").any()
    a = f[f["system"] == "a"]["quantity"].tolist()
    assert a.index("mos[A1]") < a.index("mos[A2]")  # annotators sorted
    # without the MOS table, the full panel of the leave-one-out table gives the rank
    only = cards.preference_facts(loao=loao)
    assert value(only, "b", "mos_rank")["value"] == 2 and not (only["quantity"] == "mos").any()


def test_preference_facts_carry_both_gs_of_the_panel():
    from compendium.stats import panels
    from compendium.stats import gtheory

    data = simulate_crossed(30, 3, 3, seed=2, system_means=[0.0, 0.4, 0.8])
    study = gtheory.g_study(data)
    loao = panels.leave_one_annotator_out(data)
    f = cards.preference_facts(loao=loao, g_study=study)
    for system in ("S1", "S2", "S3"):
        row = value(f, system, "panel_g")
        assert (row["value"], row["lo"], row["hi"]) == tuple(study.loc["unbiased", ["G", "ci_low", "ci_high"]])
        assert value(f, system, "panel_g_observed")["value"] == study.loc["observed", "G"]
    html_text = cards.card_html(cards.card_facts(loao=loao, g_study=study), "S1")
    assert "unbiased system variance" in html_text and "observed variance of the system means" in html_text
    assert f"{study.loc['unbiased', 'G']:.3f}" in html_text


def test_length_matched_and_cost_facts_by_hand():
    wins = pd.DataFrame({"system": ["b", "a"], "wins": [6.5, 3.5], "ties": [1, 1], "comparisons": [10, 10],
                         "win_rate": [0.65, 0.35], "ci_low": [0.35, 0.15], "ci_high": [0.85, 0.65], "rank": [1, 2]})
    mos = pd.DataFrame({"system": ["a", "b"], "mean_count": [4.5, 2.0], "rank_count": [1, 2]})
    f = cards.length_matched_facts(wins, mos)
    row = value(f, "b", "win_rate")
    assert (row["value"], row["lo"], row["hi"]) == (0.65, 0.35, 0.85)
    assert value(f, "a", "win_rank")["value"] == 2
    assert value(f, "a", "matched_comparisons")["value"] == 10
    assert value(f, "a", "mean_emojis_rated")["value"] == 4.5
    # systems not in the schema keep their order of first appearance (b is first in win_rates)
    assert list(dict.fromkeys(f["system"])) == ["b", "a"]

    rates = pd.DataFrame({"system": ["a", "a"], "language": ["hi", "bn"], "tokens_per_byte": [1.5, 1.1],
                          "tokens_per_char": [3.9, 2.9], "bytes_per_char": [2.6, 2.64]})
    costs = pd.DataFrame({"system": ["a"], "language": ["bn"], "mean_completion_tokens": [294.7],
                          "tokens_per_emoji": [113.3], "tokens_per_emoji_item_mean": [124.0]})
    c = cards.cost_facts(rates, costs)
    assert c["quantity"].tolist() == ["prompt_tokens_per_byte[bn]", "prompt_tokens_per_char[bn]",
                                      "completion_tokens[bn]", "completion_tokens_per_emoji[bn]",
                                      "prompt_tokens_per_byte[hi]", "prompt_tokens_per_char[hi]"]
    assert value(c, "a", "completion_tokens_per_emoji[bn]")["value"] == 113.3
    assert "124.00" in value(c, "a", "completion_tokens_per_emoji[bn]")["note"]


def test_annotator_summaries_are_each_annotators_own_means():
    ratings, lengths = toy_study(n_items=12, seed=3)
    per = cards.annotator_summaries(ratings, lengths, n_boot=200, seed=1)
    expected = ratings.groupby(["annotator", "system"], observed=True)["rating"].mean()
    got = per.set_index(["annotator", "system"])["mos"]
    pd.testing.assert_series_equal(got.sort_index(), expected.rename("mos").sort_index(), check_names=False,
                                   check_index_type=False)
    assert ((per["mos_ci_low"] <= per["mos"]) & (per["mos"] <= per["mos_ci_high"])).all()
    # ranks within each annotator, 1 = highest mean
    for _, part in per.groupby("annotator"):
        assert part.sort_values("mos", ascending=False)["rank_mos"].iloc[0] == 1


# --------------------------------------------------------------------------- caveat rules


def test_mos_ci_overlap_counts_overlapping_systems():
    f = facts_of(fact("a", "mos", 3.0, 2.8, 3.2), fact("b", "mos", 3.1, 3.0, 3.3), fact("c", "mos", 4.0, 3.9, 4.1),
                 fact("d", "mos", 3.25, 3.2, 3.3))
    got = fired(cards.caveats(f), "mos_ci_overlap")
    # a overlaps b and d (touching at 3.2 counts); b overlaps a and d; d overlaps a and b; c overlaps nobody
    assert got == {"a": 2, "b": 2, "d": 2}
    # per-annotator MOS rows are not the panel's MOS
    g = facts_of(fact("a", "mos", 3.0, 2.8, 3.2), fact("b", "mos[A1]", 3.0, 2.8, 3.2))
    assert fired(cards.caveats(g), "mos_ci_overlap") == {}


def test_panel_rank_shift_fires_on_the_largest_move():
    f = facts_of(fact("a", "mos_rank", 5), fact("a", "rank[without A1]", 2), fact("a", "rank[without A2]", 6),
                 fact("b", "mos_rank", 1), fact("b", "rank[without A1]", 1), fact("b", "rank[without A2]", 1))
    out = cards.caveats(f)
    assert fired(out, "panel_rank_shift") == {"a": 3}
    assert "2\u20136 instead of 5" in out.loc[out["quantity"] == "panel_rank_shift", "note"].iloc[0]
    assert "without A1" in out.loc[out["quantity"] == "panel_rank_shift", "note"].iloc[0]
    assert fired(cards.caveats(f, min_rank_shift=3), "panel_rank_shift") == {"a": 3}  # the threshold is inclusive
    assert fired(cards.caveats(f, min_rank_shift=4), "panel_rank_shift") == {}


def test_length_rank_shift():
    f = facts_of(fact("a", "mos_rank", 6), fact("a", "win_rank", 1), fact("b", "mos_rank", 2), fact("b", "win_rank", 2))
    assert fired(cards.caveats(f), "length_rank_shift") == {"a": 5}
    assert fired(cards.caveats(f, min_rank_shift=6), "length_rank_shift") == {}


def test_ead_within_language_needs_two_languages():
    one = facts_of(fact("a", "ead[bn]", 0.6, 0.55, 0.65))
    two = facts_of(fact("a", "ead[bn]", 0.6, 0.55, 0.65), fact("a", "ead[hi]", 0.4, 0.35, 0.45))
    assert fired(cards.caveats(one), "ead_within_language") == {}
    assert fired(cards.caveats(two), "ead_within_language") == {"a": 2}


def test_ead_near_floor_compares_the_lower_bound_with_every_floor():
    f = facts_of(
        fact("a", "ead[bn]", 0.30, 0.15, 0.45), fact("a", "majority_floor[bn]", 0.08),
        fact("a", "null_p95[bn]", 0.19),  # 0.15 <= 0.19: fires
        fact("b", "ead[bn]", 0.30, 0.25, 0.35), fact("b", "majority_floor[bn]", 0.08),
        fact("b", "null_p95[bn]", 0.19), fact("b", "stratified_floor[bn]", 0.20),  # 0.25 > 0.20: quiet
        fact("c", "ead[en]", 0.09), fact("c", "majority_floor[en]", 0.10),  # no interval: the point, 0.09 <= 0.10
    )
    got = fired(cards.caveats(f), "ead_near_floor")
    assert got == {"a": 0.15, "c": 0.09}


def test_reasoning_tokens_flags_only_the_outlier():
    per_emoji = {"a": 2.0, "b": 3.0, "c": 2.5, "d": 113.0}
    f = facts_of(*[fact(s, "completion_tokens_per_emoji[bn]", v) for s, v in per_emoji.items()])
    got = fired(cards.caveats(f), "reasoning_tokens")
    assert list(got) == ["d"] and got["d"] == pytest.approx(113.0 / np.median(list(per_emoji.values())))
    assert fired(cards.caveats(f, outlier_factor=50), "reasoning_tokens") == {}
    # the median is per language: a system dear in every language is the outlier in each
    g = facts_of(*[fact(s, "completion_tokens_per_emoji[hi]", v) for s, v in {"a": 2.0, "b": 2.0, "c": 2.0}.items()])
    assert fired(cards.caveats(g), "reasoning_tokens") == {}


def test_template_and_unit_rules():
    f = facts_of(
        fact("a", "prompt_tokens_per_byte[bn]", 1.1), fact("a", "prompt_tokens_per_char[bn]", 2.9),
        fact("a", "prompt_tokens_per_byte[en]", 1.45), fact("a", "prompt_tokens_per_char[en]", 1.45),
        fact("b", "prompt_tokens_per_byte[bn]", 0.4), fact("b", "prompt_tokens_per_char[bn]", 1.0),
        fact("b", "prompt_tokens_per_byte[en]", 0.5), fact("b", "prompt_tokens_per_char[en]", 1.2),
        fact("c", "prompt_tokens_per_byte[bn]", 1.0), fact("d", "prompt_tokens_per_byte[bn]", 1.01),
    )
    out = cards.caveats(f)
    assert fired(out, "template_in_prompt") == {"a": 1.45, "d": 1.01}  # exactly one token per byte is possible
    # a: bn is cheaper per byte, en per character -> both languages change rank; b keeps its order
    assert fired(out, "unit_changes_order") == {"a": 2}
    note = out.loc[out["quantity"] == "unit_changes_order", "note"].iloc[0]
    assert "per byte Bangla" in note and "per character English" in note


def test_coverage_rules():
    f = facts_of(fact("a", "valid_share", 0.98), fact("a", "retry_share", 0.064),
                 fact("b", "valid_share", 1.0), fact("b", "retry_share", 0.01))
    out = cards.caveats(f)
    assert fired(out, "invalid_outputs") == {"a": pytest.approx(0.02)}
    assert fired(out, "retries") == {"a": 0.064}
    assert fired(cards.caveats(f, retry_share_max=0.1), "retries") == {}


def test_no_facts_no_caveats_and_rule_order():
    assert cards.caveats(facts_of()).empty
    f = facts_of(fact("a", "valid_share", 0.5), fact("a", "mos", 3, 2, 4), fact("b", "mos", 3, 2, 4))
    out = cards.caveats(f)
    assert out["quantity"].tolist() == ["mos_ci_overlap", "invalid_outputs", "mos_ci_overlap"]
    assert set(out["section"]) == {"caveats"} and out[["lo", "hi"]].isna().all(axis=None)


def test_caveat_rules_table_fills_thresholds_and_rejects_unknown_ones():
    table = cards.caveat_rules(min_rank_shift=2)
    assert table["rule"].tolist() == list(cards.CAVEAT_RULES)
    assert "2 or more places" in table.set_index("rule").loc["panel_rank_shift", "fires when"]
    assert not table["fires when"].str.contains("{", regex=False).any()
    with pytest.raises(TypeError, match="min_rank"):
        cards.caveat_rules(min_rank=2)


# --------------------------------------------------------------------------- card_facts on real tables


def test_card_facts_of_the_tiny_benchmark(tiny_benchmark):
    b = tiny_benchmark
    lengths = length.emoji_counts(b.generations)
    outputs = b.generations[["system", "attempts"]].assign(graphemes=lengths["graphemes"].to_numpy())
    win_rates = length.matched_win_rates(length.length_matched_comparisons(b.ratings, lengths))
    mos = length.system_summary(b.ratings, lengths, win_rates=win_rates, n_boot=100, seed=0)
    facts = cards.card_facts(
        outputs=outputs, mos=mos, annotator_mos=cards.annotator_summaries(b.ratings, lengths, n_boot=100, seed=0),
        loao=panels.leave_one_annotator_out(b.ratings), win_rates=win_rates,
        rates=cost.token_rates(b.sentences, b.generations, by=("system", "language")),
        costs=cost.completion_costs(b.sentences, b.generations))
    assert list(facts.columns) == list(cards.COLUMNS)
    assert facts["system"].unique().tolist() == list(schema.SYSTEMS)
    sections = [s for s in cards.SECTIONS if s != "decodability"]
    for system, part in facts.groupby("system", sort=False):
        seen = list(dict.fromkeys(part["section"]))
        assert seen == [s for s in sections if s in seen], f"{system}: sections out of order {seen}"
    # independent computations with plain pandas
    panel = b.ratings.assign(system=b.ratings["system"].astype(str)).groupby("system")["rating"].mean()
    for system in schema.SYSTEMS:
        assert value(facts, system, "mos")["value"] == pytest.approx(panel[system])
    graphemes = pd.Series(lengths["graphemes"].to_numpy(), index=b.generations["system"].astype(str).to_numpy())
    for system in schema.SYSTEMS:
        g = graphemes[system]
        assert value(facts, system, "valid_share")["value"] == pytest.approx(((g >= 1) & (g <= 5)).mean())
        retried = (b.generations.loc[b.generations["system"] == system, "attempts"] > 1).mean()
        assert value(facts, system, "retry_share")["value"] == pytest.approx(retried)
    # the one empty output (hi-03, grok-4-fast) is the only invalid one
    assert list(fired(facts, "invalid_outputs")) == ["grok-4-fast"]
    assert value(facts, "grok-4-fast", "valid_share")["value"] == pytest.approx(11 / 12)


def test_card_facts_passes_thresholds_to_the_rules():
    f = dict(mos=pd.DataFrame({"system": ["a", "b"], "mos": [3.0, 3.1], "mos_ci_low": [2.9, 3.0],
                               "mos_ci_high": [3.1, 3.2], "rank_mos": [2, 1], "mean_count": [2.0, 3.0],
                               "rank_count": [2, 1]}),
             win_rates=pd.DataFrame({"system": ["a", "b"], "comparisons": [4, 4], "win_rate": [0.75, 0.25],
                                     "ci_low": [0.3, 0.05], "ci_high": [0.95, 0.7], "rank": [1, 2]}))
    assert set(fired(cards.card_facts(**f), "length_rank_shift")) == {"a", "b"}
    assert fired(cards.card_facts(**f, min_rank_shift=2), "length_rank_shift") == {}


# --------------------------------------------------------------------------- HTML


@pytest.fixture
def facts() -> pd.DataFrame:
    rows = []
    for s, m in (("claude-3-haiku", 3.48), ("grok-4-fast", 3.34), ("<b>evil</b> & co", 3.0)):
        rows += [
            fact(s, "outputs", 100, section="coverage"),
            fact(s, "valid_share", 1.0, section="coverage"),
            fact(s, "emojis[1]", 0.5, section="emoji profile"),
            fact(s, "emojis[>5]", 0.0, section="emoji profile"),
            fact(s, "ead[bn]", 0.6, 0.55, 0.65, section="decodability"),
            fact(s, "majority_floor[bn]", 0.087, section="decodability"),
            fact(s, "mos", m, m - 0.1, m + 0.1, section="preference"),
            fact(s, "mos[A1]", m - 1, m - 1.1, m - 0.9, section="preference"),
            fact(s, "rank[without A1]", 2, section="preference"),
            fact(s, "win_rate", 0.5, 0.4, 0.6, section="length-matched"),
            fact(s, "prompt_tokens_per_byte[bn]", 1.1, section="cost"),
        ]
    frame = facts_of(*rows)
    frame.loc[len(frame)] = ["grok-4-fast", "caveats", "reasoning_tokens", 40.0, NAN, NAN, "It <thinks> & bills."]
    return frame


def test_cards_html_has_one_section_per_system_with_a_heading(facts):
    page = cards.cards_html(facts)
    assert page.count("<section") == 3 and page.count("</section>") == 3
    headings = re.findall(r'<h3 id="card-([a-z0-9-]+)-title">([^<]*)</h3>', page)
    assert [h[1] for h in headings[:2]] == ["Claude-3-Haiku", "Grok-4-Fast"]
    assert len({h[0] for h in headings}) == 3  # unique ids
    # every in-page link points at a card that exists
    targets = re.findall(r'href="#([^"]+)"', page)
    assert sorted(targets) == sorted(re.findall(r'<section class="sc-card" id="([^"]+)"', page))
    # only the requested systems, in the requested order
    two = cards.cards_html(facts, systems=["grok-4-fast", "claude-3-haiku"])
    assert two.count("<section") == 2 and two.index("Grok-4-Fast</h3>") < two.index("Claude-3-Haiku</h3>")


def test_card_html_escapes_names_and_notes(facts):
    page = cards.cards_html(facts)
    assert "<b>evil</b>" not in page and "&lt;b&gt;evil&lt;/b&gt; &amp; co" in page
    assert "<thinks>" not in page and "It &lt;thinks&gt; &amp; bills." in page
    card = cards.card_html(facts, "<b>evil</b> & co", label='"quoted" <label>')
    assert "&quot;quoted&quot; &lt;label&gt;" in card and "<label>" not in card


def test_card_html_is_self_contained(facts):
    page = cards.cards_html(facts)
    for banned in ("http:", "https:", "//", "<script", "<link", "<img", "<iframe", "url(", "@import", " src="):
        assert banned not in page, banned


def test_card_html_tables_are_accessible_and_say_the_data_is_simulated(facts):
    card = cards.card_html(facts, "claude-3-haiku", data_label="simulated")
    assert card.count("<table>") == card.count("<caption>") >= 5
    assert '<th scope="row">' in card and '<th scope="col"' in card
    assert "simulated data" in card
    assert "0.600 [0.550, 0.650]" in card  # EAD with its CI, three decimals
    assert "3.48 [3.38, 3.58]" in card  # MOS with its CI
    assert "100.0%" in card  # shares as percentages
    assert "No caveat rule fired." in card
    grok = cards.card_html(facts, "grok-4-fast", data_label="real")
    assert "real data" in grok and "simulated" not in grok
    assert grok.count("<li>") == 1 and "No caveat rule fired." not in grok


def test_colour_is_only_an_accent(facts):
    card = cards.card_html(facts, "claude-3-haiku")
    assert 'style="border-left-color:#E69F00"' in card
    # the colour appears nowhere else: the name, not the colour, says which system it is
    assert card.count("#E69F00") == 1 and "Claude-3-Haiku" in card
    bad = cards.card_html(facts, "claude-3-haiku", colour="red;background:url(x)")
    assert "style=" not in bad.split(">", 1)[0]


def test_card_html_of_an_unknown_system_raises(facts):
    with pytest.raises(ValueError, match="no facts"):
        cards.card_html(facts, "nobody")


def test_split_quantity():
    assert cards.split_quantity("emojis[>5]") == ("emojis", ">5")
    assert cards.split_quantity("mos") == ("mos", None)
    with pytest.raises(ValueError):
        cards.split_quantity("Not A Quantity")


def test_doctests():
    from compendium.book.cards import facts, render, rules

    results = [doctest.testmod(m, optionflags=doctest.NORMALIZE_WHITESPACE) for m in (cards, facts, rules, render)]
    assert sum(r.attempted for r in results) > 0
    assert sum(r.failed for r in results) == 0


def test_a_caveat_that_holds_for_every_system_is_stated_once_above_the_cards(facts):
    both = facts.copy()
    for system in both["system"].unique():
        both.loc[len(both)] = [system, "caveats", "mos_ci_overlap", 2.0, NAN, NAN, f"{system} overlaps others."]
    assert cards.shared_caveats(both) == ["mos_ci_overlap"]
    page = cards.cards_html(both)
    assert page.count("Caveats that hold for every system") == 1
    assert page.index("Caveats that hold for every system") < page.index('<section class="sc-card"')
    assert "overlaps others." not in page  # the per-card notes of a shared rule are not repeated
    assert "It &lt;thinks&gt; &amp; bills." in page  # what singles grok out stays on its card
    assert page.count("No caveat beyond those above") == 2
    # one card alone: nothing is shared, its caveats stay on it
    assert cards.shared_caveats(both, ["grok-4-fast"]) == []
    assert "overlaps others." in cards.cards_html(both, systems=["grok-4-fast"])
    assert cards.shared_caveats(facts) == []  # reasoning_tokens fires for grok only
