"""Issue 72, part 4: what the book's intervals are worth, measured and stored as a record the build reads.

The measuring functions are checked against something that is not themselves: the Wilson interval and its exact
coverage against scipy's interval and binomial distribution, the resampling and mixed-model harnesses against
designs whose intervals are known to hold 95 % (a t interval of a mean; lmerTest's interval of a fixed effect in
a balanced crossed design). The record (``src/compendium/analyses/ledger/interval_coverage.json``, written by
``compendium bench --sections coverage``) is checked for completeness -- every kind listed, measured or with the
reason it is not, every interval-bearing real-data check attached to a kind -- and a sample of it is recomputed.
The decision study's raters needed, a point estimate, is measured by the share of simulated studies whose
recommended panel reaches the target under the fit (checked on designs where the answer is certain).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from compendium.analyses.ledger import intervals
from compendium.audit import wording
from compendium.build import runner
from compendium.stats import coverage, gstudy, mixed


def test_the_wilson_interval_is_scipys():
    n = 37
    low, high = coverage.wilson_interval(np.arange(n + 1), n)
    for k in range(n + 1):
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert (low[k], high[k]) == pytest.approx((ci.low, ci.high), abs=1e-12)


@pytest.mark.parametrize("n, p", [(30, 0.1), (100, 0.5), (894, 0.673), (2000, 0.003)])
def test_the_wilson_coverage_is_the_binomial_probability_of_the_counts_whose_scipy_interval_holds_p(n, p):
    held = [k for k in range(n + 1)
            if (ci := stats.binomtest(k, n).proportion_ci(method="wilson")).low <= p <= ci.high]
    assert coverage.wilson_coverage(n, p) == pytest.approx(stats.binom.pmf(held, n, p).sum(), abs=1e-12)


def test_a_share_of_exactly_0_or_1_is_always_covered():
    # every count's Wilson interval of a share that is 0 is [0, ...]: the count is 0 and its interval starts at 0
    assert coverage.wilson_coverage(2000, 0.0) == 1.0 and coverage.wilson_coverage(2000, 1.0) == 1.0


def test_the_wilson_coverage_oscillates_below_the_nominal_level_near_the_edges():
    # Brown, Cai and DasGupta (2001), figure 5: the Wilson interval dips below 0.95 for p near 0 or 1
    assert coverage.wilson_coverage(2000, 0.002) < 0.935 < coverage.wilson_coverage(2000, 0.3)


def test_resampling_coverage_of_a_t_interval_of_a_mean_is_about_95_percent():
    population = pd.DataFrame({"x": np.random.default_rng(0).normal(size=5000)})

    def t_interval(sample, seed):
        return stats.t.interval(0.95, len(sample) - 1, loc=sample["x"].mean(), scale=stats.sem(sample["x"]))

    frame = coverage.resampling_coverage(population, lambda d: d["x"].mean(), t_interval, n=50, n_sim=1000, seed=1)
    assert (frame["truth"] == population["x"].mean()).all() and len(frame) == 1000
    row = coverage.summarise(frame).iloc[0]
    assert abs(row["coverage"] - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 1000)  # three binomial errors at 95 %
    # a 50 % interval covers about half the time: the harness can tell an interval that does not keep 95 %
    half = coverage.resampling_coverage(population, lambda d: d["x"].mean(),
                                        lambda d, s: stats.t.interval(0.5, len(d) - 1, loc=d["x"].mean(),
                                                                      scale=stats.sem(d["x"])),
                                        n=50, n_sim=400, seed=1)
    assert coverage.summarise(half).iloc[0]["coverage"] < 0.6


def test_the_mixed_model_harness_covers_a_balanced_designs_slope_at_its_level():
    rng = np.random.default_rng(3)
    items, raters = np.repeat(np.arange(40), 6), np.tile(np.arange(6), 40)
    x = rng.normal(size=240)
    y = 0.3 * x + rng.normal(size=40)[items] + 0.5 * rng.normal(size=6)[raters] + rng.normal(size=240)
    X = np.column_stack([np.ones(240), x])
    terms = [mixed.RandomTerm("item", items), mixed.RandomTerm("rater", raters)]
    fit = mixed.fit_lmm(y, X, terms)
    frame = coverage.lmm_coefficient_coverage(fit, X, terms, 1, n_sim=400, seed=5)
    assert (frame["truth"] == fit.beta[1]).all() and len(frame) >= 395
    row = coverage.summarise(frame).iloc[0]
    assert abs(row["coverage"] - 0.95) < 3 * np.sqrt(0.95 * 0.05 / len(frame))  # three binomial errors at 95 %


# --- the record ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def record():
    return intervals.load_record()


def test_every_kind_is_measured_on_enough_simulations_or_says_why_not(record):
    for kind in intervals.KINDS:
        designs = record["kinds"].get(kind.key, {}).get("designs", [])
        if not designs:
            assert kind.key in intervals.NOT_MEASURED, kind.key
            continue
        for row in designs:
            assert 0 <= row["coverage"] <= 1
            if row.get("mc_error"):  # simulated: at least 400 studies (1,000 where a study costs little)
                assert row["n_sim"] >= 400, (kind.key, row["design"])


def test_every_interval_behind_a_verdict_on_real_data_has_a_kind():
    checks = json.loads(runner.CLAIMS_FILE.read_text(encoding="utf-8"))["real_data_checks"]
    with_interval = [c["check"] for c in checks if c.get("interval") is not None]
    assert with_interval
    assert [c for c in with_interval if intervals.kind_of(c) is None] == []


def test_the_tables_list_every_kind_with_its_coverage(record):
    table, summary = intervals.table(record), intervals.summary_table(record)
    assert set(table["interval"]) == {k.name for k in intervals.KINDS}
    assert summary["interval"].tolist() == [k.name for k in intervals.KINDS]
    leakage = table[table["interval"] == intervals._BY_KEY["leakage"].name]
    assert leakage["design"].tolist() == ["not measured"] and "Nadeau" in leakage["coverage"].iloc[0]
    g = summary.set_index("interval").loc[intervals._BY_KEY["G"].name]
    designs = record["kinds"]["G"]["designs"]
    assert g["coverage"] == f"{min(d['coverage'] for d in designs):.3f} to {max(d['coverage'] for d in designs):.3f}"
    assert g["below 0.935"] == "; ".join(d["design"] for d in designs if d["coverage"] < 0.935) or "none"


def test_an_interval_replaced_after_measuring_keeps_its_record_and_its_successor_keeps_the_level(record):
    """Section 4's variance ratio on SummEval: the percentile bootstrap covered far below 95 %, the generalized
    interval that replaced it covers within the range (compendium.stats.rater_variance)."""
    entry = record["kinds"]["variance_ratio"]
    assert {r["design"] for r in entry["candidates"]} == {r["design"] for r in entry["designs"]}
    assert all("checks" not in r and r["method"] == intervals.CANDIDATES["variance_ratio"] for r in entry["candidates"])
    low, high = record["range"]
    for row in entry["designs"]:
        assert row["n_sim"] >= 1000 and low - 2 * row["mc_error"] <= row["coverage"] <= high + 2 * row["mc_error"], row
    assert max(r["coverage"] for r in entry["candidates"]) < low
    text = intervals.replaced_text(record)
    lowest = min(r["coverage"] for r in entry["candidates"])
    assert f"{lowest:.3f}" in text and "generalized confidence interval" in text
    shown = intervals.table(record)
    assert shown["design"].str.contains("replaced").sum() == len(entry["candidates"])
    assert intervals.replaced_text({"kinds": {}}) == ""


def test_the_raters_needed_promise_partitions_the_studies_and_is_certain_where_g_is():
    """Systems far apart: every study recommends the one rater the fit needs. Systems close together: a recommended
    panel reaches the target, falls short or names none, and the three shares add to one."""
    rng = np.random.default_rng(4)
    rows = [(f"i{i}", f"s{s}", f"r{r}", 3.0 * s * spread + rng.normal(0, 1.0))
            for spread in (1.0,) for i in range(30) for s in range(4) for r in range(3)]
    frame = pd.DataFrame(rows, columns=["item", "system", "rater", "rating"])
    study = gstudy.fit_gstudy(frame, item="item", system="system", rater="rater", rating="rating")
    far = coverage.raters_needed_promise(study, 50, seed=1)
    assert far.loc[0.8, "reaches"] == 1.0 and far.loc[0.8, "true_needed"] == 1 and far.loc[0.8, "median_needed"] == 1
    close = frame.assign(rating=frame["rating"] - frame["system"].str[1:].astype(int) * 2.9)
    study = gstudy.fit_gstudy(close, item="item", system="system", rater="rater", rating="rating")
    promise = coverage.raters_needed_promise(study, 200, seed=1)
    for target, row in promise.iterrows():
        assert row["reaches"] + row["short"] + row["none"] == pytest.approx(1.0, abs=1e-12)
        assert 0 < row["reaches"] < 1, (target, row.to_dict())
    with pytest.raises(ValueError, match="complete crossed design"):
        coverage.raters_needed_promise(gstudy.fit_gstudy(frame.iloc[1:], item="item", system="system", rater="rater",
                                                         rating="rating"), 5)


def test_the_record_holds_the_raters_needed_promise_of_every_complete_design(record):
    rows = record["promises"]["raters_needed"]
    assert {r["design"] for r in rows} == {"SummEval coherence", "SummEval consistency", "SummEval fluency",
                                           "SummEval relevance", "simulated benchmark"}
    assert all(r["n_sim"] >= 1000 and {r["target"] for r in rows} == {0.8, 0.9} for r in rows)
    again = coverage.raters_needed_promise(
        gstudy.fit_gstudy(intervals._rated_designs()["SummEval relevance"][0], item="item", rater="rater"), 1000,
        seed=intervals.SEED)
    stored = {r["target"]: r for r in rows if r["design"] == "SummEval relevance"}
    for target, row in again.iterrows():
        # the same draws; an ANOVA's last digits on another host may move one borderline study of a thousand
        assert abs(row["reaches"] - stored[target]["reaches"]) <= 0.002
    low, high = intervals.raters_needed_span(record)
    assert f"{low:.0%} to {high:.0%}" in wording.raters_needed_text()
    assert len(intervals.raters_needed_table(record)) == len(rows)


def test_a_box_says_so_where_its_interval_covered_below_the_range():
    fake = {"kinds": {"ead": {"designs": [{"design": "X", "coverage": 0.91, "mc_error": 0.009, "n_sim": 1000,
                                           "checks": ["ead.human_decodable_x"]}]}}}
    note = intervals.box_note({"check": "ead.human_decodable_x", "interval": [0.1, 0.2]}, fake)
    assert "0.910 ± 0.009" in note and "below 0.935" in note
    assert intervals.box_note({"check": "ead.human_decodable_y", "interval": [0.1, 0.2]}, fake) is None
    fake["kinds"]["ead"]["designs"][0]["coverage"] = 0.94
    assert intervals.box_note({"check": "ead.human_decodable_x", "interval": [0.1, 0.2]}, fake) is None
    fake["kinds"]["ead"]["designs"][0]["coverage"] = 0.91
    pooled = intervals.box_note({"check": "ead.human_decodable", "interval": None}, fake)  # pools the corpora
    assert "the intervals it pools" in pooled and "0.910 ± 0.009" in pooled and "(X)" in pooled
    edge = intervals.box_note({"check": "loao.real_winner_changes.x", "interval": [0, 0.01], "estimate": 0.002})
    assert "2,000 panels" in edge and "(exact)" in edge


def _same(stored: list[dict], again: list[dict]) -> None:
    assert len(stored) == len(again)
    for a, b in zip(stored, again):
        assert a.keys() == b.keys()
        for key, value in a.items():
            if isinstance(value, float):
                # sums of a few thousand binomial probabilities (scipy's special functions, ~1e-15 each); another
                # host's libm moves the last digits only
                assert b[key] == pytest.approx(value, rel=1e-9), key
            else:
                assert b[key] == value, key


def test_a_sample_of_the_record_recomputes(record):
    shares, panels = intervals.measure_shares()
    _same(record["kinds"]["share"]["designs"], shares)
    _same(record["kinds"]["panel_probability"]["designs"], panels)
    sentmix = [r for r in record["kinds"]["ead"]["designs"] if r["design"].startswith("SentMix-3L")]
    again = [r for r in intervals.measure_ead(sentmix[0]["n_sim"], only=("SentMix-3L",))]
    assert again[0]["n_sim"] == sentmix[0]["n_sim"]
    for key in ("coverage", "below", "above"):
        # the same draws; a decoder's last digits on another host may flip one borderline interval of a thousand
        assert abs(again[0][key] - sentmix[0][key]) <= 0.002, key


def test_the_audit_report_quotes_the_records_coverage_of_gs_interval_on_incomplete_designs(record):
    from compendium.audit import wording

    rows = [d["coverage"] for d in record["kinds"]["G"]["designs"] if d["complete"] is False]
    text = wording.measured_g_coverage()
    assert f"{len(rows)} real incomplete designs" in text and f"{min(rows):.3f} to {max(rows):.3f}" in text
    assert "--coverage N" in text and "--coverage N" in wording.g_interval_text({"G_ci_df": [2.0, 10.4]})
