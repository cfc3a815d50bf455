"""Section 4's claims on real rated evaluations: SQuALITY's loader, the rater and system shares, the verdicts
(compendium.analyses.reliability: its rules and section4_checks).

Each verdict is tested on small constructed designs whose answer is known by construction.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from compendium.analyses.real import DOES_NOT_HOLD, HOLDS, INCONCLUSIVE, NOT_TESTABLE
from compendium.analyses.reliability import rules as rel
from compendium.audit import core
from compendium.analyses import reliability
from compendium.data import real
from compendium.data.errors import DataError
from compendium.stats import gstudy


# --- SQuALITY ------------------------------------------------------------------------------------------


def test_squality_is_100_items_by_3_responders_by_3_of_4_reviewers():
    frame = real.load_squality("overall")
    assert list(frame.columns) == ["item", "system", "rater", "rating"]
    assert (frame["item"].nunique(), frame["system"].nunique(), frame["rater"].nunique(), len(frame)) == (
        100,
        3,
        4,
        900,
    )
    assert frame.groupby("item")["rater"].nunique().eq(3).all()
    assert frame["rating"].between(0, 100).all()
    without = real.load_squality("overall", include_human=False)
    assert set(without["system"]) == {"bart", "bart-dpr"} and len(without) == 600


def _squality_copy(tmp_path, edit):
    folder = tmp_path / "squality"
    folder.mkdir()
    lines = (real.real_data_dir() / real.SQUALITY_FILE).read_text(encoding="utf-8").splitlines()
    lines = edit(lines)
    (folder / "all-responses.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_a_bad_squality_rating_names_the_file_the_field_and_the_line(tmp_path):
    def edit(lines):
        record = json.loads(lines[2])
        first = next(iter(record["questions"]))
        record["questions"][first]["bart"]["reviews"][0]["overall-rating"] = 140
        lines[2] = json.dumps(record)
        return lines

    root = _squality_copy(tmp_path, edit)
    with pytest.raises(DataError, match=r"overall-rating.*line.*3|line.*3.*overall-rating") as error:
        real.load_squality("overall", real_dir=root, verify_checksum=False)
    assert error.value.file == real.SQUALITY_FILE


def test_a_broken_squality_line_is_named(tmp_path):
    root = _squality_copy(tmp_path, lambda lines: lines[:4] + ["{not json"] + lines[5:])
    with pytest.raises(DataError, match="line 5"):
        real.load_squality("overall", real_dir=root, verify_checksum=False)
    root2 = tmp_path / "second"
    root2.mkdir()
    root2 = _squality_copy(root2, lambda lines: [lines[0].replace('"worker_id"', '"worker"', 1)] + lines[1:])
    with pytest.raises(DataError, match="line 1.*worker_id"):
        real.load_squality("overall", real_dir=root2, verify_checksum=False)


def test_a_changed_squality_file_fails_its_checksum(tmp_path):
    shutil.copy(real.real_data_dir() / "MANIFEST", tmp_path / "MANIFEST")
    root = _squality_copy(tmp_path, lambda lines: lines[:-1])
    with pytest.raises(DataError, match="SHA-256"):
        real.load_squality("overall", real_dir=root)


# --- constructed designs ---------------------------------------------------------------------------------


def _design(scores: dict[str, dict[str, float]], n_items: int = 30, noise: float = 0.3, seed: int = 1) -> pd.DataFrame:
    """Every rater rates every system on every item: the rater's score for the system plus noise."""
    rng = np.random.default_rng(seed)
    rows = [(f"i{i}", system, rater, score + noise * rng.standard_normal())
            for i in range(n_items) for rater, by_system in scores.items() for system, score in by_system.items()]
    return pd.DataFrame(rows, columns=["item", "system", "rater", "rating"])


#: Three systems far apart, raters who agree: the systems differ, the raters explain little, no winner changes.
SYSTEMS_DIFFER = {r: {"s0": 1.0, "s1": 5.0, "s2": 9.0} for r in ("r0", "r1", "r2")}
#: Two raters who each prefer another system; s0 is both raters' second choice and wins only on their mean.
RATERS_DISAGREE = {"r0": {"s0": 5.0, "s1": 7.0, "s2": 2.0}, "r1": {"s0": 5.0, "s1": 2.0, "s2": 7.0}}


def _checks(scores, **kw):
    frame = _design(scores, **kw)
    result = core.run_audit(frame, seed=0, n_boot=50, **real.COLUMNS)
    row = reliability.evaluation_row("constructed", frame, result.summary, seed=0, n_boot=60)
    return row, {c["check"].split(".")[0] + "." + c["check"].split(".")[1]: c["verdict"]
                 for c in reliability.section4_checks([row]) if c["check"].count(".") == 2}


def test_systems_far_apart_and_raters_in_agreement():
    row, verdicts = _checks(SYSTEMS_DIFFER)
    # the raters agree exactly: no leniency, so the annotator variance is at its bound 0
    assert row["p_random"] < 1e-6 and row["log_ratio_ci"]["annotator"][1] < 0
    assert verdicts == {"anova.real_random_raters": DOES_NOT_HOLD, "vc.real_raters_exceed_systems": DOES_NOT_HOLD,
                        "loao.real_winner_changes": DOES_NOT_HOLD, "loao.real_winner_changes_some": DOES_NOT_HOLD,
                        "dstudy.real_three_raters_below_g80": DOES_NOT_HOLD}  # raters who agree: G near 1


def test_two_raters_who_disagree_make_no_panel_of_the_papers_size():
    row, verdicts = _checks(RATERS_DISAGREE)
    # each removal changes the winner on the whole evaluation, but two raters are not the paper's three
    assert row["winner"] == "s0" and (row["loao_changes"], row["loao_panels"]) == (2, 2)
    assert verdicts["loao.real_winner_changes"] == verdicts["loao.real_winner_changes_some"] == NOT_TESTABLE
    # the system x rater interaction is the whole story, but two raters estimate each rater term on 1 or 2
    # df: the interval of the annotator's ratio to the systems runs from one bound to the other
    assert row["log_ratio_ci"]["annotator"][0] < np.log(2) < row["log_ratio_ci"]["annotator"][1]
    assert verdicts["vc.real_raters_exceed_systems"] == INCONCLUSIVE
    # with two raters the random-rater test has 1 error df: it cannot tell the systems apart, while the
    # fixed-rater test can -- the significance the paper says is lost
    assert verdicts["anova.real_random_raters"] == HOLDS and row["p_random"] > 0.05 and row["p_fixed"] < 0.05


#: Three raters: s0 is everyone's 5; each other system gets 9 from two raters and -4 from the third, so s0
#: wins with all three (5 against 4.67) and loses to another system whichever rater leaves.
EVERY_REMOVAL = {"r0": {"s0": 5.0, "s1": 9.0, "s2": 9.0, "s3": -4.0},
                 "r1": {"s0": 5.0, "s1": 9.0, "s2": -4.0, "s3": 9.0},
                 "r2": {"s0": 5.0, "s1": -4.0, "s2": 9.0, "s3": 9.0}}


def test_three_raters_each_of_whom_decides_the_winner():
    row, verdicts = _checks(EVERY_REMOVAL)
    st = row["stability"]
    # every one of the 60 replicates changes: the Wilson interval of 60 of 60 starts at 0.94
    assert row["winner"] == "s0" and st["p_every"] == 1.0 and st["p_every_ci"][0] > 0.9 and st["gap_ci"][0] > 0.2
    assert verdicts["loao.real_winner_changes"] == verdicts["loao.real_winner_changes_some"] == HOLDS


def test_a_near_tie_at_the_top_reads_as_one():
    """Two systems a hair apart, three raters who agree: a removal changes the winner about as often as not."""
    scores = {r: {"s0": 5.0, "s1": 5.0, "s2": 2.0} for r in ("r0", "r1", "r2")}
    row, verdicts = _checks(scores, noise=1.0, n_items=40)
    st = row["stability"]
    assert st["gap_ci"][0] < 0.05 and 0.1 < st["p_some"] < 0.9
    assert verdicts["loao.real_winner_changes"] == DOES_NOT_HOLD  # every removal: rare


#: Six raters far apart in leniency, systems that do not differ: the raters explain the variance.
LENIENCY = {f"r{k}": {"s0": 2.0 * k, "s1": 2.0 * k, "s2": 2.0 * k} for k in range(6)}


def test_raters_far_apart_in_leniency_explain_more_than_equal_systems():
    row, verdicts = _checks(LENIENCY)
    assert row["log_ratio_ci"]["annotator"][0] > np.log(2) and row["components"]["system"] < 0.01
    assert verdicts["vc.real_raters_exceed_systems"] == HOLDS


@pytest.mark.parametrize("low, high, mc, expected", [
    (0.70, 3.0, (0.0, 0.0), HOLDS), (0.70, 3.0, (0.05, 0.0), INCONCLUSIVE), (-9.2, 0.68, (0.0, 0.0), DOES_NOT_HOLD),
    (-9.2, 0.68, (0.0, 0.02), INCONCLUSIVE), (-1.0, 1.0, (0.0, 0.0), INCONCLUSIVE), (np.nan, 1.0, (0, 0), NOT_TESTABLE),
])
def test_far_more_means_at_least_twice_and_an_end_within_its_monte_carlo_error_decides_nothing(low, high, mc, expected):
    assert rel.verdict_raters_exceed(low, high, mc) == expected


def test_the_pairwise_evaluation_has_no_annotator_main_effect_to_test():
    row = {"evaluation": "P (pairwise)", "kind": "pairwise", "items": 9, "systems": 3, "raters": 3, "F_random": 2.0,
           "df_random": [2, 4], "p_random": 0.2, "F_fixed": None, "p_fixed": None, "rater_x_system_var": 0.01,
           "rater_x_system_var_ci": [0.0, 0.02], "system_var": 0.2, "system_var_ci": [0.1, 0.3], "loao_changes": 0,
           "loao_panels": 3, "winner": "s0", "stability": _RATIOS["stability"], "raters_for_stable_winner": 2}
    check = next(
        c for c in reliability.section4_checks([row]) if c["check"] == "vc.real_raters_exceed_systems.p_pairwise"
    )
    assert check["verdict"] == NOT_TESTABLE and "leniency cancels" in check["computed"]


@pytest.mark.parametrize("verdicts, expected", [
    ([HOLDS, HOLDS, DOES_NOT_HOLD], HOLDS), ([HOLDS, DOES_NOT_HOLD], INCONCLUSIVE),
    ([DOES_NOT_HOLD] * 3 + [INCONCLUSIVE], DOES_NOT_HOLD), ([HOLDS, INCONCLUSIVE, INCONCLUSIVE], INCONCLUSIVE),
    ([NOT_TESTABLE, HOLDS], HOLDS), ([NOT_TESTABLE], NOT_TESTABLE), ([], NOT_TESTABLE),
])
def test_the_pooled_verdict_is_a_strict_majority_of_the_panels_that_could_test_it(verdicts, expected):
    assert rel.pooled_verdict(verdicts) == expected


def test_the_two_readings_of_the_winner_claim_ask_whether_most_panels_change():
    assert (rel.verdict_winner_whenever(0.01, 0.03), rel.verdict_winner_some(0.88, 0.92)) == (DOES_NOT_HOLD, HOLDS)
    assert rel.verdict_winner_some(0.48, 0.53) == INCONCLUSIVE  # a coin toss either way
    assert rel.verdict_winner_whenever(float("nan"), float("nan")) == NOT_TESTABLE


def test_the_doctests_run():
    import doctest

    assert doctest.testmod(rel).failed == 0


#: A rated row's variance ratios and winner changes, for rows built by hand: every rater term at twice the
#: systems', +-1; the winner changes with some removal on most panels, with every removal on few.
_RATIOS = {"log_ratio": dict.fromkeys(("annotator", "item:annotator", "system:annotator"), float(np.log(2))),
           "log_ratio_ci": dict.fromkeys(("annotator", "item:annotator", "system:annotator"), [-0.3, 1.7]),
           "log_ratio_mc": dict.fromkeys(("annotator", "item:annotator", "system:annotator"), [0.02, 0.03]),
           "ratio_n_boot": 2000, "G": 0.9, "g_limit_3": 0.92, "g_limit_3_ci": [0.85, 0.97],
           "stability": {"testable": True, "n_boot": 2000, "panels": "a, b, c (30 items)", "unit": "rating points",
                         "p_every": 0.1, "p_every_ci": [0.09, 0.11], "p_some": 0.6, "p_some_ci": [0.58, 0.62],
                         "p_each": 0.3, "p_each_ci": [0.29, 0.31], "gap_median": 0.1, "gap_ci": [0.0, 0.3],
                         "n_panels": 1, "panel_items": [30, 30]}}


def test_pooled_lines_list_every_panel():
    rows = [dict(evaluation=name, items=10, systems=3, raters=3, design="complete", F_random=1.0, df_random=[2, 4],
                 p_random=p, F_fixed=9.0, p_fixed=0.001, **_RATIOS, loao_changes=1, loao_panels=3, winner="s0")
            for name, p in (("A one", 0.5), ("B two", 0.01), ("C three", 0.2))]
    checks = {c["check"]: c for c in reliability.section4_checks(rows)}
    pooled = checks["anova.real_random_raters"]
    # three panels of three unrelated evaluations: each evaluation one verdict, listed by name, never counted
    assert pooled["estimate"] == "A one holds; B two does not hold; C three holds" and pooled["verdict"] == HOLDS
    assert "A one" in pooled["data"] and "C three" in pooled["data"]
    assert checks["anova.real_random_raters.b_two"]["verdict"] == DOES_NOT_HOLD
    assert len(checks) == 5 * 3 + 5  # per panel (each its evaluation's check: one panel each) and pooled


def test_chapter_2s_box_skips_the_audits_without_the_builds_cache(monkeypatch):
    """JupyterLab runs without the cache: the box (for the book only) must not cost a student minutes."""
    monkeypatch.delenv("COMPENDIUM_CACHE", raising=False)
    from compendium.book import real_benchmarks

    assert real_benchmarks.section4_for_box() == []


@pytest.mark.parametrize("verdicts,expected", [
    (["does not hold"] * 4, "does not hold"), (["holds", "does not hold"], "inconclusive"),
    (["holds", "not testable here", "holds"], "holds"), (["not testable here"] * 2, "not testable here"),
    (["inconclusive", "inconclusive"], "inconclusive"),
])
def test_an_evaluations_panels_give_one_verdict_where_they_agree(verdicts, expected):
    """Issue 67: SummEval's dimensions and SQuALITY's properties share raters and items; they are one replication."""
    assert rel.evaluation_verdict(verdicts) == expected


def test_section_4_pools_independent_evaluations_with_squality_counted_once():
    from compendium.analyses import reliability

    rows = [{"evaluation": name, "kind": "rated", "items": 10, "systems": 4, "raters": 3, "design": "complete",
             "F_fixed": 9.0, "p_fixed": 0.001, "df_random": (3, 6), "F_random": 1.0, "p_random": p,
             **_RATIOS, "loao_changes": 0, "loao_panels": 3, "winner": "S1"}
            for name, p in [("SQuALITY overall", 0.5), ("SQuALITY overall, systems only", 0.5),
                            ("SQuALITY correctness", 0.5), ("SQuALITY selection", 0.5),
                            ("SummEval coherence", 0.01), ("SummEval relevance", 0.02), ("WMT23 MQM", 0.01)]]
    checks = {c["check"]: c for c in reliability.section4_checks(rows)}
    assert checks["anova.real_random_raters.squality"]["verdict"] == "holds"  # four SQuALITY panels: one verdict
    assert checks["anova.real_random_raters.summeval"]["verdict"] == "does not hold"
    assert "anova.real_random_raters.wmt23_en_de_mqm" not in checks  # one panel: its check is the evaluation's
    # one evaluation holds, two do not: by panels (4 of 7 hold) it would have held
    assert checks["anova.real_random_raters"]["verdict"] == "does not hold"
    assert "SQuALITY holds" in checks["anova.real_random_raters"]["estimate"]


def test_the_fixed_rater_test_is_statsmodels_additive_anova_on_an_incomplete_design():
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    frame = _design(RATERS_DISAGREE | {"r2": {"s0": 6.0, "s1": 4.0, "s2": 5.0}}, n_items=20)
    frame = frame.drop(index=frame.index[::7])  # incomplete
    out = gstudy.fixed_rater_test(gstudy.fit_gstudy(frame, **real.COLUMNS))
    table = anova_lm(ols("rating ~ C(item) + C(rater) + C(system)", data=frame).fit(), typ=2)
    row = table.loc["C(system)"]
    # rounding: two least-squares solvers on the same design
    assert out["F"] == pytest.approx(row["F"], rel=1e-8) and out["p"] == pytest.approx(row["PR(>F)"], rel=1e-6)
    assert (out["df1"], out["df2"]) == (int(row["df"]), int(table.loc["Residual", "df"]))


def test_significance_the_fixed_analysis_finds_must_be_lost_for_the_random_rater_claim_to_hold():
    assert rel.verdict_random_raters(0.3, 0.01) == HOLDS
    assert rel.verdict_random_raters(0.3, 0.2) == INCONCLUSIVE  # nothing to lose: a non-rejection alone
    assert rel.verdict_random_raters(0.01, 0.001) == DOES_NOT_HOLD


def test_three_raters_reach_g_08_when_their_tastes_agree_and_not_when_they_differ():
    row, verdicts = _checks(SYSTEMS_DIFFER)
    assert row["g_limit_3_ci"][0] > 0.99 and verdicts["dstudy.real_three_raters_below_g80"] == DOES_NOT_HOLD
    # every removal changes the winner: the raters' tastes (system x rater) swamp the systems' differences
    row, verdicts = _checks(EVERY_REMOVAL)
    assert row["g_limit_3_ci"][1] < 0.8 and verdicts["dstudy.real_three_raters_below_g80"] == HOLDS


def test_g_of_three_raters_without_end_is_the_decision_studys_limit():
    from compendium.stats import gtheory, rater_variance

    comps = {"item": 0.2, "annotator": 0.1, "item:system": 0.3, "item:annotator": 0.1, "system:annotator": 0.2,
             "residual": 0.5, "system": 0.4}
    # the decision study of gtheory (itself tested against Brennan's worked example) at a very large corpus
    far = gtheory.g_coefficient(pd.Series(comps), 10**9, 3)
    assert rater_variance.g_limit(comps) == pytest.approx(far, rel=1e-8)
